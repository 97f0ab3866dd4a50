/*
 * g16_internal.h -- private to common/groth16/: the loaded key, the pending
 * proof, and the per-curve operation table that prove_tmpl.h fills in
 * (one instantiation per curve, common/groth16/prove.c).
 */
#ifndef ZK_COMMON_GROTH16_INTERNAL_H
#define ZK_COMMON_GROTH16_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "zk/groth16.h"

/* Words of a Jacobian G1 / G2 point of the larger curve (BLS12-381). */
#define G16_G1J_WORDS (3 * 6)
#define G16_G2J_WORDS (3 * 12)

struct g16_ops;
struct g16_source;

struct zk_groth16_key {
    struct zk_zkey_header hdr;
    const struct g16_ops *ops;
    size_t g1b, g2b;                  /* bytes per affine point */
    unsigned what;                    /* ZK_G16_LOAD_* loaded */
    /* section 4 regrouped by row: matrix m (0 = A, 1 = B), row i has entries
     * [rowptr[m][i], rowptr[m][i+1]) of sig[m] / val[m]; sig and val are
     * one allocation each, made at [0], with B's entries after A's */
    uint32_t *rowptr[2];
    uint32_t *sig[2];
    zk_scalar *val[2];                /* coef * R^2 (docs/formats.md 5.2) */
    void *pt_a, *pt_b1, *pt_b2, *pt_c, *pt_h, *pt_ic;   /* 64-byte aligned */
    /* points borrowed (zk_groth16_key_use_points, a key store): not freed;
     * pt_release(pt_release_ctx) at zk_groth16_key_free instead */
    void (*pt_release)(void *ctx);
    void *pt_release_ctx;
    /* MSM tables per enum zk_groth16_msm, or NULL; tab_own[m] is set when
     * zk_groth16_key_precompute built tab[m] (freed with the key) */
    const struct zk_msm_table *tab[ZK_G16_MSM_COUNT];
    void *tab_own[ZK_G16_MSM_COUNT];
    /* a one-shot key's points, read from its file per MSM (key_oneshot.c);
     * NULL for a key whose points are resident */
    struct g16_source *src;
};

struct zk_groth16_pending {
    const struct zk_groth16_key *k;
    zk_scalar *w;                     /* own copy of the witness (n_vars); NULL:
                                       * msm_b2 was done by the backend (GPU) */
    int w_borrowed;                   /* w is the caller's, not a copy
                                       * (zk_groth16_prove): not zeroed, not freed */
    uint64_t msm_a[G16_G1J_WORDS];    /* Jacobian partial results */
    uint64_t msm_b1[G16_G1J_WORDS];
    uint64_t msm_c[G16_G1J_WORDS];
    uint64_t msm_h[G16_G1J_WORDS];
    uint64_t msm_b2[G16_G2J_WORDS];   /* only when w is NULL */
    struct zk_groth16_timings t;
};

/* Per-curve operations (prove_tmpl.h / verify_tmpl.h). */
struct g16_ops {
    enum zk_curve curve;
    unsigned fq_limbs;                /* 4 or 6 */
    /* prover */
    void (*synth)(const struct zk_groth16_key *k, const zk_scalar *w, zk_scalar *a,
                  zk_scalar *b, zk_scalar *c, unsigned nthreads);
    int (*odd_coset)(zk_scalar *x, unsigned log_n, unsigned nthreads);
    void (*h)(zk_scalar *a, const zk_scalar *b, const zk_scalar *c, size_t n,
              unsigned nthreads);
    /* scratch: msm_gX_scratch(n, nthreads, table) bytes, or NULL to
     * allocate; table: the points' zk_msm_table or NULL */
    int (*msm_g1)(uint64_t *ret_jac, const void *points, const zk_scalar *scalars, size_t n,
                  unsigned nthreads, void *scratch, const struct zk_msm_table *table);
    int (*msm_g2)(uint64_t *ret_jac, const void *points, const zk_scalar *scalars, size_t n,
                  unsigned nthreads, void *scratch, const struct zk_msm_table *table);
    size_t (*msm_g1_scratch)(size_t n, unsigned nthreads, const struct zk_msm_table *table);
    size_t (*msm_g2_scratch)(size_t n, unsigned nthreads, const struct zk_msm_table *table);
    size_t (*msm_g1_table_size)(size_t n, unsigned factor);
    size_t (*msm_g2_table_size)(size_t n, unsigned factor);
    int (*msm_g1_table_build)(struct zk_msm_table *t, const void *points, size_t n,
                              unsigned factor, unsigned nthreads);
    int (*msm_g2_table_build)(struct zk_msm_table *t, const void *points, size_t n,
                              unsigned factor, unsigned nthreads);
    void (*assemble)(const struct zk_groth16_pending *p, const uint64_t *b2_jac,
                     const zk_scalar *r, const zk_scalar *s, struct zk_groth16_proof *proof);
    int (*fr_is_canonical)(const zk_scalar *x);
    /* verifier */
    int (*verify)(const struct zk_groth16_vk *vk, const zk_scalar *pub,
                  const struct zk_groth16_proof *proof, int *ret_valid);
    /* JSON helpers: coordinates are Fq limbs (fq_limbs words) */
    void (*fq_from_mont)(uint64_t *ret, const uint64_t *a);
    void (*fq_to_mont)(uint64_t *ret, const uint64_t *a);
    int (*fq_is_canonical)(const uint64_t *a);
    /* affine (zkey encoding) from Jacobian coordinates (Montgomery); z = 0: infinity */
    void (*g1_from_jac)(uint64_t *ret_aff, const uint64_t *x, const uint64_t *y,
                        const uint64_t *z);
    void (*g2_from_jac)(uint64_t *ret_aff, const uint64_t *x, const uint64_t *y,
                        const uint64_t *z);
    /* e(alpha1, beta2) as 12 Fq elements (plain) in snarkjs's order; -ENOSYS if unavailable */
    int (*alphabeta)(const uint64_t *alpha1, const uint64_t *beta2, uint64_t *ret12);
};

/* The table for `curve`, NULL for an unknown curve. */
const struct g16_ops *zk_g16_ops(enum zk_curve curve);

/* Frees the tables k built and forgets the ones it borrowed (tables.c). */
void zk_g16_tables_free(struct zk_groth16_key *k);

/*
 * The one-shot key's source (key_oneshot.c).  g16_source_points: the points
 * of section id (5-9) for one MSM, valid until the next call; 0 or the
 * read's error (its message kept for zk_groth16_key_error).
 * g16_source_synth_done: the coefficients are no longer needed, released.
 * g16_source_free: closes the file, frees the buffer; accepts NULL.
 */
int g16_source_points(struct g16_source *s, enum zk_zkey_section id, const void **ret);
void g16_source_synth_done(struct g16_source *s);
void g16_source_free(struct g16_source *s);

/* All of point section id (3, 5-9) of z into dst (its count times its
 * point size), read in chunks of about 2 MiB on nthreads threads (prove.c:
 * the loader's and the one-shot key's reads).  0 or the first error, diag
 * filled by the thread whose error won. */
int g16_read_points(const struct zk_zkey *z, enum zk_zkey_section id, void *dst,
                    unsigned nthreads, struct zk_diag *diag);

/* Monotonic wall clock in seconds. */
double zk_g16_now(void);

#endif /* ZK_COMMON_GROTH16_INTERNAL_H */
