/* zkexample.c -- see zkexample.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zk/wtns.h"
#include "zk/zkey.h"
#include "zkexample.h"

int zt_example_load(const char *curve_dir, struct zt_example *ex, char *err, size_t errlen)
{
    const char *src = getenv("ZK_SOURCE_DIR");
    char kp[4096], wp[4096];
    struct zk_zkey z;
    struct zk_wtns wt;
    struct zk_diag d = { { 0 } };
    int rc;

    memset(ex, 0, sizeof *ex);
    memset(&z, 0, sizeof z);
    memset(&wt, 0, sizeof wt);
    snprintf(kp, sizeof kp, "%s/examples/groth16/%s/key.zkey", src ? src : ".", curve_dir);
    snprintf(wp, sizeof wp, "%s/examples/groth16/%s/witness.wtns", src ? src : ".", curve_dir);
    if ((rc = zk_zkey_open(&z, kp, &d)) || (rc = zk_groth16_key_load(&z, 0, &d, &ex->k)))
        goto out;
    ex->h = zk_groth16_key_header(ex->k);
    if ((rc = zk_wtns_open(&wt, wp, &d)))
        goto out;
    if (!(ex->w = malloc(ex->h->n_vars * sizeof *ex->w))) {
        rc = -1;
        snprintf(d.msg, sizeof d.msg, "out of memory");
        goto out;
    }
    rc = zk_wtns_read_values(&wt, 0, ex->h->n_vars, ex->w, &d);
out:
    zk_wtns_done(&wt);
    zk_zkey_done(&z);
    if (rc) {
        snprintf(err, errlen, "%s", d.msg);
        zt_example_free(ex);
    }
    return rc;
}

void zt_example_free(struct zt_example *ex)
{
    zk_groth16_key_free(ex->k);
    free(ex->w);
    memset(ex, 0, sizeof *ex);
}

int zt_example_cpu_proof(const struct zt_example *ex, const zk_scalar *w, zk_scalar *abc,
                         const zk_scalar *r, const zk_scalar *s, struct zk_groth16_proof *proof)
{
    size_t n = ex->h->domain_size;
    struct zk_groth16_pending *p = NULL;
    zk_scalar *tmp = malloc(3 * n * sizeof *tmp);
    int rc = -ENOMEM;
    if (!tmp)
        return rc;
    if (!(rc = zk_groth16_synthesize(ex->k, w, abc, abc + n, abc + 2 * n, 0))) {
        memcpy(tmp, abc, 3 * n * sizeof *tmp);     /* prove_start's scratch */
        if (!(rc = zk_groth16_prove_start(ex->k, w, tmp, tmp + n, tmp + 2 * n, 0, &p)))
            rc = zk_groth16_prove_finalize_rs(p, r, s, 0, proof);
    }
    zk_groth16_pending_free(p);
    free(tmp);
    return rc;
}

int zt_proof_eq(const struct zk_groth16_proof *a, const struct zk_groth16_proof *b)
{
    return !memcmp(a->pi_a, b->pi_a, sizeof a->pi_a) && !memcmp(a->pi_b, b->pi_b, sizeof a->pi_b) &&
           !memcmp(a->pi_c, b->pi_c, sizeof a->pi_c);
}
