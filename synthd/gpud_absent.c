/*
 * gpud_absent.c -- synthd pauses its claims and hands the pool's ready
 * partitions back to a farm's queue when no gpud has been attached to the
 * pool for [synthd] gpud_absent seconds (gpud_absent.h).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "daemon/ledgerretry.h"
#include "daemon/zkd.h"
#include "gpud_absent.h"

static atomic_int paused;               /* read by the workers */
static double absent_since;             /* 0: a gpud is attached (main thread only) */
static unsigned long long handed_back;  /* since the pause began */

int synthd_absent_paused(void)
{
    return atomic_load(&paused);
}

/* Live processes attached to the pool as "gpud". */
static unsigned live_gpuds(const zk_pool *pool)
{
    unsigned n = 0;
    for (unsigned i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
        struct zk_pool_attach_info ai;
        if (zk_pool_attach_info(pool, i, &ai) == 0 && ai.alive && !strcmp(ai.name, "gpud"))
            n++;
    }
    return n;
}

/* Every READY slot claimed and freed, its partition queued again when the
 * ledger has it ready in that slot; how many went back to the queue. */
static unsigned hand_back(zk_pool *pool, zk_ledger *l, unsigned absent_s,
                          const zk_cancel_flag *stop)
{
    char note[96];
    unsigned n = 0;
    struct zk_slot s;
    snprintf(note, sizeof note, "no gpud on its machine for %u s; handed back", absent_s);
    while (!atomic_load(stop) &&
           zk_pool_claim(pool, ZK_POOL_ANY_NODE, ZK_POOL_CLAIM_NOVERIFY, 0, stop, &s) == 0) {
        struct zk_ledger_part lp;
        if (zkd_slot_ready_part(l, &s, &lp) && zkd_part_requeue(l, (int64_t)s.partition_id, ZK_PART_READY, NULL, note,
                                     stop) == 0) {
            n++;
            zkd_log(ZKD_NOTICE, "partition %lld (job %lld #%u): handed back from slot %u "
                    "(no gpud)", (long long)lp.id, (long long)lp.job_id, lp.index, s.index);
        }
        zk_pool_release(pool, &s);
    }
    return n;
}

void synthd_absent_tick(zk_pool *pool, zk_ledger *l, const struct zk_config *cfg, int shared,
                        const zk_cancel_flag *stop)
{
    if (!shared || !cfg->synthd_gpud_absent)
        return;
    double now = zkd_now();
    if (live_gpuds(pool)) {
        if (atomic_load(&paused))
            zkd_log(ZKD_NOTICE, "a gpud is attached to the pool again: claiming partitions "
                    "(%llu handed back meanwhile)", handed_back);
        atomic_store(&paused, 0);
        absent_since = 0;
        return;
    }
    if (absent_since == 0)
        absent_since = now;
    if (now - absent_since < cfg->synthd_gpud_absent)
        return;
    if (!atomic_load(&paused)) {
        zkd_log(ZKD_WARN, "no gpud attached to the pool for %u s ([synthd] gpud_absent): "
                "claiming nothing until one attaches; the partitions ready here go back to "
                "the queue for the farm's other machines", cfg->synthd_gpud_absent);
        handed_back = 0;
        atomic_store(&paused, 1);
    }
    handed_back += hand_back(pool, l, cfg->synthd_gpud_absent, stop);
}

void synthd_absent_status(char *buf, size_t n)
{
    if (atomic_load(&paused))
        snprintf(buf, n, "; no gpud for %.0f s: claiming nothing, %llu handed back",
                 zkd_now() - absent_since, handed_back);
    else if (n)
        buf[0] = 0;
}
