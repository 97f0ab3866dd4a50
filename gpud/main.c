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
 */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_ISSET */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if ZK_HAVE_NUMA
#include <numa.h>
#endif

#include "backend.h"
#include "daemon/keycache.h"
#include "daemon/ledgerretry.h"
#include "daemon/zkd.h"
#include "zk/keyfile.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/parallel.h"
#include "zk/slotfmt.h"
#include "zk/zkey.h"

#define PROG "zkslot-gpud"

static struct zk_config cfg;
static const struct gpud_backend *backend;
static struct zkd_base base;            /* pool, ledger, identity, recovery */
static zk_pool *pool;                   /* = base.pool, for the threads */
static struct zk_proc_id me;            /* = base.me */
static unsigned nthreads;
static zk_cancel_flag stop_flag;
static atomic_int abort_flag;
static atomic_int device_failed;        /* the backend's device failed: exit 1 */
static atomic_ullong n_proved, n_duplicates, n_errors, n_dropped;
static atomic_ullong hb_starter_ms, hb_finisher_ms;
static atomic_int busy_starter, busy_finisher;

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

static int claim_node = ZK_POOL_ANY_NODE;

static uint64_t now_ms(void)
{
    return (uint64_t)(zkd_now() * 1e3);
}

/* ---- keys ------------------------------------------------------------------ */

/* What gpud keeps per key beside its points (keycache.h: entries never move,
 * so the finisher's it->key stays valid while the starter loads others). */
struct key_ext {
    struct zk_groth16_vk vk;          /* for self-verify */
};

static struct zkd_keycache keys;

static void load_progress(void *ctx, const char *part, uint64_t done, uint64_t total)
{
    const char *name = ctx;
    zkd_log(ZKD_INFO, "key %s: %s loaded (%llu of %llu MiB, %.0f%%)", name, part,
            (unsigned long long)(done >> 20), (unsigned long long)(total >> 20),
            total ? 100.0 * (double)done / (double)total : 100.0);
    /* loading a big key may outlast TimeoutStartSec: ask for more time */
    zkd_notify("EXTEND_TIMEOUT_USEC=120000000\nSTATUS=loading key %s: %.0f%%", name,
               total ? 100.0 * (double)done / (double)total : 100.0);
}

/* The keycache's load: the key's points for the backend, checked against
 * the ledger's record of it, and its verification key. */
static int key_load(void *ctx, struct zkd_key *e, struct zk_diag *diag)
{
    const struct zk_ledger_key *lk = &e->lk;
    struct zk_zkey z;
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_load_opts o = { backend->key_parts, load_progress, (void *)lk->name, 0 };
    struct key_ext *x;
    double t0 = zkd_now();
    int r;

    (void)ctx;
    zkd_log(ZKD_INFO, "key %s: loading %s (%llu MiB)", lk->name, lk->path,
            (unsigned long long)(lk->file_size >> 20));
    if ((r = zk_keyfile_check(lk, NULL, diag)))
        return r;
    memset(&z, 0, sizeof z);
    if ((r = zk_zkey_open(&z, lk->path, diag)))
        return r;
    if (strcmp(zk_curve_name(z.hdr.curve), lk->curve) || z.hdr.n_vars != lk->n_vars ||
        z.hdr.domain_size != lk->domain_size || z.hdr.n_public != lk->n_public) {
        zk_zkey_done(&z);   /* replaced between the check and the open */
        return zk_diag_set(diag, lk->path, ZK_ELENGTH,
                           "key %s: the file changed while it was being loaded", lk->name);
    }
    r = zk_groth16_key_load_opts(&z, &o, diag, &k);
    zk_zkey_done(&z);
    if (r)
        return r;
    if (!(x = calloc(1, sizeof *x))) {
        zk_groth16_key_free(k);
        return zk_diag_set(diag, lk->path, -ENOMEM, "out of memory");
    }
    if ((r = zk_groth16_vk_from_key(k, &x->vk))) {
        free(x);
        zk_groth16_key_free(k);
        return zk_diag_set(diag, lk->path, r, "verification key: %s", zk_strerror(r));
    }
    if (backend->key_loaded && (r = backend->key_loaded(backend, k, diag))) {
        zk_groth16_vk_done(&x->vk);
        free(x);
        zk_groth16_key_free(k);
        return r;
    }
    e->k = k;
    e->ext = x;
    zkd_log(ZKD_INFO, "key %s: ready in %.2f s (%s, 2^%u domain, %llu variables)", lk->name,
            zkd_now() - t0, zk_curve_name(zk_groth16_key_header(k)->curve), (unsigned)__builtin_ctzll(lk->domain_size),
            (unsigned long long)lk->n_vars);
    return 0;
}

static void key_free(void *ctx, struct zkd_key *e)
{
    struct key_ext *x = e->ext;
    (void)ctx;
    if (x)
        zk_groth16_vk_done(&x->vk);
    free(x);
    zk_groth16_key_free(e->k);
}

/* Is `name` in the comma-separated list (empty list = every key)? */
static int key_served(const char *name)
{
    const char *p = cfg.gpud_keys;
    size_t n = strlen(name);
    if (!*p)
        return 1;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ')
            p++, len--;
        while (len && p[len - 1] == ' ')
            len--;
        if (len == n && !memcmp(p, name, n))
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

struct preload_ctx {
    int err;
    unsigned loaded;
    struct zk_diag diag;
};

static int preload_one(void *ctx, const struct zk_ledger_key *lk)
{
    struct preload_ctx *pc = ctx;
    struct zkd_key *e;
    if (!key_served(lk->name) || atomic_load(&stop_flag))
        return 0;
    int r = zkd_keycache_load(&keys, lk, &e, &pc->diag);
    if (r)
        zkd_log(ZKD_ERR, "key %s: %s (its partitions will fail)", lk->name, pc->diag.msg);
    else
        pc->loaded++;
    return 0;
}

/* ---- the pipeline between starter and finisher ------------------------------ */

struct item {
    struct zk_ledger_part p;
    struct zkd_key *key;
    struct zk_slot slot;
    atomic_int slot_held;             /* taken (exchanged to 0) by whoever releases it */
    void *job;                        /* started, not yet waited for (backend->prove_wait) */
    struct zk_groth16_pending *pending;
    zk_scalar *pub;                   /* n_public public signals (copied from the slot) */
    double synth_s, wait_s, start_s, witness_s;
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct item *item;                /* depth 1: the next partition to finalize */
    int closed;                       /* the starter has stopped */
} q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0 };

/* In-flight partition ids, for a hand-back (SIGINT, SIGQUIT). */
static atomic_llong inflight[3];

/* Does a slot still hold partition id CLAIMED by this gpud?  Then a
 * hand-back leaves it alone: re-queueing it would have it synthesized
 * again while the reaper hands the same slot back READY (defect 9). */
static int slot_still_claimed(long long id)
{
    struct zk_pool_info pi;
    zk_pool_info(pool, &pi);
    for (uint32_t i = 0; i < pi.nslots; i++) {
        struct zk_pool_slot_info si;
        if (zk_pool_slot_info(pool, i, &si) == 0 && si.state == ZK_SLOT_CLAIMED &&
            si.partition_id == (uint64_t)id && si.owner_pid == (int32_t)getpid())
            return 1;
    }
    return 0;
}

/* Waits for a started job that will not be finalized (the backend may
 * still be reading the slot or writing its buffers). */
static void item_settle(struct item *it)
{
    if (it->job) {
        struct zk_groth16_pending *pp = NULL;
        struct zk_diag d;
        backend->prove_wait(backend, it->job, &pp, &d);
        zk_groth16_pending_free(pp);
        it->job = NULL;
    }
}

/* The slot goes back to the pool unless it was already (early release). */
static void item_release_slot(struct item *it)
{
    if (atomic_exchange(&it->slot_held, 0))
        zk_pool_release(pool, &it->slot);
}

static void item_free(struct item *it)
{
    if (!it)
        return;
    item_settle(it);
    zk_groth16_pending_free(it->pending);
    free(it->pub);
    free(it);
}

static void part_failed(zk_ledger *l, const struct zk_ledger_part *p, const char *msg)
{
    atomic_fetch_add(&n_errors, 1);
    zkd_log(ZKD_ERR, "partition %lld (job %lld #%u): %s", (long long)p->id,
            (long long)p->job_id, p->index, msg);
    zkd_part_error(l, p, &me, msg, cfg.max_errors, cfg.max_attempts, &abort_flag);
}

/* The backend no longer reads the slot of item ctx (it copied it to the
 * GPU): with the after-start policy the slot goes back to the pool now, not
 * when the proof is done.  The backend's done_with_slot: runs in the
 * starter or, for the CUDA backend, in a thread of the CUDA runtime. */
static void slot_copied(void *ctx)
{
    struct item *it = ctx;
    if (cfg.gpud_release == ZK_RELEASE_AFTER_START)
        item_release_slot(it);
}

/* A device error (GPUD_DEVICE_ERROR) while proving it: the device, not the
 * partition, failed.  gpud stops and exits non-zero so that systemd
 * restarts it; the caller hands the partition back. */
static void device_lost(const struct item *it, const char *msg)
{
    zkd_log(ZKD_ERR, "partition %lld: %s; handing it back and exiting", (long long)it->p.id, msg);
    atomic_store(&device_failed, 1);
    atomic_store(&stop_flag, 1);
}

static void *starter_main(void *arg)
{
    zk_ledger *l = NULL;
    struct zk_diag d;
    unsigned proving_backoff_ms = 0;
    int r;

    (void)arg;
    if ((r = zkd_open_ledger(&cfg, &l, &d))) {
        zkd_log(ZKD_ERR, "starter: %s", d.msg);
        atomic_store(&stop_flag, 1);
        goto out;
    }
    while (!atomic_load(&stop_flag)) {
        struct item *it = NULL;
        struct zk_slot s;

        atomic_store(&hb_starter_ms, now_ms());
        r = zk_pool_claim(pool, claim_node, 0, 250, &stop_flag, &s);
        if (r == ZK_ETIMEOUT || r == ZK_ECANCELED)
            continue;
        if (r == ZK_ECHECKSUM) {
            struct zk_ledger_part lp;
            /* re-queued only when the ledger places that partition, ready,
             * in this slot: the header's id may be forged or stale; only
             * from ready: a live owner keeps it, a dead one's is
             * reconcile's (the slot is FREE now: -> queued) */
            int mine = s.partition_id <= INT64_MAX &&
                       zk_ledger_part_get(l, (int64_t)s.partition_id, &lp, NULL) == 0 &&
                       lp.state == ZK_PART_READY && lp.slot == (int32_t)s.index &&
                       (uint64_t)lp.key_id == s.key_id;
            zk_pool_release(pool, &s);
            if (mine) {
                zkd_log(ZKD_WARN, "slot %u failed its checksum: dropped, partition %lld re-queued",
                        s.index, (long long)s.partition_id);
                zkd_part_requeue(l, (int64_t)s.partition_id, ZK_PART_READY, NULL,
                                 "its slot failed the checksum; synthesized again",
                                 &abort_flag);
            } else {
                zkd_log(ZKD_WARN, "slot %u failed its checksum: dropped (its header names no"
                        " partition the ledger has ready there)", s.index);
            }
            atomic_fetch_add(&n_dropped, 1);
            continue;
        }
        if (r) {
            zkd_log(ZKD_ERR, "claiming a slot: %s", zk_strerror(r));
            usleep(cfg.poll_ms * 1000u);
            continue;
        }
        atomic_store(&busy_starter, 1);
        double t_claim = zkd_now();
        it = calloc(1, sizeof *it);
        if (!it) {
            zk_pool_unclaim(pool, &s);
            atomic_store(&busy_starter, 0);
            continue;
        }
        it->slot = s;
        atomic_init(&it->slot_held, 1);
        uint64_t now = zkd_realtime_ns();
        it->wait_s = s.fill_ns && now > s.fill_ns ? (double)(now - s.fill_ns) * 1e-9 : 0;
        /* the slot header is the pool's word, which any writer of the pool
         * can forge: the move checks it against what the ledger recorded */
        d.msg[0] = 0;
        r = zk_ledger_part_proving_slot(l, (int64_t)s.partition_id, (int64_t)s.key_id, &me,
                                        (int32_t)s.index, &it->p, &d);
        if (zkd_ledger_transient(r)) {
            /* the ledger could not be written (busy, full, I/O): the slot's
             * synthesis is good, so it goes back READY (un-claimed, not
             * released: released, its partition would be synthesized again)
             * and is claimed again after a pause */
            zkd_ledger_unwritable("moving a partition to proving", &d);
            zk_pool_unclaim(pool, &s);
            free(it);
            atomic_store(&busy_starter, 0);
            usleep(zkd_ledger_backoff_ms(&proving_backoff_ms) * 1000u);
            continue;
        }
        zkd_ledger_writable();
        proving_backoff_ms = 0;
        if (r) {
            zkd_log(ZKD_INFO, "slot %u: partition %lld is not to be proved (%s): slot dropped",
                    s.index, (long long)s.partition_id, d.msg[0] ? d.msg : zk_strerror(r));
            atomic_fetch_add(&n_dropped, 1);
            zk_pool_release(pool, &s);
            free(it);
            atomic_store(&busy_starter, 0);
            continue;
        }
        atomic_store(&inflight[0], it->p.id);
        /* Test hook: ZKSLOT_TEST_CLAIM_HOLD_MS keeps the slot CLAIMED that
         * long before prove_start, its data intact (its checksum holds), so
         * that a test can hand it back or kill gpud there. */
        if (getenv("ZKSLOT_TEST_CLAIM_HOLD_MS") && atoi(getenv("ZKSLOT_TEST_CLAIM_HOLD_MS")) > 0) {
            zkd_log(ZKD_WARN, "test hook: slot %u held CLAIMED before prove_start", s.index);
            usleep((useconds_t)atoi(getenv("ZKSLOT_TEST_CLAIM_HOLD_MS")) * 1000u);
        }
        if ((r = zkd_keycache_get(&keys, l, (int64_t)s.key_id, &it->key, &d))) {
            char msg[300];
            snprintf(msg, sizeof msg, "proving key: %s", d.msg);
            part_failed(l, &it->p, msg);
            goto drop;
        }
        const struct zk_zkey_header *kh = zk_groth16_key_header(it->key->k);
        struct zk_slotfmt_header want;
        memset(&want, 0, sizeof want);
        want.curve = kh->curve;
        want.n_vars = kh->n_vars;
        want.n_public = kh->n_public;
        want.domain_size = kh->domain_size;
        want.key_id = s.key_id;
        if ((r = zk_slotfmt_check(&s, &want))) {
            char msg[200];
            snprintf(msg, sizeof msg, "slot %u does not hold a partition of key %s (%s)",
                     s.index, it->key->lk.name, zk_strerror(r));
            part_failed(l, &it->p, msg);
            goto drop;
        }
        it->pub = malloc((kh->n_public + 1) * sizeof *it->pub);
        if (!it->pub) {
            part_failed(l, &it->p, "out of memory");
            goto drop;
        }
        memcpy(it->pub, s.data + s.region_off[ZK_SLOTFMT_W] + 32, kh->n_public * 32);
        struct zk_slotfmt_header sh;
        memcpy(&sh, s.data, sizeof sh);
        if (sh.partition_id != (uint64_t)it->p.id) {
            /* the checksummed data names another partition than the slot's
             * header word: a forged or stale header; synthesized again */
            zkd_log(ZKD_WARN, "slot %u: its data is partition %llu's, its header says %lld:"
                    " slot dropped, partition re-queued", s.index,
                    (unsigned long long)sh.partition_id, (long long)it->p.id);
            atomic_fetch_add(&n_dropped, 1);
            zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &me,
                             "its slot's data was another partition's; synthesized again",
                             &abort_flag);
            goto drop;
        }
        it->synth_s = (double)sh.synth_ns * 1e-9;
        it->witness_s = sh.witness_ms ? (double)sh.witness_ms * 1e-3 : -1;
        double t0 = zkd_now();
        d.msg[0] = 0;
        r = backend->prove_start(backend, it->key->k, &s, nthreads, slot_copied, it, &it->job,
                                 &d);
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
        pthread_mutex_lock(&q.lock);
        while (q.item && !atomic_load(&abort_flag))
            pthread_cond_wait(&q.cond, &q.lock);
        if (atomic_load(&abort_flag)) {
            pthread_mutex_unlock(&q.lock);
            goto drop_requeue;
        }
        q.item = it;
        atomic_store(&inflight[1], it->p.id);
        atomic_store(&inflight[0], 0);
        pthread_cond_broadcast(&q.cond);
        pthread_mutex_unlock(&q.lock);
        atomic_store(&busy_starter, 0);
        continue;
drop_requeue:
        zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &me,
                         "gpud stopped before finishing it", &abort_flag);
drop:
        atomic_store(&inflight[0], 0);
        item_settle(it);
        item_release_slot(it);
        item_free(it);
        atomic_store(&busy_starter, 0);
    }
out:
    pthread_mutex_lock(&q.lock);
    q.closed = 1;
    pthread_cond_broadcast(&q.cond);
    pthread_mutex_unlock(&q.lock);
    zk_ledger_close(l);
    return NULL;
}

/* Removes temporary files that a killed gpud left in the directory dfd
 * (name.tmp.PID of a process that is gone); unlinkat removes a planted
 * symlink itself, never its target. */
static void remove_stale_tmp(int dfd, const char *dir)
{
    int fd = dup(dfd);
    DIR *dp = fd < 0 ? NULL : fdopendir(fd);
    struct dirent *e;
    if (!dp) {
        if (fd >= 0)
            close(fd);
        return;
    }
    while ((e = readdir(dp))) {
        const char *t = strstr(e->d_name, ".tmp.");
        if (!t)
            continue;
        int pid = atoi(t + 5);
        if (pid > 0 && pid != (int)getpid() && kill(pid, 0) && errno == ESRCH &&
            !unlinkat(dfd, e->d_name, 0))
            zkd_log(ZKD_INFO, "removed %s/%s, left by a gpud that died", dir, e->d_name);
    }
    closedir(dp);
}

/*
 * Writes out_dir/<index>/{public,proof}.json; *dup = a proof was there.
 * The partition directory (made 02770 by `zkslot submit`, writable by the
 * submitters' group) is opened with O_NOFOLLOW and written through its fd,
 * so neither a symlink in its place nor one at a temporary name makes gpud
 * write anywhere else.
 */
static int write_proof(const struct zk_ledger_job *j, const struct item *it,
                       const struct zk_groth16_proof *proof, int *dup, struct zk_diag *diag)
{
    char dir[PATH_MAX + 16];
    char *pj = NULL, *uj = NULL;
    int r, dfd;

    snprintf(dir, sizeof dir, "%s/%u", j->out_dir, it->p.index);
    /* normally made by submit; 0770 (less the umask) when it is not */
    if ((r = zkd_mkdir_p(dir, 0770)))
        return zk_diag_set(diag, dir, r, "cannot create the output directory: %s",
                           zk_strerror(r));
    if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        r = -errno;
        return zk_diag_set(diag, dir, r, "cannot open the output directory: %s%s",
                           zk_strerror(r), r == -ELOOP || r == -ENOTDIR ? " (a symlink?)" : "");
    }
    remove_stale_tmp(dfd, dir);
    pj = zk_groth16_proof_to_json(proof);
    uj = zk_groth16_public_to_json(it->pub, zk_groth16_key_header(it->key->k)->n_public);
    if (!pj || !uj) {
        r = -ENOMEM;
        goto out;
    }
    if ((r = zkd_write_atomic_at(dfd, "public.json", uj, strlen(uj), 0644, NULL))) {
        zk_diag_set(diag, dir, r, "cannot write public.json there: %s", zk_strerror(r));
        goto out;
    }
    if ((r = zkd_write_atomic_at(dfd, "proof.json", pj, strlen(pj), 0644, dup)))
        zk_diag_set(diag, dir, r, "cannot write proof.json there: %s", zk_strerror(r));
out:
    close(dfd);
    free(pj);
    free(uj);
    return r;
}

struct done_op {
    zk_ledger *l;
    int64_t id;
    const struct zk_ledger_timings *t;
    int dup;
};

static int done_op(void *ctx, struct zk_diag *diag)
{
    const struct done_op *o = ctx;
    return zk_ledger_part_done(o->l, o->id, &me, o->t, o->dup, diag);
}

static void *finisher_main(void *arg)
{
    zk_ledger *l = NULL;
    struct zk_diag d;
    int r;

    (void)arg;
    if ((r = zkd_open_ledger(&cfg, &l, &d))) {
        zkd_log(ZKD_ERR, "finisher: %s", d.msg);
        atomic_store(&stop_flag, 1);
    }
    for (;;) {
        struct item *it;
        pthread_mutex_lock(&q.lock);
        while (!q.item && !q.closed) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 1;
            pthread_cond_timedwait(&q.cond, &q.lock, &ts);
            atomic_store(&hb_finisher_ms, now_ms());
        }
        it = q.item;
        q.item = NULL;
        pthread_cond_broadcast(&q.cond);
        pthread_mutex_unlock(&q.lock);
        if (!it)
            break;   /* closed and drained */
        atomic_store(&busy_finisher, 1);
        atomic_store(&hb_finisher_ms, now_ms());
        if (!l || atomic_load(&abort_flag)) {
            if (l)
                zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &me,
                                 "gpud stopped before finishing it", &abort_flag);
            goto next;
        }
        struct zk_groth16_proof proof;
        struct zk_ledger_job job;
        /* the device's part of prove_start (the CUDA backend queued it)
         * counts as start, not finalize */
        double t0 = zkd_now();
        r = backend->prove_wait(backend, it->job, &it->pending, &d);
        it->job = NULL;
        it->start_s += zkd_now() - t0;
        t0 = zkd_now();
        if (r) {
            if (GPUD_DEVICE_ERROR(r)) {
                device_lost(it, d.msg);
                zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &me,
                                 "gpud's device failed", &abort_flag);
            } else {
                part_failed(l, &it->p, d.msg);
            }
            goto next;
        }
        if ((r = zk_groth16_prove_finalize(it->pending, nthreads, &proof))) {
            snprintf(d.msg, sizeof d.msg, "prove_finalize failed: %s", zk_strerror(r));
            part_failed(l, &it->p, d.msg);
            goto next;
        }
        if (cfg.gpud_self_verify) {
            int valid = 0;
            const zk_scalar *pub = it->pub;
            const struct key_ext *kx = it->key->ext;
            r = zk_groth16_verify(&kx->vk, pub, kx->vk.n_public, &proof, &valid);
            if (r || !valid) {
                part_failed(l, &it->p, r ? "self-verify could not run" :
                            "self-verify rejected the proof (bad witness or key?)");
                goto next;
            }
        }
        if ((r = zk_ledger_job_get(l, it->p.job_id, &job, &d))) {
            part_failed(l, &it->p, d.msg);
            goto next;
        }
        int dup = 0;
        if ((r = write_proof(&job, it, &proof, &dup, &d))) {
            part_failed(l, &it->p, d.msg);
            goto next;
        }
        /* Test hook: ZKSLOT_TEST_RECORD_HOLD_MS holds a written proof that
         * long before the ledger records it, so a test can kill -9 there. */
        if (getenv("ZKSLOT_TEST_RECORD_HOLD_MS")) {
            zkd_log(ZKD_WARN, "test hook: partition %lld: proof written, not yet recorded",
                    (long long)it->p.id);
            usleep((useconds_t)atoi(getenv("ZKSLOT_TEST_RECORD_HOLD_MS")) * 1000u);
        }
        struct zk_ledger_timings t = { it->synth_s, it->wait_s, it->start_s, zkd_now() - t0,
                                       it->witness_s };
        /* retried while the ledger is unwritable (the proof is written;
         * with --release after-proof the slot stays held meanwhile): a
         * failed attempt was rolled back, so `done` is recorded once */
        struct done_op dop = { l, it->p.id, &t, dup };
        r = zkd_ledger_retry(done_op, &dop, "marking a partition done", &abort_flag, &d);
        if (r == ZK_ESTATE)
            zkd_log(ZKD_INFO, "partition %lld: proof written but the job was canceled",
                    (long long)it->p.id);
        else if (r)
            zkd_log(ZKD_ERR, "partition %lld: marking done: %s", (long long)it->p.id, d.msg);
        atomic_fetch_add(&n_proved, 1);
        if (dup)
            atomic_fetch_add(&n_duplicates, 1);
        zkd_log(ZKD_INFO, "partition %lld (job %lld #%u) proved%s: wait %.3f s, start %.3f s, "
                "finalize %.3f s -> %s/%u/proof.json", (long long)it->p.id,
                (long long)it->p.job_id, it->p.index, dup ? " again (duplicate)" : "",
                it->wait_s, it->start_s, t.finalize_s, job.out_dir, it->p.index);
next:
        item_settle(it);
        item_release_slot(it);
        atomic_store(&inflight[1], 0);
        item_free(it);
        atomic_store(&busy_finisher, 0);
    }
    zk_ledger_close(l);
    return NULL;
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
    zkd_keycache_init(&keys, key_load, key_free, NULL);
    r = zkd_parse_args(argc, argv, PROG, flags, sizeof flags / sizeof flags[0], &cfg, &check);
    if (r)
        return r > 0 ? 0 : 2;
    d.msg[0] = 0;
    if (!(backend = gpud_backend_get(cfg.gpud_backend, cfg.gpud_device, &d))) {
        fprintf(stderr, "%s: %s\n", PROG, d.msg);
        return 2;
    }
    if (strcmp(backend->name, cfg.gpud_backend))
        zkd_log(ZKD_WARN, "%s", d.msg);   /* cuda asked, none usable: cpu */
    if (check) {
        zkd_print_config(&cfg, stdout);
        return 0;
    }
    if ((sfd = zkd_signals_open()) < 0) {
        zkd_log(ZKD_ERR, "signalfd: %s", zk_strerror(sfd));
        return 1;
    }
    nthreads = cfg.gpud_threads ? cfg.gpud_threads : zk_nthreads_default();
    char inst[16];
    snprintf(inst, sizeof inst, "%d", cfg.gpud_device);
    if (zkd_base_open(&base, "gpud", inst, &cfg))
        goto out;
    pool = base.pool;
    me = base.me;
    l = base.l;
    if (backend->attach_pool) {
        void *mem;
        size_t len;
        double t0 = zkd_now();
        if ((r = zk_pool_mapping(pool, &mem, &len)) ||
            (r = backend->attach_pool(backend, mem, len, &d))) {
            zkd_log(ZKD_ERR, "%s", r == ZK_ESTATE ? "pool not attached" : d.msg);
            goto out;
        }
        attached_mem = mem;
        attached_len = len;
        zkd_log(ZKD_INFO, "pool page-locked for the GPU (%zu MiB in %.2f s)", len >> 20,
                zkd_now() - t0);
    }
    claim_node = own_numa_node();
    zkd_log(ZKD_INFO, "backend %s, %u thread(s), release %s, %s", backend->name, nthreads,
            cfg.gpud_release == ZK_RELEASE_AFTER_PROOF ? "after-proof" : "after-start",
            claim_node == ZK_POOL_ANY_NODE ? "slots claimed from any NUMA node"
                                           : "slots on this NUMA node claimed first");
    if (claim_node != ZK_POOL_ANY_NODE)
        zkd_log(ZKD_INFO, "numa: running on node %d", claim_node);
    struct preload_ctx pc;
    memset(&pc, 0, sizeof pc);
    if ((r = zk_ledger_key_list(l, preload_one, &pc, &d))) {
        zkd_log(ZKD_ERR, "listing keys: %s", d.msg);
        goto out;
    }
    if ((r = pthread_create(&t_finish, NULL, finisher_main, NULL))) {
        zkd_log(ZKD_ERR, "starting the finisher: %s", strerror(r));
        goto out;
    }
    if ((r = pthread_create(&t_start, NULL, starter_main, NULL))) {
        zkd_log(ZKD_ERR, "starting the starter: %s", strerror(r));
        pthread_mutex_lock(&q.lock);
        q.closed = 1;
        pthread_cond_broadcast(&q.cond);
        pthread_mutex_unlock(&q.lock);
        pthread_join(t_finish, NULL);
        goto out;
    }
    started = 1;
    zkd_log(ZKD_INFO, "ready: %u key(s) loaded, pool %s, ledger %s", pc.loaded, cfg.pool,
            zk_ledger_path(l));
    zkd_notify("READY=1\nSTATUS=proving with %u key(s) loaded", pc.loaded);

    uint64_t wd_usec = zkd_watchdog_usec();
    double last_tick = 0, t_begin = zkd_now(), rate = 0;
    unsigned long long last_np = 0;
    rc = 0;
    int stop = ZKD_RUN;
    double last_stop_note = 0;
    for (;;) {
        struct pollfd pfd = { sfd, POLLIN, 0 };
        if (poll(&pfd, 1, 250) > 0 && zkd_signals_poll(sfd, &stop)) {
            if (stop == ZKD_FINISH) {
                atomic_store(&stop_flag, 1);
            } else {   /* ZKD_HANDBACK: SIGINT or SIGQUIT */
                atomic_store(&abort_flag, 1);
                pthread_mutex_lock(&q.lock);
                pthread_cond_broadcast(&q.cond);
                pthread_mutex_unlock(&q.lock);
                for (int i = 0; i < 2; i++) {
                    long long id = atomic_load(&inflight[i]);
                    if (id && !slot_still_claimed(id))
                        zkd_part_requeue(l, id, ZK_PART_PROVING, &me,
                                         "gpud stopped before finishing it", &abort_flag);
                }
                zkd_log(ZKD_INFO, "exiting with work handed back");
                _exit(0);
            }
        }
        if (atomic_load(&stop_flag)) {
            /* draining, after SIGTERM or an internal stop (device lost, pool
             * gone): STOPPING=1 at once, then STATUS and WATCHDOG=1 every
             * second while the finisher makes progress */
            pthread_mutex_lock(&q.lock);
            int closed = q.closed;
            int done = closed && !q.item && !atomic_load(&busy_finisher);
            pthread_mutex_unlock(&q.lock);
            if (done)
                break;
            double t = zkd_now();
            if (last_stop_note == 0 || t - last_stop_note >= 1.0) {
                uint64_t lim = wd_usec / 2000, nowm = now_ms();
                int ok = (closed || atomic_load(&busy_starter) ||
                          nowm - atomic_load(&hb_starter_ms) < lim) &&
                         (atomic_load(&busy_finisher) || nowm - atomic_load(&hb_finisher_ms) < lim);
                char st[160];
                snprintf(st, sizeof st, "stopping: finishing %d partition(s) in hand; proved %llu",
                         (atomic_load(&inflight[0]) != 0) + (atomic_load(&inflight[1]) != 0),
                         (unsigned long long)atomic_load(&n_proved));
                zkd_notify_stopping(ok, st);
                last_stop_note = t;
            }
            continue;
        }
        double t = zkd_now();
        if (t - last_tick < 1.0)
            continue;
        last_tick = t;
        if (zkd_base_tick(&base) == ZKD_EXIT_POOL_GONE) {
            atomic_store(&stop_flag, 1);
            rc = ZKD_EXIT_POOL_GONE;
            continue;
        }
        struct zk_pool_info pi;
        zk_pool_info(pool, &pi);
        unsigned long long np = atomic_load(&n_proved);
        if (np != last_np) {   /* the rate moves only when a proof lands */
            rate = 60.0 * (double)np / (t - t_begin);
            last_np = np;
        }
        char lh[256];
        zkd_ledger_health_status(lh, sizeof lh);
        zkd_notify("STATUS=%sslots free %u filling %u ready %u claimed %u; proved %llu "
                   "(%.2f/min), duplicates %llu, errors %llu", lh, pi.count[ZK_SLOT_FREE],
                   pi.count[ZK_SLOT_FILLING], pi.count[ZK_SLOT_READY],
                   pi.count[ZK_SLOT_CLAIMED], np, rate,
                   (unsigned long long)atomic_load(&n_duplicates),
                   (unsigned long long)atomic_load(&n_errors));
        if (wd_usec) {
            uint64_t lim = wd_usec / 2000, nowm = now_ms();
            int ok = (atomic_load(&busy_starter) || nowm - atomic_load(&hb_starter_ms) < lim) &&
                     (atomic_load(&busy_finisher) || nowm - atomic_load(&hb_finisher_ms) < lim);
            if (ok)
                zkd_notify("WATCHDOG=1");
        }
    }
    if (atomic_load(&device_failed)) {
        zkd_log(ZKD_ERR, "exiting 1: the %s device failed (partitions in hand were handed "
                "back)", backend->name);
        rc = 1;
    }
    zkd_log(ZKD_INFO, "stopped: %llu proof(s), %llu duplicate(s), %llu error(s), %llu slot(s) "
            "dropped", (unsigned long long)atomic_load(&n_proved),
            (unsigned long long)atomic_load(&n_duplicates),
            (unsigned long long)atomic_load(&n_errors),
            (unsigned long long)atomic_load(&n_dropped));
out:
    if (started) {
        atomic_store(&stop_flag, 1);
        pthread_join(t_start, NULL);
        pthread_join(t_finish, NULL);
    }
    if (backend->detach)
        backend->detach(backend, attached_mem, attached_len);
    zkd_base_close(&base);
    zkd_keycache_done(&keys);
    close(sfd);
    return rc;
}
