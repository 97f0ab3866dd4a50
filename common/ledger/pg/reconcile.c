/*
 * reconcile.c -- zk_ledger_reconcile on PostgreSQL (zk/ledger.h), for this
 * machine's partitions only (their owners are this machine's processes and
 * their slots are in this machine's pool): a dead owner's partition goes
 * back to ready (its slot still holds the synthesis), queued, or failed
 * after too many attempts; a ready partition whose slot was lost is
 * re-queued.  The candidates come from one statement; each move is its
 * own conditional update (state, owner and ready_ns unchanged).  Then any
 * machine's pass finishes a job left running with every partition done.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"
#include "zk/proc.h"

/* One conditional move of row `i` of the candidates to `to`: 1 moved, 0 not, < 0. */
static int move(zk_ledger *l, const PGresult *c, int i, int to, const char *note,
                struct zk_diag *diag)
{
    char n[512];
    struct lpg_args a = { 0 };
    snprintf(n, sizeof n, "%s", note ? note : "");
    lpg_arg_str(&a, zk_part_state_name(to));
    lpg_arg_str(&a, note ? n : NULL);
    lpg_arg_i64(&a, lpg_now_ns(l));
    for (int col = 0; col < 5; col++)   /* id, state, owner_pid, owner_start, ready_ns */
        lpg_arg_str(&a, PQgetvalue(c, i, col));
    int r = lpg_begin(l, diag);
    if (r)
        return r;
    r = lpg_cmd(l, "UPDATE partitions SET state = $1, error = coalesce($2, error),"
                   " owner_pid = 0, owner_start = 0, owner_role = '',"
                   " slot = CASE WHEN $1 = 'ready' THEN slot ELSE -1 END,"
                   " machine = CASE WHEN $1 = 'ready' THEN machine ELSE '' END,"
                   " queued_ns = CASE WHEN $1 = 'queued' THEN $3 ELSE queued_ns END,"
                   " done_ns = CASE WHEN $1 = 'failed' THEN $3 ELSE done_ns END"
                   " WHERE id = $4 AND state = $5 AND owner_pid = $6 AND owner_start = $7"
                   " AND ready_ns = $8", &a, diag);
    if (r > 0) {
        int d = lpg_derive_job(l, lpg_i64(c, i, 5), to, diag);
        r = d < 0 ? d : 1;
    }
    int e = lpg_end(l, r < 0 ? r : 0, diag);
    return e < 0 ? e : r;
}

int lpg_reconcile(zk_ledger *l, int (*slot_holds)(void *ctx, int64_t part_id), void *ctx,
                  int check_ready, uint32_t max_attempts, uint32_t *ret_changed,
                  struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_str(&a, l->pg->machine);
    lpg_arg_i64(&a, check_ready);
    /* both kinds from one snapshot, before slot_holds is asked anything */
    PGresult *c = lpg_query(l, "SELECT id, state, owner_pid, owner_start, ready_ns, job_id,"
                               " attempts, owner_role, owner_ns, owner_boot, owner_btime FROM partitions"
                               " WHERE machine = $1 AND (state IN ('synthesizing', 'proving')"
                               " OR ($2 <> 0 AND state = 'ready')) ORDER BY id", &a, 0, diag);
    if (!c)
        return ZK_ELEDGER;
    uint32_t changed = 0;
    char note[512];
    int r = 0, n = PQntuples(c);
    /* the owners first, then the lost slots (SQLite's order) */
    for (int pass = 0; pass < 2 && !r; pass++) {
        for (int i = 0; i < n && !r; i++) {
            int state = zk_part_state_parse(PQgetvalue(c, i, 1));
            if ((state == ZK_PART_READY) != (pass == 1))
                continue;
            struct zk_proc_id owner = { (int32_t)lpg_i64(c, i, 2), (uint64_t)lpg_i64(c, i, 3),
                                        (uint64_t)lpg_i64(c, i, 8), (uint64_t)lpg_i64(c, i, 9),
                                        (uint64_t)lpg_i64(c, i, 10) };
            if (pass == 0 && zk_proc_alive(&owner, 64))
                continue;
            int64_t id = lpg_i64(c, i, 0);
            int held = slot_holds ? slot_holds(ctx, id) : 0;
            if (held < 0) {
                r = zk_diag_set(diag, l->path, held, "slot_holds(%lld) failed", (long long)id);
                break;
            }
            int to;
            if (pass == 1) {
                if (held)
                    continue;
                to = ZK_PART_QUEUED;
                snprintf(note, sizeof note, "its slot was lost: re-queued");
            } else {
                uint32_t attempts = (uint32_t)lpg_i64(c, i, 6);
                to = held ? ZK_PART_READY : attempts >= max_attempts ? ZK_PART_FAILED
                                                                     : ZK_PART_QUEUED;
                if (to == ZK_PART_FAILED)
                    snprintf(note, sizeof note,
                             "%s pid %d died while %s; gave up after %u attempts",
                             PQgetvalue(c, i, 7), (int)owner.pid, zk_part_state_name(state),
                             attempts);
                else
                    snprintf(note, sizeof note, "%s pid %d died while %s", PQgetvalue(c, i, 7),
                             (int)owner.pid, zk_part_state_name(state));
            }
            r = move(l, c, i, to, to == ZK_PART_READY ? NULL : note, diag);
            if (r > 0)
                changed++;
            r = r < 0 ? r : 0;
        }
    }
    PQclear(c);
    /* a job whose partitions are all done but whose own state a done did
     * not move (its second statement never ran: pg/parts.c done_fast) */
    if (!r) {
        struct lpg_args b = { 0 };
        lpg_arg_i64(&b, lpg_now_ns(l));
        int f = lpg_cmd(l, "UPDATE jobs j SET state = 'done', finished_ns = $1, started_ns ="
                           " CASE WHEN started_ns = 0 THEN $1 ELSE started_ns END"
                           " WHERE j.state IN ('queued', 'running') AND NOT EXISTS (SELECT 1"
                           " FROM partitions p WHERE p.job_id = j.id AND p.state IN ('queued',"
                           " 'synthesizing', 'ready', 'proving', 'failed', 'canceled'))", &b,
                        diag);
        if (f < 0)
            r = f;
        else
            changed += (uint32_t)f;
    }
    if (!r && ret_changed)
        *ret_changed = changed;
    return r;
}
