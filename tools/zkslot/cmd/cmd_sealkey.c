/*
 * cmd_sealkey.c -- `zkslot seal-key`: the daemons' key pair that circuit
 * inputs are sealed to (zk/seal.h), in the state directory:
 *
 *   zkslot seal-key [--config FILE] [--state-dir DIR]
 *       makes the pair when there is none (root or the state directory's
 *       owner: the files are given to that owner), then prints the public
 *       key's id and path.  On SQLite the first zkslot-synthd makes it
 *       itself; a PostgreSQL farm makes it once with this command and
 *       copies it to every machine (docs/operations.md).
 *
 * Exit 0, 2 an error (one line).
 */
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "ledger_cli.h"
#include "zk/seal.h"

int cmd_seal_key(int argc, char **argv)
{
    static const struct option opts[] = { LCLI_OPTIONS, { 0, 0, 0, 0 } };
    struct lcli c = { .cmd = "seal-key" };
    struct zk_diag d = { "" };
    int o, bad = 0;
    optind = 1;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1)
        bad |= o == 'L' || !lcli_option(&c, o, optarg);   /* no ledger: the state dir only */
    if (cmd_help || optind != argc || bad) {
        fprintf(stderr, "usage: zkslot seal-key [--config FILE] [--state-dir DIR]\n");
        return 2;
    }
    if (zk_config_resolve(&c.cfg, c.config_flag, &d) < 0 ||
        (c.state_dir_flag && zk_config_set(&c.cfg, "zkslot", "state_dir", c.state_dir_flag,
                                           &d) < 0)) {
        fprintf(stderr, "zkslot seal-key: %s\n", d.msg);
        return 2;
    }
    struct stat st;
    struct zk_seal_pub k;
    char id[17];
    int r = 0;
    if (stat(c.cfg.state_dir, &st) == 0 && (geteuid() == 0 || geteuid() == st.st_uid))
        r = zk_seal_make(c.cfg.state_dir, &d);
    if (r > 0)
        printf("made the key pair: %s/%s (0600), %s (0644)\n", c.cfg.state_dir, ZK_SEAL_PRIV,
               ZK_SEAL_PUB);
    if (r < 0 || zk_seal_pub_load(c.cfg.state_dir, &k, &d) < 0) {
        fprintf(stderr, "zkslot seal-key: %s\n", d.msg);
        return 2;
    }
    sodium_bin2hex(id, sizeof id, k.pk, 8);
    printf("input key %s: %s/%s\n", id, c.cfg.state_dir, ZK_SEAL_PUB);
    return 0;
}
