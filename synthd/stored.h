/*
 * stored.h -- a witness job's .wtns kept in the ledger: on a shared
 * (PostgreSQL) ledger `zkslot submit` stores each witness like a circuit
 * input (at most ZK_LEDGER_INPUT_MAX bytes), so that the proving machine
 * never needs the client's file.  synthd reads it from there.
 */
#ifndef ZK_SYNTHD_STORED_H
#define ZK_SYNTHD_STORED_H

#include "witness.h"

/*
 * When partition p's stored blob is a .wtns (named *.wtns at submit, and
 * starting with the wtns magic), its values (n_vars, plain form) into dst,
 * checked against kh: 0, or an error with out->error.  1 when p has no
 * stored witness (no blob, or a circuit input): the caller goes on with
 * synthd_witness_fill.  out->witness_s is -1 (no generator ran).
 */
int synthd_stored_wtns(zk_ledger *l, const struct zk_ledger_part *p,
                       const struct zk_zkey_header *kh, void *dst,
                       struct synthd_witness_out *out);

#endif /* ZK_SYNTHD_STORED_H */
