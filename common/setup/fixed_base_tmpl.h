/*
 * fixed_base_tmpl.h -- fixed-base scalar multiplication with a precomputed
 * table of byte-window multiples: T[j][d] = d * 2^(8j) * G for the 32 byte
 * positions j of a 256-bit scalar and d in [0, 256).  One multiplication is
 * then at most 32 mixed additions.  Used by `zkslot setup`, which multiplies
 * the same generator by hundreds of thousands of scalars.
 * Instantiated per group by setup.c, each time right after the one line that
 * names the group (undefined at the end of this file):
 *   #define ZK_FIXED_BASE_TMPL (bn254_g1)
 *
 * Generated names (static: the table type and its functions):
 *   bn254_g1_fixed_base bn254_g1_fixed_base_init bn254_g1_fixed_base_done
 *   bn254_g1_fixed_base_mul
 *   bn254_g2_fixed_base bn254_g2_fixed_base_init bn254_g2_fixed_base_done
 *   bn254_g2_fixed_base_mul
 *   bls381_g1_fixed_base bls381_g1_fixed_base_init bls381_g1_fixed_base_done
 *   bls381_g1_fixed_base_mul
 *   bls381_g2_fixed_base bls381_g2_fixed_base_init bls381_g2_fixed_base_done
 *   bls381_g2_fixed_base_mul
 */
#define GROUP_T        ZK_ARG(1, ZK_FIXED_BASE_TMPL)  /* bn254_g1 (Jacobian) */
#define GROUP_AFFINE_T ZK_CAT(GROUP_T, affine)        /* bn254_g1_affine */
#define GROUP_FN(name) ZK_CAT(GROUP_T, name)          /* GROUP_FN(add): bn254_g1_add */

#define ZK_FB_WINDOWS 32
#define ZK_FB_DIGITS 256

struct GROUP_FN(fixed_base) {
    GROUP_AFFINE_T *t;                   /* ZK_FB_WINDOWS * ZK_FB_DIGITS affine points */
};

/* Builds the table for base g.  Returns 0 or -ENOMEM. */
static int GROUP_FN(fixed_base_init)(struct GROUP_FN(fixed_base) *fb, const GROUP_AFFINE_T *g)
{
    size_t n = (size_t)ZK_FB_WINDOWS * ZK_FB_DIGITS;
    GROUP_T *jac = malloc(n * sizeof *jac);
    void *scratch = malloc(3 * n * sizeof(jac->x));
    fb->t = malloc(n * sizeof *fb->t);
    if (!jac || !scratch || !fb->t) {
        free(jac);
        free(scratch);
        free(fb->t);
        fb->t = NULL;
        return -ENOMEM;
    }
    GROUP_T cur;
    GROUP_FN(from_affine)(&cur, g);
    for (size_t j = 0; j < ZK_FB_WINDOWS; j++) {
        GROUP_T *row = jac + j * ZK_FB_DIGITS;
        GROUP_FN(set_inf)(&row[0]);
        row[1] = cur;
        for (size_t d = 2; d < ZK_FB_DIGITS; d++)
            GROUP_FN(add)(&row[d], &row[d - 1], &cur);
        GROUP_FN(dbl)(&cur, &row[ZK_FB_DIGITS / 2]);      /* 256 * cur */
    }
    GROUP_FN(batch_to_affine)(fb->t, jac, n, scratch);
    free(jac);
    free(scratch);
    return 0;
}

static void GROUP_FN(fixed_base_done)(struct GROUP_FN(fixed_base) *fb)
{
    free(fb->t);
    fb->t = NULL;
}

/* ret = k * g, k a plain 256-bit integer (4 little-endian limbs). */
static void GROUP_FN(fixed_base_mul)(GROUP_T *ret, const struct GROUP_FN(fixed_base) *fb,
                                const limb_t k[4])
{
    GROUP_FN(set_inf)(ret);
    for (size_t j = 0; j < ZK_FB_WINDOWS; j++) {
        unsigned d = (unsigned)(k[j / 8] >> (8 * (j % 8))) & 0xff;
        if (d)
            GROUP_FN(add_affine)(ret, ret, &fb->t[j * ZK_FB_DIGITS + d]);
    }
}

#undef GROUP_T
#undef GROUP_AFFINE_T
#undef GROUP_FN
#undef ZK_FIXED_BASE_TMPL
