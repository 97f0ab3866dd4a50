/*
 * groth16.h -- the Groth16 prover and verifier that snarkjs agrees with
 * (docs/formats.md sections 5, 6 and 7), for BN254 ("bn128") and
 * BLS12-381 ("bls12381"), one code path parameterized by curve.
 *
 * Proving is split the way the pipeline runs it (docs/architecture.md, "A
 * partition's life"):
 *
 *   key  = zk_groth16_key_load(zkey)            once, reused across proofs
 *   zk_groth16_synthesize(key, w, a, b, c)       synthd: a/b/c over the domain
 *   zk_groth16_prove_start(key, w, a, b, c)      gpud: H (NTTs) + G1 MSMs
 *        -> pending (owns a copy of w and the G1 partial results)
 *   zk_groth16_prove_finalize(pending)           gpud: G2 MSM, blinding, assembly
 *
 * zk_groth16_prove() runs all three.  Scalars (witness, r, s) are plain
 * canonical integers as 4 little-endian 64-bit limbs (the .wtns layout);
 * a/b/c are Montgomery-form Fr elements (the same 4 limbs).  Points in
 * proofs and keys use the zkey encoding: affine, Montgomery-form base-field
 * limbs, Fp2 as c0 then c1, infinity all zero (== the affine types of
 * common/ec/curves.h).
 *
 * nthreads: worker threads, 0 = zk_nthreads_default().  Results never depend
 * on nthreads.
 */
#ifndef ZK_COMMON_GROTH16_H
#define ZK_COMMON_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"
#include "zk/zkey.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One Fr element: plain (witness, public input, r, s) or Montgomery (a/b/c). */
typedef struct { uint64_t l[4]; } zk_scalar;

#define ZK_G16_G1_WORDS (ZK_G1_MAX_BYTES / 8)   /* 12: BLS12-381 affine G1 */
#define ZK_G16_G2_WORDS (ZK_G2_MAX_BYTES / 8)   /* 24: BLS12-381 affine G2 */

/* Wall-clock seconds of each stage of one proof (0 for stages not run). */
struct zk_groth16_timings {
    double synth;      /* a, b, c from the coefficients and the witness */
    double ntt;        /* the three odd-coset transforms (iNTT, shift, NTT) */
    double h;          /* h = a*b - c, from Montgomery */
    double msm_a;      /* G1 MSM over section 5 */
    double msm_b1;     /* G1 MSM over section 6 */
    double msm_c;      /* G1 MSM over section 8 */
    double msm_h;      /* G1 MSM over section 9 */
    double msm_b2;     /* G2 MSM over section 7 (finalize) */
    double assemble;   /* blinding and the final point arithmetic (finalize) */
    double total;      /* everything above */
};

/* A proof: affine points in the zkey encoding (first g1/g2 bytes used). */
struct zk_groth16_proof {
    enum zk_curve curve;
    uint64_t pi_a[ZK_G16_G1_WORDS];
    uint64_t pi_b[ZK_G16_G2_WORDS];
    uint64_t pi_c[ZK_G16_G1_WORDS];
    struct zk_groth16_timings t;
};

/* A verification key (vk.json): affine points in the zkey encoding. */
struct zk_groth16_vk {
    enum zk_curve curve;
    uint32_t n_public;
    uint64_t alpha1[ZK_G16_G1_WORDS];
    uint64_t beta2[ZK_G16_G2_WORDS];
    uint64_t gamma2[ZK_G16_G2_WORDS];
    uint64_t delta2[ZK_G16_G2_WORDS];
    uint64_t (*ic)[ZK_G16_G1_WORDS];  /* n_public + 1 points, owned */
};

struct zk_groth16_key;      /* a loaded proving key (opaque) */
struct zk_groth16_pending;  /* state between prove_start and prove_finalize */

/*
 * Load everything the prover needs from an opened zkey into aligned memory:
 * the header, the coefficients of section 4 regrouped by row (for a
 * race-free parallel synthesis), and point sections 3, 5, 6, 7, 8, 9.  The
 * zkey can be closed afterwards.  Big point sections are not validated
 * (snarkjs does not either); the header points were checked by
 * zk_zkey_open().  Errors: those of zk_zkey_read_points/read_coefs
 * (ZK_EFORMAT, ZK_ENOT_CANONICAL, ZK_ESECTION_SIZE, -errno, ...),
 * ZK_EDOMAIN (domain too large), -ENOMEM; diag names the file and problem.
 * *ret is written only on success; free with zk_groth16_key_free().
 */
int zk_groth16_key_load(const struct zk_zkey *z, unsigned nthreads,
                        struct zk_diag *diag, struct zk_groth16_key **ret);

/* What zk_groth16_key_load_opts loads: synthesis needs only the
 * coefficients, prove_start/finalize and the vk only the points. */
#define ZK_G16_LOAD_COEFS 0x1u        /* section 4 (zk_groth16_synthesize) */
#define ZK_G16_LOAD_POINTS 0x2u       /* sections 3, 5-9 (prove_start, finalize, vk) */
#define ZK_G16_LOAD_ALL (ZK_G16_LOAD_COEFS | ZK_G16_LOAD_POINTS)

struct zk_groth16_load_opts {
    unsigned what;                    /* ZK_G16_LOAD_*; 0 = all */
    /* called after each part is in memory: name ("coefficients", "A", "B1",
     * "B2", "C", "H", "IC"), bytes read so far of `total`; may be NULL */
    void (*progress)(void *ctx, const char *part, uint64_t done, uint64_t total);
    void *ctx;
    /* threads reading each point section (chunks of it in parallel: one
     * thread copies the page cache at well under memory speed);
     * 0 = zk_nthreads_default().  Progress is still reported from the
     * calling thread, once per part. */
    unsigned threads;
};

/*
 * zk_groth16_key_load() with a choice of parts and progress reports.  A
 * key without coefficients refuses zk_groth16_synthesize (ZK_ESTATE); one
 * without points refuses prove_start and vk_from_key (ZK_ESTATE).
 * o may be NULL (everything, no progress).
 */
int zk_groth16_key_load_opts(const struct zk_zkey *z, const struct zk_groth16_load_opts *o,
                             struct zk_diag *diag, struct zk_groth16_key **ret);

/*
 * A key for one zk_groth16_prove from the open zkey *z, which it takes over
 * (*z is left closed; the file stays open until zk_groth16_key_free): the
 * coefficients are loaded now and released once the proof's synthesis is
 * done, and each point section is read from the file just before its MSM
 * into one buffer the size of the largest, which the next overwrites.  The
 * proof's peak memory holds one section of points instead of the whole
 * key (the one-shot `zkslot prove`; docs/arithmetic.md, "Peak memory").
 * After one zk_groth16_prove its coefficients are gone (a second one gets
 * ZK_ESTATE); zk_groth16_key_points, vk_from_key and precompute see no
 * points (ZK_ESTATE).  A read that fails during the proof, or a file
 * changed in place since it was opened, fails the proof with the read's
 * error (ZK_EFORMAT for a change); zk_groth16_key_error(k) then names the
 * file and the problem.  Errors now: those of zk_groth16_key_load_opts;
 * *z is left open on failure.
 */
int zk_groth16_key_load_oneshot(struct zk_zkey *z, unsigned nthreads, struct zk_diag *diag,
                                struct zk_groth16_key **ret);

/* One line naming the file and what failed in a one-shot key's read
 * during a proof, or NULL (none failed, or not a one-shot key). */
const char *zk_groth16_key_error(const struct zk_groth16_key *k);

/*
 * A key with header h and nothing loaded (the parts come from
 * zk_groth16_key_use_points, a key store: zk/keystore.h).  0 and *ret,
 * ZK_EBADPARAMS, ZK_ECURVE (unknown curve) or -ENOMEM.
 */
int zk_groth16_key_new(const struct zk_zkey_header *h, struct zk_groth16_key **ret);

/*
 * Points that k borrows instead of owning: pts[] = IC, A, B1, B2, C, H in
 * the layout zk_groth16_key_points gives (64-byte aligned, the counts of
 * k's header), read-only, valid until zk_groth16_key_free(k) calls
 * release(ctx).  k must have no points yet.  0, or ZK_EBADPARAMS with k
 * unchanged (and release not called).
 */
int zk_groth16_key_use_points(struct zk_groth16_key *k, const void *const pts[6],
                              void (*release)(void *ctx), void *ctx);

/* Release a key; accepts NULL and returns NULL. */
struct zk_groth16_key *zk_groth16_key_free(struct zk_groth16_key *k);

/* The key's decoded section 2 (curve, nVars, nPublic, domainSize, points). */
const struct zk_zkey_header *zk_groth16_key_header(const struct zk_groth16_key *k);

/*
 * Precomputed MSM tables (zk/msm.h, struct zk_msm_table): one optional
 * table per MSM of the prover, used by prove_start / finalize (CPU) when
 * present.  The MSMs and their points: H (domain_size), A, B1 and B2
 * (n_vars each), C (n_vars - n_public - 1).
 */
struct zk_msm_table;

enum zk_groth16_msm {
    ZK_G16_MSM_H = 0,
    ZK_G16_MSM_A = 1,
    ZK_G16_MSM_B1 = 2,
    ZK_G16_MSM_C = 3,
    ZK_G16_MSM_B2 = 4,
    ZK_G16_MSM_COUNT = 5,
};

/* Which MSMs get tables: none, H alone (the largest), or all five. */
enum zk_groth16_precompute {
    ZK_G16_PRECOMPUTE_NONE = 0,
    ZK_G16_PRECOMPUTE_H = 1,
    ZK_G16_PRECOMPUTE_ALL = 2,
};

/* The table factor used when none is configured (docs/arithmetic.md, MSM tables). */
#define ZK_G16_TABLE_FACTOR_DEFAULT 16

/*
 * Bytes of the table of MSM m of a key with header h and `factor`
 * multiples per point (G_msm_table_size), or 0 for a bad m, curve or
 * factor.  zk_groth16_tables_size: the sum over the MSMs `which` selects
 * (0 for NONE).  For memory planning (zkslot plan, a key store).  Cannot
 * fail otherwise.
 */
size_t zk_groth16_table_size(const struct zk_zkey_header *h, enum zk_groth16_msm m,
                             unsigned factor);
size_t zk_groth16_tables_size(const struct zk_zkey_header *h,
                              enum zk_groth16_precompute which, unsigned factor);

/* "none", "h" or "all" into *ret: 0, or ZK_EBADPARAMS (*ret unchanged). */
int zk_groth16_precompute_parse(const char *s, enum zk_groth16_precompute *ret);
/* The name zk_groth16_precompute_parse reads ("?" for no such value). */
const char *zk_groth16_precompute_name(enum zk_groth16_precompute which);

/*
 * Builds, in this process, the tables `which` selects with `factor`
 * multiples (1 .. ZK_MSM_MAX_FACTOR) on nthreads threads, owned by k and
 * freed with it; replaces tables k had for those MSMs.  NONE removes all of
 * k's tables.  0; ZK_EBADPARAMS (bad which or factor), ZK_ESTATE (k has no
 * points) or -ENOMEM, with k's tables as before.
 */
int zk_groth16_key_precompute(struct zk_groth16_key *k, enum zk_groth16_precompute which,
                              unsigned factor, unsigned nthreads);

/*
 * Points MSM m of k at a table the caller owns (e.g. mapped from a key
 * store), read-only, valid while k is used; NULL removes it.  0, or
 * ZK_EBADPARAMS (bad m, or t is not a table of m's points: group, count,
 * format) with k unchanged.  zk_groth16_key_table: the table in use for m,
 * or NULL.
 */
int zk_groth16_key_use_table(struct zk_groth16_key *k, enum zk_groth16_msm m,
                             const struct zk_msm_table *t);
const struct zk_msm_table *zk_groth16_key_table(const struct zk_groth16_key *k,
                                                enum zk_groth16_msm m);

/*
 * Step 1 of docs/formats.md section 6: a[i] = <A_i, w>, b[i] = <B_i, w>
 * (including the public-signal rows of section 4), c[i] = a[i] * b[i], all
 * in Montgomery form, for i < domain_size.  w holds n_vars plain canonical
 * values; a, b, c hold domain_size elements each and are overwritten.
 * Cannot fail for valid arguments; ZK_EBADPARAMS on NULL pointers.
 */
int zk_groth16_synthesize(const struct zk_groth16_key *k, const zk_scalar *w,
                          zk_scalar *a, zk_scalar *b, zk_scalar *c, unsigned nthreads);

/*
 * First stage of a proof: moves a, b, c to the odd coset of the 2n-domain
 * (iNTT, shift, NTT), forms h = a*b - c (plain), and runs the G1 MSMs for
 * A, B1, C and H.  a, b, c (as synthesize left them) are used as scratch
 * and hold garbage afterwards; they and w may be freed as soon as this
 * returns: the pending object keeps its own copy of w and the partial
 * results, plus a reference to k (k must outlive it).  Timings of the
 * stages run so far are recorded in the pending object.  Errors:
 * ZK_EBADPARAMS, ZK_EDOMAIN, -ENOMEM, errors of the MSM; *ret is written
 * only on success.
 */
int zk_groth16_prove_start(const struct zk_groth16_key *k, const zk_scalar *w,
                           zk_scalar *a, zk_scalar *b, zk_scalar *c, unsigned nthreads,
                           struct zk_groth16_pending **ret);

/*
 * Second stage: the G2 MSM for B2, fresh blinding r, s from getrandom(2),
 * and assembly with the formulas of section 7 step 5.  Fills *proof
 * (including all stage timings).  The pending object is left intact (it can
 * be finalized again, giving another valid proof) and must be released with
 * zk_groth16_pending_free().  Errors: -errno from getrandom, errors of the
 * MSM, -ENOMEM; *proof is written only on success.
 */
int zk_groth16_prove_finalize(struct zk_groth16_pending *p, unsigned nthreads,
                              struct zk_groth16_proof *proof);

/*
 * Same as zk_groth16_prove_finalize() with the caller's blinding scalars r
 * and s (plain, < r).  r = s = 0 gives the deterministic proof without
 * zero knowledge (known-answer tests only).  ZK_ERANGE if r or s >= r.
 */
int zk_groth16_prove_finalize_rs(struct zk_groth16_pending *p, const zk_scalar *r,
                                 const zk_scalar *s, unsigned nthreads,
                                 struct zk_groth16_proof *proof);

/* Release a pending proof (wipes its witness copy); accepts NULL, returns NULL. */
struct zk_groth16_pending *zk_groth16_pending_free(struct zk_groth16_pending *p);

/*
 * For other backends of prove_start (the GPU's, gpud/cuda/): the point
 * section `id` of k (ZK_ZKEY_SEC_A, B1, B2, C, H or IC) in the zkey's affine
 * encoding, its point count and bytes per point.  NULL (count 0) if k was
 * loaded without points or id has none.  Cannot fail.
 */
const void *zk_groth16_key_points(const struct zk_groth16_key *k, enum zk_zkey_section id,
                                  uint64_t *ret_count, size_t *ret_point_bytes);

/*
 * A pending proof built from another backend's prove_start results: the
 * Jacobian G1 sums for A, B1, C and H (3 * (4 or 6) limbs each, the layout
 * of the curve's G1 type) and either the G2 sum for B2 (3 * 2 * (4 or 6)
 * limbs, the G2 type's layout; then w may be NULL and finalize only blinds
 * and assembles) or, with msm_b2 NULL, w (n_vars plain scalars, copied)
 * for finalize's B2 MSM on CPU threads.  t: the timings measured so far
 * (msm_b2 included when given), or NULL.  Finalize and free it as usual.
 * 0 and *ret, ZK_EBADPARAMS, ZK_ESTATE (k has no points) or -ENOMEM.
 */
int zk_groth16_pending_new(const struct zk_groth16_key *k, const zk_scalar *w,
                           const uint64_t *msm_a, const uint64_t *msm_b1,
                           const uint64_t *msm_c, const uint64_t *msm_h,
                           const uint64_t *msm_b2, const struct zk_groth16_timings *t,
                           struct zk_groth16_pending **ret);

/*
 * One call: synthesize, prove_start, prove_finalize with fresh r, s.  w
 * holds n_vars plain values.  Errors as the stages, -ENOMEM.
 */
int zk_groth16_prove(const struct zk_groth16_key *k, const zk_scalar *w, unsigned nthreads,
                     struct zk_groth16_proof *proof);

/*
 * The verification key of a loaded proving key (alpha1, beta2, gamma2,
 * delta2 from section 2, IC from section 3).  Returns 0, -ENOMEM or ZK_ESTATE (loaded without points); *vk is
 * written only on success and released with zk_groth16_vk_done().
 */
int zk_groth16_vk_from_key(const struct zk_groth16_key *k, struct zk_groth16_vk *vk);

/* The same from an opened .zkey, reading only its IC section (no proving
 * key loaded).  0, -ENOMEM, or an error of the read with diag. */
int zk_groth16_vk_from_zkey(const struct zk_zkey *z, struct zk_groth16_vk *vk,
                            struct zk_diag *diag);

/* Release the IC array; accepts a zeroed or released vk. */
void zk_groth16_vk_done(struct zk_groth16_vk *vk);

/*
 * The check of `snarkjs groth16 verify` (section 8): n_pub must equal
 * vk->n_public (else ZK_ELENGTH) and every public input must be < r (else
 * ZK_ERANGE); proof and vk points must lie on their curves (else
 * ZK_ENOT_ON_CURVE); the proof's curve must be the vk's (ZK_ECURVE_MISMATCH).
 * Then e(-A, B) e(cpub, gamma2) e(C, delta2) e(alpha1, beta2) == 1 with
 * cpub = IC[0] + sum pub[i] IC[i+1].  Returns 0 and *ret_valid = 1 (valid)
 * or 0 (invalid), or a negative error with *ret_valid untouched.
 */
int zk_groth16_verify(const struct zk_groth16_vk *vk, const zk_scalar *pub, size_t n_pub,
                      const struct zk_groth16_proof *proof, int *ret_valid);

/* ---- JSON (jansson), the documents snarkjs reads and writes ---------------- */

/*
 * proof.json as snarkjs writes it (affine, decimal strings, z = "1",
 * "protocol" and "curve").  Returns a malloc'd NUL-terminated string with a
 * trailing newline, or NULL on allocation failure.
 */
char *zk_groth16_proof_to_json(const struct zk_groth16_proof *proof);

/*
 * Parse proof.json for `curve` (a proof carries no reliable curve: the
 * vk's is used).  Points follow snarkjs's G.fromObject: z = 0 infinity,
 * z = 1 affine, other z Jacobian, missing z = 1.  Errors: ZK_EJSON
 * (syntax, missing or malformed member), ZK_ENOT_CANONICAL (coordinate >=
 * q); diag says which member (prefixed with `name`).
 */
int zk_groth16_proof_from_json(const char *text, enum zk_curve curve, const char *name,
                               struct zk_groth16_proof *proof, struct zk_diag *diag);

/* public.json: a JSON array of n decimal strings.  NULL on ENOMEM. */
char *zk_groth16_public_to_json(const zk_scalar *pub, size_t n);

/*
 * Parse public.json into a malloc'd array (*ret_pub, *ret_n; free()).
 * Values must be decimal strings (or JSON integers) below 2^256; the range
 * check against r is done by zk_groth16_verify.  Errors: ZK_EJSON, -ENOMEM.
 */
int zk_groth16_public_from_json(const char *text, const char *name, zk_scalar **ret_pub,
                                size_t *ret_n, struct zk_diag *diag);

/*
 * verification_key.json as `snarkjs zkey export verificationkey` writes it,
 * including vk_alphabeta_12 = e(alpha1, beta2) in snarkjs's Fq12 layout.
 * Returns a malloc'd string or NULL (ENOMEM, or no pairing for the curve).
 */
char *zk_groth16_vk_to_json(const struct zk_groth16_vk *vk);

/*
 * Parse verification_key.json: `curve` matched like snarkjs (case-
 * insensitive, non-alphanumerics dropped: bn128, bn254, altbn128,
 * bls12381), vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2, IC; nPublic is
 * taken from IC (and must agree with "nPublic" when present).  Errors:
 * ZK_EJSON, ZK_ECURVE, ZK_ENOT_CANONICAL, ZK_ELENGTH, -ENOMEM.  *vk is
 * written only on success (release with zk_groth16_vk_done()).
 */
int zk_groth16_vk_from_json(const char *text, const char *name, struct zk_groth16_vk *vk,
                            struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_GROTH16_H */
