/*
 * server.c -- zkslot-apid's HTTP side: libmicrohttpd, one thread per
 * connection (apid.h), and the only file that speaks its API.
 *
 * apid accepts the connections itself, in its main loop, and asks
 * admit.c whether to take each (503 past --max-conns or
 * --max-conns-per-client, at once) before handing it to libmicrohttpd,
 * whose own accept would leave the connections over its limit waiting,
 * unanswered, in the listen backlog.  The same loop shuts down the
 * connections past their request deadline (--request-timeout), which
 * libmicrohttpd's idle timeout cannot do for a client that trickles.
 *
 * A request's life: its target as sent (a control byte, raw or escaped, is
 * 400 before anything else: router.c), its headers (first call: a declared
 * Content-Length over max_body is 413 and a POST body that is not
 * application/json or application/octet-stream 415, before any of it is
 * read), its body gathered up to max_body (413 past it, the rest
 * discarded), then the concurrency cap (429 with Retry-After when
 * max_requests are in flight), then apid_dispatch, then the reply with
 * its headers.  The listeners are TCP or one unix socket (unix_listen.c),
 * HTTP or, with a certificate, HTTPS (tls.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
#include "zk/util.h"

#define APID_ACCEPT_BURST 64      /* accepts per listener per wake of the loop */
#define APID_ADMIT_LOG_S 60.0     /* refusals and cuts summed in the log this often */
#define APID_BACKLOG 1024         /* a burst of connects waits here for accept_some,
                                   * not in SYN retries (a second each) */

struct conn {                     /* one request (the URI log callback makes it) */
    int begun;                    /* its headers seen (begin()) */
    struct apid_reply early;      /* status != 0: a refused target, answered at once */
    char *body;
    size_t len, cap;
    int too_big;
};

/* The admit.c entry of mc (NULL: none). */
static struct apid_conn *conn_of(struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* Queues r (its body taken); the connection's deadline from now on covers
 * the reply's reading and the next request. */
static enum MHD_Result send_reply(struct apid *a, struct MHD_Connection *mc,
                                  struct apid_reply *r)
{
    apid_admit_rearm(&a->admit, conn_of(mc));
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

static enum MHD_Result fail(struct apid *a, struct MHD_Connection *mc, unsigned status,
                            const char *code, const char *msg)
{
    struct apid_reply r = { 0 };
    apid_error(&r, status, code, "%s", msg);
    return send_reply(a, mc, &r);
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

/*
 * The request target as the client sent it (libmicrohttpd's URI log
 * callback, before it decodes escapes): a control byte in it, raw or
 * escaped, makes the request a 400 (router.c).  libmicrohttpd ends the
 * target with a NUL where the space before "HTTP/1.x" was, so a raw NUL
 * byte inside the target shows as a target cut short: the bytes after its
 * end are then not the version.  Returns the request's struct conn (NULL:
 * no memory; the request is then dropped).
 */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *mc)
{
    struct conn *c = calloc(1, sizeof *c);
    size_t n = strlen(uri);
    (void)cls, (void)mc;
    if (!c)
        return NULL;
    if (apid_target_check(uri, n, &c->early) == 0 && strncmp(uri + n + 1, "HTTP/", 5))
        apid_error(&c->early, 400, memchr(uri, '?', n) ? "bad_query" : "bad_path",
                   "byte %zu of the request target, in its %s, is the control "
                   "character 0x00", n,
                   memchr(uri, '?', n) ? "query" : "path");
    return c;
}

/* The first call of a request: its headers only. */
static enum MHD_Result begin(struct apid *a, struct MHD_Connection *mc, const char *method,
                             struct conn *c)
{
    const char *cl = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *ct = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_TYPE);
    char msg[160];
    if (cl && strtoull(cl, NULL, 10) > a->max_body) {
        snprintf(msg, sizeof msg, "the body is %s bytes; this server takes at most %zu", cl,
                 a->max_body);
        return fail(a, mc, 413, "too_large", msg);
    }
    /* application/octet-stream: one uploaded .wtns (witness.c) */
    if (!strcmp(method, "POST") && !is_type(ct, "application/json") &&
        !is_type(ct, "application/octet-stream")) {
        snprintf(msg, sizeof msg, "Content-Type: '%.40s': this server takes application/json "
                 "or application/octet-stream", ct ? ct : "(none)");
        return fail(a, mc, 415, "unsupported_media_type", msg);
    }
    c->begun = 1;
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
        return MHD_NO;   /* on_uri had no memory */
    if (c->early.status) {   /* a control byte in the target */
        *upload_data_size = 0;
        struct apid_reply r = c->early;
        memset(&c->early, 0, sizeof c->early);
        return send_reply(a, mc, &r);
    }
    if (!c->begun)
        return begin(a, mc, method, c);
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
        return fail(a, mc, 413, "too_large", msg);
    }
    struct apid_reply r = { 0 };
    if (atomic_fetch_add(&a->in_flight, 1) >= a->max_requests) {
        atomic_fetch_sub(&a->in_flight, 1);
        apid_error(&r, 429, "busy", "%u requests in flight, this server's limit; retry",
                   a->max_requests);
        r.retry_after = 1;
        return send_reply(a, mc, &r);
    }
    struct apid_req *q = calloc(1, sizeof *q);
    if (!q) {
        atomic_fetch_sub(&a->in_flight, 1);
        return MHD_NO;
    }
    q->method = method;
    q->path = url;
    struct apid_conn *ac = conn_of(mc);
    /* the whole request is in: no deadline while it is handled (a long
     * poll of up to APID_WAIT_MAX_S); send_reply sets the next one */
    apid_admit_handling(&a->admit, ac);
    apid_auth_peer(q, ac ? &ac->peer : NULL);   /* a local caller: its user */
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
    return send_reply(a, mc, &r);
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct apid *a = cls;
    struct conn *c = *req_cls;
    (void)toe;
    apid_admit_rearm(&a->admit, conn_of(mc));   /* the next request's deadline */
    if (c) {
        free(c->early.body);
        free(c->body);
    }
    free(c);
    *req_cls = NULL;
}

/* libmicrohttpd's connection notifications: the admit.c entry rides along
 * as the socket context from the start to the close. */
static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct apid *a = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {   /* in libmicrohttpd's thread, later */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = ci ? apid_admit_started(&a->admit, ci->connect_fd, mc) : NULL;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        apid_admit_drop(&a->admit, *socket_context);   /* before its fd is closed */
        *socket_context = NULL;
    }
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

/* Takes or refuses (admit.c) what waits on listener lfd, at most a burst;
 * 0, or -1 when this process is out of file descriptors (said once). */
static int accept_some(struct apid *a, struct MHD_Daemon *d, int lfd)
{
    static int said;
    for (int i = 0; i < APID_ACCEPT_BURST; i++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        struct apid_peer p;
        struct apid_conn *c;
        int fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
            if (!said++)
                zkd_log(ZKD_WARN, "accept: %s (LimitNOFILE below --max-conns?); new "
                        "connections wait meanwhile", strerror(errno));
            return -1;
        }
        if (fd < 0)
            return 0;
        apid_peer_of(fd, &ss, &p);
        int r = apid_admit_take(&a->admit, fd, &p, &c);
        if (r) {
            apid_admit_refuse(&a->admit, fd, r, &p, a->tls_cert != NULL);
            continue;
        }
        if (MHD_add_connection(d, fd, (struct sockaddr *)&ss, len) != MHD_YES)
            apid_admit_drop(&a->admit, c);   /* libmicrohttpd closed fd, never started it */
    }
    return 0;
}

/* The refusals and cuts since the last line, at most one line a minute. */
static void log_admit(struct apid_admit *ad, double *last, unsigned long seen[3])
{
    double now = zk_now_s();
    if (now - *last < APID_ADMIT_LOG_S)
        return;
    pthread_mutex_lock(&ad->lock);
    unsigned long all = ad->refused_all - seen[0], peer = ad->refused_peer - seen[1],
                  cut = ad->cut - seen[2];
    seen[0] = ad->refused_all, seen[1] = ad->refused_peer, seen[2] = ad->cut;
    pthread_mutex_unlock(&ad->lock);
    if (all || peer || cut)
        zkd_log(ZKD_NOTICE, "connections: %lu refused at --max-conns %u, %lu at "
                "--max-conns-per-client %u, %lu cut at the %u s request deadline",
                all, ad->max_conns, peer, ad->max_per_peer, cut, ad->timeout_s);
    *last = now;
}

/* Accepts, reaps deadlines and reads signals until SIGTERM or SIGINT. */
static void serve_loop(struct apid *a, struct MHD_Daemon *d, const int *fd, int n, int sigfd)
{
    uint64_t wd = zkd_watchdog_usec();
    double last_wd = 0, last_log = zk_now_s(), no_fds_until = 0;
    unsigned long seen[3] = { 0, 0, 0 };
    for (;;) {
        struct pollfd p[1 + METRICS_LISTEN_MAX] = { { sigfd, POLLIN, 0 } };
        int np = zk_now_s() < no_fds_until ? 0 : n;   /* out of fds: listeners rest */
        for (int i = 0; i < np; i++)
            p[1 + i] = (struct pollfd){ fd[i], POLLIN, 0 };
        int sig = 0, ms = (int)apid_admit_reap(&a->admit);
        if (poll(p, (nfds_t)(1 + np), np < n && ms > 100 ? 100 : ms) > 0) {
            for (int i = 0; i < np; i++)
                if (p[1 + i].revents && accept_some(a, d, fd[i]) < 0)
                    no_fds_until = zk_now_s() + 0.1;
            if (p[0].revents)
                sig = zkd_signals_read(sigfd);
        }
        if (sig == SIGHUP)
            reload_tokens(a);
        else if (sig && sig != SIGPIPE)
            return;
        log_admit(&a->admit, &last_log, seen);
        if (wd && zk_now_s() - last_wd >= 1.0) {
            zkd_notify("WATCHDOG=1");
            last_wd = zk_now_s();
        }
    }
}

/* The state directory's socket (a->local_sock): its fd, or -1 after one
 * line (another apid serves it: this one goes on without). */
static int serve_local(struct apid *a)
{
    struct sockaddr_storage ss;
    char spec[sizeof a->local_sock + 8], why[256] = "";
    snprintf(spec, sizeof spec, APID_UNIX_PREFIX "%s", a->local_sock);
    int r = apid_unix_addr(spec, &ss) < 0 ? -ENAMETOOLONG : apid_unix_listen(&ss, why, sizeof why);
    if (r < 0) {
        zkd_log(ZKD_WARN, "no local socket: %s; this machine's users reach the ledger "
                "through another zkslot-apid, or not at all", why[0] ? why : strerror(-r));
        return -1;
    }
    fcntl(r, F_SETFL, fcntl(r, F_GETFL) | O_NONBLOCK);
    listen(r, APID_BACKLOG);
    zkd_log(ZKD_INFO, "local socket %s (mode 0660): the daemons' group's users, each its own "
            "jobs (the ledger is the daemons' alone)", spec);
    return r;
}

int apid_serve(struct apid *a, struct metrics_listen *l, const char *what, int sigfd)
{
    struct MHD_Daemon *d = NULL;
    char urls[METRICS_LISTEN_MAX][80];
    int fd[METRICS_LISTEN_MAX + 1], n = 0, rc = -1, is_unix = l->sa[0].ss_family == AF_UNIX;
    int local = -1;   /* the state directory's socket (main.c), when served */
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
    apid_admit_init(&a->admit, a->max_conns, a->max_conns_per_peer, a->request_timeout);
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
        fd[n++] = r;
        fcntl(r, F_SETFL, fcntl(r, F_GETFL) | O_NONBLOCK);   /* accept_some until EAGAIN */
        listen(r, APID_BACKLOG);   /* again: only the backlog changes */
    }
    /* no listener of its own (the main loop accepts); its connection limit
     * above apid's, a backstop never reached: admit.c answers first */
    d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                             MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC |
                             (a->tls_cert ? MHD_USE_TLS : 0),
                         0, NULL, NULL, on_request, a,
                         MHD_OPTION_CONNECTION_TIMEOUT, a->request_timeout,
                         MHD_OPTION_CONNECTION_LIMIT, 2 * a->max_conns,
                         MHD_OPTION_NOTIFY_COMPLETED, on_completed, a,
                         MHD_OPTION_NOTIFY_CONNECTION, on_connection, a,
                         MHD_OPTION_URI_LOG_CALLBACK, on_uri, a,
                         MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
    if (!d) {
        zkd_log(ZKD_ERR, "cannot serve %s: libmicrohttpd did not start%s", urls[0],
                a->tls_cert ? " (is --tls-key the key of --tls-cert?)" : "");
        goto out;
    }
    zkd_log(ZKD_INFO, "serving %s%s%s (%s, ledger %s; at most %u connections, %u per client, "
            "%u s a request)", urls[0], n == 2 ? " and " : "", n == 2 ? urls[1] : "",
            a->tokens_path ? "bearer tokens"
            : is_unix      ? "no tokens: socket mode 0660"
                           : "no tokens: loopback only",
            a->c.ledger_path, a->max_conns, a->max_conns_per_peer, a->request_timeout);
    if (a->local_sock[0])   /* after the line above: its own line */
        local = serve_local(a);
    if (local >= 0)
        fd[n++] = local;
    zkd_notify("READY=1\nSTATUS=serving %s", urls[0]);
    serve_loop(a, d, fd, n, sigfd);
    zkd_notify("STOPPING=1");
    atomic_store(&a->stopping, 1);
    rc = 0;
out:
    if (d)
        MHD_stop_daemon(d);   /* joins the connection threads */
    for (int i = 0; i < n; i++)
        close(fd[i]);
    if (is_unix && n)
        unlink(((struct sockaddr_un *)&l->sa[0])->sun_path);
    if (local >= 0)
        unlink(a->local_sock);
    return rc;
}
