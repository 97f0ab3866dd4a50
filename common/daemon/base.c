/*
 * base.c -- what every daemon does the same way: its identity, the pool,
 * the ledger, the recovery pass at start and on every tick, and noticing a
 * pool destroyed under it.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/ledgerretry.h"
#include "daemon/zkd.h"
#include "util/testhook.h"
#include "zk/error.h"

int zkd_open_ledger(const struct zk_config *cfg, zk_ledger **ret, struct zk_diag *diag)
{
    char path[PATH_MAX];
    int r = zkd_mkdir_p(cfg->state_dir, 0755);
    if (r)
        return zk_diag_set(diag, cfg->state_dir, r, "cannot create the state directory: %s",
                           zk_strerror(r));
    if ((r = zk_config_ledger_path(cfg, path, sizeof path)))
        return zk_diag_set(diag, cfg->state_dir, r, "path too long");
    /* synchronous=NORMAL: a daemon's transitions that a power loss undoes
     * are redone by the recovery pass (a partition proved or synthesized
     * again); the CLI's writes (a submitted job) keep FULL */
    /* Test hook: ZKSLOT_TEST_LEDGER_BUSY_MS lowers the busy timeout (10 s)
     * so that a test holding the write lock a few seconds makes the
     * daemons' writes fail with SQLITE_BUSY (test_ledger_busy) */
    const char *busy = zk_test_hook("ZKSLOT_TEST_LEDGER_BUSY_MS");
    const char *file = zk_ledger_sqlite_path(path);
    char why[512];
    /* the ledger is the daemons' alone: a 0660 one of an older zkslot
     * made 0600 before it is opened (zk_ledger_sqlite_private) */
    if (file && (r = zk_ledger_sqlite_private(file, why, sizeof why)) < 0)
        return zk_diag_set(diag, file, r, "%s", why);
    if (file && r > 0)
        zkd_log(ZKD_NOTICE, "%s", why);
    r = zk_ledger_open(path, ZK_LEDGER_CREATE | ZK_LEDGER_SYNC_NORMAL,
                       busy && atoi(busy) > 0 ? (unsigned)atoi(busy) : 0, ret, diag);
    /* SQLite says only "unable to open database file" or "attempt to write
     * a readonly database" when the ledger (or the directory, for -wal and
     * -shm) is not this user's to write: say whose it is */
    if (!r) {
        zk_ledger_set_aging(*ret, cfg->ledger_aging);
        zk_ledger_set_lease(*ret, cfg->ledger_lease);   /* a cut noticed within seconds */
    }
    if (!r && (r = zk_ledger_set_machine(*ret, cfg->machine)) < 0) {
        zk_ledger_close(*ret);
        *ret = NULL;
        return zk_diag_set(diag, cfg->machine, r, "a machine name has at most 63 bytes");
    }
    const char *what;
    if (r && file &&
        (what = zk_ledger_sqlite_access(file, cfg->state_dir, "this daemon", why, sizeof why)))
        zk_diag_set(diag, what, r, "%s; the ledger is the daemons' alone (mode 0600, of the "
                    "user they run as; the state directory 3770: setgid, sticky)", why);
    return r;
}

/* zk_ledger_set_interrupt's fn for a thread's handle: its stop flag. */
static int stop_flag_set(void *ctx)
{
    return atomic_load((const zk_cancel_flag *)ctx) != 0;
}

/* ... and for the main thread's: a stop signal waiting for the main loop
 * (blocked in every thread, read from the signalfd: pending until then). */
static int stop_signal_pending(void *ctx)
{
    sigset_t s;
    (void)ctx;
    return !sigpending(&s) &&
           (sigismember(&s, SIGTERM) == 1 || sigismember(&s, SIGINT) == 1 ||
            sigismember(&s, SIGQUIT) == 1);
}

/* Sleeps ms, *hb kept fresh, *stop looked at every 0.1 s; 1 when stopped. */
static int wait_fresh(unsigned ms, const zk_cancel_flag *stop, atomic_ullong *hb)
{
    for (;;) {
        if (stop && atomic_load(stop))
            return 1;
        if (hb)
            atomic_store(hb, (uint64_t)(zkd_now() * 1e3));
        if (!ms)
            return 0;
        unsigned step = ms < 100 ? ms : 100;
        usleep(step * 1000u);
        ms -= step;
    }
}

int zkd_open_ledger_wait(const struct zk_config *cfg, zk_ledger **ret, const char *what,
                         const zk_cancel_flag *stop, atomic_ullong *hb, struct zk_diag *diag)
{
    unsigned ms = 0;
    /* Test hook: ZKSLOT_TEST_OPEN_DELAY_MS holds each thread that long
     * before its first attempt, so that a test can stop the server between
     * the daemon's start and its threads' connections (test_pg_thread_open) */
    const char *hook = zk_test_hook("ZKSLOT_TEST_OPEN_DELAY_MS");
    if (hook && atoi(hook) > 0) {
        zkd_log(ZKD_WARN, "test hook: %s waits %d ms before connecting (ZKSLOT_TEST_OPEN_DELAY_MS)",
                what, atoi(hook));
        wait_fresh((unsigned)atoi(hook), stop, hb);
    }
    for (;;) {
        int r = zkd_open_ledger(cfg, ret, diag);
        if (!zkd_ledger_transient(r)) {
            if (!r)
                zkd_ledger_writable();
            if (!r && stop)   /* a stop is not held back by a wait on a cut link */
                zk_ledger_set_interrupt(*ret, stop_flag_set, (void *)stop);
            return r;
        }
        zkd_ledger_unwritable(what, diag);
        if (wait_fresh(zkd_ledger_backoff_ms(&ms), stop, hb))
            return r;
    }
}

/* A start's wait for the database: the next backoff step, systemd told
 * the start goes on, a stop signal on sfd looked at; 1 when stopped. */
static int start_wait(int sfd, unsigned *ms, double t0, const struct zk_diag *diag)
{
    unsigned wait = zkd_ledger_backoff_ms(ms);
    zkd_notify("EXTEND_TIMEOUT_USEC=%u\nSTATUS=waiting for the ledger's database for %.0f s: "
               "%.120s", (wait + 30000u) * 1000u, zkd_now() - t0, diag->msg);
    struct pollfd pfd = { sfd, POLLIN, 0 };
    int stop = ZKD_RUN;
    if (sfd >= 0 && poll(&pfd, 1, (int)wait) > 0 && zkd_signals_poll(sfd, &stop) &&
        stop != ZKD_RUN) {
        zkd_log(ZKD_INFO, "stopped while waiting for the ledger");
        return 1;
    }
    if (sfd < 0)
        usleep(wait * 1000u);
    return 0;
}

/* zkd_base_open's ledger: 0, an error, or 1 (a signal while waiting for an
 * unreachable database: the start ends). */
static int open_ledger_start(const struct zk_config *cfg, zk_ledger **ret, int sfd,
                             struct zk_diag *diag)
{
    unsigned ms = 0, tries = 0;
    double t0 = zkd_now();
    char path[PATH_MAX];
    /* SQLite says ZK_ELEDGER for a file this daemon may not write too:
     * that is the operator's to fix, said at once (zkd_open_ledger) */
    int sqlite = zk_config_ledger_path(cfg, path, sizeof path) != 0 ||
                 zk_ledger_sqlite_path(path) != NULL;
    for (;;) {
        int r = zkd_open_ledger(cfg, ret, diag);
        if (sqlite || !zkd_ledger_transient(r)) {
            if (!r && tries)
                zkd_log(ZKD_NOTICE, "ledger reachable after %.1f s (%u failed attempt(s))",
                        zkd_now() - t0, tries);
            return r;
        }
        if (!tries++) {
            zkd_log(ZKD_ERR, "ledger unreachable at start: %s; waiting for it (SIGTERM stops)",
                    diag->msg);
        }
        if (start_wait(sfd, &ms, t0, diag))
            return 1;
    }
}

/* zkd_base_open's recovery: a database that does not answer now (a lossy
 * link dropped the connection mid-statement) is waited for as at the
 * connection, not a reason to exit: nothing is claimed before the pool
 * and the ledger agree.  0, an error, or 1 (stopped while waiting). */
static int recover_start(struct zkd_base *b, int sfd, struct zkd_recovery *rec,
                         struct zk_diag *diag)
{
    unsigned ms = 0, tries = 0;
    double t0 = zkd_now();
    for (;;) {
        int r = zkd_recover(b->pool, ZK_POOL_REAP_RESYNC, b->l, 1, b->cfg->max_attempts, rec,
                            diag);
        if (!zkd_ledger_transient(r)) {
            if (!r && tries)
                zkd_log(ZKD_NOTICE, "recovery done after %.1f s (%u failed attempt(s))",
                        zkd_now() - t0, tries);
            return r;
        }
        if (!tries++)
            zkd_log(ZKD_ERR, "recovery at start: %s; waiting for the ledger (SIGTERM stops)",
                    diag->msg);
        if (start_wait(sfd, &ms, t0, diag))
            return 1;
    }
}

int zkd_base_open(struct zkd_base *b, const char *role, const char *instance,
                  const struct zk_config *cfg, int sfd)
{
    struct zk_diag d;
    struct zkd_recovery rec;
    int r;

    memset(b, 0, sizeof *b);
    b->cfg = cfg;
    b->sfd = -1;
    snprintf(b->role, sizeof b->role, "%s", role);
    if ((r = zk_proc_self(&b->me))) {
        zkd_log(ZKD_ERR, "/proc/self/stat: %s", zk_strerror(r));
        return r;
    }
    if (!(b->pool = calloc(1, zk_pool_sizeof())))
        return -ENOMEM;
    struct zk_pool_attach_opts ao = { b->role, 0, 0, &d };
    if ((r = zk_pool_attach(b->pool, cfg->pool, &ao))) {
        zkd_log(ZKD_ERR, "pool %s%s", d.msg,
                r == -ENOENT ? " (create it with `zkslot pool create`)" : "");
        return r;
    }
    if ((r = zkd_nodump(b->pool)))
        return r;
    if ((r = zkd_pool_identity(cfg->pool, &b->pool_dev, &b->pool_ino))) {
        zkd_log(ZKD_ERR, "pool %s: %s", cfg->pool, zk_strerror(r));
        return r;
    }
    if ((r = open_ledger_start(cfg, &b->l, sfd, &d))) {
        if (r < 0)
            zkd_log(ZKD_ERR, "%s", d.msg);
        return r;
    }
    /* SIGTERM, SIGINT or SIGQUIT acted on within about a second, whatever
     * the network does (docs/ledger.md, "Unreachable") */
    zk_ledger_set_interrupt(b->l, stop_signal_pending, NULL);
    if (zk_ledger_daemon_started(b->l, role, instance, b->me.pid, &d))
        zkd_log(ZKD_WARN, "recording the start: %s", d.msg);
    zkd_base_lease(b);   /* the machine's lease before anything is claimed */
    /* Test hook: ZKSLOT_TEST_RECOVER_DELAY_MS holds the start this long
     * before its recovery pass, so that a test can stop the server between
     * the connection and the pass (pipeline_test_pg_recover_start) */
    const char *hook = zk_test_hook("ZKSLOT_TEST_RECOVER_DELAY_MS");
    if (hook && atoi(hook) > 0) {
        zkd_log(ZKD_WARN, "test hook: the recovery at start waits %d ms "
                "(ZKSLOT_TEST_RECOVER_DELAY_MS)", atoi(hook));
        usleep((useconds_t)atoi(hook) * 1000u);
    }
    if ((r = recover_start(b, sfd, &rec, &d))) {
        if (r < 0)
            zkd_log(ZKD_ERR, "recovery: %s", d.msg);
        return r;
    }
    struct zk_pool_info pi;
    zk_pool_info(b->pool, &pi);
    zkd_log(ZKD_INFO, "pool %s: %u slots of %llu MiB; recovery freed %u filling slot(s), "
            "re-queued %u claimed, moved %u partition(s) in the ledger",
            cfg->pool, pi.nslots, (unsigned long long)(pi.slot_size >> 20),
            rec.reap.filling_freed, rec.reap.claimed_requeued, rec.ledger_changed);
    return 0;
}

/* A machine whose clock is off from the ledger's database by more than
 * ZKD_CLOCK_SKEW_S logs it once (and once more when it is back within the
 * bound): the ledger's times no longer depend on it (zk_ledger_now_ns),
 * but its log's stamps and the absolute deadlines its clients write do. */
#define ZKD_CLOCK_SKEW_S 2.0
static void clock_check(const zk_ledger *l)
{
    static int off;                   /* the main thread's */
    double skew = (double)((int64_t)zkd_realtime_ns() - zk_ledger_now_ns(l)) / 1e9;
    int now_off = skew > ZKD_CLOCK_SKEW_S || skew < -ZKD_CLOCK_SKEW_S;
    if (now_off && !off)
        zkd_log(ZKD_WARN, "this machine's clock is %.1f s %s the ledger's database's; "
                "deadlines, ages and leases use the database's clock", skew > 0 ? skew : -skew,
                skew > 0 ? "ahead of" : "behind");
    else if (!now_off && off)
        zkd_log(ZKD_NOTICE, "this machine's clock agrees with the ledger's database's again "
                "(%.1f s)", skew);
    off = now_off;
}

void zkd_base_lease(struct zkd_base *b)
{
    struct zk_diag d;
    int lost = 0;
    uint32_t moved = 0;
    int r = zk_ledger_lease_renew(b->l, b->cfg->ledger_lease, &lost, &d);
    if (!r && lost)
        zkd_log(ZKD_WARN, "machine %s lost its lease (stopped or cut off for more than %u s): "
                "its partitions went back to the queue, the slots still holding them are "
                "dropped; lease taken again", zk_ledger_machine(b->l), b->cfg->ledger_lease);
    if (!r)
        r = zk_ledger_lease_expire(b->l, &moved, &d);
    if (zkd_ledger_transient(r))
        zkd_ledger_unwritable("the machine's lease", &d);   /* logged once */
    else if (!r && strcmp(zk_ledger_backend(b->l), "sqlite"))
        zkd_ledger_writable();   /* a lease written: said when it is back, not when
                                  * work comes (SQLite has no lease: nothing written) */
    if (!r)
        clock_check(b->l);
    if (r && !zkd_ledger_transient(r))
        zkd_log(ZKD_WARN, "lease: %s", d.msg);
    else if (moved)
        zkd_log(ZKD_NOTICE, "re-queued %u partition(s) of machine(s) whose lease expired", moved);
}

int zkd_base_tick(struct zkd_base *b)
{
    struct zk_diag d;
    struct zkd_recovery rec;
    dev_t dv;
    ino_t in;

    if (zkd_pool_identity(b->cfg->pool, &dv, &in) || dv != b->pool_dev || in != b->pool_ino) {
        zkd_log(ZKD_ERR, "pool %s was destroyed or replaced; finishing the partitions in "
                "hand and exiting (restart to attach the new pool)", b->cfg->pool);
        return ZKD_EXIT_POOL_GONE;
    }
    zkd_base_lease(b);
    int r = zkd_recover(b->pool, 0, b->l, 1, b->cfg->max_attempts, &rec, &d);
    if (zkd_ledger_transient(r))
        zkd_ledger_unwritable("recovery", &d);   /* logged once, not every tick */
    else if (r)
        zkd_log(ZKD_WARN, "recovery: %s", d.msg);
    else if (rec.ledger_changed || rec.reap.filling_freed || rec.reap.claimed_requeued)
        zkd_log(ZKD_INFO, "recovery: freed %u filling slot(s), re-queued %u claimed, "
                "moved %u partition(s)", rec.reap.filling_freed, rec.reap.claimed_requeued,
                rec.ledger_changed);
    uint32_t late = 0;
    /* the ledger's clock: the database's on PostgreSQL, whose deadlines
     * came from other machines' clocks */
    if (!r && zk_ledger_expire_deadlines(b->l, zk_ledger_now_ns(b->l), &late, &d))
        zkd_log(ZKD_WARN, "deadlines: %s", d.msg);
    else if (late)
        zkd_log(ZKD_NOTICE, "%u job(s) failed: deadline exceeded before a partition started",
                late);
    zkd_purge_inputs(b);
    return 0;
}

void zkd_base_close(struct zkd_base *b)
{
    zk_ledger_close(b->l);
    b->l = NULL;
    if (b->pool) {
        /* The last writer to leave makes the semaphores exact (this
         * process's threads are joined, no other is attached): a permit
         * left over by a take without a permit racing a publish
         * (docs/pool.md) would otherwise wait for the next start's resync,
         * and `pool check` on the stopped service would see it
         * (pipeline_test_kill_gpud: "semaphore free = 4 but 3 slots are
         * FREE" after both daemons stopped).  Not attached: a no-op. */
        struct zk_pool_reap_stats st;
        if (zk_pool_reap(b->pool, ZK_POOL_REAP_RESYNC, NULL, NULL, &st) == 0 && st.resynced &&
            (st.free_adjust || st.ready_adjust))
            zkd_log(ZKD_NOTICE, "pool: the semaphores set to the slots' states as the last "
                    "writer left (free %+d, ready %+d)", st.free_adjust, st.ready_adjust);
        zk_pool_detach(b->pool);
        free(b->pool);
        b->pool = NULL;
    }
}
