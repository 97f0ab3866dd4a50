/*
 * apid.h -- zkslot-apid, the HTTP/JSON face of the ledger (docs/api.yaml,
 * docs/api.md).  What its files share:
 *
 *   main.c      flags, the listeners, signals and sd_notify
 *   server.c    libmicrohttpd: a request's headers, body and limits, then
 *               the reply (the only file that speaks libmicrohttpd)
 *   router.c    the route table: METHOD /path/{param} -> handler
 *   auth.c      bearer tokens (tokens.h) -> who is asking, 401/403
 *   ledgers.c   a pool of ledger handles, one per request in flight
 *   reply.c     JSON replies and the one error shape
 *   submit.c    POST /v1/jobs: the body parsed, checked, queued
 *   witness.c   POST /v1/jobs of witnesses: base64 in JSON, or one .wtns
 *   jobs.c      GET/DELETE /v1/jobs..., long polls
 *   proofs.c    GET /v1/jobs/{id}/proofs[/{k}]
 *   keys.c      GET /v1/keys[/{name}]
 *   vk.c        a key's verification key (vk.json), read once per key
 *   health.c    GET /healthz, GET /metrics
 *   status.c    GET /v1/status and the page at / (page.html, compiled in)
 *   unix_listen.c  --listen unix:PATH, a socket of mode 0660 (and the
 *               state directory's api.sock, server.c)
 *   out_dir.c   the output directory a unix socket's user names
 *   peer_uid.c  the user at the other end of a loopback TCP connection
 *   tls.c       --tls-cert/--tls-key: HTTPS through libmicrohttpd's GnuTLS
 *   admit.c     connections taken or refused (503), per client; the
 *               deadline of a whole request
 *
 * Requests are served one thread per connection (libmicrohttpd's
 * MHD_USE_THREAD_PER_CONNECTION), at most `max_conns` connections, at most
 * `max_conns_per_peer` of one client (admit.c: 503 past either); at most
 * `max_requests` requests are handled at once (429 with Retry-After past
 * that), so a long poll (GET /v1/jobs/{id}?wait=S, which sleeps in its own
 * thread between looks at the ledger) never blocks another client.
 */
#ifndef ZK_APID_H
#define ZK_APID_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "ledger_cli.h"
#include "listen_addr.h"
#include "tokens.h"

#define APID_QUERY_MAX 16
#define APID_PARAMS_MAX 4
#define APID_BODY_DEFAULT (16u << 20)
#define APID_REQUESTS_DEFAULT 64
#define APID_WAIT_MAX_S 300
#define APID_INPUTS_MAX 4096          /* partitions of one submitted job */
#define APID_CONNS_EXTRA 64           /* --max-conns default: max_requests + this */
#define APID_REQUEST_TIMEOUT_DEFAULT 30   /* s: --request-timeout */

/* ---- admit.c ---- */
struct apid_peer {                    /* whom a connection counts against */
    int family;                       /* AF_INET (v4-mapped too), AF_INET6 (its /64), AF_UNIX */
    unsigned char key[8];             /* the address, the /64, or the uid */
    char text[64];                    /* "127.0.0.2", "2001:db8::/64", "uid 1000" */
    int local;                        /* the unix socket or a loopback address: uid says who */
    uid_t uid;                        /* when local: the caller's user, (uid_t)-1 unknown */
};
struct apid_conn {                    /* one connection taken */
    struct apid_conn *next, *prev;
    int fd;                           /* libmicrohttpd's, open while in the table */
    void *mc;                         /* its MHD_Connection once started; NULL before */
    struct apid_peer peer;
    double deadline;                  /* zk_now_s(); 0: a request being handled */
    int cut;                          /* shut down at its deadline */
};
struct apid_admit {
    pthread_mutex_t lock;
    struct apid_conn *head;           /* the connections taken, under lock */
    unsigned n;
    unsigned max_conns, max_per_peer, timeout_s;
    unsigned long refused_all, refused_peer, cut;   /* counts, under lock */
};
#define APID_ADMIT_FULL 1             /* apid_admit_take: max_conns open */
#define APID_ADMIT_PEER_FULL 2        /* max_per_peer of this client open */

struct apid {
    struct lcli c;                    /* config, state dir, ledger URL (c.l unused) */
    const char *tokens_path;          /* NULL: no tokens, loopback only */
    char local_sock[108];             /* "": none; else <state dir>/api.sock, served
                                       * besides --listen (server.c) */
    char *tls_cert, *tls_key;         /* PEM (tls.c); NULL: plain HTTP */
    struct api_tokens tokens;         /* under tokens_lock (SIGHUP re-reads them) */
    pthread_rwlock_t tokens_lock;
    size_t max_body;                  /* bytes of a request body */
    unsigned max_requests;            /* handled at once; 429 past it */
    unsigned max_conns;               /* connections at once (admit.c) */
    unsigned max_conns_per_peer;      /* of one client (admit.c) */
    unsigned request_timeout;         /* s to send a whole request (admit.c) */
    struct apid_admit admit;
    unsigned poll_ms;                 /* long polls look at the ledger this often */
    atomic_uint in_flight;
    atomic_int stopping;              /* long polls answer at once */
    /* ledgers.c */
    pthread_mutex_t lock;
    void **idle;                      /* zk_ledger *, idle handles */
    unsigned nidle, cap_idle;
};

struct apid_kv {
    const char *key, *value;
};

/* One request as the handlers see it (server.c fills it; the fuzz target too). */
struct apid_req {
    const char *method;               /* "GET", ... */
    const char *path;                 /* without the query */
    struct apid_kv query[APID_QUERY_MAX];
    unsigned nquery;
    const char *content_type;         /* the header (NULL: none) */
    const char *body;                 /* NUL-terminated (NULL: none) */
    size_t body_len;
    const struct api_token *who;      /* NULL: no token file (loopback); else &who_buf */
    struct api_token who_buf;
    char peer[ZK_LEDGER_PRINCIPAL_MAX + 1];   /* "uid:N": a unix socket's caller that
                                       * is neither root nor apid's own user (auth.c);
                                       * "" otherwise */
    uid_t peer_uid;                   /* its uid, when peer[0] */
    const char *params[APID_PARAMS_MAX];   /* the route's {…} segments, in order */
};

struct apid_reply {
    unsigned status;
    char *body;                       /* malloc'd */
    size_t len;
    const char *content_type;         /* NULL: application/json */
    unsigned retry_after;             /* seconds; 0 = no header */
    const char *allow;                /* 405: the methods the path takes */
};

/* ---- reply.c ---- */
/* The reply `status` with `o` as its body (o's reference is taken). */
void apid_json(struct apid_reply *r, unsigned status, json_t *o);
/* {"error": {"code": code, "message": ...}}; returns -1 for `return apid_error(...)`. */
int apid_error(struct apid_reply *r, unsigned status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The value of query parameter `key`, or NULL. */
const char *apid_query(const struct apid_req *q, const char *key);
/* A positive decimal id from s; 0 or -1. */
int apid_parse_id(const char *s, int64_t *ret);

/* ---- router.c ---- */
typedef int (*apid_handler)(struct apid *a, struct apid_req *q, struct apid_reply *r);
struct apid_route {
    const char *method, *pattern;     /* "/v1/jobs/{id}" */
    apid_handler fn;
    int open;                         /* served without a token (health checks) */
};
extern const struct apid_route apid_routes[];
extern const unsigned apid_nroutes;
/* The request target as the client sent it (len bytes: the path and the
 * query, escapes not yet decoded): 0, or -1 with 400 bad_path or bad_query
 * in r when it holds a control byte (0x00-0x1f, 0x7f), raw or escaped. */
int apid_target_check(const char *raw, size_t len, struct apid_reply *r);
/* Finds the route of q (params filled); NULL with r set (400 for a control
 * byte in the decoded path, 404 or 405). */
const struct apid_route *apid_route(struct apid_req *q, struct apid_reply *r);
/* Routes, authenticates and runs the handler: every request goes through here. */
void apid_dispatch(struct apid *a, struct apid_req *q, const char *authorization,
                   struct apid_reply *r);

/* ---- auth.c ---- */
/* q->peer from the connection's peer p (its uid on the unix socket or a
 * loopback address: "uid:N"; "" for root, apid's own user, or a network
 * peer).  Cannot fail. */
void apid_auth_peer(struct apid_req *q, const struct apid_peer *p);
/* Who sends `authorization` (the header, may be NULL) into q->who; -1 with
 * 401 in r when a token file is in force and it names no token. */
int apid_auth(struct apid *a, const char *authorization, struct apid_req *q,
              struct apid_reply *r);
/* The principal q's jobs are submitted as ("api:NAME" in buf, n bytes at
 * least ZK_LEDGER_PRINCIPAL_MAX + 1; a unix socket's user: q->peer), or
 * NULL without tokens (the ledger's default: apid's own user or role).
 * Cannot fail. */
const char *apid_principal(const struct apid_req *q, char *buf, size_t n);
/* 1 if q's caller submitted job j (or may cancel any, or there are no tokens). */
int apid_owns(const struct apid_req *q, const struct zk_ledger_job *j);
/* 1 if q's caller may see job j (a unix socket's user: its own jobs only;
 * a token or the machine's own: every job); else 0 with 403 in r. */
int apid_may_see(const struct apid_req *q, const struct zk_ledger_job *j,
                 struct apid_reply *r);

/* ---- ledgers.c ---- */
/* A ledger handle for this request; NULL with 503 in r.  Give it back with
 * apid_ledger_put (broken: the handle saw the database fail: closed). */
zk_ledger *apid_ledger_get(struct apid *a, struct apid_reply *r);
void apid_ledger_put(struct apid *a, zk_ledger *l, int broken);
void apid_ledgers_close(struct apid *a);
/* The reply for a ledger call that failed with rc (diag msg); returns -1. */
int apid_ledger_error(struct apid_reply *r, int rc, const char *msg);

/* ---- handlers ---- */
int apid_submit(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_job_get(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_job_list(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_job_cancel(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_proofs(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_proof(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_keys(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_key(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_healthz(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_metrics(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_status(struct apid *a, struct apid_req *q, struct apid_reply *r);
int apid_page(struct apid *a, struct apid_req *q, struct apid_reply *r);

/* vk.c: key k's verification key as snarkjs's vk.json, or NULL with why. */
json_t *apid_key_vk(const struct zk_ledger_key *k, char *why, size_t n);

/* jobs.c: job id as GET /v1/jobs/{id} shows it to q's caller, into r with
 * `status` (404 when unknown, 403 when not the caller's to see: apid_may_see;
 * its request id only to its own principal).  1 when the ledger failed
 * (close the handle), else 0. */
int apid_job_reply(struct apid *a, zk_ledger *l, const struct apid_req *q, int64_t id,
                   unsigned status, struct apid_reply *r);
/* jobs.c: j as a reply object to q's caller (no server path; the request
 * id as its client gave it, to that principal only: another's ids are its
 * own business).  NULL when out of memory. */
json_t *apid_job_obj(const struct apid_req *q, const struct zk_ledger_job *j);

/* submit.c, for the fuzz target: the body of POST /v1/jobs parsed (no ledger). */
struct apid_submit {
    json_t *root;                     /* owns the strings below */
    const char *key;
    size_t ninputs;
    char **inputs;                    /* compact JSON text of each input object,
                                       * or each .wtns file when `witnesses` */
    int witnesses;
    size_t *lens;
    int priority;                     /* < 0: the key's */
    int64_t deadline_ns;
    const char *request_id;           /* NULL: none */
    int force;                        /* queue a deadline admission refuses */
    const char *out_dir;              /* NULL: none (<state dir>/jobs/<id>) */
    const char *fil_kind;             /* "filecoin": its kind, else NULL */
    char *fil_input;                  /* ... and its input, compact JSON (malloc'd) */
    size_t fil_input_len;
};
int apid_submit_parse(const char *body, size_t len, int64_t now_ns, struct apid_submit *s,
                      struct apid_reply *r);
void apid_submit_free(struct apid_submit *s);
/* key, priority, deadline, force and request_id of s->root into s: 0 or
 * -1 (r set). */
int apid_submit_fields(struct apid_submit *s, int64_t now_ns, struct apid_reply *r);

/* ---- filecoin.c ---- */
/* "filecoin": {"kind", "input"} checked into s (400 on a bad shape). */
int apid_filecoin_parse(json_t *fc, struct apid_submit *s, struct apid_reply *r);
/* s's Filecoin input split by key k's synthesizer into s->inputs (the
 * parts): 0, or -1 with r set (422, 503, 413), nothing queued. */
int apid_filecoin_split(struct apid *a, const struct zk_ledger_key *k, struct apid_submit *s,
                        struct apid_reply *r);

/* ---- witness.c ---- */
/* "witnesses": each base64 .wtns decoded into s (format checked; 400/413/422). */
int apid_witnesses_parse(json_t *arr, struct apid_submit *s, struct apid_reply *r);
/* An application/octet-stream body: one .wtns, the other fields from q's query. */
int apid_submit_parse_binary(const struct apid_req *q, int64_t now_ns, struct apid_submit *s,
                             struct apid_reply *r);
/* Every witness of s against key k (curve, n_vars): 0, or 422 bad_witness. */
int apid_witnesses_check(const struct zk_ledger_key *k, const struct apid_submit *s,
                         struct apid_reply *r);

/* ---- out_dir.c ---- */
/* The output directory a unix socket's user names for its job of n
 * partitions (POST /v1/jobs "out_dir"): 0, or -1 with 403/422 in r. */
int apid_out_dir_check(const struct apid_req *q, const char *dir, size_t n,
                       struct apid_reply *r);

/* ---- peer_uid.c ---- */
/* The uid of the local process at the other end of loopback TCP
 * connection fd, whose peer address is *peer (its /proc/net/tcp or tcp6
 * entry): 0 with *ret, or -1 when none is found. */
int apid_loopback_uid(int fd, const struct sockaddr_storage *peer, uid_t *ret);

/* ---- unix_listen.c ---- */
#define APID_UNIX_PREFIX "unix:"
/* "unix:/ABSOLUTE/PATH" into *ss (AF_UNIX); 0 or -1. */
int apid_unix_addr(const char *spec, struct sockaddr_storage *ss);
/* A listening socket at ss's path, mode 0660 (a dead server's socket
 * replaced); the fd, or -errno with one line in msg. */
int apid_unix_listen(const struct sockaddr_storage *ss, char *msg, size_t n);

/* ---- tls.c ---- */
/* Reads the PEM certificate and key into a (both NULL: no TLS); 0, or -1
 * with one line in msg. */
int apid_tls_load(struct apid *a, const char *cert, const char *key, char *msg, size_t n);

/* ---- admit.c ---- */
/* The limits into ad (nothing taken yet).  Cannot fail. */
void apid_admit_init(struct apid_admit *ad, unsigned max_conns, unsigned max_per_peer,
                     unsigned timeout_s);
/* Whom the connection fd from ss counts against, into *ret.  Cannot fail
 * (a unix peer whose credentials cannot be read is uid -1). */
void apid_peer_of(int fd, const struct sockaddr_storage *ss, struct apid_peer *ret);
/* Takes connection fd of peer p, its deadline running: 0 with *ret (the
 * table's until apid_admit_drop), APID_ADMIT_FULL or APID_ADMIT_PEER_FULL
 * (counted; refuse it), or -ENOMEM.  *ret is not written unless 0. */
int apid_admit_take(struct apid_admit *ad, int fd, const struct apid_peer *p,
                    struct apid_conn **ret);
/* The entry of fd, now libmicrohttpd's connection mc (its start
 * notification); NULL when none waits to start with that fd. */
struct apid_conn *apid_admit_started(struct apid_admit *ad, int fd, void *mc);
/* c out of the table and freed (NULL: nothing), before its fd is closed. */
void apid_admit_drop(struct apid_admit *ad, struct apid_conn *c);
/* c's request is whole and being handled: no deadline (NULL: nothing). */
void apid_admit_handling(struct apid_admit *ad, struct apid_conn *c);
/* c's deadline from now: its reply to read, its next request to send. */
void apid_admit_rearm(struct apid_admit *ad, struct apid_conn *c);
/* Shuts down the connections past their deadline (counted, once each);
 * returns the milliseconds until the next deadline, at most 1001. */
unsigned apid_admit_reap(struct apid_admit *ad);
/* Answers fd 503 too_many_connections (rc: which limit; tls: no answer,
 * only the close) and closes it.  Never blocks. */
void apid_admit_refuse(struct apid_admit *ad, int fd, int rc, const struct apid_peer *p,
                       int tls);

/* ---- server.c ---- */
/* Serves the listeners until *stop; 0, or -1 after one line on stderr. */
int apid_serve(struct apid *a, struct metrics_listen *l, const char *what, int sigfd);

#endif /* ZK_APID_H */
