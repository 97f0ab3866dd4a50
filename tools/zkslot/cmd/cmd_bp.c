/*
 * cmd_bp.c -- `zkslot bp`: Filecoin's (bellperson's) Groth16 keys, proving
 * assignments and 192-byte proofs, outside the pool (docs/bellperson.md):
 *   zkslot bp inspect FILE          a .params, .vk or .bpa: its kind, counts,
 *                                   domain (the file checked on the way)
 *   zkslot bp prove KEY.params ASSIGN.bpa PROOF [--r HEX --s HEX] [--threads T]
 *                                   PROOF gets the 192 bytes; r and s are
 *                                   32-byte little-endian hex (random when
 *                                   not given)
 *   zkslot bp verify VK ASSIGN.bpa PROOF
 *                                   VK a .vk or .params; the public inputs are
 *                                   the assignment's; OK exit 0, INVALID exit 1
 *   zkslot bp bench KEY.params ASSIGN.bpa [--runs N] [--threads T]
 *                                   the key's open, then N proofs: each time,
 *                                   the median and the peak RSS
 * prove and bench take --backend cuda [--device N]: the NTTs and MSMs on
 * that GPU (zk_cuda_bp_prove), the same bytes.
 * Exit 2 with one line naming the file and the problem on bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>

#include "bellperson/bp_internal.h"
#include "cmd.h"
#include "zk/bellperson.h"
#include "zkcuda.h"
#include "zk/error.h"

#define BP_USAGE                                                                          \
    "usage: zkslot bp inspect FILE.params|FILE.vk|FILE.bpa\n"                             \
    "       zkslot bp prove KEY.params ASSIGN.bpa PROOF [--r HEX] [--s HEX] [--threads T]\n" \
    "                       [--backend cpu|cuda] [--device N]\n"                     \
    "       zkslot bp verify KEY.vk|KEY.params ASSIGN.bpa PROOF\n"                        \
    "       zkslot bp bench KEY.params ASSIGN.bpa [--runs N] [--threads T] [--backend cpu|cuda]\n" \
    "                       [--device N]\n"

static int bp_usage(void)
{
    fputs(BP_USAGE, stderr);
    return 2;
}

static int bp_fail(const char *sub, const struct zk_diag *d)
{
    fprintf(stderr, "zkslot bp %s: %s\n", sub, d->msg);
    return 2;
}

static double bp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long bp_peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmHWM: %ld", &v) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return v;
}

static int bp_inspect(const char *path)
{
    struct zk_diag d = { { 0 } };
    void *m;
    size_t len;
    int rc = zk_bp_map_file(path, &m, &len, &d);

    if (rc != 0)
        return bp_fail("inspect", &d);
    if (len >= 8 && memcmp(m, ZK_BPA_MAGIC, 8) == 0) {
        zk_bp_assignment *as;
        munmap(m, len);
        if (zk_bp_assignment_open(path, &as, &d) != 0)
            return bp_fail("inspect", &d);
        printf("file:         %s\nkind:         bellperson assignment (.bpa)\n", path);
        printf("inputs:       %llu (ONE included)\naux:          %llu\n",
               (unsigned long long)as->n_inputs, (unsigned long long)as->n_aux);
        printf("constraints:  %llu (domain 2^%u)\n", (unsigned long long)as->n_constraints,
               zk_bp_log2_domain(as->n_constraints));
        printf("density:      a_aux %llu, b_input %llu, b_aux %llu\n",
               (unsigned long long)as->pop_a_aux, (unsigned long long)as->pop_b_input,
               (unsigned long long)as->pop_b_aux);
        zk_bp_assignment_free(as);
        return 0;
    }
    {
        struct zk_bp_vk vk;
        size_t used;
        rc = zk_bp_vk_parse(m, len, path, &vk, &used, &d);
        if (m != NULL)
            munmap(m, len);
        if (rc != 0)
            return bp_fail("inspect", &d);
        if (used == len) {
            printf("file:         %s\nkind:         bellperson verifying key (.vk)\n", path);
            printf("curve:        bls12-381\nic:           %u (public inputs %u)\n", vk.n_ic,
                   vk.n_ic - 1);
            zk_bp_vk_release(&vk);
            return 0;
        }
        zk_bp_vk_release(&vk);
    }
    {
        zk_bp_key *k;
        struct zk_bp_key_info in;
        if (zk_bp_key_open(path, &k, &d) != 0)
            return bp_fail("inspect", &d);
        zk_bp_key_get_info(k, &in);
        printf("file:         %s\nkind:         bellperson parameters (.params)\n", path);
        printf("curve:        bls12-381\nsize:         %llu bytes\n",
               (unsigned long long)in.file_bytes);
        printf("ic:           %u (public inputs %u)\n", in.n_ic, in.n_ic - 1);
        printf("h:            %u\nl:            %u (aux)\na:            %u\n", in.n_h, in.n_l,
               in.n_a);
        printf("b_g1, b_g2:   %u, %u\ndomain:       2^%u\n", in.n_b_g1, in.n_b_g2,
               in.log2_domain);
        zk_bp_key_close(k);
        return 0;
    }
}

struct bp_opts {
    uint8_t r[32], s[32];
    int have_r, have_s, cuda, device;
    unsigned threads, runs;
};

/* The prover the options chose: the CPU's, or the device's NTTs and MSMs. */
static int bp_run(const struct bp_opts *o, const zk_bp_key *k, const zk_bp_assignment *as,
                  uint8_t proof[ZK_BP_PROOF_BYTES], struct zk_diag *d)
{
    if (o->cuda)
        return zk_cuda_bp_prove(o->device, k, as, o->r, o->s, o->threads, proof, d);
    return zk_bp_prove(k, as, o->r, o->s, o->threads, proof, d);
}

static int bp_parse_opts(int argc, char **argv, int first, struct bp_opts *o)
{
    const char *bad = "";
    memset(o, 0, sizeof *o);
    o->runs = 5;
    for (int i = first; i < argc; i += 2) {       /* --option value */
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bad = argv[i];
        if (v == NULL)
            goto bad;
        if (strcmp(argv[i], "--r") == 0 && zk_bp_hex32(v, o->r) == 0)
            o->have_r = 1;
        else if (strcmp(argv[i], "--s") == 0 && zk_bp_hex32(v, o->s) == 0)
            o->have_s = 1;
        else if (strcmp(argv[i], "--threads") == 0 && atoi(v) >= 0)
            o->threads = (unsigned)atoi(v);
        else if (strcmp(argv[i], "--runs") == 0 && atoi(v) > 0)
            o->runs = (unsigned)atoi(v);
        else if (strcmp(argv[i], "--backend") == 0 && (!strcmp(v, "cpu") || !strcmp(v, "cuda")))
            o->cuda = strcmp(v, "cuda") == 0;
        else if (strcmp(argv[i], "--device") == 0 && atoi(v) >= 0)
            o->device = atoi(v);
        else
            goto bad;
    }
    return 0;
bad:
    fprintf(stderr, "zkslot bp %s: bad option or value: %s (--r and --s take 64 hex digits)\n",
            argv[0], bad);
    return 2;
}

static int bp_prove_cmd(int argc, char **argv)
{
    struct zk_diag d = { { 0 } };
    struct bp_opts o;
    zk_bp_key *k = NULL;
    zk_bp_assignment *as = NULL;
    uint8_t proof[ZK_BP_PROOF_BYTES];
    FILE *f;
    int ret = 2;

    if (argc < 4)
        return bp_usage();
    if (bp_parse_opts(argc, argv, 4, &o) != 0)
        return 2;
    if ((!o.have_r && zk_bp_random_fr(o.r) != 0) || (!o.have_s && zk_bp_random_fr(o.s) != 0)) {
        fprintf(stderr, "zkslot bp prove: getrandom: %s\n", strerror(errno));
        return 2;
    }
    if (zk_bp_key_open(argv[1], &k, &d) != 0 || zk_bp_assignment_open(argv[2], &as, &d) != 0) {
        ret = bp_fail("prove", &d);
        goto out;
    }
    if (bp_run(&o, k, as, proof, &d) != 0) {
        fprintf(stderr, "zkslot bp prove: %s against %s: %s\n", argv[2], argv[1],
                d.msg + (strncmp(d.msg, "prove: ", 7) == 0 ? 7 : 0));
        goto out;
    }
    if ((f = fopen(argv[3], "wb")) == NULL || fwrite(proof, 1, sizeof proof, f) != sizeof proof ||
        fclose(f) != 0) {
        fprintf(stderr, "zkslot bp prove: %s: %s\n", argv[3], strerror(errno));
        goto out;
    }
    ret = 0;
out:
    zk_bp_assignment_free(as);
    zk_bp_key_close(k);
    return ret;
}

static int bp_verify_cmd(int argc, char **argv)
{
    struct zk_diag d = { { 0 } };
    struct zk_bp_vk vk = { 0 };
    zk_bp_assignment *as = NULL;
    uint8_t proof[ZK_BP_PROOF_BYTES + 1];
    size_t len, used, n;
    void *m;
    FILE *f;
    int rc, ret = 2;

    if (argc != 4)
        return bp_usage();
    if (zk_bp_map_file(argv[1], &m, &len, &d) != 0)
        return bp_fail("verify", &d);
    rc = zk_bp_vk_parse(m, len, argv[1], &vk, &used, &d);
    if (m != NULL)
        munmap(m, len);
    if (rc != 0)
        return bp_fail("verify", &d);
    if (zk_bp_assignment_open(argv[2], &as, &d) != 0) {
        ret = bp_fail("verify", &d);
        goto out;
    }
    if ((f = fopen(argv[3], "rb")) == NULL) {
        fprintf(stderr, "zkslot bp verify: %s: %s\n", argv[3], strerror(errno));
        goto out;
    }
    n = fread(proof, 1, sizeof proof, f);
    fclose(f);
    if (n != ZK_BP_PROOF_BYTES) {
        fprintf(stderr, "zkslot bp verify: %s: %zu bytes, a proof is %d\n", argv[3], n,
                ZK_BP_PROOF_BYTES);
        goto out;
    }
    rc = zk_bp_verify(&vk, (const uint8_t *)(as->input + 1), as->n_inputs - 1, proof, &d);
    if (rc < 0) {
        ret = bp_fail("verify", &d);
        goto out;
    }
    printf("%s\n", rc ? "OK" : "INVALID");
    ret = rc ? 0 : 1;
out:
    zk_bp_assignment_free(as);
    zk_bp_vk_release(&vk);
    return ret;
}

static int bp_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int bp_bench_cmd(int argc, char **argv)
{
    struct zk_diag d = { { 0 } };
    struct bp_opts o;
    zk_bp_key *k = NULL;
    zk_bp_assignment *as = NULL;
    uint8_t proof[ZK_BP_PROOF_BYTES];
    double t0, topen, *v;
    int ret = 2;

    if (argc < 3)
        return bp_usage();
    if (bp_parse_opts(argc, argv, 3, &o) != 0)
        return 2;
    memset(o.r, 0, 32);
    memset(o.s, 0, 32);
    o.r[0] = 0x78, o.r[1] = 0x56, o.r[2] = 0x34, o.r[3] = 0x12;
    o.s[0] = 0xf0, o.s[1] = 0xde, o.s[2] = 0xbc, o.s[3] = 0x9a;
    if ((v = calloc(o.runs, sizeof *v)) == NULL)
        return 2;
    t0 = bp_now();
    if (zk_bp_key_open(argv[1], &k, &d) != 0) {
        ret = bp_fail("bench", &d);
        goto out;
    }
    topen = bp_now() - t0;
    if (zk_bp_assignment_open(argv[2], &as, &d) != 0) {
        ret = bp_fail("bench", &d);
        goto out;
    }
    printf("key open (decode, checks) %.3f s\n", topen);
    for (unsigned i = 0; i < o.runs; i++) {
        t0 = bp_now();
        if (bp_run(&o, k, as, proof, &d) != 0) {
            ret = bp_fail("bench", &d);
            goto out;
        }
        v[i] = bp_now() - t0;
        printf("run %u: prove %.3f s\n", i, v[i]);
        fflush(stdout);
    }
    qsort(v, o.runs, sizeof *v, bp_cmp);
    printf("zkslot (%s): prove median %.3f s over %u runs, peak rss %ld KiB\n",
           o.cuda ? "cuda" : "cpu", v[o.runs / 2], o.runs, bp_peak_rss_kib());
    ret = 0;
out:
    free(v);
    zk_bp_assignment_free(as);
    zk_bp_key_close(k);
    return ret;
}

int cmd_bp(int argc, char **argv)
{
    if (argc < 2 || cmd_help)
        return bp_usage();
    if (strcmp(argv[1], "inspect") == 0 && argc == 3)
        return bp_inspect(argv[2]);
    if (strcmp(argv[1], "prove") == 0)
        return bp_prove_cmd(argc - 1, argv + 1);
    if (strcmp(argv[1], "verify") == 0)
        return bp_verify_cmd(argc - 1, argv + 1);
    if (strcmp(argv[1], "bench") == 0)
        return bp_bench_cmd(argc - 1, argv + 1);
    return bp_usage();
}
