/*
 * purge.c -- an ended job's circuit inputs leave a PostgreSQL ledger
 * (struct ledger_ops.purge_inputs; ../purge.c has the contract and the
 * SQLite side).
 *
 * One UPDATE empties the inputs of the partitions of jobs that ended at
 * or before the bound: no SQL reader sees them after it commits.  The old
 * row versions (their TOAST chunks hold the input) are dead tuples until
 * VACUUM reclaims them; a `VACUUM partitions` follows a purge that changed
 * something.  It needs the table's owner (or, from PostgreSQL 16, the
 * MAINTAIN privilege): run as another role, the server skips it with a
 * warning and autovacuum reclaims the space later.  Neither VACUUM nor
 * autovacuum overwrite the freed bytes in the data files, and the server's
 * WAL holds the inserted input until its segments are recycled
 * (docs/architecture.md, "Confidentiality").
 */
#include <stdint.h>

#include "ledger/pg/pg_internal.h"
#include "zk/error.h"

int lpg_purge_inputs(zk_ledger *l, int64_t before_ns, uint32_t *ret_n, struct zk_diag *diag)
{
    struct lpg_args a = { 0 };
    lpg_arg_i64(&a, before_ns);
    int r;
    LPG_RETRY(l, r, lpg_cmd(l, "UPDATE partitions p SET input = ''::bytea FROM jobs j"
                               " WHERE p.job_id = j.id AND length(p.input) > 0"
                               " AND j.state IN ('done', 'failed', 'canceled')"
                               " AND j.finished_ns <= $1", &a, diag));
    if (r < 0)
        return r;
    *ret_n = (uint32_t)r;
    if (r > 0) {
        struct zk_diag vd;                /* best effort: autovacuum does it anyway */
        unsigned bound = l->pg->stmt_ms;  /* a VACUUM may work long before it answers:
                                           * the kernel's timeouts still see a cut */
        l->pg->stmt_ms = 0;
        PGresult *res = lpg_query(l, "VACUUM partitions", NULL, 0, &vd);
        l->pg->stmt_ms = bound;
        if (res)
            PQclear(res);
    }
    return 0;
}
