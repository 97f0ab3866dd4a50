/*
 * http_client.h -- the smallest HTTP/1.1 client `zkslot --server URL`
 * needs to speak to zkslot-apid: one request per connection
 * ("Connection: close"), a JSON body out, the whole answer in (its
 * Content-Length, or up to the close), plain HTTP only (no TLS: a remote
 * apid is reached through a TLS-terminating proxy or an ssh tunnel).
 */
#ifndef ZK_TOOLS_HTTP_CLIENT_H
#define ZK_TOOLS_HTTP_CLIENT_H

#include <stddef.h>

#define HTTP_BODY_MAX (256u << 20)

struct http_resp {
    int status;
    char *body;                       /* malloc'd, NUL-terminated */
    size_t len;
};

/*
 * METHOD base_url + path, with `body` (NULL: none) as application/json and
 * `token` (NULL: none) as a bearer token; the whole exchange within
 * timeout_s seconds.  base_url is http://HOST[:PORT] or unix:/PATH (a
 * zkslot-apid --listen unix:/PATH).  0 with *ret filled (free ret->body), or -1 with one
 * line in err (n bytes): a URL that is neither, a host that
 * does not resolve, a refused connection, a timeout, a malformed answer.
 */
int http_call(const char *base_url, const char *method, const char *path, const char *body,
              const char *token, double timeout_s, struct http_resp *ret, char *err, size_t n);

#endif /* ZK_TOOLS_HTTP_CLIENT_H */
