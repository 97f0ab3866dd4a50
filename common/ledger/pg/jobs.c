/*
 * jobs.c -- jobs in the ledger on PostgreSQL (zk/ledger.h): submit (a job
 * and its partitions in one transaction), get, list, cancel, and the job
 * state derived from its partitions after every partition move
 * (lpg_derive_job, inside the mover's transaction, with the job's row
 * locked so that two machines finishing its last partitions at once
 * cannot both miss that it is done).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"

#define JOB_COLS                                                                         \
    "j.id, j.key_id, k.name, j.nparts, j.state, j.out_dir, j.submitted_ns, j.started_ns," \
    " j.finished_ns, j.error, j.priority, j.deadline_ns, coalesce(zkslot_request_id(j.id), ''),"  \
    " j.principal"

#define JOB_NCOLS 14   /* the columns of JOB_COLS */

/* Partition counts of job id into count[ZK_PART_STATE_COUNT]. */
static int job_counts(zk_ledger *l, int64_t id, uint32_t count[ZK_PART_STATE_COUNT],
                      struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, id);
    PGresult *res = lpg_query(l, "SELECT state, count(*) FROM partitions WHERE job_id = $1"
                                 " GROUP BY state", &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    memset(count, 0, ZK_PART_STATE_COUNT * sizeof count[0]);
    for (int i = 0; i < PQntuples(res); i++) {
        int st = zk_part_state_parse(PQgetvalue(res, i, 0));
        if (st >= 0)
            count[st] = (uint32_t)lpg_i64(res, i, 1);
    }
    PQclear(res);
    return 0;
}

/* Job id -> state with error text, started if not yet, finished when `finished`. */
static int job_set_state(zk_ledger *l, int64_t id, const char *state, const char *error,
                         int64_t now, int finished, struct zk_diag *diag)
{
    char err[512];
    struct lpg_args a = { 0 };
    snprintf(err, sizeof err, "%s", error);
    lpg_arg_str(&a, state);
    lpg_arg_str(&a, err);
    lpg_arg_i64(&a, now);
    lpg_arg_i64(&a, finished);
    lpg_arg_i64(&a, id);
    return lpg_cmd(l, "UPDATE jobs SET state = $1, error = $2,"
                      " started_ns = CASE WHEN started_ns = 0 THEN $3 ELSE started_ns END,"
                      " finished_ns = CASE WHEN $4 <> 0 THEN $3 ELSE finished_ns END"
                      " WHERE id = $5", &a, diag);
}

/* Job id's unfinished partitions -> canceled with `note`, no owner. */
static int job_cancel_parts(zk_ledger *l, int64_t id, const char *note, int64_t now,
                            struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_str(&a, note);
    lpg_arg_i64(&a, now);
    lpg_arg_i64(&a, id);
    return lpg_cmd(l, "UPDATE partitions SET state = 'canceled', error = $1, done_ns = $2,"
                      " owner_pid = 0, owner_start = 0, owner_role = ''"
                      " WHERE job_id = $3 AND state IN ('queued', 'synthesizing', 'ready',"
                      " 'proving')", &a, diag);
}

/* Job id's state and nparts, the row locked when `lock`; 0, -ENOENT or < 0. */
static int job_state(zk_ledger *l, int64_t id, int lock, int *state, uint32_t *nparts,
                     struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, id);
    PGresult *res = lpg_query(l, lock ? "SELECT state, nparts FROM jobs WHERE id = $1 FOR UPDATE"
                                      : "SELECT state, nparts FROM jobs WHERE id = $1",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int n = PQntuples(res);
    if (n) {
        *state = zk_job_state_parse(PQgetvalue(res, 0, 0));
        *nparts = (uint32_t)lpg_i64(res, 0, 1);
    }
    PQclear(res);
    return n ? 0 : zk_diag_set(diag, l->path, -ENOENT, "no job %lld", (long long)id);
}

int lpg_derive_job(zk_ledger *l, int64_t id, int to, struct zk_diag *diag)
{
    uint32_t count[ZK_PART_STATE_COUNT], nparts;
    int state, r;
    /* unlocked first: most moves leave a running job as it is, and claims
     * by many machines must not queue up on the job's row */
    if ((r = job_state(l, id, 0, &state, &nparts, diag)) < 0)
        return r;
    if (state != ZK_JOB_QUEUED && state != ZK_JOB_RUNNING)
        return 0;
    if (state == ZK_JOB_RUNNING && to != ZK_PART_DONE && to != ZK_PART_FAILED)
        return 0;
    if ((r = job_state(l, id, 1, &state, &nparts, diag)) < 0)
        return r;
    if (state != ZK_JOB_QUEUED && state != ZK_JOB_RUNNING)
        return 0;
    if ((r = job_counts(l, id, count, diag)) < 0)
        return r;
    int finished, next = ledger_job_next(state, count, nparts, &finished);
    char error[600] = "";
    int64_t now = lpg_now_ns(l);
    if (next == ZK_JOB_FAILED) {
        struct lpg_args a = { 0 };
        lpg_arg_i64(&a, id);
        PGresult *res = lpg_query(l, "SELECT idx, error FROM partitions WHERE job_id = $1 AND"
                                     " state = 'failed' ORDER BY idx LIMIT 1", &a, 0, diag);
        if (!res)
            return ZK_ELEDGER;
        if (PQntuples(res))
            snprintf(error, sizeof error, "partition %lld failed: %s",
                     (long long)lpg_i64(res, 0, 0), PQgetvalue(res, 0, 1));
        PQclear(res);
        if ((r = job_cancel_parts(l, id, "canceled: the job failed", now, diag)) < 0)
            return r;
    }
    if (next == state)
        return 0;
    r = job_set_state(l, id, zk_job_state_name(next), error, now, finished, diag);
    return r < 0 ? r : 0;
}

static int job_submit(zk_ledger *l, int64_t key_id, const char *out_dir,
                      struct zk_ledger_submit_opts *o, const char *const *witness,
                      const char *const *input, const size_t *len, uint32_t n,
                      int64_t *ret_id, struct zk_diag *diag)
{
    struct zk_ledger_key key;
    int64_t now = lpg_now_ns(l), id = 0;
    const char *rid = o && o->request_id && o->request_id[0] ? o->request_id : NULL;
    char who[ZK_LEDGER_PRINCIPAL_MAX + 1], digest[2 * ZK_SHA256_LEN + 1] = "";
    ledger_principal(o, 0, who);
    if (rid)
        ledger_request_digest(o, witness, input, len, n, digest);
    int r = lpg_begin(l, diag);
    if (r)
        return r;
    if ((r = lpg_key_get_id(l, key_id, &key, diag)) < 0)
        goto out;
    /* no out_dir: "" = each proving machine's "<state_dir>/jobs/<id>" */
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, key_id);
    lpg_arg_i64(&a, n);
    lpg_arg_str(&a, out_dir ? out_dir : "");
    lpg_arg_i64(&a, now);
    lpg_arg_i64(&a, o && o->priority >= 0 ? o->priority : key.priority);
    lpg_arg_i64(&a, o ? o->deadline_ns : 0);
    lpg_arg_str(&a, rid);
    lpg_arg_str(&a, who);
    lpg_arg_str(&a, digest);
    lpg_arg_str(&a, o && o->force ? "true" : "false");
    /* of clients racing with one request id, the unique index (the role,
     * the principal, the id) lets one insert; the others wait for it to
     * commit and then find its job.  Another role's id is another key.
     * No conflict target: naming one needs SELECT on request_id, which a
     * submitter does not have (roles.c); jobs_request is the only unique
     * index a submit can hit (ids are generated) */
    PGresult *res = lpg_query(l, "INSERT INTO jobs (key_id, nparts, state, out_dir,"
                                 " submitted_ns, priority, deadline_ns, request_id, principal,"
                                 " request_digest, deadline_forced) VALUES ($1, $2, 'queued', $3,"
                                 " $4, $5, $6, $7, $8, $9, $10::boolean) ON CONFLICT DO NOTHING"
                                 " RETURNING id",
                              &a, 0, diag);
    if (!res) {
        r = ZK_ELEDGER;
        goto out;
    }
    if (PQntuples(res) == 0) {
        PQclear(res);
        struct lpg_args q = { 0 };
        lpg_arg_str(&q, who);
        lpg_arg_str(&q, rid);
        /* the session's own job only: others' ids are not even readable */
        if (!(res = lpg_query(l, "SELECT id, key_id, request_digest FROM"
                                 " zkslot_own_request($1, $2)", &q, 0, diag))) {
            r = ZK_ELEDGER;
            goto out;
        }
        if (PQntuples(res) == 1) {
            id = lpg_i64(res, 0, 0);
            r = ledger_request_reused(NULL, rid, id, lpg_i64(res, 0, 1) == key_id,
                                      PQgetvalue(res, 0, 2), digest, diag);
            r = r < 0 ? r : 1;
        } else {   /* the conflict's row is gone (cannot be: jobs are not deleted) */
            r = zk_diag_set(diag, l->path, ZK_ELEDGER,
                            "request id '%s': its job was not found", rid);
        }
        PQclear(res);
        goto out;
    }
    id = lpg_i64(res, 0, 0);
    PQclear(res);
    for (uint32_t i = 0; i < n && r >= 0; i++) {
        struct lpg_args p = { 0 };
        lpg_arg_i64(&p, id);
        lpg_arg_i64(&p, i);
        lpg_arg_str(&p, witness[i]);
        lpg_arg_i64(&p, now);
        char *sealed = NULL;
        size_t slen = 0;
        if (input && l->seal &&
            (r = l->seal(l->seal_ctx, id, i, input[i], len[i], &sealed, &slen)) != 0) {
            r = zk_diag_set(diag, l->path, r < 0 ? r : -EIO, "cannot seal input %u", i);
            break;
        }
        lpg_arg_bytes(&p, input ? (sealed ? sealed : input[i]) : NULL,
                      input ? (sealed ? slen : len[i]) : 0);
        r = lpg_cmd(l, "INSERT INTO partitions (job_id, idx, witness, state, queued_ns, input)"
                       " VALUES ($1, $2, $3, 'queued', $4, $5)", &p, diag);
        free(sealed);
    }
    r = r < 0 ? r : 0;
out:
    if (r == 1) {   /* an earlier job: nothing of ours to keep */
        o->existing = 1;
        r = lpg_end(l, 0, diag);   /* wrote nothing */
    } else {
        r = lpg_end(l, r, diag);
    }
    if (!r)
        *ret_id = id;
    return r;
}

int lpg_job_submit(zk_ledger *l, int64_t key_id, const char *out_dir,
                   struct zk_ledger_submit_opts *o, const char *const *witness,
                   const char *const *input, const size_t *len, uint32_t n, int64_t *ret_id,
                   struct zk_diag *diag)
{
    if (n == 0)
        return zk_diag_set(diag, l->path, -EINVAL, "a job needs at least one partition");
    if (out_dir && strlen(out_dir) >= 4096)
        return zk_diag_set(diag, l->path, -ENAMETOOLONG, "output directory name too long");
    for (uint32_t i = 0; i < n; i++)
        if (strlen(witness[i]) >= 4096)
            return zk_diag_set(diag, l->path, -ENAMETOOLONG, "witness path too long");
    int r;
    LPG_RETRY(l, r, job_submit(l, key_id, out_dir, o, witness, input, len, n, ret_id, diag));
    return r;
}

/* Row `row` of res (JOB_COLS) into *j, counts zeroed. */
static void job_row(const PGresult *res, int row, struct zk_ledger_job *j)
{
    memset(j, 0, sizeof *j);
    j->id = lpg_i64(res, row, 0);
    j->key_id = lpg_i64(res, row, 1);
    lpg_text(j->key_name, sizeof j->key_name, res, row, 2);
    j->nparts = (uint32_t)lpg_i64(res, row, 3);
    j->state = zk_job_state_parse(PQgetvalue(res, row, 4));
    lpg_text(j->out_dir, sizeof j->out_dir, res, row, 5);
    j->submitted_ns = lpg_i64(res, row, 6);
    j->started_ns = lpg_i64(res, row, 7);
    j->finished_ns = lpg_i64(res, row, 8);
    lpg_text(j->error, sizeof j->error, res, row, 9);
    j->priority = (int)lpg_i64(res, row, 10);
    j->deadline_ns = lpg_i64(res, row, 11);
    lpg_text(j->request_id, sizeof j->request_id, res, row, 12);
    lpg_text(j->principal, sizeof j->principal, res, row, 13);
}

/* "state:n,state:n" into j->count. */
static void parse_counts(const char *c, struct zk_ledger_job *j)
{
    while (c && *c) {
        char name[16];
        unsigned long n;
        int used = 0;
        if (sscanf(c, "%15[a-z]:%lu%n", name, &n, &used) != 2)
            break;
        int st = zk_part_state_parse(name);
        if (st >= 0)
            j->count[st] = (uint32_t)n;
        c += used;
        if (*c == ',')
            c++;
    }
}

/* Jobs with their counts in one statement (one snapshot); where: "" or a condition. */
static int job_query(zk_ledger *l, const char *where, const struct lpg_args *a,
                     int (*fn)(void *ctx, const struct zk_ledger_job *j), void *ctx,
                     struct zk_diag *diag)
{
    char q[1024];
    snprintf(q, sizeof q,
             "SELECT " JOB_COLS ", (SELECT string_agg(state || ':' || n, ',') FROM"
             " (SELECT state, count(*) AS n FROM partitions WHERE job_id = j.id GROUP BY state)"
             " c) FROM jobs j JOIN keys k ON k.id = j.key_id %s ORDER BY j.id", where);
    PGresult *res = lpg_query(l, q, a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int r = 0, n = PQntuples(res);
    struct zk_ledger_job j;
    for (int i = 0; i < n && !r; i++) {
        job_row(res, i, &j);
        parse_counts(PQgetvalue(res, i, JOB_NCOLS), &j);
        r = fn(ctx, &j);
    }
    PQclear(res);
    return r < 0 || n ? r : 1;
}

static int job_copy(void *ctx, const struct zk_ledger_job *j)
{
    *(struct zk_ledger_job *)ctx = *j;
    return 0;
}

int lpg_job_get(zk_ledger *l, int64_t id, struct zk_ledger_job *ret, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, id);
    int r = job_query(l, "WHERE j.id = $1", &a, job_copy, ret, diag);
    if (r == 1)
        return zk_diag_set(diag, l->path, -ENOENT, "no job %lld", (long long)id);
    return r;
}

int lpg_job_list(zk_ledger *l, int (*fn)(void *ctx, const struct zk_ledger_job *j), void *ctx,
                 struct zk_diag *diag)
{
    int r = job_query(l, "", NULL, fn, ctx, diag);
    return r == 1 ? 0 : r;
}

static int job_cancel(zk_ledger *l, int64_t id, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, id);
    int state, r = lpg_begin(l, diag);
    uint32_t nparts;
    if (r)
        return r;
    /* the partitions first, then the job: the transitions' order */
    PGresult *res = lpg_query(l, "SELECT id FROM partitions WHERE job_id = $1 ORDER BY id"
                                 " FOR UPDATE", &a, 0, diag);
    if (!res) {
        r = ZK_ELEDGER;
        goto out;
    }
    PQclear(res);
    if ((r = job_state(l, id, 1, &state, &nparts, diag)) < 0)
        goto out;
    if (state != ZK_JOB_QUEUED && state != ZK_JOB_RUNNING) {
        r = zk_diag_set(diag, l->path, ZK_ESTATE, "job %lld is %s already", (long long)id,
                        zk_job_state_name(state));
        goto out;
    }
    int64_t now = lpg_now_ns(l);
    if ((r = job_cancel_parts(l, id, "canceled", now, diag)) < 0)
        goto out;
    r = job_set_state(l, id, "canceled", "canceled", now, 1, diag);
    r = r < 0 ? r : 0;
out:
    return lpg_end(l, r, diag);
}

int lpg_job_cancel(zk_ledger *l, int64_t id, struct zk_diag *diag)
{
    int r;
    LPG_RETRY(l, r, job_cancel(l, id, diag));
    return r;
}
