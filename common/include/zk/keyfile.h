/*
 * keyfile.h -- a registered key's file checked against its registration.
 *
 * `zkslot key add` records a .zkey's path, curve, sizes, XXH3-128 and the
 * file's identity (device, inode, size, mtime).  Whoever loads the key later
 * (`zkslot submit`, synthd, gpud) checks the file first: when its identity
 * is the recorded one the content is taken as unchanged (the cheap path);
 * otherwise its header (curve, nVars, nPublic, domain) and its hash are
 * compared with the registration.  A replaced file is refused with one line
 * naming the file, what changed and how to register it again, so that no
 * proof is made with a key other than the registered one.  A key
 * registered before identities were recorded (file_mtime_ns 0) gets the
 * header check only.
 */
#ifndef ZK_COMMON_KEYFILE_H
#define ZK_COMMON_KEYFILE_H

#include <stdint.h>

#include "zk/binfile.h"
#include "zk/ledger.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The identity of path into lk's file_* fields (at registration).  -errno. */
int zk_keyfile_stat(const char *path, struct zk_ledger_key *lk);

/*
 * 0 when lk->path is still the registered file; ZK_ECURVE_MISMATCH,
 * ZK_ELENGTH or ZK_ECHECKSUM (or -errno) with diag otherwise.  When the
 * content had to be hashed and matched, *ret_hashed (may be NULL) = 1.
 */
int zk_keyfile_check(const struct zk_ledger_key *lk, int *ret_hashed, struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_KEYFILE_H */
