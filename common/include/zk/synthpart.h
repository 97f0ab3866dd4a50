/*
 * synthpart.h -- the one path of a synthesized partition into the pool,
 * for every writer of the pool: synthd (synthd/main.c) and libzkslot's
 * producers (lib/producer.c).
 *
 * The order, which gpud and the crash recovery rely on (docs/pool.md,
 * docs/ledger.md):
 *
 *   take     a FREE slot first (zk_pool_acquire_class: the permit, taken
 *            before any work, so memory stays bounded), then the ledger's
 *            claim of a queued partition for that slot (queued ->
 *            synthesizing(this process), the slot recorded; the writer's
 *            own step, passed in), then the slot's ids for the reaper;
 *   (the writer fills the witness and a, b, c into the slot)
 *   publish  the statement into the ledger (zk/statement.h) while the slot
 *            is still FILLING, then the slot header (zk/slotfmt.h), then
 *            zk_pool_publish: READY;
 *   ready    the ledger's synthesizing -> ready (ZK_ESTATE: a gpud took it
 *            already, or it was canceled: nothing to do);
 *   abandon  on a failure before READY: the slot given back FREE, and the
 *            partition re-queued (or left for the writer to fail).
 *
 * A writer killed anywhere in this is reaped by the pool (its slot FREE)
 * and reconciled by the daemons (its partition queued again or, once READY,
 * ready).  Nothing here logs; the ledger's writes go through the writer's
 * runner (a daemon retries them while the ledger is unwritable).
 */
#ifndef ZK_COMMON_SYNTHPART_H
#define ZK_COMMON_SYNTHPART_H

#include <stdint.h>

#include "zk/binfile.h"
#include "zk/ledger.h"
#include "zk/pool.h"
#include "zk/proc.h"
#include "zk/zkey.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One ledger write: 0, or an error with diag. */
typedef int (*zk_synthpart_op)(void *ctx, struct zk_diag *diag);

/* Runs op (named `what` for a log) and returns its answer: once, or
 * retried while the ledger is unwritable (synthd: zkd_ledger_retry). */
typedef int (*zk_synthpart_runner)(void *run_ctx, zk_synthpart_op op, void *op_ctx,
                                   const char *what, struct zk_diag *diag);

/* Who writes: the pool and ledger handles of the calling thread, the
 * process's identity (the owner of slot and claim), and how ledger writes
 * run (run NULL: once). */
struct zk_synthpart_writer {
    zk_pool *pool;
    zk_ledger *l;
    const struct zk_proc_id *me;
    zk_synthpart_runner run;
    void *run_ctx;
};

/* A partition in hand. */
struct zk_synthpart {
    struct zk_slot s;                /* FILLING, this process's, its ids set */
    struct zk_ledger_part p;         /* synthesizing(this process), s recorded */
    struct zk_slot_desc d;           /* the regions (zk_slotfmt_layout): the
                                        writer's, set before publish */
};

/* The writer's ledger step of a take: claims a queued partition for slot s
 * into *ret.  0, or an error with diag (-ENOENT: none to claim). */
typedef int (*zk_synthpart_claim)(void *ctx, const struct zk_slot *s,
                                  struct zk_ledger_part *ret, struct zk_diag *diag);

enum zk_synthpart_step { ZK_SYNTHPART_SLOT = 1, ZK_SYNTHPART_CLAIM = 2 };

/*
 * Takes a slot for work of class cls (zk_pool_acquire_class; timeout_ms
 * and cancel as there), then claim(ctx, slot, ...), then the slot's ids.
 * 0 with ret->s and ret->p filled (ret->d left as it is: the writer's).
 * On failure *ret is not written, nothing is held, and *ret_step (may be
 * NULL) says which step failed: ZK_SYNTHPART_SLOT (the pool's error,
 * ZK_ETIMEOUT or ZK_ECANCELED among them, with diag "taking a slot: ...";
 * claim not called) or ZK_SYNTHPART_CLAIM (claim's error, diag as claim
 * left it; the slot given back FREE).
 */
int zk_synthpart_take(const struct zk_synthpart_writer *w, int cls, int timeout_ms,
                      const zk_cancel_flag *cancel, zk_synthpart_claim claim, void *ctx,
                      struct zk_synthpart *ret, int *ret_step, struct zk_diag *diag);

/*
 * Publishes a filled partition with key kh (its registered hash key_hash):
 * the statement of the witness in the slot into the ledger (through the
 * runner), the slot header (synth_s: the synthesis's wall time; witness_s:
 * of it, the witness generator's run, < 0 none), then READY.  0 when the
 * slot is READY (no longer the writer's: call zk_synthpart_ready next).
 * Otherwise the ledger's or the pool's error with diag, and the slot
 * still FILLING: the writer abandons it.
 */
int zk_synthpart_publish(const struct zk_synthpart_writer *w, struct zk_synthpart *part,
                         const char *key_hash, const struct zk_zkey_header *kh, double synth_s,
                         double witness_s, struct zk_diag *diag);

/*
 * zk_synthpart_publish for a bellperson partition: part's slot holds the
 * .bpa in region w (laid out by zk_slotfmt_layout_bp, checked by the
 * caller against the key: zk_bp_assignment_parse); the statement is its
 * inputs after ONE; kh gives curve, n_vars (inputs + aux), n_public and
 * domain_size.  Returns as zk_synthpart_publish.
 */
int zk_synthpart_publish_bp(const struct zk_synthpart_writer *w, struct zk_synthpart *part,
                            const char *key_hash, const struct zk_zkey_header *kh,
                            double synth_s, struct zk_diag *diag);

/*
 * The ledger's synthesizing -> ready of a published partition (through the
 * runner; synth_s and witness_s as recorded there).  0; ZK_ESTATE when a
 * gpud took it already or it was canceled (nothing to do); another error
 * with diag (the daemons' reconciliation moves it later).
 */
int zk_synthpart_ready(const struct zk_synthpart_writer *w, const struct zk_synthpart *part,
                       double synth_s, double witness_s, struct zk_diag *diag);

/*
 * Gives a partition in hand back: its slot FREE (zk_pool_abandon), then,
 * when note is not NULL, the partition re-queued (synthesizing -> queued,
 * note in its error column, through the runner).  0 (a partition no
 * longer the writer's, canceled or reconciled, is left as it is); the
 * pool's error (ZK_ESTATE: the slot was reaped meanwhile) else the
 * requeue's, with diag.
 */
int zk_synthpart_abandon(const struct zk_synthpart_writer *w, struct zk_synthpart *part,
                         const char *note, struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_SYNTHPART_H */
