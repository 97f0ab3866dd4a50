/*
 * purge.c -- the daemons' part of "inputs do not outlive their job": on
 * the periodic pass (zkd_base_tick), at most every ZKD_PURGE_EVERY_S
 * seconds, the inputs of jobs that ended [ledger] keep_inputs seconds ago
 * or more are emptied (zk_ledger_purge_inputs: results stay; on SQLite
 * the space is given back and the write-ahead log emptied).  Every daemon
 * runs it; whichever comes first does the work, the others find nothing.
 */
#include "daemon/ledgerretry.h"
#include "daemon/zkd.h"

#define ZKD_PURGE_EVERY_S 5.0

void zkd_purge_inputs(struct zkd_base *b)
{
    static double last = -1e9;        /* the main thread's; first pass at once */
    double now = zkd_now();
    if (now - last < ZKD_PURGE_EVERY_S)
        return;
    last = now;
    struct zk_diag d;
    uint32_t n = 0;
    int r = zk_ledger_purge_inputs(b->l, b->cfg->ledger_keep_inputs, &n, &d);
    if (zkd_ledger_transient(r))
        zkd_ledger_unwritable("deleting ended jobs' inputs", &d);   /* logged once */
    else if (r)
        zkd_log(ZKD_WARN, "deleting ended jobs' inputs: %s", d.msg);
    else if (n)
        zkd_log(ZKD_INFO, "deleted the inputs of %u partition(s) of ended jobs "
                "([ledger] keep_inputs = %u s)", n, b->cfg->ledger_keep_inputs);
}
