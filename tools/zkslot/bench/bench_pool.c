/*
 * bench_pool.c -- `zkslot bench pool`: what the pool costs.
 *
 *  - handoff latency: publish -> claim returning in another process that
 *    sleeps in sem_clockwait (no polling); median and p99 over --iters.
 *  - fill bandwidth: the streaming writer (copy + XXH3 of each chunk) into
 *    a slot, against a plain memcpy of the same size into ordinary memory,
 *    in the same run, medians of --repeats.  Also memcpy into the slot
 *    alone and memcpy + checksum at publish, for reference.
 *
 * Bars (issue 4): median handoff < 100 us; fill >= 80% of memcpy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "zk/error.h"
#include "zk/pool.h"

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, cmp_u64);
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

/* Consumer process: claim, record the latency, release; until `stop`. */
static void consumer(const char *path, uint64_t *lat, unsigned iters, zk_cancel_flag *stop)
{
    struct zk_pool_attach_opts o = { .name = "bench-consumer" };
    zk_pool *h = malloc(zk_pool_sizeof());
    if (!h || zk_pool_attach(h, path, &o) < 0)
        _exit(2);
    for (unsigned i = 0; i < iters; i++) {
        struct zk_slot s;
        int r = zk_pool_claim(h, ZK_POOL_ANY_NODE, 0, -1, stop, &s);
        uint64_t t1 = mono_ns();
        if (r < 0)
            _exit(r == ZK_ECANCELED ? 0 : 3);
        uint64_t t0;
        memcpy(&t0, s.data, sizeof t0);
        lat[i] = t1 - t0;
        zk_pool_release(h, &s);
    }
    zk_pool_detach(h);
    _exit(0);
}

/* Handoff latencies into lat[0..iters) (shared memory); 0 or an error. */
static int bench_handoff(zk_pool *h, const char *path, unsigned iters, uint64_t *lat)
{
    zk_cancel_flag *stop = mmap(NULL, sizeof *stop, PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int r = 0, st;
    if (stop == MAP_FAILED)
        return -errno;
    atomic_store(stop, 0);
    pid_t pid = fork();
    if (pid < 0) {
        munmap(stop, sizeof *stop);
        return -errno;
    }
    if (pid == 0)
        consumer(path, lat, iters, stop);
    for (unsigned i = 0; i < iters && !r; i++) {
        struct zk_slot s;
        struct zk_slot_desc d = { .nregions = 1, .region_bytes = { 64 } };
        if ((r = zk_pool_acquire(h, i, 0, 5000, NULL, &s)) < 0)
            break;
        usleep(300);                       /* let the consumer fall asleep */
        uint64_t t0 = mono_ns();
        memcpy(s.data, &t0, sizeof t0);
        r = zk_pool_publish(h, &s, &d);
    }
    /* wait for the consumer to finish the last one */
    if (r < 0)
        atomic_store(stop, 1);
    waitpid(pid, &st, 0);
    if (!r && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        r = -ECHILD;
    munmap(stop, sizeof *stop);
    return r;
}

struct fill_result { double memcpy_gbs, fill_gbs, slot_memcpy_gbs, publish_hash_gbs, release_ms; };

static double gbs(uint64_t bytes, uint64_t ns)
{
    return ns ? (double)bytes / (double)ns : 0;
}

/* Fill bandwidths, medians of `repeats` (plus one warm-up). */
static int bench_fill(zk_pool *h, uint64_t size, unsigned repeats, struct fill_result *res)
{
    struct zk_slot s;
    struct zk_pool_writer w;
    uint64_t t[4][64];
    int r = zk_pool_acquire(h, 0, 0, 5000, NULL, &s);
    if (r < 0)
        return r;
    if (size > s.capacity)
        size = s.capacity;
    unsigned char *src = malloc(size), *dst = malloc(size);
    if (!src || !dst) {
        r = -ENOMEM;
        goto out;
    }
    for (uint64_t i = 0; i < size; i++)
        src[i] = (unsigned char)(i * 131 + (i >> 13));
    memset(dst, 1, size);
    memset(s.data, 1, size);
    if (repeats > 63)
        repeats = 63;
    for (unsigned k = 0; k <= repeats; k++) {
        uint64_t t0 = mono_ns();
        memcpy(dst, src, size);
        uint64_t t1 = mono_ns();
        zk_pool_writer_init(&w, &s);
        zk_pool_writer_region(&w, 0);
        zk_pool_writer_put(&w, src, size);
        zk_pool_writer_finish(&w);
        uint64_t t2 = mono_ns();
        memcpy(s.data, src, size);
        uint64_t t3 = mono_ns();
        struct zk_slot_desc d = { .nregions = 1, .region_bytes = { size } };
        struct zk_slot v = s;
        v.nregions = 1;
        v.region_bytes[0] = size;
        v.checksum = 0;
        zk_pool_verify(h, &v);              /* the hash publish would compute */
        uint64_t t4 = mono_ns();
        (void)d;
        if (k == 0)
            continue;                       /* warm-up */
        t[0][k - 1] = t1 - t0;
        t[1][k - 1] = t2 - t1;
        t[2][k - 1] = t3 - t2;
        t[3][k - 1] = (t3 - t2) + (t4 - t3);
    }
    res->memcpy_gbs = gbs(size, pct(t[0], repeats, 0.5));
    res->fill_gbs = gbs(size, pct(t[1], repeats, 0.5));
    res->slot_memcpy_gbs = gbs(size, pct(t[2], repeats, 0.5));
    res->publish_hash_gbs = gbs(size, pct(t[3], repeats, 0.5));
out:
    free(src);
    free(dst);
    zk_pool_abandon(h, &s);
    return r;
}

/* Release of a published, claimed slot of `size` bytes of data (the
 * scrub): median ms of `repeats`. */
static int bench_release(zk_pool *h, uint64_t size, unsigned repeats, struct fill_result *res)
{
    uint64_t t[64];
    int r = 0;
    if (repeats > 64)
        repeats = 64;
    for (unsigned k = 0; k < repeats && !r; k++) {
        struct zk_slot s, c;
        if ((r = zk_pool_acquire(h, k, 0, 5000, NULL, &s)) < 0)
            break;
        uint64_t n = size < s.capacity ? size : s.capacity;
        memset(s.data, 1, n);
        struct zk_slot_desc d = { .nregions = 1, .region_bytes = { n } };
        if ((r = zk_pool_publish(h, &s, &d)) < 0 ||
            (r = zk_pool_claim(h, ZK_POOL_ANY_NODE, ZK_POOL_CLAIM_NOVERIFY, 5000, NULL, &c)) < 0)
            break;
        uint64_t t0 = mono_ns();
        r = zk_pool_release(h, &c);
        t[k] = mono_ns() - t0;
    }
    res->release_ms = r < 0 ? 0 : (double)pct(t, repeats, 0.5) / 1e6;
    return r < 0 ? r : 0;
}

int cmd_bench_pool(int argc, char **argv)
{
    static const struct option opts[] = {
        { "iters", required_argument, 0, 'i' }, { "size", required_argument, 0, 's' },
        { "repeats", required_argument, 0, 'r' }, { "path", required_argument, 0, 'd' },
        { "json", no_argument, 0, 'j' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 }
    };
    unsigned iters = 2000, repeats = 9;
    uint64_t size = 256u << 20;
    const char *dir = NULL;
    int json = 0, c, r;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'i': iters = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'r': repeats = (unsigned)strtoul(optarg, NULL, 10); break;
        case 's':
            if (zk_pool_parse_size(optarg, &size) < 0 || !size) {
                fprintf(stderr, "zkslot bench pool: bad --size '%s'\n", optarg);
                return 2;
            }
            break;
        case 'd': dir = optarg; break;
        case 'j': json = 1; break;
        default:
            fprintf(c == 'h' ? stdout : stderr, "usage: zkslot bench pool [--iters N] [--size "
                    "SIZE] [--repeats R] [--path DIR] [--json]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (!iters || !repeats)
        return 2;
    char path[128];
    snprintf(path, sizeof path, "/dev/shm/zkslot-bench-%d.pool", (int)getpid());
    struct zk_pool_params p = { .nslots = 2, .slot_size = size, .dir = dir,
                                .flags = dir ? 0 : ZK_POOL_CREATE_TMPFS };
    struct zk_pool_create_result cr;
    if ((r = zk_pool_create(path, &p, &cr)) < 0) {
        fprintf(stderr, "zkslot bench pool: create %s: %s\n", path, zk_strerror(r));
        return 2;
    }
    zk_pool *h = malloc(zk_pool_sizeof());
    uint64_t *lat = mmap(NULL, iters * sizeof *lat, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    struct fill_result fr = { 0 };
    if (!h || lat == MAP_FAILED || (r = zk_pool_attach(h, path, NULL)) < 0) {
        fprintf(stderr, "zkslot bench pool: attach failed\n");
        zk_pool_destroy(path, 1, NULL);
        return 2;
    }
    r = bench_handoff(h, path, iters, lat);
    if (!r)
        r = bench_fill(h, size, repeats, &fr);
    if (!r)
        r = bench_release(h, size, repeats, &fr);
    zk_pool_detach(h);
    free(h);
    zk_pool_destroy(path, 1, NULL);
    if (r < 0) {
        fprintf(stderr, "zkslot bench pool: %s\n", zk_strerror(r));
        return 2;
    }
    double med = (double)pct(lat, iters, 0.5) / 1e3, p99 = (double)pct(lat, iters, 0.99) / 1e3;
    double ratio = fr.memcpy_gbs > 0 ? fr.fill_gbs / fr.memcpy_gbs : 0;
    const char *backing = cr.backing == ZK_POOL_BACKING_HUGETLBFS ? "hugetlbfs" : "tmpfs";
    if (json) {
        json_t *o = json_pack("{s:s, s:i, s:f, s:f, s:I, s:i, s:f, s:f, s:f, s:f, s:f, s:b, s:b, s:f}",
                              "backing", backing, "handoff_iters", (int)iters,
                              "handoff_median_us", med, "handoff_p99_us", p99,
                              "fill_bytes", (json_int_t)size, "fill_repeats", (int)repeats,
                              "memcpy_gbs", fr.memcpy_gbs, "fill_gbs", fr.fill_gbs,
                              "slot_memcpy_gbs", fr.slot_memcpy_gbs,
                              "memcpy_then_hash_gbs", fr.publish_hash_gbs,
                              "fill_over_memcpy", ratio, "handoff_bar_met", med < 100.0,
                              "fill_bar_met", ratio >= 0.8, "release_ms", fr.release_ms);
        json_dumpf(o, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(o);
    } else {
        printf("pool bench (%s, slot data %llu MiB)\n", backing, (unsigned long long)(size >> 20));
        printf("  handoff publish->claim, consumer asleep on the semaphore, %u iters:\n"
               "    median %.1f us, p99 %.1f us   (bar: median < 100 us: %s)\n",
               iters, med, p99, med < 100.0 ? "met" : "NOT met");
        printf("  fill %llu MiB, median of %u:\n", (unsigned long long)(size >> 20), repeats);
        printf("    memcpy into plain memory      %6.2f GB/s  (baseline)\n", fr.memcpy_gbs);
        printf("    writer into slot (copy+XXH3)  %6.2f GB/s  = %.0f%% of memcpy (bar >= 80%%: %s)\n",
               fr.fill_gbs, 100 * ratio, ratio >= 0.8 ? "met" : "NOT met");
        printf("    memcpy into slot, no checksum %6.2f GB/s\n", fr.slot_memcpy_gbs);
        printf("    memcpy then XXH3 at publish   %6.2f GB/s\n", fr.publish_hash_gbs);
        printf("  release (zeroes the slot's %llu MiB), median of %u: %.2f ms = %.2f GB/s\n",
               (unsigned long long)(size >> 20), repeats, fr.release_ms,
               fr.release_ms > 0 ? (double)size / fr.release_ms / 1e6 : 0);
    }
    munmap(lat, iters * sizeof *lat);
    return 0;
}
