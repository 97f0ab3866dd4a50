/*
 * server.c -- zkslot-apid's HTTP side: libmicrohttpd, one thread per
 * connection (apid.h), and the only file that speaks its API.
 *
 * A request's life: its headers (first call: a declared Content-Length
 * over max_body is 413 and a POST body that is not application/json or
 * application/octet-stream 415,
 * before any of it is read), its body gathered up to max_body (413 past
 * it, the rest discarded), then the concurrency cap (429 with Retry-After
 * when max_requests are in flight), then apid_dispatch, then the reply
 * with its headers.  Connections idle for 30 s are closed (a client that
 * sends slowly holds only its own thread, never another's).  The
 * listeners are TCP or one unix socket (unix_listen.c), HTTP or, with a
 * certificate, HTTPS (tls.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <microhttpd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>
#include <unistd.h>

#include "apid.h"
#include "daemon/zkd.h"

#define APID_IDLE_TIMEOUT_S 30u

struct conn {
    char *body;
    size_t len, cap;
    int too_big;
};

static enum MHD_Result send_reply(struct MHD_Connection *mc, struct apid_reply *r)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(r->len, r->body ? r->body : (void *)"",
                                        r->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(r->body);
        return MHD_NO;
    }
    r->body = NULL;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            r->content_type ? r->content_type : "application/json");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (r->allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
    if (r->retry_after) {
        char s[16];
        snprintf(s, sizeof s, "%u", r->retry_after);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, s);
    }
    if (r->status == 401)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    enum MHD_Result q = MHD_queue_response(mc, r->status, resp);
    MHD_destroy_response(resp);
    return q;
}

static enum MHD_Result fail(struct MHD_Connection *mc, unsigned status, const char *code,
                            const char *msg)
{
    struct apid_reply r = { 0 };
    apid_error(&r, status, code, "%s", msg);
    return send_reply(mc, &r);
}

/* Content-Type ct is type, any parameters (charset) after it */
static int is_type(const char *ct, const char *type)
{
    size_t n = strlen(type);
    return ct && !strncasecmp(ct, type, n) && (ct[n] == 0 || ct[n] == ';' || ct[n] == ' ');
}

static enum MHD_Result on_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                              const char *value)
{
    struct apid_req *q = cls;
    (void)kind;
    if (q->nquery == APID_QUERY_MAX)
        return MHD_NO;
    q->query[q->nquery].key = key;
    q->query[q->nquery++].value = value;
    return MHD_YES;
}

/* The first call of a request: its headers only. */
static enum MHD_Result begin(struct apid *a, struct MHD_Connection *mc, const char *method,
                             void **req_cls)
{
    const char *cl = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *ct = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_TYPE);
    char msg[160];
    if (cl && strtoull(cl, NULL, 10) > a->max_body) {
        snprintf(msg, sizeof msg, "the body is %s bytes; this server takes at most %zu", cl,
                 a->max_body);
        return fail(mc, 413, "too_large", msg);
    }
    /* application/octet-stream: one uploaded .wtns (witness.c) */
    if (!strcmp(method, "POST") && !is_type(ct, "application/json") &&
        !is_type(ct, "application/octet-stream")) {
        snprintf(msg, sizeof msg, "Content-Type: '%.40s': this server takes application/json "
                 "or application/octet-stream", ct ? ct : "(none)");
        return fail(mc, 415, "unsupported_media_type", msg);
    }
    struct conn *c = calloc(1, sizeof *c);
    if (!c)
        return MHD_NO;
    *req_cls = c;
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **req_cls)
{
    struct apid *a = cls;
    struct conn *c = *req_cls;
    (void)version;
    if (!c)
        return begin(a, mc, method, req_cls);
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (c->too_big || c->len + n > a->max_body) {
            c->too_big = 1;
            return MHD_YES;
        }
        if (c->len + n + 1 > c->cap) {
            size_t cap = c->cap ? c->cap : 4096;
            while (cap < c->len + n + 1)
                cap *= 2;
            char *b = realloc(c->body, cap);
            if (!b)
                return MHD_NO;
            c->body = b;
            c->cap = cap;
        }
        memcpy(c->body + c->len, upload_data, n);
        c->len += n;
        c->body[c->len] = 0;
        return MHD_YES;
    }
    if (c->too_big) {
        char msg[96];
        snprintf(msg, sizeof msg, "the body is over %zu bytes, this server's limit",
                 a->max_body);
        return fail(mc, 413, "too_large", msg);
    }
    struct apid_reply r = { 0 };
    if (atomic_fetch_add(&a->in_flight, 1) >= a->max_requests) {
        atomic_fetch_sub(&a->in_flight, 1);
        apid_error(&r, 429, "busy", "%u requests in flight, this server's limit; retry",
                   a->max_requests);
        r.retry_after = 1;
        return send_reply(mc, &r);
    }
    struct apid_req *q = calloc(1, sizeof *q);
    if (!q) {
        atomic_fetch_sub(&a->in_flight, 1);
        return MHD_NO;
    }
    q->method = method;
    q->path = url;
    q->content_type = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
                                                  MHD_HTTP_HEADER_CONTENT_TYPE);
    q->body = c->body;
    q->body_len = c->len;
    if (MHD_get_connection_values(mc, MHD_GET_ARGUMENT_KIND, on_arg, q) > APID_QUERY_MAX) {
        apid_error(&r, 400, "bad_query", "more than %d query parameters", APID_QUERY_MAX);
    } else {
        apid_dispatch(a, q, MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
                                                        MHD_HTTP_HEADER_AUTHORIZATION), &r);
    }
    free(q);
    atomic_fetch_sub(&a->in_flight, 1);
    return send_reply(mc, &r);
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct conn *c = *req_cls;
    (void)cls, (void)mc, (void)toe;
    if (c)
        free(c->body);
    free(c);
    *req_cls = NULL;
}

/* Re-reads the token file (SIGHUP): revoked tokens stop at once. */
static void reload_tokens(struct apid *a)
{
    struct api_tokens t;
    char msg[512];
    if (!a->tokens_path)
        return;
    if (tokens_load(a->tokens_path, 1, &t, msg, sizeof msg) < 0) {
        zkd_log(ZKD_ERR, "SIGHUP: %s; the tokens read before stay in force", msg);
        return;
    }
    pthread_rwlock_wrlock(&a->tokens_lock);
    struct api_tokens old = a->tokens;
    a->tokens = t;
    pthread_rwlock_unlock(&a->tokens_lock);
    tokens_free(&old);
    zkd_log(ZKD_INFO, "SIGHUP: %u token(s) read from %s", t.n, a->tokens_path);
}

int apid_serve(struct apid *a, struct metrics_listen *l, const char *what, int sigfd)
{
    struct MHD_Daemon *d[METRICS_LISTEN_MAX] = { 0 };
    char urls[METRICS_LISTEN_MAX][80];
    int fd[METRICS_LISTEN_MAX], n = 0, rc = -1, is_unix = l->sa[0].ss_family == AF_UNIX;
    /* TLS (tls.c): the PEM certificate and key in memory, else no option */
    struct MHD_OptionItem tls[] = { { MHD_OPTION_HTTPS_MEM_KEY, 0, a->tls_key },
                                    { MHD_OPTION_HTTPS_MEM_CERT, 0, a->tls_cert },
                                    { MHD_OPTION_END, 0, NULL } };
    if (!a->tls_cert)
        tls[0].option = MHD_OPTION_END;
    else if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        zkd_log(ZKD_ERR, "--tls-cert: this libmicrohttpd was built without TLS (GnuTLS)");
        return -1;
    }
    for (int i = 0; i < l->n; i++) {
        char why[256] = "";
        if (i && metrics_port_of(&l->sa[i]) == 0)   /* port 0: both loopbacks on one port */
            metrics_set_port(&l->sa[i], metrics_port_of(&l->sa[0]));
        int r = is_unix ? apid_unix_listen(&l->sa[i], why, sizeof why)
                        : metrics_listen_on(&l->sa[i]);
        if (r < 0 && i && l->implicit_v6 && (r == -EAFNOSUPPORT || r == -EADDRNOTAVAIL))
            break;   /* no IPv6 here: 127.0.0.1 alone */
        if (is_unix)
            snprintf(urls[n], sizeof urls[n], "%s", what);
        else
            metrics_url_of(&l->sa[i], "/", urls[n], sizeof urls[n]);
        if (a->tls_cert && !strncmp(urls[n], "http://", 7))   /* https:// */
            memmove(urls[n] + 5, urls[n] + 4, strlen(urls[n] + 4) + 1), urls[n][4] = 's';
        if (r < 0) {
            zkd_log(ZKD_ERR, "cannot listen on %s (--listen %s): %s", urls[n], what,
                    why[0] ? why : strerror(-r));
            goto out;
        }
        fd[n] = r;
        d[n] = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                                    (l->sa[i].ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) |
                                    (a->tls_cert ? MHD_USE_TLS : 0),
                                0, NULL, NULL, on_request, a, MHD_OPTION_LISTEN_SOCKET, r,
                                MHD_OPTION_CONNECTION_TIMEOUT, APID_IDLE_TIMEOUT_S,
                                MHD_OPTION_CONNECTION_LIMIT, a->max_conns,
                                MHD_OPTION_NOTIFY_COMPLETED, on_completed, a,
                                MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
        n++;
        if (!d[n - 1]) {
            zkd_log(ZKD_ERR, "cannot serve %s: libmicrohttpd did not start%s", urls[n - 1],
                    a->tls_cert ? " (is --tls-key the key of --tls-cert?)" : "");
            goto out;
        }
    }
    zkd_log(ZKD_INFO, "serving %s%s%s (%s, ledger %s)", urls[0], n == 2 ? " and " : "",
            n == 2 ? urls[1] : "",
            a->tokens_path ? "bearer tokens"
            : is_unix      ? "no tokens: socket mode 0660"
                           : "no tokens: loopback only",
            a->c.ledger_path);
    zkd_notify("READY=1\nSTATUS=serving %s", urls[0]);
    uint64_t wd = zkd_watchdog_usec();
    for (;;) {
        struct pollfd p = { sigfd, POLLIN, 0 };
        int sig = 0;
        if (poll(&p, 1, 1000) > 0)
            sig = zkd_signals_read(sigfd);
        if (sig == SIGHUP)
            reload_tokens(a);
        else if (sig && sig != SIGPIPE)
            break;
        if (wd)
            zkd_notify("WATCHDOG=1");
    }
    zkd_notify("STOPPING=1");
    atomic_store(&a->stopping, 1);
    rc = 0;
out:
    for (int i = 0; i < n; i++) {
        if (d[i])
            MHD_stop_daemon(d[i]);   /* joins the connection threads; closes the socket */
        else
            close(fd[i]);
    }
    if (is_unix && n)
        unlink(((struct sockaddr_un *)&l->sa[0])->sun_path);
    return rc;
}
