/*
 * ledgerretry.h -- a daemon's ledger writes that fail for a while (both
 * daemons).
 *
 * Contract:
 *  - zkd_ledger_transient(r): r is a failure of the database itself
 *    (ZK_ELEDGER: SQLITE_BUSY past the busy timeout, a full disk, an I/O
 *    error), worth retrying; the ledger's answers (0, ZK_ESTATE, -ENOENT)
 *    are not.
 *  - zkd_ledger_retry(op, ...): runs op until it gives an answer, backing
 *    off 50 ms doubling to 2 s, or until *stop is set (then the last
 *    failure is returned; *stop is looked at every 0.1 s of a pause).
 *    Only for transitions that are conditional and idempotent
 *    (part_ready, part_proving, part_done, part_error, part_requeue), and
 *    for reads: a retry after a failed attempt, whose transaction was
 *    rolled back, changes the ledger once at most.
 *  - zkd_part_error / zkd_part_requeue: those two transitions, retried so,
 *    for both daemons; zkd_part_error also logs what became of the
 *    partition (failed for good, or why the error could not be recorded).
 *  - The health of the ledger is the process's, one state for all its
 *    threads: zkd_ledger_unwritable(what, diag) after a transient failure,
 *    zkd_ledger_writable() after a write that worked.  The log says so once
 *    per change of state ("ledger unwritable: ..." then "ledger writable
 *    again ..."), never once per failed attempt; zkd_ledger_health_status
 *    gives the daemon's STATUS= prefix while it is unwritable.
 */
#ifndef ZK_DAEMON_LEDGERRETRY_H
#define ZK_DAEMON_LEDGERRETRY_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"   /* struct zk_diag */
#include "zk/pool.h"      /* zk_cancel_flag */

int zkd_ledger_transient(int r);

typedef int (*zkd_ledger_op)(void *ctx, struct zk_diag *diag);

int zkd_ledger_retry(zkd_ledger_op op, void *ctx, const char *what, const zk_cancel_flag *stop,
                     struct zk_diag *diag);

struct zk_ledger;
struct zk_ledger_part;
struct zk_proc_id;

/* zk_ledger_part_error of p (owner me), retried while the ledger is
 * unwritable and *stop is not set; 1 when the partition failed for good. */
int zkd_part_error(struct zk_ledger *l, const struct zk_ledger_part *p,
                   const struct zk_proc_id *me, const char *msg, uint32_t max_errors,
                   uint32_t max_attempts, const zk_cancel_flag *stop);
/* zk_ledger_part_requeue, retried so; its result (0, ZK_ESTATE, ...). */
int zkd_part_requeue(struct zk_ledger *l, int64_t id, int expect, const struct zk_proc_id *owner,
                     const char *note, const zk_cancel_flag *stop);

void zkd_ledger_unwritable(const char *what, const struct zk_diag *diag);
void zkd_ledger_writable(void);
/* 1 while the ledger is unwritable. */
int zkd_ledger_is_unwritable(void);
/* zkd_now() of the first failure while the ledger is unwritable, else 0. */
double zkd_ledger_unwritable_since(void);
/* "" or "ledger unwritable for N s (what: why); " into buf. */
void zkd_ledger_health_status(char *buf, size_t n);
/* The next pause after a transient failure: 50 ms doubling to 2 s (*ms = 0
 * to start). */
unsigned zkd_ledger_backoff_ms(unsigned *ms);

#endif /* ZK_DAEMON_LEDGERRETRY_H */
