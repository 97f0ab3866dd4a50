/*
 * starter.c -- gpud's starter thread: claim a READY slot (this NUMA node's
 * first), move its partition to `proving` once the ledger agrees with the
 * slot header (key, and the slot synthd recorded), check the slot's format
 * against the key, run the backend's prove_start, and hand the item to the
 * finisher (depth 1), then claim the next slot at once.  A slot that
 * cannot be trusted is dropped with its reason; an unwritable ledger
 * un-claims the slot (its synthesis kept) and backs off.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/ledgerretry.h"
#include "gpud.h"
#include "util/testhook.h"
#include "zk/bellperson.h"
#include "zk/error.h"
#include "zk/priority.h"
#include "zk/slotfmt.h"
#include "zk/statement.h"

struct key_op {
    zk_ledger *l;
    int64_t key_id;
    struct zkd_key **key;
};

/* The item's key: from the cache, else the ledger's row and the file. */
static int key_op(void *ctx, struct zk_diag *diag)
{
    struct key_op *o = ctx;
    return zkd_keycache_get(&gpud.keys, o->l, o->key_id, o->key, diag);
}

/* Claimed slot s failed its checksum: released, its partition re-queued
 * when the ledger has it ready there. */
static void checksum_failed(zk_ledger *l, struct zk_slot *sp)
{
    struct zk_slot s = *sp;
    struct zk_ledger_part lp;
    /* only from ready: a live owner keeps it, a dead one's is
     * reconcile's (the slot is FREE now: -> queued) */
    int mine = zkd_slot_ready_part(l, &s, &lp);
    zk_pool_release(gpud.pool, &s);
    if (mine) {
        zkd_log(ZKD_WARN, "slot %u failed its checksum: dropped, partition %lld re-queued",
                s.index, (long long)s.partition_id);
        zkd_part_requeue(l, (int64_t)s.partition_id, ZK_PART_READY, NULL,
                         "its slot failed the checksum; synthesized again",
                         &gpud.abort_flag);
    } else {
        zkd_log(ZKD_WARN, "slot %u failed its checksum: dropped (its header names no"
                " partition the ledger has ready there)", s.index);
    }
    atomic_fetch_add(&gpud.n_dropped, 1);
}

/* ---- an urgent partition between a long proof's steps ------------------- */

/*
 * While the starter proves a bellperson partition below critical, the
 * proof calls urgent_between between its steps (zk_bp_set_between): a
 * READY slot of class critical is claimed and started right there,
 * nested, and the long proof goes on where it was.  So a WinningPoSt
 * waits for one step of a PoRep proof (an NTT or a multi-scalar
 * multiplication), not for all of it; nothing is set back or proved
 * twice, and the long proof's memory stays held meanwhile (both
 * partitions' buffers at once).  One level only.  docs/scheduling.md,
 * "Preemption".
 */
static __thread zk_ledger *urgent_l;   /* the starter's connection, while set */
static __thread int urgent_nested;     /* 1 inside a nested start */

static void start_claimed(zk_ledger *l, struct zk_slot s, unsigned *backoff);

static void urgent_between(void *ctx)
{
    struct zk_slot s;
    if (urgent_nested || atomic_load(&gpud.stop_flag))
        return;
    int r = zk_pool_claim_class(gpud.pool, gpud.claim_node, ZK_PRIO_CRITICAL, &s);
    if (r != 0 && r != ZK_ECHECKSUM)
        return;
    urgent_nested = 1;
    int64_t outer = atomic_load(&gpud.inflight[0]);
    if (r == ZK_ECHECKSUM) {
        checksum_failed(urgent_l, &s);
    } else {
        zkd_log(ZKD_INFO, "slot %u: critical partition %llu started between the steps of "
                "partition %lld's proof", s.index, (unsigned long long)s.partition_id,
                (long long)outer);
        start_claimed(urgent_l, s, ctx);
    }
    atomic_store(&gpud.inflight[0], outer);
    atomic_store(&gpud.busy_starter, 1);
    urgent_nested = 0;
}

/*
 * Claimed slot s, from its claim to the finisher's queue: the ledger's
 * move to proving, the checks, prove_start (or the bellperson proof), the
 * hand-over; on any failure the slot is given back as the rule for that
 * failure says.  *backoff: the ledger's backoff between unwritable tries.
 */
static void start_claimed(zk_ledger *l, struct zk_slot s, unsigned *backoff)
{
    struct item *it = NULL;
    struct zk_diag d;
    int r;

    atomic_store(&gpud.busy_starter, 1);
    double t_claim = zkd_now();
    it = calloc(1, sizeof *it);
    if (!it) {
        zk_pool_unclaim(gpud.pool, &s);
        atomic_store(&gpud.busy_starter, 0);
        return;
    }
    it->slot = s;
    atomic_init(&it->slot_held, 1);
    uint64_t now = zkd_realtime_ns();
    it->wait_s = s.fill_ns && now > s.fill_ns ? (double)(now - s.fill_ns) * 1e-9 : 0;
    /* the slot header is the pool's word, which any writer of the pool
     * can forge: the move checks it against what the ledger recorded */
    d.msg[0] = 0;
    r = zk_ledger_part_proving_slot(l, (int64_t)s.partition_id, (int64_t)s.key_id, &gpud.me,
                                    (int32_t)s.index, &it->p, &d);
    if (zkd_ledger_transient(r)) {
        /* the ledger could not be written (busy, full, I/O): the slot's
         * synthesis is good, so it goes back READY (un-claimed, not
         * released: released, its partition would be synthesized again)
         * and is claimed again after a pause */
        zkd_ledger_unwritable("moving a partition to proving", &d);
        zk_pool_unclaim(gpud.pool, &s);
        free(it);
        atomic_store(&gpud.busy_starter, 0);
        usleep(zkd_ledger_backoff_ms(backoff) * 1000u);
        return;
    }
    zkd_ledger_writable();
    *backoff = 0;
    if (r) {
        zkd_log(ZKD_INFO, "slot %u: partition %lld is not to be proved (%s): slot dropped",
                s.index, (long long)s.partition_id, d.msg[0] ? d.msg : zk_strerror(r));
        atomic_fetch_add(&gpud.n_dropped, 1);
        zk_pool_release(gpud.pool, &s);
        free(it);
        atomic_store(&gpud.busy_starter, 0);
        return;
    }
    atomic_store(&gpud.inflight[0], it->p.id);
    /* Test hook: ZKSLOT_TEST_CLAIM_HOLD_MS keeps the slot CLAIMED that
     * long before prove_start, its data intact (its checksum holds), so
     * that a test can hand it back or kill gpud there. */
    const char *hold = zk_test_hook("ZKSLOT_TEST_CLAIM_HOLD_MS");
    if (hold && atoi(hold) > 0) {
        zkd_log(ZKD_WARN, "test hook: slot %u held CLAIMED before prove_start", s.index);
        usleep((useconds_t)atoi(hold) * 1000u);
    }
    /* the ledger's failure to answer is not the partition's: retried
     * (on a new connection), no error charged; a hand-back meanwhile
     * hands the partition back */
    struct key_op ko = { l, (int64_t)s.key_id, &it->key };
    r = zkd_ledger_retry(key_op, &ko, "reading a partition's key", &gpud.abort_flag, &d);
    if (zkd_ledger_transient(r))
        goto drop_requeue;
    if (r) {
        char msg[300];
        snprintf(msg, sizeof msg, "proving key: %s", d.msg);
        part_failed(l, &it->p, msg);
        goto drop;
    }
    /* what the slot must hold: a partition of this key, in its format */
    const struct zk_ledger_key *lk = &it->key->lk;
    struct zk_slotfmt_header want;
    memset(&want, 0, sizeof want);
    it->bp = lk->format == ZK_KEY_BELLPERSON;
    if (it->bp) {
        want.format = ZK_SLOTFMT_BELLPERSON;
        want.curve = ZK_CURVE_BLS12_381;
        want.n_vars = lk->n_vars;
        want.n_public = lk->n_public;
        want.domain_size = lk->domain_size;
    } else {
        const struct zk_zkey_header *kh = zk_groth16_key_header(it->key->k);
        want.curve = kh->curve;
        want.n_vars = kh->n_vars;
        want.n_public = kh->n_public;
        want.domain_size = kh->domain_size;
    }
    want.key_id = s.key_id;
    if ((r = zk_slotfmt_check(&s, &want))) {
        char msg[200];
        snprintf(msg, sizeof msg, "slot %u does not hold a partition of key %s (%s)",
                 s.index, it->key->lk.name, zk_strerror(r));
        part_failed(l, &it->p, msg);
        goto drop;
    }
    it->pub = malloc((want.n_public + 1) * sizeof *it->pub);
    if (!it->pub) {
        part_failed(l, &it->p, "out of memory");
        goto drop;
    }
    /* w[1..n_public], or a .bpa's inputs after ONE (docs/bellperson.md) */
    memcpy(it->pub,
           s.data + s.region_off[ZK_SLOTFMT_W] + (it->bp ? ZK_SLOTFMT_BPA_MIN : 0) + 32,
           want.n_public * 32);
    struct zk_slotfmt_header sh;
    zk_slotfmt_read(&s, &sh);   /* zk_slotfmt_check read it already */
    if (sh.partition_id != (uint64_t)it->p.id) {
        /* the checksummed data names another partition than the slot's
         * header word: a forged or stale header; synthesized again */
        zkd_log(ZKD_WARN, "slot %u: its data is partition %llu's, its header says %lld:"
                " slot dropped, partition re-queued", s.index,
                (unsigned long long)sh.partition_id, (long long)it->p.id);
        atomic_fetch_add(&gpud.n_dropped, 1);
        zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &gpud.me,
                         "its slot's data was another partition's; synthesized again",
                         &gpud.abort_flag);
        goto drop;
    }
    /* the public signals synthd recorded before it published the slot
     * (zk/statement.h): a slot whose data was replaced since, checksum
     * and ids made to fit, is not proved */
    char st[ZK_STATEMENT_LEN];
    zk_statement(it->key->lk.hash, it->pub, want.n_public, st);
    if (it->p.statement[0] && strcmp(st, it->p.statement)) {
        zkd_log(ZKD_WARN, "slot %u: partition %lld's public signals are not the ones "
                "synthd recorded (statement %.19s..., recorded %.19s...): slot dropped, "
                "partition re-queued", s.index, (long long)it->p.id, st, it->p.statement);
        atomic_fetch_add(&gpud.n_dropped, 1);
        zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &gpud.me,
                         "its slot's public signals were not the ones synthesized; "
                         "synthesized again", &gpud.abort_flag);
        goto drop;
    }
    it->synth_s = (double)sh.synth_ns * 1e-9;
    it->witness_s = sh.witness_ms ? (double)sh.witness_ms * 1e-3 : -1;
    double t0 = zkd_now();
    d.msg[0] = 0;
    /* a long proof lets a critical partition in between its steps */
    int urgent = it->bp && s.priority < ZK_PRIO_CRITICAL && !urgent_nested;
    if (urgent) {
        urgent_l = l;
        zk_bp_set_between(urgent_between, backoff);
    }
    r = it->bp ? gpud_bp_prove(it, &s, &d)
               : gpud.backend->prove_start(gpud.backend, it->key->k, &s, gpud.nthreads,
                                           slot_copied, it, &it->job, &d);
    if (urgent)
        zk_bp_set_between(NULL, NULL);
    if (r) {
        if (GPUD_DEVICE_ERROR(r)) {
            device_lost(it, d.msg);
            goto drop_requeue;
        }
        part_failed(l, &it->p, d.msg);
        goto drop;
    }
    it->start_s = zkd_now() - t0;
    zkd_log(ZKD_DEBUG, "partition %lld: prove_start %.3f s (claimed %.3f s ago)",
            (long long)it->p.id, it->start_s, zkd_now() - t_claim);
    /* hand over; wait while the finisher still has the previous one */
    pthread_mutex_lock(&gpud.q.lock);
    while (gpud.q.item && !atomic_load(&gpud.abort_flag))
        pthread_cond_wait(&gpud.q.cond, &gpud.q.lock);
    if (atomic_load(&gpud.abort_flag)) {
        pthread_mutex_unlock(&gpud.q.lock);
        goto drop_requeue;
    }
    gpud.q.item = it;
    atomic_store(&gpud.inflight[1], it->p.id);
    atomic_store(&gpud.inflight[0], 0);
    pthread_cond_broadcast(&gpud.q.cond);
    pthread_mutex_unlock(&gpud.q.lock);
    atomic_store(&gpud.busy_starter, 0);
    return;
drop_requeue:
    zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &gpud.me,
                     "gpud stopped before finishing it", &gpud.abort_flag);
drop:
    atomic_store(&gpud.inflight[0], 0);
    item_settle(it);
    item_release_slot(it);
    item_free(it);
    atomic_store(&gpud.busy_starter, 0);
}

void *starter_main(void *arg)
{
    zk_ledger *l = NULL;
    struct zk_diag d;
    unsigned proving_backoff_ms = 0;
    int r;

    (void)arg;
    if ((r = zkd_open_ledger_wait(&gpud.cfg, &l, "the starter's connection", &gpud.stop_flag,
                                  &gpud.hb_starter_ms, &d))) {
        if (!atomic_load(&gpud.stop_flag))
            zkd_log(ZKD_ERR, "starter: %s", d.msg);
        atomic_store(&gpud.stop_flag, 1);
        goto out;
    }
    while (!atomic_load(&gpud.stop_flag)) {
        struct zk_slot s;

        atomic_store(&gpud.hb_starter_ms, now_ms());
        r = zk_pool_claim(gpud.pool, gpud.claim_node, 0, 250, &gpud.stop_flag, &s);
        if (r == ZK_ETIMEOUT || r == ZK_ECANCELED)
            continue;
        if (r == ZK_ECHECKSUM) {
            checksum_failed(l, &s);
            continue;
        }
        if (r) {
            zkd_log(ZKD_ERR, "claiming a slot: %s", zk_strerror(r));
            usleep(gpud.cfg.poll_ms * 1000u);
            continue;
        }
        start_claimed(l, s, &proving_backoff_ms);
    }
out:
    pthread_mutex_lock(&gpud.q.lock);
    gpud.q.closed = 1;
    pthread_cond_broadcast(&gpud.q.cond);
    pthread_mutex_unlock(&gpud.q.lock);
    zk_ledger_close(l);
    return NULL;
}
