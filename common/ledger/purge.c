/*
 * purge.c -- an ended job's circuit inputs leave the ledger
 * (zk_ledger_purge_inputs, zk/ledger.h): the public function, and the
 * SQLite backend's operation (pg/purge.c: PostgreSQL's).
 *
 * A job's inputs are its private values in clear; once the job has ended
 * (done, failed or canceled: nothing synthesizes its partitions again)
 * and [ledger] keep_inputs has passed, each input is replaced by an empty
 * one (the partition still says it came from an input; its results stay).
 * On SQLite the bytes must also leave the files:
 *   - secure_delete for the update: the old cells and overflow pages are
 *     overwritten with zeros, not left in free space;
 *   - auto_vacuum INCREMENTAL (set, with one VACUUM, the first time a
 *     ledger made without it purges anything) and incremental_vacuum:
 *     the freed pages are given back to the file system;
 *   - wal_checkpoint(TRUNCATE): the write-ahead log, which holds the
 *     frames written at submit, is emptied.  When a reader keeps it busy,
 *     the next pass tries again.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"

int zk_ledger_purge_inputs(zk_ledger *l, unsigned keep_s, uint32_t *ret_n,
                           struct zk_diag *diag)
{
    uint32_t n = 0;
    int r = 0;
    if (l->ops->purge_inputs)
        r = l->ops->purge_inputs(l, zk_ledger_now_ns(l) - (int64_t)keep_s * 1000000000, &n,
                                 diag);
    if (ret_n)
        *ret_n = n;
    return r;
}

/* A log checkpoint that could not empty the WAL, to try again (one ledger
 * file per process in the daemons). */
static atomic_int wal_pending;

/* sqlite3_exec callback: the first column of the last row as a number. */
static int first_int(void *ctx, int n, char **v, char **names)
{
    (void)names;
    *(int64_t *)ctx = n > 0 && v[0] ? strtoll(v[0], NULL, 10) : 0;
    return 0;
}

static int pragma_value(zk_ledger *l, const char *q, int64_t *ret, struct zk_diag *diag)
{
    return sqlite3_exec(l->db, q, first_int, ret, NULL) == SQLITE_OK ? 0 : ledger_dberr(l, diag);
}

/* The space of what was purged back to the file system, the WAL emptied. */
static int give_back(zk_ledger *l, struct zk_diag *diag)
{
    int64_t av = 0, busy = 0;
    /* a cached statement left on a row would make VACUUM fail ("SQL
     * statements in progress"); none is in use during this call */
    for (sqlite3_stmt *s = sqlite3_next_stmt(l->db, NULL); s; s = sqlite3_next_stmt(l->db, s))
        if (sqlite3_stmt_busy(s))
            sqlite3_reset(s);
    int r = pragma_value(l, "PRAGMA auto_vacuum", &av, diag);
    if (!r && av != 2)      /* NONE or FULL: INCREMENTAL takes a VACUUM, once */
        r = ledger_exec(l, "PRAGMA auto_vacuum = INCREMENTAL; VACUUM", diag);
    else if (!r)
        r = ledger_exec(l, "PRAGMA incremental_vacuum", diag);
    if (!r)
        r = pragma_value(l, "PRAGMA wal_checkpoint(TRUNCATE)", &busy, diag);
    atomic_store(&wal_pending, r || busy);
    return r;
}

/* The partitions to empty: those with an input, of jobs that ended at or
 * before ?1.  Used as "SELECT EXISTS (...)" without the write lock first,
 * so that a pass with nothing to do takes no lock. */
#define PURGE_WHERE                                                                 \
    " WHERE length(input) > 0 AND job_id IN"                                      \
    " (SELECT id FROM jobs WHERE state IN ('done', 'failed', 'canceled')"         \
    " AND finished_ns <= ?1)"

/* Runs sql with ?1 = before_ns: the number it selects, or the rows it
 * changed; < 0 an error. */
static int run_bound(zk_ledger *l, const char *sql, int64_t before_ns, struct zk_diag *diag)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(l->db, sql, -1, &s, NULL) != SQLITE_OK)
        return ledger_dberr(l, diag);
    sqlite3_bind_int64(s, 1, before_ns);
    int r = ledger_step(l, s, diag);
    if (r > 0)
        r = sqlite3_column_int(s, 0);
    else if (r == 0)
        r = sqlite3_changes(l->db);
    sqlite3_finalize(s);
    return r;
}

int lsq_purge_inputs(zk_ledger *l, int64_t before_ns, uint32_t *ret_n, struct zk_diag *diag)
{
    int r = run_bound(l, "SELECT EXISTS (SELECT 1 FROM partitions" PURGE_WHERE ")", before_ns,
                      diag);
    if (r <= 0)
        return r < 0 ? r : atomic_load(&wal_pending) ? give_back(l, diag) : 0;
    if (!(r = ledger_exec(l, "PRAGMA secure_delete = ON", diag)) && !(r = ledger_begin(l, diag)))
        r = run_bound(l, "UPDATE partitions SET input = X''" PURGE_WHERE, before_ns, diag);
    int n = r > 0 ? r : 0;
    r = ledger_end(l, r < 0 ? r : 0, diag);
    sqlite3_exec(l->db, "PRAGMA secure_delete = OFF", NULL, NULL, NULL);
    if (r)
        return r;
    *ret_n = (uint32_t)n;
    return n || atomic_load(&wal_pending) ? give_back(l, diag) : 0;
}
