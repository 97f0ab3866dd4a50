/*
 * tls_client.h -- the client side of TLS for `zkslot --server https://...`
 * (GnuTLS), used by http_client.c: a connected socket becomes a session
 * whose server is verified before tls_client_open returns -- its
 * certificate chains to the CA file when one is given ($ZKSLOT_CA_FILE,
 * `zkslot --ca-file FILE`), else to the system's trust store, and names
 * the URL's host (a DNS name, or an IP address in its subjectAltName).
 * Nothing of the caller's (a request, a token) crosses the socket before
 * that: a server that fails the check gets the handshake's bytes only.
 * There is no way to skip the check.
 */
#ifndef ZK_TOOLS_TLS_CLIENT_H
#define ZK_TOOLS_TLS_CLIENT_H

#include <stddef.h>
#include <sys/types.h>

struct tls_client;

/*
 * The handshake on `fd` (connected, its SO_RCVTIMEO/SO_SNDTIMEO set: each
 * read and write of the handshake is bounded by them, the whole handshake
 * by timeout_s) with the server `host` (the URL's host, brackets off)
 * at `port` (for messages).  ca_file NULL or "": the system's trust
 * store (when it holds no CA, every server is refused as not trusted,
 * the message says why).  0 with *ret set (tls_client_free it; fd stays the caller's), or
 * -1 with one line in err (n bytes) naming host:port and the problem: the
 * CA file unreadable or empty, the certificate not trusted, issued for
 * another name, expired, or the handshake failed (not a TLS server, no
 * common protocol, a timeout).  *ret untouched on failure.
 */
int tls_client_open(int fd, const char *host, const char *port, const char *ca_file,
                    double timeout_s, struct tls_client **ret, char *err, size_t n);

/* All of buf[0..len) through the session: 0, or -1 with err filled. */
int tls_client_send_all(struct tls_client *t, const char *buf, size_t len, char *err, size_t n);

/* Up to len bytes into buf: their count, 0 at the end of the answer (the
 * server's close, with or without close_notify: http_client.c checks the
 * length it was told), or -1 with err filled (a timeout among them). */
ssize_t tls_client_recv(struct tls_client *t, char *buf, size_t len, char *err, size_t n);

/* The session and its credentials freed (the socket is not closed, no
 * close_notify is sent: the request said "Connection: close").  NULL is
 * fine; returns NULL. */
struct tls_client *tls_client_free(struct tls_client *t);

#endif /* ZK_TOOLS_TLS_CLIENT_H */
