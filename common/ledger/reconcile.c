/*
 * reconcile.c -- zk_ledger_reconcile (zk/ledger.h): partitions whose owner
 * died move back to ready (the pool still holds their synthesis), queued,
 * or failed after too many attempts; ready partitions whose slot was lost
 * are re-queued.  The candidates come from one snapshot; each move is its
 * own conditional transaction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "ledger/ledger_internal.h"
#include "zk/error.h"
#include "zk/proc.h"

/* A partition reconcile may move: what the conditional move checks again. */
struct cand {
    int64_t id, job_id, ready_ns;
    int state;
    uint32_t attempts;
    struct zk_proc_id owner;
    char role[16];
};

/* The partitions in states `where` (an SQL condition), malloc'd into *ret. */
static int candidates(zk_ledger *l, const char *where, struct cand **ret, size_t *ret_n,
                      struct zk_diag *diag)
{
    char q[512];
    sqlite3_stmt *s;
    struct cand *v = NULL;
    size_t n = 0, cap = 0;
    int r;
    snprintf(q, sizeof q,
             "SELECT id, job_id, ready_ns, state, attempts, owner_pid, owner_start, owner_role,"
             " owner_ns, owner_boot, owner_btime FROM partitions WHERE %s ORDER BY id",
             where);
    if (sqlite3_prepare_v2(l->db, q, -1, &s, NULL))
        return ledger_dberr(l, diag);
    while ((r = ledger_step(l, s, diag)) > 0) {
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            struct cand *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                r = zk_diag_set(diag, l->path, -ENOMEM, "out of memory");
                break;
            }
            v = nv;
        }
        struct cand *c = &v[n++];
        c->id = sqlite3_column_int64(s, 0);
        c->job_id = sqlite3_column_int64(s, 1);
        c->ready_ns = sqlite3_column_int64(s, 2);
        c->state = zk_part_state_parse((const char *)sqlite3_column_text(s, 3));
        c->attempts = (uint32_t)sqlite3_column_int64(s, 4);
        c->owner.pid = (int32_t)sqlite3_column_int64(s, 5);
        c->owner.start = (uint64_t)sqlite3_column_int64(s, 6);
        ledger_text(c->role, sizeof c->role, s, 7);
        c->owner.pidns = (uint64_t)sqlite3_column_int64(s, 8);
        c->owner.boot = (uint64_t)sqlite3_column_int64(s, 9);
        c->owner.btime = (uint64_t)sqlite3_column_int64(s, 10);
    }
    sqlite3_finalize(s);
    if (r < 0) {
        free(v);
        return r;
    }
    *ret = v;
    *ret_n = n;
    return 0;
}

/*
 * One conditional move of candidate c to `to` (ready, queued or failed), in
 * its own transaction: applied only if the row still has c's state and
 * owner (and ready_ns for ready).  1 if moved, 0 if the row changed meanwhile.
 */
static int move(zk_ledger *l, const struct cand *c, int to, const char *note,
                struct zk_diag *diag)
{
    static const char q[] =
        "UPDATE partitions SET state = ?1, error = CASE WHEN ?2 IS NULL THEN error ELSE ?2 END,"
        " owner_pid = 0, owner_start = 0, owner_role = '',"
        " slot = CASE WHEN ?1 = 'ready' THEN slot ELSE -1 END,"
        " queued_ns = CASE WHEN ?1 = 'queued' THEN ?3 ELSE queued_ns END,"
        " done_ns = CASE WHEN ?1 = 'failed' THEN ?3 ELSE done_ns END"
        " WHERE id = ?4 AND state = ?5 AND owner_pid = ?6 AND owner_start = ?7"
        " AND ready_ns = ?8";
    sqlite3_stmt *s;
    int r = ledger_begin(l, diag);
    if (r)
        return r;
    if (sqlite3_prepare_v2(l->db, q, -1, &s, NULL)) {
        r = ledger_dberr(l, diag);
        goto out;
    }
    sqlite3_bind_text(s, 1, zk_part_state_name(to), -1, SQLITE_STATIC);
    if (note)
        sqlite3_bind_text(s, 2, note, (int)strnlen(note, 511), SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 3, ledger_now_ns());
    sqlite3_bind_int64(s, 4, c->id);
    sqlite3_bind_text(s, 5, zk_part_state_name(c->state), -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 6, c->owner.pid);
    sqlite3_bind_int64(s, 7, (int64_t)c->owner.start);
    sqlite3_bind_int64(s, 8, c->ready_ns);
    r = ledger_run(l, s, diag);
    sqlite3_finalize(s);
    if (r > 0) {
        int d = ledger_derive_job(l, c->job_id, to, diag);
        r = d < 0 ? d : 1;
    }
out:
    if (r >= 0) {
        int e = ledger_end(l, 0, diag);
        return e < 0 ? e : r;
    }
    return ledger_end(l, r, diag);
}

int lsq_reconcile(zk_ledger *l, int (*slot_holds)(void *ctx, int64_t part_id),
                        void *ctx, int check_ready, uint32_t max_attempts,
                        uint32_t *ret_changed, struct zk_diag *diag)
{
    struct cand *v = NULL, *rv = NULL;
    size_t n = 0, rn = 0;
    uint32_t changed = 0;
    char note[512];
    /* both candidate lists from one snapshot, before slot_holds is asked
     * anything (see ledger.h: callers may scan the pool on the first call) */
    int r = ledger_exec(l, "BEGIN", diag);
    if (r)
        return r;
    r = candidates(l, "state IN ('synthesizing', 'proving')", &v, &n, diag);
    if (!r && check_ready)
        r = candidates(l, "state = 'ready'", &rv, &rn, diag);
    r = ledger_end(l, r, diag);
    for (size_t i = 0; !r && i < n; i++) {
        const struct cand *c = &v[i];
        if (zk_proc_alive(&c->owner, 64))
            continue;
        int held = slot_holds ? slot_holds(ctx, c->id) : 0;
        if (held < 0) {
            r = zk_diag_set(diag, l->path, held, "slot_holds(%lld) failed", (long long)c->id);
            break;
        }
        int to = held ? ZK_PART_READY : c->attempts >= max_attempts ? ZK_PART_FAILED
                                                                      : ZK_PART_QUEUED;
        if (to == ZK_PART_FAILED)
            snprintf(note, sizeof note, "%s pid %d died while %s; gave up after %u attempts",
                     c->role, (int)c->owner.pid, zk_part_state_name(c->state), c->attempts);
        else
            snprintf(note, sizeof note, "%s pid %d died while %s", c->role, (int)c->owner.pid,
                     zk_part_state_name(c->state));
        r = move(l, c, to, to == ZK_PART_READY ? NULL : note, diag);
        if (r > 0)
            changed++;
        r = r < 0 ? r : 0;
    }
    for (size_t i = 0; !r && i < rn; i++) {
        int held = slot_holds ? slot_holds(ctx, rv[i].id) : 0;
        if (held < 0) {
            r = zk_diag_set(diag, l->path, held, "slot_holds(%lld) failed", (long long)rv[i].id);
            break;
        }
        if (held)
            continue;
        r = move(l, &rv[i], ZK_PART_QUEUED, "its slot was lost: re-queued", diag);
        if (r > 0)
            changed++;
        r = r < 0 ? r : 0;
    }
    free(v);
    free(rv);
    if (!r && ret_changed)
        *ret_changed = changed;
    return r;
}
