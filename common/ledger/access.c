/*
 * access.c -- why an SQLite ledger cannot be written by this process
 * (zk_ledger_sqlite_access): SQLite itself says only "unable to open
 * database file" or "attempt to write a readonly database" when the file,
 * or its directory (for -wal and -shm), is not this user's to write; the
 * daemons and the CLI say whose it is instead.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/ledger.h"

const char *zk_ledger_sqlite_access(const char *file, const char *dir, const char *who,
                                    char *buf, size_t n)
{
    struct stat st;
    const char *what = access(file, R_OK | W_OK) && !access(file, F_OK) ? file
                       : access(dir, W_OK | X_OK)                     ? dir
                                                                      : NULL;
    if (!what || stat(what, &st))
        return NULL;
    /* the _r forms: a daemon's workers open their own ledger handles */
    struct passwd pwb, *pw = NULL;
    struct group grb, *gr = NULL;
    char pbuf[1024], gbuf[1024];
    getpwuid_r(st.st_uid, &pwb, pbuf, sizeof pbuf, &pw);
    getgrgid_r(st.st_gid, &grb, gbuf, sizeof gbuf, &gr);
    snprintf(buf, n, "not writable by %s (uid %d): owner %s:%s, mode %04o", who, (int)geteuid(),
             pw ? pw->pw_name : "?", gr ? gr->gr_name : "?", (unsigned)(st.st_mode & 07777));
    return what;
}
