/*
 * test_field.c -- the four prime fields (common/ff/fields.h) against GMP.
 *
 * Every constant of consts.h / fields.h is re-derived with GMP from the curve
 * parameters (BN254: u = 4965661367192848881, BLS12-381: x = -0xd201000000010000).
 * Every operation is checked on seeded random values mixed with edge values
 * (0, 1, 2, p-1, p-2, (p+-1)/2, all-ones limbs below p, small and sparse
 * values).  Elements are built directly as x*R mod p with GMP, so each
 * operation is checked independently of to_mont/from_mont (which are checked
 * on their own).  Where the build uses the x86-64 assembly (ZK_FF_ASM) it is
 * also compared with the portable C limb by limb.  test_field_noasm.c builds
 * this same file with ZK_NO_ASM so the portable code runs every check too.
 * For the two base fields, the double-width steps of lazy reduction
 * (mul_wide, redc) and Fp2 (tower.h) multiplication in both forms
 * (fp2_tmpl.h: three Montgomery products, and lazy) and squaring are
 * checked against GMP the same way, with the bounds' edge cases.
 */
#include <gmp.h>
#include <string.h>

#include "ff/tower.h"
#include "zktest.h"

#define NRAND 4000          /* random cases per operation and field */

/* ---- one table per field: wrappers around the static inline functions ---- */

typedef struct {
    const char *name;
    size_t n, nbytes;
    int is_base;                          /* has sqrt */
    const limb_t *P, *ONE, *R2, *PM2, *SQRT, *INVK;
    limb_t N0;
    void (*add)(limb_t *, const limb_t *, const limb_t *);
    void (*sub)(limb_t *, const limb_t *, const limb_t *);
    void (*mul)(limb_t *, const limb_t *, const limb_t *);
    void (*mul_c)(limb_t *, const limb_t *, const limb_t *);
    void (*dbl)(limb_t *, const limb_t *);
    void (*neg)(limb_t *, const limb_t *);
    void (*sqr)(limb_t *, const limb_t *);
    void (*inv)(limb_t *, const limb_t *);
    void (*inv_fermat)(limb_t *, const limb_t *);
    int (*inv_gcd)(limb_t *, const limb_t *);
    void (*to_mont)(limb_t *, const limb_t *);
    void (*from_mont)(limb_t *, const limb_t *);
    void (*from_u64)(limb_t *, uint64_t);
    void (*pow)(limb_t *, const limb_t *, const limb_t *, size_t);
    int (*sqrt)(limb_t *, const limb_t *);
    void (*batch_inv)(limb_t *, const limb_t *, size_t, limb_t *);
    void (*to_le)(uint8_t *, const limb_t *);
    void (*to_be)(uint8_t *, const limb_t *);
    int (*from_le)(limb_t *, const uint8_t *);
    int (*from_be)(limb_t *, const uint8_t *);
    int (*is_zero)(const limb_t *);
    int (*is_one)(const limb_t *);
    int (*eq)(const limb_t *, const limb_t *);
    int (*is_canonical)(const limb_t *);
    void (*one)(limb_t *);
    void (*zero)(limb_t *);
} field_t;

#define WRAP(F, NL)                                                                     \
    static void F##_w_add(limb_t *r, const limb_t *a, const limb_t *b)                  \
    { F##_add((F *)r, (const F *)a, (const F *)b); }                                    \
    static void F##_w_sub(limb_t *r, const limb_t *a, const limb_t *b)                  \
    { F##_sub((F *)r, (const F *)a, (const F *)b); }                                    \
    static void F##_w_mul(limb_t *r, const limb_t *a, const limb_t *b)                  \
    { F##_mul((F *)r, (const F *)a, (const F *)b); }                                    \
    static void F##_w_mul_c(limb_t *r, const limb_t *a, const limb_t *b)                \
    { mul_mont_n_c(r, a, b, F##_P_, F##_N0_, NL); }                                     \
    static void F##_w_dbl(limb_t *r, const limb_t *a) { F##_dbl((F *)r, (const F *)a); } \
    static void F##_w_neg(limb_t *r, const limb_t *a) { F##_neg((F *)r, (const F *)a); } \
    static void F##_w_sqr(limb_t *r, const limb_t *a) { F##_sqr((F *)r, (const F *)a); } \
    static void F##_w_inv(limb_t *r, const limb_t *a) { F##_inv((F *)r, (const F *)a); } \
    static void F##_w_inv_fermat(limb_t *r, const limb_t *a)                            \
    { F##_inv_fermat((F *)r, (const F *)a); }                                           \
    static int F##_w_inv_gcd(limb_t *r, const limb_t *a)                                \
    { return inv_gcd_n(r, a, F##_P_, F##_N0_, F##_INVK_, NL); }                         \
    static void F##_w_to_mont(limb_t *r, const limb_t *a)                               \
    { F##_to_mont((F *)r, (const F *)a); }                                              \
    static void F##_w_from_mont(limb_t *r, const limb_t *a)                             \
    { F##_from_mont((F *)r, (const F *)a); }                                            \
    static void F##_w_from_u64(limb_t *r, uint64_t v) { F##_from_u64((F *)r, v); }      \
    static void F##_w_pow(limb_t *r, const limb_t *a, const limb_t *e, size_t nb)       \
    { F##_pow((F *)r, (const F *)a, e, nb); }                                           \
    static void F##_w_batch_inv(limb_t *r, const limb_t *a, size_t n, limb_t *s)        \
    { F##_batch_inv((F *)r, (const F *)a, n, (F *)s); }                                 \
    static void F##_w_to_le(uint8_t *o, const limb_t *a) { F##_to_bytes_le(o, (const F *)a); } \
    static void F##_w_to_be(uint8_t *o, const limb_t *a) { F##_to_bytes_be(o, (const F *)a); } \
    static int F##_w_from_le(limb_t *r, const uint8_t *i) { return F##_from_bytes_le((F *)r, i); } \
    static int F##_w_from_be(limb_t *r, const uint8_t *i) { return F##_from_bytes_be((F *)r, i); } \
    static int F##_w_is_zero(const limb_t *a) { return F##_is_zero((const F *)a); }     \
    static int F##_w_is_one(const limb_t *a) { return F##_is_one((const F *)a); }       \
    static int F##_w_eq(const limb_t *a, const limb_t *b)                               \
    { return F##_eq((const F *)a, (const F *)b); }                                      \
    static int F##_w_is_canonical(const limb_t *a) { return F##_is_canonical(a); }      \
    static void F##_w_one(limb_t *r) { F##_one((F *)r); }                               \
    static void F##_w_zero(limb_t *r) { F##_zero((F *)r); }

#define WRAP_SQRT(F)                                                                    \
    static int F##_w_sqrt(limb_t *r, const limb_t *a) { return F##_sqrt((F *)r, (const F *)a); }

#define bn254_fp_N0_ BN254_FP_N0
#define bn254_fr_N0_ BN254_FR_N0
#define bls381_fp_N0_ BLS381_FP_N0
#define bls381_fr_N0_ BLS381_FR_N0

WRAP(bn254_fp, 4)
WRAP(bn254_fr, 4)
WRAP(bls381_fp, 6)
WRAP(bls381_fr, 4)
WRAP_SQRT(bn254_fp)
WRAP_SQRT(bls381_fp)

#define TABLE(F, NL, NB, BASE, SQRTF, SQRTC)                                             \
    { #F, NL, NB, BASE, F##_P_, F##_ONE_, F##_R2_, F##_PM2_, SQRTC, F##_INVK_, F##_N0_,  \
      F##_w_add, F##_w_sub, F##_w_mul, F##_w_mul_c, F##_w_dbl, F##_w_neg, F##_w_sqr,     \
      F##_w_inv, F##_w_inv_fermat, F##_w_inv_gcd, F##_w_to_mont, F##_w_from_mont, F##_w_from_u64, F##_w_pow, SQRTF,       \
      F##_w_batch_inv, F##_w_to_le, F##_w_to_be, F##_w_from_le, F##_w_from_be,           \
      F##_w_is_zero, F##_w_is_one, F##_w_eq, F##_w_is_canonical, F##_w_one, F##_w_zero }

static const field_t FIELDS[] = {
    TABLE(bn254_fp, 4, 32, 1, bn254_fp_w_sqrt, bn254_fp_SQRT_),
    TABLE(bn254_fr, 4, 32, 0, NULL, NULL),
    TABLE(bls381_fp, 6, 48, 1, bls381_fp_w_sqrt, bls381_fp_SQRT_),
    TABLE(bls381_fr, 4, 32, 0, NULL, NULL),
};

/* ---- GMP helpers ---------------------------------------------------------- */

static void to_mpz(mpz_t z, const limb_t *a, size_t n)
{
    mpz_import(z, n, -1, sizeof(limb_t), 0, 0, a);
}

static void from_mpz(limb_t *a, const mpz_t z, size_t n)
{
    size_t cnt = 0;
    memset(a, 0, n * sizeof(limb_t));
    if (mpz_sizeinbase(z, 2) > 64 * n || mpz_sgn(z) < 0) {
        zt_fail_at(__FILE__, __LINE__, "from_mpz", " value does not fit");
        return;
    }
    mpz_export(a, &cnt, -1, sizeof(limb_t), 0, 0, z);
}

static int limbs_eq_mpz(const limb_t *a, const mpz_t z, size_t n)
{
    limb_t t[2 * ZK_MAX_LIMBS];                 /* double-width values too */
    from_mpz(t, z, n);
    return memcmp(t, a, n * sizeof(limb_t)) == 0;
}

/* per-field GMP context */
typedef struct {
    const field_t *f;
    mpz_t p, R, Rinv;
} ctx_t;

/* Montgomery limbs of the canonical integer x (computed with GMP only) */
static void mont_of(const ctx_t *c, limb_t *out, const mpz_t x)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul(t, x, c->R);
    mpz_mod(t, t, c->p);
    from_mpz(out, t, c->f->n);
    mpz_clear(t);
}

/* canonical integer of Montgomery limbs (GMP only) */
static void value_of(const ctx_t *c, mpz_t x, const limb_t *a)
{
    to_mpz(x, a, c->f->n);
    mpz_mul(x, x, c->Rinv);
    mpz_mod(x, x, c->p);
}

/* A random canonical integer < p: uniform most of the time, else an edge value. */
static void rand_value(const ctx_t *c, mpz_t x)
{
    size_t n = c->f->n;
    limb_t l[ZK_MAX_LIMBS];
    uint64_t kind = zt_rand64() % 16;
    for (size_t i = 0; i < n; i++)
        l[i] = zt_rand64();
    switch (kind) {
    case 0:                                     /* small */
        mpz_set_ui(x, zt_rand64() % 4);
        return;
    case 1:                                     /* p - small */
        mpz_sub_ui(x, c->p, 1 + zt_rand64() % 3);
        return;
    case 2: {                                   /* low limbs all ones */
        size_t k = zt_rand64() % n;
        for (size_t i = 0; i < n; i++)
            l[i] = i < k ? ~(limb_t)0 : 0;
        break;
    }
    case 3: {                                   /* p's top limb - 1, the rest all ones */
        for (size_t i = 0; i + 1 < n; i++)
            l[i] = ~(limb_t)0;
        l[n - 1] = c->f->P[n - 1] - 1;
        break;
    }
    case 4:                                     /* (p +- 1) / 2 */
        mpz_add_ui(x, c->p, zt_rand64() & 1 ? 1 : 0);
        mpz_sub_ui(x, x, zt_rand64() & 1 ? 0 : 1);
        mpz_fdiv_q_2exp(x, x, 1);
        return;
    case 5:                                     /* sparse */
        for (size_t i = 0; i < n; i++)
            l[i] &= zt_rand64() & zt_rand64();
        break;
    default:
        break;
    }
    to_mpz(x, l, n);
    mpz_mod(x, x, c->p);
}

/* A random element: returns its value in x and its Montgomery limbs in a. */
static void rand_elem(const ctx_t *c, mpz_t x, limb_t *a)
{
    rand_value(c, x);
    mont_of(c, a, x);
}

/* ---- constants -------------------------------------------------------------- */

static void curve_moduli(const char *name, mpz_t p)
{
    mpz_t u, t;
    mpz_inits(u, t, NULL);
    if (!strncmp(name, "bn254", 5)) {
        /* p = 36u^4 + 36u^3 + 24u^2 + 6u + 1, r = 36u^4 + 36u^3 + 18u^2 + 6u + 1 */
        mpz_set_str(u, "4965661367192848881", 10);
        int fp = !strcmp(name, "bn254_fp");
        mpz_set_ui(p, 36);
        mpz_mul(p, p, u); mpz_add_ui(p, p, 36);
        mpz_mul(p, p, u); mpz_add_ui(p, p, fp ? 24 : 18);
        mpz_mul(p, p, u); mpz_add_ui(p, p, 6);
        mpz_mul(p, p, u); mpz_add_ui(p, p, 1);
    } else {
        /* x = -0xd201000000010000; r = x^4 - x^2 + 1, p = (x-1)^2 r / 3 + x */
        mpz_set_str(u, "-d201000000010000", 16);
        mpz_t r;
        mpz_init(r);
        mpz_pow_ui(r, u, 4);
        mpz_pow_ui(t, u, 2);
        mpz_sub(r, r, t);
        mpz_add_ui(r, r, 1);
        if (!strcmp(name, "bls381_fr")) {
            mpz_set(p, r);
        } else {
            mpz_sub_ui(t, u, 1);
            mpz_mul(t, t, t);
            mpz_mul(t, t, r);
            mpz_divexact_ui(t, t, 3);
            mpz_add(p, t, u);
        }
        mpz_clear(r);
    }
    mpz_clears(u, t, NULL);
}

static void check_constants(const ctx_t *c)
{
    const field_t *f = c->f;
    size_t n = f->n;
    mpz_t p, t, m;
    mpz_inits(p, t, m, NULL);

    curve_moduli(f->name, p);
    ZT_CHECK(mpz_cmp(p, c->p) == 0, "%s: P differs from the curve parameter", f->name);
    ZT_CHECK(mpz_probab_prime_p(p, 30) > 0, "%s: p not prime", f->name);
    ZT_CHECK(mpz_sizeinbase(p, 2) == (n == 6 ? 381u : 254u + (f->name[0] == 'b' && f->name[1] == 'l' ? 1u : 0u)),
             "%s: bit length %zu", f->name, mpz_sizeinbase(p, 2));
    ZT_CHECK(f->P[n - 1] < 0x7fffffffffffffffULL, "%s: no spare bit", f->name);
    ZT_CHECK(f->nbytes * 8 >= mpz_sizeinbase(p, 2) && f->nbytes == 8 * n, "%s", f->name);

    mpz_mod(t, c->R, p);                                       /* ONE = R mod p */
    ZT_CHECK(limbs_eq_mpz(f->ONE, t, n), "%s: ONE", f->name);
    mpz_mul(t, c->R, c->R);                                    /* R2 = R^2 mod p */
    mpz_mod(t, t, p);
    ZT_CHECK(limbs_eq_mpz(f->R2, t, n), "%s: R2", f->name);
    mpz_setbit(m, 64);                                         /* N0 = -p^-1 mod 2^64 */
    mpz_invert(t, p, m);
    mpz_sub(t, m, t);
    ZT_CHECK(mpz_get_ui(t) == f->N0 && mpz_sizeinbase(t, 2) <= 64, "%s: N0", f->name);
    ZT_CHECK((limb_t)(f->N0 * f->P[0]) == ~(limb_t)0, "%s: N0 * p0 != -1", f->name);
    mpz_sub_ui(t, p, 2);                                       /* PM2 = p - 2 */
    ZT_CHECK(limbs_eq_mpz(f->PM2, t, n), "%s: PM2", f->name);
    /* INVK = 2^(33 * batches) * R^3 mod p */
    mpz_set_ui(t, 0);
    mpz_setbit(t, 33 * ZK_INV_BATCHES(n));
    mpz_mul(t, t, c->R); mpz_mul(t, t, c->R); mpz_mul(t, t, c->R);
    mpz_mod(t, t, p);
    ZT_CHECK(limbs_eq_mpz(f->INVK, t, n), "%s: INVK", f->name);
    if (f->is_base) {
        ZT_CHECK(mpz_fdiv_ui(p, 4) == 3, "%s: p != 3 mod 4", f->name);
        mpz_add_ui(t, p, 1);                                   /* (p+1)/4 */
        mpz_fdiv_q_2exp(t, t, 2);
        ZT_CHECK(limbs_eq_mpz(f->SQRT, t, n), "%s: (p+1)/4", f->name);
    }
    mpz_clears(p, t, m, NULL);
}

/* ---- the operations ------------------------------------------------------ */

static void check_arith(const ctx_t *c)
{
    const field_t *f = c->f;
    size_t n = f->n;
    mpz_t x, y, z, m;
    limb_t a[ZK_MAX_LIMBS], b[ZK_MAX_LIMBS], r[ZK_MAX_LIMBS], r2[ZK_MAX_LIMBS];
    mpz_inits(x, y, z, m, NULL);

    for (int it = 0; it < NRAND; it++) {
        rand_elem(c, x, a);
        rand_elem(c, y, b);

        f->add(r, a, b);
        mpz_add(z, x, y); mpz_mod(z, z, c->p); mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s add it=%d", f->name, it);
        f->sub(r, a, b);
        mpz_sub(z, x, y); mpz_mod(z, z, c->p); mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s sub it=%d", f->name, it);
        f->dbl(r, a);
        mpz_add(z, x, x); mpz_mod(z, z, c->p); mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s dbl it=%d", f->name, it);
        f->neg(r, a);
        mpz_neg(z, x); mpz_mod(z, z, c->p); mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s neg it=%d", f->name, it);
        f->mul(r, a, b);
        mpz_mul(z, x, y); mpz_mod(z, z, c->p); mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s mul it=%d", f->name, it);
        f->mul_c(r, a, b);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s mul (portable C) it=%d", f->name, it);
        f->sqr(r, a);
        mpz_mul(z, x, x); mpz_mod(z, z, c->p); mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s sqr it=%d", f->name, it);

        /* Montgomery multiplication of raw (non-Montgomery) limbs: a*b/R */
        mpz_mul(z, x, y); mpz_mul(z, z, c->Rinv); mpz_mod(z, z, c->p);
        limb_t xa[ZK_MAX_LIMBS], yb[ZK_MAX_LIMBS];
        from_mpz(xa, x, n);
        from_mpz(yb, y, n);
        mul_mont_n(r, xa, yb, f->P, f->N0, n);
        ZT_CHECK(limbs_eq_mpz(r, z, n), "%s mul_mont_n raw it=%d", f->name, it);

        /* aliasing: ret = a = b */
        memcpy(r, a, 8 * n);
        f->mul(r, r, r);
        mpz_mul(z, x, x); mpz_mod(z, z, c->p);
        mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s mul aliased it=%d", f->name, it);
        memcpy(r, a, 8 * n);
        f->sub(r, b, r);
        mpz_sub(z, y, x); mpz_mod(z, z, c->p); mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s sub aliased it=%d", f->name, it);
        memcpy(r, a, 8 * n);
        f->add(r, r, b);
        mpz_add(z, x, y); mpz_mod(z, z, c->p); mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s add aliased it=%d", f->name, it);
        memcpy(r, a, 8 * n);
        f->sub(r, r, r);                        /* a - a, all three the same */
        ZT_CHECK(f->is_zero(r), "%s sub self it=%d", f->name, it);

        /* predicates */
        ZT_CHECK(f->is_zero(a) == (mpz_sgn(x) == 0), "%s is_zero", f->name);
        ZT_CHECK(f->is_one(a) == (mpz_cmp_ui(x, 1) == 0), "%s is_one", f->name);
        ZT_CHECK(f->eq(a, b) == (mpz_cmp(x, y) == 0), "%s eq", f->name);
        ZT_CHECK(f->eq(a, a), "%s eq self", f->name);

        /* to / from Montgomery form */
        from_mpz(xa, x, n);
        f->to_mont(r, xa);
        ZT_CHECK(!memcmp(r, a, 8 * n), "%s to_mont it=%d", f->name, it);
        f->from_mont(r, a);
        ZT_CHECK(limbs_eq_mpz(r, x, n), "%s from_mont it=%d", f->name, it);
    }
    mpz_clears(x, y, z, m, NULL);
}

static void check_small(const ctx_t *c)
{
    const field_t *f = c->f;
    size_t n = f->n;
    limb_t r[ZK_MAX_LIMBS], r2[ZK_MAX_LIMBS];
    mpz_t z;
    mpz_init(z);

    f->one(r);
    mpz_set_ui(z, 1); mont_of(c, r2, z);
    ZT_CHECK(!memcmp(r, r2, 8 * n) && f->is_one(r), "%s one", f->name);
    f->zero(r);
    ZT_CHECK(f->is_zero(r) && !f->is_one(r), "%s zero", f->name);
    for (int it = 0; it < NRAND; it++) {
        uint64_t v = zt_rand64();
        if (it < 4)
            v = (uint64_t[]){ 0, 1, 2, UINT64_MAX }[it];
        else if (it % 3 == 0)
            v >>= zt_rand64() % 64;
        f->from_u64(r, v);
        mpz_set_ui(z, v); mpz_mod(z, z, c->p); mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s from_u64(%llu)", f->name, (unsigned long long)v);
    }
    mpz_clear(z);
}

static void check_inv_pow_sqrt(const ctx_t *c)
{
    const field_t *f = c->f;
    size_t n = f->n;
    mpz_t x, y, z, e;
    limb_t a[ZK_MAX_LIMBS], r[ZK_MAX_LIMBS], r2[ZK_MAX_LIMBS], el[ZK_MAX_LIMBS];
    mpz_inits(x, y, z, e, NULL);

    for (int it = 0; it < NRAND; it++) {
        rand_elem(c, x, a);
        if (it == 0) { mpz_set_ui(x, 0); mont_of(c, a, x); }
        if (it == 1) { mpz_set_ui(x, 1); mont_of(c, a, x); }
        if (it == 2) { mpz_sub_ui(x, c->p, 1); mont_of(c, a, x); }

        /* inv, with 0 -> 0 */
        f->inv(r, a);
        if (mpz_sgn(x) == 0)
            mpz_set_ui(z, 0);
        else
            mpz_invert(z, x, c->p);
        mont_of(c, r2, z);
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s inv it=%d", f->name, it);
        memcpy(r, a, 8 * n);
        f->inv(r, r);                                            /* aliased */
        ZT_CHECK(!memcmp(r, r2, 8 * n), "%s inv aliased it=%d", f->name, it);
        if (it % 4 == 0) {
            f->inv_fermat(r, a);
            ZT_CHECK(!memcmp(r, r2, 8 * n), "%s inv_fermat it=%d", f->name, it);
        }
        /* the binary GCD itself must succeed (not lean on the fallback) */
        memset(r, 0, sizeof r);
        int ok = f->inv_gcd(r, a);
        ZT_CHECK(ok == (mpz_sgn(x) != 0), "%s inv_gcd verdict it=%d", f->name, it);
        if (ok)
            ZT_CHECK(!memcmp(r, r2, 8 * n), "%s inv_gcd it=%d", f->name, it);

        /* pow with a random exponent of random bit length (only a few: slow) */
        if (it % 8 == 0) {
            size_t nbits = zt_rand64() % (64 * n + 1);
            for (size_t i = 0; i < n; i++)
                el[i] = zt_rand64();
            to_mpz(e, el, n);
            mpz_fdiv_r_2exp(e, e, nbits);
            f->pow(r, a, el, nbits);
            mpz_powm(z, x, e, c->p);
            mont_of(c, r2, z);
            ZT_CHECK(!memcmp(r, r2, 8 * n), "%s pow nbits=%zu it=%d", f->name, nbits, it);
        }

        if (f->sqrt && it % 2 == 0) {
            /* a square: x^2 */
            mpz_mul(y, x, x); mpz_mod(y, y, c->p);
            mont_of(c, a, y);
            int ok = f->sqrt(r, a);
            value_of(c, z, r);
            mpz_mul(z, z, z); mpz_mod(z, z, c->p);
            ZT_CHECK(ok == 1 && mpz_cmp(z, y) == 0, "%s sqrt of a square it=%d", f->name, it);
            /* a random value: a square iff its Legendre symbol is not -1 */
            rand_elem(c, y, a);
            ok = f->sqrt(r, a);
            int leg = mpz_legendre(y, c->p);
            ZT_CHECK(ok == (leg >= 0), "%s sqrt verdict it=%d legendre=%d", f->name, it, leg);
            if (ok) {
                value_of(c, z, r);
                mpz_mul(z, z, z); mpz_mod(z, z, c->p);
                ZT_CHECK(mpz_cmp(z, y) == 0, "%s sqrt it=%d", f->name, it);
            }
        }
    }
    if (f->sqrt) {
        /* -1 is a non-square when p = 3 mod 4 */
        mpz_sub_ui(y, c->p, 1);
        mont_of(c, a, y);
        ZT_CHECK(f->sqrt(r, a) == 0, "%s sqrt(-1) must fail", f->name);
        mpz_set_ui(y, 0);
        mont_of(c, a, y);
        ZT_CHECK(f->sqrt(r, a) == 1 && f->is_zero(r), "%s sqrt(0)", f->name);
    }
    mpz_clears(x, y, z, e, NULL);
}

static void check_batch_inv(const ctx_t *c)
{
    const field_t *f = c->f;
    size_t n = f->n;
    enum { MAXB = 70 };
    limb_t packed_in[MAXB * ZK_MAX_LIMBS], packed_out[MAXB * ZK_MAX_LIMBS],
           packed_scr[MAXB * ZK_MAX_LIMBS];
    mpz_t x[MAXB], z;
    mpz_init(z);
    for (int i = 0; i < MAXB; i++)
        mpz_init(x[i]);

    for (int it = 0; it < 200; it++) {
        size_t cnt = it < 3 ? (size_t)it : zt_rand64() % MAXB;
        int zero_rate = (int)(zt_rand64() % 4);                 /* 0: none .. 3: many */
        for (size_t i = 0; i < cnt; i++) {
            rand_elem(c, x[i], packed_in + i * n);
            if (zero_rate && zt_rand64() % (8 >> zero_rate) == 0) {
                mpz_set_ui(x[i], 0);
                mont_of(c, packed_in + i * n, x[i]);
            }
        }
        int alias = (int)(zt_rand64() & 1);
        limb_t *dst = alias ? packed_in : packed_out;
        if (alias)
            memcpy(packed_out, packed_in, cnt * n * 8);         /* keep a copy */
        f->batch_inv(dst, packed_in, cnt, packed_scr);
        for (size_t i = 0; i < cnt; i++) {
            if (mpz_sgn(x[i]) == 0)
                mpz_set_ui(z, 0);
            else
                mpz_invert(z, x[i], c->p);
            limb_t r2[ZK_MAX_LIMBS];
            mont_of(c, r2, z);
            ZT_CHECK(!memcmp(dst + i * n, r2, 8 * n), "%s batch_inv it=%d i=%zu/%zu alias=%d",
                     f->name, it, i, cnt, alias);
        }
    }
    for (int i = 0; i < MAXB; i++)
        mpz_clear(x[i]);
    mpz_clear(z);
}

static void check_bytes(const ctx_t *c)
{
    const field_t *f = c->f;
    size_t n = f->n, nb = f->nbytes;
    mpz_t x, z;
    limb_t a[ZK_MAX_LIMBS], r[ZK_MAX_LIMBS];
    uint8_t le[48], be[48], ref[48];
    mpz_inits(x, z, NULL);

    for (int it = 0; it < NRAND; it++) {
        rand_elem(c, x, a);
        size_t cnt = 0;
        memset(ref, 0, sizeof ref);
        mpz_export(ref, &cnt, -1, 1, 0, 0, x);                /* little endian */
        f->to_le(le, a);
        ZT_CHECK(!memcmp(le, ref, nb), "%s to_bytes_le it=%d", f->name, it);
        f->to_be(be, a);
        for (size_t i = 0; i < nb; i++)
            ZT_CHECK(be[i] == ref[nb - 1 - i], "%s to_bytes_be it=%d byte %zu", f->name, it, i);
        memset(r, 0xa5, sizeof r);
        ZT_CHECK(f->from_le(r, le) == 0 && !memcmp(r, a, 8 * n), "%s from_bytes_le it=%d", f->name, it);
        memset(r, 0xa5, sizeof r);
        ZT_CHECK(f->from_be(r, be) == 0 && !memcmp(r, a, 8 * n), "%s from_bytes_be it=%d", f->name, it);
    }

    /* non-canonical encodings: p, p+1, p + random, 2^(8*nb) - 1, random >= p */
    for (int it = 0; it < 1000; it++) {
        switch (it) {
        case 0: mpz_set(z, c->p); break;
        case 1: mpz_add_ui(z, c->p, 1); break;
        case 2: mpz_set_ui(z, 0); mpz_setbit(z, 8 * nb); mpz_sub_ui(z, z, 1); break;
        case 3: mpz_mul_2exp(z, c->p, 1); mpz_sub_ui(z, z, 1); break;
        default: {
            uint8_t rb[48];
            zt_rand_bytes(rb, nb);
            mpz_import(z, nb, -1, 1, 0, 0, rb);
            if (mpz_cmp(z, c->p) < 0)
                mpz_add(z, z, c->p);
            if (mpz_sizeinbase(z, 2) > 8 * nb)
                mpz_set(z, c->p);
        }
        }
        size_t cnt = 0;
        memset(le, 0, sizeof le);
        mpz_export(le, &cnt, -1, 1, 0, 0, z);
        for (size_t i = 0; i < nb; i++)
            be[i] = le[nb - 1 - i];
        memset(r, 0x5a, sizeof r);
        limb_t keep[ZK_MAX_LIMBS];
        memcpy(keep, r, sizeof r);
        ZT_CHECK(f->from_le(r, le) == -1, "%s non-canonical LE accepted it=%d", f->name, it);
        ZT_CHECK(f->from_be(r, be) == -1, "%s non-canonical BE accepted it=%d", f->name, it);
        ZT_CHECK(!memcmp(r, keep, sizeof r), "%s rejected input wrote ret", f->name);
        limb_t l[ZK_MAX_LIMBS];
        from_mpz(l, z, n);
        ZT_CHECK(!f->is_canonical(l), "%s is_canonical(>= p)", f->name);
    }
    /* p - 1 is the largest accepted value */
    mpz_sub_ui(z, c->p, 1);
    size_t cnt = 0;
    memset(le, 0, sizeof le);
    mpz_export(le, &cnt, -1, 1, 0, 0, z);
    ZT_CHECK(f->from_le(r, le) == 0, "%s p-1 rejected", f->name);
    mont_of(c, a, z);
    ZT_CHECK(!memcmp(r, a, 8 * n), "%s from_bytes_le(p-1)", f->name);
    mpz_clears(x, z, NULL);
}

/* ---- double-width steps and Fp2 (base fields only) --------------------------- */

typedef struct {
    const char *field;                    /* the base field's name in FIELDS */
    void (*mul_wide)(limb_t *, const limb_t *, const limb_t *);
    void (*redc)(limb_t *, const limb_t *);
    void (*mul)(limb_t *, const limb_t *, const limb_t *);      /* on c0 c1 */
    void (*mul_3m)(limb_t *, const limb_t *, const limb_t *);
    void (*mul_lazy)(limb_t *, const limb_t *, const limb_t *);
    void (*sqr)(limb_t *, const limb_t *);
} fp2_ops_t;

#define WRAP_FP2(E, F)                                                                  \
    static void E##_w_mul_wide(limb_t *r, const limb_t *a, const limb_t *b)             \
    { F##_mul_wide(r, a, b); }                                                          \
    static void E##_w_redc(limb_t *r, const limb_t *t) { F##_redc((F *)r, t); }         \
    static void E##_w_mul(limb_t *r, const limb_t *a, const limb_t *b)                  \
    { E##_mul((E *)r, (const E *)a, (const E *)b); }                                    \
    static void E##_w_mul_3m(limb_t *r, const limb_t *a, const limb_t *b)               \
    { E##_mul_3m((E *)r, (const E *)a, (const E *)b); }                                 \
    static void E##_w_mul_lazy(limb_t *r, const limb_t *a, const limb_t *b)             \
    { E##_mul_lazy((E *)r, (const E *)a, (const E *)b); }                               \
    static void E##_w_sqr(limb_t *r, const limb_t *a) { E##_sqr((E *)r, (const E *)a); }

WRAP_FP2(bn254_fp2, bn254_fp)
WRAP_FP2(bls381_fp2, bls381_fp)

#define FP2_TABLE(E, F)                                                                 \
    { #F, E##_w_mul_wide, E##_w_redc, E##_w_mul, E##_w_mul_3m, E##_w_mul_lazy,          \
      E##_w_sqr }

static const fp2_ops_t FP2S[] = {
    FP2_TABLE(bn254_fp2, bn254_fp),
    FP2_TABLE(bls381_fp2, bls381_fp),
};

/* Montgomery limbs a = raw (p - 1 when top, else 0) and their value x */
static void raw_edge(const ctx_t *c, mpz_t x, limb_t *a, int top)
{
    mpz_set_ui(x, 0);
    if (top)
        mpz_sub_ui(x, c->p, 1);
    from_mpz(a, x, c->f->n);
    value_of(c, x, a);
}

/*
 * An Fp2 operand (values x0, x1 and Montgomery limbs a[0..2n)): random or
 * edge (rand_value), and in a quarter of the cases one coordinate's limbs
 * forced to 0 or p - 1 so that a0b0 - a1b1 on the limbs borrows (or not) in
 * the double-width form and the sums a0 + a1 reach 2p - 2.
 */
static void rand_fp2(const ctx_t *c, mpz_t x0, mpz_t x1, limb_t *a)
{
    size_t n = c->f->n;
    rand_elem(c, x0, a);
    rand_elem(c, x1, a + n);
    switch (zt_rand64() % 8) {
    case 0: raw_edge(c, x0, a, 0); break;
    case 1: raw_edge(c, x1, a + n, 1); break;
    case 2: raw_edge(c, x0, a, 1); break;
    default: break;
    }
}

static void check_fp2(const ctx_t *c, const fp2_ops_t *e)
{
    size_t n = c->f->n;
    mpz_t x0, x1, y0, y1, z0, z1, t, pR;
    limb_t a[2 * ZK_MAX_LIMBS], b[2 * ZK_MAX_LIMBS], r[2 * ZK_MAX_LIMBS];
    limb_t w[2 * ZK_MAX_LIMBS], wc[2 * ZK_MAX_LIMBS], want[2 * ZK_MAX_LIMBS];
    mpz_inits(x0, x1, y0, y1, z0, z1, t, pR, NULL);
    mpz_mul(pR, c->p, c->R);

    /* mul_wide on any n-limb values (the lazy form multiplies sums < 2p) */
    for (int it = 0; it < NRAND; it++) {
        for (size_t i = 0; i < n; i++) {
            a[i] = zt_rand64();
            b[i] = zt_rand64();
        }
        if (it < 3) {                           /* all ones, and 2p - 1 */
            for (size_t i = 0; i < n; i++)
                a[i] = b[i] = ~(limb_t)0;
            if (it > 0) {
                mpz_mul_2exp(t, c->p, 1);
                mpz_sub_ui(t, t, 1);
                from_mpz(a, t, n);
                if (it > 1)
                    from_mpz(b, t, n);
            }
        }
        e->mul_wide(w, a, b);
        mul_wide_n_c(wc, a, b, n);
        to_mpz(z0, a, n);
        to_mpz(z1, b, n);
        mpz_mul(t, z0, z1);
        ZT_CHECK(limbs_eq_mpz(w, t, 2 * n), "%s mul_wide it=%d", c->f->name, it);
        ZT_CHECK(limbs_eq_mpz(wc, t, 2 * n), "%s mul_wide (portable C) it=%d", c->f->name, it);
    }

    /* redc on t < pR: random, and the edges 0, pR - 1, p^2, pR - p^2, p R - R */
    for (int it = 0; it < NRAND; it++) {
        switch (it) {
        case 0: mpz_set_ui(t, 0); break;
        case 1: mpz_sub_ui(t, pR, 1); break;
        case 2: mpz_mul(t, c->p, c->p); break;
        case 3: mpz_mul(t, c->p, c->p); mpz_sub(t, pR, t); break;
        case 4: mpz_sub(t, pR, c->R); break;
        default:
            for (size_t i = 0; i < 2 * n; i++)
                w[i] = zt_rand64();
            to_mpz(t, w, 2 * n);
            mpz_mod(t, t, pR);
            if (it % 4 == 0)                    /* near the top: t_hi = p - 1 */
                mpz_sub_ui(t, pR, 1 + zt_rand64() % 1000);
        }
        from_mpz(w, t, 2 * n);
        e->redc(r, w);
        redc_n_c(wc, w, c->f->P, c->f->N0, n);
        mpz_mul(z0, t, c->Rinv);
        mpz_mod(z0, z0, c->p);
        ZT_CHECK(limbs_eq_mpz(r, z0, n), "%s redc it=%d", c->f->name, it);
        ZT_CHECK(limbs_eq_mpz(wc, z0, n), "%s redc (portable C) it=%d", c->f->name, it);
    }

    /* Fp2: (x0 + x1 u)(y0 + y1 u) = (x0y0 - x1y1) + (x0y1 + x1y0) u, u^2 = -1 */
    for (int it = 0; it < NRAND; it++) {
        rand_fp2(c, x0, x1, a);
        rand_fp2(c, y0, y1, b);
        if (it < 8) {                           /* limbs 0 or p - 1 everywhere */
            raw_edge(c, x0, a, it & 1);
            raw_edge(c, x1, a + n, 1);
            raw_edge(c, y0, b, (it >> 1) & 1);  /* a0b0 = 0 < a1b1: the borrow */
            raw_edge(c, y1, b + n, (it >> 2) & 1);
        }
        mpz_mul(z0, x0, y0);
        mpz_submul(z0, x1, y1);
        mpz_mod(z0, z0, c->p);
        mpz_mul(z1, x0, y1);
        mpz_addmul(z1, x1, y0);
        mpz_mod(z1, z1, c->p);
        mont_of(c, want, z0);
        mont_of(c, want + n, z1);
        e->mul(r, a, b);
        ZT_CHECK(!memcmp(r, want, 16 * n), "%s fp2 mul it=%d", c->f->name, it);
        e->mul_3m(r, a, b);
        ZT_CHECK(!memcmp(r, want, 16 * n), "%s fp2 mul_3m it=%d", c->f->name, it);
        e->mul_lazy(r, a, b);
        ZT_CHECK(!memcmp(r, want, 16 * n), "%s fp2 mul_lazy it=%d", c->f->name, it);
        memcpy(r, a, 16 * n);                   /* aliasing: r = a */
        e->mul_lazy(r, r, b);
        ZT_CHECK(!memcmp(r, want, 16 * n), "%s fp2 mul_lazy aliased it=%d", c->f->name, it);
        memcpy(r, b, 16 * n);
        e->mul(r, a, r);
        ZT_CHECK(!memcmp(r, want, 16 * n), "%s fp2 mul aliased it=%d", c->f->name, it);

        /* squares: (x0^2 - x1^2) + 2 x0 x1 u */
        mpz_mul(z0, x0, x0);
        mpz_submul(z0, x1, x1);
        mpz_mod(z0, z0, c->p);
        mpz_mul(z1, x0, x1);
        mpz_mul_2exp(z1, z1, 1);
        mpz_mod(z1, z1, c->p);
        mont_of(c, want, z0);
        mont_of(c, want + n, z1);
        e->sqr(r, a);
        ZT_CHECK(!memcmp(r, want, 16 * n), "%s fp2 sqr it=%d", c->f->name, it);
        memcpy(r, a, 16 * n);
        e->mul_lazy(r, r, r);
        ZT_CHECK(!memcmp(r, want, 16 * n), "%s fp2 mul_lazy a*a it=%d", c->f->name, it);
    }
    mpz_clears(x0, x1, y0, y1, z0, z1, t, pR, NULL);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    printf("assembly: %s\n", ZK_FF_ASM ? "x86-64 MULX/ADX" : "portable C");
    for (size_t fi = 0; fi < sizeof FIELDS / sizeof FIELDS[0]; fi++) {
        ctx_t c;
        c.f = &FIELDS[fi];
        mpz_inits(c.p, c.R, c.Rinv, NULL);
        to_mpz(c.p, c.f->P, c.f->n);
        mpz_setbit(c.R, 64 * c.f->n);
        mpz_invert(c.Rinv, c.R, c.p);
        int before = zt_failures();
        check_constants(&c);
        check_small(&c);
        check_arith(&c);
        check_inv_pow_sqrt(&c);
        check_batch_inv(&c);
        check_bytes(&c);
        for (size_t ei = 0; ei < sizeof FP2S / sizeof FP2S[0]; ei++) {
            if (!strcmp(FP2S[ei].field, c.f->name))
                check_fp2(&c, &FP2S[ei]);
        }
        printf("%-10s %s\n", c.f->name, zt_failures() == before ? "ok" : "FAILED");
        mpz_clears(c.p, c.R, c.Rinv, NULL);
    }
    return zt_finish();
}
