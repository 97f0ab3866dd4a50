/*
 * loop.c -- the main thread's loop of both daemons (zkd.h: zkd_loop_run).
 *
 * Running: wait on the signalfd (250 ms), and once a second recover the
 * pool and the ledger (zkd_base_tick), run the daemon's own tick, send
 * STATUS= (the ledger's health first when it is unwritable) and WATCHDOG=1
 * when the daemon's threads came around recently.  A stop (a signal, the
 * daemon's stop flag set from inside: a lost device, or a lost pool)
 * switches to draining: STOPPING=1 at once, then STATUS and WATCHDOG=1
 * every second while the daemon reports progress, until it says it is
 * done.  The daemon is told of each signal (SIGTERM: finish, SIGINT or
 * SIGQUIT: hand back, first or after a SIGTERM).  A drain waits for an
 * unwritable ledger only while the machine's lease may still hold: once
 * the ledger has been unwritable for [ledger] lease seconds (the lease
 * could not be renewed meanwhile, so other machines hand the partitions
 * back, or this machine's reconcile pass once their owner is gone), the
 * daemon is told to hand back, as on SIGINT.
 */
#include <poll.h>
#include <stdio.h>

#include "daemon/ledgerretry.h"
#include "daemon/zkd.h"

int zkd_loop_run(struct zkd_base *b, int sfd, const struct zkd_loop_ops *ops)
{
    uint64_t wd_usec = zkd_watchdog_usec();
    double last_tick = 0, last_note = 0;
    int stop = ZKD_RUN, draining = 0, rc = 0;
    unsigned n_ticks = 0, lease = b->cfg && b->cfg->ledger_lease ? b->cfg->ledger_lease : 30;
    char st[320];

    for (;;) {
        struct pollfd pfd = { sfd, POLLIN, 0 };
        if (poll(&pfd, 1, draining ? 100 : 250) > 0 && zkd_signals_poll(sfd, &stop)) {
            ops->on_stop(ops->ctx, stop);
            draining = 1;
        }
        if (!draining && atomic_load(ops->stop_flag))
            draining = 1;   /* from inside: device lost, pool gone */
        double t = zkd_now();
        if (draining) {
            int healthy = 1;
            st[0] = 0;
            int done = ops->drained(ops->ctx, wd_usec / 2000, &healthy, st, sizeof st);
            /* STOPPING=1 at least once, even when nothing was in hand */
            if (last_note == 0 || t - last_note >= 1.0) {
                zkd_notify_stopping(healthy, st);
                last_note = t;
            }
            if (done)
                break;
            double since = zkd_ledger_unwritable_since();
            if (stop != ZKD_HANDBACK && since > 0 && t - since >= lease) {
                zkd_log(ZKD_WARN, "stopping: the ledger unwritable for %.1f s ([ledger] lease "
                        "= %u s): the partitions in hand handed back, not waited for (where "
                        "the ledger cannot record that, the lease's expiry or this machine's "
                        "reconcile pass re-queues them)", t - since, lease);
                stop = ZKD_HANDBACK;
                ops->on_stop(ops->ctx, ZKD_HANDBACK);
            }
            continue;
        }
        if (t - last_tick < 1.0)
            continue;
        last_tick = t;
        if (ops->tick)
            ops->tick(ops->ctx, ++n_ticks);
        if (zkd_base_tick(b) == ZKD_EXIT_POOL_GONE) {
            rc = ZKD_EXIT_POOL_GONE;
            ops->on_stop(ops->ctx, ZKD_FINISH);
            draining = 1;
            continue;
        }
        char lh[256];
        zkd_ledger_health_status(lh, sizeof lh);
        st[0] = 0;
        ops->status(ops->ctx, st, sizeof st);
        zkd_notify("STATUS=%s%s", lh, st);
        if (wd_usec && ops->alive(ops->ctx, wd_usec / 2000))
            zkd_notify("WATCHDOG=1");
    }
    return rc;
}
