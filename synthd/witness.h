/*
 * witness.h -- synthd's witness stage: a partition's witness into its slot.
 *
 * A partition is a .wtns file (read straight into the slot) or a circuit
 * input stored in the ledger, from which the key's witness generator makes
 * the witness while the worker holds the slot (zk/witgen.h): the input is
 * written to a private directory under [synthd] witness_dir (tmpfs), the
 * generator writes the .wtns beside it, and both files are removed as soon
 * as the witness is in the slot.  So at most one witness per worker exists
 * outside the pool, on tmpfs, and `zkslot plan` counts it.  A bellperson
 * key's generator streams its .bpa straight into the slot instead
 * (synthd_witness_generate_into): no copy outside the pool.
 *
 * The generator is checked before each run against the content hash
 * recorded at `zkslot key add` (cheap when its files' size, mtime and inode
 * have not moved); a changed generator fails the partition.
 *
 * Every witness is checked against the key (curve prime, nVars, every
 * value < r) before synthd computes a, b, c from it.
 */
#ifndef ZK_SYNTHD_WITNESS_H
#define ZK_SYNTHD_WITNESS_H

#include "zk/config.h"
#include "zk/ledger.h"
#include "zk/pool.h"
#include "zk/proc.h"
#include "zk/witgen.h"
#include "zk/zkey.h"

/* Where a generator's files were when its hash was last checked. */
struct synthd_witgen_seen {
    int checked;                      /* the hash matched at least once */
    struct { uint64_t dev, ino, size; int64_t mtime_ns; } f[3];
};

/*
 * Makes this process's private directory
 * <witness_dir>/zkslot-synthd-<pool tag>-<pid>-<start>-XXXXXX with mkdtemp
 * (created exclusively, mode 0700, a name no other user can guess: nothing
 * planted in witness_dir is ever used), refusing a witness_dir owned by
 * another user than synthd's or root, or that its group or others may
 * write without the sticky bit; removes the directories of dead synthds
 * of the same pool there (only those owned by this user with mode 0700:
 * anything else named like one is left alone and counted in one log line),
 * and kills what their generators left running (zk_witgen_sweep; owners are
 * "synthd:<pool tag>:<pid>:<start>", the tag a hash of the pool's path).
 * Logs what it really removed.  0 or -errno (logged).
 */
int synthd_witness_setup(const struct zk_config *cfg, const struct zk_proc_id *me);

/*
 * The periodic part of setup: kills the leftovers of dead synthds'
 * generators; returns how many.  One pass can miss a process: one in the
 * middle of an execve() shows an empty environment, and one that forked
 * between the scan and the kill leaves its child behind.  Callers run it
 * again soon after start and after any pass that killed something.
 */
unsigned synthd_witness_sweep(void);

/* Removes this process's directory. */
void synthd_witness_teardown(void);

struct synthd_witness_out {
    double witness_s;                 /* the generator's run; -1 for a .wtns */
    int permanent;                    /* the failure is the input's (or the
                                         key's): retrying cannot help */
    int not_here;                     /* its generator is not allowed on this
                                         machine: not the partition's fault */
    char error[512];                  /* on failure: the cause and the
                                         generator's own message */
};

/* out->error, truncated to fit (messages end with a generator's output,
 * whose end matters less than the cause in front of it). */
void synthd_witness_error(struct synthd_witness_out *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Partition p's witness (n_vars values, plain form) into dst, checked
 * against the key header kh.  lk is the partition's key as registered
 * (its generator) and seen the cache of its generator's check.  Returns 0,
 * ZK_ECANCELED when cancel became set, or an error with out->error.
 */
int synthd_witness_fill(zk_ledger *l, const struct zk_ledger_part *p,
                        const struct zk_ledger_key *lk, struct synthd_witgen_seen *seen,
                        const struct zk_zkey_header *kh, void *dst,
                        const zk_cancel_flag *cancel, struct synthd_witness_out *out);

/*
 * Runs key lk's generator on partition p's stored input (written to this
 * process's directory, removed after the run), its output file named
 * <input>ext there, into path (path_n bytes).  The generator's content is
 * checked first (seen caches it).  0 with the file at path (the caller
 * reads and removes it), ZK_ECANCELED, or an error with out->error (and
 * out->permanent, out->not_here) and no file left.
 */
int synthd_witness_generate(zk_ledger *l, const struct zk_ledger_part *p,
                            const struct zk_ledger_key *lk, struct synthd_witgen_seen *seen,
                            const char *ext, const zk_cancel_flag *cancel, char *path,
                            size_t path_n, struct synthd_witness_out *out);

/*
 * The same run with the output streamed into dst (cap bytes: the slot's
 * room) as the generator writes it (zk_witgen_run_into), never a file: a
 * bellperson key's generator (a Filecoin synthesizer) writes its .bpa
 * this way, gigabytes that exist once, in the slot.  *len = the bytes that
 * came.  An output longer than cap is ZK_ELENGTH, permanent (the same
 * input makes the same output).
 */
int synthd_witness_generate_into(zk_ledger *l, const struct zk_ledger_part *p,
                                 const struct zk_ledger_key *lk, struct synthd_witgen_seen *seen,
                                 const zk_cancel_flag *cancel, uint8_t *dst, uint64_t cap,
                                 uint64_t *len, struct synthd_witness_out *out);

#endif /* ZK_SYNTHD_WITNESS_H */
