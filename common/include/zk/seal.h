/*
 * seal.h -- circuit inputs sealed to the daemons (docs/architecture.md,
 * "Confidentiality").
 *
 * The daemons of a ledger keep one X25519 key pair in their state
 * directory: ZK_SEAL_PRIV (0600, the daemons' user) and ZK_SEAL_PUB (0644,
 * the same owner).  A submitter seals each stored input (a circuit input,
 * or a .wtns stored in a shared ledger) to the public key with libsodium's
 * sealed box (an ephemeral X25519 key, XSalsa20-Poly1305): whoever reads
 * the ledger without the private key sees ciphertext.  The sealed
 * plaintext starts with the job id and partition index it was sealed for,
 * so synthd opens it only as that very partition: a ciphertext pasted into
 * another job is refused, never opened for its submitter.
 *
 * Blob layout (stored in partitions.input):
 *   "zkseal1\n" | key id (8 bytes: the public key's first 8) |
 *   crypto_box_seal( job id (8, little endian) | index (4, LE) | input )
 */
#ifndef ZK_SEAL_H
#define ZK_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"

#define ZK_SEAL_PUB "input-seal.pub"    /* in the state directory */
#define ZK_SEAL_PRIV "input-seal.key"
#define ZK_SEAL_MAGIC "zkseal1\n"
#define ZK_SEAL_OVERHEAD (8u + 8u + 48u + 12u)   /* blob bytes beyond the input */

struct zk_seal_pub {
    uint8_t pk[32];
};
struct zk_seal_pair {
    uint8_t pk[32];
    uint8_t sk[32];
};

/*
 * Makes the key pair in state_dir when ZK_SEAL_PRIV is absent: both files
 * created exclusively (never one found there), the private one 0600; when
 * the caller is root they are given to state_dir's owner (the daemons'
 * user).  1 made, 0 there already, or an error.
 */
int zk_seal_make(const char *state_dir, struct zk_diag *diag);
/*
 * The public key of state_dir, trusted only when it is a regular file (no
 * link) owned by state_dir's owner or root and writable by no one else: a
 * file another member of the group planted there is refused.  -ENOENT when
 * there is none.
 */
int zk_seal_pub_load(const char *state_dir, struct zk_seal_pub *ret, struct zk_diag *diag);
/* The pair of state_dir for the daemons: the private key must be the
 * caller's own (effective uid), 0600 or stricter.  -ENOENT when absent. */
int zk_seal_pair_load(const char *state_dir, struct zk_seal_pair *ret, struct zk_diag *diag);

/* 1 when blob is a sealed input (starts with ZK_SEAL_MAGIC), else 0. */
int zk_seal_is_sealed(const void *blob, size_t len);
/* Seals in (len bytes) for partition idx of job job_id: *ret (malloc'd,
 * NUL-terminated after *ret_len bytes).  0 or -ENOMEM/-EFBIG. */
int zk_seal(const struct zk_seal_pub *k, int64_t job_id, uint32_t idx, const void *in,
            size_t len, char **ret, size_t *ret_len);
/*
 * Opens a sealed blob as partition idx of job job_id: the input into *ret
 * (malloc'd, NUL-terminated after *ret_len bytes).  -ENOKEY when it is
 * sealed to another key pair (both key ids named), -EKEYREJECTED when it
 * does not open (altered, truncated), -EACCES when it was sealed for
 * another partition (one line naming both).
 */
int zk_seal_open(const struct zk_seal_pair *k, int64_t job_id, uint32_t idx, const void *blob,
                 size_t len, char **ret, size_t *ret_len, struct zk_diag *diag);

/*
 * What a submit to the ledger of state_dir does with its inputs: 1 seal
 * them to *ret; 0 store them in clear (a shared ledger, shared != 0,
 * without the farm's public key here: the database's roles then keep them
 * from submitters and readers); or an error (one line, nothing may be
 * submitted).  On SQLite a missing pair is made when the caller is root
 * or state_dir's owner (the daemons' user), else -ENOENT saying to start
 * zkslot-synthd once (it makes the pair).
 */
int zk_seal_for_submit(const char *state_dir, int shared, struct zk_seal_pub *ret,
                       struct zk_diag *diag);
/* zk_ledger_submit_opts.seal with ctx a struct zk_seal_pub *. */
int zk_seal_submit_cb(void *ctx, int64_t job_id, uint32_t idx, const char *in, size_t len,
                      char **ret, size_t *ret_len);

#endif
