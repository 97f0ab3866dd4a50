/*
 * http_client.h -- the smallest HTTP/1.1 client `zkslot --server URL`
 * needs to speak to zkslot-apid: one request per connection
 * ("Connection: close"), a JSON body out, the whole answer in (its
 * Content-Length, or up to the close), over plain HTTP, a unix socket, or
 * HTTPS with the server verified first (tls_client.h).
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
 * `token` (NULL: none) as a bearer token; each connect, read and write
 * (and the TLS handshake) within timeout_s seconds.  base_url is
 * http://HOST[:PORT], https://HOST[:PORT] (port 443 by default; the
 * server's certificate checked against ca_file, a PEM file of CAs, or
 * when NULL or "" the system's trust store, and its name against HOST,
 * before the request -- the token -- is sent) or unix:/PATH (a
 * zkslot-apid --listen unix:/PATH).  0 with *ret filled (free ret->body),
 * or -1 with one line in err (n bytes): a URL that is none of these, a
 * host that does not resolve, a refused connection, a certificate not
 * trusted or for another name, a failed handshake, a timeout, a malformed
 * answer.
 */
int http_call(const char *base_url, const char *method, const char *path, const char *body,
              const char *token, const char *ca_file, double timeout_s, struct http_resp *ret,
              char *err, size_t n);

#endif /* ZK_TOOLS_HTTP_CLIENT_H */
