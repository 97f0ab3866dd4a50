/*
 * ledger_internal.h -- what the ledger's files share (private to common/ledger/).
 *
 * The handle (struct zk_ledger), its cache of prepared statements and the
 * small SQLite helpers every file uses.  A cached statement is named by an
 * enum ledger_stmt_id and its SQL text lives next to the one function that
 * binds it; ledger_stmt() prepares it once per handle
 * (SQLITE_PREPARE_PERSISTENT) the first time that function runs.
 *
 * The files: schema.c (migrations, open, close), db.c (these helpers),
 * states.c (state names), keys.c, jobs.c (submit, cancel, the job state
 * derived from its partitions), parts.c (partition reads and transitions),
 * reconcile.c, stats.c (counts, totals, daemon starts).
 */
#ifndef ZK_LEDGER_INTERNAL_H
#define ZK_LEDGER_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "zk/ledger.h"

/* One id per cached statement; each is used by one function (its SQL next to it). */
enum ledger_stmt_id {
    LS_KEY_ADD,
    LS_KEY_BY_NAME,
    LS_KEY_BY_ID,
    LS_JOB_INSERT,
    LS_JOB_SET_OUT,
    LS_PART_INSERT,
    LS_JOB_GET,
    LS_JOB_COUNTS,
    LS_PART_GET,
    LS_HAS_QUEUED,
    LS_OLDEST_QUEUED,
    LS_CLAIM,
    LS_READY,
    LS_PROVING,
    LS_DONE,
    LS_DONE_AGAIN,
    LS_ERROR_QUEUE,
    LS_ERROR_FAIL,
    LS_REQUEUE,
    LS_JOB_STATE,
    LS_JOB_SET_STATE,
    LS_JOB_CANCEL_PARTS,
    LS_JOB_FAILED_ERR,
    LS_COUNT
};

struct zk_ledger {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *st[LS_COUNT];     /* prepared on first use, finalized by close */
    const char *st_sql[LS_COUNT];   /* the text st[i] was prepared from */
};

/* ZK_ELEDGER with "<path>: <sqlite message>" in diag.  Cannot fail. */
int ledger_dberr(zk_ledger *l, struct zk_diag *diag);

/* Runs q (one or more statements, no rows wanted): 0 or ZK_ELEDGER. */
int ledger_exec(zk_ledger *l, const char *q, struct zk_diag *diag);

/*
 * The cached statement `id`, reset and unbound, prepared from sql on first
 * use.  Every call for one id must pass the same text (a second text is a
 * programming error, reported as ZK_ELEDGER).  NULL with diag set on failure;
 * the handle owns the statement.
 */
sqlite3_stmt *ledger_stmt(zk_ledger *l, enum ledger_stmt_id id, const char *sql,
                          struct zk_diag *diag);

/* Steps s: 1 row, 0 done, ZK_ELEDGER error.  Resets s when done or failed. */
int ledger_step(zk_ledger *l, sqlite3_stmt *s, struct zk_diag *diag);

/* Runs a statement that returns no rows; the number of changed rows or < 0. */
int ledger_run(zk_ledger *l, sqlite3_stmt *s, struct zk_diag *diag);

/* Column col of s as text into dst[n] ("" for NULL), truncated.  Cannot fail. */
void ledger_text(char *dst, size_t n, sqlite3_stmt *s, int col);

/* BEGIN IMMEDIATE: the write lock before anything is read.  0 or ZK_ELEDGER. */
int ledger_begin(zk_ledger *l, struct zk_diag *diag);

/* Commits when r == 0, else rolls back; returns r or the commit's error. */
int ledger_end(zk_ledger *l, int r, struct zk_diag *diag);

/* CLOCK_REALTIME in nanoseconds. */
int64_t ledger_now_ns(void);

/*
 * Derives job id's state from its partitions (inside the caller's
 * transaction) after one of them moved to state `to` (jobs.c).  0 or < 0.
 */
int ledger_derive_job(zk_ledger *l, int64_t id, int to, struct zk_diag *diag);

#endif
