/*
 * db.c -- the PostgreSQL backend's helpers (pg_internal.h): the connection
 * (and reconnection after the server went away), statements with their
 * parameters, errors as ZK_ELEDGER naming the ledger and the server's
 * message, transactions, and the retry of one that lost a deadlock.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"

/* The next parameter's slot, or -1 past LPG_MAX_ARGS (a->n then says so,
 * and lpg_query refuses the statement: a bug, never a write out of bounds). */
static int arg_slot(struct lpg_args *a)
{
    if (a->n >= LPG_MAX_ARGS) {
        a->n = LPG_MAX_ARGS + 1;
        return -1;
    }
    return a->n++;
}

void lpg_arg_i64(struct lpg_args *a, int64_t v)
{
    int i = arg_slot(a);
    if (i < 0)
        return;
    snprintf(a->buf[i], sizeof a->buf[i], "%" PRId64, v);
    a->v[i] = a->buf[i];
    a->len[i] = 0;
    a->fmt[i] = 0;
}

void lpg_arg_f64(struct lpg_args *a, double v)
{
    int i = arg_slot(a);
    if (i < 0)
        return;
    snprintf(a->buf[i], sizeof a->buf[i], "%.17g", v);
    a->v[i] = a->buf[i];
    a->len[i] = 0;
    a->fmt[i] = 0;
}

void lpg_arg_str(struct lpg_args *a, const char *s)
{
    int i = arg_slot(a);
    if (i < 0)
        return;
    a->v[i] = s;
    a->len[i] = 0;
    a->fmt[i] = 0;
}

void lpg_arg_bytes(struct lpg_args *a, const void *p, size_t n)
{
    int i = arg_slot(a);
    if (i < 0)
        return;
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

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t lpg_now_ns(const zk_ledger *l)
{
    return ledger_now_ns() + l->pg->clock_off_ns;
}

unsigned lpg_stmt_ms(unsigned lease_s)
{
    /* no answer within half the lease (2 .. 15 s): the machine would lose
     * its lease while it waits anyway */
    unsigned ms = lease_s * 500u;
    return ms < 2000 ? 2000 : ms > 15000 ? 15000 : ms;
}

void lpg_set_lease(zk_ledger *l, unsigned lease_s)
{
    struct ledger_pg *pg = l->pg;
    lease_s = lease_s ? lease_s : 30;
    if (lease_s == pg->lease_s)
        return;
    pg->lease_s = lease_s;
    pg->stmt_ms = lpg_stmt_ms(lease_s);
    /* the TCP settings are the connection's: made again with them on the
     * next statement (outside a transaction) */
    if (pg->c && !pg->in_tx)
        pg->ended = 1;
}

void lpg_set_interrupt(zk_ledger *l, int (*fn)(void *ctx), void *ctx)
{
    l->pg->interrupt = fn;
    l->pg->interrupt_ctx = ctx;
}

/* Drops the connection as dead (no answer in time, or interrupted): the
 * next statement reconnects, after LPG_DOWN_MS.  ZK_ELEDGER, sqlstate
 * 08006 (connection_failure), the message in diag and in down_msg. */
#define LPG_DOWN_MS 1000
static int link_down(zk_ledger *l, int interrupted, int64_t waited_ms, struct zk_diag *diag)
{
    struct ledger_pg *pg = l->pg;
    pg->dead = 1;
    pg->down_until_ms = mono_ms() + LPG_DOWN_MS;
    snprintf(pg->sqlstate, sizeof pg->sqlstate, "08006");
    /* a connect under way is neither made nor failed */
    ConnStatusType cs = PQstatus(pg->c);
    const char *during = cs != CONNECTION_OK && cs != CONNECTION_BAD ? " while connecting" : "";
    if (interrupted)
        snprintf(pg->down_msg, sizeof pg->down_msg, "waited %.1f s for the server%s, then "
                 "stopped waiting (the process is stopping); connection dropped",
                 (double)waited_ms / 1e3, during);
    else
        snprintf(pg->down_msg, sizeof pg->down_msg, "no answer from the server for %.1f s%s; "
                 "connection dropped", (double)waited_ms / 1e3, during);
    return zk_diag_set(diag, l->path, ZK_ELEDGER, "%s", pg->down_msg);
}

/*
 * Waits until the connection's socket is ready for `events`: 1 ready (or
 * an error libpq will report), 0 when *deadline_ms (0: none) passed first,
 * -1 when the interrupt asked to stop once nothing has moved for 1 s since
 * since_ms (the last progress: a healthy server answers in milliseconds,
 * and a long transfer moves, so a stop never abandons a statement or a
 * connection that was going to complete).  The socket is polled before the
 * deadline is judged: a process stopped (SIGSTOP) past it finds its answer
 * waiting.
 */
static int wait_socket(struct ledger_pg *pg, short events, int64_t since_ms,
                       const int64_t *deadline_ms)
{
    for (;;) {
        int64_t now = mono_ms(), left = *deadline_ms ? *deadline_ms - now : 100;
        struct pollfd p = { PQsocket(pg->c), events, 0 };
        if (p.fd < 0)
            return 1;
        int n = poll(&p, 1, left <= 0 ? 0 : left < 100 ? (int)left : 100);
        if (n > 0 || (n < 0 && errno != EINTR))
            return 1;
        if (*deadline_ms && mono_ms() >= *deadline_ms)
            return 0;
        if (pg->interrupt && mono_ms() - since_ms >= 1000 &&
            pg->interrupt(pg->interrupt_ctx))
            return -1;
    }
}

/* The connect timeout (ms) libpq was given: ours, or the URL's. */
static int64_t connect_timeout_ms(PGconn *c, unsigned ours_s)
{
    int64_t ms = (int64_t)ours_s * 1000;
    PQconninfoOption *o = PQconninfo(c);
    for (PQconninfoOption *i = o; i && i->keyword; i++)
        if (!strcmp(i->keyword, "connect_timeout") && i->val && atoi(i->val) > 0)
            ms = (int64_t)atoi(i->val) * 1000;
    PQconninfoFree(o);
    return ms < 2000 ? 2000 : ms;   /* libpq's own minimum */
}

/* Whether the caller's URL or keywords set connect_timeout themselves. */
static int sets_connect_timeout(const char *conninfo)
{
    int set = 0;
    PQconninfoOption *o = PQconninfoParse(conninfo, NULL);
    for (PQconninfoOption *i = o; i && i->keyword; i++)
        if (!strcmp(i->keyword, "connect_timeout") && i->val && atoi(i->val) > 0)
            set = 1;
    PQconninfoFree(o);
    return set;
}

/*
 * Starts the connection and polls it to the end: 0, or ZK_ELEDGER
 * (link_down's when it timed out).  Each wait for the server gets the
 * connect timeout without progress, the bound made again whenever the
 * handshake moves on (as a statement's is when data comes), so that a
 * slow but alive link (a handshake is several round trips: TLS refused,
 * startup, SCRAM's two exchanges) connects while a dead one is noticed
 * within the timeout.  A connect_timeout the caller set is libpq's: the
 * whole connect's bound, not made again.
 */
static int connect_poll(zk_ledger *l, const char *const *keys, const char *const *vals,
                        unsigned timeout_s, struct zk_diag *diag)
{
    struct ledger_pg *pg = l->pg;
    pg->c = PQconnectStartParams(keys, vals, 1);
    if (!pg->c)
        return zk_diag_set(diag, l->path, -ENOMEM, "out of memory");
    int64_t t0 = mono_ms(), deadline = t0 + connect_timeout_ms(pg->c, timeout_s);
    int64_t moved = t0;
    PostgresPollingStatusType ps = PGRES_POLLING_WRITING;
    int64_t step_ms = sets_connect_timeout(pg->conninfo) ? 0 : deadline - t0;
    while (PQstatus(pg->c) != CONNECTION_BAD && ps != PGRES_POLLING_OK &&
           ps != PGRES_POLLING_FAILED) {
        int w = wait_socket(pg, ps == PGRES_POLLING_READING ? POLLIN : POLLOUT, moved,
                            &deadline);
        if (w <= 0)
            return link_down(l, w < 0, mono_ms() - t0, diag);
        moved = mono_ms();
        ps = PQconnectPoll(pg->c);
        if (step_ms)
            deadline = mono_ms() + step_ms;   /* progress */
    }
    return 0;
}

static PGresult *exec_wait(zk_ledger *l, int sent, struct zk_diag *diag);

int lpg_connect(zk_ledger *l, struct zk_diag *diag)
{
    struct ledger_pg *pg = l->pg;
    if (pg->c && PQstatus(pg->c) == CONNECTION_OK && !pg->ended && !pg->dead)
        return 0;
    /* a link found dead a moment ago: not tried again at once */
    if (pg->dead && mono_ms() < pg->down_until_ms) {
        snprintf(pg->sqlstate, sizeof pg->sqlstate, "08006");
        return zk_diag_set(diag, l->path, ZK_ELEDGER, "%s", pg->down_msg);
    }
    pg->ended = 0;
    if (pg->c)
        PQfinish(pg->c);
    pg->c = NULL;
    pg->in_tx = 0;
    lpg_forget_prepared(pg);   /* they belonged to the old connection */
    /* the connect timeout (each wait's, connect_poll) from busy_ms, at
     * most the statements' bound */
    unsigned to_s = pg->busy_ms / 1000 ? pg->busy_ms / 1000 : 1;
    if (pg->stmt_ms && to_s > pg->stmt_ms / 1000)
        to_s = pg->stmt_ms / 1000;
    /* a dead peer noticed by the kernel within about a third of the lease
     * (1 .. 10 s): unanswered data (tcp_user_timeout), or an idle link whose
     * keepalives go unanswered (idle lease/6 s, then 2 probes lease/15 s
     * apart) -- where a cut otherwise leaves a statement waiting for the
     * kernel's retransmissions, minutes */
    unsigned lease = pg->lease_s ? pg->lease_s : 30, ut = lease * 1000u / 3;
    char timeout[16], user_to[16], idle[16], intvl[16];
    snprintf(timeout, sizeof timeout, "%u", to_s);
    snprintf(user_to, sizeof user_to, "%u", ut < 1000 ? 1000 : ut > 10000 ? 10000 : ut);
    snprintf(idle, sizeof idle, "%u", lease / 6 ? (lease / 6 < 5 ? lease / 6 : 5) : 1);
    snprintf(intvl, sizeof intvl, "%u", lease / 15 ? (lease / 15 < 2 ? lease / 15 : 2) : 1);
    /* the caller's settings last: they win over these defaults */
    const char *keys[] = { "connect_timeout", "tcp_user_timeout", "keepalives",
                           "keepalives_idle", "keepalives_interval", "keepalives_count",
                           "application_name", "dbname", NULL };
    const char *vals[] = { timeout, user_to, "1", idle, intvl, "2", "zkslot", pg->conninfo,
                           NULL };
    int r = connect_poll(l, keys, vals, to_s, diag);
    if (r < 0)
        return r;
    pg->dead = 0;
    if (PQstatus(pg->c) != CONNECTION_OK) {
        /* invalid_authorization_specification: lpg_denied tells it apart */
        snprintf(pg->sqlstate, sizeof pg->sqlstate, "%s",
                 refused(PQerrorMessage(pg->c)) ? "28000" : "08001");
        return pg_err(l, PQerrorMessage(pg->c), diag);
    }
    /* statements sent without blocking: exec_wait waits, bounded */
    PQsetnonblocking(pg->c, 1);
    /* lock waits bounded like SQLite's busy timeout; quiet notices; and a
     * session left idle inside a transaction (its process stopped, frozen
     * or cut off while it held row locks: our transactions are a few
     * statements with nothing between them) is ended by the server, so
     * its locks cannot stall the other machines' claims and lease checks
     * (the stopped process finds its connection gone and reconnects) */
    /* ... and the database's clock read, against ours half-way through */
    char q[256];
    unsigned idle_ms = pg->busy_ms / 2 > 1000 ? pg->busy_ms / 2 : 1000;
    snprintf(q, sizeof q,
             "SET lock_timeout = %u; SET idle_in_transaction_session_timeout = %u;"
             " SET client_min_messages = warning;"
             " SELECT (extract(epoch FROM clock_timestamp()) * 1000000000)::bigint",
             pg->busy_ms, idle_ms);
    int64_t t0 = ledger_now_ns();
    PGresult *res = exec_wait(l, PQsendQuery(pg->c, q), diag);
    int64_t t1 = ledger_now_ns();
    if (!res)
        return pg->dead ? ZK_ELEDGER : pg_err(l, PQerrorMessage(pg->c), diag);
    int ok = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;
    if (ok)
        pg->clock_off_ns = lpg_i64(res, 0, 0) - (t0 + (t1 - t0) / 2);
    PQclear(res);
    return ok ? 0 : pg_err(l, PQerrorMessage(pg->c), diag);
}

/*
 * The result of a statement just sent (sent: what PQsend* returned), read
 * without blocking for longer than stmt_ms without progress: as PQexec
 * gives it (the first error, else the last result; NULL when it could not
 * be sent, libpq's message then in PQerrorMessage), or NULL with the
 * connection dropped as dead (link_down: no answer in time, or the
 * interrupt), diag set.
 */
static PGresult *exec_wait(zk_ledger *l, int sent, struct zk_diag *diag)
{
    struct ledger_pg *pg = l->pg;
    if (!sent)
        return NULL;
    int64_t t0 = mono_ms(), moved = t0, deadline = pg->stmt_ms ? t0 + pg->stmt_ms : 0;
    int w;
    /* the statement out (a large bytea may take many writes) */
    while (PQflush(pg->c) > 0) {
        if ((w = wait_socket(pg, POLLIN | POLLOUT, moved, &deadline)) <= 0)
            goto dead;
        moved = mono_ms();   /* progress */
        if (pg->stmt_ms)
            deadline = moved + pg->stmt_ms;
        if (!PQconsumeInput(pg->c))
            break;
    }
    PGresult *keep = NULL, *res;
    for (;;) {
        while (PQisBusy(pg->c)) {
            if ((w = wait_socket(pg, POLLIN, moved, &deadline)) <= 0) {
                PQclear(keep);
                goto dead;
            }
            moved = mono_ms();
            if (pg->stmt_ms)
                deadline = moved + pg->stmt_ms;
            if (!PQconsumeInput(pg->c))
                break;   /* the connection failed: PQgetResult says so */
        }
        if (!(res = PQgetResult(pg->c)))
            break;
        ExecStatusType st = PQresultStatus(keep);
        if (keep && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
            PQclear(res);   /* the first error is the one to report */
            continue;
        }
        PQclear(keep);
        keep = res;
    }
    return keep;
dead:
    link_down(l, w < 0, mono_ms() - t0, diag);
    return NULL;
}

/* The index of sql's prepared statement, prepared now if new; -1 when the
 * cache is full (the caller runs it unprepared); -2 when PREPARE failed,
 * with *err its result (the caller reports it: inside a transaction the
 * transaction is now aborted). */
static int prepared(zk_ledger *l, const char *sql, int nparams, PGresult **err,
                    struct zk_diag *diag)
{
    struct ledger_pg *pg = l->pg;
    for (int i = 0; i < pg->nprep; i++)
        if (!strcmp(pg->prep_sql[i], sql))
            return i;
    if (pg->nprep == LPG_MAX_PREPARED || !(pg->prep_sql[pg->nprep] = strdup(sql)))
        return -1;
    char name[16];
    snprintf(name, sizeof name, "zk%d", pg->nprep);
    PGresult *res = exec_wait(l, PQsendPrepare(pg->c, name, sql, nparams, NULL), diag);
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
    if (a && a->n > LPG_MAX_ARGS) {
        zk_diag_set(diag, zk_ledger_path(l), ZK_ELEDGER, "a statement with more than %d "
                    "parameters (a bug): not sent", LPG_MAX_ARGS);
        return NULL;
    }
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
        res = exec_wait(l, PQsendQuery(pg->c, sql), diag);
    } else if ((i = prepared(l, sql, a ? a->n : 0, &res, diag)) >= 0) {
        char name[16];
        snprintf(name, sizeof name, "zk%d", i);
        res = exec_wait(l, PQsendQueryPrepared(pg->c, name, a ? a->n : 0, a ? a->v : NULL,
                                               a ? a->len : NULL, a ? a->fmt : NULL, binary),
                        diag);
    } else if (i == -2) {
        /* res: the failed PREPARE's result, reported below */
    } else {
        res = exec_wait(l, PQsendQueryParams(pg->c, sql, a ? a->n : 0, NULL, a ? a->v : NULL,
                                             a ? a->len : NULL, a ? a->fmt : NULL, binary),
                        diag);
    }
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return res;
    if (!res && pg->dead)
        return NULL;   /* link_down said why */
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
    if (!pg->dead)   /* a dead link's transaction ends with it, server-side */
        PQclear(exec_wait(l, PQsendQuery(pg->c, "ROLLBACK"), NULL));
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
