/*
 * parts.c -- partitions in the ledger on PostgreSQL (zk/ledger.h): reads
 * (get, list, input) and the daemons' transitions: claim (queued ->
 * synthesizing, SELECT ... FOR UPDATE SKIP LOCKED, oldest job first),
 * ready, proving, done, error and requeue.  Each transition is one
 * transaction that locks the partition's row, checks its state, owner and
 * machine, writes it and derives its job's state again (lpg_derive_job).
 *
 * Owners are process identities of one machine: a partition records the
 * machine of the daemon that holds it (its slot is in that machine's
 * pool), and only that machine judges whether its owner is alive.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"
#include "zk/proc.h"

#define PART_COLS                                                                       \
    "p.id, p.job_id, j.key_id, p.idx, p.witness, p.state, p.attempts, p.errors, p.proofs," \
    " p.owner_pid, p.owner_start, p.owner_role, p.slot, p.synth_s, p.wait_s, p.start_s,"   \
    " p.finalize_s, p.queued_ns, p.ready_ns, p.done_ns, p.error,"                          \
    " p.has_input::int, p.witness_s, p.owner_ns, p.owner_boot, p.machine, j.priority,"   \
    " j.deadline_ns, p.statement, p.owner_btime"

/* Row `row` of res (PART_COLS) into *p; the machine into machine[64] if not NULL. */
static void part_row(const PGresult *res, int row, struct zk_ledger_part *p, char *machine)
{
    memset(p, 0, sizeof *p);
    p->id = lpg_i64(res, row, 0);
    p->job_id = lpg_i64(res, row, 1);
    p->key_id = lpg_i64(res, row, 2);
    p->index = (uint32_t)lpg_i64(res, row, 3);
    lpg_text(p->witness, sizeof p->witness, res, row, 4);
    p->state = zk_part_state_parse(PQgetvalue(res, row, 5));
    p->attempts = (uint32_t)lpg_i64(res, row, 6);
    p->errors = (uint32_t)lpg_i64(res, row, 7);
    p->proofs = (uint32_t)lpg_i64(res, row, 8);
    p->owner.pid = (int32_t)lpg_i64(res, row, 9);
    p->owner.start = (uint64_t)lpg_i64(res, row, 10);
    lpg_text(p->owner_role, sizeof p->owner_role, res, row, 11);
    p->slot = (int32_t)lpg_i64(res, row, 12);
    p->synth_s = lpg_f64(res, row, 13);
    p->wait_s = lpg_f64(res, row, 14);
    p->start_s = lpg_f64(res, row, 15);
    p->finalize_s = lpg_f64(res, row, 16);
    p->queued_ns = lpg_i64(res, row, 17);
    p->ready_ns = lpg_i64(res, row, 18);
    p->done_ns = lpg_i64(res, row, 19);
    lpg_text(p->error, sizeof p->error, res, row, 20);
    p->has_input = (int)lpg_i64(res, row, 21);
    p->witness_s = lpg_f64(res, row, 22);
    p->owner.pidns = (uint64_t)lpg_i64(res, row, 23);
    p->owner.boot = (uint64_t)lpg_i64(res, row, 24);
    lpg_text(p->machine, sizeof p->machine, res, row, 25);
    if (machine)
        lpg_text(machine, 64, res, row, 25);
    p->priority = (int)lpg_i64(res, row, 26);
    p->deadline_ns = lpg_i64(res, row, 27);
    lpg_text(p->statement, sizeof p->statement, res, row, 28);
    p->owner.btime = (uint64_t)lpg_i64(res, row, 29);
}

int lpg_part_list(zk_ledger *l, int64_t job_id,
                  int (*fn)(void *ctx, const struct zk_ledger_part *p), void *ctx,
                  struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, job_id);
    PGresult *res = lpg_query(l, "SELECT " PART_COLS " FROM partitions p JOIN jobs j ON j.id ="
                                 " p.job_id WHERE p.job_id = $1 ORDER BY p.idx", &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    struct zk_ledger_part p;
    int r = 0;
    for (int i = 0; i < PQntuples(res) && !r; i++) {
        part_row(res, i, &p, NULL);
        r = fn(ctx, &p);
    }
    PQclear(res);
    return r;
}

/* Partition id into *p (machine into machine[64] if not NULL), locked when `lock`. */
static int part_read(zk_ledger *l, int64_t id, int lock, struct zk_ledger_part *p,
                     char *machine, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, id);
    PGresult *res = lpg_query(l, lock ? "SELECT " PART_COLS " FROM partitions p JOIN jobs j ON"
                                        " j.id = p.job_id WHERE p.id = $1 FOR UPDATE OF p"
                                      : "SELECT " PART_COLS " FROM partitions p JOIN jobs j ON"
                                        " j.id = p.job_id WHERE p.id = $1",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int n = PQntuples(res);
    if (n)
        part_row(res, 0, p, machine);
    PQclear(res);
    return n ? 0 : zk_diag_set(diag, l->path, -ENOENT, "no partition %lld", (long long)id);
}

int lpg_part_get(zk_ledger *l, int64_t id, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    return part_read(l, id, 0, ret, NULL, diag);
}

/* struct ledger_ops.part_vet: the sizes (octet_length reads a value's
 * size, not its bytes), then the files a row could name on the proving
 * machines (zkslot_names_files: roles.c) */
int lpg_part_vet(zk_ledger *l, int64_t id, char *why, size_t n, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, id);
    PGresult *res = lpg_query(l, "SELECT coalesce(octet_length(p.input), 0), length(p.witness),"
                                 " length(j.out_dir), zkslot_names_files(j.submitter),"
                                 " p.input IS NULL, j.out_dir <> '', left(p.witness, 200),"
                                 " left(j.out_dir, 200), j.submitter FROM partitions p"
                                 " JOIN jobs j ON j.id = p.job_id WHERE p.id = $1",
                              &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int r = 0;
#define V(c) (!strcmp(PQgetvalue(res, 0, (c)), "t"))   /* a boolean column */
    if (PQntuples(res) == 0)
        r = zk_diag_set(diag, l->path, -ENOENT, "no partition %lld", (long long)id);
    else if (ledger_vet_sizes(lpg_i64(res, 0, 0), lpg_i64(res, 0, 1), lpg_i64(res, 0, 2), why,
                              n))
        r = 1;
    else if (V(3))   /* the daemons' side: may name files */
        r = 0;
    else if ((r = V(4)))
        snprintf(why, n, "it names a witness file (%s) and holds no witness, and its "
                 "submitter %s may not name files: on a shared ledger a submitter's "
                 "partition carries its witness or input in the ledger: refused, never read",
                 PQgetvalue(res, 0, 6), PQgetvalue(res, 0, 8));
    else if ((r = V(5)))
        snprintf(why, n, "its job names an output directory (%s) and its submitter %s may "
                 "not: on a shared ledger the daemons choose where they write: refused",
                 PQgetvalue(res, 0, 7), PQgetvalue(res, 0, 8));
#undef V
    PQclear(res);
    return r;
}

/* struct ledger_ops.part_blobs */
int lpg_part_blobs(zk_ledger *l, int64_t id, const char *cols, int n, const char *what,
                   char **ret, size_t *ret_len, struct zk_diag *diag)
{
    char q[128];
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, id);
    snprintf(q, sizeof q, "SELECT %s FROM partitions WHERE id = $1", cols);
    PGresult *res = lpg_query(l, q, &a, 1, diag);
    if (!res)
        return ZK_ELEDGER;
    int r = 0;
    if (PQntuples(res) == 0)
        r = zk_diag_set(diag, l->path, -ENOENT, "no partition %lld", (long long)id);
    else if (PQgetisnull(res, 0, 0))
        r = zk_diag_set(diag, l->path, -ENOENT, "partition %lld has no %s", (long long)id, what);
    for (int i = 0; i < n && !r; i++) {
        size_t len = (size_t)PQgetlength(res, 0, i);
        if (!(ret[i] = malloc(len + 1))) {
            r = zk_diag_set(diag, NULL, -ENOMEM, "out of memory");
            break;
        }
        memcpy(ret[i], PQgetvalue(res, 0, i), len);
        ret[i][len] = 0;
        ret_len[i] = len;
    }
    PQclear(res);
    return r;
}

int lpg_has_queued(zk_ledger *l, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_str(&a, l->claim_keys);   /* only what this handle would claim */
    PGresult *res = lpg_query(l, "SELECT 1 FROM partitions p JOIN jobs j ON j.id = p.job_id"
                                 " WHERE p.state = 'queued' AND ($1::bigint[] IS NULL OR"
                                 " j.key_id = ANY($1::bigint[])) LIMIT 1", &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int n = PQntuples(res);
    PQclear(res);
    return n ? 1 : 0;
}

/* Parameters $1 pid, $2 start, $3 slot, $4 partition id, $5 pid namespace,
 * $6 boot and $8 boot time of the new owner me, $7 this machine. */
static void owned_args(zk_ledger *l, struct lpg_args *a, const struct zk_proc_id *me,
                       int32_t slot, int64_t id)
{
    lpg_arg_i64(a, me->pid);
    lpg_arg_i64(a, (int64_t)me->start);
    lpg_arg_i64(a, slot);
    lpg_arg_i64(a, id);
    lpg_arg_i64(a, (int64_t)me->pidns);
    lpg_arg_i64(a, (int64_t)me->boot);
    lpg_arg_str(a, l->pg->machine);
    lpg_arg_i64(a, (int64_t)me->btime);
}

static int same_owner(const struct zk_ledger_part *p, const char *machine, zk_ledger *l,
                      const struct zk_proc_id *me)
{
    return p->owner.pid == me->pid && p->owner.start == me->start &&
           !strcmp(machine, l->pg->machine);
}

static int bad_state(zk_ledger *l, const struct zk_ledger_part *p, const char *machine,
                     struct zk_diag *diag)
{
    if (p->owner.pid)
        return zk_diag_set(diag, l->path, ZK_ESTATE, "partition %lld is %s by %s pid %d on %s",
                           (long long)p->id, zk_part_state_name(p->state), p->owner_role,
                           (int)p->owner.pid, machine);
    return zk_diag_set(diag, l->path, ZK_ESTATE, "partition %lld is %s", (long long)p->id,
                       zk_part_state_name(p->state));
}

/* One statement: the oldest job's first queued partition of a key this
 * handle claims that no other claimer holds, locked (SKIP LOCKED) and claimed; its job's state (before)
 * after the partition's columns.  A job still queued then becomes running
 * in a transaction of its own (a monotone move: a claim that dies between
 * the two leaves it for the partition's next move to make). */
static int claim_queued(zk_ledger *l, const struct zk_proc_id *me, int32_t slot,
                        int min_class, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, me->pid);
    lpg_arg_i64(&a, (int64_t)me->start);
    lpg_arg_i64(&a, slot);
    lpg_arg_i64(&a, (int64_t)me->pidns);
    lpg_arg_i64(&a, (int64_t)me->boot);
    lpg_arg_str(&a, l->pg->machine);
    lpg_arg_str(&a, l->claim_keys);   /* NULL: every key */
    lpg_arg_i64(&a, min_class);
    lpg_arg_i64(&a, l->aging_ns);
    lpg_arg_i64(&a, lpg_now_ns(l));
    lpg_arg_i64(&a, l->claim_job);     /* 0: any job */
    lpg_arg_i64(&a, (int64_t)me->btime);
    /* zk_ledger_claim_queued_class's order (the same as SQLite's
     * LSQ_CLAIM_ORDER) */
    PGresult *res = lpg_query(l, "WITH c AS (SELECT p.id FROM partitions p JOIN jobs j ON"
                                 " j.id = p.job_id WHERE p.state = 'queued' AND j.state IN"
                                 " ('queued', 'running') AND ($7::bigint[] IS NULL OR"
                                 " j.key_id = ANY($7::bigint[])) AND j.priority >= $8"
                                 " AND ($11::bigint = 0 OR p.job_id = $11::bigint)"
                                 " ORDER BY LEAST(3, j.priority + CASE WHEN $9::bigint > 0 AND"
                                 " $10::bigint > j.submitted_ns THEN ($10::bigint -"
                                 " j.submitted_ns) / $9::bigint ELSE 0 END)"
                                 " DESC, j.deadline_ns = 0, j.deadline_ns, p.job_id, p.idx"
                                 " LIMIT 1 FOR UPDATE OF p SKIP LOCKED)"
                                 " UPDATE partitions p SET state = 'synthesizing', owner_pid = $1,"
                                 " owner_start = $2, owner_role = 'synthd', slot = $3,"
                                 " attempts = attempts + 1, synth_s = -1, witness_s = -1,"
                                 " wait_s = -1, start_s = -1, finalize_s = -1, owner_ns = $4,"
                                 " owner_boot = $5, owner_btime = $12, machine = $6 FROM c, jobs j"
                                 " WHERE p.id = c.id AND j.id = p.job_id RETURNING " PART_COLS
                                 ", j.state", &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    int found = PQntuples(res), queued = 0;
    if (found) {
        part_row(res, 0, ret, NULL);
        queued = !strcmp(PQgetvalue(res, 0, 30), "queued");   /* after PART_COLS */
    }
    PQclear(res);
    if (!found)
        return zk_diag_set(diag, l->path, -ENOENT, "nothing queued");
    if (!queued)
        return 0;
    int r = lpg_begin(l, diag);
    if (!r)
        r = lpg_end(l, lpg_derive_job(l, ret->job_id, ZK_PART_SYNTHESIZING, diag), diag);
    return r;
}

int lpg_claim_queued(zk_ledger *l, const struct zk_proc_id *me, int32_t slot, int min_class,
                     struct zk_ledger_part *ret, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int r;
    LPG_RETRY(l, r, claim_queued(l, me, slot, min_class, &p, diag));
    if (!r)
        *ret = p;
    return r;
}

/* Opens a transition's transaction with partition id read and locked into
 * *p (its machine into machine[64]); 0 with it open, < 0 with none. */
static int part_begin(zk_ledger *l, int64_t id, struct zk_ledger_part *p, char *machine,
                      struct zk_diag *diag)
{
    int r = lpg_begin(l, diag);
    if (r)
        return r;
    if ((r = part_read(l, id, 1, p, machine, diag)) < 0)
        return lpg_end(l, r, diag);
    return 0;
}

/* A transaction in which partition id is synthesizing by me (*p), or an
 * error (ZK_ESTATE: bad_state's) with the transaction ended. */
static int begin_synthesizing(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                              struct zk_ledger_part *p, struct zk_diag *diag)
{
    char machine[64];
    int r = part_begin(l, id, p, machine, diag);
    if (r)
        return r;
    if (p->state != ZK_PART_SYNTHESIZING || !same_owner(p, machine, l, me))
        return lpg_end(l, bad_state(l, p, machine, diag), diag);
    return 0;
}

static int part_statement(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                          const char *statement, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int r = begin_synthesizing(l, id, me, &p, diag);
    if (r)
        return r;
    struct lpg_args a = { 0 };
    lpg_arg_str(&a, statement);
    lpg_arg_i64(&a, id);
    r = lpg_cmd(l, "UPDATE partitions SET statement = $1 WHERE id = $2", &a, diag);
    if (r > 0)
        r = 0;
    return lpg_end(l, r, diag);
}

int lpg_part_statement(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                       const char *statement, struct zk_diag *diag)
{
    int r;
    LPG_RETRY(l, r, part_statement(l, id, me, statement, diag));
    return r;
}

static int part_ready(zk_ledger *l, int64_t id, const struct zk_proc_id *me, double synth_s,
                      double witness_s, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    int r = begin_synthesizing(l, id, me, &p, diag);
    if (r)
        return r;
    struct lpg_args a = { 0 };
    lpg_arg_f64(&a, synth_s);
    lpg_arg_i64(&a, lpg_now_ns(l));
    lpg_arg_f64(&a, witness_s);
    lpg_arg_i64(&a, id);
    r = lpg_cmd(l, "UPDATE partitions SET state = 'ready', owner_pid = 0, owner_start = 0,"
                   " owner_role = '', synth_s = $1, ready_ns = $2, witness_s = $3 WHERE id = $4",
                &a, diag);
    if (r > 0)
        r = lpg_derive_job(l, p.job_id, ZK_PART_READY, diag);
    return lpg_end(l, r, diag);
}

int lpg_part_ready(zk_ledger *l, int64_t id, const struct zk_proc_id *me, double synth_s,
                   double witness_s, struct zk_diag *diag)
{
    int r;
    LPG_RETRY(l, r, part_ready(l, id, me, synth_s, witness_s, diag));
    return r;
}

/* The slot header's word against the ledger's (ledger_slot_check), and a
 * synthesized partition's machine: a slot is only in its machine's pool. */
static int slot_matches(zk_ledger *l, const struct zk_ledger_part *p, const char *machine,
                        int64_t key_id, int32_t slot, struct zk_diag *diag)
{
    int r = ledger_slot_check(l->path, p, key_id, slot, diag);
    if (r == 0 && (p->state == ZK_PART_SYNTHESIZING || p->state == ZK_PART_READY) &&
        strcmp(machine, l->pg->machine))
        r = zk_diag_set(diag, l->path, ZK_ESTATE,
                        "partition %lld was synthesized on machine %s, not this one (%s)",
                        (long long)p->id, machine, l->pg->machine);
    return r;
}

static int part_proving(zk_ledger *l, int64_t id, int64_t key_id, const struct zk_proc_id *me,
                        int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    char machine[64];
    int r = part_begin(l, id, &p, machine, diag);
    if (r)
        return r;
    if (key_id >= 0 && (r = slot_matches(l, &p, machine, key_id, slot, diag)) < 0)
        goto out;
    switch (p.state) {
    case ZK_PART_QUEUED:
    case ZK_PART_SYNTHESIZING:
    case ZK_PART_READY:
        break;
    case ZK_PART_PROVING:
        /* ours already, or its owner (on this machine) is dead: take it over */
        if (same_owner(&p, machine, l, me) ||
            (!strcmp(machine, l->pg->machine) && !zk_proc_alive(&p.owner, 64)))
            break;
        /* fall through */
    default:
        r = bad_state(l, &p, machine, diag);
        goto out;
    }
    struct lpg_args a = { 0 };
    owned_args(l, &a, me, slot, id);
    r = lpg_cmd(l, "UPDATE partitions SET state = 'proving', owner_pid = $1, owner_start = $2,"
                   " owner_role = 'gpud', slot = $3, owner_ns = $5, owner_boot = $6,"
                   " owner_btime = $8, machine = $7 WHERE id = $4", &a, diag);
    if (r < 0 || (r = lpg_derive_job(l, p.job_id, ZK_PART_PROVING, diag)) < 0)
        goto out;
    r = part_read(l, id, 0, &p, NULL, diag);
out:
    r = lpg_end(l, r, diag);
    if (!r && ret)
        *ret = p;
    return r;
}

int lpg_part_proving(zk_ledger *l, int64_t id, int64_t key_id, const struct zk_proc_id *me,
                     int32_t slot, struct zk_ledger_part *ret, struct zk_diag *diag)
{
    int r;
    LPG_RETRY(l, r, part_proving(l, id, key_id, me, slot, ret, diag));
    return r;
}

/* $9, $10: the result's texts (bytea, NULL without a result). */
static void arg_result(struct lpg_args *a, const struct zk_ledger_result *res)
{
    lpg_arg_bytes(a, res ? res->proof : NULL, res ? res->proof_len : 0);
    lpg_arg_bytes(a, res ? res->pub : NULL, res ? res->pub_len : 0);
}

static int part_done(zk_ledger *l, int64_t id, const struct zk_ledger_timings *t,
                     const struct zk_ledger_result *res, unsigned flags, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    char machine[64];
    int r = part_begin(l, id, &p, machine, diag);
    if (r)
        return r;
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, 1 + ((flags & ZK_LEDGER_DONE_DUPLICATE) ? 1 : 0));
    lpg_arg_i64(&a, id);
    if (p.state == ZK_PART_FAILED || p.state == ZK_PART_CANCELED) {
        r = bad_state(l, &p, machine, diag);
        goto out;
    }
    if (p.state != ZK_PART_DONE && machine[0] && strcmp(machine, l->pg->machine)) {
        /* live on another machine: this one lost its lease and the other
         * is redoing it there; the late proof is counted as a duplicate,
         * and the partition stays with the machine whose slot holds it (the
         * proof and its files are recorded by the done that follows) */
        r = lpg_cmd(l, "UPDATE partitions SET proofs = proofs + $1 WHERE id = $2", &a, diag);
        goto out;
    }
    if (p.state == ZK_PART_DONE) {
        /* a second proof (a machine that lost its lease finished late), or,
         * on a retry, most likely our own first done, committed unseen */
        if (!(flags & ZK_LEDGER_DONE_RETRY) &&
            (r = lpg_cmd(l, "UPDATE partitions SET proofs = proofs + $1 WHERE id = $2", &a,
                         diag)) < 0)
            goto out;
        /* and the job: a done whose second statement never ran (done_fast)
         * left it running */
        r = lpg_derive_job(l, p.job_id, ZK_PART_DONE, diag);
        goto out;
    }
    lpg_arg_f64(&a, t ? t->wait_s : -1);
    lpg_arg_f64(&a, t ? t->start_s : -1);
    lpg_arg_f64(&a, t ? t->finalize_s : -1);
    lpg_arg_i64(&a, lpg_now_ns(l));
    lpg_arg_f64(&a, t ? t->synth_s : -1);
    lpg_arg_f64(&a, t ? t->witness_s : -1);
    arg_result(&a, res);
    lpg_arg_str(&a, l->pg->machine);
    r = lpg_cmd(l, "UPDATE partitions SET state = 'done', proofs = proofs + $1, owner_pid = 0,"
                   " owner_start = 0, owner_role = '', error = '', slot = -1, wait_s = $3,"
                   " start_s = $4, finalize_s = $5, done_ns = $6,"
                   " synth_s = CASE WHEN $7::float8 >= 0 AND synth_s < 0 THEN $7::float8"
                   " ELSE synth_s END, witness_s = CASE WHEN $8::float8 >= 0 AND witness_s < 0"
                   " THEN $8::float8 ELSE witness_s END, proof_json = $9, public_json = $10,"
                   " machine = $11 WHERE id = $2", &a, diag);
    if (r >= 0)
        r = lpg_derive_job(l, p.job_id, ZK_PART_DONE, diag);
out:
    return lpg_end(l, r > 0 ? 0 : r, diag);
}

/*
 * The common case in two statements, each its own transaction: a live
 * partition -> done, then its job done when no partition is left undone
 * (or running when it was still queued).  The second runs after the first
 * committed, so of two machines finishing a job's last partitions at once
 * the later one sees both done.  When the second never runs (the process
 * dies, the connection is lost between them), the retry's part_done or any
 * machine's reconcile pass finishes the job.  0 done, 1 the partition was
 * not live (done, failed, canceled, unknown: part_done decides), < 0 error.
 */
static int done_fast(zk_ledger *l, int64_t id, const struct zk_ledger_timings *t,
                     const struct zk_ledger_result *res, unsigned flags, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    int64_t now = lpg_now_ns(l);
    lpg_arg_i64(&a, 1 + ((flags & ZK_LEDGER_DONE_DUPLICATE) ? 1 : 0));
    lpg_arg_i64(&a, id);
    lpg_arg_f64(&a, t ? t->wait_s : -1);
    lpg_arg_f64(&a, t ? t->start_s : -1);
    lpg_arg_f64(&a, t ? t->finalize_s : -1);
    lpg_arg_i64(&a, now);
    lpg_arg_f64(&a, t ? t->synth_s : -1);
    lpg_arg_f64(&a, t ? t->witness_s : -1);
    arg_result(&a, res);
    lpg_arg_str(&a, l->pg->machine);
    /* live and this machine's, or queued (a machine that lost its lease
     * finishing late, before any other took it: its proof counts, and the
     * partition names the machine that holds its files) */
    PGresult *q = lpg_query(l, "UPDATE partitions SET state = 'done', proofs = proofs + $1,"
                               " owner_pid = 0, owner_start = 0, owner_role = '', error = '',"
                               " slot = -1, wait_s = $3, start_s = $4, finalize_s = $5,"
                               " done_ns = $6, synth_s = CASE WHEN $7::float8 >= 0 AND"
                               " synth_s < 0 THEN $7::float8 ELSE synth_s END, witness_s ="
                               " CASE WHEN $8::float8 >= 0 AND witness_s < 0 THEN $8::float8"
                               " ELSE witness_s END, proof_json = $9, public_json = $10,"
                               " machine = $11 WHERE id = $2 AND state IN ('queued',"
                               " 'synthesizing', 'ready', 'proving') AND machine IN ($11, '')"
                               " RETURNING job_id", &a, 0, diag);
    if (!q)
        return ZK_ELEDGER;
    int n = PQntuples(q);
    int64_t job = n ? lpg_i64(q, 0, 0) : 0;
    PQclear(q);
    if (!n)
        return 1;
    struct lpg_args b = { 0 };
    lpg_arg_i64(&b, job);
    lpg_arg_i64(&b, now);
    int r = lpg_cmd(l, "UPDATE jobs SET state = CASE WHEN u.n = 0 THEN 'done' ELSE 'running'"
                       " END, started_ns = CASE WHEN started_ns = 0 THEN $2 ELSE started_ns END,"
                       " finished_ns = CASE WHEN u.n = 0 THEN $2 ELSE finished_ns END FROM"
                       " (SELECT count(*) AS n FROM (SELECT 1 FROM partitions WHERE job_id = $1"
                       " AND state IN ('queued', 'synthesizing', 'ready', 'proving', 'failed',"
                       " 'canceled') LIMIT 1) x) u WHERE id = $1 AND (state = 'queued' OR"
                       " (state = 'running' AND u.n = 0))", &b, diag);
    return r < 0 ? r : 0;
}

int lpg_part_done(zk_ledger *l, int64_t id, const struct zk_proc_id *me,
                  const struct zk_ledger_timings *t, const struct zk_ledger_result *res,
                  unsigned flags, struct zk_diag *diag)
{
    int r;
    (void)me;   /* any live state of this machine's is accepted: the proof exists */
    if ((r = done_fast(l, id, t, res, flags, diag)) <= 0)
        return r;
    LPG_RETRY(l, r, part_done(l, id, t, res, flags, diag));
    return r;
}

/* $1 the note (at most 511 bytes), $2 now, $3 partition id: an error or
 * requeue statement; the rows changed or < 0. */
static int run_noted(zk_ledger *l, const char *sql, const char *note, int64_t id,
                     struct zk_diag *diag)
{
    char n[512];
    struct lpg_args a = { 0 };
    snprintf(n, sizeof n, "%s", note ? note : "");
    lpg_arg_str(&a, n);
    lpg_arg_i64(&a, lpg_now_ns(l));
    lpg_arg_i64(&a, id);
    return lpg_cmd(l, sql, &a, diag);
}

static int part_error(zk_ledger *l, int64_t id, const struct zk_proc_id *me, const char *error,
                      uint32_t max_errors, uint32_t max_attempts, int *ret_failed,
                      struct zk_diag *diag)
{
    struct zk_ledger_part p;
    char machine[64];
    int r = part_begin(l, id, &p, machine, diag);
    if (r)
        return r;
    int mine = (p.state == ZK_PART_READY && !strcmp(machine, l->pg->machine)) ||
               ((p.state == ZK_PART_SYNTHESIZING || p.state == ZK_PART_PROVING) &&
                same_owner(&p, machine, l, me));
    if (!mine) {
        r = bad_state(l, &p, machine, diag);
        goto out;
    }
    int failed = p.errors + 1 >= max_errors || p.attempts >= max_attempts;
    r = run_noted(l, failed ? "UPDATE partitions SET state = 'failed', errors = errors + 1,"
                              " error = $1, owner_pid = 0, owner_start = 0, owner_role = '',"
                              " slot = -1, machine = '', done_ns = $2 WHERE id = $3"
                            : "UPDATE partitions SET state = 'queued', errors = errors + 1,"
                              " error = $1, owner_pid = 0, owner_start = 0, owner_role = '',"
                              " slot = -1, machine = '', queued_ns = $2 WHERE id = $3",
                  error, id, diag);
    if (r >= 0)
        r = lpg_derive_job(l, p.job_id, failed ? ZK_PART_FAILED : ZK_PART_QUEUED, diag);
    *ret_failed = failed;
out:
    return lpg_end(l, r, diag);
}

int lpg_part_error(zk_ledger *l, int64_t id, const struct zk_proc_id *me, const char *error,
                   uint32_t max_errors, uint32_t max_attempts, int *ret_failed,
                   struct zk_diag *diag)
{
    int r, failed = 0;
    LPG_RETRY(l, r, part_error(l, id, me, error, max_errors, max_attempts, &failed, diag));
    if (!r && ret_failed)
        *ret_failed = failed;
    return r;
}

static int part_requeue(zk_ledger *l, int64_t id, enum zk_part_state expect,
                        const struct zk_proc_id *owner, const char *note, struct zk_diag *diag)
{
    struct zk_ledger_part p;
    char machine[64];
    int r = part_begin(l, id, &p, machine, diag);
    if (r)
        return r;
    /* only the state the caller saw; for synthesizing/proving only its own
     * owner's, and a ready partition only on the machine whose pool holds it */
    int ok = p.state == (int)expect &&
             ((expect == ZK_PART_READY && !strcmp(machine, l->pg->machine)) ||
              ((expect == ZK_PART_SYNTHESIZING || expect == ZK_PART_PROVING) && owner &&
               same_owner(&p, machine, l, owner)));
    if (!ok) {
        r = bad_state(l, &p, machine, diag);
        goto out;
    }
    r = run_noted(l, "UPDATE partitions SET state = 'queued', error = $1, owner_pid = 0,"
                     " owner_start = 0, owner_role = '', slot = -1, machine = '',"
                     " queued_ns = $2 WHERE id = $3", note, id, diag);
    if (r >= 0)
        r = lpg_derive_job(l, p.job_id, ZK_PART_QUEUED, diag);
out:
    return lpg_end(l, r, diag);
}

int lpg_part_requeue(zk_ledger *l, int64_t id, enum zk_part_state expect,
                     const struct zk_proc_id *owner, const char *note, struct zk_diag *diag)
{
    int r;
    LPG_RETRY(l, r, part_requeue(l, id, expect, owner, note, diag));
    return r;
}
