/*
 * pg_internal.h -- what the PostgreSQL backend's files share (private to
 * common/ledger/pg/).
 *
 * One libpq connection per handle (struct ledger_pg), its parameters built
 * in a struct lpg_args (text values, bytea in binary), statements with
 * parameters prepared once per connection, results read as text.  Every change is one transaction in READ COMMITTED that locks the
 * rows it reads (SELECT ... FOR UPDATE, claims SKIP LOCKED) in one order:
 * a partition, then its job.  A deadlock or serialization failure rolls
 * back and the whole transaction is run again (LPG_RETRY).  A lost
 * connection is re-established on the next call outside a transaction.
 *
 * The files: libpq.c (libpq loaded at the first open), db.c (these
 * helpers, the connection), schema.c (migrations,
 * open, close, the ops table), keys.c, jobs.c, parts.c, reconcile.c,
 * stats.c, purge.c, lease.c (machines and their leases), roles.c (who may do
 * what), sched.c (priorities, deadlines) -- the concepts of the SQLite
 * backend (../ledger_internal.h).
 */
#ifndef ZK_LEDGER_PG_INTERNAL_H
#define ZK_LEDGER_PG_INTERNAL_H

#include <libpq-fe.h>
#include <stddef.h>
#include <stdint.h>

#include "ledger/ledger_internal.h"

/*
 * libpq is loaded when the first PostgreSQL ledger is opened (libpq.c), not
 * linked: a process that never opens one does not map it and the twenty
 * libraries it pulls in (TLS, Kerberos, LDAP), 8 ms of every command's
 * start.  The functions this backend calls, resolved into lpg_pq; below,
 * each name stands for its pointer, so the files call them as usual.
 * lpg_libpq_load must have succeeded (lpg_open calls it first).
 */
#define LPG_PQ_FUNCTIONS(X) \
    X(PQclear) \
    X(PQcmdTuples) \
    X(PQconnectPoll) \
    X(PQconnectStartParams) \
    X(PQconninfo) \
    X(PQconninfoFree) \
    X(PQconninfoParse) \
    X(PQconsumeInput) \
    X(PQerrorMessage) \
    X(PQfinish) \
    X(PQflush) \
    X(PQgetResult) \
    X(PQgetisnull) \
    X(PQgetlength) \
    X(PQgetvalue) \
    X(PQisBusy) \
    X(PQntuples) \
    X(PQresultErrorField) \
    X(PQresultStatus) \
    X(PQsendPrepare) \
    X(PQsendQuery) \
    X(PQsendQueryParams) \
    X(PQsendQueryPrepared) \
    X(PQsetnonblocking) \
    X(PQsocket) \
    X(PQstatus)

struct lpg_pq_api {
#define LPG_PQ_FIELD(f) __typeof__(f) *f;
    LPG_PQ_FUNCTIONS(LPG_PQ_FIELD)
#undef LPG_PQ_FIELD
};
extern struct lpg_pq_api lpg_pq;

/* Loads libpq once per process (thread-safe): 0, or ZK_EBADPARAMS with one
 * line naming the library and how to install it. */
int lpg_libpq_load(struct zk_diag *diag);

#ifndef LPG_PQ_LOADER
#define PQclear (*lpg_pq.PQclear)
#define PQcmdTuples (*lpg_pq.PQcmdTuples)
#define PQconnectPoll (*lpg_pq.PQconnectPoll)
#define PQconnectStartParams (*lpg_pq.PQconnectStartParams)
#define PQconninfo (*lpg_pq.PQconninfo)
#define PQconninfoFree (*lpg_pq.PQconninfoFree)
#define PQconninfoParse (*lpg_pq.PQconninfoParse)
#define PQconsumeInput (*lpg_pq.PQconsumeInput)
#define PQerrorMessage (*lpg_pq.PQerrorMessage)
#define PQfinish (*lpg_pq.PQfinish)
#define PQflush (*lpg_pq.PQflush)
#define PQgetResult (*lpg_pq.PQgetResult)
#define PQgetisnull (*lpg_pq.PQgetisnull)
#define PQgetlength (*lpg_pq.PQgetlength)
#define PQgetvalue (*lpg_pq.PQgetvalue)
#define PQisBusy (*lpg_pq.PQisBusy)
#define PQntuples (*lpg_pq.PQntuples)
#define PQresultErrorField (*lpg_pq.PQresultErrorField)
#define PQresultStatus (*lpg_pq.PQresultStatus)
#define PQsendPrepare (*lpg_pq.PQsendPrepare)
#define PQsendQuery (*lpg_pq.PQsendQuery)
#define PQsendQueryParams (*lpg_pq.PQsendQueryParams)
#define PQsendQueryPrepared (*lpg_pq.PQsendQueryPrepared)
#define PQsetnonblocking (*lpg_pq.PQsetnonblocking)
#define PQsocket (*lpg_pq.PQsocket)
#define PQstatus (*lpg_pq.PQstatus)
#endif

#define LPG_MAX_PREPARED 64

struct ledger_pg {
    PGconn *c;
    char *conninfo;                 /* as given (with any password): for reconnects */
    unsigned busy_ms;               /* lock_timeout and connect timeout */
    int in_tx;                      /* BEGIN sent, no COMMIT/ROLLBACK yet */
    char sqlstate[6];               /* of the last failed statement; "" none */
    int ended;                      /* the server ended the session (57P01...):
                                     * the next statement reconnects (db.c) */
    /* the link (db.c, zk_ledger_set_lease): a connection that gave no
     * answer within stmt_ms (0: no bound), or whose wait was interrupted,
     * is dead: dropped, and the next statement reconnects, but not before
     * down_until_ms (CLOCK_MONOTONIC): until then each call fails at once
     * with down_msg, so a thread's statements during a cut cost one wait */
    unsigned lease_s;               /* TCP user timeout, keepalives, stmt_ms from it */
    unsigned stmt_ms;
    int dead;
    int64_t down_until_ms;
    char down_msg[200];
    int (*interrupt)(void *ctx);    /* zk_ledger_set_interrupt; NULL none */
    int64_t clock_off_ns;           /* the database's clock - CLOCK_REALTIME, measured at
                                     * each connect (lpg_now_ns) */
    void *interrupt_ctx;
    char machine[64];               /* this process's machine (owner of local pids) */
    int64_t epoch;                  /* of the machine's lease this handle holds; 0 none */
    /* statements with parameters, prepared once per connection (db.c):
     * prep_sql[i] is the text of the statement named "zk<i>" */
    char *prep_sql[LPG_MAX_PREPARED];
    int nprep;
};

#define LPG_MAX_ARGS 24

/* The parameters of one statement ($1 .. $n). */
struct lpg_args {
    int n;
    const char *v[LPG_MAX_ARGS];
    int len[LPG_MAX_ARGS];
    int fmt[LPG_MAX_ARGS];          /* 0 text, 1 binary */
    char buf[LPG_MAX_ARGS][32];     /* numbers as text */
};

void lpg_arg_i64(struct lpg_args *a, int64_t v);
void lpg_arg_f64(struct lpg_args *a, double v);
/* s NULL = SQL NULL; the text must outlive the statement. */
void lpg_arg_str(struct lpg_args *a, const char *s);
/* n bytes at p as bytea (binary); p NULL = SQL NULL. */
void lpg_arg_bytes(struct lpg_args *a, const void *p, size_t n);

/*
 * Runs sql with a (NULL = no parameters: sql may be several statements);
 * binary: results in binary.  The
 * result (PQclear it) when the statement succeeded, else NULL with diag
 * "<ledger>: <server message>" (ZK_ELEDGER) and sqlstate recorded.
 */
PGresult *lpg_query(zk_ledger *l, const char *sql, const struct lpg_args *a, int binary,
                    struct zk_diag *diag);
/* A statement without rows wanted: the rows it changed, or ZK_ELEDGER. */
int lpg_cmd(zk_ledger *l, const char *sql, const struct lpg_args *a, struct zk_diag *diag);
/* BEGIN (READ COMMITTED): 0 or ZK_ELEDGER. */
int lpg_begin(zk_ledger *l, struct zk_diag *diag);
/* COMMIT when r == 0, else ROLLBACK; returns r or the commit's error. */
int lpg_end(zk_ledger *l, int r, struct zk_diag *diag);
/* 1 (once per failure, at most a few times) when the last failure was a
 * deadlock or a serialization failure: the caller runs its transaction again. */
int lpg_retry(zk_ledger *l, int *tries);
#define LPG_RETRY(l, r, call)                  \
    do {                                       \
        int lpg_tries_ = 0;                    \
        do {                                   \
            (r) = (call);                      \
        } while ((r) < 0 && lpg_retry((l), &lpg_tries_)); \
    } while (0)

/* Column col of row as a number / text ("" for NULL, truncated into dst[n]). */
int64_t lpg_i64(const PGresult *res, int row, int col);
double lpg_f64(const PGresult *res, int row, int col);
void lpg_text(char *dst, size_t n, const PGresult *res, int row, int col);

/* Frees the cache of prepared statements (their connection is gone). */
void lpg_forget_prepared(struct ledger_pg *pg);

/* Whether the last failure was the server refusing us (authentication,
 * pg_hba.conf, no such role or database: SQLSTATE class 28, set by
 * lpg_connect from libpq's message) or a statement without the privilege
 * (42501), rather than an unreachable server or another error. */
int lpg_denied(const zk_ledger *l);

/* zk_ledger_set_lease and zk_ledger_set_interrupt for PostgreSQL (db.c). */
void lpg_set_lease(zk_ledger *l, unsigned lease_s);
/* The database's clock now (ns since the epoch): CLOCK_REALTIME corrected
 * by the offset measured at connect, so that every time a machine writes
 * or compares (stamps, deadlines, ages, aging) is on one clock. */
int64_t lpg_now_ns(const zk_ledger *l);

/* The bound on a statement's wait for an answer under a lease of lease_s. */
unsigned lpg_stmt_ms(unsigned lease_s);
void lpg_set_interrupt(zk_ledger *l, int (*fn)(void *ctx), void *ctx);

/* Connects (or reconnects) l->pg->c; 0 or ZK_ELEDGER (sqlstate 28000 when
 * the server refused the connection, 08001 when it could not be made). */
int lpg_connect(zk_ledger *l, struct zk_diag *diag);

/* Roles and grants (roles.c): the migration that adds the columns they
 * need, and the grants and policies applied at the end of every migration
 * (inside its transaction): 0 or ZK_ELEDGER (a missing role that the
 * migrating role may not create included). */
extern const char lpg_roles_migration[];
/* 7 -> 8: who may name files on the proving machines; the queue's clock (roles.c) */
extern const char lpg_files_migration[];
extern const char lpg_admit_migration[];
int lpg_roles_apply(zk_ledger *l, struct zk_diag *diag);

/* The job state derived again after one of its partitions moved to `to`
 * (jobs.c; inside the caller's transaction, the partition locked). */
int lpg_derive_job(zk_ledger *l, int64_t id, int to, struct zk_diag *diag);

/* The backend's operations, the contracts of struct ledger_ops. */
void lpg_set_machine(zk_ledger *l, const char *name);
const char *lpg_machine(const zk_ledger *l);
int lpg_lease_renew(zk_ledger *l, unsigned lease_s, int *ret_lost, struct zk_diag *diag);
int lpg_lease_expire(zk_ledger *l, uint32_t *ret_changed, struct zk_diag *diag);
void lpg_close(zk_ledger *l);
int lpg_key_add(zk_ledger *l, struct zk_ledger_key *k, struct zk_diag *diag);
int lpg_key_get(zk_ledger *l, const char *name, struct zk_ledger_key *ret,
                struct zk_diag *diag);
int lpg_key_get_id(zk_ledger *l, int64_t id, struct zk_ledger_key *ret, struct zk_diag *diag);
int lpg_key_set_identity(zk_ledger *l, int64_t id, uint64_t dev, uint64_t ino, int64_t mtime_ns,
                         struct zk_diag *diag);
int lpg_key_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_key *k), void *ctx,
                 struct zk_diag *diag);
int lpg_job_submit(zk_ledger *l, int64_t key_id, const char *out_dir,
                   struct zk_ledger_submit_opts *o, const char *const *witness,
                   const char *const *input, const size_t *len, uint32_t n, int64_t *ret_id,
                   struct zk_diag *diag);
int lpg_part_vet(zk_ledger *l, int64_t id, char *why, size_t n, struct zk_diag *diag);
int lpg_part_blobs(zk_ledger *l, int64_t id, const char *cols, int n, const char *what,
                   char **ret, size_t *ret_len, struct zk_diag *diag);
int lpg_job_get(zk_ledger *l, int64_t id, struct zk_ledger_job *ret, struct zk_diag *diag);
int lpg_job_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_job *j), void *ctx,
                 struct zk_diag *diag);
int lpg_part_list(zk_ledger *l, int64_t job_id,
                  int (*fn)(void *ctx, const struct zk_ledger_part *p), void *ctx,
                  struct zk_diag *diag);
int lpg_part_get(zk_ledger *l, int64_t id, struct zk_ledger_part *ret, struct zk_diag *diag);
int lpg_job_cancel(zk_ledger *l, int64_t id, struct zk_diag *diag);
int lpg_counts(zk_ledger *l, uint64_t count[ZK_PART_STATE_COUNT], struct zk_diag *diag);
int lpg_has_queued(zk_ledger *l, struct zk_diag *diag);
int lpg_claim_queued(zk_ledger *l, const struct zk_proc_id *me, int32_t slot, int min_class,
                     struct zk_ledger_part *ret, struct zk_diag *diag);
int lpg_queued_top(zk_ledger *l, struct zk_diag *diag);
int lpg_job_reprioritize(zk_ledger *l, int64_t id, int prio, struct zk_diag *diag);
int lpg_expire_deadlines(zk_ledger *l, int64_t now_ns, uint32_t *ret_failed,
                         struct zk_diag *diag);
int lpg_estimate(zk_ledger *l, int prio, struct zk_ledger_estimate *ret, struct zk_diag *diag);
int lpg_part_ready(zk_ledger *l, int64_t id, const struct zk_proc_id *me, double synth_s,
                   double witness_s, struct zk_diag *diag);
int lpg_part_statement(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                       const char *statement, struct zk_diag *diag);
int lpg_part_proving(zk_ledger *l, int64_t id, int64_t key_id, const struct zk_proc_id *me,
                     int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag);
int lpg_part_done(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                  const struct zk_ledger_timings *t, const struct zk_ledger_result *res,
                  unsigned flags, struct zk_diag *diag);
int lpg_part_error(zk_ledger *l, int64_t id, const struct zk_proc_id *me, const char *error,
                   uint32_t max_errors, uint32_t max_attempts, int *ret_failed,
                   struct zk_diag *diag);
int lpg_part_requeue(zk_ledger *l, int64_t id, enum zk_part_state expect,
                     const struct zk_proc_id *owner, const char *note, struct zk_diag *diag);
int lpg_reconcile(zk_ledger *l, int (*slot_holds)(void *ctx, int64_t part_id), void *ctx,
                  int check_ready, uint32_t max_attempts, uint32_t *ret_changed,
                  struct zk_diag *diag);
int lpg_daemon_started(zk_ledger *l, const char *role, const char *instance, int32_t pid,
                       struct zk_diag *diag);
int lpg_daemon_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                    void *ctx, struct zk_diag *diag);
int lpg_farm_daemons(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                     void *ctx, struct zk_diag *diag);
int lpg_totals(zk_ledger *l, struct zk_ledger_totals *ret, struct zk_diag *diag);
int lpg_done_times(zk_ledger *l, int64_t since_ns,
                   int (*fn)(void *ctx, const struct zk_ledger_part_times *t), void *ctx,
                   struct zk_diag *diag);
int lpg_purge_inputs(zk_ledger *l, int64_t before_ns, uint32_t *ret_n, struct zk_diag *diag);
#endif
