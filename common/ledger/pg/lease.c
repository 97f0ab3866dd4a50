/*
 * lease.c -- machines sharing a ledger on PostgreSQL (zk/ledger.h): each
 * holds a lease (machines.lease_until, the database's clock) that its
 * daemons renew; a machine whose lease ran out loses its partitions to the
 * queue, and its epoch moves on, so that each of its handles learns at its
 * next renewal that the lease it held is gone.
 *
 * A machine row: name, epoch (the lease's generation), lease_until, and
 * expired (set when another machine took its partitions; the next renewal
 * takes the lease again under the new epoch).
 */
#include <stdio.h>
#include <string.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"

int lpg_lease_renew(zk_ledger *l, unsigned lease_s, int *ret_lost, struct zk_diag *diag)
{
    struct ledger_pg *pg = l->pg;
    struct lpg_args a = { 0 };
    lpg_arg_str(&a, pg->machine);
    lpg_arg_i64(&a, lease_s);
    if (pg->epoch) {
        lpg_arg_i64(&a, pg->epoch);
        int n = lpg_cmd(l, "UPDATE machines SET lease_until = now() + make_interval(secs => $2)"
                           " WHERE name = $1 AND epoch = $3 AND NOT expired", &a, diag);
        if (n < 0)
            return n;
        if (n == 1)
            return 0;
        pg->epoch = 0;   /* expired by another machine: taken again next time */
        *ret_lost = 1;
        return 0;
    }
    PGresult *res = lpg_query(l, "INSERT INTO machines (name, lease_until) VALUES"
                                 " ($1, now() + make_interval(secs => $2)) ON CONFLICT (name)"
                                 " DO UPDATE SET lease_until = excluded.lease_until,"
                                 " expired = false RETURNING epoch", &a, 0, diag);
    if (!res)
        return ZK_ELEDGER;
    pg->epoch = lpg_i64(res, 0, 0);
    PQclear(res);
    return 0;
}

static int lease_expire(zk_ledger *l, uint32_t *ret_changed, struct zk_diag *diag)
{
    int r = lpg_begin(l, diag);
    if (r)
        return r;
    /* the machines another daemon is not expiring right now */
    PGresult *m = lpg_query(l, "SELECT name FROM machines WHERE lease_until < now() AND NOT"
                               " expired FOR UPDATE SKIP LOCKED", NULL, 0, diag);
    if (!m) {
        r = ZK_ELEDGER;
        goto out;
    }
    for (int i = 0; i < PQntuples(m) && r >= 0; i++) {
        char note[160];
        const char *name = PQgetvalue(m, i, 0);
        snprintf(note, sizeof note, "machine %s lost its lease: re-queued", name);
        struct lpg_args a = { 0 };
        lpg_arg_str(&a, name);
        lpg_arg_str(&a, note);
        lpg_arg_i64(&a, lpg_now_ns(l));
        /* a running job stays running: no job state to derive */
        r = lpg_cmd(l, "UPDATE partitions SET state = 'queued', error = $2, owner_pid = 0,"
                       " owner_start = 0, owner_role = '', slot = -1, machine = '',"
                       " queued_ns = $3 WHERE machine = $1 AND state IN ('synthesizing',"
                       " 'ready', 'proving')", &a, diag);
        if (r >= 0)
            *ret_changed += (uint32_t)r;
        struct lpg_args b = { 0 };
        lpg_arg_str(&b, name);
        if (r >= 0)
            r = lpg_cmd(l, "UPDATE machines SET expired = true, epoch = epoch + 1 WHERE"
                           " name = $1", &b, diag);
    }
    PQclear(m);
    r = r < 0 ? r : 0;
out:
    return lpg_end(l, r, diag);
}

int lpg_lease_expire(zk_ledger *l, uint32_t *ret_changed, struct zk_diag *diag)
{
    int r;
    LPG_RETRY(l, r, (*ret_changed = 0, lease_expire(l, ret_changed, diag)));
    return r;
}
