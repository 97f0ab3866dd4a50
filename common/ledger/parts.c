/*
 * parts.c -- partitions in the ledger (zk/ledger.h): reads (get, list,
 * input) and the transitions the daemons make: claim (queued ->
 * synthesizing), ready, proving, done, error (re-queued or failed) and
 * requeue.  Each transition is one BEGIN IMMEDIATE transaction that reads
 * the partition, checks its state and owner, writes it and derives its
 * job's state again (ledger_derive_job).
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"
#include "zk/proc.h"

#define PART_COLS                                                                       \
    "p.id, p.job_id, j.key_id, p.idx, p.witness, p.state, p.attempts, p.errors, p.proofs," \
    " p.owner_pid, p.owner_start, p.owner_role, p.slot, p.synth_s, p.wait_s, p.start_s,"   \
    " p.finalize_s, p.queued_ns, p.ready_ns, p.done_ns, p.error, p.input IS NOT NULL,"   \
    " p.witness_s, p.owner_ns, p.owner_boot, j.priority, j.deadline_ns, p.statement,"    \
    " p.owner_btime"

/* Row s (PART_COLS) into *p. */
static void part_row(sqlite3_stmt *s, struct zk_ledger_part *p)
{
    memset(p, 0, sizeof *p);
    p->id = sqlite3_column_int64(s, 0);
    p->job_id = sqlite3_column_int64(s, 1);
    p->key_id = sqlite3_column_int64(s, 2);
    p->index = (uint32_t)sqlite3_column_int64(s, 3);
    ledger_text(p->witness, sizeof p->witness, s, 4);
    p->state = zk_part_state_parse((const char *)sqlite3_column_text(s, 5));
    p->attempts = (uint32_t)sqlite3_column_int64(s, 6);
    p->errors = (uint32_t)sqlite3_column_int64(s, 7);
    p->proofs = (uint32_t)sqlite3_column_int64(s, 8);
    p->owner.pid = (int32_t)sqlite3_column_int64(s, 9);
    p->owner.start = (uint64_t)sqlite3_column_int64(s, 10);
    ledger_text(p->owner_role, sizeof p->owner_role, s, 11);
    p->slot = (int32_t)sqlite3_column_int64(s, 12);
    p->synth_s = sqlite3_column_double(s, 13);
    p->wait_s = sqlite3_column_double(s, 14);
    p->start_s = sqlite3_column_double(s, 15);
    p->finalize_s = sqlite3_column_double(s, 16);
    p->queued_ns = sqlite3_column_int64(s, 17);
    p->ready_ns = sqlite3_column_int64(s, 18);
    p->done_ns = sqlite3_column_int64(s, 19);
    ledger_text(p->error, sizeof p->error, s, 20);
    p->has_input = sqlite3_column_int(s, 21);
    p->witness_s = sqlite3_column_double(s, 22);
    p->owner.pidns = (uint64_t)sqlite3_column_int64(s, 23);
    p->owner.boot = (uint64_t)sqlite3_column_int64(s, 24);
    p->priority = sqlite3_column_int(s, 25);
    p->deadline_ns = sqlite3_column_int64(s, 26);
    ledger_text(p->statement, sizeof p->statement, s, 27);
    p->owner.btime = (uint64_t)sqlite3_column_int64(s, 28);
}

int lsq_part_list(zk_ledger *l, int64_t job_id,
                        int (*fn)(void *ctx, const struct zk_ledger_part *p), void *ctx,
                        struct zk_diag *diag)
{
    sqlite3_stmt *s;
    struct zk_ledger_part p;
    int r;
    if (sqlite3_prepare_v2(l->db,
                           "SELECT " PART_COLS " FROM partitions p JOIN jobs j ON j.id ="
                           " p.job_id WHERE p.job_id = ? ORDER BY p.idx",
                           -1, &s, NULL))
        return ledger_dberr(l, diag);
    sqlite3_bind_int64(s, 1, job_id);
    while ((r = ledger_step(l, s, diag)) > 0) {
        part_row(s, &p);
        if ((r = fn(ctx, &p)) != 0)
            break;
    }
    sqlite3_finalize(s);
    return r;
}

/* Partition id into *ret (inside or outside a transaction). */
static int part_get(zk_ledger *l, int64_t id, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    static const char sql_part_get[] =
        "SELECT " PART_COLS " FROM partitions p JOIN jobs j ON j.id = p.job_id WHERE p.id = ?";
    sqlite3_stmt *s = ledger_stmt(l, LS_PART_GET, sql_part_get, diag);
    if (!s)
        return ZK_ELEDGER;
    sqlite3_bind_int64(s, 1, id);
    int r = ledger_step(l, s, diag);
    if (r == 0)
        return zk_diag_set(diag, l->path, -ENOENT, "no partition %lld", (long long)id);
    if (r < 0)
        return r;
    part_row(s, ret);
    sqlite3_reset(s);
    return 0;
}

/*
 * Opens the write transaction of a transition and reads partition id into
 * *p.  0 with the transaction open, or < 0 with none (rolled back).
 */
static int part_begin(zk_ledger *l, int64_t id, struct zk_ledger_part *p, struct zk_diag *diag)
{
    int r = ledger_begin(l, diag);
    if (r)
        return r;
    if ((r = part_get(l, id, p, diag)) < 0)
        return ledger_end(l, r, diag);
    return 0;
}

int lsq_part_get(zk_ledger *l, int64_t id, struct zk_ledger_part *ret,
                       struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int r = part_get(l, id, &p, diag);
    if (!r)
        *ret = p;
    return r;
}

/* A NUL-terminated copy of column `col` of s's current row into *ret. */
static int blob_copy(sqlite3_stmt *s, int col, char **ret, size_t *ret_len,
                     struct zk_diag *diag)
{
    size_t n = (size_t)sqlite3_column_bytes(s, col);
    char *buf = malloc(n + 1);
    if (!buf)
        return zk_diag_set(diag, NULL, -ENOMEM, "out of memory");
    if (n)
        memcpy(buf, sqlite3_column_blob(s, col), n);
    buf[n] = 0;
    *ret = buf;
    *ret_len = n;
    return 0;
}

/* struct ledger_ops.part_vet: the sizes only (one machine: a partition's
 * witness file and its job's directory are its submitter's, an operator's) */
int lsq_part_vet(zk_ledger *l, int64_t id, char *why, size_t n, struct zk_diag *diag)
{
    sqlite3_stmt *s;
    /* length() of a blob reads its size, not its bytes */
    if (sqlite3_prepare_v2(l->db, "SELECT coalesce(length(p.input), 0), length(p.witness),"
                                  " length(j.out_dir) FROM partitions p JOIN jobs j ON"
                                  " j.id = p.job_id WHERE p.id = ?", -1, &s, NULL))
        return ledger_dberr(l, diag);
    sqlite3_bind_int64(s, 1, id);
    int r = ledger_step(l, s, diag);
    if (r == 0)
        r = zk_diag_set(diag, l->path, -ENOENT, "no partition %lld", (long long)id);
    else if (r > 0)
        r = ledger_vet_sizes(sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
                             sqlite3_column_int64(s, 2), why, n);
    sqlite3_finalize(s);
    return r;
}

/* struct ledger_ops.part_blobs */
int lsq_part_blobs(zk_ledger *l, int64_t id, const char *cols, int n, const char *what,
                   char **ret, size_t *ret_len, struct zk_diag *diag)
{
    char q[128];
    sqlite3_stmt *s;
    snprintf(q, sizeof q, "SELECT %s FROM partitions WHERE id = ?", cols);
    if (sqlite3_prepare_v2(l->db, q, -1, &s, NULL))
        return ledger_dberr(l, diag);
    sqlite3_bind_int64(s, 1, id);
    int r = ledger_step(l, s, diag);
    if (r == 0)
        r = zk_diag_set(diag, l->path, -ENOENT, "no partition %lld", (long long)id);
    else if (r > 0 && sqlite3_column_type(s, 0) == SQLITE_NULL)
        r = zk_diag_set(diag, l->path, -ENOENT, "partition %lld has no %s", (long long)id, what);
    else if (r > 0)
        for (int i = r = 0; i < n && !r; i++)
            r = blob_copy(s, i, &ret[i], &ret_len[i], diag);
    sqlite3_finalize(s);
    return r;
}

int lsq_has_queued(zk_ledger *l, struct zk_diag *diag)
{
    static const char sql_has_queued[] =
        "SELECT 1 FROM partitions p JOIN jobs j ON j.id = p.job_id WHERE p.state = 'queued'"
        " AND " LSQ_CLAIM_KEYS("?1") " LIMIT 1";
    sqlite3_stmt *s = ledger_stmt(l, LS_HAS_QUEUED, sql_has_queued, diag);
    if (!s)
        return ZK_ELEDGER;
    if (l->claim_keys)
        sqlite3_bind_text(s, 1, l->claim_keys, -1, SQLITE_STATIC);
    int r = ledger_step(l, s, diag);
    if (r > 0)
        sqlite3_reset(s);
    return r;
}

/*
 * Runs s, a claim or proving statement (?1 pid, ?2 start, ?5 namespace,
 * ?6 boot of the new owner me, ?3 slot, ?4 partition id).  A NULL s (its
 * preparation failed, diag set) is ZK_ELEDGER.  The rows changed or < 0.
 */
static int run_owned(zk_ledger *l, sqlite3_stmt *s, const struct zk_proc_id *me, int32_t slot,
                     int64_t id, struct zk_diag *diag)
{
    if (!s)
        return ZK_ELEDGER;
    sqlite3_bind_int64(s, 1, me->pid);
    sqlite3_bind_int64(s, 2, (int64_t)me->start);
    sqlite3_bind_int(s, 3, slot);
    sqlite3_bind_int64(s, 4, id);
    sqlite3_bind_int64(s, 5, (int64_t)me->pidns);
    sqlite3_bind_int64(s, 6, (int64_t)me->boot);
    sqlite3_bind_int64(s, 7, (int64_t)me->btime);
    return ledger_run(l, s, diag);
}

static int same_owner(const struct zk_ledger_part *p, const struct zk_proc_id *me)
{
    return p->owner.pid == me->pid && p->owner.start == me->start;
}

static int bad_state(zk_ledger *l, const struct zk_ledger_part *p, struct zk_diag *diag)
{
    if (p->owner.pid)
        return zk_diag_set(diag, l->path, ZK_ESTATE, "partition %lld is %s by %s pid %d",
                           (long long)p->id, zk_part_state_name(p->state), p->owner_role,
                           (int)p->owner.pid);
    return zk_diag_set(diag, l->path, ZK_ESTATE, "partition %lld is %s", (long long)p->id,
                       zk_part_state_name(p->state));
}

int lsq_claim_queued(zk_ledger *l, const struct zk_proc_id *me, int32_t slot, int min_class,
                     struct zk_ledger_part *ret, struct zk_diag *diag)
{
    /* zk_ledger_claim_queued_class's order: the effective class (aged),
     * the earliest deadline (none last), the oldest job, the first index */
    static const char sql_next_queued[] =
        "SELECT p.id FROM partitions p JOIN jobs j ON j.id = p.job_id"
        " WHERE p.state = 'queued' AND j.state IN ('queued', 'running') AND j.priority >= ?1"
        " AND " LSQ_CLAIM_KEYS("?2") " AND (?5 = 0 OR j.id = ?5)"
        " ORDER BY " LSQ_CLAIM_ORDER("?3", "?4") " LIMIT 1";
    static const char sql_claim[] =
        "UPDATE partitions SET state = 'synthesizing', owner_pid = ?, owner_start = ?,"
        " owner_role = 'synthd', slot = ?, attempts = attempts + 1, synth_s = -1,"
        " witness_s = -1, wait_s = -1, start_s = -1, finalize_s = -1, owner_ns = ?5,"
        " owner_boot = ?6, owner_btime = ?7 WHERE id = ?4";
    struct zk_ledger_part p;
    int r = ledger_begin(l, diag);
    if (r)
        return r;
    sqlite3_stmt *s = ledger_stmt(l, LS_OLDEST_QUEUED, sql_next_queued, diag);
    if (!s) {
        r = ZK_ELEDGER;
        goto out;
    }
    sqlite3_bind_int(s, 1, min_class);
    if (l->claim_keys)
        sqlite3_bind_text(s, 2, l->claim_keys, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, l->aging_ns);
    sqlite3_bind_int64(s, 4, ledger_now_ns());
    sqlite3_bind_int64(s, 5, l->claim_job);
    if ((r = ledger_step(l, s, diag)) <= 0) {
        if (r == 0)
            r = zk_diag_set(diag, l->path, -ENOENT, "nothing queued");
        goto out;
    }
    int64_t id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    s = ledger_stmt(l, LS_CLAIM, sql_claim, diag);
    if ((r = run_owned(l, s, me, slot, id, diag)) < 0)
        goto out;
    if ((r = part_get(l, id, &p, diag)) < 0)
        goto out;
    r = ledger_derive_job(l, p.job_id, ZK_PART_SYNTHESIZING, diag);
out:
    r = ledger_end(l, r, diag);
    if (!r)
        *ret = p;
    return r;
}

/* A transaction in which partition id is synthesizing by me (*p), or an
 * error (ZK_ESTATE: bad_state's) with the transaction ended. */
static int begin_synthesizing(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                              struct zk_ledger_part *p, struct zk_diag *diag)
{
    int r = part_begin(l, id, p, diag);
    if (r)
        return r;
    if (p->state != ZK_PART_SYNTHESIZING || !same_owner(p, me))
        return ledger_end(l, bad_state(l, p, diag), diag);
    return 0;
}

int lsq_part_statement(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                       const char *statement, struct zk_diag *diag)
{
    static const char sql[] =
        "UPDATE partitions SET statement = ? WHERE id = ? AND state = 'synthesizing'"
        " AND owner_pid = ? AND owner_start = ?";
    struct zk_ledger_part p;
    sqlite3_stmt *s;
    int r = begin_synthesizing(l, id, me, &p, diag);
    if (r)
        return r;
    r = ZK_ELEDGER;
    if (!(s = ledger_stmt(l, LS_STATEMENT, sql, diag)))
        goto out;
    sqlite3_bind_text(s, 1, statement, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, id);
    sqlite3_bind_int64(s, 3, me->pid);
    sqlite3_bind_int64(s, 4, (int64_t)me->start);
    r = ledger_run(l, s, diag);
    if (r > 0)
        r = 0;
out:
    return ledger_end(l, r, diag);
}

int lsq_part_ready(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                         double synth_s, double witness_s, struct zk_diag *diag)
{
    static const char sql_ready[] =
        "UPDATE partitions SET state = 'ready', owner_pid = 0, owner_start = 0,"
        " owner_role = '', synth_s = ?, ready_ns = ?, witness_s = ? WHERE id = ?"
        " AND state = 'synthesizing' AND owner_pid = ? AND owner_start = ?";
    struct zk_ledger_part p;
    sqlite3_stmt *s;
    int r = begin_synthesizing(l, id, me, &p, diag);
    if (r)
        return r;
    r = ZK_ELEDGER;
    if (!(s = ledger_stmt(l, LS_READY, sql_ready, diag)))
        goto out;
    sqlite3_bind_double(s, 1, synth_s);
    sqlite3_bind_int64(s, 2, ledger_now_ns());
    sqlite3_bind_double(s, 3, witness_s);
    sqlite3_bind_int64(s, 4, id);
    sqlite3_bind_int64(s, 5, me->pid);
    sqlite3_bind_int64(s, 6, (int64_t)me->start);
    r = ledger_run(l, s, diag);
    if (r > 0)
        r = ledger_derive_job(l, p.job_id, ZK_PART_READY, diag);
out:
    return ledger_end(l, r, diag);
}

/* queued, synthesizing, ready -> proving; key_id >= 0: ledger_slot_check first. */
int lsq_part_proving(zk_ledger *l, int64_t id, int64_t key_id, const struct zk_proc_id *me,
                        int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    static const char sql_proving[] =
        "UPDATE partitions SET state = 'proving', owner_pid = ?, owner_start = ?,"
        " owner_role = 'gpud', slot = ?, owner_ns = ?5, owner_boot = ?6,"
        " owner_btime = ?7 WHERE id = ?4";
    struct zk_ledger_part p;
    int r = part_begin(l, id, &p, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    if (key_id >= 0 && (r = ledger_slot_check(l->path, &p, key_id, slot, diag)) < 0)
        goto out;
    switch (p.state) {
    case ZK_PART_QUEUED:
    case ZK_PART_SYNTHESIZING:
    case ZK_PART_READY:
        break;
    case ZK_PART_PROVING:
        /* ours already, or its owner is dead: take it over */
        if (same_owner(&p, me) || !zk_proc_alive(&p.owner, 64))
            break;
        /* fall through */
    default:
        r = bad_state(l, &p, diag);
        goto out;
    }
    s = ledger_stmt(l, LS_PROVING, sql_proving, diag);
    if ((r = run_owned(l, s, me, slot, id, diag)) < 0)
        goto out;
    if ((r = ledger_derive_job(l, p.job_id, ZK_PART_PROVING, diag)) < 0)
        goto out;
    r = part_get(l, id, &p, diag);
out:
    r = ledger_end(l, r, diag);
    if (!r && ret)
        *ret = p;
    return r;
}

int lsq_part_done(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                  const struct zk_ledger_timings *t, const struct zk_ledger_result *res,
                  unsigned flags, struct zk_diag *diag)
{
    /* done: an earlier attempt's error (a dead synthd, a requeue note) is
     * no longer the partition's; `errors` keeps the count */
    static const char sql_done[] =
        "UPDATE partitions SET state = 'done', proofs = proofs + ?, owner_pid = 0,"
        " owner_start = 0, owner_role = '', error = '', slot = -1, wait_s = ?, start_s = ?,"
        " finalize_s = ?, done_ns = ?,"
        " synth_s = CASE WHEN ?6 >= 0 AND (synth_s IS NULL OR synth_s < 0)"
        " THEN ?6 ELSE synth_s END,"
        " witness_s = CASE WHEN ?9 >= 0 AND witness_s < 0 THEN ?9 ELSE witness_s END,"
        " proof_json = ?10, public_json = ?11"
        " WHERE id = ?8";
    static const char sql_done_again[] =
        "UPDATE partitions SET proofs = proofs + ? WHERE id = ?";
    struct zk_ledger_part p;
    (void)me;   /* any live state is accepted: the proof exists */
    int r = part_begin(l, id, &p, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    /* ZK_LEDGER_DONE_RETRY is not needed here: a failed SQLite commit is
     * rolled back, never committed unseen */
    int add = 1 + ((flags & ZK_LEDGER_DONE_DUPLICATE) ? 1 : 0);
    if (p.state == ZK_PART_FAILED || p.state == ZK_PART_CANCELED) {
        r = bad_state(l, &p, diag);
        goto out;
    }
    r = ZK_ELEDGER;
    if (p.state == ZK_PART_DONE) {
        if (!(s = ledger_stmt(l, LS_DONE_AGAIN, sql_done_again, diag)))
            goto out;
        sqlite3_bind_int(s, 1, add);
        sqlite3_bind_int64(s, 2, id);
        r = ledger_run(l, s, diag);
        goto out;
    }
    if (!(s = ledger_stmt(l, LS_DONE, sql_done, diag)))
        goto out;
    sqlite3_bind_int(s, 1, add);
    sqlite3_bind_double(s, 2, t ? t->wait_s : -1);
    sqlite3_bind_double(s, 3, t ? t->start_s : -1);
    sqlite3_bind_double(s, 4, t ? t->finalize_s : -1);
    sqlite3_bind_int64(s, 5, ledger_now_ns());
    sqlite3_bind_double(s, 6, t ? t->synth_s : -1);
    sqlite3_bind_int64(s, 8, id);
    sqlite3_bind_double(s, 9, t ? t->witness_s : -1);
    if (res) {
        sqlite3_bind_blob64(s, 10, res->proof, res->proof_len, SQLITE_STATIC);
        sqlite3_bind_blob64(s, 11, res->pub, res->pub_len, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(s, 10);
        sqlite3_bind_null(s, 11);
    }
    r = ledger_run(l, s, diag);
    sqlite3_clear_bindings(s);   /* res is the caller's */
    if (r < 0)
        goto out;
    r = ledger_derive_job(l, p.job_id, ZK_PART_DONE, diag);
out:
    return ledger_end(l, r > 0 ? 0 : r, diag);
}

/*
 * Runs s, an error or requeue statement (?1 the note, truncated to 511
 * bytes, NULL as "", ?2 now, ?3 partition id).  A NULL s (its preparation
 * failed, diag set) is ZK_ELEDGER.  The rows changed or < 0.
 */
static int run_noted(zk_ledger *l, sqlite3_stmt *s, const char *note, int64_t id,
                     struct zk_diag *diag)
{
    if (!s)
        return ZK_ELEDGER;
    note = note ? note : "";
    sqlite3_bind_text(s, 1, note, (int)strnlen(note, 511), SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, ledger_now_ns());
    sqlite3_bind_int64(s, 3, id);
    return ledger_run(l, s, diag);
}

int lsq_part_error(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                         const char *error, uint32_t max_errors, uint32_t max_attempts,
                         int *ret_failed, struct zk_diag *diag)
{
    static const char sql_error_queue[] =
        "UPDATE partitions SET state = 'queued', errors = errors + 1, error = ?,"
        " owner_pid = 0, owner_start = 0, owner_role = '', slot = -1,"
        " queued_ns = ? WHERE id = ?";
    static const char sql_error_fail[] =
        "UPDATE partitions SET state = 'failed', errors = errors + 1, error = ?,"
        " owner_pid = 0, owner_start = 0, owner_role = '', slot = -1,"
        " done_ns = ? WHERE id = ?";
    struct zk_ledger_part p;
    int failed = 0;
    int r = part_begin(l, id, &p, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    int mine = p.state == ZK_PART_READY ||
               ((p.state == ZK_PART_SYNTHESIZING || p.state == ZK_PART_PROVING) &&
                same_owner(&p, me));
    if (!mine) {
        r = bad_state(l, &p, diag);
        goto out;
    }
    failed = p.errors + 1 >= max_errors || p.attempts >= max_attempts;
    s = failed ? ledger_stmt(l, LS_ERROR_FAIL, sql_error_fail, diag)
               : ledger_stmt(l, LS_ERROR_QUEUE, sql_error_queue, diag);
    if ((r = run_noted(l, s, error, id, diag)) < 0)
        goto out;
    r = ledger_derive_job(l, p.job_id, failed ? ZK_PART_FAILED : ZK_PART_QUEUED, diag);
out:
    r = ledger_end(l, r, diag);
    if (!r && ret_failed)
        *ret_failed = failed;
    return r;
}

int lsq_part_requeue(zk_ledger *l, int64_t id, enum zk_part_state expect,
                           const struct zk_proc_id *owner, const char *note,
                           struct zk_diag *diag)
{
    static const char sql_requeue[] =
        "UPDATE partitions SET state = 'queued', error = ?, owner_pid = 0,"
        " owner_start = 0, owner_role = '', slot = -1, queued_ns = ? WHERE id = ?";
    struct zk_ledger_part p;
    int r = part_begin(l, id, &p, diag);
    if (r)
        return r;
    sqlite3_stmt *s;
    /* conditional, like part_ready: only the state the caller saw, and for
     * synthesizing/proving only its own (a live synthd or gpud keeps its
     * partition; a dead owner's is reconcile's to move) */
    int ok = p.state == (int)expect &&
             (expect == ZK_PART_READY ||
              ((expect == ZK_PART_SYNTHESIZING || expect == ZK_PART_PROVING) && owner &&
               same_owner(&p, owner)));
    if (!ok) {
        r = bad_state(l, &p, diag);
        goto out;
    }
    s = ledger_stmt(l, LS_REQUEUE, sql_requeue, diag);
    if ((r = run_noted(l, s, note, id, diag)) < 0)
        goto out;
    r = ledger_derive_job(l, p.job_id, ZK_PART_QUEUED, diag);
out:
    return ledger_end(l, r, diag);
}
