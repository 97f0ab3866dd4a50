/*
 * metrics_http.c -- GET /metrics over HTTP with libmicrohttpd, IPv4 and
 * IPv6 (contract in metrics_http.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "listen_addr.h"
#include "metrics_http.h"
#include "zk/util.h"

/*
 * libmicrohttpd is loaded when a server starts (mhd_load), not linked:
 * every other zkslot command starts without mapping it and the TLS
 * libraries it pulls in.  The functions used, called through mhd.
 */
#define MHD_SONAME "libmicrohttpd.so.12"
#define MHD_FUNCTIONS(X) \
    X(MHD_create_response_from_buffer) X(MHD_add_response_header) X(MHD_queue_response) \
    X(MHD_destroy_response) X(MHD_start_daemon) X(MHD_stop_daemon)

static struct {
#define MHD_FIELD(f) __typeof__(f) *f;
    MHD_FUNCTIONS(MHD_FIELD)
#undef MHD_FIELD
} mhd;

/* 0, or -1 after one line on stderr naming the library and its package. */
static int mhd_load(void)
{
    char err[512] = "";
    void *h = zk_dl_open(MHD_SONAME, err, sizeof err);
#define MHD_RESOLVE(f)                                                                 \
    if (h && !err[0])                                                                  \
        *(void **)&mhd.f = zk_dl_sym(h, MHD_SONAME, #f, err, sizeof err);
    MHD_FUNCTIONS(MHD_RESOLVE)
#undef MHD_RESOLVE
    if (!err[0])
        return 0;
    fprintf(stderr, "zkslot metrics: cannot load the HTTP server library (Debian package "
                    "libmicrohttpd12): %s\n", err);
    return -1;
}

struct metrics_http {
    metrics_render_fn render;
    void *ctx;
    pthread_mutex_t lock;          /* render runs one request at a time */
};

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned status, char *body,
                              size_t len)
{
    struct MHD_Response *r = body
        ? mhd.MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE)
        : mhd.MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    if (status == MHD_HTTP_OK)
        mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; version=0.0.4");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result q = mhd.MHD_queue_response(conn, status, r);
    mhd.MHD_destroy_response(r);
    return q;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **req_cls)
{
    struct metrics_http *m = cls;
    (void)version;
    (void)upload_data;
    if (*upload_data_size) {          /* a body: not ours to read */
        *upload_data_size = 0;
        return MHD_YES;
    }
    (void)req_cls;
    if (strcmp(url, "/metrics"))
        return answer(conn, MHD_HTTP_NOT_FOUND, NULL, 0);
    if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
        return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, 0);
    size_t len = 0;
    pthread_mutex_lock(&m->lock);
    char *body = m->render(m->ctx, &len);
    pthread_mutex_unlock(&m->lock);
    return answer(conn, body ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR, body, len);
}

int metrics_serve(struct metrics_listen *l, const char *what, metrics_render_fn render,
                  void *ctx)
{
    struct metrics_http m = { render, ctx, PTHREAD_MUTEX_INITIALIZER };
    struct MHD_Daemon *d[METRICS_LISTEN_MAX] = { 0 };
    char urls[METRICS_LISTEN_MAX][INET6_ADDRSTRLEN + 32];
    int fd[METRICS_LISTEN_MAX], n = 0, rc = -1, sig;
    sigset_t stop;

    /* the threads libmicrohttpd starts inherit this mask: the signals come
     * to sigwait below */
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (mhd_load() < 0)
        return -1;
    for (int i = 0; i < l->n; i++) {
        if (i && metrics_port_of(&l->sa[i]) == 0)   /* port 0: both loopbacks on one port */
            metrics_set_port(&l->sa[i], metrics_port_of(&l->sa[0]));
        int r = metrics_listen_on(&l->sa[i]);
        if (r < 0 && i && l->implicit_v6 &&
            (r == -EAFNOSUPPORT || r == -EADDRNOTAVAIL))
            break;                           /* no IPv6 here: 127.0.0.1 alone */
        if (r < 0) {
            metrics_url_of(&l->sa[i], "/metrics", urls[0], sizeof urls[0]);
            fprintf(stderr, "zkslot metrics: cannot listen on %s (--listen %s): %s\n",
                    urls[0], what, strerror(-r));
            goto out;
        }
        fd[n] = r;
        metrics_url_of(&l->sa[i], "/metrics", urls[n], sizeof urls[n]);
        d[n] = mhd.MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
                                    (l->sa[i].ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
                                0, NULL, NULL, on_request, &m, MHD_OPTION_LISTEN_SOCKET, r,
                                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                                MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_END);
        n++;
        if (!d[n - 1]) {
            fprintf(stderr, "zkslot metrics: cannot serve %s: libmicrohttpd did not start\n",
                    urls[n - 1]);
            goto out;
        }
    }
    if (n == 2)
        fprintf(stderr, "zkslot metrics: serving %s and %s\n", urls[0], urls[1]);
    else
        fprintf(stderr, "zkslot metrics: serving %s\n", urls[0]);
    sigwait(&stop, &sig);
    rc = 0;
out:
    for (int i = 0; i < n; i++) {
        if (d[i])
            mhd.MHD_stop_daemon(d[i]);   /* closes the socket it was given */
        else
            close(fd[i]);
    }
    return rc;
}
