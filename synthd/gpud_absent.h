/*
 * gpud_absent.h -- a machine of a farm whose gpuds are all gone (a dead
 * GPU, a unit that hit its start limit) stops taking work and gives back
 * what waits in its pool, so that the other machines prove it.
 *
 * Contract:
 *  - Only on a shared ledger (PostgreSQL) and with [synthd] gpud_absent
 *    = S > 0 (default 60): on one machine nobody else could take the
 *    partitions, and a gpud that comes back proves them where they are.
 *  - synthd_absent_tick, from the main loop once a second: counts the live
 *    processes attached to the pool as "gpud".  After S seconds with none,
 *    it pauses the workers' claims (logged once), and on that tick and
 *    every one after while paused, claims each READY slot of the pool and
 *    puts its partition back in the queue (ready -> queued, no error
 *    counted; only when the ledger places that partition, ready, in that
 *    slot), then frees the slot.  A gpud attached again ends the
 *    pause (logged once).  A partition being synthesized meanwhile goes
 *    READY and is handed back on a later tick.
 *  - synthd_absent_paused: 1 while the claims are paused (the workers
 *    look before each claim).
 *  - synthd_absent_status: "" or "; no gpud for N s: claiming nothing,
 *    K handed back" for STATUS=.
 */
#ifndef ZK_SYNTHD_GPUD_ABSENT_H
#define ZK_SYNTHD_GPUD_ABSENT_H

#include <stddef.h>

#include "zk/config.h"
#include "zk/ledger.h"
#include "zk/pool.h"

void synthd_absent_tick(zk_pool *pool, zk_ledger *l, const struct zk_config *cfg, int shared,
                        const zk_cancel_flag *stop);
int synthd_absent_paused(void);
void synthd_absent_status(char *buf, size_t n);

#endif /* ZK_SYNTHD_GPUD_ABSENT_H */
