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

static int parse_port(const char *s, uint16_t *port)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0 || v > 65535)
        return -1;
    *port = (uint16_t)v;
    return 0;
}

static void set_v4(struct sockaddr_storage *ss, const struct in_addr *a, uint16_t port)
{
    struct sockaddr_in *sa = (struct sockaddr_in *)ss;
    memset(ss, 0, sizeof *ss);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(port);
    sa->sin_addr = *a;
}

static void set_v6(struct sockaddr_storage *ss, const struct in6_addr *a, uint16_t port)
{
    struct sockaddr_in6 *sa = (struct sockaddr_in6 *)ss;
    memset(ss, 0, sizeof *ss);
    sa->sin6_family = AF_INET6;
    sa->sin6_port = htons(port);
    sa->sin6_addr = *a;
}

static int is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

int metrics_parse_listen(const char *s, struct metrics_listen *ret)
{
    char host[INET6_ADDRSTRLEN + 2];
    const char *colon;
    uint16_t port;
    struct in_addr a4;
    struct in6_addr a6;

    memset(ret, 0, sizeof *ret);
    if (s[0] == '[') {                          /* [ADDR]:PORT */
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof host)
            return -1;
        memcpy(host, s + 1, (size_t)(close - s - 1));
        host[close - s - 1] = 0;
        if (parse_port(close + 2, &port) || inet_pton(AF_INET6, host, &a6) != 1)
            return -1;
        set_v6(&ret->sa[0], &a6, port);
        ret->n = 1;
    } else {
        if (!(colon = strrchr(s, ':')) || (size_t)(colon - s) >= sizeof host)
            return -1;
        memcpy(host, s, (size_t)(colon - s));
        host[colon - s] = 0;
        if (parse_port(colon + 1, &port))
            return -1;
        if (!host[0] || !strcmp(host, "localhost")) {   /* both loopbacks */
            inet_pton(AF_INET, "127.0.0.1", &a4);
            set_v4(&ret->sa[0], &a4, port);
            set_v6(&ret->sa[1], &in6addr_loopback, port);
            ret->n = 2;
            ret->implicit_v6 = 1;
        } else {
            if (inet_pton(AF_INET, host, &a4) != 1)
                return -1;
            set_v4(&ret->sa[0], &a4, port);
            ret->n = 1;
        }
    }
    ret->loopback = 1;
    for (int i = 0; i < ret->n; i++)
        ret->loopback &= is_loopback(&ret->sa[i]);
    return 0;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
    return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
                                          : ((const struct sockaddr_in6 *)ss)->sin6_port);
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
    if (ss->ss_family == AF_INET)
        ((struct sockaddr_in *)ss)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* "http://127.0.0.1:9464/metrics" or "http://[::1]:9464/metrics" */
static void url_of(const struct sockaddr_storage *ss, char *buf, size_t len)
{
    char a[INET6_ADDRSTRLEN];
    if (ss->ss_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, a, sizeof a);
        snprintf(buf, len, "http://%s:%u/metrics", a, (unsigned)port_of(ss));
    } else {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, a, sizeof a);
        snprintf(buf, len, "http://[%s]:%u/metrics", a, (unsigned)port_of(ss));
    }
}

/* A listening socket on *ss (its port filled in when it was 0); fd or -errno. */
static int listen_on(struct sockaddr_storage *ss)
{
    int one = 1, fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    socklen_t len = ss->ss_family == AF_INET ? sizeof(struct sockaddr_in)
                                             : sizeof(struct sockaddr_in6);
    if (fd < 0)
        return -errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss->ss_family == AF_INET6) {
        /* [::] is the dual-stack "everything"; any other IPv6 address is itself only */
        int v6only = !IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)ss)->sin6_addr);
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    }
    if (bind(fd, (struct sockaddr *)ss, len) < 0 || listen(fd, 64) < 0 ||
        getsockname(fd, (struct sockaddr *)ss, &len) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

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
        if (i && port_of(&l->sa[i]) == 0)   /* port 0: both loopbacks on one port */
            set_port(&l->sa[i], port_of(&l->sa[0]));
        int r = listen_on(&l->sa[i]);
        if (r < 0 && i && l->implicit_v6 &&
            (r == -EAFNOSUPPORT || r == -EADDRNOTAVAIL))
            break;                           /* no IPv6 here: 127.0.0.1 alone */
        if (r < 0) {
            url_of(&l->sa[i], urls[0], sizeof urls[0]);
            fprintf(stderr, "zkslot metrics: cannot listen on %s (--listen %s): %s\n",
                    urls[0], what, strerror(-r));
            goto out;
        }
        fd[n] = r;
        url_of(&l->sa[i], urls[n], sizeof urls[n]);
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
