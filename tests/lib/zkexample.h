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

#endif /* ZK_TESTS_ZKEXAMPLE_H */
