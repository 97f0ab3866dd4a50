/*
 * zkslot-synthd -- the synthesis daemon (one per NUMA node).
 *
 * Each worker thread loops: a FREE slot (the permit, taken before any work)
 * -> the oldest queued partition from the ledger -> its witness read
 * straight into the slot -> a, b, c computed into the slot with the key's
 * coefficients (loaded once per key, shared read-only by the workers) ->
 * statement, checksum and READY -> ledger `ready`; the slot, the claim,
 * the publish and the hand-back go through zk/synthpart.h, the path
 * libzkslot's producers share.  The main thread handles signals
 * (signalfd), runs the recovery pass on a tick, notices a destroyed pool,
 * and talks to systemd.
 *
 * SIGTERM: stop taking work, finish the partitions in hand, exit 0 (a
 * repeated SIGTERM changes nothing).  SIGINT or SIGQUIT, first or after a
 * SIGTERM: hand the partitions in hand back (slot abandoned, ledger
 * re-queued) and exit at once.  SIGHUP: ignored.  While draining,
 * STOPPING=1, then STATUS= and WATCHDOG=1 every second.
 *
 * An unwritable ledger (busy past the timeout, disk full, I/O error,
 * daemon/ledgerretry.h): `ready` is retried until recorded (the slot is
 * READY meanwhile), a failed claim leaves the slot FREE; logged once per
 * change, in STATUS.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if ZK_HAVE_NUMA
#include <numa.h>
#endif

#include "daemon/keycache.h"
#include "daemon/keylocal.h"
#include "daemon/ledgerretry.h"
#include "daemon/zkd.h"
#include "util/testhook.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/parallel.h"
#include "zk/slotfmt.h"
#include "zk/synthpart.h"
#include "zk/wtns.h"
#include "zk/zkey.h"

#include "gpud_absent.h"
#include "sealed.h"
#include "stored.h"
#include "witness.h"
#include "bpa.h"

#define PROG "zkslot-synthd"

/* ---- keys: coefficients loaded once, shared read-only (keycache.h) -------- */

struct key_ext {
    pthread_mutex_t seen_lock;          /* guards seen (workers share the entry) */
    struct synthd_witgen_seen seen;     /* the generator's last content check */
};

/* The key's last generator check, for a worker's run (seen_put after). */
static struct synthd_witgen_seen seen_get(struct key_ext *x)
{
    pthread_mutex_lock(&x->seen_lock);
    struct synthd_witgen_seen seen = x->seen;
    pthread_mutex_unlock(&x->seen_lock);
    return seen;
}

/* What a worker's run found, kept when its check passed. */
static void seen_put(struct key_ext *x, const struct synthd_witgen_seen *seen)
{
    pthread_mutex_lock(&x->seen_lock);
    if (seen->checked)
        x->seen = *seen;
    pthread_mutex_unlock(&x->seen_lock);
}

/* ctx: the configuration ([keys] dir: where this machine's file of the key is) */
static int key_load(void *ctx, struct zkd_key *e, struct zk_diag *diag)
{
    const struct zk_config *c = ctx;
    struct zk_zkey z;
    struct zk_groth16_load_opts o = { ZK_G16_LOAD_COEFS, NULL, NULL, 0 };
    const struct zk_ledger_key *lk = &e->lk;
    struct key_ext *x = calloc(1, sizeof *x);
    double t0 = zkd_now();
    int r;

    if (!x)
        return zk_diag_set(diag, lk->name, -ENOMEM, "out of memory");
    if (lk->format == ZK_KEY_BELLPERSON) {   /* its partitions come as .bpa: nothing to load */
        pthread_mutex_init(&x->seen_lock, NULL);
        e->ext = x;
        zkd_log(ZKD_INFO, "key %s: a bellperson key (its partitions are .bpa assignments)",
                lk->name);
        return 0;
    }
    if ((r = zkd_key_local_check(c->keys_dir, &e->lk, diag))) {
        free(x);
        return r;
    }
    memset(&z, 0, sizeof z);
    if (!(r = zk_zkey_open(&z, lk->path, diag))) {
        r = zk_groth16_key_load_opts(&z, &o, diag, &e->k);
        zk_zkey_done(&z);
    }
    if (r) {
        free(x);
        return r;
    }
    pthread_mutex_init(&x->seen_lock, NULL);
    e->ext = x;
    zkd_log(ZKD_INFO, "key %s: coefficients of %s (%s) loaded in %.2f s", lk->name, lk->path,
            zk_curve_name(zk_groth16_key_header(e->k)->curve), zkd_now() - t0);
    if (lk->witgen_kind)
        zkd_log(ZKD_INFO, "key %s: witness generator (%s) %s", lk->name,
                zk_witgen_kind_name(lk->witgen_kind), lk->witgen);
    return 0;
}

static void key_free(void *ctx, struct zkd_key *e)
{
    struct key_ext *x = e->ext;
    (void)ctx;
    zk_groth16_key_free(e->k);
    if (x)
        pthread_mutex_destroy(&x->seen_lock);
    free(x);
}

static struct zkd_keycache keys;

/* ---- the daemon ---------------------------------------------------------- */

static struct zk_config cfg;
static struct zkd_base base;            /* pool, ledger, identity, recovery */
static zk_pool *pool;                   /* = base.pool, for the workers */
static struct zk_proc_id me;            /* = base.me */
static zk_cancel_flag stop_flag;        /* finish what is in hand, take nothing new */
static atomic_int abort_flag;           /* hand back what is in hand */
static atomic_ullong n_synthesized, n_errors;
static int shared_ledger;               /* PostgreSQL: the farm's machines share it */
static unsigned threads_per_worker;
/* Test hook: ZKSLOT_TEST_FILL_DELAY_MS holds each slot FILLING that long
 * after the witness is in it, so a test can kill -9 synthd mid-fill. */
static unsigned fill_delay_ms;
/* Test hook: ZKSLOT_TEST_READ_DELAY_MS holds each claimed partition that
 * long before its witness or input is read, so a test can take the ledger
 * away between the claim and that read. */
static unsigned read_delay_ms;

struct worker {
    pthread_t tid;
    unsigned no;
    atomic_ullong heartbeat_ms;         /* last time around the loop */
    atomic_int busy;                    /* a partition in hand */
    struct zkd_claim_keys claim;        /* the keys this machine claims (shared ledger) */
};

static uint64_t now_ms(void)
{
    return (uint64_t)(zkd_now() * 1e3);
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* synthd's runner of the ledger's writes (zk/synthpart.h): retried while
 * the ledger is unwritable, until a SIGINT hands the work back. */
static int ledger_run(void *ctx, zk_synthpart_op op, void *op_ctx, const char *what,
                      struct zk_diag *diag)
{
    (void)ctx;
    return zkd_ledger_retry(op, op_ctx, what, &abort_flag, diag);
}

/* A bellperson key's partition: its .bpa into the slot as it is (bpa.c),
 * checked against the key, then published (zk/slotfmt.h).  The .bpa is the
 * submitter's file, read into the slot, or, for a job of inputs, what the
 * key's generator (a Filecoin synthesizer: docs/filecoin.md) makes of the
 * stored input while this worker holds the slot, streamed into it as it
 * is written (witness.c): never a second copy outside the pool. */
static int synthesize_bp(const struct zk_synthpart_writer *w, struct zk_synthpart *part,
                         struct zkd_key *e, double t0, struct synthd_witness_out *wo,
                         struct zk_diag *diag)
{
    const struct zk_ledger_key *lk = &e->lk;
    struct zk_slot *s = &part->s;
    struct zk_zkey_header kh;
    uint64_t len = 0;
    uint64_t head = zk_slotfmt_layout_bp(0, &part->d);   /* where w starts */
    uint8_t *dst = s->data + part->d.region_off[ZK_SLOTFMT_W];
    uint64_t cap = s->capacity > head ? s->capacity - head : 0;
    const char *path = part->p.witness;
    int r;
    if (read_delay_ms)
        sleep_ms(read_delay_ms);
    if (part->p.has_input) {
        struct synthd_witgen_seen seen = seen_get(e->ext);
        r = synthd_witness_generate_into(w->l, &part->p, lk, &seen, &abort_flag, dst, cap, &len,
                                         wo);
        seen_put(e->ext, &seen);
        if (r == ZK_ELENGTH) {
            char msg[sizeof wo->error];
            memcpy(msg, wo->error, sizeof msg);
            snprintf(wo->error, sizeof wo->error, "key %s: its assignment is larger than a "
                     "slot: recreate the pool with a larger --slot-size (zkslot plan "
                     "--filecoin gives it): %.300s", lk->name, msg);
        }
        if (r) {
            zk_diag_set(diag, "synthesis", r, "%.200s", wo->error);
            return r;
        }
        double gen_s = wo->witness_s;
        char what[96];
        snprintf(what, sizeof what, "key %s's generator's output", lk->name);
        r = synthd_bpa_check(dst, len, what, lk, wo);
        wo->witness_s = gen_s;
        if (r) {
            char msg[sizeof wo->error];
            memcpy(msg, wo->error, sizeof msg);
            snprintf(wo->error, sizeof wo->error,
                     "key %s's generator exited 0 but its assignment is unusable: %.380s",
                     lk->name, msg);
        }
    } else {
        r = synthd_bpa_fill(path, lk, dst, cap, &len, wo);
    }
    if (r) {
        zk_diag_set(diag, "assignment", r, "%.200s", wo->error);
        return r;
    }
    if (!zk_slotfmt_layout_bp(len, &part->d))
        return zk_diag_set(diag, part->p.has_input ? lk->name : path, ZK_ELENGTH,
                           "too large for a slot");
    if (fill_delay_ms)
        sleep_ms(fill_delay_ms);
    if (atomic_load(&abort_flag))
        return ZK_ECANCELED;
    memset(&kh, 0, sizeof kh);
    kh.curve = ZK_CURVE_BLS12_381;
    kh.n_vars = (uint32_t)lk->n_vars;
    kh.n_public = (uint32_t)lk->n_public;
    kh.domain_size = (uint32_t)lk->domain_size;
    return zk_synthpart_publish_bp(w, part, lk->hash, &kh, zkd_now() - t0, diag);
}

/* Synthesizes the partition in hand into its slot: the witness (read, or
 * generated from the input: witness.c), then a, b, c, then publishes it
 * (zk/synthpart.h).  0 (READY), or an error with diag and the slot still
 * ours; *wo gets the witness stage's time and, when it failed, its error
 * text and whether a retry could help. */
static int synthesize(const struct zk_synthpart_writer *w, struct zk_synthpart *part,
                      struct synthd_witness_out *wo, struct zk_diag *diag)
{
    const struct zk_ledger_part *p = &part->p;
    struct zk_slot *s = &part->s;
    struct zk_slot_desc *d = &part->d;
    struct zkd_key *e;
    const struct zk_groth16_key *k;
    const struct zk_zkey_header *kh;
    double t0 = zkd_now();
    int r;

    memset(wo, 0, sizeof *wo);
    wo->witness_s = -1;
    /* a row written past the CLI's checks (issue 46): refused before
     * anything it names or holds is read or run */
    if ((r = zk_ledger_part_vet(w->l, p->id, wo->error, sizeof wo->error, diag)) != 0) {
        wo->permanent = r > 0;   /* the row does not change */
        return r > 0 ? ZK_EREJECTED : r;
    }
    if ((r = zkd_keycache_get(&keys, w->l, p->key_id, &e, diag)))
        return r;
    if (e->lk.format == ZK_KEY_BELLPERSON)
        return synthesize_bp(w, part, e, t0, wo, diag);
    k = e->k;
    kh = zk_groth16_key_header(k);
    uint64_t need = zk_slotfmt_layout(kh->n_vars, kh->domain_size, d);
    if (!need || need > s->capacity)
        return zk_diag_set(diag, p->witness, ZK_ELENGTH,
                           "the partition needs %llu bytes but a slot holds %llu: recreate "
                           "the pool with --slot-size %lluM or more",
                           (unsigned long long)need, (unsigned long long)s->capacity,
                           (unsigned long long)((need + (1u << 20) - 1) >> 20));
    struct synthd_witgen_seen seen = seen_get(e->ext);
    if (read_delay_ms)
        sleep_ms(read_delay_ms);
    /* a witness stored in the ledger (a shared ledger's witness job), else
     * the .wtns file or the generator's run */
    r = synthd_stored_wtns(w->l, p, kh, s->data + d->region_off[ZK_SLOTFMT_W], wo);
    if (r == 1)
        r = synthd_witness_fill(w->l, p, &e->lk, &seen, kh,
                                s->data + d->region_off[ZK_SLOTFMT_W], &abort_flag, wo);
    seen_put(e->ext, &seen);
    if (r) {
        zk_diag_set(diag, "witness", r, "%.200s", wo->error);
        return r;
    }
    if (fill_delay_ms)
        sleep_ms(fill_delay_ms);
    if (atomic_load(&abort_flag))
        return ZK_ECANCELED;
    r = zk_groth16_synthesize(k, (const zk_scalar *)(s->data + d->region_off[ZK_SLOTFMT_W]),
                              (zk_scalar *)(s->data + d->region_off[ZK_SLOTFMT_A]),
                              (zk_scalar *)(s->data + d->region_off[ZK_SLOTFMT_B]),
                              (zk_scalar *)(s->data + d->region_off[ZK_SLOTFMT_C]),
                              threads_per_worker);
    if (r)
        return zk_diag_set(diag, p->witness, r, "synthesis failed: %s", zk_strerror(r));
    return zk_synthpart_publish(w, part, e->lk.hash, kh, zkd_now() - t0, wo->witness_s, diag);
}

struct claim_ctx {
    zk_ledger *l;
    int reserved_worker;                /* a reserved worker: the reserve's class only */
    int min_class;                      /* out: the lowest class the claim allowed */
};

/* synthd's ledger step of a take (zk_synthpart_claim): the next queued
 * partition of a class this worker and slot may take (a reserved worker or
 * slot: the reserve's class and above, docs/scheduling.md); the ledger's
 * health noted (a failure logged once per change, ledgerretry.h). */
static int claim_op(void *ctx, const struct zk_slot *s, struct zk_ledger_part *ret,
                    struct zk_diag *diag)
{
    struct claim_ctx *c = ctx;
    /* paused while the worker waited for this slot (a slot the hand-back
     * just freed): nothing is claimed, the slot goes back */
    if (synthd_absent_paused())
        return -ENOENT;
    c->min_class = c->reserved_worker || zk_pool_slot_reserved(pool, s->index)
                       ? cfg.pool_reserve_class
                       : ZK_PRIO_LOW;
    int r = zk_ledger_claim_queued_class(c->l, &me, (int32_t)s->index, c->min_class, ret, diag);
    if (zkd_ledger_transient(r))
        zkd_ledger_unwritable("claiming a partition", diag);
    else
        zkd_ledger_writable();
    return r;
}

static void *worker_main(void *arg)
{
    struct worker *wk = arg;
    zk_ledger *l = NULL;
    struct zk_diag d;
    int r;

    if ((r = zkd_open_ledger_wait(&cfg, &l, "a worker's connection", &stop_flag,
                                  &wk->heartbeat_ms, &d))) {
        if (!atomic_load(&stop_flag))
            zkd_log(ZKD_ERR, "worker %u: %s", wk->no, d.msg);
        atomic_store(&stop_flag, 1);
        return NULL;
    }
    const struct zk_synthpart_writer w = { pool, l, &me, ledger_run, NULL };
    while (!atomic_load(&stop_flag)) {
        atomic_store(&wk->heartbeat_ms, now_ms());
        if (synthd_absent_paused()) {   /* no gpud on this machine (gpud_absent.h) */
            sleep_ms(cfg.poll_ms);
            continue;
        }
        zkd_claim_keys(l, &cfg, &wk->claim);
        /* the highest class queued decides which slots and partitions this
         * worker may take: a reserved worker, or a slot of the reserve, only
         * work of the reserve's class (docs/scheduling.md) */
        r = zk_ledger_queued_top(l, &d);
        if (zkd_ledger_transient(r))   /* the database away: one line per process */
            zkd_ledger_unwritable("looking for queued work", &d);
        else if (r >= 0)
            zkd_ledger_writable();
        int top = r - 1, reserved_worker = wk->no < cfg.synthd_reserve_workers;
        if (r <= 0 || (reserved_worker && top < cfg.pool_reserve_class)) {
            if (r < 0 && !zkd_ledger_transient(r))
                zkd_log(ZKD_WARN, "worker %u: %s", wk->no, d.msg);
            sleep_ms(cfg.poll_ms);
            continue;
        }
        struct zk_synthpart part;
        struct claim_ctx cc = { l, reserved_worker, ZK_PRIO_LOW };
        int step = 0;
        r = zk_synthpart_take(&w, top, 250, &stop_flag, claim_op, &cc, &part, &step, &d);
        if (r && step == ZK_SYNTHPART_SLOT) {
            if (r != ZK_ETIMEOUT && r != ZK_ECANCELED) {
                zkd_log(ZKD_ERR, "worker %u: taking a slot: %s", wk->no, zk_strerror(r));
                sleep_ms(cfg.poll_ms);
            }
            continue;
        }
        if (r) {
            if (r != -ENOENT && !zkd_ledger_transient(r))
                zkd_log(ZKD_WARN, "worker %u: claiming a partition: %s", wk->no, d.msg);
            /* a full disk or an I/O error fails at once, not after the busy
             * timeout: pause before the next try instead of spinning */
            if (zkd_ledger_transient(r))
                sleep_ms(cfg.poll_ms);
            continue;
        }
        const struct zk_ledger_part *p = &part.p;
        if (cc.min_class > ZK_PRIO_LOW)
            zkd_log(ZKD_INFO, "partition %lld (job %lld #%u, %s): a reserved %s", (long long)p->id,
                    (long long)p->job_id, p->index, zk_priority_name(p->priority),
                    reserved_worker ? "worker" : "slot");
        atomic_store(&wk->busy, 1);
        double t0 = zkd_now();
        struct synthd_witness_out wo;
        d.msg[0] = 0;
        r = synthesize(&w, &part, &wo, &d);
        double dt = zkd_now() - t0;
        if (r == 0) {
            atomic_fetch_add(&n_synthesized, 1);
            r = zk_synthpart_ready(&w, &part, dt, wo.witness_s, &d);
            if (r == ZK_ESTATE)   /* a gpud took it already, or it was canceled */
                zkd_log(ZKD_DEBUG, "partition %lld: no longer synthesizing in the ledger "
                        "(taken by a gpud or canceled)", (long long)p->id);
            else if (r)
                zkd_log(ZKD_WARN, "partition %lld: marking ready: %s", (long long)p->id, d.msg);
            if (wo.witness_s >= 0)
                zkd_log(ZKD_INFO, "partition %lld (job %lld #%u) ready in slot %u: %.3f s "
                        "(witness %.3f s)", (long long)p->id, (long long)p->job_id, p->index,
                        part.s.index, dt, wo.witness_s);
            else
                zkd_log(ZKD_INFO, "partition %lld (job %lld #%u) ready in slot %u: %.3f s",
                        (long long)p->id, (long long)p->job_id, p->index, part.s.index, dt);
        } else if (r == ZK_ECANCELED) {
            zk_synthpart_abandon(&w, &part, "synthd stopped before finishing it", NULL);
        } else if (r == ZK_ESTATE) {   /* canceled or reaped meanwhile */
            zk_synthpart_abandon(&w, &part, NULL, NULL);
            zkd_log(ZKD_NOTICE, "partition %lld (job %lld #%u): no longer this synthd's "
                    "in the ledger (%s); slot given back", (long long)p->id,
                    (long long)p->job_id, p->index, d.msg);
        } else if (zkd_ledger_transient(r)) {
            /* the ledger went away while the partition's key or input was
             * read from it (a database restart): not the partition's
             * fault, so back to the queue with no error counted */
            zkd_log(ZKD_NOTICE, "partition %lld (job %lld #%u): %s; handed back",
                    (long long)p->id, (long long)p->job_id, p->index,
                    wo.error[0] ? wo.error : d.msg);
            zk_synthpart_abandon(&w, &part, "the ledger was unreachable while it was read", NULL);
            sleep_ms(cfg.poll_ms);
        } else if (wo.not_here) {
            /* claimed before this machine's claim list left its key out
             * (a key added a moment ago): back to the queue, no error
             * counted, and the list refreshed now */
            zkd_log(ZKD_NOTICE, "partition %lld (job %lld #%u): %s; handed back",
                    (long long)p->id, (long long)p->job_id, p->index, wo.error);
            zk_synthpart_abandon(&w, &part, "its generator is not allowed on that machine", NULL);
            wk->claim.refreshed_s = 0;
            sleep_ms(cfg.poll_ms);
        } else {
            const char *msg = wo.error[0] ? wo.error : d.msg;
            zk_synthpart_abandon(&w, &part, NULL, NULL);
            atomic_fetch_add(&n_errors, 1);
            zkd_log(ZKD_ERR, "partition %lld (job %lld #%u): %s%s", (long long)p->id,
                    (long long)p->job_id, p->index, msg,
                    wo.permanent ? " (not retried: a retry gives the same answer)" : "");
            /* a rejected input fails at once: max_errors 1 */
            zkd_part_error(l, p, &me, msg, wo.permanent ? 1 : cfg.max_errors,
                           cfg.max_attempts, &abort_flag);
        }
        atomic_store(&wk->busy, 0);
    }
    zk_ledger_close(l);
    return NULL;
}

static void bind_numa(int node)
{
    if (node < 0)
        return;
#if ZK_HAVE_NUMA
    if (numa_available() < 0) {
        zkd_log(ZKD_NOTICE, "numa: this machine has no NUMA support; --numa-node %d is a no-op",
                node);
        return;
    }
    if (node > numa_max_node()) {
        zkd_log(ZKD_WARN, "numa: node %d does not exist (nodes 0..%d); not binding", node,
                numa_max_node());
        return;
    }
    struct bitmask *nodes = numa_allocate_nodemask();
    numa_bitmask_setbit(nodes, (unsigned)node);
    int r1 = numa_run_on_node(node);
    numa_set_membind(nodes);
    numa_free_nodemask(nodes);
    struct bitmask *cpus = numa_allocate_cpumask();
    unsigned ncpu = 0;
    if (numa_node_to_cpus(node, cpus) == 0) {
        for (unsigned i = 0; i < cpus->size; i++)
            ncpu += numa_bitmask_isbitset(cpus, i) != 0;
    }
    numa_free_cpumask(cpus);
    zkd_log(ZKD_INFO, "numa: bound to node %d (%u CPUs, memory from node %d only)%s", node,
            ncpu, node, r1 ? " but moving the threads failed" : "");
#else
    zkd_log(ZKD_NOTICE, "numa: built without libnuma; --numa-node %d is a no-op", node);
#endif
}

/* ---- the daemon loop's callbacks (zkd_loop_run; ctx: the workers) ------------------ */

/* SIGTERM or the pool gone: no new partition, finish the ones in hand;
 * SIGINT or SIGQUIT (also while finishing): hand them back at once. */
static void on_stop(void *ctx, int how)
{
    (void)ctx;
    if (how == ZKD_HANDBACK)
        atomic_store(&abort_flag, 1);
    atomic_store(&stop_flag, 1);
}

/* The sweep: every tick for the first three seconds and after a pass that
 * killed something (see synthd_witness_sweep), else every ten seconds. */
static void tick(void *ctx, unsigned n)
{
    (void)ctx;
    static unsigned last_killed;
    if (n <= 3 || n % 10 == 0 || last_killed)
        last_killed = synthd_witness_sweep();
    synthd_absent_tick(pool, base.l, &cfg, shared_ledger, &stop_flag);
}

/* The slots, the counts, and the keys a shared ledger's claims leave out
 * ("; not claiming keys: k2 (hash differs), ...", at most 160 bytes). */
static void status(void *ctx, char *buf, size_t n)
{
    struct zk_pool_info pi;
    char skipped[160], absent[96];
    (void)ctx;
    zk_pool_info(pool, &pi);
    zkd_claim_keys_status(skipped, sizeof skipped);
    synthd_absent_status(absent, sizeof absent);
    snprintf(buf, n, "slots free %u filling %u ready %u claimed %u; synthesized %llu, "
             "errors %llu%s%s%s", pi.count[ZK_SLOT_FREE], pi.count[ZK_SLOT_FILLING],
             pi.count[ZK_SLOT_READY], pi.count[ZK_SLOT_CLAIMED],
             (unsigned long long)atomic_load(&n_synthesized),
             (unsigned long long)atomic_load(&n_errors), absent, skipped[0] ? "; " : "", skipped);
}

/* alive = every worker came around its loop recently, or is busy */
static int alive(void *ctx, uint64_t lim)
{
    const struct worker *wk = ctx;
    for (unsigned i = 0; i < cfg.synthd_workers; i++) {
        if (!atomic_load(&wk[i].busy) && now_ms() - atomic_load(&wk[i].heartbeat_ms) > lim)
            return 0;
    }
    return 1;
}

/* Draining: done when no worker has a partition in hand.  A worker with one
 * counts as alive, as while running; the others are leaving. */
static int drained(void *ctx, uint64_t lim, int *healthy, char *buf, size_t n)
{
    const struct worker *wk = ctx;
    int busy = 0;
    (void)lim;
    for (unsigned i = 0; i < cfg.synthd_workers; i++)
        busy += atomic_load(&wk[i].busy);
    *healthy = 1;
    snprintf(buf, n, "stopping: finishing %d partition(s) in hand; synthesized %llu", busy,
             (unsigned long long)atomic_load(&n_synthesized));
    return !busy;
}

static const struct zkd_flag flags[] = {
    { "--workers", "synthd", "workers", "K", "partitions synthesized at once" },
    { "--threads", "synthd", "threads", "T", "threads per worker (0 = cores / workers)" },
    { "--numa-node", "synthd", "numa_node", "N", "bind CPUs and memory to NUMA node N (-1 = no)" },
};

int main(int argc, char **argv)
{
    zk_ledger *l = NULL;
    struct worker *wk = NULL;
    int check = 0, r, sfd, rc = 1;

    zkd_log_init("synthd");
    zkd_keycache_init(&keys, key_load, key_free, &cfg);
    r = zkd_parse_args(argc, argv, PROG, flags, sizeof flags / sizeof flags[0], &cfg, &check);
    if (r)
        return r > 0 ? 0 : 2;
    zkd_test_hooks_log();
    if (check) {
        zkd_print_config(&cfg, stdout);
        return 0;
    }
    if ((sfd = zkd_signals_open()) < 0) {
        zkd_log(ZKD_ERR, "signalfd: %s", zk_strerror(sfd));
        return 1;
    }
    bind_numa(cfg.synthd_numa_node);
    const char *hook;
    if ((hook = zk_test_hook("ZKSLOT_TEST_FILL_DELAY_MS"))) {
        fill_delay_ms = (unsigned)atoi(hook);
        zkd_log(ZKD_WARN, "test hook: every fill is held %u ms (ZKSLOT_TEST_FILL_DELAY_MS)",
                fill_delay_ms);
    }
    if ((hook = zk_test_hook("ZKSLOT_TEST_READ_DELAY_MS"))) {
        read_delay_ms = (unsigned)atoi(hook);
        zkd_log(ZKD_WARN, "test hook: every witness read waits %u ms (ZKSLOT_TEST_READ_DELAY_MS)",
                read_delay_ms);
    }
    unsigned cores = zk_nthreads_default();
    threads_per_worker = cfg.synthd_threads ? cfg.synthd_threads
                                            : (cores / cfg.synthd_workers ? cores / cfg.synthd_workers : 1);
    char inst[16];
    snprintf(inst, sizeof inst, "%d", cfg.synthd_numa_node);
    if ((r = zkd_base_open(&base, "synthd", inst, &cfg, sfd))) {
        rc = r > 0 ? 0 : 1;   /* > 0: stopped while waiting for the ledger */
        goto out;
    }
    pool = base.pool;
    me = base.me;
    l = base.l;
    synthd_witness_setup(&cfg, &me);   /* a failure is logged; input partitions then fail */
    shared_ledger = strcmp(zk_ledger_backend(l), "sqlite") != 0;
    synthd_sealed_setup(&cfg, shared_ledger);   /* likewise */
    if (cfg.pool_reserve) {
        uint32_t n = zk_pool_set_reserve(pool, cfg.pool_reserve, cfg.pool_reserve_class);
        if (n < cfg.pool_reserve)
            zkd_log(ZKD_WARN, "[pool] reserve %u: the pool has %u slot(s), %u reserved (one "
                    "is left for every class)", cfg.pool_reserve, n + 1, n);
        zkd_log(ZKD_INFO, "reserve: %u slot(s) for %s work and above", n,
                zk_priority_name(cfg.pool_reserve_class));
    }
    if (cfg.synthd_reserve_workers >= cfg.synthd_workers) {
        zkd_log(ZKD_ERR, "[synthd] reserve_workers %u: at most workers - 1 (%u)",
                cfg.synthd_reserve_workers, cfg.synthd_workers - 1);
        goto out;
    }

    wk = calloc(cfg.synthd_workers, sizeof *wk);
    if (!wk)
        goto out;
    for (unsigned i = 0; i < cfg.synthd_workers; i++) {
        wk[i].no = i;
        atomic_store(&wk[i].heartbeat_ms, now_ms());
        if ((r = pthread_create(&wk[i].tid, NULL, worker_main, &wk[i]))) {
            zkd_log(ZKD_ERR, "starting worker %u: %s", i, strerror(r));
            atomic_store(&stop_flag, 1);
            for (unsigned j = 0; j < i; j++)
                pthread_join(wk[j].tid, NULL);
            goto out;
        }
    }
    zkd_log(ZKD_INFO, "ready: %u worker(s) x %u thread(s), ledger %s", cfg.synthd_workers,
            threads_per_worker, zk_ledger_path(l));
    zkd_notify("READY=1\nSTATUS=synthesizing with %u worker(s)", cfg.synthd_workers);

    const struct zkd_loop_ops ops = { wk, &stop_flag, on_stop, tick, status, alive, drained };
    rc = zkd_loop_run(&base, sfd, &ops);
    for (unsigned i = 0; i < cfg.synthd_workers; i++)
        pthread_join(wk[i].tid, NULL);
    if (rc != ZKD_EXIT_POOL_GONE)
        rc = 0;
    zkd_log(ZKD_INFO, "stopped: %llu partition(s) synthesized, %llu error(s)",
            (unsigned long long)atomic_load(&n_synthesized),
            (unsigned long long)atomic_load(&n_errors));
out:
    free(wk);
    synthd_witness_teardown();
    zkd_base_close(&base);
    zkd_keycache_done(&keys);
    close(sfd);
    return rc;
}
