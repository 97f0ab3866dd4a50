/*
 * test_pool_stress.c -- kill -9 torture of the slot pool with real
 * processes.  Several producer and consumer processes hand thousands of
 * items through a small pool while the parent SIGKILLs random children at
 * random moments and starts replacements.
 *
 * Run 1 (reaping on) must show: every published item consumed at least
 * once; duplicates only after consumer kills (at most one per kill); no
 * checksum or content mismatch; every slot FREE after draining; zk_pool_check
 * (and `zkslot pool check`) clean.
 * Run 2 (control, ZK_POOL_NO_REAP everywhere) must detect the loss: stuck
 * slots or unconsumed published items, and check violations.  If the
 * control run did not fail, the test could not fail either: that is an
 * error of the test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zk/error.h"
#include "zk/pool.h"
#include "zktest.h"

#define NPROD 3
#define NCONS 3
#define NSLOTS 4
#define MAX_ITEMS 4000
#define REGION_GAP (256u << 10)

#define MIN_KILLS 60                 /* items are released in step with the kills */

struct ledger {                      /* shared by every process (MAP_SHARED) */
    uint64_t next_item;
    uint64_t limit;                  /* producers take items below this only */
    zk_cancel_flag stop;
    uint64_t checksum_fail, content_fail, other_fail;
    uint32_t published[MAX_ITEMS];
    uint32_t consumed[MAX_ITEMS];
};

static struct ledger *L;
static char path[256];
static unsigned nitems;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* The deterministic content of item `it`: up to 3 regions of 1..48 KiB. */
static unsigned item_regions(uint64_t it, uint64_t *bytes)
{
    uint64_t h = mix(it + 1);
    unsigned n = 1 + (unsigned)(h % 3);
    for (unsigned r = 0; r < n; r++)
        bytes[r] = 1 + (mix(h + r) % (48u << 10));
    return n;
}

static void item_fill(unsigned char *p, uint64_t n, uint64_t it, unsigned r)
{
    uint64_t s = mix(it * 8 + r + 12345);
    for (uint64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        p[i] = (unsigned char)(s >> 56);
    }
}

static int item_matches(const unsigned char *p, uint64_t n, uint64_t it, unsigned r)
{
    uint64_t s = mix(it * 8 + r + 12345);
    for (uint64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        if (p[i] != (unsigned char)(s >> 56))
            return 0;
    }
    return 1;
}

static void pause_us(uint64_t r, unsigned max_us)
{
    unsigned us = (unsigned)(r % max_us);
    if (us > max_us / 2)
        usleep(us);
}

static zk_pool *child_attach(unsigned flags, const char *name)
{
    struct zk_pool_attach_opts o = { .name = name, .flags = flags, .tick_ms = 5 };
    zk_pool *h = malloc(zk_pool_sizeof());
    if (!h || zk_pool_attach(h, path, &o) < 0)
        _exit(2);
    return h;
}

static void producer(unsigned flags, uint64_t seed)
{
    zk_pool *h = child_attach(flags, "producer");
    for (;;) {
        uint64_t next = __atomic_load_n(&L->next_item, __ATOMIC_RELAXED);
        if (next >= nitems)
            _exit(0);
        if (next >= __atomic_load_n(&L->limit, __ATOMIC_RELAXED)) {
            usleep(500);     /* wait for the parent's next kill to release more */
            continue;
        }
        uint64_t it = __atomic_fetch_add(&L->next_item, 1, __ATOMIC_RELAXED);
        if (it >= nitems)
            _exit(0);
        struct zk_slot s;
        int r;
        do
            r = zk_pool_acquire(h, it, 1, 50, &L->stop, &s);
        while (r == ZK_ETIMEOUT);
        if (r == ZK_ECANCELED)
            _exit(0);
        if (r < 0) {
            __atomic_fetch_add(&L->other_fail, 1, __ATOMIC_RELAXED);
            _exit(1);
        }
        struct zk_slot_desc d = { 0 };
        uint64_t bytes[3];
        d.nregions = item_regions(it, bytes);
        for (unsigned k = 0; k < d.nregions; k++) {
            d.region_off[k] = k * REGION_GAP;
            d.region_bytes[k] = bytes[k];
            item_fill(s.data + d.region_off[k], bytes[k], it, k);
        }
        pause_us(mix(seed ^ it), 400);         /* "synthesis" while FILLING */
        if (zk_pool_publish(h, &s, &d) < 0) {
            __atomic_fetch_add(&L->other_fail, 1, __ATOMIC_RELAXED);
            _exit(1);
        }
        __atomic_store_n(&L->published[it], 1, __ATOMIC_RELAXED);
    }
}

static void consumer(unsigned flags, uint64_t seed)
{
    zk_pool *h = child_attach(flags, "consumer");
    for (uint64_t n = 0;; n++) {
        struct zk_slot s;
        int r = zk_pool_claim(h, ZK_POOL_ANY_NODE, 0, -1, &L->stop, &s);
        if (r == ZK_ECANCELED)
            _exit(0);
        if (r == ZK_ECHECKSUM) {
            __atomic_fetch_add(&L->checksum_fail, 1, __ATOMIC_RELAXED);
            zk_pool_release(h, &s);
            continue;
        }
        if (r < 0) {
            __atomic_fetch_add(&L->other_fail, 1, __ATOMIC_RELAXED);
            _exit(1);
        }
        uint64_t it = s.partition_id, bytes[3];
        unsigned nr = it < nitems ? item_regions(it, bytes) : 0;
        int ok = nr == s.nregions;
        for (unsigned k = 0; ok && k < nr; k++)
            ok = s.region_bytes[k] == bytes[k] &&
                 item_matches(s.data + s.region_off[k], bytes[k], it, k);
        if (!ok)
            __atomic_fetch_add(&L->content_fail, 1, __ATOMIC_RELAXED);
        pause_us(mix(seed ^ n), 400);          /* "proving" while CLAIMED */
        if (ok)
            __atomic_fetch_add(&L->consumed[it], 1, __ATOMIC_RELAXED);
        pause_us(mix(seed ^ ~n), 200);         /* still CLAIMED after recording */
        if (zk_pool_release(h, &s) < 0) {
            __atomic_fetch_add(&L->other_fail, 1, __ATOMIC_RELAXED);
            _exit(1);
        }
    }
}

static pid_t spawn(int is_producer, unsigned flags)
{
    uint64_t seed = zt_rand64();
    pid_t pid = fork();
    if (pid == 0) {
        if (is_producer)
            producer(flags, seed);
        consumer(flags, seed);
    }
    ZT_CHECK(pid > 0, "fork");
    return pid;
}

static int count_state(zk_pool *h, int state)
{
    struct zk_pool_info in;
    zk_pool_info(h, &in);
    return (int)in.count[state];
}

static void print_violation(void *ctx, const char *msg)
{
    int *quiet = ctx;
    if (!*quiet)
        printf("  violation: %s\n", msg);
}

struct outcome {
    unsigned kills, prod_kills, cons_kills, handoffs, dups, lost, unpublished;
    unsigned stuck, violations, cli_rc;
};

/* One torture run.  max_kills bounds the control run. */
static struct outcome run(unsigned flags, unsigned max_kills)
{
    struct outcome o = { 0 };
    struct zk_pool_params p = { .nslots = NSLOTS, .slot_size = 1 << 20, .flags = ZK_POOL_CREATE_TMPFS };
    memset(L, 0, sizeof *L);
    /* reaping run: at least MIN_KILLS kills however fast the machine is */
    L->limit = flags & ZK_POOL_NO_REAP ? nitems : nitems / MIN_KILLS;
    ZT_CHECK(zk_pool_create(path, &p, NULL) == 0);
    zk_pool *h = malloc(zk_pool_sizeof());
    struct zk_pool_attach_opts ao = { .name = "parent", .flags = flags, .tick_ms = 5 };
    ZT_CHECK(zk_pool_attach(h, path, &ao) == 0);
    pid_t prod[NPROD], cons[NCONS];
    for (int i = 0; i < NPROD; i++)
        prod[i] = spawn(1, flags);
    for (int i = 0; i < NCONS; i++)
        cons[i] = spawn(0, flags);
    int prod_live = NPROD;
    struct timespec t0, now, last;
    uint64_t last_next = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    last = t0;
    /* kill while items remain, then let producers finish */
    while (prod_live > 0) {
        usleep(5000 + (useconds_t)(zt_rand64() % 25000));
        for (int i = 0; i < NPROD; i++) {   /* producers that ran out of items */
            int st;
            if (prod[i] > 0 && waitpid(prod[i], &st, WNOHANG) == prod[i]) {
                ZT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "producer failed");
                prod[i] = 0;
                prod_live--;
            }
        }
        /* no item taken for a while: the pool is wedged (expected only
         * in the control run; the reaping run then fails its checks) */
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t nx = __atomic_load_n(&L->next_item, __ATOMIC_RELAXED);
        if (nx != last_next) {
            last_next = nx;
            last = now;
        } else if (now.tv_sec - last.tv_sec > (flags & ZK_POOL_NO_REAP ? 1 : 20)) {
            printf("  producers stalled after %u kills (pool wedged)\n", o.kills);
            break;
        }
        if (o.kills >= max_kills || __atomic_load_n(&L->next_item, __ATOMIC_RELAXED) >= nitems)
            continue;
        unsigned v = (unsigned)(zt_rand64() % (NPROD + NCONS));
        pid_t *slot = v < NPROD ? &prod[v] : &cons[v - NPROD];
        if (*slot <= 0)
            continue;
        kill(*slot, SIGKILL);
        waitpid(*slot, NULL, 0);
        o.kills++;
        uint64_t lim = (uint64_t)(o.kills + 1) * nitems / MIN_KILLS;
        __atomic_store_n(&L->limit, lim < nitems ? lim : nitems, __ATOMIC_RELAXED);
        if (v < NPROD) {
            o.prod_kills++;
            *slot = spawn(1, flags);
        } else {
            o.cons_kills++;
            *slot = spawn(0, flags);
        }
    }
    /* drain: consumers empty the pool; reaping (if on) recovers the rest */
    for (int i = 0; i < 400; i++) {
        if (!(flags & ZK_POOL_NO_REAP))
            zk_pool_reap(h, 0, NULL, NULL, NULL);
        if (count_state(h, ZK_SLOT_FREE) == NSLOTS)
            break;
        usleep(flags & ZK_POOL_NO_REAP ? 5000 : 25000);
    }
    atomic_store(&L->stop, 1);
    for (int i = 0; i < NPROD; i++) {
        if (prod[i] > 0) {
            kill(prod[i], SIGKILL);   /* only a stalled (control) run gets here */
            waitpid(prod[i], NULL, 0);
        }
    }
    for (int i = 0; i < NCONS; i++) {
        int st;
        waitpid(cons[i], &st, 0);
        ZT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "consumer failed");
    }
    if (!(flags & ZK_POOL_NO_REAP)) {
        struct zk_pool_reap_stats rs;
        ZT_CHECK(zk_pool_reap(h, ZK_POOL_REAP_RESYNC, NULL, NULL, &rs) == 0 && rs.resynced);
        printf("  final reap: semaphores adjusted free %+d ready %+d\n", rs.free_adjust,
               rs.ready_adjust);
    }
    o.stuck = NSLOTS - (unsigned)count_state(h, ZK_SLOT_FREE);
    for (unsigned it = 0; it < nitems; it++) {
        o.handoffs += L->consumed[it];
        o.dups += L->consumed[it] > 1 ? L->consumed[it] - 1 : 0;
        o.lost += L->published[it] && !L->consumed[it];
        o.unpublished += it < L->next_item && !L->published[it] && !L->consumed[it];
    }
    int quiet = (flags & ZK_POOL_NO_REAP) != 0;
    zk_pool_detach(h);
    free(h);
    h = malloc(zk_pool_sizeof());
    struct zk_pool_attach_opts obs = { .flags = ZK_POOL_OBSERVER };
    ZT_CHECK(zk_pool_attach(h, path, &obs) == 0);
    o.violations = (unsigned)zk_pool_check(h, print_violation, &quiet);
    zk_pool_detach(h);
    free(h);
    const char *z = getenv("ZKSLOT");
    if (z && !access(z, X_OK)) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s pool check --pool %s >/dev/null", z, path);
        o.cli_rc = (unsigned)WEXITSTATUS(system(cmd));
    }
    ZT_CHECK(zk_pool_destroy(path, 1, NULL) == 0);
    clock_gettime(CLOCK_MONOTONIC, &now);
    printf("  %.1f s, %s: %u kills (%u producers, %u consumers), %u handoffs, %u duplicates,"
           " %u published-but-lost, %u never published (producer killed), %u stuck slots,"
           " %u violations, pool check rc %u, checksum failures %llu, content failures %llu\n",
           (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9,
           flags & ZK_POOL_NO_REAP ? "control (no reaping)" : "reaping", o.kills, o.prod_kills,
           o.cons_kills, o.handoffs, o.dups, o.lost, o.unpublished, o.stuck, o.violations,
           o.cli_rc, (unsigned long long)L->checksum_fail, (unsigned long long)L->content_fail);
    fflush(stdout);
    return o;
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    nitems = MAX_ITEMS;
    snprintf(path, sizeof path, "/dev/shm/zkslot-stress-%d.pool", (int)getpid());
    unlink(path);
    L = mmap(NULL, sizeof *L, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ZT_REQUIRE(L != MAP_FAILED, 1);

    struct outcome a = run(0, UINT32_MAX);
    ZT_CHECK(a.kills >= MIN_KILLS - 1, "too few kills to mean anything: %u", a.kills);
    ZT_CHECK(a.handoffs >= nitems / 2, "handoffs %u", a.handoffs);
    ZT_CHECK(a.lost == 0, "%u published items never consumed", a.lost);
    ZT_CHECK(a.dups <= a.cons_kills, "%u duplicates for %u consumer kills", a.dups, a.cons_kills);
    ZT_CHECK(a.unpublished <= a.prod_kills, "%u items vanished for %u producer kills",
             a.unpublished, a.prod_kills);
    ZT_CHECK(a.stuck == 0, "%u slots stuck", a.stuck);
    ZT_CHECK(L->checksum_fail == 0 && L->content_fail == 0 && L->other_fail == 0);
    ZT_CHECK(a.violations == 0 && a.cli_rc == 0, "check not clean");

    struct outcome c = run(ZK_POOL_NO_REAP, 40);
    int detected = c.stuck > 0 || c.lost > 0;
    ZT_CHECK(detected, "control run without reaping did not lose anything: the test is blind");
    ZT_CHECK(c.violations > 0, "control run: check found nothing");
    if (getenv("ZKSLOT"))
        ZT_CHECK(c.cli_rc == 1, "control run: zkslot pool check rc %u", c.cli_rc);
    printf("  control run %s the loss (stuck %u, lost %u)\n", detected ? "detected" : "MISSED",
           c.stuck, c.lost);
    munmap(L, sizeof *L);
    return zt_finish();
}
