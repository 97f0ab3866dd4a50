/*
 * tables.c -- the precomputed MSM tables of a loaded Groth16 key (zk/groth16.h,
 * zk_groth16_key_precompute and friends): which points each MSM of the
 * prover uses, the tables' sizes for memory planning, building them in this
 * process, and pointing a key at tables someone else holds (a key store).
 * prove.c reads k->tab[] when it runs the MSMs.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "g16_internal.h"
#include "zk/error.h"
#include "zk/msm.h"
#include "zk/util.h"

/* Point count of MSM m under header h (0 for a bad m). */
static size_t g16_msm_count(const struct zk_zkey_header *h, enum zk_groth16_msm m)
{
    switch (m) {
    case ZK_G16_MSM_H: return h->domain_size;
    case ZK_G16_MSM_A:
    case ZK_G16_MSM_B1:
    case ZK_G16_MSM_B2: return h->n_vars;
    case ZK_G16_MSM_C: return h->n_vars - h->n_public - 1;
    case ZK_G16_MSM_COUNT: break;
    }
    return 0;
}

/* The points of MSM m in k (NULL if k has none). */
static const void *g16_msm_points(const struct zk_groth16_key *k, enum zk_groth16_msm m)
{
    switch (m) {
    case ZK_G16_MSM_H: return k->pt_h;
    case ZK_G16_MSM_A: return k->pt_a;
    case ZK_G16_MSM_B1: return k->pt_b1;
    case ZK_G16_MSM_C: return k->pt_c;
    case ZK_G16_MSM_B2: return k->pt_b2;
    case ZK_G16_MSM_COUNT: break;
    }
    return NULL;
}

size_t zk_groth16_table_size(const struct zk_zkey_header *h, enum zk_groth16_msm m,
                             unsigned factor)
{
    const struct g16_ops *ops = h ? zk_g16_ops(h->curve) : NULL;
    if (!ops || (unsigned)m >= ZK_G16_MSM_COUNT)
        return 0;
    size_t n = g16_msm_count(h, m);
    return m == ZK_G16_MSM_B2 ? ops->msm_g2_table_size(n, factor)
                              : ops->msm_g1_table_size(n, factor);
}

static const char *const precompute_names[] = { "none", "h", "all" };

const char *zk_groth16_precompute_name(enum zk_groth16_precompute which)
{
    return (unsigned)which < 3 ? precompute_names[which] : "?";
}

int zk_groth16_precompute_parse(const char *s, enum zk_groth16_precompute *ret)
{
    const char *const *names = precompute_names;
    for (unsigned i = 0; s && ret && i < 3; i++) {
        if (!strcmp(s, names[i])) {
            *ret = (enum zk_groth16_precompute)i;
            return 0;
        }
    }
    return ZK_EBADPARAMS;
}

/* 1 if `which` selects MSM m. */
static int g16_selects(enum zk_groth16_precompute which, enum zk_groth16_msm m)
{
    return which == ZK_G16_PRECOMPUTE_ALL || (which == ZK_G16_PRECOMPUTE_H && m == ZK_G16_MSM_H);
}

size_t zk_groth16_tables_size(const struct zk_zkey_header *h,
                              enum zk_groth16_precompute which, unsigned factor)
{
    size_t sum = 0;
    for (unsigned m = 0; m < ZK_G16_MSM_COUNT; m++) {
        if (!g16_selects(which, (enum zk_groth16_msm)m))
            continue;
        size_t b = zk_groth16_table_size(h, (enum zk_groth16_msm)m, factor);
        if (!b)
            return 0;
        sum += b;
    }
    return sum;
}

/* Drops k's table for m (freeing it if k built it). */
static void g16_table_drop(struct zk_groth16_key *k, unsigned m)
{
    zk_big_free(k->tab_own[m]);
    k->tab_own[m] = NULL;
    k->tab[m] = NULL;
}

void zk_g16_tables_free(struct zk_groth16_key *k)
{
    for (unsigned m = 0; m < ZK_G16_MSM_COUNT; m++)
        g16_table_drop(k, m);
}

int zk_groth16_key_precompute(struct zk_groth16_key *k, enum zk_groth16_precompute which,
                              unsigned factor, unsigned nthreads)
{
    void *built[ZK_G16_MSM_COUNT] = { NULL };
    int rc = 0;
    if (!k || (unsigned)which > ZK_G16_PRECOMPUTE_ALL ||
        (which != ZK_G16_PRECOMPUTE_NONE && (factor < 1 || factor > ZK_MSM_MAX_FACTOR)))
        return ZK_EBADPARAMS;
    if (which == ZK_G16_PRECOMPUTE_NONE) {
        zk_g16_tables_free(k);
        return 0;
    }
    if (!(k->what & ZK_G16_LOAD_POINTS))
        return ZK_ESTATE;
    for (unsigned m = 0; m < ZK_G16_MSM_COUNT && rc == 0; m++) {
        enum zk_groth16_msm mm = (enum zk_groth16_msm)m;
        if (!g16_selects(which, mm))
            continue;
        size_t n = g16_msm_count(&k->hdr, mm);
        if (!(built[m] = zk_big_alloc(zk_groth16_table_size(&k->hdr, mm, factor)))) {
            rc = -ENOMEM;
            break;
        }
        rc = mm == ZK_G16_MSM_B2
                 ? k->ops->msm_g2_table_build(built[m], g16_msm_points(k, mm), n, factor, nthreads)
                 : k->ops->msm_g1_table_build(built[m], g16_msm_points(k, mm), n, factor, nthreads);
    }
    for (unsigned m = 0; m < ZK_G16_MSM_COUNT; m++) {
        if (!built[m])
            continue;
        if (rc) {                        /* all or nothing */
            zk_big_free(built[m]);
            continue;
        }
        g16_table_drop(k, m);
        k->tab[m] = k->tab_own[m] = built[m];
    }
    return rc;
}

int zk_groth16_key_use_table(struct zk_groth16_key *k, enum zk_groth16_msm m,
                             const struct zk_msm_table *t)
{
    if (!k || (unsigned)m >= ZK_G16_MSM_COUNT)
        return ZK_EBADPARAMS;
    if (t) {
        /* the group and count of m's points; the MSM checks the rest */
        enum zk_msm_group g = k->hdr.curve == ZK_CURVE_BN254
            ? (m == ZK_G16_MSM_B2 ? ZK_MSM_BN254_G2 : ZK_MSM_BN254_G1)
            : (m == ZK_G16_MSM_B2 ? ZK_MSM_BLS381_G2 : ZK_MSM_BLS381_G1);
        if (t->magic != ZK_MSM_TABLE_MAGIC || t->version != ZK_MSM_TABLE_VERSION ||
            t->group != (uint32_t)g || t->n != g16_msm_count(&k->hdr, m))
            return ZK_EBADPARAMS;
    }
    g16_table_drop(k, (unsigned)m);
    k->tab[m] = t;
    return 0;
}

const struct zk_msm_table *zk_groth16_key_table(const struct zk_groth16_key *k,
                                                enum zk_groth16_msm m)
{
    return k && (unsigned)m < ZK_G16_MSM_COUNT ? k->tab[m] : NULL;
}
