/*
 * zkslot.h -- libzkslot: zkslot's job queue and slot pool for other
 * programs (docs/library.md).
 *
 * Two faces over one handle (a zkslot, one ledger):
 *   client:   submit a job (witness files or circuit inputs), its status,
 *             wait for it, its results, cancel it -- what `zkslot submit`,
 *             `status`, `wait`, `result` and `cancel` do;
 *   producer: an external synthesizer.  It creates a job of N partitions
 *             for a registered key, takes a free pool slot for a partition
 *             (the pool's permits: memory stays bounded), writes the
 *             witness (and optionally a, b, c) through the pointers it is
 *             given, and publishes it for gpud, or abandons it.
 *
 * Every function that can fail returns 0 or a negative code (ZKSLOT_E*
 * below, or -errno) and writes one line naming the object and the problem
 * into the caller's buffer msg (n bytes, always NUL-terminated when n > 0;
 * msg may be NULL).  zkslot_strerror names a code.  Nothing prints, exits
 * or installs signal handlers.
 *
 * Threads: a handle (zkslot, zkslot_producer, zkslot_part) is used by one
 * thread at a time; open one handle per thread.  Only zkslot_* symbols
 * are exported; the ABI is versioned by the soname (libzkslot.so.0).
 */
#ifndef ZKSLOT_H
#define ZKSLOT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZKSLOT_API_VERSION 1

/* Codes beyond -errno (the same numbers as zkslot's own tools use). */
#define ZKSLOT_EBADPARAMS (-10000)   /* invalid argument */
#define ZKSLOT_EFORMAT (-10001)      /* a file or value is not in the expected format */
#define ZKSLOT_ELENGTH (-10014)      /* a size disagrees with the key */
#define ZKSLOT_ETIMEOUT (-10020)     /* a timed wait expired */
#define ZKSLOT_ESTATE (-10022)       /* the job or partition is in another state */
#define ZKSLOT_ERANGE (-10025)       /* a value out of range (witness >= r) */
#define ZKSLOT_ELEDGER (-10026)      /* the ledger's database failed */
#define ZKSLOT_EREJECTED (-10029)    /* a generator or synthesizer refused the input */
#define ZKSLOT_EUNTRUSTED (-10031)   /* a file another user owns or may write */
#define ZKSLOT_ESTATEMENT (-10032)   /* a result that is not the proof of its job's statement */
#define ZKSLOT_EDEADLINE (-10033)    /* the deadline cannot be met (nothing queued) */
#define ZKSLOT_EJOBFAILED (-10900)   /* zkslot_wait: the job failed or was canceled */

/* Job states (zkslot_job_status.state), as `zkslot status` names them. */
enum zkslot_job_state {
    ZKSLOT_JOB_QUEUED = 0,
    ZKSLOT_JOB_RUNNING = 1,
    ZKSLOT_JOB_DONE = 2,
    ZKSLOT_JOB_FAILED = 3,
    ZKSLOT_JOB_CANCELED = 4,
};

/* Curves (zkslot_part.curve). */
enum zkslot_curve { ZKSLOT_CURVE_BN254 = 1, ZKSLOT_CURVE_BLS12_381 = 2 };

typedef struct zkslot zkslot;
typedef struct zkslot_producer zkslot_producer;

/* The library's version ("0.1.0"). */
const char *zkslot_version(void);
/* A static description of a code returned here; never NULL. */
const char *zkslot_strerror(int code);
/* "queued", "running", "done", "failed", "canceled"; "?" if unknown. */
const char *zkslot_job_state_name(int state);

/* ---- the handle ------------------------------------------------------------ */

/*
 * Opens the ledger `ledger` (an SQLite path, sqlite:PATH, or a PostgreSQL
 * URL or keyword string); NULL = the configuration's, as the CLI finds it.
 * `config`: the configuration file (state directory, pool path, reserve);
 * NULL = $ZKSLOT_CONFIG, else /etc/zkslot/zkslot.conf when it exists, else
 * the built-in defaults; $ZKSLOT_STATE_DIR and $ZKSLOT_POOL apply as for
 * the CLI.  The ledger must exist (`zkslot key add` makes it).
 * *ret is written only on success; close it with zkslot_close.
 */
int zkslot_open(const char *ledger, const char *config, zkslot **ret, char *msg, size_t n);
/* Closes; accepts NULL. */
void zkslot_close(zkslot *z);

/* ---- client ---------------------------------------------------------------- */

/* How a job is scheduled and where its proofs go (NULL = all defaults). */
struct zkslot_submit_opts {
    int priority;                /* 0 low .. 3 critical; < 0 = the key's class */
    int64_t deadline_ns;         /* CLOCK_REALTIME; 0 = none */
    const char *request_id;      /* NULL/"" = none; a retry returns the first job */
    const char *out_dir;         /* NULL = the ledger's default (<state_dir>/jobs/<id>) */
    unsigned flags;              /* ZKSLOT_SUBMIT_* */
};

/* A deadline is admitted as `zkslot submit --deadline` admits it: refused
 * (ZKSLOT_EDEADLINE, nothing queued) when the work the ledger has ahead
 * cannot let it be met at the recorded stage times; with this flag it is
 * queued anyway, as --force does (the daemons fail a job that cannot
 * start in time). */
#define ZKSLOT_SUBMIT_FORCE 0x1u

/*
 * Submits a job of n partitions for key `key`: files[i] is partition i's
 * witness (.wtns), or with `inputs` nonzero its circuit input (.json, the
 * key needs a witness generator).  Every file is checked against the key
 * before anything is queued.  *ret_job: the job id; *ret_existing (may be
 * NULL): 1 when request_id named a job submitted before (nothing queued).
 */
int zkslot_submit(zkslot *z, const char *key, const char *const *files, unsigned nfiles,
                  int inputs, const struct zkslot_submit_opts *o, int64_t *ret_job,
                  int *ret_existing, char *msg, size_t n);

/*
 * Submits a storage provider's Filecoin input as `zkslot submit --filecoin
 * KIND FILE` does: kind "porep" (FILE: the C1 output lotus-bench writes),
 * "winning", "window" or "snap" (the vanilla proofs and commitments:
 * docs/filecoin.md).  The Filecoin synthesizer ($ZKSLOT_FIL_SYNTH, else
 * zkslot-fil-synth in /usr/local/bin:/usr/bin:/bin) splits it, as the
 * caller, into one part per partition, each checked whole; the job is
 * those parts as inputs of key `key` (NULL = the one the input names,
 * fil-KIND-SIZE).  A bad input: ZKSLOT_EREJECTED with the synthesizer's
 * one line naming FILE, nothing queued.  o, *ret_job, *ret_existing as
 * for zkslot_submit.
 */
int zkslot_submit_filecoin(zkslot *z, const char *kind, const char *file, const char *key,
                           const struct zkslot_submit_opts *o, int64_t *ret_job,
                           int *ret_existing, char *msg, size_t n);

struct zkslot_job_status {
    int64_t id;
    int state;                   /* enum zkslot_job_state */
    uint32_t nparts;
    uint32_t queued, synthesizing, ready, proving, done, failed, canceled;
    int priority;
    int64_t deadline_ns, submitted_ns, finished_ns;
    char key[64];
    char error[512];             /* "" unless failed or canceled */
    char out_dir[4096];          /* where this machine's gpud writes <i>/proof.json */
};

/* Job `job`'s state into *ret; -ENOENT when there is no such job. */
int zkslot_status(zkslot *z, int64_t job, struct zkslot_job_status *ret, char *msg, size_t n);

/*
 * Waits until job `job` ends or timeout_ms passes (< 0: no limit), polling
 * the ledger.  0 when done; ZKSLOT_EJOBFAILED when failed or canceled
 * (msg: the job's error); ZKSLOT_ETIMEOUT.  *ret (may be NULL) gets the
 * last status read.
 */
int zkslot_wait(zkslot *z, int64_t job, int timeout_ms, struct zkslot_job_status *ret,
                char *msg, size_t n);

/*
 * Partition `index` of a done job: its proof.json and public.json texts
 * from the ledger, NUL-terminated, into *ret_proof and *ret_public (free
 * them with zkslot_free).  ZKSLOT_ESTATE when that partition is not done,
 * -ENOENT when the job, partition or its recorded result is unknown,
 * ZKSLOT_ESTATEMENT when the result is not the proof of the statement
 * synthesized for the partition (its public signals differ, or its proof
 * does not verify with the key's file where that is on this machine): as
 * `zkslot result`, nothing is handed out then.  A bellperson key's
 * partition: *ret_proof is its 192-byte proof as 384 hex digits and a
 * newline, verified with the key's store or file (docs/formats.md 9).
 */
int zkslot_result(zkslot *z, int64_t job, uint32_t index, char **ret_proof, char **ret_public,
                  char *msg, size_t n);
/* Frees what the library returned; accepts NULL. */
void zkslot_free(void *p);

/* Cancels job `job` (ZKSLOT_ESTATE when it already ended). */
int zkslot_cancel(zkslot *z, int64_t job, char *msg, size_t n);

/* ---- producer (an external synthesizer) ----------------------------------- */

/*
 * Attaches the slot pool (`pool`: its path; NULL = the configuration's)
 * as a producer, for this process: the pool's reaper knows the process by
 * pid and start time, so a producer killed mid-write has its slot freed
 * and its partition handed back like a synthd's.  A producer writes the
 * pool, so it runs as the daemons' user (docs/library.md).  Uses z's
 * ledger: z and the producer belong to the same thread.
 */
int zkslot_producer_open(zkslot *z, const char *pool, zkslot_producer **ret, char *msg,
                         size_t n);
/* Detaches; accepts NULL.  Publish or abandon every partition first: one
 * still in hand stays FILLING until this process exits (then it is reaped). */
void zkslot_producer_close(zkslot_producer *p);

/*
 * Creates a job of nparts partitions for key `key` that this producer (or
 * another) fills with zkslot_part_take; nothing is read from files.  o as
 * for zkslot_submit.  The key should be one no synthd serves: a synthd
 * would claim the job's queued partitions and fail them (no witness file).
 */
int zkslot_job_create(zkslot_producer *p, const char *key, uint32_t nparts,
                      const struct zkslot_submit_opts *o, int64_t *ret_job, char *msg,
                      size_t n);

/*
 * A partition in a slot held by the producer.  Write the witness at
 * `witness` (n_vars scalars of 32 bytes, little-endian, plain -- as a
 * .wtns holds them); optionally a, b and c (domain_size Montgomery
 * scalars each) with ZKSLOT_PUBLISH_ABC.  The pointers are valid until
 * publish or abandon.
 */
struct zkslot_part {
    int64_t job;
    uint32_t index;              /* the partition's index within its job */
    uint32_t slot;               /* the pool slot */
    int curve;                   /* enum zkslot_curve */
    uint64_t n_vars, n_public, domain_size;
    void *witness;               /* n_vars * 32 bytes */
    void *a, *b, *c;             /* domain_size * 32 bytes each */
    void *priv;                  /* the library's */
};

/*
 * Takes a free slot (waiting up to timeout_ms, < 0 no limit: the pool's
 * backpressure) and a queued partition of job `job` into it; *ret (free
 * it by publishing or abandoning).  -ENOENT when no partition of the job
 * is queued (all taken or done); ZKSLOT_ETIMEOUT when no slot came free.
 * The job's key coefficients are loaded here once per producer.
 */
int zkslot_part_take(zkslot_producer *p, int64_t job, int timeout_ms, struct zkslot_part **ret,
                     char *msg, size_t n);

/* zkslot_part_publish flags. */
#define ZKSLOT_PUBLISH_ABC 0x1u      /* a, b, c are written: do not compute them */

/*
 * Checks the witness (every value below the field's modulus), computes a,
 * b, c from it and the key's coefficients unless ZKSLOT_PUBLISH_ABC, and
 * publishes the slot for gpud; the partition becomes ready.  `part` is
 * freed in every case; on failure the slot is abandoned and the partition
 * re-queued (msg says why).
 */
int zkslot_part_publish(zkslot_producer *p, struct zkslot_part *part, unsigned flags,
                        char *msg, size_t n);

/* Gives the slot back unpublished and re-queues the partition; frees part. */
int zkslot_part_abandon(zkslot_producer *p, struct zkslot_part *part, char *msg, size_t n);

/*
 * A bellperson partition (a key of format bellperson: `zkslot key add NAME
 * FILE.params`) as bellperson's ProvingAssignment holds it after
 * synthesis, every value 32 bytes little-endian, canonical (below r) and
 * plain: the inputs (input 0 = ONE) and aux in bellperson's order, a, b
 * and c (one evaluation per constraint, the constraint per input that
 * synthesis appends included), and the density bitmaps, LSB first in
 * 64-bit words: a_aux (n_aux bits), b_input (n_inputs), b_aux (n_aux).
 */
struct zkslot_bp_assignment {
    uint64_t n_inputs, n_aux, n_constraints;
    const void *inputs, *aux;
    const void *a, *b, *c;
    const uint64_t *a_aux, *b_input, *b_aux;
};

/*
 * Takes a free slot (timeout_ms as zkslot_part_take) and a queued
 * partition of job `job` (a bellperson key's), copies `as` into the slot
 * (the .bpa layout, docs/formats.md section 9), checks it there (counts
 * against the key, every value below r, density bits within their
 * counts) and publishes it for gpud; the partition becomes ready.  *ret_index
 * (may be NULL) gets the partition's index.  On a refused assignment the
 * slot is given back and the partition re-queued (msg says why);
 * -ENOENT when no partition of the job is queued.
 */
int zkslot_part_publish_bp(zkslot_producer *p, int64_t job, int timeout_ms,
                           const struct zkslot_bp_assignment *as, uint32_t *ret_index,
                           char *msg, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* ZKSLOT_H */
