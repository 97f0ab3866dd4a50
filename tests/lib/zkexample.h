/*
 * zkexample.h -- the committed example key and witness of a curve
 * (examples/groth16/<curve_dir>/{key.zkey,witness.wtns}, found through
 * ZK_SOURCE_DIR), loaded for the tests that prove with them.
 */
#ifndef ZK_TESTS_ZKEXAMPLE_H
#define ZK_TESTS_ZKEXAMPLE_H

#include <stddef.h>

#include "zk/groth16.h"

struct zt_example {
    struct zk_groth16_key *k;            /* points and coefficients */
    const struct zk_zkey_header *h;
    zk_scalar *w;                        /* n_vars plain values */
};

/* curve_dir: "bn128" or "bls12381".  0, or an error with the reader's
 * message in err (ex is then empty). */
int zt_example_load(const char *curve_dir, struct zt_example *ex, char *err, size_t errlen);
void zt_example_free(struct zt_example *ex);

/* a, b, c of witness w synthesized into abc (3 * domain_size, kept), and
 * the CPU's proof of them finalized with blinding r, s into *proof (what a
 * backend's proof must equal).  0 or the failing call's code. */
int zt_example_cpu_proof(const struct zt_example *ex, const zk_scalar *w, zk_scalar *abc,
                         const zk_scalar *r, const zk_scalar *s, struct zk_groth16_proof *proof);

/* The proofs' points are equal (the timings are not compared). */
int zt_proof_eq(const struct zk_groth16_proof *a, const struct zk_groth16_proof *b);

#endif /* ZK_TESTS_ZKEXAMPLE_H */
