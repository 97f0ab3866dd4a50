/*
 * ledger.h -- the durable record of keys, jobs and partitions (SQLite or
 * PostgreSQL).
 *
 * Two backends behind one API, chosen by the URL given to zk_ledger_open:
 * an SQLite file (the default: "<state_dir>/ledger.db", one machine) or a
 * PostgreSQL database shared by many machines ("postgresql://...",
 * "postgres://..." or libpq keywords such as "host=/run/postgresql
 * dbname=zkslot"; docs/ledger.md).  The SQLite database is in WAL mode
 * under the state directory, opened by every process that submits or works
 * (CLI, synthd, gpud) with a busy timeout; every state change is one
 * IMMEDIATE transaction, so two processes never claim the same partition.
 * On PostgreSQL every change is one transaction that locks the rows it
 * reads (claims: SELECT ... FOR UPDATE SKIP LOCKED).  Each backend's schema
 * is versioned and migrated forward on open (PostgreSQL: under an advisory
 * lock, so machines may start at once).
 *
 * Partition states and who moves them:
 *
 *   queued --synthd claims--> synthesizing --synthd publishes--> ready
 *   ready/synthesizing/queued --gpud claims its slot--> proving --> done
 *   any live state --error--> queued (attempts left) | failed
 *   queued/ready/synthesizing/proving --cancel--> canceled
 *   synthesizing/proving with a dead owner --reconcile--> ready (slot READY) | queued
 *
 * A job is queued until a partition leaves `queued`, then running, then
 * done (all partitions done), failed (a partition failed) or canceled.
 * A job fails as a whole: when one partition becomes failed, the job's
 * other unfinished partitions become canceled in the same transaction
 * (error "canceled: the job failed"), exactly as zk_ledger_job_cancel()
 * would leave them.
 *
 * Owners are process identities (pid + start time in clock ticks, see
 * zk/proc.h), so a recycled pid never keeps a dead owner's partitions.
 *
 * Every function returns 0 or a negative code (zk/error.h; SQLite failures
 * become ZK_ELEDGER and, when a diag is given, one line naming the database
 * and SQLite's message).  A zk_ledger handle is used by one thread at a
 * time; each thread that needs the ledger opens its own handle.
 */
#ifndef ZK_COMMON_LEDGER_H
#define ZK_COMMON_LEDGER_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"
#include "zk/priority.h"
#include "zk/proc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZK_LEDGER_SCHEMA_VERSION 10
#define ZK_LEDGER_FILE "ledger.db"        /* name inside the state directory */

enum zk_part_state {
    ZK_PART_QUEUED = 0,
    ZK_PART_SYNTHESIZING = 1,
    ZK_PART_READY = 2,
    ZK_PART_PROVING = 3,
    ZK_PART_DONE = 4,
    ZK_PART_FAILED = 5,
    ZK_PART_CANCELED = 6,
};
#define ZK_PART_STATE_COUNT 7             /* enum zk_part_state values: 0 .. 6 */

enum zk_job_state {
    ZK_JOB_QUEUED = 0,
    ZK_JOB_RUNNING = 1,
    ZK_JOB_DONE = 2,
    ZK_JOB_FAILED = 3,
    ZK_JOB_CANCELED = 4,
};
#define ZK_JOB_STATE_COUNT 5              /* enum zk_job_state values: 0 .. 4 */

/* Names as stored in the database and printed by `zkslot status`. */
const char *zk_part_state_name(int state);   /* "queued", ... ; "?" if unknown */
const char *zk_job_state_name(int state);
int zk_part_state_parse(const char *s);      /* -1 if unknown */
int zk_job_state_parse(const char *s);

/* What a key's file is (the keys table's `format`): its partitions' input
 * and the prover that serves it (docs/formats.md). */
enum zk_key_format {
    ZK_KEY_ZKEY = 0,                  /* a snarkjs .zkey: witnesses (.wtns) or inputs */
    ZK_KEY_BELLPERSON = 1,            /* a bellperson .params: assignments (.bpa) */
};
#define ZK_KEY_FORMAT_COUNT 2
/* "zkey", "bellperson" ("?" if unknown); the parse gives -1 for unknown. */
const char *zk_key_format_name(int format);
int zk_key_format_parse(const char *s);

struct zk_ledger_key {
    int64_t id;                       /* assigned by zk_ledger_key_add */
    char name[64];
    char path[4096];                  /* absolute path of the key file (.zkey, .params) */
    char curve[16];                   /* "bn128" or "bls12381" */
    char hash[33];                    /* XXH3-128 of the file, lowercase hex */
    uint64_t file_size;
    uint64_t n_vars, n_public, domain_size;
    int64_t added_ns;                 /* CLOCK_REALTIME */
    int witgen_kind;                  /* enum zk_witgen_kind (zk/witgen.h); 0 = none */
    char witgen[4096];                /* its spec: program, .wasm or command template */
    char witgen_hash[33];             /* zk_witgen_hash at registration; "" = none */
    uint64_t file_dev, file_ino;      /* the file's identity at registration */
    int64_t file_mtime_ns;            /* (zk/keyfile.h); 0 = not recorded */
    int priority;                     /* enum zk_priority: its jobs' default class */
    int format;                       /* enum zk_key_format */
};

#define ZK_LEDGER_REQUEST_ID_MAX 128  /* bytes of a submit's request id */
#define ZK_LEDGER_PRINCIPAL_MAX 63    /* bytes of a submit's principal */

struct zk_ledger_job {
    int64_t id;
    int64_t key_id;
    char key_name[64];
    uint32_t nparts;
    int state;                        /* enum zk_job_state */
    char out_dir[4096];               /* absolute; partition i's proof goes to
                                         <out_dir>/<i>/proof.json and
                                         <out_dir>/<i>/public.json (i in decimal,
                                         no padding).  `zkslot submit` creates
                                         the <i> directories; gpud creates them
                                         when missing. */
    int64_t submitted_ns, started_ns, finished_ns;   /* 0 = not yet */
    char error[512];                  /* "" unless failed/canceled */
    uint32_t count[ZK_PART_STATE_COUNT]; /* partitions per enum zk_part_state */
    int priority;                     /* enum zk_priority */
    int64_t deadline_ns;              /* CLOCK_REALTIME; 0 = none */
    char request_id[ZK_LEDGER_REQUEST_ID_MAX + 1]; /* "" = none */
    char principal[ZK_LEDGER_PRINCIPAL_MAX + 1];   /* who submitted it, within the
                                         ledger's own account of submitters (the
                                         namespace of its request id): SQLite:
                                         "uid:N" or an API token's "api:NAME";
                                         PostgreSQL: "" (the role itself, in
                                         jobs.submitter) or "api:NAME"; "" also
                                         for SQLite jobs from before schema 9 */
};

struct zk_ledger_part {
    int64_t id;                       /* partition id (the pool's partition_id) */
    int64_t job_id;
    int64_t key_id;
    uint32_t index;                   /* 0 .. nparts-1 within the job */
    char witness[4096];               /* the .wtns; for an input partition the
                                         file its input was read from at submit
                                         (information only: the input itself is
                                         in the ledger, zk_ledger_part_input) */
    int has_input;                    /* synthesized from a circuit input */
    int state;                        /* enum zk_part_state */
    uint32_t attempts;                /* times synthesis was started */
    uint32_t errors;                  /* failures counted against the limit */
    uint32_t proofs;                  /* proofs written (> 1: duplicates) */
    struct zk_proc_id owner;          /* pid 0 when none */
    char owner_role[16];              /* "synthd", "gpud" */
    int32_t slot;                     /* pool slot, -1 when none */
    /* seconds per stage of the last run; < 0 = not run */
    double synth_s, wait_s, start_s, finalize_s;
    int64_t queued_ns, ready_ns, done_ns;            /* 0 = not yet */
    char error[512];
    double witness_s;                 /* of synth_s: the witness generator's run; < 0 = none */
    int priority;                     /* its job's class (enum zk_priority) */
    int64_t deadline_ns;              /* its job's deadline; 0 = none */
    char machine[64];                 /* PostgreSQL: the machine that holds or
                                         held it last (a done partition's files
                                         are there); "" on SQLite (this one) */
    char statement[72];               /* recorded at synthesis (zk/statement.h);
                                         "" = none recorded */
};

/* Per-stage timings reported by gpud with zk_ledger_part_done(). */
struct zk_ledger_timings {
    double synth_s;                   /* synthesis (from the slot header); < 0 = unknown;
                                         kept only if synthd could not record it */
    double wait_s;                    /* READY -> claimed */
    double start_s;                   /* prove_start */
    double finalize_s;                /* prove_finalize + write */
    double witness_s;                 /* of synth_s, the witness generator's run (slot
                                         header); < 0 = none; kept like synth_s */
};

/*
 * A partition's result as gpud wrote it (proof.json and public.json), kept
 * in the ledger with `done` so that `zkslot result JOB --out DIR` can write
 * it on any machine.  Each text at most ZK_LEDGER_RESULT_MAX bytes.
 */
struct zk_ledger_result {
    char *proof;                      /* proof.json, NUL-terminated */
    size_t proof_len;
    char *pub;                        /* public.json, NUL-terminated */
    size_t pub_len;
};
#define ZK_LEDGER_RESULT_MAX (64u << 20)

typedef struct zk_ledger zk_ledger;

/*
 * Which backend `url` names: the SQLite file's path ("sqlite:PATH" -> PATH,
 * any other text that is not a PostgreSQL URL or keyword string -> itself),
 * or NULL for PostgreSQL.  Points into url.
 */
const char *zk_ledger_sqlite_path(const char *url);


/*
 * `url` as it may be shown (a message, a log, a header, a configuration
 * dump): a PostgreSQL URL or keyword string without its password (the
 * user info's, ?password=, password=...), an SQLite path as it is.  Into
 * buf (n bytes, truncated if need be); returns buf.  Every place that shows
 * a ledger's URL goes through here.  Cannot fail.
 */
const char *zk_ledger_url_redact(const char *url, char *buf, size_t n);

/*
 * Which of the SQLite ledger `file` (when it exists) and its directory
 * `dir` (for the ledger, -wal and -shm) this process may not write: that
 * path (file or dir), with "not writable by WHO (uid U): owner O:G, mode
 * MMMM" in buf (n bytes); NULL when both are writable.  For messages that
 * say whose the ledger is instead of SQLite's "unable to open database
 * file".
 */
const char *zk_ledger_sqlite_access(const char *file, const char *dir, const char *who,
                                    char *buf, size_t n);

/*
 * The SQLite ledger `file` made the daemons' alone (common/ledger/
 * private.c): the file, -wal and -shm mode 0600; another user's -wal or
 * -shm (an operator's process made them) removed by one open and close
 * (a TRUNCATE checkpoint).  Each daemon runs it at start, before it opens
 * the ledger.  1 when something changed (the line to log in msg, n bytes),
 * 0 when nothing did (no file, already 0600, another user's ledger: the
 * open says whose), or -errno with one line in msg (-EBUSY: another
 * user's -wal or -shm still open elsewhere).
 */
int zk_ledger_sqlite_private(const char *file, char *msg, size_t n);

/*
 * Opens the ledger `path` names (zk_ledger_sqlite_path).  PostgreSQL:
 * connects (libpq; busy_ms bounds the connection and lock waits, 0 = 10 s),
 * creates or migrates the schema under an advisory lock with
 * ZK_LEDGER_CREATE, else refuses a database without it (ZK_EFORMAT);
 * -ENOTSUP when built without libpq; an unreachable server is ZK_ELEDGER;
 * a server that refuses (authentication, no such role or database, no
 * privilege to read or make the schema) is -EACCES, its reason in diag.
 * SQLite: opens (creating when absent, with ZK_LEDGER_CREATE) the database at
 * `path`, sets WAL mode, foreign keys and a busy timeout of busy_ms (0 =
 * 10000), and migrates the schema to ZK_LEDGER_SCHEMA_VERSION.  A ledger
 * it creates is mode 0660 whatever the umask (the daemons' user and the
 * operators in its group share it; SQLite gives -wal and -shm the same
 * mode and owner).  synchronous=FULL: a commit is on disk when it returns
 * (a job id printed by `zkslot submit` survives a power loss); with
 * ZK_LEDGER_SYNC_NORMAL, synchronous=NORMAL for the daemons, whose own
 * transitions a power loss may undo (the recovery pass redoes the work).
 * ZK_EVERSION if the file has a newer schema, ZK_EFORMAT if it is not a
 * zkslot ledger, -ENOENT if absent without ZK_LEDGER_CREATE.  *ret
 * written only on success.
 */
#define ZK_LEDGER_CREATE 0x1u
#define ZK_LEDGER_SYNC_NORMAL 0x2u
int zk_ledger_open(const char *path, unsigned flags, unsigned busy_ms, zk_ledger **ret,
                   struct zk_diag *diag);

/* Closes; accepts NULL. */
void zk_ledger_close(zk_ledger *l);

/* The path given to zk_ledger_open (a PostgreSQL URL without its password). */
const char *zk_ledger_path(const zk_ledger *l);

/* The backend: "sqlite" or "postgresql". */
const char *zk_ledger_backend(const zk_ledger *l);

/*
 * This process's machine in a shared ledger (PostgreSQL): the partitions
 * its daemons hold are recorded with it, and only that machine judges
 * their owners' pids.  The default is the hostname; name NULL or "" keeps
 * it.  -EINVAL if longer than 63 bytes.  SQLite (one machine) ignores it.
 */
int zk_ledger_set_machine(zk_ledger *l, const char *name);
/* The machine set or defaulted ("" on SQLite). */
const char *zk_ledger_machine(const zk_ledger *l);

/*
 * The ledger's clock now, in ns since the epoch: on PostgreSQL the
 * database's (this machine's CLOCK_REALTIME corrected by the offset
 * measured at each connection), on SQLite this machine's.  Every time
 * that is written to the ledger or compared with one read from it
 * (stamps, deadlines, ages, aging, leases) is on this clock, so that
 * machines whose clocks differ agree.  Cannot fail.
 */
int64_t zk_ledger_now_ns(const zk_ledger *l);

/*
 * A shared ledger's link (PostgreSQL) scaled to the machine's lease
 * ([ledger] lease, lease_s; 0 = the default 30 s): a dead peer is noticed
 * by the kernel within about lease/3 s, at least 1 and at most 10 (libpq's
 * tcp_user_timeout, keepalives after lease/6 s, at most 5, two probes
 * lease/15 s apart, at most 2), unless the URL sets them itself; and no
 * statement waits more than lease/2 s (2 .. 15) for its answer without
 * progress: its connection is dropped as dead and the call fails
 * (ZK_ELEDGER, "no answer from the server for N s"); the handle's calls
 * fail at once for 1 s after that, then connect again.  A handle opened
 * without it has the default.  Takes effect on the next statement (a new
 * connection).  Nothing on SQLite.  Cannot fail.
 */
void zk_ledger_set_lease(zk_ledger *l, unsigned lease_s);

/*
 * A shared ledger's (PostgreSQL) way to stop waiting: while this handle
 * waits for its server, fn(ctx) is asked every 0.1 s once nothing has
 * moved on the connection for 1 s (a healthy server's answer, or a
 * transfer under way, is never given up); nonzero drops the connection
 * and fails the call (ZK_ELEDGER).  A daemon passes its stop, so that no thread waiting
 * on a cut link holds a stop back.  fn NULL: none (the default).  fn runs
 * on the thread using the handle.  Nothing on SQLite.
 */
void zk_ledger_set_interrupt(zk_ledger *l, int (*fn)(void *ctx), void *ctx);

/*
 * Machine leases (a shared ledger; SQLite: nothing to do, 0).  Every daemon
 * renews its machine's lease once a second for lease_s seconds, judged by
 * the database's clock (now()), never a local one.  *ret_lost = 1 when the
 * lease this handle held was expired meanwhile by another machine (this
 * one was stopped or cut off longer than the lease): its synthesizing,
 * ready and proving partitions went back to the queue, the slots still
 * holding them are stale (the ledger refuses them: ZK_ESTATE), and the
 * lease is taken again on the next call.
 */
int zk_ledger_lease_renew(zk_ledger *l, unsigned lease_s, int *ret_lost, struct zk_diag *diag);
/*
 * Any daemon, once a second: the machines whose lease ran out (now() past
 * it) lose their synthesizing, ready and proving partitions to `queued`
 * (no error counted; note "machine M lost its lease").  *ret_changed (may
 * be NULL) = partitions moved.
 */
int zk_ledger_lease_expire(zk_ledger *l, uint32_t *ret_changed, struct zk_diag *diag);

/* ---- keys ------------------------------------------------------------------ */

/* Registers k (id and added_ns are set here).  -EEXIST if the name is taken,
 * -EINVAL if name is empty or a string field is not terminated. */
int zk_ledger_key_add(zk_ledger *l, struct zk_ledger_key *k, struct zk_diag *diag);
/* By name or id; -ENOENT if unknown. */
int zk_ledger_key_get(zk_ledger *l, const char *name, struct zk_ledger_key *ret,
                      struct zk_diag *diag);
int zk_ledger_key_get_id(zk_ledger *l, int64_t id, struct zk_ledger_key *ret,
                         struct zk_diag *diag);
/* Records the key file's identity again (its content was hashed and found
 * unchanged after a touch or a copy: zk/keyfile.h). */
int zk_ledger_key_set_identity(zk_ledger *l, int64_t id, uint64_t dev, uint64_t ino,
                               int64_t mtime_ns, struct zk_diag *diag);
/* Calls fn for every key in id order; a nonzero return of fn stops and is returned. */
int zk_ledger_key_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_key *k),
                       void *ctx, struct zk_diag *diag);

/* ---- jobs (CLI side) ----------------------------------------------------- */

/*
 * Creates a job for key_id with n partitions (witness paths, stored as
 * given: callers pass absolute paths), all queued, in one transaction.
 * out_dir NULL = "<dir of the ledger>/jobs/<id>" on SQLite; on PostgreSQL
 * "" (the job's out_dir reads ""): each proving machine's own
 * "<state_dir>/jobs/<id>" (zk_ledger_job_resolve_out).  *ret_id gets the job id.
 */
int zk_ledger_job_submit(zk_ledger *l, int64_t key_id, const char *out_dir,
                         const char *const *witness, uint32_t n, int64_t *ret_id,
                         struct zk_diag *diag);
/*
 * The same for a job from circuit inputs: partition i is synthesized from
 * input[i] (len[i] bytes, at most ZK_LEDGER_INPUT_MAX, stored in the ledger
 * so the job does not depend on the caller's files); name[i] is where it
 * was read from, kept for display.  The key must have a witness generator
 * (the caller checks).
 */
#define ZK_LEDGER_INPUT_MAX (64u << 20)
int zk_ledger_job_submit_inputs(zk_ledger *l, int64_t key_id, const char *out_dir,
                                const char *const *name, const char *const *input,
                                const size_t *len, uint32_t n, int64_t *ret_id,
                                struct zk_diag *diag);
/*
 * How a job is scheduled (docs/scheduling.md), for zk_ledger_job_submit_opts.
 * priority < 0 takes the key's default class.  deadline_ns (CLOCK_REALTIME,
 * 0 = none): see zk_ledger_expire_deadlines.  request_id (NULL or "" =
 * none; at most ZK_LEDGER_REQUEST_ID_MAX bytes, no control characters) is
 * the caller's own: its namespace is the submitter, (principal, request
 * id) on SQLite and (role, principal, request id) on PostgreSQL, and the
 * id is opaque within it (a prefix such as "api:web:" means nothing).
 * principal is set by the code that authenticated the caller, never from
 * the caller's text: NULL = this process's user (SQLite "uid:N" of
 * getuid(); PostgreSQL "", the session's role); zkslot-apid passes
 * "api:TOKEN".  When the submitter has a job with the same id (whatever
 * its state) and the same key and request (the partition count and each
 * partition's name and input; with witness_later only the count, for a
 * producer's job whose witnesses are written afterwards), nothing is
 * queued: its id goes to *ret_id and `existing` is set to 1 (else 0);
 * many clients racing with one id create one job.  The same id with
 * another key or another request: -EEXIST ("request id 'X' is job N, of
 * another key" / "... submitted with other inputs"), nothing queued.
 * Another submitter's id is never seen: its own job is made.  -EINVAL for
 * a class out of range, a negative deadline, or an id or principal too
 * long or holding a control character.
 */
struct zk_ledger_submit_opts {
    int priority;                     /* enum zk_priority, or < 0 */
    int64_t deadline_ns;
    const char *request_id;
    int existing;                     /* out: 1 = an earlier job's id returned */
    const char *principal;            /* NULL = this process's user (above) */
    int witness_later;                /* a retry repeats the count, not the names */
    int force;                        /* the deadline queued past the admission
                                         estimate (--force); else a PostgreSQL
                                         server checks the estimate itself */
};
/* zk_ledger_job_submit (input NULL) or _submit_inputs with options (o NULL
 * = the key's class, no deadline, no request id). */
int zk_ledger_job_submit_opts(zk_ledger *l, int64_t key_id, const char *out_dir,
                              struct zk_ledger_submit_opts *o, const char *const *name,
                              const char *const *input, const size_t *len, uint32_t n,
                              int64_t *ret_id, struct zk_diag *diag);
/*
 * What this handle's submits store instead of each input (fn NULL = the
 * input itself, the default): fn is called for every stored input once the
 * job's id is known, inside the submit's transaction, and what it puts in
 * *ret (malloc'd, freed by the ledger) is stored (zk/seal.h: inputs sealed
 * to the daemons); a non-zero return fails the submit, nothing queued.
 */
typedef int (*zk_ledger_seal_fn)(void *ctx, int64_t job_id, uint32_t idx, const char *in,
                                 size_t len, char **ret, size_t *ret_len);
void zk_ledger_set_seal(zk_ledger *l, zk_ledger_seal_fn fn, void *ctx);
/* The input of partition id, NUL-terminated, in *ret (free it) with its
 * length; -ENOENT if the partition is unknown or has no input. */
int zk_ledger_part_input(zk_ledger *l, int64_t id, char **ret, size_t *ret_len,
                         struct zk_diag *diag);
/*
 * Whether a daemon may act on partition id's row at all, judged before
 * anything it names or holds is read (issue 46: rows written straight
 * into the database, past the CLI's checks).  Returns 0 (yes), 1 (no:
 * why[n] gets one line naming the rule the row breaks) or < 0 (diag).
 * The rules: its input or stored witness is at most ZK_LEDGER_BLOB_MAX
 * bytes (the CLI's ZK_LEDGER_INPUT_MAX, sealed), its witness name and its
 * job's output directory shorter than 4096; on a shared ledger also, unless
 * its job's submitter may name files on the proving machines (a superuser,
 * the schema's owner, zkslot_admin or zkslot_daemon members: the daemons'
 * side), its witness travels in the ledger (a row that names only a file
 * is never opened) and its job names no output directory (docs/ledger.md,
 * "Files on the proving machines").
 */
#define ZK_LEDGER_BLOB_MAX (ZK_LEDGER_INPUT_MAX + 76u)   /* + ZK_SEAL_OVERHEAD */
int zk_ledger_part_vet(zk_ledger *l, int64_t id, char *why, size_t n, struct zk_diag *diag);
/*
 * Empties the circuit inputs of the jobs that ended (done, failed or
 * canceled) at least keep_s seconds ago, results kept; on SQLite the space
 * is given back and the write-ahead log emptied (common/ledger/purge.c).
 * The daemons run it on their periodic recovery pass ([ledger]
 * keep_inputs).  *ret_n (may be NULL): partitions emptied.  0 or an error.
 */
int zk_ledger_purge_inputs(zk_ledger *l, unsigned keep_s, uint32_t *ret_n,
                           struct zk_diag *diag);
/* Where partition proofs of job j go on this machine: j->out_dir stays,
 * and "" (a PostgreSQL job submitted without one) becomes
 * "<state_dir>/jobs/<id>".  -ENAMETOOLONG if that does not fit. */
int zk_ledger_job_resolve_out(struct zk_ledger_job *j, const char *state_dir);
/* One job with its partition counts; -ENOENT if unknown. */
int zk_ledger_job_get(zk_ledger *l, int64_t id, struct zk_ledger_job *ret,
                      struct zk_diag *diag);
/* Every job in id order (fn as for key_list). */
int zk_ledger_job_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_job *j),
                       void *ctx, struct zk_diag *diag);
/* The partitions of a job in index order (fn as for key_list). */
int zk_ledger_part_list(zk_ledger *l, int64_t job_id,
                        int (*fn)(void *ctx, const struct zk_ledger_part *p), void *ctx,
                        struct zk_diag *diag);
/* One partition; -ENOENT if unknown. */
int zk_ledger_part_get(zk_ledger *l, int64_t id, struct zk_ledger_part *ret,
                       struct zk_diag *diag);
/*
 * Cancels a job: its partitions not done/failed become canceled, the job
 * canceled.  ZK_ESTATE if the job is already done/failed/canceled.
 * In-flight work finishes in the daemons and is then dropped.
 */
int zk_ledger_job_cancel(zk_ledger *l, int64_t id, struct zk_diag *diag);
/* Partitions per state over all jobs (count[] indexed by enum zk_part_state). */
int zk_ledger_counts(zk_ledger *l, uint64_t count[ZK_PART_STATE_COUNT], struct zk_diag *diag);

/* ---- daemons --------------------------------------------------------------- */

/* 1 if any partition of a key this handle claims is queued (cheap; for
 * idle polling), 0 if none, < 0 error. */
int zk_ledger_has_queued(zk_ledger *l, struct zk_diag *diag);

/*
 * The keys this handle's claims take: ids[0..n), or every key with ids
 * NULL (the default), on both backends; zk_ledger_has_queued and
 * zk_ledger_queued_top count only those too.  A machine claims only the
 * keys it serves (zkd_claim_keys: [gpud] keys, the key file present here).
 * The list is copied.  0 or -ENOMEM.
 */
int zk_ledger_set_claim_keys(zk_ledger *l, const int64_t *ids, unsigned n);

/*
 * The job this handle's claims (zk_ledger_claim_queued, _class) take
 * partitions of: job's alone, or any job with job 0 (the default), on
 * both backends, within the claim keys above.  libzkslot's producer
 * claims a partition of the job it was asked for and no other's.
 */
void zk_ledger_set_claim_job(zk_ledger *l, int64_t job);

/*
 * synthd: claims the oldest queued partition (of a job not canceled):
 * queued -> synthesizing, owner = *me, role "synthd", slot, attempts + 1,
 * job queued -> running.  -ENOENT when nothing is queued.
 */
int zk_ledger_claim_queued(zk_ledger *l, const struct zk_proc_id *me, int32_t slot,
                           struct zk_ledger_part *ret, struct zk_diag *diag);

/*
 * zk_ledger_claim_queued restricted to jobs of class >= min_class (a
 * reserved slot or worker: docs/scheduling.md).  The order of both: the
 * highest effective class (the job's class raised one step per aging
 * period its job has waited, zk_ledger_set_aging, at most critical), then
 * the earliest deadline (none last), then the oldest job, then the lowest
 * partition index.
 */
int zk_ledger_claim_queued_class(zk_ledger *l, const struct zk_proc_id *me, int32_t slot,
                                 int min_class, struct zk_ledger_part *ret,
                                 struct zk_diag *diag);

/* The aging period of this handle's claims (0 = no aging, the default). */
void zk_ledger_set_aging(zk_ledger *l, unsigned aging_s);

/*
 * 1 + the highest class (of its job, before aging) of a partition this
 * handle could claim now, 0 when nothing is queued, < 0 an error: what a
 * synthd worker asks before it takes a slot (a reserved slot only for a
 * class that may use it).
 */
int zk_ledger_queued_top(zk_ledger *l, struct zk_diag *diag);

/*
 * `zkslot reprioritize`: job id's class becomes prio (its partitions not
 * yet synthesized are claimed in the new order; those in a slot keep the
 * class they were published with).  ZK_ESTATE when the job is finished,
 * -ENOENT when unknown, -EINVAL for a class out of range.
 */
int zk_ledger_job_reprioritize(zk_ledger *l, int64_t id, int prio, struct zk_diag *diag);

/*
 * Every daemon, once a second: an unfinished job whose deadline is before
 * now_ns and that still has a queued partition (one that never started:
 * it can no longer start in time) fails with "deadline exceeded"; its
 * other unfinished partitions are canceled (their slots are dropped by
 * the daemon holding them, nothing more is proved for it).  A job whose
 * partitions have all started runs to its end.  *ret_failed (may be NULL)
 * = jobs failed.
 */
int zk_ledger_expire_deadlines(zk_ledger *l, int64_t now_ns, uint32_t *ret_failed,
                               struct zk_diag *diag);

/*
 * For the admission check of `zkslot submit --deadline`: the work ahead of
 * a new job of class prio and the recorded stage times.
 */
struct zk_ledger_estimate {
    uint64_t ahead;                   /* unfinished partitions of class >= prio
                                         that are not done proving */
    uint32_t samples;                 /* done partitions the medians come from (<= 64,
                                         the latest); 0 = no history */
    double synth_s, start_s, finalize_s;   /* their medians */
    uint32_t provers;                 /* gpud instances that recorded a start (>= 1) */
};
int zk_ledger_estimate(zk_ledger *l, int prio, struct zk_ledger_estimate *ret,
                       struct zk_diag *diag);

/*
 * synthd: synthesizing(me) -> ready, records synth_s (witness_s of it spent
 * generating the witness, < 0 none) and ready_ns.  A
 * ready partition has no owner (pid 0, role ""); its slot number stays.
 * ZK_ESTATE when the partition is no longer synthesizing by me (reconciled,
 * canceled, or already taken by a gpud): not an error for the caller.
 */
int zk_ledger_part_ready(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                         double synth_s, double witness_s, struct zk_diag *diag);

/*
 * synthd, before it publishes the slot: records partition id's statement
 * (zk/statement.h: its key and the public signals of the witness in the
 * slot), which gpud checks the slot against when it claims it and results
 * are checked against when they are handed out.  The partition must be
 * synthesizing by me; ZK_ESTATE otherwise (reaped, canceled).
 */
int zk_ledger_part_statement(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                             const char *statement, struct zk_diag *diag);

/*
 * gpud, after claiming the slot that holds partition id: any of queued,
 * synthesizing, ready -> proving (owner = *me, role "gpud", slot).  The
 * slot is the proof that synthesis happened.  ZK_ESTATE when the
 * partition is done, failed or canceled (the caller drops the slot), or
 * proving by another live owner; -ENOENT when unknown.  *ret (may be NULL)
 * receives the partition after the change.
 */
int zk_ledger_part_proving(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                           int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag);

/*
 * zk_ledger_part_proving for a slot whose header cannot be trusted (any
 * process that can write the pool can write it): the partition must
 * belong to `key_id` (the slot header's), and be synthesizing or ready
 * in `slot` (the one synthd recorded at its claim); a queued partition is
 * refused too (no slot holds its synthesis).  ZK_ESTATE with diag naming
 * what differs; the caller drops the slot.
 */
int zk_ledger_part_proving_slot(zk_ledger *l, int64_t id, int64_t key_id,
                                const struct zk_proc_id *me, int32_t slot,
                                struct zk_ledger_part *ret, struct zk_diag *diag);

/*
 * gpud: proving(me) -> done, proofs + 1 (+ 1 more with
 * ZK_LEDGER_DONE_DUPLICATE, i.e. a proof file was already there), timings
 * recorded, the result `res` kept (NULL = none), job done when it was the
 * last one.  Also accepted when the partition is already done (a second
 * proof: proofs + 1, the first result kept; its job's state derived again)
 * or was re-queued meanwhile (-> done, recorded as this handle's machine's:
 * its files are there).  On a shared ledger, a partition that another
 * machine holds (this one lost its lease and the other is redoing it)
 * only counts the proof (proofs + 1: a duplicate; state, result and
 * machine left to the other's done).  ZK_LEDGER_DONE_RETRY: this call
 * repeats one that failed on a lost connection, which may have committed
 * (PostgreSQL): an already done partition then counts no proof.  ZK_ESTATE
 * only for canceled/failed partitions; -EFBIG (nothing changed) for a
 * result text above ZK_LEDGER_RESULT_MAX.
 */
#define ZK_LEDGER_DONE_DUPLICATE 1u
#define ZK_LEDGER_DONE_RETRY 2u
int zk_ledger_part_done(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                        const struct zk_ledger_timings *t, const struct zk_ledger_result *res,
                        unsigned flags, struct zk_diag *diag);

/* The result kept with partition id's `done` into *ret (free it with
 * zk_ledger_result_free); -ENOENT if the partition is unknown or has none
 * (not done, or done by a zkslot that kept none). */
int zk_ledger_part_result(zk_ledger *l, int64_t id, struct zk_ledger_result *ret,
                          struct zk_diag *diag);
void zk_ledger_result_free(struct zk_ledger_result *r);

/*
 * Either daemon: partition id failed with `error` while owned by *me.
 * errors + 1; when errors >= max_errors or attempts >= max_attempts the
 * partition becomes failed (error kept) and its job failed; otherwise
 * queued again.  *ret_failed (may be NULL) = 1 if it is now failed.
 * Accepted from synthesizing/proving owned by *me and from ready (which
 * has no owner); ZK_ESTATE otherwise (someone else has it now, or it is
 * finished: the error is stale and nothing changes).
 */
int zk_ledger_part_error(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                         const char *error, uint32_t max_errors, uint32_t max_attempts,
                         int *ret_failed, struct zk_diag *diag);

/*
 * Hands a partition back without counting an error (clean shutdown, a slot
 * dropped on checksum failure, a lost slot): `expect` -> queued, where
 * expect is synthesizing or proving owned by *owner, or ready (no owner;
 * owner may be NULL); `note` goes to the error column as information.
 * ZK_ESTATE if the partition is in another state or has another owner (a
 * live daemon keeps its partition; a dead one's is moved by reconcile).
 */
int zk_ledger_part_requeue(zk_ledger *l, int64_t id, enum zk_part_state expect,
                           const struct zk_proc_id *owner, const char *note,
                           struct zk_diag *diag);

/*
 * Reconciliation, run by every daemon at start and periodically:
 *  - synthesizing/proving partitions whose owner is dead (zk_proc_alive)
 *    become ready if slot_holds(ctx, id) says a pool slot holds them READY
 *    or CLAIMED, else queued (attempts >= max_attempts: failed);
 *  - when `check_ready` is set, ready partitions that no slot holds become
 *    queued (the pool was recreated or the slot dropped).  The change is
 *    conditional on the state still being ready, so a gpud that moved it
 *    to proving meanwhile is not disturbed.
 * The candidate rows are read (one read snapshot) before slot_holds is
 * first called, so a caller that scans the pool lazily on the first call
 * never sees a partition published after its scan as lost.
 * slot_holds may be NULL (= nothing held: the pool is gone); it returns
 * > 0 held, 0 not held, < 0 an error that stops the reconciliation and is
 * returned (moves made so far stay).
 * *ret_changed (may be NULL) = number of partitions moved.
 */
int zk_ledger_reconcile(zk_ledger *l, int (*slot_holds)(void *ctx, int64_t part_id),
                        void *ctx, int check_ready, uint32_t max_attempts,
                        uint32_t *ret_changed, struct zk_diag *diag);

/* ---- statistics (metrics, `zkslot top`) -------------------------------------- */

struct zk_ledger_daemon {
    char role[16];                    /* "synthd", "gpud" */
    char instance[32];                /* NUMA node / device index */
    uint64_t starts;                  /* times started (restarts = starts - 1) */
    int32_t last_pid;
    int64_t last_start_ns;
    char machine[64];                 /* zk_ledger_farm_daemons: its machine;
                                         "" on SQLite (this one) */
    int lease;                        /* zk_ledger_farm_daemons: 1 when that
                                         machine's lease is current */
};

/* A daemon records each start (role, instance); one transaction. */
int zk_ledger_daemon_started(zk_ledger *l, const char *role, const char *instance, int32_t pid,
                             struct zk_diag *diag);
/* Every daemon instance ever started, by role and instance (fn as for
 * key_list); on a shared ledger, those of this handle's machine
 * (zk_ledger_set_machine), whose pids and restarts they are. */
int zk_ledger_daemon_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                          void *ctx, struct zk_diag *diag);
/* The whole farm's daemons: on a shared ledger every machine's, by machine,
 * role and instance, with machine and lease filled (a pid means something
 * only on its own machine); on SQLite the same as zk_ledger_daemon_list. */
int zk_ledger_farm_daemons(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                           void *ctx, struct zk_diag *diag);

struct zk_ledger_totals {
    uint64_t parts[ZK_PART_STATE_COUNT]; /* partitions per enum zk_part_state */
    uint64_t jobs[ZK_JOB_STATE_COUNT];   /* jobs per enum zk_job_state */
    uint64_t proofs;                  /* proofs written (duplicates included) */
    uint64_t errors;                  /* partition errors recorded */
    uint64_t attempts;                /* syntheses started */
    /* unfinished partitions by their job's class (enum zk_priority):
     * queued, and in flight (synthesizing, ready or proving) */
    uint64_t queued_class[ZK_PRIO_COUNT], inflight_class[ZK_PRIO_COUNT];
};

/* Counts over the whole ledger. */
int zk_ledger_totals(zk_ledger *l, struct zk_ledger_totals *ret, struct zk_diag *diag);

/* The stage times of one done partition (< 0 = not recorded). */
struct zk_ledger_part_times {
    double synth_s, wait_s, start_s, finalize_s;
    int64_t done_ns, queued_ns;
    int priority;                     /* its job's class */
};

/* Every partition done at or after since_ns (0 = all), oldest first. */
int zk_ledger_done_times(zk_ledger *l, int64_t since_ns,
                         int (*fn)(void *ctx, const struct zk_ledger_part_times *t), void *ctx,
                         struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_LEDGER_H */
