/*
 * cmd_verify.c -- `zkslot verify VK.json PUBLIC.json PROOF.json` (the order
 * of `snarkjs groth16 verify`): prints OK and exits 0 for a valid proof,
 * prints INVALID and exits 1 for an invalid one, exits 2 with one line
 * naming the file on any error (unreadable or malformed JSON, unknown curve,
 * wrong number of public inputs, an input >= r, a point off the curve).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "g16_cli.h"
#include "zk/error.h"

int cmd_verify(int argc, char **argv)
{
    struct zk_groth16_vk vk;
    struct zk_groth16_proof proof;
    struct zk_diag d = { { 0 } };
    zk_scalar *pub = NULL;
    size_t npub = 0;
    char *vt = NULL, *ut = NULL, *pt = NULL;
    int rc, valid = 0, ret = 2;

    memset(&vk, 0, sizeof vk);
    if (argc != 4) {
        fprintf(stderr, "usage: zkslot verify VK.json PUBLIC.json PROOF.json\n");
        return 2;
    }
    if (!(vt = g16_cli_read_text("verify", argv[1])) ||
        !(ut = g16_cli_read_text("verify", argv[2])) ||
        !(pt = g16_cli_read_text("verify", argv[3])))
        goto out;
    if (zk_groth16_vk_from_json(vt, argv[1], &vk, &d) ||
        zk_groth16_public_from_json(ut, argv[2], &pub, &npub, &d) ||
        zk_groth16_proof_from_json(pt, vk.curve, argv[3], &proof, &d)) {
        fprintf(stderr, "zkslot verify: %s\n", d.msg);
        goto out;
    }
    rc = zk_groth16_verify(&vk, pub, npub, &proof, &valid);
    switch (rc) {
    case 0:
        break;
    case ZK_ELENGTH:
        fprintf(stderr, "zkslot verify: %s: %zu public inputs, the key expects %u\n", argv[2],
                npub, vk.n_public);
        goto out;
    case ZK_ERANGE:
        fprintf(stderr, "zkslot verify: %s: a public input is not below the scalar field "
                        "order r\n", argv[2]);
        goto out;
    case ZK_ENOT_ON_CURVE:
        fprintf(stderr, "zkslot verify: %s / %s: a point is not on the curve\n", argv[3],
                argv[1]);
        goto out;
    default:
        fprintf(stderr, "zkslot verify: %s: %s\n", argv[3], zk_strerror(rc));
        goto out;
    }
    printf("%s\n", valid ? "OK" : "INVALID");
    ret = valid ? 0 : 1;
out:
    zk_groth16_vk_done(&vk);
    free(pub);
    free(vt);
    free(ut);
    free(pt);
    return ret;
}
