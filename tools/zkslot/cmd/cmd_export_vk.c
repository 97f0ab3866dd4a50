/*
 * cmd_export_vk.c -- `zkslot export-vk KEY.zkey VK.json`: the verification
 * key JSON that `snarkjs zkey export verificationkey` writes (including
 * vk_alphabeta_12 and IC).  Exit 0, or 2 with one line naming the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "g16_cli.h"
#include "zk/error.h"

int cmd_export_vk(int argc, char **argv)
{
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_vk vk;
    char *text = NULL;
    int ret = 2;

    memset(&vk, 0, sizeof vk);
    if (argc != 3) {
        fprintf(stderr, "usage: zkslot export-vk KEY.zkey VK.json\n");
        return 2;
    }
    if (g16_cli_load_key("export-vk", argv[1], 0, &k))
        goto out;
    if (zk_groth16_vk_from_key(k, &vk) || !(text = zk_groth16_vk_to_json(&vk))) {
        fprintf(stderr, "zkslot export-vk: %s: out of memory\n", argv[1]);
        goto out;
    }
    if (g16_cli_write_text("export-vk", argv[2], text))
        goto out;
    ret = 0;
out:
    free(text);
    zk_groth16_vk_done(&vk);
    zk_groth16_key_free(k);
    return ret;
}
