/*
 * statement.h -- what binds a partition's result to its job.
 *
 * A partition's statement is the key it is proved with and its public
 * signals.  synthd records it in the ledger when the partition is
 * synthesized (zk_ledger_part_ready_stmt), from the witness it wrote into
 * the slot, as one digest:
 *
 *   "s1:" hex(SHA-256("zkslot statement 1\n" || key hash (32 hex chars) ||
 *                     "\n" || n (u32, little-endian) || n public signals
 *                     (32 bytes each, little-endian, as in the witness)))
 *
 * Whoever hands a result out (`zkslot result`, apid) checks it with
 * zk_result_check before: the public.json of the result must give the
 * recorded digest, and the proof must verify against the key's
 * verification key for those signals.  A result row rewritten (the proof
 * of another statement, a public.json edited, a proof that does not
 * verify) is then refused, naming what differs.  A partition synthesized
 * by a zkslot that recorded no statement has "" (checked by proof only).
 */
#ifndef ZK_COMMON_STATEMENT_H
#define ZK_COMMON_STATEMENT_H

#include <stddef.h>

#include "zk/error.h"
#include "zk/bellperson.h"
#include "zk/groth16.h"
#include "zk/ledger.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZK_STATEMENT_LEN 68           /* "s1:" + 64 hex digits + NUL */

/* The statement digest of key_hash (a zk_ledger_key's hash) and the n
 * public signals pub into out. */
void zk_statement(const char *key_hash, const zk_scalar *pub, size_t n,
                  char out[ZK_STATEMENT_LEN]);

/*
 * Checks a result (proof.json and public.json texts, NUL-terminated) of
 * partition p, proved with key k, against p's statement:
 *   - public.json parses, has k's n_public values, and gives p->statement
 *     (when one was recorded);
 *   - when `vk` is not NULL: the proof parses and verifies for them.
 * 0 when it holds; ZK_ESTATEMENT with diag naming the partition and what
 * differs; ZK_EJSON, -ENOMEM otherwise.
 */
int zk_result_check(const struct zk_ledger_key *k, const struct zk_ledger_part *p,
                    const struct zk_groth16_vk *vk, const char *proof, const char *pub,
                    struct zk_diag *diag);

/*
 * The verification key of registered key k from its file on this machine,
 * checked to be the registered file (zk_keyfile_check).  0, or an error
 * with diag (the file not here, replaced, unreadable): the caller then
 * checks results by their statement alone and says so.
 */
int zk_result_vk(const struct zk_ledger_key *k, struct zk_groth16_vk *vk, struct zk_diag *diag);

/*
 * zk_result_check for a bellperson key's partition: its proof is 384 hex
 * digits (the 192 bytes, a newline after them allowed), verified with vk
 * (when not NULL) by zk_bp_verify for public.json's values.
 */
int zk_result_check_bp(const struct zk_ledger_key *k, const struct zk_ledger_part *p,
                       const zk_bp_vk *vk, const char *proof, const char *pub,
                       struct zk_diag *diag);

/*
 * The bellperson key k on this machine, for its verifying key
 * (zk_bp_key_vk): over its store beside the pool at pool_path when one is
 * resident (no parameter file read), else from its file, checked to be
 * the registered one.  0 (close with zk_bp_key_close), or an error with
 * diag: the caller then checks results by their statement alone.
 */
int zk_result_key_bp(const struct zk_ledger_key *k, const char *pool_path, zk_bp_key **ret,
                     struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_STATEMENT_H */
