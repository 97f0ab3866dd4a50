/*
 * db.c -- the ledger's SQLite helpers and its prepared-statement cache
 * (ledger_internal.h): errors as ZK_ELEDGER with the ledger's path, one
 * BEGIN IMMEDIATE ... COMMIT/ROLLBACK pair per state change, statements
 * prepared once per handle on first use.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"

int64_t ledger_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int ledger_dberr(zk_ledger *l, struct zk_diag *diag)
{
    return zk_diag_set(diag, l->path, ZK_ELEDGER, "%s", sqlite3_errmsg(l->db));
}

int ledger_exec(zk_ledger *l, const char *q, struct zk_diag *diag)
{
    return sqlite3_exec(l->db, q, NULL, NULL, NULL) == SQLITE_OK ? 0 : ledger_dberr(l, diag);
}

sqlite3_stmt *ledger_stmt(zk_ledger *l, enum ledger_stmt_id id, const char *sql,
                          struct zk_diag *diag)
{
    sqlite3_stmt *s = l->st[id];
    if (!s) {
        if (sqlite3_prepare_v3(l->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) !=
            SQLITE_OK) {
            ledger_dberr(l, diag);
            return NULL;
        }
        l->st[id] = s;
        l->st_sql[id] = sql;
    } else if (l->st_sql[id] != sql && strcmp(l->st_sql[id], sql)) {
        zk_diag_set(diag, l->path, ZK_ELEDGER, "cached statement %d used with two texts",
                    (int)id);
        return NULL;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return s;
}

int ledger_step(zk_ledger *l, sqlite3_stmt *s, struct zk_diag *diag)
{
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        return 1;
    int r = rc == SQLITE_DONE ? 0 : ledger_dberr(l, diag);
    sqlite3_reset(s);
    return r;
}

int ledger_run(zk_ledger *l, sqlite3_stmt *s, struct zk_diag *diag)
{
    int r = ledger_step(l, s, diag);
    if (r > 0) {
        sqlite3_reset(s);
        return 0;
    }
    return r < 0 ? r : sqlite3_changes(l->db);
}

void ledger_text(char *dst, size_t n, sqlite3_stmt *s, int col)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    snprintf(dst, n, "%s", t ? (const char *)t : "");
}

int ledger_begin(zk_ledger *l, struct zk_diag *diag)
{
    return ledger_exec(l, "BEGIN IMMEDIATE", diag);
}

int ledger_end(zk_ledger *l, int r, struct zk_diag *diag)
{
    if (r == 0) {
        r = ledger_exec(l, "COMMIT", diag);
        if (r == 0)
            return 0;
    }
    if (!sqlite3_get_autocommit(l->db))
        sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
    return r;
}
