/*
 * bench_prove.c -- `zkslot bench prove KEY.zkey WITNESS.wtns [--threads T]
 * [--repeats K] [--json]`: proves K times (after loading the key and the
 * witness once, not timed) and prints the median wall time of every stage
 * (synthesis of a/b/c, the odd-coset NTTs, h, each MSM, finalize) and of
 * the whole proof, plus the key load time; "cpu" is the median process CPU
 * time of a proof (all threads; steadier than wall time on a loaded
 * machine).  Every proof is verified against the key's own verification
 * key, so a fast wrong answer cannot pass.
 * --backend cuda [--device N] runs prove_start on the GPU (zkcuda.h, the
 * key's points uploaded once, untimed; every MSM, B2's on G2 included) and
 * finalize (blinding, assembly) on the CPU threads, as gpud does; the stage
 * times are then those prove_start measured on the device.
 * --precompute none|h|all [--table-factor F] (CPU): the key's MSM tables
 * (zk_groth16_key_precompute, factor F, default ZK_G16_TABLE_FACTOR_DEFAULT)
 * built after loading, untimed in the proofs, their build time printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "cmd.h"
#include "g16_cli.h"
#include "zk/error.h"
#include "zk/parallel.h"
#include "zkcuda.h"




#define NSTAGE 12

int cmd_bench_prove(int argc, char **argv)
{
    static const char *names[NSTAGE] = { "synth", "ntt", "h", "msm_a", "msm_b1", "msm_c",
                                         "msm_h", "msm_b2", "assemble", "finalize", "total",
                                         "cpu" };
    const char *pos[2];
    unsigned npos = 0, nthreads = 0, repeats = 5, dev = 0;
    int json = 0, ret = 2, rc, cuda = 0;
    struct zk_cuda_prover *cp = NULL;
    zk_scalar *abc = NULL;
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_vk vk;
    zk_scalar *w = NULL;
    double *v[NSTAGE] = { 0 }, t0, load_s, tables_s = 0;
    enum zk_groth16_precompute pre = ZK_G16_PRECOMPUTE_NONE;
    unsigned factor = ZK_G16_TABLE_FACTOR_DEFAULT;

    memset(&vk, 0, sizeof vk);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (g16_cli_parse_uint("bench prove", "--threads", argv[++i], &nthreads))
                return 2;
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            if (g16_cli_parse_uint("bench prove", "--repeats", argv[++i], &repeats))
                return 2;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--precompute") && i + 1 < argc) {
            if (zk_groth16_precompute_parse(argv[++i], &pre)) {
                fprintf(stderr, "zkslot bench prove: --precompute: none, h or all\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--table-factor") && i + 1 < argc) {
            if (g16_cli_parse_uint("bench prove", "--table-factor", argv[++i], &factor))
                return 2;
        } else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            if (bench_backend("prove", argv[++i], &cuda))
                return 2;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            if (g16_cli_parse_uint("bench prove", "--device", argv[++i], &dev))
                return 2;
        } else if (argv[i][0] != '-' && npos < 2) {
            pos[npos++] = argv[i];
        } else {
            fprintf(stderr, "usage: zkslot bench prove KEY.zkey WITNESS.wtns [--threads T] "
                            "[--repeats K] [--json] [--backend cpu|cuda] [--device N] "
                            "[--precompute none|h|all] [--table-factor F]\n");
            return 2;
        }
    }
    if (npos != 2) {
        fprintf(stderr, "usage: zkslot bench prove KEY.zkey WITNESS.wtns [--threads T] "
                        "[--repeats K] [--json]\n");
        return 2;
    }
    if (!nthreads)
        nthreads = zk_nthreads_default();
    t0 = bench_now();
    if (g16_cli_load_key("bench prove", pos[0], nthreads, &k) ||
        g16_cli_load_witness("bench prove", pos[1], k, &w))
        goto out;
    load_s = bench_now() - t0;
    if (pre != ZK_G16_PRECOMPUTE_NONE) {
        t0 = bench_now();
        if ((rc = zk_groth16_key_precompute(k, pre, factor, nthreads))) {
            fprintf(stderr, "zkslot bench prove: %s: --precompute: %s\n", pos[0],
                    zk_strerror(rc));
            goto out;
        }
        tables_s = bench_now() - t0;
    }
    if (zk_groth16_vk_from_key(k, &vk))
        goto out;
    for (int s = 0; s < NSTAGE; s++) {
        if (!(v[s] = calloc(repeats, sizeof(double))))
            goto out;
    }
    const struct zk_zkey_header *h = zk_groth16_key_header(k);
    if (cuda) {
        if ((rc = zk_cuda_prover_new((int)dev, k, &cp))) {
            fprintf(stderr, "zkslot bench prove: --backend cuda: %s\n", zk_cuda_strerror(rc));
            goto out;
        }
        if (!(abc = malloc(3 * (size_t)h->domain_size * sizeof *abc)))
            goto out;
    }
    for (unsigned r = 0; r < repeats; r++) {
        struct zk_groth16_proof p;
        int valid = 0;
        double c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);   /* the "cpu" stage */
        if (cuda) {
            /* as gpud: synthesis (timed), prove_start on the GPU, finalize here */
            struct zk_groth16_pending *pe = NULL;
            size_t n = h->domain_size;
            double s0 = bench_now();
            rc = zk_groth16_synthesize(k, w, abc, abc + n, abc + 2 * n, nthreads);
            double synth = bench_now() - s0;
            if (!rc)
                rc = zk_cuda_prove_start(cp, w, abc, abc + n, abc + 2 * n, NULL, NULL, &pe);
            if (!rc)
                rc = zk_groth16_prove_finalize(pe, nthreads, &p);
            zk_groth16_pending_free(pe);
            p.t.synth = synth;
            p.t.total += synth;
        } else {
            rc = zk_groth16_prove(k, w, nthreads, &p);
        }
        double cpu_s = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;   /* before verifying */
        if (rc) {
            fprintf(stderr, "zkslot bench prove: %s: %s\n", pos[0], zk_cuda_strerror(rc));
            goto out;
        }
        if (zk_groth16_verify(&vk, w + 1, h->n_public, &p, &valid) || !valid) {
            fprintf(stderr, "zkslot bench prove: %s: the proof does not verify (wrong "
                            "witness?)\n", pos[1]);
            goto out;
        }
        double st[NSTAGE] = { p.t.synth, p.t.ntt, p.t.h, p.t.msm_a, p.t.msm_b1, p.t.msm_c,
                              p.t.msm_h, p.t.msm_b2, p.t.assemble,
                              cuda ? p.t.assemble : p.t.msm_b2 + p.t.assemble, p.t.total,
                              cpu_s };
        for (int s = 0; s < NSTAGE; s++)
            v[s][r] = st[s];
    }
    double med[NSTAGE];
    for (int s = 0; s < NSTAGE; s++)
        med[s] = bench_median(v[s], repeats);
    if (json) {
        printf("{\"bench\": \"prove\", \"backend\": \"%s\", \"curve\": \"%s\", \"threads\": %u, \"repeats\": %u, "
               "\"n_vars\": %u, \"n_public\": %u, \"domain_size\": %u, \"load_s\": %.6f, "
               "\"precompute\": %d, \"table_factor\": %u, \"tables_s\": %.6f",
               cuda ? "cuda" : "cpu", zk_curve_name(h->curve), nthreads, repeats, h->n_vars,
               h->n_public, h->domain_size, load_s, (int)pre, pre ? factor : 0, tables_s);
        for (int s = 0; s < NSTAGE; s++)
            printf(", \"%s_s\": %.6f", names[s], med[s]);
        printf("}\n");
    } else {
        printf("prove %s: nVars %u, nPublic %u, domain 2^%u, %u threads%s, median of %u "
               "(key+witness load %.3f s)\n", zk_curve_name(h->curve), h->n_vars, h->n_public,
               h->log2_domain, nthreads, cuda ? ", prove_start on the GPU (cuda)" : "",
               repeats, load_s);
        if (pre != ZK_G16_PRECOMPUTE_NONE)
            printf("  MSM tables (%s, factor %u) built in %.3f s, untimed below\n",
                   zk_groth16_precompute_name(pre), factor, tables_s);
        for (int s = 0; s < NSTAGE; s++)
            printf("  %-9s %10.3f ms%s\n", names[s], med[s] * 1e3,
                   s != 9 ? "" : cuda ? "  (assemble; B2 was on the GPU)" : "  (msm_b2 + assemble)");
    }
    ret = 0;
out:
    for (int s = 0; s < NSTAGE; s++)
        free(v[s]);
    zk_groth16_vk_done(&vk);
    free(w);
    free(abc);
    zk_cuda_prover_free(cp);
    zk_groth16_key_free(k);
    return ret;
}
