/*
 * keylocal.h -- the local file of a registered key (both daemons).
 *
 * On a ledger shared by several machines a key is registered once (path,
 * size, XXH3-128, identity: zk/keyfile.h), and each machine looks for the
 * file in two places, in this order: the registered path, then
 * `[keys] dir` + the registered file's basename (keys_dir "" = the
 * registered path only).  A candidate is this machine's file of the key
 * when its identity (device, inode, size, mtime) is the registered one, or
 * when its content hashes to the registered hash.
 *
 * Hashing a key takes seconds (a key is GBs), so each verdict is cached by
 * (path, st_dev, st_ino, st_size, st_mtime ns), process-wide: an unchanged
 * file is never hashed again, a changed one (another identity) is.
 *
 * zkd_key_local_find never blocks on a hash: a candidate not hashed yet is
 * handed to one background thread of this process (started on first use)
 * and reported as being hashed; synthd's claims ask it every 2 s.
 * zkd_key_local_check hashes in the caller when the cache has no verdict:
 * the key loads of both daemons (keycache.h's load callbacks) use it, so
 * gpud loads the same file that synthd's claims matched.
 */
#ifndef ZK_DAEMON_KEYLOCAL_H
#define ZK_DAEMON_KEYLOCAL_H

#include <stddef.h>

#include "zk/binfile.h"
#include "zk/ledger.h"

/* What zkd_key_local_find says about one key. */
enum { ZKD_KEY_LOCAL_NONE = -1, ZKD_KEY_LOCAL_HASHING = 0, ZKD_KEY_LOCAL_FOUND = 1 };

struct zkd_key_local {
    char path[4096];        /* FOUND: the file */
    const char *reason;     /* else, short (STATUS): "no file", "size differs",
                               "hash differs", "unreadable", "hashing" */
    char detail[1024];      /* else, one line for the log: each candidate and why */
};

/*
 * Which of lk's candidates is this machine's file of the key, without
 * waiting for a hash: ZKD_KEY_LOCAL_FOUND (ret->path), ZKD_KEY_LOCAL_HASHING
 * (a candidate is being hashed; ask again later) or ZKD_KEY_LOCAL_NONE
 * (ret->reason, ret->detail).  The first time a candidate needs a hash it
 * logs "key K: hashing PATH (N MiB) to check it is the registered key".
 * Cannot fail otherwise (out of memory reads as HASHING, tried again).
 */
int zkd_key_local_find(const char *keys_dir, const struct zk_ledger_key *lk,
                       struct zkd_key_local *ret);

/*
 * For a key about to be loaded: 0 with lk->path (and the file_* identity)
 * set to this machine's file of the key, checked against the registration
 * (zk_keyfile_check, which hashes it here unless the cache has a verdict
 * for its identity).  Else the error, with diag: zk_keyfile_check's for
 * the first candidate that exists (the registered path's when none does);
 * lk is then unchanged.
 */
int zkd_key_local_check(const char *keys_dir, struct zk_ledger_key *lk, struct zk_diag *diag);

#endif /* ZK_DAEMON_KEYLOCAL_H */
