/*
 * sched.c -- scheduling in the ledger on PostgreSQL (zk/ledger.h,
 * docs/scheduling.md): the highest class queued, reprioritize, deadlines
 * and the admission estimate; the same contracts as ../sched.c.  The
 * claim order is in parts.c, the request id in jobs.c (its unique index).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"

int lpg_queued_top(zk_ledger *l, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_str(&a, l->claim_keys);
    PGresult *res = lpg_query(l, "SELECT max(j.priority) FROM partitions p JOIN jobs j ON"
                                 " j.id = p.job_id WHERE p.state = 'queued' AND j.state IN"
                                 " ('queued', 'running') AND ($1::bigint[] IS NULL OR"
                                 " j.key_id = ANY($1::bigint[]))",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int r = PQgetisnull(res, 0, 0) ? 0 : 1 + (int)lpg_i64(res, 0, 0);
    PQclear(res);
    return r;
}

static int reprioritize(zk_ledger *l, int64_t id, int prio, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, prio);
    lpg_arg_i64(&a, id);
    PGresult *res = lpg_query(l, "WITH u AS (UPDATE jobs SET priority = $1 WHERE id = $2 AND"
                                 " state IN ('queued', 'running') RETURNING id)"
                                 " SELECT (SELECT count(*) FROM u), (SELECT state FROM jobs"
                                 " WHERE id = $2)",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int r = 0;
    if (lpg_i64(res, 0, 0) == 0)
        r = PQgetisnull(res, 0, 1)
                ? zk_diag_set(diag, l->path, -ENOENT, "no job %lld", (long long)id)
                : zk_diag_set(diag, l->path, ZK_ESTATE, "job %lld is %s", (long long)id,
                              PQgetvalue(res, 0, 1));
    PQclear(res);
    return r;
}

int lpg_job_reprioritize(zk_ledger *l, int64_t id, int prio, struct zk_diag *diag)
{
    int r;
    LPG_RETRY(l, r, reprioritize(l, id, prio, diag));
    return r;
}

/* Fails job id for its deadline: its queued partitions -> failed, then
 * the job derived (canceling the rest).  1 when it moved, 0 when not
 * (finished meanwhile, or nothing queued any more). */
static int expire_job(zk_ledger *l, int64_t id, int64_t now_ns, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    int r = lpg_begin(l, diag);
    if (r)
        return r;
    lpg_arg_i64(&a, id);
    lpg_arg_i64(&a, now_ns);
    /* the job's row, then its partitions: a transition locks a partition
     * and then its job, so a deadlock is possible; it is retried
     * (LPG_RETRY), as every transaction here is */
    PGresult *res = lpg_query(l, "SELECT state FROM jobs WHERE id = $1 AND state IN"
                                 " ('queued', 'running') AND deadline_ns > 0 AND deadline_ns <"
                                 " $2::bigint FOR UPDATE",
                              &a, 0, diag);
    if (!res) {
        r = ZK_ELEDGER;
        goto out;
    }
    int due = PQntuples(res);
    PQclear(res);
    if (!due)
        goto out;
    r = lpg_cmd(l, "UPDATE partitions SET state = 'failed', error = 'deadline exceeded',"
                   " done_ns = $2 WHERE job_id = $1 AND state = 'queued'", &a, diag);
    if (r > 0)
        r = lpg_derive_job(l, id, ZK_PART_FAILED, diag) < 0 ? ZK_ELEDGER : 1;
out:
    if (r < 0)
        return lpg_end(l, r, diag);
    int moved = r;
    r = lpg_end(l, 0, diag);
    return r < 0 ? r : moved;
}

int lpg_expire_deadlines(zk_ledger *l, int64_t now_ns, uint32_t *ret_failed,
                         struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, now_ns);
    PGresult *res = lpg_query(l, "SELECT j.id FROM jobs j WHERE j.state IN ('queued',"
                                 " 'running') AND j.deadline_ns > 0 AND j.deadline_ns <"
                                 " $1::bigint AND EXISTS (SELECT 1 FROM partitions p WHERE"
                                 " p.job_id = j.id AND p.state = 'queued') ORDER BY j.id"
                                 " LIMIT 64",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int64_t ids[64];
    int n = PQntuples(res), r = 0;
    for (int i = 0; i < n; i++)
        ids[i] = lpg_i64(res, i, 0);
    PQclear(res);
    for (int i = 0; i < n; i++) {
        LPG_RETRY(l, r, expire_job(l, ids[i], now_ns, diag));
        if (r < 0)
            return r;
        *ret_failed += (uint32_t)r;
    }
    return 0;
}

int lpg_estimate(zk_ledger *l, int prio, struct zk_ledger_estimate *ret, struct zk_diag *diag)
{
    double synth[64], start[64], fin[64];
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, prio);
    PGresult *res = lpg_query(l, "SELECT (SELECT count(*) FROM partitions p JOIN jobs j ON"
                                 " j.id = p.job_id WHERE p.state IN ('queued', 'synthesizing',"
                                 " 'ready', 'proving') AND j.state IN ('queued', 'running') AND"
                                 " j.priority >= $1), (SELECT count(*) FROM daemons WHERE"
                                 " role = 'gpud')",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    ret->ahead = (uint64_t)lpg_i64(res, 0, 0);
    ret->provers = (uint32_t)lpg_i64(res, 0, 1);
    PQclear(res);
    if (!(res = lpg_query(l, "SELECT synth_s, start_s, finalize_s FROM partitions WHERE"
                             " state = 'done' AND start_s >= 0 ORDER BY id DESC LIMIT 64",
                          NULL, 0, diag)))
        return ZK_ELEDGER;
    uint32_t n = (uint32_t)PQntuples(res);
    for (uint32_t i = 0; i < n; i++) {
        synth[i] = lpg_f64(res, (int)i, 0);
        start[i] = lpg_f64(res, (int)i, 1);
        fin[i] = lpg_f64(res, (int)i, 2);
    }
    PQclear(res);
    ret->samples = n;
    ret->synth_s = ledger_median(synth, n);
    ret->start_s = ledger_median(start, n);
    ret->finalize_s = ledger_median(fin, n);
    return 0;
}
