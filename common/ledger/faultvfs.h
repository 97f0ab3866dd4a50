/*
 * faultvfs.h -- the ledger's I/O fault injection for tests (faultvfs.c).
 */
#ifndef ZK_COMMON_LEDGER_FAULTVFS_H
#define ZK_COMMON_LEDGER_FAULTVFS_H

/* The VFS to open the ledger with: NULL (SQLite's default) unless
 * $ZKSLOT_TEST_LEDGER_EIO names a trigger file; thread-safe. */
const char *ledger_fault_vfs(void);

#endif /* ZK_COMMON_LEDGER_FAULTVFS_H */
