/*
 * ledger_internal.h -- what the ledger's files share (private to common/ledger/).
 *
 * The handle (struct zk_ledger) with its backend's table of operations
 * (struct ledger_ops: backend.c selects the backend and dispatches every
 * public function through it), the SQLite backend's cache of prepared
 * statements and the small SQLite helpers its files use.  The PostgreSQL
 * backend's own state and helpers are in pg/pg_internal.h.  A cached statement is named by an
 * enum ledger_stmt_id and its SQL text lives next to the one function that
 * binds it; ledger_stmt() prepares it once per handle
 * (SQLITE_PREPARE_PERSISTENT) the first time that function runs.
 *
 * The files: backend.c (the URL -> backend choice, the public functions),
 * rules.c (what does not depend on the backend),
 * schema.c (migrations, open, close, the SQLite ops), db.c (these helpers),
 * states.c (state names), keys.c, jobs.c (submit, cancel, the job state
 * derived from its partitions), parts.c (partition reads and transitions),
 * reconcile.c, stats.c (counts, totals, daemon starts), purge.c (ended
 * jobs' inputs); pg/ the same
 * concepts on PostgreSQL.
 */
#ifndef ZK_LEDGER_INTERNAL_H
#define ZK_LEDGER_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "zk/ledger.h"
#include "zk/sha256.h"

/* One id per cached statement; each is used by one function (its SQL next to it). */
enum ledger_stmt_id {
    LS_KEY_ADD,
    LS_KEY_BY_NAME,
    LS_KEY_BY_ID,
    LS_JOB_INSERT,
    LS_JOB_SET_OUT,
    LS_PART_INSERT,
    LS_JOB_GET,
    LS_JOB_COUNTS,
    LS_PART_GET,
    LS_HAS_QUEUED,
    LS_OLDEST_QUEUED,
    LS_CLAIM,
    LS_READY,
    LS_STATEMENT,
    LS_PROVING,
    LS_DONE,
    LS_DONE_AGAIN,
    LS_ERROR_QUEUE,
    LS_ERROR_FAIL,
    LS_REQUEUE,
    LS_JOB_STATE,
    LS_JOB_SET_STATE,
    LS_JOB_CANCEL_PARTS,
    LS_JOB_FAILED_ERR,
    LS_COUNT
};

/*
 * What a backend implements: the public functions of zk/ledger.h less the
 * prefix, same contracts.  job_submit takes the inputs (NULL for a job of
 * witnesses; backend.c checks their sizes); part_proving takes key_id < 0
 * for the unchecked form, else the slot header's key (INT64_MAX for a
 * header with none).  close frees the handle.
 */
struct ledger_ops {
    const char *name;               /* "sqlite", "postgresql" */
    void (*close)(zk_ledger *l);
    /* a shared ledger's machine (NULL for a one-machine backend); name
     * checked by backend.c: 1 .. 63 bytes */
    void (*set_machine)(zk_ledger *l, const char *name);
    /* a networked ledger's link (NULL for a local backend) */
    void (*set_lease)(zk_ledger *l, unsigned lease_s);
    int64_t (*now_ns)(const zk_ledger *l);   /* NULL: this machine's clock */
    void (*set_interrupt)(zk_ledger *l, int (*fn)(void *ctx), void *ctx);
    const char *(*machine)(const zk_ledger *l);
    /* leases (NULL for a one-machine backend); *ret_lost / *ret_changed
     * start at 0 */
    int (*lease_renew)(zk_ledger *l, unsigned lease_s, int *ret_lost, struct zk_diag *diag);
    int (*lease_expire)(zk_ledger *l, uint32_t *ret_changed, struct zk_diag *diag);
    int (*key_add)(zk_ledger *l, struct zk_ledger_key *k, struct zk_diag *diag);
    int (*key_get)(zk_ledger *l, const char *name, struct zk_ledger_key *ret,
                   struct zk_diag *diag);
    int (*key_get_id)(zk_ledger *l, int64_t id, struct zk_ledger_key *ret,
                      struct zk_diag *diag);
    int (*key_set_identity)(zk_ledger *l, int64_t id, uint64_t dev, uint64_t ino,
                            int64_t mtime_ns, struct zk_diag *diag);
    int (*key_list)(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_key *k),
                    void *ctx, struct zk_diag *diag);
    int (*job_submit)(zk_ledger *l, int64_t key_id, const char *out_dir,
                      struct zk_ledger_submit_opts *o, const char *const *witness,
                      const char *const *input, const size_t *len, uint32_t n,
                      int64_t *ret_id, struct zk_diag *diag);
    /* the blob columns `cols` ("a" or "a, b", n of them) of partition id
     * into ret[i] / ret_len[i] (NUL-terminated copies); -ENOENT (diag:
     * "partition ID has no WHAT") when the first is NULL; on failure
     * ret[] holds what was copied, for the caller to free */
    int (*part_blobs)(zk_ledger *l, int64_t id, const char *cols, int n, const char *what,
                      char **ret, size_t *ret_len, struct zk_diag *diag);
    /* zk_ledger_part_vet */
    int (*part_vet)(zk_ledger *l, int64_t id, char *why, size_t n, struct zk_diag *diag);
    int (*job_get)(zk_ledger *l, int64_t id, struct zk_ledger_job *ret, struct zk_diag *diag);
    int (*job_list)(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_job *j),
                    void *ctx, struct zk_diag *diag);
    int (*part_list)(zk_ledger *l, int64_t job_id,
                     int (*fn)(void *ctx, const struct zk_ledger_part *p), void *ctx,
                     struct zk_diag *diag);
    int (*part_get)(zk_ledger *l, int64_t id, struct zk_ledger_part *ret,
                    struct zk_diag *diag);
    int (*job_cancel)(zk_ledger *l, int64_t id, struct zk_diag *diag);
    int (*counts)(zk_ledger *l, uint64_t count[ZK_PART_STATE_COUNT], struct zk_diag *diag);
    int (*has_queued)(zk_ledger *l, struct zk_diag *diag);
    int (*claim_queued)(zk_ledger *l, const struct zk_proc_id *me, int32_t slot,
                        int min_class, struct zk_ledger_part *ret, struct zk_diag *diag);
    /* scheduling (sched.c, pg/sched.c) */
    int (*queued_top)(zk_ledger *l, struct zk_diag *diag);
    int (*job_reprioritize)(zk_ledger *l, int64_t id, int prio, struct zk_diag *diag);
    int (*expire_deadlines)(zk_ledger *l, int64_t now_ns, uint32_t *ret_failed,
                            struct zk_diag *diag);
    int (*estimate)(zk_ledger *l, int prio, struct zk_ledger_estimate *ret,
                    struct zk_diag *diag);
    int (*part_ready)(zk_ledger *l, int64_t id, const struct zk_proc_id *me, double synth_s,
                      double witness_s, struct zk_diag *diag);
    int (*part_statement)(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                          const char *statement, struct zk_diag *diag);
    int (*part_proving)(zk_ledger *l, int64_t id, int64_t key_id, const struct zk_proc_id *me,
                        int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag);
    int (*part_done)(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                     const struct zk_ledger_timings *t, const struct zk_ledger_result *res,
                     unsigned flags, struct zk_diag *diag);
    int (*part_error)(zk_ledger *l, int64_t id, const struct zk_proc_id *me, const char *error,
                      uint32_t max_errors, uint32_t max_attempts, int *ret_failed,
                      struct zk_diag *diag);
    int (*part_requeue)(zk_ledger *l, int64_t id, enum zk_part_state expect,
                        const struct zk_proc_id *owner, const char *note,
                        struct zk_diag *diag);
    int (*reconcile)(zk_ledger *l, int (*slot_holds)(void *ctx, int64_t part_id), void *ctx,
                     int check_ready, uint32_t max_attempts, uint32_t *ret_changed,
                     struct zk_diag *diag);
    int (*daemon_started)(zk_ledger *l, const char *role, const char *instance, int32_t pid,
                          struct zk_diag *diag);
    int (*daemon_list)(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                       void *ctx, struct zk_diag *diag);
    /* optional (NULL: daemon_list): every machine's daemons */
    int (*farm_daemons)(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                       void *ctx, struct zk_diag *diag);
    int (*totals)(zk_ledger *l, struct zk_ledger_totals *ret, struct zk_diag *diag);
    int (*done_times)(zk_ledger *l, int64_t since_ns,
                      int (*fn)(void *ctx, const struct zk_ledger_part_times *t), void *ctx,
                      struct zk_diag *diag);
    /* the inputs of jobs that ended at or before before_ns emptied
     * (purge.c, pg/purge.c); NULL: nothing to purge */
    int (*purge_inputs)(zk_ledger *l, int64_t before_ns, uint32_t *ret_n,
                        struct zk_diag *diag);
};

struct ledger_pg;                   /* pg/pg_internal.h */

struct zk_ledger {
    const struct ledger_ops *ops;   /* the backend */
    char *path;                     /* the path or URL it was opened with */
    /* SQLite */
    sqlite3 *db;
    sqlite3_stmt *st[LS_COUNT];     /* prepared on first use, finalized by close */
    const char *st_sql[LS_COUNT];   /* the text st[i] was prepared from */
    /* PostgreSQL */
    struct ledger_pg *pg;
    /* zk_ledger_set_claim_keys: "{1,2}" (a bigint[] literal), NULL = every key */
    char *claim_keys;
    /* zk_ledger_set_claim_job: the one job claims take, 0 = any */
    int64_t claim_job;
    /* zk_ledger_set_aging, in ns (0 = none) */
    int64_t aging_ns;
    /* zk_ledger_set_seal (NULL = inputs stored as given) */
    zk_ledger_seal_fn seal;
    void *seal_ctx;
};

/* The SQLite backend's open (schema.c; zk_ledger_open's contract for a path). */
int lsq_open(const char *path, unsigned flags, unsigned busy_ms, zk_ledger **ret,
             struct zk_diag *diag);

/* The SQLite backend's operations (schema.c, keys.c, jobs.c, parts.c,
 * reconcile.c, stats.c), the contracts of struct ledger_ops. */
void lsq_close(zk_ledger *l);
int lsq_key_add(zk_ledger *l, struct zk_ledger_key *k, struct zk_diag *diag);
int lsq_key_get(zk_ledger *l, const char *name, struct zk_ledger_key *ret,
                struct zk_diag *diag);
int lsq_key_get_id(zk_ledger *l, int64_t id, struct zk_ledger_key *ret, struct zk_diag *diag);
int lsq_key_set_identity(zk_ledger *l, int64_t id, uint64_t dev, uint64_t ino, int64_t mtime_ns,
                         struct zk_diag *diag);
int lsq_key_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_key *k), void *ctx,
                 struct zk_diag *diag);
int lsq_job_submit(zk_ledger *l, int64_t key_id, const char *out_dir,
                   struct zk_ledger_submit_opts *o, const char *const *witness,
                   const char *const *input, const size_t *len, uint32_t n, int64_t *ret_id,
                   struct zk_diag *diag);
int lsq_part_vet(zk_ledger *l, int64_t id, char *why, size_t n, struct zk_diag *diag);
int lsq_part_blobs(zk_ledger *l, int64_t id, const char *cols, int n, const char *what,
                   char **ret, size_t *ret_len, struct zk_diag *diag);
int lsq_job_get(zk_ledger *l, int64_t id, struct zk_ledger_job *ret, struct zk_diag *diag);
int lsq_job_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_job *j), void *ctx,
                 struct zk_diag *diag);
int lsq_part_list(zk_ledger *l, int64_t job_id,
                  int (*fn)(void *ctx, const struct zk_ledger_part *p), void *ctx,
                  struct zk_diag *diag);
int lsq_part_get(zk_ledger *l, int64_t id, struct zk_ledger_part *ret, struct zk_diag *diag);
int lsq_job_cancel(zk_ledger *l, int64_t id, struct zk_diag *diag);
int lsq_counts(zk_ledger *l, uint64_t count[ZK_PART_STATE_COUNT], struct zk_diag *diag);
int lsq_has_queued(zk_ledger *l, struct zk_diag *diag);
int lsq_claim_queued(zk_ledger *l, const struct zk_proc_id *me, int32_t slot, int min_class,
                     struct zk_ledger_part *ret, struct zk_diag *diag);
int lsq_queued_top(zk_ledger *l, struct zk_diag *diag);
/* The job principal submitted with request_id: 1 with its id, key and
 * request digest (ret_digest: 65 bytes), 0 none, < 0. */
int lsq_job_by_request(zk_ledger *l, const char *principal, const char *request_id,
                       int64_t *ret_id, int64_t *ret_key_id, char *ret_digest,
                       struct zk_diag *diag);
int lsq_job_reprioritize(zk_ledger *l, int64_t id, int prio, struct zk_diag *diag);
int lsq_expire_deadlines(zk_ledger *l, int64_t now_ns, uint32_t *ret_failed,
                         struct zk_diag *diag);
int lsq_estimate(zk_ledger *l, int prio, struct zk_ledger_estimate *ret, struct zk_diag *diag);
int lsq_part_ready(zk_ledger *l, int64_t id, const struct zk_proc_id *me, double synth_s,
                   double witness_s, struct zk_diag *diag);
int lsq_part_statement(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                       const char *statement, struct zk_diag *diag);
int lsq_part_proving(zk_ledger *l, int64_t id, int64_t key_id, const struct zk_proc_id *me,
                     int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag);
int lsq_part_done(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                  const struct zk_ledger_timings *t, const struct zk_ledger_result *res,
                  unsigned flags, struct zk_diag *diag);
int lsq_part_error(zk_ledger *l, int64_t id, const struct zk_proc_id *me, const char *error,
                   uint32_t max_errors, uint32_t max_attempts, int *ret_failed,
                   struct zk_diag *diag);
int lsq_part_requeue(zk_ledger *l, int64_t id, enum zk_part_state expect,
                     const struct zk_proc_id *owner, const char *note, struct zk_diag *diag);
int lsq_reconcile(zk_ledger *l, int (*slot_holds)(void *ctx, int64_t part_id), void *ctx,
                  int check_ready, uint32_t max_attempts, uint32_t *ret_changed,
                  struct zk_diag *diag);
int lsq_daemon_started(zk_ledger *l, const char *role, const char *instance, int32_t pid,
                       struct zk_diag *diag);
int lsq_daemon_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                    void *ctx, struct zk_diag *diag);
int lsq_totals(zk_ledger *l, struct zk_ledger_totals *ret, struct zk_diag *diag);
int lsq_done_times(zk_ledger *l, int64_t since_ns,
                   int (*fn)(void *ctx, const struct zk_ledger_part_times *t), void *ctx,
                   struct zk_diag *diag);
int lsq_purge_inputs(zk_ledger *l, int64_t before_ns, uint32_t *ret_n, struct zk_diag *diag);

/* The PostgreSQL backend's open (pg/schema.c): conninfo is a libpq URL or
 * keyword string; flags and busy_ms as zk_ledger_open. */
int lpg_open(const char *conninfo, unsigned flags, unsigned busy_ms, zk_ledger **ret,
             struct zk_diag *diag);

/* ZK_ELEDGER with "<path>: <sqlite message>" in diag.  Cannot fail. */
int ledger_dberr(zk_ledger *l, struct zk_diag *diag);

/* Runs q (one or more statements, no rows wanted): 0 or ZK_ELEDGER. */
int ledger_exec(zk_ledger *l, const char *q, struct zk_diag *diag);

/*
 * The cached statement `id`, reset and unbound, prepared from sql on first
 * use.  Every call for one id must pass the same text (a second text is a
 * programming error, reported as ZK_ELEDGER).  NULL with diag set on failure;
 * the handle owns the statement.
 */
sqlite3_stmt *ledger_stmt(zk_ledger *l, enum ledger_stmt_id id, const char *sql,
                          struct zk_diag *diag);

/* Steps s: 1 row, 0 done, ZK_ELEDGER error.  Resets s when done or failed. */
int ledger_step(zk_ledger *l, sqlite3_stmt *s, struct zk_diag *diag);

/* Runs a statement that returns no rows; the number of changed rows or < 0. */
int ledger_run(zk_ledger *l, sqlite3_stmt *s, struct zk_diag *diag);

/* Column col of s as text into dst[n] ("" for NULL), truncated.  Cannot fail. */
void ledger_text(char *dst, size_t n, sqlite3_stmt *s, int col);

/* BEGIN IMMEDIATE: the write lock before anything is read.  0 or ZK_ELEDGER. */
int ledger_begin(zk_ledger *l, struct zk_diag *diag);

/* Commits when r == 0, else rolls back; returns r or the commit's error. */
int ledger_end(zk_ledger *l, int r, struct zk_diag *diag);

/* CLOCK_REALTIME in nanoseconds. */
int64_t ledger_now_ns(void);

/* ---- rules.c: the same on every backend ---- */

/*
 * SQLite fragments of the claim (jobs as j, partitions as p):
 * LSQ_CLAIM_KEYS(k): j's key is in the claim-keys list bound at k (the
 * "{1,2}" text of zk_ledger_set_claim_keys; NULL = every key);
 * LSQ_CLAIM_ORDER(aging, now): zk_ledger_claim_queued_class's order, the
 * aging period and the time bound in ns.
 */
#define LSQ_CLAIM_KEYS(k)                                                              \
    "(" k " IS NULL OR j.key_id IN (SELECT value FROM json_each('[' || substr(" k ", 2," \
    " length(" k ") - 2) || ']')))"
#define LSQ_CLAIM_ORDER(aging, now)                                                      \
    "min(3, j.priority + CASE WHEN " aging " > 0 AND " now " > j.submitted_ns THEN (" now \
    " - j.submitted_ns) / " aging " ELSE 0 END) DESC, j.deadline_ns = 0, j.deadline_ns,"  \
    " j.id, p.idx"

/* The median of v[0..n) (sorted in place); -1 when n is 0. */
double ledger_median(double *v, uint32_t n);

/* The submit options' checks (zk_ledger_submit_opts): 0 or -EINVAL with diag. */
int ledger_submit_opts_check(const char *path, const struct zk_ledger_submit_opts *o,
                             struct zk_diag *diag);

/* The principal a submit stores (zk_ledger_submit_opts): o->principal, else
 * with local_uid "uid:N" of getuid() (SQLite), else "" (PostgreSQL: the
 * role is jobs.submitter).  Cannot fail. */
void ledger_principal(const struct zk_ledger_submit_opts *o, int local_uid,
                      char buf[ZK_LEDGER_PRINCIPAL_MAX + 1]);
/* The digest of a submit's request that a retry with its request id must
 * repeat: SHA-256 chained over the partition count and each partition's
 * name and input (o->witness_later: the count only), as 64 lowercase hex
 * digits and a NUL.  Cannot fail. */
void ledger_request_digest(const struct zk_ledger_submit_opts *o, const char *const *name,
                           const char *const *input, const size_t *len, uint32_t n,
                           char hex[2 * ZK_SHA256_LEN + 1]);

/* The answer to a submit whose request id is the submitter's job id (key
 * the same or not, stored and digest its request's digests): 0 (the same
 * request: its job), or -EEXIST with diag naming the rule. */
int ledger_request_reused(const char *path, const char *rid, int64_t id, int same_key,
                          const char *stored, const char *digest, struct zk_diag *diag);

/* A key record's fields: 0, or -EINVAL "bad key record" (diag names `name`). */
int ledger_key_check(const char *name, const struct zk_ledger_key *k, struct zk_diag *diag);

/*
 * The state a job in `state` (queued or running) moves to from its
 * partition counts: failed when one failed, done when all are, running
 * once one left queued, else `state`; *finished = 1 for done and failed.
 */
int ledger_job_next(int state, const uint32_t count[ZK_PART_STATE_COUNT], uint32_t nparts,
                    int *finished);

/*
 * zk_ledger_part_vet's size rules on a row's input (bytes), witness name and
 * output directory (characters): 0, or 1 with one line in why[n].
 */
int ledger_vet_sizes(int64_t input, int64_t witness, int64_t out_dir, char *why, size_t n);

/*
 * A slot header's word against the ledger's partition p (gpud's checked
 * move to proving): the key, not queued, and for a synthesized partition
 * the slot synthd recorded.  0, or ZK_ESTATE with diag naming what differs.
 */
int ledger_slot_check(const char *name, const struct zk_ledger_part *p, int64_t key_id,
                      int32_t slot, struct zk_diag *diag);

/*
 * Derives job id's state from its partitions (inside the caller's
 * transaction) after one of them moved to state `to` (jobs.c).  0 or < 0.
 */
int ledger_derive_job(zk_ledger *l, int64_t id, int to, struct zk_diag *diag);

#endif
