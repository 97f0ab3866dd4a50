/*
 * stats.c -- what the metrics and `zkslot top` read from the ledger
 * (zk/ledger.h): partitions per state, totals, recent done times, and the
 * daemons' start counts (zk_ledger_daemon_started, one row per role and
 * instance).
 */
#include <string.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"

int lsq_counts(zk_ledger *l, uint64_t count[ZK_PART_STATE_COUNT], struct zk_diag *diag)
{
    sqlite3_stmt *s;
    uint64_t c[ZK_PART_STATE_COUNT] = { 0 };
    int r;
    if (sqlite3_prepare_v2(l->db, "SELECT state, count(*) FROM partitions GROUP BY state", -1,
                           &s, NULL))
        return ledger_dberr(l, diag);
    while ((r = ledger_step(l, s, diag)) > 0) {
        int st = zk_part_state_parse((const char *)sqlite3_column_text(s, 0));
        if (st >= 0)
            c[st] = (uint64_t)sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    if (!r)
        memcpy(count, c, sizeof c);
    return r;
}

int lsq_daemon_started(zk_ledger *l, const char *role, const char *instance, int32_t pid,
                             struct zk_diag *diag)
{
    sqlite3_stmt *s;
    int r = ledger_begin(l, diag);
    if (r)
        return r;
    if (sqlite3_prepare_v2(l->db,
                           "INSERT INTO daemons (role, instance, starts, last_pid, last_start_ns)"
                           " VALUES (?, ?, 1, ?, ?) ON CONFLICT (role, instance) DO UPDATE SET"
                           " starts = starts + 1, last_pid = excluded.last_pid,"
                           " last_start_ns = excluded.last_start_ns",
                           -1, &s, NULL)) {
        r = ledger_dberr(l, diag);
        return ledger_end(l, r, diag);
    }
    sqlite3_bind_text(s, 1, role, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, instance, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, pid);
    sqlite3_bind_int64(s, 4, ledger_now_ns());
    r = ledger_step(l, s, diag);
    sqlite3_finalize(s);
    return ledger_end(l, r < 0 ? r : 0, diag);
}

int lsq_daemon_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_daemon *d),
                          void *ctx, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    int r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT role, instance, starts, last_pid, last_start_ns FROM daemons"
                           " ORDER BY role, instance",
                           -1, &s, NULL))
        return ledger_dberr(l, diag);
    while ((r = ledger_step(l, s, diag)) > 0) {
        struct zk_ledger_daemon d;
        memset(&d, 0, sizeof d);
        ledger_text(d.role, sizeof d.role, s, 0);
        ledger_text(d.instance, sizeof d.instance, s, 1);
        d.starts = (uint64_t)sqlite3_column_int64(s, 2);
        d.last_pid = (int32_t)sqlite3_column_int(s, 3);
        d.last_start_ns = sqlite3_column_int64(s, 4);
        if ((r = fn(ctx, &d)))
            break;
    }
    sqlite3_finalize(s);
    return r;
}

int lsq_totals(zk_ledger *l, struct zk_ledger_totals *ret, struct zk_diag *diag)
{
    struct zk_ledger_totals t;
    sqlite3_stmt *s;
    int r;

    memset(&t, 0, sizeof t);
    if ((r = lsq_counts(l, t.parts, diag)))
        return r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT coalesce(sum(proofs), 0), coalesce(sum(errors), 0),"
                           " coalesce(sum(attempts), 0) FROM partitions",
                           -1, &s, NULL))
        return ledger_dberr(l, diag);
    if ((r = ledger_step(l, s, diag)) > 0) {
        t.proofs = (uint64_t)sqlite3_column_int64(s, 0);
        t.errors = (uint64_t)sqlite3_column_int64(s, 1);
        t.attempts = (uint64_t)sqlite3_column_int64(s, 2);
        r = 0;
    }
    sqlite3_finalize(s);
    if (r)
        return r;
    if (sqlite3_prepare_v2(l->db, "SELECT state, count(*) FROM jobs GROUP BY state", -1, &s,
                           NULL))
        return ledger_dberr(l, diag);
    while ((r = ledger_step(l, s, diag)) > 0) {
        int st = zk_job_state_parse((const char *)sqlite3_column_text(s, 0));
        if (st >= 0)
            t.jobs[st] = (uint64_t)sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    if (r)
        return r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT j.priority, p.state = 'queued', count(*) FROM partitions p"
                           " JOIN jobs j ON j.id = p.job_id WHERE p.state IN ('queued',"
                           " 'synthesizing', 'ready', 'proving') GROUP BY 1, 2",
                           -1, &s, NULL))
        return ledger_dberr(l, diag);
    while ((r = ledger_step(l, s, diag)) > 0) {
        int c = sqlite3_column_int(s, 0);
        if (c >= 0 && c < ZK_PRIO_COUNT)
            (sqlite3_column_int(s, 1) ? t.queued_class : t.inflight_class)[c] =
                (uint64_t)sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    if (!r)
        *ret = t;
    return r;
}

int lsq_done_times(zk_ledger *l, int64_t since_ns,
                         int (*fn)(void *ctx, const struct zk_ledger_part_times *t), void *ctx,
                         struct zk_diag *diag)
{
    sqlite3_stmt *s;
    int r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT p.synth_s, p.wait_s, p.start_s, p.finalize_s, p.done_ns,"
                           " p.queued_ns, j.priority FROM partitions p JOIN jobs j ON j.id ="
                           " p.job_id WHERE p.state = 'done' AND p.done_ns >= ? ORDER BY"
                           " p.done_ns",
                           -1, &s, NULL))
        return ledger_dberr(l, diag);
    sqlite3_bind_int64(s, 1, since_ns);
    while ((r = ledger_step(l, s, diag)) > 0) {
        struct zk_ledger_part_times t;
        t.synth_s = sqlite3_column_double(s, 0);
        t.wait_s = sqlite3_column_double(s, 1);
        t.start_s = sqlite3_column_double(s, 2);
        t.finalize_s = sqlite3_column_double(s, 3);
        t.done_ns = sqlite3_column_int64(s, 4);
        t.queued_ns = sqlite3_column_int64(s, 5);
        t.priority = sqlite3_column_int(s, 6);
        if ((r = fn(ctx, &t)))
            break;
    }
    sqlite3_finalize(s);
    return r;
}
