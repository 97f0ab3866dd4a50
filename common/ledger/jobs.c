/*
 * jobs.c -- jobs in the ledger (zk/ledger.h): submit (a job and its
 * partitions in one transaction), get, list, cancel, and the job state
 * derived from its partitions after every partition move
 * (ledger_derive_job, inside the mover's transaction).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"

#define JOB_COLS                                                                         \
    "j.id, j.key_id, k.name, j.nparts, j.state, j.out_dir, j.submitted_ns, j.started_ns," \
    " j.finished_ns, j.error, j.priority, j.deadline_ns, j.request_id, j.principal"

#define JOB_NCOLS 14   /* the columns of JOB_COLS */

/* Partition counts of job id into count[ZK_PART_STATE_COUNT]. */
static int job_counts(zk_ledger *l, int64_t id, uint32_t count[ZK_PART_STATE_COUNT],
                      struct zk_diag *diag)
{
    static const char sql_job_counts[] =
        "SELECT state, count(*) FROM partitions WHERE job_id = ? GROUP BY state";
    sqlite3_stmt *s = ledger_stmt(l, LS_JOB_COUNTS, sql_job_counts, diag);
    int r;
    if (!s)
        return ZK_ELEDGER;
    memset(count, 0, ZK_PART_STATE_COUNT * sizeof count[0]);
    sqlite3_bind_int64(s, 1, id);
    while ((r = ledger_step(l, s, diag)) > 0) {
        int st = zk_part_state_parse((const char *)sqlite3_column_text(s, 0));
        if (st >= 0)
            count[st] = (uint32_t)sqlite3_column_int64(s, 1);
    }
    return r;
}

/*
 * Moves job id to state `state` with error text `error` at time now: its
 * start time set if still 0, its finish time when finished.  The number
 * of rows changed (0 or 1) or < 0.
 */
static int job_set_state(zk_ledger *l, int64_t id, const char *state, const char *error,
                         int64_t now, int finished, struct zk_diag *diag)
{
    static const char sql_job_set_state[] =
        "UPDATE jobs SET state = ?1, error = ?2,"
        " started_ns = CASE WHEN started_ns = 0 THEN ?3 ELSE started_ns END,"
        " finished_ns = CASE WHEN ?4 THEN ?3 ELSE finished_ns END WHERE id = ?5";
    sqlite3_stmt *s = ledger_stmt(l, LS_JOB_SET_STATE, sql_job_set_state, diag);
    if (!s)
        return ZK_ELEDGER;
    sqlite3_bind_text(s, 1, state, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, error, (int)strnlen(error, 511), SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 3, now);
    sqlite3_bind_int(s, 4, finished);
    sqlite3_bind_int64(s, 5, id);
    return ledger_run(l, s, diag);
}

/*
 * Cancels job id's unfinished partitions with error text `note` at time
 * now: no owner any more (the daemon still at work finds the partition
 * canceled and drops it; the pool's slot word is its truth).  The number of
 * rows changed or < 0.
 */
static int job_cancel_parts(zk_ledger *l, int64_t id, const char *note, int64_t now,
                            struct zk_diag *diag)
{
    static const char sql_job_cancel_parts[] =
        "UPDATE partitions SET state = 'canceled', error = ?, done_ns = ?,"
        " owner_pid = 0, owner_start = 0, owner_role = ''"
        " WHERE job_id = ? AND state IN ('queued', 'synthesizing', 'ready', 'proving')";
    sqlite3_stmt *s = ledger_stmt(l, LS_JOB_CANCEL_PARTS, sql_job_cancel_parts, diag);
    if (!s)
        return ZK_ELEDGER;
    sqlite3_bind_text(s, 1, note, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, now);
    sqlite3_bind_int64(s, 3, id);
    return ledger_run(l, s, diag);
}

/*
 * Derives job id's state from its partitions (inside the caller's
 * transaction) after one of them moved to state `to`: a failed partition fails the job and cancels its unfinished
 * partitions; all done -> done; any partition out of queued -> running.
 * Terminal job states (done, failed, canceled) never change here.
 */
int ledger_derive_job(zk_ledger *l, int64_t id, int to, struct zk_diag *diag)
{
    static const char sql_job_state[] = "SELECT state, nparts FROM jobs WHERE id = ?";
    static const char sql_job_failed_err[] =
        "SELECT idx, error FROM partitions WHERE job_id = ? AND state = 'failed'"
        " ORDER BY idx LIMIT 1";
    uint32_t count[ZK_PART_STATE_COUNT];
    sqlite3_stmt *s = ledger_stmt(l, LS_JOB_STATE, sql_job_state, diag);
    if (!s)
        return ZK_ELEDGER;
    sqlite3_bind_int64(s, 1, id);
    int r = ledger_step(l, s, diag);
    if (r <= 0)
        return r ? r : zk_diag_set(diag, l->path, -ENOENT, "no job %lld", (long long)id);
    int state = zk_job_state_parse((const char *)sqlite3_column_text(s, 0));
    uint32_t nparts = (uint32_t)sqlite3_column_int64(s, 1);
    sqlite3_reset(s);
    if (state != ZK_JOB_QUEUED && state != ZK_JOB_RUNNING)
        return 0;
    /* a running job changes only when a partition is done or failed: skip
     * the count (O(partitions of the job)) for the other moves */
    if (state == ZK_JOB_RUNNING && to != ZK_PART_DONE && to != ZK_PART_FAILED)
        return 0;
    if ((r = job_counts(l, id, count, diag)) < 0)
        return r;
    int finished, next = ledger_job_next(state, count, nparts, &finished);
    char error[600] = "";
    int64_t now = ledger_now_ns();
    if (next == ZK_JOB_FAILED) {
        if (!(s = ledger_stmt(l, LS_JOB_FAILED_ERR, sql_job_failed_err, diag)))
            return ZK_ELEDGER;
        sqlite3_bind_int64(s, 1, id);
        if ((r = ledger_step(l, s, diag)) < 0)
            return r;
        if (r > 0) {
            snprintf(error, sizeof error, "partition %lld failed: %s",
                     (long long)sqlite3_column_int64(s, 0),
                     (const char *)sqlite3_column_text(s, 1));
            sqlite3_reset(s);
        }
        if ((r = job_cancel_parts(l, id, "canceled: the job failed", now, diag)) < 0)
            return r;
    }
    if (next == state)
        return 0;
    r = job_set_state(l, id, zk_job_state_name(next), error, now, finished, diag);
    return r < 0 ? r : 0;
}

/* A job of n partitions: witness[i] is the .wtns path, or with inputs the
 * name the input was read from, and input[i] (len[i] bytes) its text. */
int lsq_job_submit(zk_ledger *l, int64_t key_id, const char *out_dir,
                   struct zk_ledger_submit_opts *o, const char *const *witness,
                   const char *const *input, const size_t *len, uint32_t n, int64_t *ret_id,
                   struct zk_diag *diag)
{
    static const char sql_job_insert[] =
        "INSERT INTO jobs (key_id, nparts, state, out_dir, submitted_ns, priority,"
        " deadline_ns, request_id, principal, request_digest)"
        " VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)";
    static const char sql_job_set_out[] = "UPDATE jobs SET out_dir = ? WHERE id = ?";
    static const char sql_part_insert[] =
        "INSERT INTO partitions (job_id, idx, witness, state, queued_ns, input)"
        " VALUES (?, ?, ?, 'queued', ?, ?)";
    if (n == 0)
        return zk_diag_set(diag, l->path, -EINVAL, "a job needs at least one partition");
    if (out_dir && strlen(out_dir) >= 4096)
        return zk_diag_set(diag, l->path, -ENAMETOOLONG, "output directory name too long");
    for (uint32_t i = 0; i < n; i++)
        if (strlen(witness[i]) >= 4096)
            return zk_diag_set(diag, l->path, -ENAMETOOLONG, "witness path too long");
    struct zk_ledger_key key;
    int64_t now = ledger_now_ns(), id = 0;
    const char *rid = o && o->request_id && o->request_id[0] ? o->request_id : NULL;
    char who[ZK_LEDGER_PRINCIPAL_MAX + 1], digest[2 * ZK_SHA256_LEN + 1] = "";
    ledger_principal(o, 1, who);
    if (rid)
        ledger_request_digest(o, witness, input, len, n, digest);
    int r = ledger_begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    if ((r = lsq_key_get_id(l, key_id, &key, diag)) < 0)
        goto out;
    /* the write lock is held: of two clients with one request id, the
     * second finds the first's job here; only its own submitter's */
    if (rid) {
        int64_t other_key = 0;
        char other[2 * ZK_SHA256_LEN + 1] = "";
        if ((r = lsq_job_by_request(l, who, rid, &id, &other_key, other, diag)) < 0)
            goto out;
        if (r > 0) {
            r = ledger_request_reused(NULL, rid, id, other_key == key_id, other, digest,
                                      diag);
            o->existing = !r;
            goto out;
        }
    }
    r = ZK_ELEDGER;
    if (!(s = ledger_stmt(l, LS_JOB_INSERT, sql_job_insert, diag)))
        goto out;
    sqlite3_bind_int64(s, 1, key_id);
    sqlite3_bind_int64(s, 2, n);
    sqlite3_bind_text(s, 3, out_dir ? out_dir : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, now);
    sqlite3_bind_int(s, 5, o && o->priority >= 0 ? o->priority : key.priority);
    sqlite3_bind_int64(s, 6, o ? o->deadline_ns : 0);
    if (rid)
        sqlite3_bind_text(s, 7, rid, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 7);
    sqlite3_bind_text(s, 8, who, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 9, digest, -1, SQLITE_STATIC);
    if ((r = ledger_run(l, s, diag)) < 0)
        goto out;
    id = sqlite3_last_insert_rowid(l->db);
    if (!out_dir) {
        char buf[4200];
        const char *slash = strrchr(l->path, '/');
        int dl = slash ? (int)(slash - l->path) : 1;
        snprintf(buf, sizeof buf, "%.*s/jobs/%lld", dl, slash ? l->path : ".", (long long)id);
        r = ZK_ELEDGER;
        if (!(s = ledger_stmt(l, LS_JOB_SET_OUT, sql_job_set_out, diag)))
            goto out;
        sqlite3_bind_text(s, 1, buf, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, id);
        if ((r = ledger_run(l, s, diag)) < 0)
            goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        r = ZK_ELEDGER;
        if (!(s = ledger_stmt(l, LS_PART_INSERT, sql_part_insert, diag)))
            goto out;
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_int64(s, 2, i);
        sqlite3_bind_text(s, 3, witness[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 4, now);
        char *sealed = NULL;
        size_t slen = 0;
        if (input && l->seal &&
            (r = l->seal(l->seal_ctx, id, i, input[i], len[i], &sealed, &slen)) != 0) {
            r = zk_diag_set(diag, l->path, r < 0 ? r : -EIO, "cannot seal input %u", i);
            goto out;
        }
        if (input)
            sqlite3_bind_blob64(s, 5, sealed ? sealed : input[i], sealed ? slen : len[i],
                                SQLITE_STATIC);
        else
            sqlite3_bind_null(s, 5);
        r = ledger_run(l, s, diag);
        sqlite3_clear_bindings(s);
        free(sealed);
        if (r < 0)
            goto out;
    }
    r = 0;
out:
    r = ledger_end(l, r, diag);
    if (!r)
        *ret_id = id;
    return r;
}

/* Row s (JOB_COLS) into *j, counts zeroed. */
static void job_row(sqlite3_stmt *s, struct zk_ledger_job *j)
{
    memset(j, 0, sizeof *j);
    j->id = sqlite3_column_int64(s, 0);
    j->key_id = sqlite3_column_int64(s, 1);
    ledger_text(j->key_name, sizeof j->key_name, s, 2);
    j->nparts = (uint32_t)sqlite3_column_int64(s, 3);
    j->state = zk_job_state_parse((const char *)sqlite3_column_text(s, 4));
    ledger_text(j->out_dir, sizeof j->out_dir, s, 5);
    j->submitted_ns = sqlite3_column_int64(s, 6);
    j->started_ns = sqlite3_column_int64(s, 7);
    j->finished_ns = sqlite3_column_int64(s, 8);
    ledger_text(j->error, sizeof j->error, s, 9);
    j->priority = sqlite3_column_int(s, 10);
    j->deadline_ns = sqlite3_column_int64(s, 11);
    ledger_text(j->request_id, sizeof j->request_id, s, 12);
    ledger_text(j->principal, sizeof j->principal, s, 13);
}

/* Job id with its counts; call inside a transaction for a consistent view. */
static int job_get(zk_ledger *l, int64_t id, struct zk_ledger_job *ret, struct zk_diag *diag)
{
    static const char sql_job_get[] =
        "SELECT " JOB_COLS " FROM jobs j JOIN keys k ON k.id = j.key_id WHERE j.id = ?";
    struct zk_ledger_job j;
    sqlite3_stmt *s = ledger_stmt(l, LS_JOB_GET, sql_job_get, diag);
    if (!s)
        return ZK_ELEDGER;
    sqlite3_bind_int64(s, 1, id);
    int r = ledger_step(l, s, diag);
    if (r == 0)
        return zk_diag_set(diag, l->path, -ENOENT, "no job %lld", (long long)id);
    if (r < 0)
        return r;
    job_row(s, &j);
    sqlite3_reset(s);
    if ((r = job_counts(l, id, j.count, diag)) < 0)
        return r;
    *ret = j;
    return 0;
}

int lsq_job_get(zk_ledger *l, int64_t id, struct zk_ledger_job *ret,
                      struct zk_diag *diag)
{
    int r = ledger_exec(l, "BEGIN", diag);
    if (r)
        return r;
    r = job_get(l, id, ret, diag);
    return ledger_end(l, r, diag);
}

int lsq_job_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_job *j),
                       void *ctx, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    struct zk_ledger_job j;
    int r;
    static const char q[] =
        "SELECT " JOB_COLS ", (SELECT group_concat(state || ':' || n) FROM"
        " (SELECT state, count(*) AS n FROM partitions WHERE job_id = j.id GROUP BY state))"
        " FROM jobs j JOIN keys k ON k.id = j.key_id ORDER BY j.id";
    if (sqlite3_prepare_v2(l->db, q, -1, &s, NULL))
        return ledger_dberr(l, diag);
    while ((r = ledger_step(l, s, diag)) > 0) {
        job_row(s, &j);
        const char *c = (const char *)sqlite3_column_text(s, JOB_NCOLS);
        while (c && *c) {   /* "state:n,state:n" */
            char name[16];
            unsigned long n;
            int used = 0;
            if (sscanf(c, "%15[a-z]:%lu%n", name, &n, &used) != 2)
                break;
            int st = zk_part_state_parse(name);
            if (st >= 0)
                j.count[st] = (uint32_t)n;
            c += used;
            if (*c == ',')
                c++;
        }
        if ((r = fn(ctx, &j)) != 0)
            break;
    }
    sqlite3_finalize(s);
    return r;
}

int lsq_job_cancel(zk_ledger *l, int64_t id, struct zk_diag *diag)
{
    struct zk_ledger_job j;
    int r = ledger_begin(l, diag);
    if (r)
        return r;
    if ((r = job_get(l, id, &j, diag)) < 0)
        goto out;
    if (j.state != ZK_JOB_QUEUED && j.state != ZK_JOB_RUNNING) {
        r = zk_diag_set(diag, l->path, ZK_ESTATE, "job %lld is %s already", (long long)id,
                        zk_job_state_name(j.state));
        goto out;
    }
    int64_t now = ledger_now_ns();
    if ((r = job_cancel_parts(l, id, "canceled", now, diag)) < 0)
        goto out;
    r = job_set_state(l, id, "canceled", "canceled", now, 1, diag);
    if (r > 0)
        r = 0;
out:
    return ledger_end(l, r, diag);
}
