/*
 * zkslot-gpud -- the proving daemon (one per GPU; --backend cpu without one).
 *
 * Threads:
 *   main      signals (signalfd), the recovery tick, sd_notify
 *   starter   claim a READY slot -> ledger `proving` -> backend prove_start
 *             -> release the slot (policy after-start) -> hand the pending
 *             proof to the finisher, then claim the next slot at once
 *   finisher  prove_finalize (B2's G2 MSM unless the backend did it,
 *             blinding) -> optional self-verify ->
 *             proof.json / public.json written atomically -> ledger `done`
 *             (-> release the slot, policy after-proof)
 * so partition N+1's prove_start runs while partition N is finalized.
 *
 * Proving keys (their points) are loaded once at start and kept; a key
 * registered later is loaded when its first partition arrives.
 *
 * SIGTERM: stop claiming, finish the partitions in hand, exit 0 (a repeated
 * SIGTERM changes nothing).  SIGINT or SIGQUIT, first or after a SIGTERM:
 * hand them back and exit: a partition whose slot gpud still holds CLAIMED
 * is left to the reaper and reconcile (the slot goes back READY once gpud
 * is gone, the partition to ready: proved from it, not synthesized again);
 * one whose slot is released is re-queued (proving by me -> queued).
 * SIGHUP: ignored.
 * While draining, STOPPING=1, then STATUS= and WATCHDOG=1 every second.
 *
 * An unwritable ledger (busy past the timeout, disk full, I/O error,
 * daemon/ledgerretry.h): a slot whose partition cannot be moved to proving
 * is un-claimed (READY again, its synthesis kept) and claimed again later;
 * `done` is retried until recorded; logged once per change, in STATUS.
 *
 * This file wires the daemon together; gpud.h lists the other files and
 * the state they share.
 */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_ISSET */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if ZK_HAVE_NUMA
#include <numa.h>
#endif

#include "daemon/ledgerretry.h"
#include "gpud.h"
#include "util/testhook.h"
#include "zk/error.h"
#include "zk/parallel.h"

struct gpud gpud = {
    .claim_node = ZK_POOL_ANY_NODE,
    .q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0 },
};

/* The NUMA node this process runs on, when its CPUs all belong to one (a
 * gpud@N confined by the unit or numactl), else ZK_POOL_ANY_NODE.  The
 * starter claims READY slots on this node first. */
static int own_numa_node(void)
{
#if ZK_HAVE_NUMA
    cpu_set_t set;
    int node = -2;
    if (numa_available() < 0 || sched_getaffinity(0, sizeof set, &set))
        return ZK_POOL_ANY_NODE;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        int n = numa_node_of_cpu(cpu);
        if (n < 0 || (node != -2 && n != node))
            return ZK_POOL_ANY_NODE;
        node = n;
    }
    return node < 0 ? ZK_POOL_ANY_NODE : node;
#else
    return ZK_POOL_ANY_NODE;
#endif
}


/* ---- the daemon loop's callbacks (zkd_loop_run) --------------------------------- */

/* SIGTERM or the pool gone: claim no more, finish what is in hand.  SIGINT
 * or SIGQUIT: hand back and exit at once: a partition whose slot gpud still
 * holds CLAIMED is left to the reaper and reconcile (proved from the slot
 * later, not synthesized again); one whose slot is released is re-queued. */
static void on_stop(void *ctx, int how)
{
    (void)ctx;
    if (how == ZKD_FINISH) {
        atomic_store(&gpud.stop_flag, 1);
        return;
    }
    atomic_store(&gpud.abort_flag, 1);
    pthread_mutex_lock(&gpud.q.lock);
    pthread_cond_broadcast(&gpud.q.cond);
    pthread_mutex_unlock(&gpud.q.lock);
    /* an unwritable ledger is not waited for (this handle's statement would
     * wait out its bound): the lease's expiry or the reconcile pass hands
     * the partitions back */
    int unwritable = zkd_ledger_is_unwritable();
    for (int i = 0; i < 2; i++) {
        long long id = atomic_load(&gpud.inflight[i]);
        if (id && !unwritable && !slot_still_claimed(id))
            zkd_part_requeue(gpud.base.l, id, ZK_PART_PROVING, &gpud.me,
                             "gpud stopped before finishing it", &gpud.abort_flag);
    }
    zkd_log(ZKD_INFO, "exiting with work handed back");
    _exit(0);
}

struct loop_state {
    double t_begin, rate;              /* proofs per minute since the start */
    unsigned long long last_np;
};

static void status(void *ctx, char *buf, size_t n)
{
    struct loop_state *ls = ctx;
    struct zk_pool_info pi;
    zk_pool_info(gpud.pool, &pi);
    unsigned long long np = atomic_load(&gpud.n_proved);
    if (np != ls->last_np) {   /* the rate moves only when a proof lands */
        ls->rate = 60.0 * (double)np / (zkd_now() - ls->t_begin);
        ls->last_np = np;
    }
    snprintf(buf, n, "slots free %u filling %u ready %u claimed %u; proved %llu (%.2f/min), "
             "duplicates %llu, errors %llu", pi.count[ZK_SLOT_FREE], pi.count[ZK_SLOT_FILLING],
             pi.count[ZK_SLOT_READY], pi.count[ZK_SLOT_CLAIMED], np, ls->rate,
             (unsigned long long)atomic_load(&gpud.n_duplicates),
             (unsigned long long)atomic_load(&gpud.n_errors));
}

/* Both threads came around within limit_ms, or are busy with a partition;
 * a closed starter (draining) counts as alive. */
static int threads_alive(uint64_t lim, int starter_closed)
{
    uint64_t t = now_ms();
    return (starter_closed || atomic_load(&gpud.busy_starter) ||
            t - atomic_load(&gpud.hb_starter_ms) < lim) &&
           (atomic_load(&gpud.busy_finisher) || t - atomic_load(&gpud.hb_finisher_ms) < lim);
}

static int alive(void *ctx, uint64_t lim)
{
    (void)ctx;
    return threads_alive(lim, 0);
}

static int drained(void *ctx, uint64_t lim, int *healthy, char *buf, size_t n)
{
    (void)ctx;
    pthread_mutex_lock(&gpud.q.lock);
    int closed = gpud.q.closed;
    int done = closed && !gpud.q.item && !atomic_load(&gpud.busy_finisher);
    pthread_mutex_unlock(&gpud.q.lock);
    *healthy = threads_alive(lim, closed);
    snprintf(buf, n, "stopping: finishing %d partition(s) in hand; proved %llu",
             (atomic_load(&gpud.inflight[0]) != 0) + (atomic_load(&gpud.inflight[1]) != 0),
             (unsigned long long)atomic_load(&gpud.n_proved));
    return done;
}

static const struct zkd_flag flags[] = {
    { "--backend", "gpud", "backend", "cpu|cuda", "where prove_start runs" },
    { "--device", "gpud", "device", "N", "GPU index (cuda backend)" },
    { "--threads", "gpud", "threads", "T", "CPU threads (0 = all cores)" },
    { "--release", "gpud", "release", "after-start|after-proof", "when a slot is handed back" },
    { "--self-verify", "gpud", "self_verify", "yes|no", "verify every proof before writing it" },
    { "--keys", "gpud", "keys", "NAME,...", "keys to load at start (default: all registered)" },
};

int main(int argc, char **argv)
{
    struct zk_diag d;
    zk_ledger *l = NULL;
    pthread_t t_start, t_finish;
    int started = 0;
    void *attached_mem = NULL;         /* the pool as attach_pool saw it */
    size_t attached_len = 0;
    int check = 0, r, sfd, rc = 1;

    zkd_log_init("gpud");
    gpud_keys_init();
    r = zkd_parse_args(argc, argv, PROG, flags, sizeof flags / sizeof flags[0], &gpud.cfg, &check);
    if (r)
        return r > 0 ? 0 : 2;
    zkd_test_hooks_log();
    d.msg[0] = 0;
    if (!(gpud.backend = gpud_backend_get(gpud.cfg.gpud_backend, gpud.cfg.gpud_device, &d))) {
        fprintf(stderr, "%s: %s\n", PROG, d.msg);
        return 2;
    }
    if (strcmp(gpud.backend->name, gpud.cfg.gpud_backend))
        zkd_log(ZKD_WARN, "%s", d.msg);   /* cuda asked, none usable: cpu */
    if (check) {
        zkd_print_config(&gpud.cfg, stdout);
        return 0;
    }
    if ((sfd = zkd_signals_open()) < 0) {
        zkd_log(ZKD_ERR, "signalfd: %s", zk_strerror(sfd));
        return 1;
    }
    gpud.nthreads = gpud.cfg.gpud_threads ? gpud.cfg.gpud_threads : zk_nthreads_default();
    char inst[16];
    snprintf(inst, sizeof inst, "%d", gpud.cfg.gpud_device);
    if ((r = zkd_base_open(&gpud.base, "gpud", inst, &gpud.cfg, sfd))) {
        rc = r > 0 ? 0 : 1;   /* > 0: stopped while waiting for the ledger */
        goto out;
    }
    /* the default output directories (<state_dir>/jobs/ID) are written
     * without following links (output.c): name the state directory by its
     * own path, as the CLI's submit does, not by a link to it */
    char state_real[PATH_MAX];
    if (realpath(gpud.cfg.state_dir, state_real) && strlen(state_real) < sizeof gpud.cfg.state_dir)
        memcpy(gpud.cfg.state_dir, state_real, strlen(state_real) + 1);
    gpud.pool = gpud.base.pool;
    gpud.me = gpud.base.me;
    l = gpud.base.l;
    if (gpud.backend->attach_pool) {
        void *mem;
        size_t len;
        double t0 = zkd_now();
        if ((r = zk_pool_data_mapping(gpud.pool, &mem, &len)) ||
            (r = gpud.backend->attach_pool(gpud.backend, mem, len, &d))) {
            zkd_log(ZKD_ERR, "%s", r == ZK_ESTATE ? "pool not attached" : d.msg);
            goto out;
        }
        attached_mem = mem;
        attached_len = len;
        zkd_log(ZKD_INFO, "pool page-locked for the GPU (%zu MiB in %.2f s)", len >> 20,
                zkd_now() - t0);
    }
    gpud.claim_node = own_numa_node();
    zkd_log(ZKD_INFO, "backend %s, %u thread(s), release %s, %s", gpud.backend->name, gpud.nthreads,
            gpud.cfg.gpud_release == ZK_RELEASE_AFTER_PROOF ? "after-proof" : "after-start",
            gpud.claim_node == ZK_POOL_ANY_NODE ? "slots claimed from any NUMA node"
                                           : "slots on this NUMA node claimed first");
    if (gpud.claim_node != ZK_POOL_ANY_NODE)
        zkd_log(ZKD_INFO, "numa: running on node %d", gpud.claim_node);
    /* Test hook: ZKSLOT_TEST_PRELOAD_DELAY_MS holds the start this long
     * before the key list is read (pipeline_test_pg_recover_start stops
     * the server meanwhile) */
    const char *hook = zk_test_hook("ZKSLOT_TEST_PRELOAD_DELAY_MS");
    if (hook && atoi(hook) > 0) {
        zkd_log(ZKD_WARN, "test hook: the key list is read in %d ms "
                "(ZKSLOT_TEST_PRELOAD_DELAY_MS)", atoi(hook));
        usleep((useconds_t)atoi(hook) * 1000u);
    }
    int loaded = gpud_keys_preload(l, &d);
    if (loaded < 0 && zkd_ledger_transient(loaded)) {
        /* the database not answering now (a slow or lossy link) is no
         * reason to stop: each key is loaded when its first partition is
         * claimed, as keys registered later are */
        zkd_log(ZKD_WARN, "listing keys: %s; none preloaded, each loaded at its first "
                "partition", d.msg);
        loaded = 0;
    } else if (loaded < 0) {
        zkd_log(ZKD_ERR, "listing keys: %s", d.msg);
        goto out;
    }
    if ((r = pthread_create(&t_finish, NULL, finisher_main, NULL))) {
        zkd_log(ZKD_ERR, "starting the finisher: %s", strerror(r));
        goto out;
    }
    if ((r = pthread_create(&t_start, NULL, starter_main, NULL))) {
        zkd_log(ZKD_ERR, "starting the starter: %s", strerror(r));
        queue_close();
        pthread_join(t_finish, NULL);
        goto out;
    }
    started = 1;
    zkd_log(ZKD_INFO, "ready: %u key(s) loaded, pool %s, ledger %s", loaded, gpud.cfg.pool,
            zk_ledger_path(l));
    zkd_notify("READY=1\nSTATUS=proving with %u key(s) loaded", loaded);

    struct loop_state ls = { zkd_now(), 0, 0 };
    const struct zkd_loop_ops ops = { &ls, &gpud.stop_flag, on_stop, NULL, status, alive,
                                      drained };
    rc = zkd_loop_run(&gpud.base, sfd, &ops);
    if (atomic_load(&gpud.device_failed)) {
        zkd_log(ZKD_ERR, "exiting 1: the %s device failed (partitions in hand were handed "
                "back)", gpud.backend->name);
        rc = 1;
    }
    zkd_log(ZKD_INFO, "stopped: %llu proof(s), %llu duplicate(s), %llu error(s), %llu slot(s) "
            "dropped", (unsigned long long)atomic_load(&gpud.n_proved),
            (unsigned long long)atomic_load(&gpud.n_duplicates),
            (unsigned long long)atomic_load(&gpud.n_errors),
            (unsigned long long)atomic_load(&gpud.n_dropped));
out:
    if (started) {
        atomic_store(&gpud.stop_flag, 1);
        pthread_join(t_start, NULL);
        pthread_join(t_finish, NULL);
    }
    if (gpud.backend->detach)
        gpud.backend->detach(gpud.backend, attached_mem, attached_len);
    zkd_base_close(&gpud.base);
    zkd_keycache_done(&gpud.keys);
    close(sfd);
    return rc;
}
