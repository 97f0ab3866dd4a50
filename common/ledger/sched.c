/*
 * sched.c -- scheduling in the SQLite ledger (zk/ledger.h,
 * docs/scheduling.md): the request id of a submit, the highest class
 * queued, reprioritize, deadlines and the admission estimate.  The claim
 * order itself is in parts.c (LSQ_CLAIM_ORDER).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"

int lsq_job_by_request(zk_ledger *l, const char *principal, const char *request_id,
                       int64_t *ret_id, int64_t *ret_key_id, char *ret_digest,
                       struct zk_diag *diag)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(l->db, "SELECT id, key_id, request_digest FROM jobs WHERE"
                                  " principal = ? AND request_id = ?", -1, &s, NULL))
        return ledger_dberr(l, diag);
    sqlite3_bind_text(s, 1, principal, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, request_id, -1, SQLITE_STATIC);
    int r = ledger_step(l, s, diag);
    if (r > 0) {
        *ret_id = sqlite3_column_int64(s, 0);
        *ret_key_id = sqlite3_column_int64(s, 1);
        ledger_text(ret_digest, 2 * ZK_SHA256_LEN + 1, s, 2);
    }
    sqlite3_finalize(s);
    return r;
}

int lsq_queued_top(zk_ledger *l, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT max(j.priority) FROM partitions p JOIN jobs j ON j.id ="
                           " p.job_id WHERE p.state = 'queued' AND j.state IN ('queued',"
                           " 'running') AND " LSQ_CLAIM_KEYS("?1"),
                           -1, &s, NULL))
        return ledger_dberr(l, diag);
    if (l->claim_keys)
        sqlite3_bind_text(s, 1, l->claim_keys, -1, SQLITE_STATIC);
    int r = ledger_step(l, s, diag);
    if (r > 0) {
        r = sqlite3_column_type(s, 0) == SQLITE_NULL ? 0 : 1 + sqlite3_column_int(s, 0);
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return r;
}

int lsq_job_reprioritize(zk_ledger *l, int64_t id, int prio, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    int r = ledger_begin(l, diag);
    if (r)
        return r;
    if (sqlite3_prepare_v2(l->db, "SELECT state FROM jobs WHERE id = ?", -1, &s, NULL)) {
        r = ledger_dberr(l, diag);
        goto out;
    }
    sqlite3_bind_int64(s, 1, id);
    if ((r = ledger_step(l, s, diag)) > 0) {
        int st = zk_job_state_parse((const char *)sqlite3_column_text(s, 0));
        r = st == ZK_JOB_QUEUED || st == ZK_JOB_RUNNING
                ? 0
                : zk_diag_set(diag, l->path, ZK_ESTATE, "job %lld is %s", (long long)id,
                              zk_job_state_name(st));
    } else if (r == 0) {
        r = zk_diag_set(diag, l->path, -ENOENT, "no job %lld", (long long)id);
    }
    sqlite3_finalize(s);
    if (r)
        goto out;
    if (sqlite3_prepare_v2(l->db, "UPDATE jobs SET priority = ? WHERE id = ?", -1, &s, NULL)) {
        r = ledger_dberr(l, diag);
        goto out;
    }
    sqlite3_bind_int(s, 1, prio);
    sqlite3_bind_int64(s, 2, id);
    r = ledger_run(l, s, diag);
    sqlite3_finalize(s);
    r = r < 0 ? r : 0;
out:
    return ledger_end(l, r, diag);
}

int lsq_expire_deadlines(zk_ledger *l, int64_t now_ns, uint32_t *ret_failed,
                         struct zk_diag *diag)
{
    int64_t ids[64];
    int n = 0;
    sqlite3_stmt *s;
    /* a cheap read first: nearly always nothing is late */
    if (sqlite3_prepare_v2(l->db,
                           "SELECT j.id FROM jobs j WHERE j.state IN ('queued', 'running') AND"
                           " j.deadline_ns > 0 AND j.deadline_ns < ? AND EXISTS (SELECT 1 FROM"
                           " partitions p WHERE p.job_id = j.id AND p.state = 'queued')"
                           " ORDER BY j.id LIMIT 64",
                           -1, &s, NULL))
        return ledger_dberr(l, diag);
    sqlite3_bind_int64(s, 1, now_ns);
    int r;
    while ((r = ledger_step(l, s, diag)) > 0)
        ids[n++] = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    if (r < 0)
        return r;
    for (int i = 0; i < n; i++) {
        if ((r = ledger_begin(l, diag)))
            return r;
        if (sqlite3_prepare_v2(l->db,
                               "UPDATE partitions SET state = 'failed', error = 'deadline"
                               " exceeded', done_ns = ?1 WHERE job_id = ?2 AND state = 'queued'"
                               " AND (SELECT state IN ('queued', 'running') FROM jobs WHERE id ="
                               " ?2)",
                               -1, &s, NULL)) {
            r = ledger_end(l, ledger_dberr(l, diag), diag);
            return r;
        }
        sqlite3_bind_int64(s, 1, now_ns);
        sqlite3_bind_int64(s, 2, ids[i]);
        r = ledger_run(l, s, diag);
        sqlite3_finalize(s);
        int moved = r;
        if (r > 0)
            r = ledger_derive_job(l, ids[i], ZK_PART_FAILED, diag);
        if ((r = ledger_end(l, r < 0 ? r : 0, diag)))
            return r;
        if (moved > 0)
            (*ret_failed)++;
    }
    return 0;
}

int lsq_estimate(zk_ledger *l, int prio, struct zk_ledger_estimate *ret, struct zk_diag *diag)
{
    double synth[64], start[64], fin[64];
    uint32_t n = 0;
    sqlite3_stmt *s;
    int r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT count(*) FROM partitions p JOIN jobs j ON j.id = p.job_id"
                           " WHERE p.state IN ('queued', 'synthesizing', 'ready', 'proving')"
                           " AND j.state IN ('queued', 'running') AND j.priority >= ?",
                           -1, &s, NULL))
        return ledger_dberr(l, diag);
    sqlite3_bind_int(s, 1, prio);
    if ((r = ledger_step(l, s, diag)) > 0)
        ret->ahead = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    if (r < 0)
        return r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT synth_s, start_s, finalize_s FROM partitions WHERE state ="
                           " 'done' AND start_s >= 0 ORDER BY id DESC LIMIT 64",
                           -1, &s, NULL))
        return ledger_dberr(l, diag);
    while ((r = ledger_step(l, s, diag)) > 0) {
        synth[n] = sqlite3_column_double(s, 0);
        start[n] = sqlite3_column_double(s, 1);
        fin[n] = sqlite3_column_double(s, 2);
        n++;
    }
    sqlite3_finalize(s);
    if (r < 0)
        return r;
    ret->samples = n;
    ret->synth_s = ledger_median(synth, n);
    ret->start_s = ledger_median(start, n);
    ret->finalize_s = ledger_median(fin, n);
    if (sqlite3_prepare_v2(l->db, "SELECT count(*) FROM daemons WHERE role = 'gpud'", -1, &s,
                           NULL))
        return ledger_dberr(l, diag);
    if ((r = ledger_step(l, s, diag)) > 0)
        ret->provers = (uint32_t)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return r < 0 ? r : 0;
}
