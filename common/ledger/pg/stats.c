/*
 * stats.c -- what the metrics and `zkslot top` read from the ledger on
 * PostgreSQL (zk/ledger.h): partitions per state, totals, recent done
 * times, and the daemons' start counts (one row per machine, role and
 * instance; a handle lists its own machine's).
 */
#include <string.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"

/* "SELECT state, count(*) ... GROUP BY state" into c[nstates] with parse. */
static int state_counts(zk_ledger *l, const char *sql, uint64_t *c, int nstates,
                        int (*parse)(const char *), struct zk_diag *diag)
{
    PGresult *res = lpg_query(l, sql, NULL, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    memset(c, 0, (size_t)nstates * sizeof c[0]);
    for (int i = 0; i < PQntuples(res); i++) {
        int st = parse(PQgetvalue(res, i, 0));
        if (st >= 0 && st < nstates)
            c[st] = (uint64_t)lpg_i64(res, i, 1);
    }
    PQclear(res);
    return 0;
}

int lpg_counts(zk_ledger *l, uint64_t count[ZK_PART_STATE_COUNT], struct zk_diag *diag)
{
    return state_counts(l, "SELECT state, count(*) FROM partitions GROUP BY state", count,
                        ZK_PART_STATE_COUNT, zk_part_state_parse, diag);
}

int lpg_daemon_started(zk_ledger *l, const char *role, const char *instance, int32_t pid,
                       struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_str(&a, l->pg->machine);
    lpg_arg_str(&a, role);
    lpg_arg_str(&a, instance);
    lpg_arg_i64(&a, pid);
    lpg_arg_i64(&a, lpg_now_ns(l));
    int r = lpg_cmd(l, "INSERT INTO daemons (machine, role, instance, starts, last_pid,"
                       " last_start_ns) VALUES ($1, $2, $3, 1, $4, $5)"
                       " ON CONFLICT (machine, role, instance) DO UPDATE SET"
                       " starts = daemons.starts + 1, last_pid = excluded.last_pid,"
                       " last_start_ns = excluded.last_start_ns", &a, diag);
    return r < 0 ? r : 0;
}

/* The daemons of every machine (all) or of this handle's machine, each
 * with its machine and whether that machine's lease is current. */
static int daemon_rows(zk_ledger *l, int all,
                       int (*fn)(void *ctx, const struct zk_ledger_daemon *d), void *ctx,
                       struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_str(&a, all ? NULL : l->pg->machine);
    PGresult *res = lpg_query(l, "SELECT d.machine, d.role, d.instance, d.starts, d.last_pid,"
                                 " d.last_start_ns, coalesce(m.lease_until > now() AND NOT"
                                 " m.expired, false)::int FROM daemons d LEFT JOIN machines m"
                                 " ON m.name = d.machine WHERE $1::text IS NULL OR"
                                 " d.machine = $1 ORDER BY d.machine, d.role, d.instance",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int r = 0;
    for (int i = 0; i < PQntuples(res) && !r; i++) {
        struct zk_ledger_daemon d;
        memset(&d, 0, sizeof d);
        lpg_text(d.machine, sizeof d.machine, res, i, 0);
        lpg_text(d.role, sizeof d.role, res, i, 1);
        lpg_text(d.instance, sizeof d.instance, res, i, 2);
        d.starts = (uint64_t)lpg_i64(res, i, 3);
        d.last_pid = (int32_t)lpg_i64(res, i, 4);
        d.last_start_ns = lpg_i64(res, i, 5);
        d.lease = (int)lpg_i64(res, i, 6);
        r = fn(ctx, &d);
    }
    PQclear(res);
    return r;
}

int lpg_daemon_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                    void *ctx, struct zk_diag *diag)
{
    /* this machine's: a pid means something only here (the callers match
     * it against the local pool), and so does a restart count */
    return daemon_rows(l, 0, fn, ctx, diag);
}

int lpg_farm_daemons(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                     void *ctx, struct zk_diag *diag)
{
    return daemon_rows(l, 1, fn, ctx, diag);
}

int lpg_totals(zk_ledger *l, struct zk_ledger_totals *ret, struct zk_diag *diag)
{
    struct zk_ledger_totals t;
    memset(&t, 0, sizeof t);
    int r = lpg_counts(l, t.parts, diag);
    if (!r)
        r = state_counts(l, "SELECT state, count(*) FROM jobs GROUP BY state", t.jobs,
                         ZK_JOB_STATE_COUNT, zk_job_state_parse, diag);
    if (r)
        return r;
    PGresult *res = lpg_query(l, "SELECT coalesce(sum(proofs), 0), coalesce(sum(errors), 0),"
                                 " coalesce(sum(attempts), 0) FROM partitions", NULL, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    t.proofs = (uint64_t)lpg_i64(res, 0, 0);
    t.errors = (uint64_t)lpg_i64(res, 0, 1);
    t.attempts = (uint64_t)lpg_i64(res, 0, 2);
    PQclear(res);
    if (!(res = lpg_query(l, "SELECT j.priority, (p.state = 'queued')::int, count(*) FROM"
                             " partitions p JOIN jobs j ON j.id = p.job_id WHERE p.state IN"
                             " ('queued', 'synthesizing', 'ready', 'proving') GROUP BY 1, 2",
                          NULL, 0, diag)))
        return ZK_ELEDGER;
    for (int i = 0; i < PQntuples(res); i++) {
        int64_t c = lpg_i64(res, i, 0);
        if (c >= 0 && c < ZK_PRIO_COUNT)
            (lpg_i64(res, i, 1) ? t.queued_class : t.inflight_class)[c] =
                (uint64_t)lpg_i64(res, i, 2);
    }
    PQclear(res);
    *ret = t;
    return 0;
}

int lpg_done_times(zk_ledger *l, int64_t since_ns,
                   int (*fn)(void *ctx, const struct zk_ledger_part_times *t), void *ctx,
                   struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, since_ns);
    PGresult *res = lpg_query(l, "SELECT p.synth_s, p.wait_s, p.start_s, p.finalize_s,"
                                 " p.done_ns, p.queued_ns, j.priority FROM partitions p JOIN"
                                 " jobs j ON j.id = p.job_id WHERE p.state = 'done' AND"
                                 " p.done_ns >= $1 ORDER BY p.done_ns", &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int r = 0;
    for (int i = 0; i < PQntuples(res) && !r; i++) {
        struct zk_ledger_part_times t = { lpg_f64(res, i, 0), lpg_f64(res, i, 1),
                                          lpg_f64(res, i, 2), lpg_f64(res, i, 3),
                                          lpg_i64(res, i, 4), lpg_i64(res, i, 5),
                                          (int)lpg_i64(res, i, 6) };
        r = fn(ctx, &t);
    }
    PQclear(res);
    return r;
}
