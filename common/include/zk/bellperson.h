/*
 * bellperson.h -- Filecoin's Groth16 over BLS12-381 as bellperson defines
 * it: its parameter files (.params, .vk), the proving assignment that its
 * synthesis produces (zkslot's .bpa file), its proof (192 bytes) and its
 * verifier.  docs/bellperson.md and docs/formats.md describe the formats.
 *
 * Contracts:
 * - A key is a parameter file, mapped read-only and checked once at open
 *   (layout, counts, every header point on the curve and in the subgroup;
 *   the large queries are checked for encoding and length, not for group
 *   membership).  Counts are u32 big-endian; points are Zcash-encoded,
 *   uncompressed, big-endian (G1 96 bytes, G2 192 as x.c1 x.c0 y.c1 y.c0).
 * - An assignment is what bellperson's ProvingAssignment holds after
 *   synthesis, inputs (input 0 = ONE) and aux in bellperson's order, the
 *   a/b/c evaluation of every constraint (the one constraint per input that
 *   synthesis appends included) and the density bitmaps a_aux, b_input,
 *   b_aux.  Field elements in a .bpa are 32-byte canonical little endian.
 * - zk_bp_prove() with the same key, assignment, r and s returns the same
 *   192 bytes as bellperson's create_proof(circuit, params, r, s).
 * - Every function that fails leaves one line in diag naming the file (or
 *   `name`) and the problem, and returns a negative code of zk/error.h.
 */
#ifndef ZK_COMMON_BELLPERSON_H
#define ZK_COMMON_BELLPERSON_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZK_BP_PROOF_BYTES 192    /* A (48) || B (96) || C (48), compressed */
#define ZK_BP_FR_BYTES 32
#define ZK_BPA_MAGIC "ZKBPASN1"  /* 8 bytes, then u32 version, u32 flags */
#define ZK_BPA_VERSION 1

typedef struct zk_bp_key zk_bp_key;               /* an opened .params */
typedef struct zk_bp_vk zk_bp_vk;                 /* a verifying key */
typedef struct zk_bp_assignment zk_bp_assignment; /* a parsed .bpa */

/* What `zkslot key show` / `inspect` tell of a key. */
struct zk_bp_key_info {
    uint64_t file_bytes;
    uint32_t n_ic;            /* inputs, ONE included */
    uint32_t n_h;             /* m - 1 */
    uint32_t n_l;             /* aux variables */
    uint32_t n_a;             /* inputs + aux dense in A */
    uint32_t n_b_g1, n_b_g2;  /* inputs and aux dense in B */
    uint32_t log2_domain;     /* m = 2^log2_domain = n_h + 1 */
};

/* Open and check `path` (a .params file).  *out is closed with
 * zk_bp_key_close().  Errors: -errno, ZK_ETRUNCATED, ZK_EFORMAT,
 * ZK_ELENGTH, ZK_EBAD_ENCODING, ZK_ENOT_ON_CURVE, ZK_ENOT_IN_GROUP,
 * ZK_ENOT_CANONICAL, ZK_EDOMAIN. */
int zk_bp_key_open(const char *path, zk_bp_key **out, struct zk_diag *diag);
int zk_bp_key_open_mem(const void *buf, size_t len, const char *name, zk_bp_key **out,
                       struct zk_diag *diag);
void zk_bp_key_close(zk_bp_key *key);
void zk_bp_key_get_info(const zk_bp_key *key, struct zk_bp_key_info *info);
/* The verifying key at the head of the parameter file (owned by key). */
const zk_bp_vk *zk_bp_key_vk(const zk_bp_key *key);

/*
 * A key's decoded points as the key store keeps them (zk/keystore.h,
 * docs/keystore.md): the head (counts and the verifying key's six
 * points) and six point sets, affine with Montgomery limbs (G1 96 bytes,
 * G2 192), the all-zero point infinity.
 */
enum zk_bp_set {
    ZK_BP_SET_IC, ZK_BP_SET_A, ZK_BP_SET_B_G1, ZK_BP_SET_B_G2, ZK_BP_SET_L, ZK_BP_SET_H,
    ZK_BP_NSETS
};
#define ZK_BP_G1_WORDS 12
#define ZK_BP_G2_WORDS 24
struct zk_bp_key_head {
    struct zk_bp_key_info info;       /* file_bytes: the parameter file's */
    uint32_t reserved;                /* 0 */
    uint64_t alpha_g1[ZK_BP_G1_WORDS], beta_g1[ZK_BP_G1_WORDS], delta_g1[ZK_BP_G1_WORDS];
    uint64_t beta_g2[ZK_BP_G2_WORDS], gamma_g2[ZK_BP_G2_WORDS], delta_g2[ZK_BP_G2_WORDS];
};
/* Counts of the shape bellperson's generator gives (h: 2^k - 1 points, a
 * and b within inputs + aux, b_g1 = b_g2): 0, or ZK_ELENGTH / ZK_EDOMAIN
 * with diag naming `name`. */
int zk_bp_key_shape(const struct zk_bp_key_info *in, const char *name, struct zk_diag *diag);
/* Set `set` of key: its points, their count into *n, bytes per point into
 * *point_bytes (either may be NULL). */
const void *zk_bp_key_points(const zk_bp_key *key, enum zk_bp_set set, uint64_t *n,
                             size_t *point_bytes);
void zk_bp_key_head(const zk_bp_key *key, struct zk_bp_key_head *ret);
/*
 * A key over points it does not own (a mapped store): head's counts must
 * have the shape bellperson's generator gives (ZK_ELENGTH, ZK_EDOMAIN:
 * diag names `name`); pts[set] holds that set's points, 64-byte aligned.
 * zk_bp_key_close calls release(ctx) instead of freeing them.
 */
int zk_bp_key_over(const struct zk_bp_key_head *head, const void *const pts[ZK_BP_NSETS],
                   void (*release)(void *ctx), void *ctx, const char *name, zk_bp_key **out,
                   struct zk_diag *diag);

/* A .vk file (the same layout as the head of a .params). */
int zk_bp_vk_open(const char *path, zk_bp_vk **out, struct zk_diag *diag);
int zk_bp_vk_open_mem(const void *buf, size_t len, const char *name, zk_bp_vk **out,
                      struct zk_diag *diag);
void zk_bp_vk_close(zk_bp_vk *vk);
/* Number of public inputs the key takes (ic count - 1). */
uint32_t zk_bp_vk_n_public(const zk_bp_vk *vk);
/* 1 when a and b are the same verifying key (every point equal), else 0. */
int zk_bp_vk_same(const zk_bp_vk *a, const zk_bp_vk *b);

/* Parse a .bpa held in memory (buf must outlive *out when borrowed) or
 * read from a file.  Errors: ZK_EBADMAGIC, ZK_EVERSION, ZK_ETRUNCATED,
 * ZK_ELENGTH, ZK_ENOT_CANONICAL, -ENOMEM, -errno. */
int zk_bp_assignment_parse(const void *buf, size_t len, const char *name,
                           zk_bp_assignment **out, struct zk_diag *diag);
int zk_bp_assignment_open(const char *path, zk_bp_assignment **out, struct zk_diag *diag);
void zk_bp_assignment_free(zk_bp_assignment *as);
uint64_t zk_bp_assignment_n_inputs(const zk_bp_assignment *as); /* ONE included */
uint64_t zk_bp_assignment_n_aux(const zk_bp_assignment *as);
uint64_t zk_bp_assignment_n_constraints(const zk_bp_assignment *as);
/* The bytes of a .bpa of these counts (0 when they overflow). */
uint64_t zk_bp_assignment_bytes(uint64_t n_inputs, uint64_t n_aux, uint64_t n_constraints);
/* The assignment fits a key of n_inputs inputs (ONE included), n_aux aux
 * and a domain of `domain` points: 0, or ZK_ELENGTH with one line naming
 * `name` and both shapes. */
int zk_bp_assignment_fits(const zk_bp_assignment *as, uint64_t n_inputs, uint64_t n_aux,
                          uint64_t domain, const char *name, struct zk_diag *diag);
/* Input i (0 = ONE) as 32 canonical little-endian bytes, borrowed. */
const uint8_t *zk_bp_assignment_input(const zk_bp_assignment *as, uint64_t i);

/* Prove.  r and s are 32-byte canonical little-endian elements of Fr.
 * threads = 0: all cores.  Errors: ZK_ELENGTH (assignment and key
 * disagree: counts, densities, domain), ZK_ERANGE (r or s >= q), -ENOMEM. */
int zk_bp_prove(const zk_bp_key *key, const zk_bp_assignment *as, const uint8_t r[32],
                const uint8_t s[32], unsigned threads, uint8_t proof[ZK_BP_PROOF_BYTES],
                struct zk_diag *diag);

/* A uniform element of Fr as 32 little-endian bytes (getrandom): 0, or -1
 * with errno set. */
int zk_bp_random_fr(uint8_t out[32]);
/* 64 hex digits (the 32 little-endian bytes of an r or s) into out: 0, or
 * -1 when s is not 64 hex digits. */
int zk_bp_hex32(const char *s, uint8_t out[32]);

/*
 * The prover's heavy operations, for a backend of another device (the CUDA
 * backend: gpud/cuda/zkcuda.h, zk_cuda_bp_prove).  Field elements are 4
 * little-endian limbs; points are zkslot's affine BLS12-381 form
 * (Montgomery limbs, the all-zero point infinity), results Jacobian
 * (3 coordinates of 6 limbs on G1, of 12 on G2).
 *   ntt      in place on 2^log_n Montgomery elements, zk/ntt.h's
 *            conventions (zkslot's roots); shift NULL: plain, else the coset
 *            transform by *shift (Montgomery)
 *   msm_g1   ret_jac = sum scalars[i] points[i], scalars plain
 *   msm_g2   the same on G2
 * Each returns 0 or a negative code (its message then from `error`, or
 * zk_strerror when error is NULL).
 */
struct zk_bp_engine {
    const char *name;
    void *ctx;
    int (*ntt)(void *ctx, uint64_t *data, unsigned log_n, int inverse, const uint64_t *shift);
    int (*msm_g1)(void *ctx, uint64_t *ret_jac, const void *points, const uint64_t *scalars,
                  size_t n);
    int (*msm_g2)(void *ctx, uint64_t *ret_jac, const void *points, const uint64_t *scalars,
                  size_t n);
    const char *(*error)(int rc);
};

/* zk_bp_prove on engine e (zk_bp_prove is this on the CPU's engine, which
 * uses `threads`); the same bytes whatever the engine. */
int zk_bp_prove_with(const struct zk_bp_engine *e, const zk_bp_key *key,
                     const zk_bp_assignment *as, const uint8_t r[32], const uint8_t s[32],
                     unsigned threads, uint8_t proof[ZK_BP_PROOF_BYTES], struct zk_diag *diag);

/*
 * A hook for this thread's proofs (zk_bp_prove, zk_bp_prove_with): fn(ctx)
 * is called on the proving thread between the proof's steps (before each
 * NTT and each multi-scalar multiplication: about fifteen calls a proof),
 * with nothing of the engine in flight; NULL removes it.  gpud proves an
 * urgent partition there, nested, while a long one waits
 * (docs/scheduling.md, "Preemption"); fn must not set a hook itself.
 */
void zk_bp_set_between(void (*fn)(void *ctx), void *ctx);

/* Verify one proof against n_public inputs (32-byte canonical LE each, ONE
 * not included).  Returns 1 accepted, 0 rejected (a proof that does not
 * decode is rejected), negative on a bad call (ZK_ELENGTH: wrong count,
 * ZK_ERANGE: an input >= q). */
int zk_bp_verify(const zk_bp_vk *vk, const uint8_t *public_inputs, size_t n_public,
                 const uint8_t proof[ZK_BP_PROOF_BYTES], struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_BELLPERSON_H */
