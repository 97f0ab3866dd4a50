/*
 * store.c -- a bellperson key's points as the key store keeps them
 * (zk/bellperson.h: zk_bp_key_points, zk_bp_key_head, zk_bp_key_over;
 * zk/keystore.h writes and maps the store): the head and the six point
 * sets out of an opened key, and a key over points it borrows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bp_internal.h"
#include "zk/error.h"

_Static_assert(sizeof(bls381_g1_affine) == ZK_BP_G1_WORDS * 8, "G1 affine: 12 limbs");
_Static_assert(sizeof(bls381_g2_affine) == ZK_BP_G2_WORDS * 8, "G2 affine: 24 limbs");

const void *zk_bp_key_points(const zk_bp_key *k, enum zk_bp_set set, uint64_t *n,
                             size_t *point_bytes)
{
    const void *p = NULL;
    uint64_t cnt = 0;
    size_t pb = sizeof(bls381_g1_affine);
    switch (set) {
    case ZK_BP_SET_IC: p = k->vk.ic, cnt = k->info.n_ic; break;
    case ZK_BP_SET_A: p = k->a, cnt = k->info.n_a; break;
    case ZK_BP_SET_B_G1: p = k->b_g1, cnt = k->info.n_b_g1; break;
    case ZK_BP_SET_B_G2: p = k->b_g2, cnt = k->info.n_b_g2, pb = sizeof(bls381_g2_affine); break;
    case ZK_BP_SET_L: p = k->l, cnt = k->info.n_l; break;
    case ZK_BP_SET_H: p = k->h, cnt = k->info.n_h; break;
    default: pb = 0; break;
    }
    if (n)
        *n = cnt;
    if (point_bytes)
        *point_bytes = pb;
    return p;
}

void zk_bp_key_head(const zk_bp_key *k, struct zk_bp_key_head *h)
{
    memset(h, 0, sizeof *h);
    h->info = k->info;
    memcpy(h->alpha_g1, &k->vk.alpha_g1, sizeof h->alpha_g1);
    memcpy(h->beta_g1, &k->vk.beta_g1, sizeof h->beta_g1);
    memcpy(h->delta_g1, &k->vk.delta_g1, sizeof h->delta_g1);
    memcpy(h->beta_g2, &k->vk.beta_g2, sizeof h->beta_g2);
    memcpy(h->gamma_g2, &k->vk.gamma_g2, sizeof h->gamma_g2);
    memcpy(h->delta_g2, &k->vk.delta_g2, sizeof h->delta_g2);
}

static void bp_keep(void *ctx)
{
    (void)ctx;
}

int zk_bp_key_over(const struct zk_bp_key_head *h, const void *const pts[ZK_BP_NSETS],
                   void (*release)(void *ctx), void *ctx, const char *name, zk_bp_key **out,
                   struct zk_diag *diag)
{
    int rc;
    if (h->info.n_ic == 0)
        return zk_diag_set(diag, name, ZK_ELENGTH, "a key without inputs (ic is empty)");
    if ((rc = zk_bp_key_shape(&h->info, name, diag)) != 0)
        return rc;
    if (h->info.log2_domain != zk_bp_log2_domain((uint64_t)h->info.n_h + 1))
        return zk_diag_set(diag, name, ZK_EDOMAIN, "domain 2^%u for %u points of h",
                           h->info.log2_domain, h->info.n_h);
    struct zk_bp_key *k = calloc(1, sizeof *k);
    if (k == NULL)
        return zk_diag_set(diag, name, -ENOMEM, "out of memory");
    k->info = h->info;
    memcpy(&k->vk.alpha_g1, h->alpha_g1, sizeof h->alpha_g1);
    memcpy(&k->vk.beta_g1, h->beta_g1, sizeof h->beta_g1);
    memcpy(&k->vk.delta_g1, h->delta_g1, sizeof h->delta_g1);
    memcpy(&k->vk.beta_g2, h->beta_g2, sizeof h->beta_g2);
    memcpy(&k->vk.gamma_g2, h->gamma_g2, sizeof h->gamma_g2);
    memcpy(&k->vk.delta_g2, h->delta_g2, sizeof h->delta_g2);
    k->vk.n_ic = h->info.n_ic;
    k->vk.ic = (bls381_g1_affine *)pts[ZK_BP_SET_IC];
    k->a = (bls381_g1_affine *)pts[ZK_BP_SET_A];
    k->b_g1 = (bls381_g1_affine *)pts[ZK_BP_SET_B_G1];
    k->b_g2 = (bls381_g2_affine *)pts[ZK_BP_SET_B_G2];
    k->l = (bls381_g1_affine *)pts[ZK_BP_SET_L];
    k->h = (bls381_g1_affine *)pts[ZK_BP_SET_H];
    k->release = release ? release : bp_keep;   /* never freed here */
    k->release_ctx = ctx;
    *out = k;
    return 0;
}
