/*
 * fixed_base_tmpl.h -- fixed-base scalar multiplication with a precomputed
 * table of byte-window multiples: T[j][d] = d * 2^(8j) * G for the 32 byte
 * positions j of a 256-bit scalar and d in [0, 256).  One multiplication is
 * then at most 32 mixed additions.  Used by `zkslot setup`, which multiplies
 * the same generator by hundreds of thousands of scalars.
 * Instantiated per group with ZK_FB_G = bn254_g1, bn254_g2, bls381_g1, ...
 */
#define FBG(name) ZK_CAT(ZK_FB_G, name)
#define FBA ZK_CAT(ZK_FB_G, affine)

#define ZK_FB_WINDOWS 32
#define ZK_FB_DIGITS 256

struct FBG(fixed_base) {
    FBA *t;                   /* ZK_FB_WINDOWS * ZK_FB_DIGITS affine points */
};

/* Builds the table for base g.  Returns 0 or -ENOMEM. */
static int FBG(fixed_base_init)(struct FBG(fixed_base) *fb, const FBA *g)
{
    size_t n = (size_t)ZK_FB_WINDOWS * ZK_FB_DIGITS;
    ZK_FB_G *jac = malloc(n * sizeof *jac);
    void *scratch = malloc(3 * n * sizeof(jac->x));
    fb->t = malloc(n * sizeof *fb->t);
    if (!jac || !scratch || !fb->t) {
        free(jac);
        free(scratch);
        free(fb->t);
        fb->t = NULL;
        return -ENOMEM;
    }
    ZK_FB_G cur;
    FBG(from_affine)(&cur, g);
    for (size_t j = 0; j < ZK_FB_WINDOWS; j++) {
        ZK_FB_G *row = jac + j * ZK_FB_DIGITS;
        FBG(set_inf)(&row[0]);
        row[1] = cur;
        for (size_t d = 2; d < ZK_FB_DIGITS; d++)
            FBG(add)(&row[d], &row[d - 1], &cur);
        FBG(dbl)(&cur, &row[ZK_FB_DIGITS / 2]);      /* 256 * cur */
    }
    FBG(batch_to_affine)(fb->t, jac, n, scratch);
    free(jac);
    free(scratch);
    return 0;
}

static void FBG(fixed_base_done)(struct FBG(fixed_base) *fb)
{
    free(fb->t);
    fb->t = NULL;
}

/* ret = k * g, k a plain 256-bit integer (4 little-endian limbs). */
static void FBG(fixed_base_mul)(ZK_FB_G *ret, const struct FBG(fixed_base) *fb,
                                const limb_t k[4])
{
    FBG(set_inf)(ret);
    for (size_t j = 0; j < ZK_FB_WINDOWS; j++) {
        unsigned d = (unsigned)(k[j / 8] >> (8 * (j % 8))) & 0xff;
        if (d)
            FBG(add_affine)(ret, ret, &fb->t[j * ZK_FB_DIGITS + d]);
    }
}

#undef FBG
#undef FBA
