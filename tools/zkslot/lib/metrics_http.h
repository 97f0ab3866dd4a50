/*
 * metrics_http.h -- `zkslot metrics --listen`: GET /metrics over HTTP, on
 * IPv4 and IPv6, served by libmicrohttpd.
 *
 * Addresses (metrics_parse_listen):
 *   HOST:PORT       an IPv4 address ("127.0.0.1:9464", "0.0.0.0:9464")
 *   [ADDR]:PORT     an IPv6 address ("[::1]:9464"; "[::]:9464" is every
 *                   address, IPv6 and IPv4 on one dual-stack socket)
 *   :PORT           (or localhost:PORT) both loopbacks, 127.0.0.1 and ::1
 *                   (::1 left out, silently, where IPv6 is off)
 * PORT 0 takes a free port (the same one for both loopbacks).  An address
 * is loopback when it is in 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104.
 *
 * metrics_serve binds and listens itself (so an error names the address
 * and the errno), hands the sockets to libmicrohttpd (one internal polling
 * thread per socket), prints "serving URL[ and URL]" on stderr, and
 * returns when SIGTERM or SIGINT arrives (0), or -1 after one line on
 * stderr when it could not listen.  GET or HEAD /metrics (any query) gets
 * `render`'s text as text/plain; version=0.0.4; another path 404, another
 * method on /metrics 405.  `render` is called under a mutex, one request
 * at a time, and returns a malloc'd buffer (NULL: 500).
 */
#ifndef ZK_TOOLS_METRICS_HTTP_H
#define ZK_TOOLS_METRICS_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

#define METRICS_LISTEN_MAX 2

struct metrics_listen {
    int n;                          /* addresses, 1 or 2 */
    int implicit_v6;                /* the second is the implicit ::1 of ":PORT" */
    int loopback;                   /* every address is loopback */
    struct sockaddr_storage sa[METRICS_LISTEN_MAX];
};

typedef char *(*metrics_render_fn)(void *ctx, size_t *len);

/* 0, or -1 when s is not one of the forms above. */
int metrics_parse_listen(const char *s, struct metrics_listen *ret);

int metrics_serve(struct metrics_listen *l, const char *what, metrics_render_fn render,
                  void *ctx);

#endif
