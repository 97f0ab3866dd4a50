/*
 * part.c -- a synthesized partition's path into the pool, shared by synthd
 * and libzkslot's producers (zk/synthpart.h): take, publish, ready,
 * abandon.
 */
#include <string.h>

#include "zk/error.h"
#include "zk/slotfmt.h"
#include "zk/statement.h"
#include "zk/synthpart.h"

/* One ledger write through the writer's runner, or once. */
static int run(const struct zk_synthpart_writer *w, zk_synthpart_op op, void *ctx,
               const char *what, struct zk_diag *diag)
{
    return w->run ? w->run(w->run_ctx, op, ctx, what, diag) : op(ctx, diag);
}

int zk_synthpart_take(const struct zk_synthpart_writer *w, int cls, int timeout_ms,
                      const zk_cancel_flag *cancel, zk_synthpart_claim claim, void *ctx,
                      struct zk_synthpart *ret, int *ret_step, struct zk_diag *diag)
{
    struct zk_slot s;
    struct zk_ledger_part p;
    int r;

    r = zk_pool_acquire_class(w->pool, ZK_POOL_NO_ID, ZK_POOL_NO_ID, cls, timeout_ms, cancel, &s);
    if (r) {
        if (ret_step)
            *ret_step = ZK_SYNTHPART_SLOT;
        return zk_diag_set(diag, "pool", r, "taking a slot: %s", zk_strerror(r));
    }
    if ((r = claim(ctx, &s, &p, diag))) {
        zk_pool_abandon(w->pool, &s);
        if (ret_step)
            *ret_step = ZK_SYNTHPART_CLAIM;
        return r;
    }
    /* the reaper's record of what the slot holds (ZK_ESTATE only if it
     * was reaped meanwhile: publish then fails and says so) */
    zk_pool_set_ids(w->pool, &s, (uint64_t)p.id, (uint64_t)p.key_id);
    ret->s = s;
    ret->p = p;
    return 0;
}

struct statement_op {
    const struct zk_synthpart_writer *w;
    int64_t id;
    char statement[ZK_STATEMENT_LEN];
};

static int statement_op(void *ctx, struct zk_diag *diag)
{
    const struct statement_op *o = ctx;
    return zk_ledger_part_statement(o->w->l, o->id, o->w->me, o->statement, diag);
}

/* The slot header of part (key kh) at the start of its slot, and the
 * class and deadline into its descriptor (gpud's claim order). */
static void write_header(struct zk_synthpart *part, const struct zk_zkey_header *kh,
                         uint32_t format, double synth_s, double witness_s)
{
    const struct zk_ledger_part *p = &part->p;
    struct zk_slotfmt_header h;

    memset(&h, 0, sizeof h);
    h.magic = ZK_SLOTFMT_MAGIC;
    h.version = ZK_SLOTFMT_VERSION;
    h.format = format;
    h.curve = kh->curve;
    h.partition_id = (uint64_t)p->id;
    h.key_id = (uint64_t)p->key_id;
    h.n_vars = kh->n_vars;
    h.n_public = kh->n_public;
    h.domain_size = kh->domain_size;
    h.synth_ns = (uint64_t)(synth_s * 1e9);
    h.attempt = p->attempts;
    h.priority = (uint32_t)p->priority;
    h.deadline_ns = (uint64_t)p->deadline_ns;
    if (witness_s >= 0)   /* at least 1 ms: 0 says no generator ran */
        h.witness_ms = witness_s * 1e3 >= 1 ? (uint32_t)(witness_s * 1e3) : 1;
    part->d.priority = h.priority;
    part->d.deadline_ns = h.deadline_ns;
    memcpy(part->s.data, &h, sizeof h);
}

/* Publishes part of format `format` whose public signals are pub. */
static int publish(const struct zk_synthpart_writer *w, struct zk_synthpart *part,
                   const char *key_hash, const struct zk_zkey_header *kh, uint32_t format,
                   const zk_scalar *pub, double synth_s, double witness_s, struct zk_diag *diag)
{
    struct statement_op so = { w, part->p.id, "" };
    int r;

    /* the statement (key, public signals) before the slot is READY: gpud
     * checks the slot against it, results are checked against it when
     * handed out (zk/statement.h) */
    zk_statement(key_hash, pub, kh->n_public, so.statement);
    if ((r = run(w, statement_op, &so, "recording a statement", diag)))
        return r;
    write_header(part, kh, format, synth_s, witness_s);
    if ((r = zk_pool_publish(w->pool, &part->s, &part->d)))
        return zk_diag_set(diag, "pool", r, "slot %u: publish failed: %s", part->s.index,
                           zk_strerror(r));
    return 0;
}

int zk_synthpart_publish(const struct zk_synthpart_writer *w, struct zk_synthpart *part,
                         const char *key_hash, const struct zk_zkey_header *kh, double synth_s,
                         double witness_s, struct zk_diag *diag)
{
    const uint8_t *wit = part->s.data + part->d.region_off[ZK_SLOTFMT_W];
    /* public signals w[1..n_public] */
    return publish(w, part, key_hash, kh, ZK_SLOTFMT_GROTH16, (const zk_scalar *)wit + 1,
                   synth_s, witness_s, diag);
}

int zk_synthpart_publish_bp(const struct zk_synthpart_writer *w, struct zk_synthpart *part,
                            const char *key_hash, const struct zk_zkey_header *kh,
                            double synth_s, struct zk_diag *diag)
{
    const uint8_t *bpa = part->s.data + part->d.region_off[ZK_SLOTFMT_W];
    /* the .bpa's inputs after ONE (docs/bellperson.md) */
    return publish(w, part, key_hash, kh, ZK_SLOTFMT_BELLPERSON,
                   (const zk_scalar *)(bpa + ZK_SLOTFMT_BPA_MIN) + 1, synth_s, -1, diag);
}

struct ready_op {
    const struct zk_synthpart_writer *w;
    int64_t id;
    double synth_s, witness_s;
};

static int ready_op(void *ctx, struct zk_diag *diag)
{
    const struct ready_op *o = ctx;
    return zk_ledger_part_ready(o->w->l, o->id, o->w->me, o->synth_s, o->witness_s, diag);
}

int zk_synthpart_ready(const struct zk_synthpart_writer *w, const struct zk_synthpart *part,
                       double synth_s, double witness_s, struct zk_diag *diag)
{
    /* after READY, retried while the ledger is unwritable: a gpud may take
     * the slot meanwhile, and the transition is conditional, so a retry
     * records it once */
    struct ready_op o = { w, part->p.id, synth_s, witness_s };
    return run(w, ready_op, &o, "marking a partition ready", diag);
}

struct requeue_op {
    const struct zk_synthpart_writer *w;
    int64_t id;
    const char *note;
};

static int requeue_op(void *ctx, struct zk_diag *diag)
{
    const struct requeue_op *o = ctx;
    return zk_ledger_part_requeue(o->w->l, o->id, ZK_PART_SYNTHESIZING, o->w->me, o->note, diag);
}

int zk_synthpart_abandon(const struct zk_synthpart_writer *w, struct zk_synthpart *part,
                         const char *note, struct zk_diag *diag)
{
    struct requeue_op o = { w, part->p.id, note };
    int r = zk_pool_abandon(w->pool, &part->s), q = 0;

    if (note)
        q = run(w, requeue_op, &o, "re-queuing a partition", diag);
    if (q == ZK_ESTATE)   /* canceled or reconciled meanwhile: not ours to re-queue */
        q = 0;
    if (r)
        return zk_diag_set(diag, "pool", r, "slot %u: no longer this process's (reaped?): %s",
                           part->s.index, zk_strerror(r));
    return q;
}
