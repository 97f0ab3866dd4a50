/*
 * private.c -- the SQLite ledger is the daemons' alone (zk_ledger_sqlite_
 * private, docs/ledger.md, "Who writes the ledger"): the file, its -wal
 * and its -shm are mode 0600, of the daemons' user.  Operators reach the
 * ledger through zkslot-apid's socket, never by opening it: a member of
 * the daemons' group who could write the file could write any row (copy
 * another job's proofs onto his, put his own sealed input into another
 * user's partition).
 *
 * A ledger made by an older zkslot is 0660 (group zkslot); each daemon
 * runs this at start, before it opens the ledger, and makes it 0600.  Its
 * -wal and -shm exist only while the ledger is open (or after a kill); an
 * operator's process may have made them (they are then that operator's,
 * and the daemons cannot change their mode): the ledger is then opened and
 * closed once here, with a TRUNCATE checkpoint, so that SQLite, the last
 * to close it, removes them, and the daemons' next open makes them anew,
 * theirs.  When another process still has them open they stay, and the
 * daemon refuses to start, naming the file and its owner.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/ledger.h"

#define LEDGER_PRIVATE_MODE 0600

static const char *const sides[] = { "", "-wal", "-shm" };

/* The ledger opened and closed once, a TRUNCATE checkpoint between. */
static void checkpoint_close(const char *file)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) ==
        SQLITE_OK) {
        sqlite3_busy_timeout(db, 2000);
        sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
    }
    sqlite3_close(db);
}

int zk_ledger_sqlite_private(const char *file, char *msg, size_t n)
{
    char path[4200];
    struct stat st, ls;
    unsigned old = 0;
    int changed = 0;
    msg[0] = 0;
    if (lstat(file, &ls) != 0 || !S_ISREG(ls.st_mode))
        return 0;   /* none yet (made 0600), or not a file (the open refuses it) */
    if (geteuid() != 0 && geteuid() != ls.st_uid)
        return 0;   /* another user's: the open says whose (zk_ledger_sqlite_access) */
    for (int pass = 0; pass < 2; pass++) {   /* another user's -wal/-shm: closed, then again */
        int foreign = 0;
        char which[4200];
        long uid = 0;
        for (unsigned i = 1; i < 3; i++) {
            snprintf(path, sizeof path, "%s%s", file, sides[i]);
            if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid != ls.st_uid) {
                foreign = 1;
                uid = (long)st.st_uid;
                memcpy(which, path, sizeof which);
            }
        }
        if (!foreign)
            break;
        if (pass == 1) {
            snprintf(msg, n, "%s: uid %ld's, not the ledger's owner's (made by a process "
                     "that opened the ledger before it was the daemons' alone) and still "
                     "open: stop the processes that have %s open (fuser), then start again",
                     which, uid, file);
            return -EBUSY;
        }
        checkpoint_close(file);
        changed = 1;
    }
    for (unsigned i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s%s", file, sides[i]);
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
            (st.st_mode & 07777) == LEDGER_PRIVATE_MODE)
            continue;
        if (i == 0)
            old = (unsigned)(st.st_mode & 07777);
        if (chmod(path, LEDGER_PRIVATE_MODE) != 0) {
            int e = errno;
            snprintf(msg, n, "%s: cannot make it mode 0600: %s", path, strerror(e));
            return -e;
        }
        changed = 1;
    }
    if (changed)
        snprintf(msg, n, "ledger %s: mode %04o -> 0600 (and its -wal, -shm): written only by "
                 "the daemons from now on; operators go through zkslot-apid's socket", file,
                 old ? old : (unsigned)(ls.st_mode & 07777));
    return changed;
}
