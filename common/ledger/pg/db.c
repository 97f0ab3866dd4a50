/*
 * db.c -- the PostgreSQL backend's helpers (pg_internal.h): the connection
 * (and reconnection after the server went away), statements with their
 * parameters, errors as ZK_ELEDGER naming the ledger and the server's
 * message, transactions, and the retry of one that lost a deadlock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"

void lpg_arg_i64(struct lpg_args *a, int64_t v)
{
    int i = a->n++;
    snprintf(a->buf[i], sizeof a->buf[i], "%" PRId64, v);
    a->v[i] = a->buf[i];
    a->len[i] = 0;
    a->fmt[i] = 0;
}

void lpg_arg_f64(struct lpg_args *a, double v)
{
    int i = a->n++;
    snprintf(a->buf[i], sizeof a->buf[i], "%.17g", v);
    a->v[i] = a->buf[i];
    a->len[i] = 0;
    a->fmt[i] = 0;
}

void lpg_arg_str(struct lpg_args *a, const char *s)
{
    int i = a->n++;
    a->v[i] = s;
    a->len[i] = 0;
    a->fmt[i] = 0;
}

void lpg_arg_bytes(struct lpg_args *a, const void *p, size_t n)
{
    int i = a->n++;
    a->v[i] = p;
    a->len[i] = (int)n;
    a->fmt[i] = 1;
}

/* The server's or libpq's message, first line only. */
static int pg_err(zk_ledger *l, const char *msg, struct zk_diag *diag)
{
    char m[300];
    snprintf(m, sizeof m, "%s", msg && *msg ? msg : "unknown error");
    m[strcspn(m, "\n")] = 0;
    return zk_diag_set(diag, l->path, ZK_ELEDGER, "%s", m);
}

/* Whether a failed connection's message says the server answered and
 * refused us (authentication, pg_hba.conf, no such role or database, no
 * CONNECT privilege), not that it could not be reached.  libpq gives no
 * SQLSTATE for a failed connection: its text is all there is. */
static int refused(const char *msg)
{
    static const char *const why[] = { "authentication failed", "pg_hba.conf",
                                       "does not exist", "permission denied",
                                       "no password supplied", NULL };
    for (int i = 0; msg && why[i]; i++)
        if (strstr(msg, why[i]))
            return 1;
    return 0;
}

int lpg_denied(const zk_ledger *l)
{
    const char *s = l->pg->sqlstate;
    return !strcmp(s, "42501") || !strncmp(s, "28", 2);
}

void lpg_forget_prepared(struct ledger_pg *pg)
{
    for (int i = 0; i < pg->nprep; i++)
        free(pg->prep_sql[i]);
    pg->nprep = 0;
}

int lpg_connect(zk_ledger *l, struct zk_diag *diag)
{
    struct ledger_pg *pg = l->pg;
    if (pg->c && PQstatus(pg->c) == CONNECTION_OK && !pg->ended)
        return 0;
    pg->ended = 0;
    if (pg->c)
        PQfinish(pg->c);
    pg->in_tx = 0;
    lpg_forget_prepared(pg);   /* they belonged to the old connection */
    /* the connect timeout from busy_ms; a URL or keywords plus our options */
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%u", pg->busy_ms / 1000 ? pg->busy_ms / 1000 : 1);
    /* the caller's settings last: they win over these defaults */
    const char *keys[] = { "connect_timeout", "application_name", "dbname", NULL };
    const char *vals[] = { timeout, "zkslot", pg->conninfo, NULL };
    pg->c = PQconnectdbParams(keys, vals, 1);
    if (!pg->c)
        return zk_diag_set(diag, l->path, -ENOMEM, "out of memory");
    if (PQstatus(pg->c) != CONNECTION_OK) {
        /* invalid_authorization_specification: lpg_denied tells it apart */
        snprintf(pg->sqlstate, sizeof pg->sqlstate, "%s",
                 refused(PQerrorMessage(pg->c)) ? "28000" : "08001");
        return pg_err(l, PQerrorMessage(pg->c), diag);
    }
    /* lock waits bounded like SQLite's busy timeout; quiet notices; and a
     * session left idle inside a transaction (its process stopped, frozen
     * or cut off while it held row locks: our transactions are a few
     * statements with nothing between them) is ended by the server, so
     * its locks cannot stall the other machines' claims and lease checks
     * (the stopped process finds its connection gone and reconnects) */
    char q[192];
    unsigned idle_ms = pg->busy_ms / 2 > 1000 ? pg->busy_ms / 2 : 1000;
    snprintf(q, sizeof q,
             "SET lock_timeout = %u; SET idle_in_transaction_session_timeout = %u;"
             " SET client_min_messages = warning",
             pg->busy_ms, idle_ms);
    PGresult *res = PQexec(pg->c, q);
    int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    return ok ? 0 : pg_err(l, PQerrorMessage(pg->c), diag);
}

/* The index of sql's prepared statement, prepared now if new; -1 when the
 * cache is full (the caller runs it unprepared); -2 when PREPARE failed,
 * with *err its result (the caller reports it: inside a transaction the
 * transaction is now aborted). */
static int prepared(zk_ledger *l, const char *sql, int nparams, PGresult **err)
{
    struct ledger_pg *pg = l->pg;
    for (int i = 0; i < pg->nprep; i++)
        if (!strcmp(pg->prep_sql[i], sql))
            return i;
    if (pg->nprep == LPG_MAX_PREPARED || !(pg->prep_sql[pg->nprep] = strdup(sql)))
        return -1;
    char name[16];
    snprintf(name, sizeof name, "zk%d", pg->nprep);
    PGresult *res = PQprepare(pg->c, name, sql, nparams, NULL);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        free(pg->prep_sql[pg->nprep]);
        *err = res;
        return -2;
    }
    PQclear(res);
    return pg->nprep++;
}

/* Whether SQLSTATE s says the server ended the session before it read
 * the statement (a restart or a failover: admin_shutdown, crash_shutdown,
 * idle_session_timeout), so that it was not run: libpq may still call the
 * connection OK until its next read, so the caller drops it. */
static int session_ended(const char *s)
{
    return !strcmp(s, "57P01") || !strcmp(s, "57P02") || !strcmp(s, "57P05");
}

static PGresult *query_once(zk_ledger *l, const char *sql, const struct lpg_args *a,
                            int binary, struct zk_diag *diag);

PGresult *lpg_query(zk_ledger *l, const char *sql, const struct lpg_args *a, int binary,
                    struct zk_diag *diag)
{
    PGresult *res = query_once(l, sql, a, binary, diag);
    /* a connection the server ended while it was idle shows only when
     * used: outside a transaction, the statement is sent again once on a
     * new connection (inside one, the transaction is lost with it and the
     * caller's call fails; lpg_begin retries a BEGIN) */
    if (!res && !l->pg->in_tx && l->pg->ended)
        res = query_once(l, sql, a, binary, diag);
    return res;
}

static PGresult *query_once(zk_ledger *l, const char *sql, const struct lpg_args *a,
                            int binary, struct zk_diag *diag)
{
    struct ledger_pg *pg = l->pg;
    pg->sqlstate[0] = 0;
    /* a connection lost between transactions is made again */
    if (!pg->in_tx && lpg_connect(l, diag) < 0)
        return NULL;
    /* without parameters: the simple protocol, which runs several
     * statements; with: the statement prepared once (parsed and planned
     * once per connection), when there is room in the cache */
    PGresult *res = NULL;
    int i = 0;
    if (!a && !binary) {
        res = PQexec(pg->c, sql);
    } else if ((i = prepared(l, sql, a ? a->n : 0, &res)) >= 0) {
        char name[16];
        snprintf(name, sizeof name, "zk%d", i);
        res = PQexecPrepared(pg->c, name, a ? a->n : 0, a ? a->v : NULL, a ? a->len : NULL,
                             a ? a->fmt : NULL, binary);
    } else if (i == -2) {
        /* res: the failed PREPARE's result, reported below */
    } else {
        res = PQexecParams(pg->c, sql, a ? a->n : 0, NULL, a ? a->v : NULL,
                           a ? a->len : NULL, a ? a->fmt : NULL, binary);
    }
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return res;
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    snprintf(pg->sqlstate, sizeof pg->sqlstate, "%s", state ? state : "");
    /* libpq reports the server's goodbye it read on sending as its own
     * error, without the fields: its text is all there is */
    pg->ended = session_ended(pg->sqlstate) ||
                (!pg->sqlstate[0] && PQstatus(pg->c) == CONNECTION_BAD &&
                 strstr(PQerrorMessage(pg->c), "FATAL:  terminating connection"));
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    pg_err(l, msg ? msg : PQerrorMessage(pg->c), diag);
    PQclear(res);
    return NULL;
}

int lpg_cmd(zk_ledger *l, const char *sql, const struct lpg_args *a, struct zk_diag *diag)
{
    PGresult *res = lpg_query(l, sql, a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    const char *n = PQcmdTuples(res);
    int r = n && *n ? atoi(n) : 0;
    PQclear(res);
    return r;
}

int lpg_begin(zk_ledger *l, struct zk_diag *diag)
{
    int r = lpg_cmd(l, "BEGIN", NULL, diag);
    /* a connection cut while idle (a server restart) shows only when used:
     * BEGIN changed nothing, so it is sent again on a new connection */
    if (r < 0 && (PQstatus(l->pg->c) == CONNECTION_BAD || l->pg->ended))
        r = lpg_cmd(l, "BEGIN", NULL, diag);
    if (r < 0)
        return r;
    l->pg->in_tx = 1;
    return 0;
}

int lpg_end(zk_ledger *l, int r, struct zk_diag *diag)
{
    struct ledger_pg *pg = l->pg;
    if (!pg->in_tx)
        return r;
    if (r == 0) {
        r = lpg_cmd(l, "COMMIT", NULL, diag);
        pg->in_tx = 0;
        return r < 0 ? r : 0;
    }
    char state[6];
    memcpy(state, pg->sqlstate, sizeof state);
    PGresult *res = PQexec(pg->c, "ROLLBACK");
    PQclear(res);
    pg->in_tx = 0;
    memcpy(pg->sqlstate, state, sizeof state);   /* the failure's, for lpg_retry */
    return r;
}

int lpg_retry(zk_ledger *l, int *tries)
{
    const char *s = l->pg->sqlstate;
    if ((strcmp(s, "40P01") && strcmp(s, "40001")) || ++*tries > 5)
        return 0;
    l->pg->sqlstate[0] = 0;
    return 1;
}

int64_t lpg_i64(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? 0 : strtoll(PQgetvalue(res, row, col), NULL, 10);
}

double lpg_f64(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? 0 : strtod(PQgetvalue(res, row, col), NULL);
}

void lpg_text(char *dst, size_t n, const PGresult *res, int row, int col)
{
    snprintf(dst, n, "%s", PQgetisnull(res, row, col) ? "" : PQgetvalue(res, row, col));
}
