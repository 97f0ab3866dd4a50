/*
 * bpa.h -- synthd's stage for a bellperson key's partition: its .bpa (the
 * assignment bellperson's synthesis made, docs/bellperson.md) copied into
 * the slot as it is, and checked against the key there
 * (zk/slotfmt.h, ZK_SLOTFMT_BELLPERSON).
 */
#ifndef ZK_SYNTHD_BPA_H
#define ZK_SYNTHD_BPA_H

#include <stdint.h>

#include "witness.h"

/*
 * The .bpa at path (a submitter's file, or what the key's generator wrote
 * in synthd's own directory; opened following no link, never waited on)
 * into dst, which holds cap bytes; its
 * length into *len; the assignment checked (zk_bp_assignment_parse) and
 * its counts against key lk (inputs n_public + 1, aux n_vars - inputs,
 * constraints within the domain).  0, or an error with out->error (and
 * out->permanent when the file itself is wrong).
 */
int synthd_bpa_fill(const char *path, const struct zk_ledger_key *lk, uint8_t *dst, uint64_t cap,
                    uint64_t *len, struct synthd_witness_out *out);

/*
 * A .bpa already in memory (len bytes at bpa: what a generator streamed
 * into the slot), checked as synthd_bpa_fill checks a file; `what` names
 * it in the error.
 */
int synthd_bpa_check(const uint8_t *bpa, uint64_t len, const char *what,
                     const struct zk_ledger_key *lk, struct synthd_witness_out *out);

#endif /* ZK_SYNTHD_BPA_H */
