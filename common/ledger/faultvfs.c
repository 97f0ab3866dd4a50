/*
 * faultvfs.c -- I/O errors on demand for the ledger's fault tests.
 *
 * Contract: ledger_fault_vfs() is NULL unless $ZKSLOT_TEST_LEDGER_EIO names
 * a file; then it is the name of an SQLite VFS ("zkslot-fault") that wraps
 * the default one and, while that file exists, fails every write, sync and
 * truncate of a database file with SQLITE_IOERR (reads, locks and the WAL
 * index stay real).  The ledger opens its database through it, so a test
 * can turn the disk "bad" and "good" again under running daemons (and see
 * that no partition is stuck and none done twice).  The lookup of the file
 * is one stat per write: test use only, never set in production.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "ledger/faultvfs.h"
#include "util/testhook.h"

struct fault_file {
    sqlite3_file base;            /* must be first: SQLite's view */
    sqlite3_file *real;           /* the wrapped file, right after this struct */
};

static sqlite3_vfs fault_vfs;
static sqlite3_vfs *real_vfs;
static const char *trigger;

static int faulty(void)
{
    struct stat st;
    return stat(trigger, &st) == 0;
}

#define REAL(f) (((struct fault_file *)(f))->real)

static int f_close(sqlite3_file *f)
{
    return REAL(f)->pMethods->xClose(REAL(f));
}
static int f_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
    return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}
static int f_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
    return faulty() ? SQLITE_IOERR_WRITE : REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}
static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    return faulty() ? SQLITE_IOERR_TRUNCATE : REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int f_sync(sqlite3_file *f, int flags)
{
    return faulty() ? SQLITE_IOERR_FSYNC : REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int f_size(sqlite3_file *f, sqlite3_int64 *ret)
{
    return REAL(f)->pMethods->xFileSize(REAL(f), ret);
}
static int f_lock(sqlite3_file *f, int l)
{
    return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int f_unlock(sqlite3_file *f, int l)
{
    return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int f_check(sqlite3_file *f, int *ret)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), ret);
}
static int f_control(sqlite3_file *f, int op, void *arg)
{
    return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}
static int f_sector(sqlite3_file *f)
{
    return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int f_caps(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int f_shm_map(sqlite3_file *f, int pg, int sz, int extend, void volatile **ret)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, extend, ret);
}
static int f_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
    return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void f_shm_barrier(sqlite3_file *f)
{
    REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int f_shm_unmap(sqlite3_file *f, int del)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

/* Version 2 methods (WAL needs the shm ones); no memory-mapped I/O. */
static const sqlite3_io_methods fault_methods = {
    2, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock, f_unlock, f_check,
    f_control, f_sector, f_caps, f_shm_map, f_shm_lock, f_shm_barrier, f_shm_unmap,
    NULL, NULL,
};

static int f_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags,
                  int *ret_flags)
{
    struct fault_file *ff = (struct fault_file *)file;
    (void)vfs;
    ff->real = (sqlite3_file *)(ff + 1);
    int r = real_vfs->xOpen(real_vfs, name, ff->real, flags, ret_flags);
    /* pMethods NULL: SQLite does not close a file whose open failed */
    file->pMethods = r == SQLITE_OK && ff->real->pMethods ? &fault_methods : NULL;
    return r;
}

static const char *fault_name;
static pthread_once_t fault_once = PTHREAD_ONCE_INIT;

static void fault_register(void)
{
    if (!(trigger = zk_test_hook("ZKSLOT_TEST_LEDGER_EIO")) || !*trigger ||
        !(real_vfs = sqlite3_vfs_find(NULL)))
        return;
    fault_vfs = *real_vfs;   /* everything but open passes through */
    fault_vfs.iVersion = real_vfs->iVersion < 3 ? real_vfs->iVersion : 3;
    fault_vfs.szOsFile = (int)sizeof(struct fault_file) + real_vfs->szOsFile;
    fault_vfs.pNext = NULL;
    fault_vfs.zName = "zkslot-fault";
    fault_vfs.xOpen = f_open;
    if (sqlite3_vfs_register(&fault_vfs, 0) == SQLITE_OK)
        fault_name = fault_vfs.zName;
}

const char *ledger_fault_vfs(void)
{
    pthread_once(&fault_once, fault_register);
    return fault_name;
}
