/*
 * sealed.h -- synthd's side of inputs sealed to the daemons (zk/seal.h):
 * the key pair, made and loaded at start, and every stored input read
 * through it.
 */
#ifndef ZK_SYNTHD_SEALED_H
#define ZK_SYNTHD_SEALED_H

#include "witness.h"

/*
 * At start: on SQLite (shared == 0) makes the key pair in the state
 * directory when there is none (the first synthd makes it; the CLI finds
 * the public key there), then loads it.  On a shared ledger only loads it:
 * a farm's machines share one pair, made once with `zkslot seal-key` and
 * copied to each (docs/operations.md), never one of their own.  Failures
 * are logged: sealed inputs then fail here, saying why.
 */
void synthd_sealed_setup(const struct zk_config *cfg, int shared);
/*
 * The stored input of partition p into *ret (malloc'd, NUL-terminated)
 * and *ret_len: opened when it is sealed, as p itself (its job id and
 * index).  0, or an error in out->error prefixed with what ("reading the
 * input"); out->permanent when the blob can never open here as p (sealed
 * for another partition, altered).
 */
int synthd_part_input(zk_ledger *l, const struct zk_ledger_part *p, const char *what,
                      char **ret, size_t *ret_len, struct synthd_witness_out *out);

#endif /* ZK_SYNTHD_SEALED_H */
