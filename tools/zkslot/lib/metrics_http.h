/*
 * metrics_http.h -- `zkslot metrics --listen`: GET /metrics over HTTP, on
 * IPv4 and IPv6, served by libmicrohttpd.
 *
 * Addresses: listen_addr.h.
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

#include "listen_addr.h"

typedef char *(*metrics_render_fn)(void *ctx, size_t *len);

int metrics_serve(struct metrics_listen *l, const char *what, metrics_render_fn render,
                  void *ctx);

#endif
