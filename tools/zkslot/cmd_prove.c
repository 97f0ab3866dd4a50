/*
 * cmd_prove.c -- `zkslot prove KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json
 * [--threads T]` (rapidsnark's argument order): one Groth16 proof with
 * fresh blinding, written as snarkjs's proof.json and public.json.
 * Exit 0 on success, 2 on any error (one line naming the file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "g16_cli.h"
#include "zk/error.h"

int cmd_prove(int argc, char **argv)
{
    const char *pos[4];
    unsigned npos = 0, nthreads = 0;
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_proof proof;
    zk_scalar *w = NULL;
    char *pj = NULL, *uj = NULL;
    int rc, ret = 2;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (g16_cli_parse_uint("prove", "--threads", argv[++i], &nthreads))
                return 2;
        } else if (!strncmp(argv[i], "--threads=", 10)) {
            if (g16_cli_parse_uint("prove", "--threads", argv[i] + 10, &nthreads))
                return 2;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "zkslot prove: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (npos < 4) {
            pos[npos++] = argv[i];
        } else {
            npos = 5;
        }
    }
    if (npos != 4) {
        fprintf(stderr, "usage: zkslot prove KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json "
                        "[--threads T]\n");
        return 2;
    }
    if (g16_cli_load_key("prove", pos[0], nthreads, &k) ||
        g16_cli_load_witness("prove", pos[1], k, &w))
        goto out;
    if ((rc = zk_groth16_prove(k, w, nthreads, &proof))) {
        fprintf(stderr, "zkslot prove: %s: proving failed: %s\n", pos[0], zk_strerror(rc));
        goto out;
    }
    pj = zk_groth16_proof_to_json(&proof);
    uj = zk_groth16_public_to_json(w + 1, zk_groth16_key_header(k)->n_public);
    if (!pj || !uj) {
        fprintf(stderr, "zkslot prove: out of memory\n");
        goto out;
    }
    if (g16_cli_write_text("prove", pos[2], pj) || g16_cli_write_text("prove", pos[3], uj))
        goto out;
    ret = 0;
out:
    free(pj);
    free(uj);
    free(w);
    zk_groth16_key_free(k);
    return ret;
}
