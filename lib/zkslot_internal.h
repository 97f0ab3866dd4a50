/*
 * zkslot_internal.h -- what libzkslot's files share (private to lib/).
 *
 * The handle behind zkslot.h's `zkslot`: the configuration the CLI would
 * use and one ledger handle; the message helper every call ends with.
 */
#ifndef ZK_LIB_ZKSLOT_INTERNAL_H
#define ZK_LIB_ZKSLOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "zk/config.h"
#include "zk/ledger.h"
#include "zkslot.h"

#define ZKSLOT_EXPORT __attribute__((visibility("default")))

struct zkslot {
    struct zk_config cfg;
    char ledger_path[2048];
    zk_ledger *l;
    zkslot_producer *producer;     /* the one attached through this handle, or NULL */
};

/* One line into msg (n bytes; msg may be NULL); returns code. */
int zkslot_say(char *msg, size_t n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The key `name` as a job for it must find it (tools/zkslot/lib/submit_core). */
int zkslot_key_for_job(zkslot *z, const char *name, int input, struct zk_ledger_key *ret,
                       char *msg, size_t n);

/*
 * A job's output directory `dir` as the caller names it (NULL or "" = the
 * ledger's default: *ret NULL): made (mode 02770, the state directory's
 * group, as `zkslot submit --out`), canonical into *ret (malloc'd), and
 * writable by the caller with its partition directories (submit_core.h).
 */
int zkslot_out_dir(zkslot *z, const char *dir, uint32_t nparts, char **ret, char *msg,
                   size_t n);

/*
 * The admission of o's deadline for a job of nparts partitions of key k
 * (submit_admit, as the CLI's): 0 when there is none, it is forced
 * (ZKSLOT_SUBMIT_FORCE) or it can be met; ZK_EDEADLINE or the ledger's
 * error with msg.  Unknown flags are ZK_EBADPARAMS.
 */
int zkslot_admit(zkslot *z, const struct zkslot_submit_opts *o, const struct zk_ledger_key *k,
                 uint32_t nparts, char *msg, size_t n);

#endif /* ZK_LIB_ZKSLOT_INTERNAL_H */
