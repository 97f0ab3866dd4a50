/*
 * bench_inplace.c -- `zkslot bench inplace KEY.zkey WITNESS.wtns
 * [--threads T] [--repeats K] [--json]`: what gpud's CPU backend would pay
 * to stop using the slot as scratch.  Its prove_start runs on the slot's
 * own a, b, c (the NTTs overwrite them), so a slot handed back after a gpud
 * death fails its checksum and is synthesized again (docs/architecture.md,
 * "Decisions").  The alternative copies a, b, c into private memory first.
 * Each repeat synthesizes a, b, c (untimed), then times prove_start in
 * place, and synthesizes again and times the copy plus prove_start on the
 * copy; the two orders alternate between repeats.  Prints both medians,
 * the copy's own median, their ratio, and the private memory the copy
 * needs per partition (3 x domain x 32 bytes).  The in-place run's proof
 * is finalized and verified against the key's vk, so that both paths prove.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cmd.h"
#include "g16_cli.h"
#include "zk/error.h"
#include "zk/parallel.h"

/* One timed prove_start: in place on abc, or on a copy of it in priv.
 * Returns 0 or the prover's error; *secs the time, *copy_s the memcpy's. */
static int timed_start(const struct zk_groth16_key *k, const zk_scalar *w, zk_scalar *abc,
                       zk_scalar *priv, size_t n, unsigned nthreads, int copy,
                       struct zk_groth16_pending **pe, double *secs, double *copy_s)
{
    int rc = zk_groth16_synthesize(k, w, abc, abc + n, abc + 2 * n, nthreads);
    if (rc)
        return rc;
    double t0 = bench_now();
    zk_scalar *s = abc;
    if (copy) {
        memcpy(priv, abc, 3 * n * sizeof *abc);
        s = priv;
    }
    *copy_s = bench_now() - t0;
    rc = zk_groth16_prove_start(k, w, s, s + n, s + 2 * n, nthreads, pe);
    *secs = bench_now() - t0;
    return rc;
}

int cmd_bench_inplace(int argc, char **argv)
{
    const char *pos[2];
    unsigned npos = 0, nthreads = 0, repeats = 7;
    int json = 0, ret = 2, rc = 0, valid = 0;
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_vk vk;
    zk_scalar *w = NULL, *abc = NULL, *priv = NULL;
    double *v[3] = { 0 };   /* in place, copy + start, the copy alone */

    memset(&vk, 0, sizeof vk);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (g16_cli_parse_uint("bench inplace", "--threads", argv[++i], &nthreads))
                return 2;
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            if (g16_cli_parse_uint("bench inplace", "--repeats", argv[++i], &repeats))
                return 2;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] != '-' && npos < 2) {
            pos[npos++] = argv[i];
        } else {
            npos = 3;
            break;
        }
    }
    if (npos != 2 || !repeats) {
        fprintf(stderr, "usage: zkslot bench inplace KEY.zkey WITNESS.wtns [--threads T] "
                        "[--repeats K] [--json]\n");
        return 2;
    }
    if (!nthreads)
        nthreads = zk_nthreads_default();
    if (g16_cli_load_key("bench inplace", pos[0], nthreads, &k) ||
        g16_cli_load_witness("bench inplace", pos[1], k, &w) || zk_groth16_vk_from_key(k, &vk))
        goto out;
    const struct zk_zkey_header *h = zk_groth16_key_header(k);
    size_t n = h->domain_size, bytes = 3 * n * sizeof *abc;
    if (!(abc = malloc(bytes)) || !(priv = malloc(bytes)))
        goto out;
    for (int s = 0; s < 3; s++) {
        if (!(v[s] = calloc(repeats, sizeof(double))))
            goto out;
    }
    memset(priv, 0, bytes);   /* faulted in before the first timed copy */
    for (unsigned r = 0; r < repeats && !rc; r++) {
        for (int j = 0; j < 2 && !rc; j++) {
            int copy = (int)((r + (unsigned)j) % 2);
            struct zk_groth16_pending *pe = NULL;
            double secs = 0, copy_s = 0;
            rc = timed_start(k, w, abc, priv, n, nthreads, copy, &pe, &secs, &copy_s);
            if (!rc && !copy && r == 0) {
                struct zk_groth16_proof p;
                rc = zk_groth16_prove_finalize(pe, nthreads, &p);
                if (!rc && (zk_groth16_verify(&vk, w + 1, h->n_public, &p, &valid) || !valid))
                    rc = ZK_EBADPARAMS;
            }
            zk_groth16_pending_free(pe);
            v[copy][r] = secs;
            if (copy)
                v[2][r] = copy_s;
        }
    }
    if (rc) {
        fprintf(stderr, "zkslot bench inplace: %s: %s\n", pos[0],
                valid || rc != ZK_EBADPARAMS ? zk_strerror(rc) : "the proof does not verify");
        goto out;
    }
    double in = bench_median(v[0], repeats), cp = bench_median(v[1], repeats),
           c = bench_median(v[2], repeats);
    if (json)
        printf("{\"bench\": \"inplace\", \"threads\": %u, \"repeats\": %u, \"domain_size\": %zu, "
               "\"inplace_s\": %.6f, \"copy_start_s\": %.6f, \"copy_s\": %.6f, \"ratio\": %.4f, "
               "\"copy_bytes\": %zu}\n", nthreads, repeats, n, in, cp, c, cp / in, bytes);
    else
        printf("prove_start %s, domain 2^%u, %u threads, median of %u:\n"
               "  in place (the slot is scratch)   %10.3f ms\n"
               "  copy of a, b, c, then start      %10.3f ms  (the copy %.3f ms)\n"
               "  ratio copy/in place              %10.3f\n"
               "  private memory for the copy      %10.1f MiB per partition in prove_start\n",
               zk_curve_name(h->curve), h->log2_domain, nthreads, repeats, in * 1e3, cp * 1e3,
               c * 1e3, cp / in, (double)bytes / (1 << 20));
    ret = 0;
out:
    for (int s = 0; s < 3; s++)
        free(v[s]);
    zk_groth16_vk_done(&vk);
    free(w);
    free(abc);
    free(priv);
    zk_groth16_key_free(k);
    return ret;
}
