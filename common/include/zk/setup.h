/*
 * setup.h -- INSECURE Groth16 test keys: `zkslot setup`.
 *
 * Generates a snarkjs-format .zkey (docs/formats.md section 5) for a
 * circom .r1cs from fresh random toxic waste (tau, alpha, beta, delta;
 * gamma = 1 as snarkjs does), without a powers-of-tau ceremony.  Whoever ran
 * it knows the toxic waste could forge proofs: use such keys only for tests
 * and benchmarks (circuits too large for a snarkjs ceremony on a small
 * machine).  snarkjs reads these keys (`zkey export verificationkey`) and
 * verifies proofs made with them.
 */
#ifndef ZK_COMMON_SETUP_H
#define ZK_COMMON_SETUP_H

#include <stdint.h>

#include "zk/binfile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called between stages; `stage` is a short static string. */
typedef void (*zk_setup_progress_fn)(void *ctx, const char *stage);

struct zk_setup_opts {
    unsigned nthreads;                /* 0: all CPUs */
    const uint8_t *seed;              /* 32 bytes for reproducible waste (tests); NULL: getrandom */
    zk_setup_progress_fn progress;    /* may be NULL */
    void *progress_ctx;
};

/*
 * Reads `r1cs_path`, writes the key to `zkey_path` atomically (temporary
 * file in the same directory, fsync, rename).  The curve is the one of the
 * r1cs prime; if want_curve >= 0 and differs, fails with ZK_ECURVE_MISMATCH.
 * Returns 0, or a negative code with diag filled (one line naming the file):
 * reader errors, ZK_EDOMAIN (circuit too large for the field's 2-adicity),
 * -ENOMEM, -errno from writing.  On failure no key file is left behind.
 */
int zk_setup_zkey(const char *r1cs_path, const char *zkey_path, int want_curve,
                  const struct zk_setup_opts *opts, struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_SETUP_H */
