/*
 * bench_msm.c -- `zkslot bench msm --curve bn254|bls12-381 --log-n N
 * --threads T [--g2] [--repeats K] [--window C] [--method auto|affine|jacobian]
 * [--batch B] [--chunks J] [--no-glv|--glv] [--table F] [--json]`: median wall time of
 * one MSM of 2^N random points (G1, or G2 with --g2) with random scalars below
 * r (with --table F: through a table of F precomputed multiples per point,
 * built once before the timed runs, its build time printed), and the
 * throughput in points per second; also the median process CPU time (all
 * threads), which is steadier than wall time on a loaded machine.  The scratch memory is allocated once,
 * outside the timed region (the prover's steady state).  With --backend cuda
 * (G1 or G2): the median device time (kernels between CUDA events, data on
 * the device) and the wall time with the copies.  The points are made on
 * every core of the machine (a chunk each, untimed): 2^24 BLS12-381 points
 * take minutes on one core, and a GPU run has minutes in all.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "cmd.h"
#include "ec/curves.h"
#include "zk/groth16.h"
#include "zkcuda.h"
#include "zk/error.h"
#include "zk/msm.h"

struct bgroup {
    const char *name;
    size_t asize;                    /* sizeof affine point */
    void (*points)(void *pts, size_t n, uint64_t seed);
    size_t (*ssize)(size_t, unsigned, const struct zk_msm_opts *);
    int (*msm)(const void *pts, const limb_t *k, size_t n, unsigned T, void *scr,
               const struct zk_msm_opts *o);
    size_t (*tsize)(size_t n, unsigned factor);
    int (*tbuild)(struct zk_msm_table *t, const void *pts, size_t n, unsigned factor,
                  unsigned T);
    unsigned rbits;
};

/*
 * Random points: P_0 = [s] G for a random 64-bit s, then P_{i+1} = P_i + Q_i
 * where Q runs through G, 2G, 4G, ... (renewed every 64 steps) -- distinct,
 * unstructured enough for bucket statistics, and cheap to make.
 */
#define BPOINTS(G)                                                             \
    static void G##_b_points(void *out, size_t n, uint64_t st)                \
    {                                                                          \
        G##_affine *pts = out, g;                                              \
        G *jac = malloc(n * sizeof *jac);                                      \
        void *scr = malloc(3 * n * sizeof jac[0].x);                           \
        if (!jac || !scr) {                                                    \
            free(jac);                                                         \
            free(scr);                                                         \
            memset(out, 0, n * sizeof *pts);                                   \
            return;                                                            \
        }                                                                      \
        G acc, q;                                                              \
        limb_t s[1] = { st | 1 };                                              \
        G##_generator(&g);                                                     \
        G##_from_affine(&q, &g);                                               \
        G##_mul(&acc, &q, s, 64);                                              \
        for (size_t i = 0; i < n; i++) {                                       \
            if (i % 64 == 0)                                                   \
                G##_from_affine(&q, &g);                                       \
            jac[i] = acc;                                                      \
            G##_add(&acc, &acc, &q);                                           \
            G##_dbl(&q, &q);                                                   \
            G##_add(&q, &q, &jac[i / 2]);                                      \
        }                                                                      \
        G##_batch_to_affine(pts, jac, n, scr);                                 \
        free(jac);                                                             \
        free(scr);                                                             \
    }                                                                          \
    static int G##_b_msm(const void *p, const limb_t *k, size_t n, unsigned T, \
                         void *scr, const struct zk_msm_opts *o)               \
    {                                                                          \
        G r;                                                                   \
        return G##_msm(&r, p, k, n, T, scr, o);                                \
    }                                                                          \
    static int G##_b_tbuild(struct zk_msm_table *t, const void *p, size_t n,   \
                            unsigned f, unsigned T)                            \
    { return G##_msm_table_build(t, p, n, f, T); }
BPOINTS(bn254_g1)
BPOINTS(bn254_g2)
BPOINTS(bls381_g1)
BPOINTS(bls381_g2)

static const struct bgroup bgroups[4] = {
#define BGROUP(G, rbits)                                                       \
    { #G, sizeof(G##_affine), G##_b_points, G##_msm_scratch_size, G##_b_msm,   \
      G##_msm_table_size, G##_b_tbuild, rbits }
    BGROUP(bn254_g1, 254), BGROUP(bn254_g2, 254), BGROUP(bls381_g1, 255),
    BGROUP(bls381_g2, 255),
#undef BGROUP
};

/* one chunk of the points, made on a thread of its own */
struct bpoints_chunk {
    const struct bgroup *g;
    void *out;
    size_t n;
    uint64_t seed;
};

static void *bpoints_main(void *arg)
{
    struct bpoints_chunk *c = arg;
    c->g->points(c->out, c->n, c->seed);
    return NULL;
}

/* g's points(pts, n, seed) in up to one chunk per online CPU, each from a
 * seed of its own (chunks of at least 4096 points; one chunk without
 * threads if a thread cannot be started). */
static void bpoints_parallel(const struct bgroup *g, void *pts, size_t n, uint64_t seed)
{
    enum { MAXT = 256 };
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = ncpu > 0 ? (size_t)ncpu : 1, done = 0;
    struct bpoints_chunk c[MAXT];
    pthread_t th[MAXT];
    int started[MAXT];
    if (nt > MAXT)
        nt = MAXT;
    while (nt > 1 && n / nt < 4096)
        nt--;
    for (size_t i = 0; i < nt; i++) {
        size_t m = n / nt + (i < n % nt);
        c[i] = (struct bpoints_chunk){ g, (char *)pts + done * g->asize, m,
                                       seed ^ (0x9e3779b97f4a7c15ULL * (i + 1)) };
        done += m;
        started[i] = i > 0 && pthread_create(&th[i], NULL, bpoints_main, &c[i]) == 0;
    }
    bpoints_main(&c[0]);
    for (size_t i = 1; i < nt; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            bpoints_main(&c[i]);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: zkslot bench msm [--curve bn254|bls12-381] [--log-n N] "
                    "[--threads T] [--g2] [--repeats K] [--window C] "
                    "[--method auto|affine|jacobian] [--batch B] [--chunks J] [--no-glv|--glv] "
                    "[--table F] [--json] [--backend cpu|cuda] [--device N]\n");
}

int cmd_bench_msm(int argc, char **argv)
{
    static const struct option opts[] = {
        { "curve", required_argument, NULL, 'c' },
        { "log-n", required_argument, NULL, 'n' },
        { "threads", required_argument, NULL, 't' },
        { "repeats", required_argument, NULL, 'r' },
        { "g2", no_argument, NULL, '2' },
        { "window", required_argument, NULL, 'w' },
        { "method", required_argument, NULL, 'm' },
        { "batch", required_argument, NULL, 'b' },
        { "chunks", required_argument, NULL, 'k' },
        { "no-glv", no_argument, NULL, 'G' },
        { "glv", no_argument, NULL, 'g' },    /* GLV at every n (ZK_MSM_GLV_ON) */
        { "table", required_argument, NULL, 'T' },
        { "json", no_argument, NULL, 'j' },
        { "backend", required_argument, NULL, 'B' },
        { "device", required_argument, NULL, 'D' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int curve = 0, g2 = 0, json = 0, glv = 1, opt, ret = 2, cuda = 0, dev = 0;
    unsigned L = 16, T = 1, K = 5, F = 0;
    struct zk_msm_opts mo = { 0, 0, 0, 0, 0, NULL };
    void *pts = NULL, *scr = NULL;
    struct zk_msm_table *tab = NULL;
    double tbuild = 0;
    limb_t *k = NULL;
    double *t = NULL, *cpu = NULL;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (!strcmp(optarg, "bn254") || !strcmp(optarg, "bn128"))
                curve = 0;
            else if (!strcmp(optarg, "bls12-381") || !strcmp(optarg, "bls12381"))
                curve = 2;
            else {
                usage();
                return 2;
            }
            break;
        case 'n': L = (unsigned)strtoul(optarg, NULL, 10); break;
        case 't': T = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'r': K = (unsigned)strtoul(optarg, NULL, 10); break;
        case '2': g2 = 1; break;
        case 'w': mo.window = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'b': mo.batch = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'k': mo.chunks = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'm':
            if (!strcmp(optarg, "auto"))
                mo.method = ZK_MSM_AUTO;
            else if (!strcmp(optarg, "affine"))
                mo.method = ZK_MSM_AFFINE;
            else if (!strcmp(optarg, "jacobian"))
                mo.method = ZK_MSM_JACOBIAN;
            else {
                usage();
                return 2;
            }
            break;
        case 'G': glv = 0; mo.glv = ZK_MSM_GLV_OFF; break;
        case 'g': glv = 1; mo.glv = ZK_MSM_GLV_ON; break;
        case 'T': F = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'j': json = 1; break;
        case 'B':
            if (bench_backend("msm", optarg, &cuda))
                return 2;
            break;
        case 'D': dev = atoi(optarg); break;
        default: usage(); return 2;
        }
    }
    if (K == 0)
        K = 1;
    if (L > 28) {
        fprintf(stderr, "bench msm: --log-n must be at most 28\n");
        return 2;
    }

    if (F && (F > ZK_MSM_MAX_FACTOR || cuda)) {
        fprintf(stderr, "bench msm: --table must be 1 .. %d, on the CPU backend\n",
                ZK_MSM_MAX_FACTOR);
        return 2;
    }

    const struct bgroup *g = &bgroups[curve + g2];
    size_t n = (size_t)1 << L;
    pts = malloc(n * g->asize);
    k = malloc(n * 4 * sizeof *k);
    t = malloc(K * sizeof *t);
    cpu = malloc(K * sizeof *cpu);
    if (!pts || !k || !t || !cpu) {
        fprintf(stderr, "bench msm: out of memory\n");
        goto out;
    }
    uint64_t st = 0x9e3779b97f4a7c15ULL ^ L;
    for (size_t i = 0; i < 4 * n; i++) {
        st ^= st << 13; st ^= st >> 7; st ^= st << 17;
        k[i] = st;
        if (i % 4 == 3)        /* below 2^(bits(r) - 1) < r */
            k[i] &= ((limb_t)1 << (g->rbits - 1 - 192)) - 1;
    }
    bpoints_parallel(g, pts, n, st);
    if (F) {                       /* the table: built once, untimed in the median */
        size_t tb = g->tsize(n, F);
        double t0 = bench_clock_s(CLOCK_MONOTONIC);
        if (!tb || !(tab = aligned_alloc(64, (tb + 63) & ~(size_t)63)) ||
            g->tbuild(tab, pts, n, F, T)) {
            fprintf(stderr, "bench msm: cannot build a table of factor %u\n", F);
            goto out;
        }
        tbuild = bench_clock_s(CLOCK_MONOTONIC) - t0;
        mo.table = tab;
    }
    size_t ss = g->ssize(n, T, &mo);
    if (ss == 0) {
        fprintf(stderr, "bench msm: bad --window/--method\n");
        goto out;
    }
    if (!(scr = aligned_alloc(64, (ss + 63) & ~(size_t)63))) {
        fprintf(stderr, "bench msm: out of memory\n");
        goto out;
    }
    for (unsigned i = 0; i < K; i++) {
        double t0 = bench_clock_s(CLOCK_MONOTONIC), c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
        int r;
        if (cuda) {
            /* t: device time; cpu: wall time with the copies to the device */
            uint64_t jac[36];
            enum zk_curve c = curve ? ZK_CURVE_BLS12_381 : ZK_CURVE_BN254;
            r = g2 ? zk_cuda_msm_g2(dev, c, jac, pts, (const zk_scalar *)k, n)
                   : zk_cuda_msm_g1(dev, c, jac, pts, (const zk_scalar *)k, n);
            cpu[i] = bench_clock_s(CLOCK_MONOTONIC) - t0;
            t[i] = zk_cuda_last_kernel_seconds();
        } else {
            r = g->msm(pts, k, n, T, scr, &mo);
            t[i] = bench_clock_s(CLOCK_MONOTONIC) - t0;
            cpu[i] = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        }
        if (r) {
            fprintf(stderr, "bench msm: %s\n", zk_cuda_strerror(r));
            goto out;
        }
    }
    double med = bench_median(t, K), cmed = bench_median(cpu, K);
    double pps = med > 0 ? (double)n / med : 0;
    if (json)
        printf("{\"bench\":\"msm\",\"group\":\"%s\",\"log_n\":%u,\"threads\":%u,"
               "\"repeats\":%u,\"window\":%u,\"median_s\":%.6f,\"points_per_s\":%.4g,"
               "\"min_s\":%.6f,\"cpu_median_s\":%.6f,\"glv\":%d,\"table\":%u,"
               "\"table_window\":%u,\"table_build_s\":%.3f,\"backend\":\"%s\"}\n",
               g->name, L, T, K, mo.window, med, pps, t[0], cmed, glv && !F, F,
               tab ? tab->window : 0, tbuild, cuda ? "cuda" : "cpu");
    else if (cuda)
        printf("msm %s 2^%u backend=cuda device=%d repeats=%u: median %.3f ms on the device "
               "(wall with copies median %.3f ms)  %.4g points/s\n", g->name, L, dev, K,
               1e3 * med, 1e3 * cmed, pps);
    else
        printf("msm %s 2^%u threads=%u repeats=%u window=%u%s: median %.3f ms "
               "(min %.3f ms, CPU time median %.3f ms)  %.4g points/s\n", g->name, L,
               T, K, tab ? tab->window : mo.window, !F ? (glv ? "" : " no-glv") : "",
               1e3 * med, 1e3 * t[0], 1e3 * cmed, pps);
    if (tab && !json)
        printf("  table factor=%u window=%u rounds=%u: %.1f MiB, built in %.3f s\n", F,
               tab->window, tab->rounds, (double)g->tsize(n, F) / (1 << 20), tbuild);
    ret = 0;
out:
    free(pts);
    free(k);
    free(scr);
    free(tab);
    free(t);
    free(cpu);
    return ret;
}
