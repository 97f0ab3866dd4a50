/*
 * submit_core.h -- what `zkslot submit` and zkslot-apid's POST /v1/jobs
 * share: the checks a key must pass before a job is queued for it, and a
 * job's output directories.  Nothing here prints: each function that fails
 * leaves one line in `msg` (n bytes), without the caller's prefix.
 */
#ifndef ZK_TOOLS_SUBMIT_CORE_H
#define ZK_TOOLS_SUBMIT_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "zk/config.h"
#include "zk/ledger.h"

#define SUBMIT_MSG_MAX 1024

/*
 * Key `name` as a job for it must find it, into *ret: known (-ENOENT:
 * "no key named 'NAME' (see zkslot key list)"), its file unchanged on a
 * one-machine ledger (a touched or copied file of the same content gets
 * its identity recorded again), its partitions fitting the slots of
 * cfg->pool when that pool exists (-EFBIG), for a job of circuit inputs
 * (`input` SUBMIT_INPUTS) a witness generator (-ENOEXEC), and a job of
 * the key's kind: bellperson assignments (SUBMIT_BPA) for a bellperson
 * key and only for one (-EINVAL; a producer's job, SUBMIT_PRODUCED, may be
 * of either kind).  0 or a negative code.
 */
enum { SUBMIT_WITNESSES = 0, SUBMIT_INPUTS = 1, SUBMIT_BPA = 2, SUBMIT_PRODUCED = 3 };
int submit_key_check(zk_ledger *l, const struct zk_config *cfg, const char *name, int input,
                     struct zk_ledger_key *ret, char *msg, size_t n);

/*
 * A job's stored input (len bytes of file `name`) checked for key k: a
 * circuit input (zk_input_check) for a .zkey's key, a JSON object for a
 * bellperson key's generator (zk_input_check_object: a Filecoin part file,
 * judged by the generator itself).  0 or ZK_EJSON with one line in d.
 */
int submit_input_check(const struct zk_ledger_key *k, const char *buf, size_t len,
                       const char *name, struct zk_diag *d);

/*
 * mkdir -p for a job's output directories: each directory made here is
 * 02770 and given `gid` (the state directory's group), its creation
 * fsynced in its parent; those that exist are left as they are.  0 or
 * -errno with "DIR: ERROR" in msg (naming the group when it could not be
 * given).
 */
int submit_mkdir_shared(const char *path, gid_t gid, char *msg, size_t n);

/*
 * An output directory a submitter names (canonical, made already) and the
 * partition directories already in it (<out>/0 .. <out>/<n-1>): gpud
 * writes there as the daemons' user, so the submitter must be able to
 * write there itself (access(2): the real uid) and a partition directory
 * must be a directory, not a link (gpud follows none).  0, or -EACCES
 * with the refusal in msg.  (libzkslot's check of a job's out_dir.)
 */
int submit_out_dir_check(const char *out, uint32_t nparts, char *msg, size_t n);

/*
 * The admission check of a deadline, the same for `zkslot submit
 * --deadline`, POST /v1/jobs and zkslot_submit (each has its way to
 * force): can a job of nparts partitions of key k and class prio (< 0:
 * the key's class, as the ledger records the job) finish before
 * deadline_ns (CLOCK_REALTIME) behind the work the ledger has ahead of
 * it, at the stage times it recorded?  Estimated finish: the median
 * synthesis, then (ahead + nparts) median prove_starts shared by the
 * provers that recorded a start, then a median finalize.  0 to go on
 * (also when nothing was recorded yet: nothing is refused blind),
 * ZK_EDEADLINE refused with the numbers in msg, or the ledger's error.
 */
int submit_admit(zk_ledger *l, const struct zk_ledger_key *k, int prio, uint32_t nparts,
                 int64_t deadline_ns, char *msg, size_t n);

/* Frees what a submit gathered for its n files: abs[i] and text[i] (each
 * array may be NULL), the arrays abs, text and len. */
void submit_files_free(char **abs, char **text, size_t *len, size_t n);

/*
 * The <out_dir>/<i> directory of every partition of job j (submit_mkdir_
 * shared with the group of state_dir).  On a shared ledger (PostgreSQL)
 * with no output directory given (explicit_out 0) nothing is made: each
 * proving machine makes its own <state_dir>/jobs/<id>; with one, no group
 * is given and no state directory is needed.  On a failure the job is
 * canceled (its partitions could not be written) and msg says which
 * directory.
 */
int submit_job_dirs(zk_ledger *l, const struct zk_ledger_job *j, const char *state_dir,
                    int explicit_out, char *msg, size_t n);

#endif /* ZK_TOOLS_SUBMIT_CORE_H */
