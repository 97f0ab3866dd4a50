/*
 * verify.c -- zk_bp_verify: a 192-byte bellperson proof against a
 * verifying key and its public inputs.
 *
 * The proof's points are decoded compressed with every check (flags, the
 * curve, the subgroup); one that does not decode is rejected, not an
 * error.  Accepted when
 *   e(A, B) = e(alpha1, beta2) e(IC, gamma2) e(C, delta2),
 *   IC = ic_0 + sum_i x_i ic_(i+1),
 * checked as one product of four pairings equal to one.
 */
#include <string.h>

#include "bp_internal.h"
#include "zk/ec.h"
#include "zk/error.h"
#include "zk/pairing.h"

int zk_bp_verify(const zk_bp_vk *vk, const uint8_t *public_inputs, size_t n_public,
                 const uint8_t proof[ZK_BP_PROOF_BYTES], struct zk_diag *diag)
{
    bls381_g1_affine P[4], a, c;
    bls381_g2_affine Q[4], b;
    bls381_g1 ic, t;
    int rc;

    if (n_public != (size_t)vk->n_ic - 1)
        return zk_diag_set(diag, "verify", ZK_ELENGTH, "%zu public inputs, the key takes %u",
                           n_public, vk->n_ic - 1);
    for (size_t i = 0; i < n_public; i++) {
        bls381_fr x;
        memcpy(x.l, public_inputs + 32 * i, 32);
        if (!bls381_fr_is_canonical(x.l))
            return zk_diag_set(diag, "verify", ZK_ERANGE, "public input %zu is not below r", i);
    }
    if (bls381_g1_from_compressed(&a, proof, 0) != 0 ||
        bls381_g2_from_compressed(&b, proof + 48, 0) != 0 ||
        bls381_g1_from_compressed(&c, proof + 144, 0) != 0)
        return 0;

    bls381_g1_from_affine(&ic, &vk->ic[0]);
    for (size_t i = 0; i < n_public; i++) {
        bls381_fr x;
        memcpy(x.l, public_inputs + 32 * i, 32);
        bls381_g1_from_affine(&t, &vk->ic[i + 1]);
        bls381_g1_mul(&t, &t, x.l, 256);
        bls381_g1_add(&ic, &ic, &t);
    }
    bls381_g1_affine_neg(&P[0], &a);
    Q[0] = b;
    P[1] = vk->alpha_g1;
    Q[1] = vk->beta_g2;
    bls381_g1_to_affine(&P[2], &ic);
    Q[2] = vk->gamma_g2;
    P[3] = c;
    Q[3] = vk->delta_g2;
    rc = bls381_pairing_product_is_one(P, Q, 4);
    if (rc < 0)
        return zk_diag_set(diag, "verify", rc, "pairing: %s", zk_strerror(rc));
    return rc ? 1 : 0;
}
