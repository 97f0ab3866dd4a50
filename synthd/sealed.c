/*
 * sealed.c -- the daemons' key pair and sealed inputs opened (sealed.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/zkd.h"
#include "sealed.h"
#include "zk/seal.h"
#include "zk/util.h"

/* zk_ledger_part_vet's bound on a row's blob is a sealed input's */
_Static_assert(ZK_LEDGER_BLOB_MAX == ZK_LEDGER_INPUT_MAX + ZK_SEAL_OVERHEAD,
               "ZK_LEDGER_BLOB_MAX is ZK_LEDGER_INPUT_MAX sealed");

static struct zk_seal_pair pair;   /* read-only after setup */
static int have_pair;
static char why[400];              /* why there is none */

void synthd_sealed_setup(const struct zk_config *cfg, int shared)
{
    struct zk_diag d = { "" };
    int r = shared ? 0 : zk_seal_make(cfg->state_dir, &d);
    if (r > 0)
        zkd_log(ZKD_INFO, "inputs: made the key pair they are sealed to (%s/%s, %s)",
                cfg->state_dir, ZK_SEAL_PUB, ZK_SEAL_PRIV);
    if (r >= 0 && (r = zk_seal_pair_load(cfg->state_dir, &pair, &d)) == 0) {
        have_pair = 1;
        return;
    }
    snprintf(why, sizeof why, "%s", d.msg);
    zkd_log(shared && r == -ENOENT ? ZKD_NOTICE : ZKD_ERR, "inputs: no key pair to open sealed inputs (%s); sealed inputs fail here", why);
}

int synthd_part_input(zk_ledger *l, const struct zk_ledger_part *p, const char *what,
                      char **ret, size_t *ret_len, struct synthd_witness_out *out)
{
    struct zk_diag d = { "" };
    char *blob = NULL;
    size_t len = 0;
    int r = zk_ledger_part_input(l, p->id, &blob, &len, &d);
    if (r) {
        snprintf(out->error, sizeof out->error, "%s: %s", what, d.msg);
        return r;
    }
    if (!zk_seal_is_sealed(blob, len)) {   /* stored in clear */
        *ret = blob;
        *ret_len = len;
        return 0;
    }
    if (!have_pair)
        r = zk_diag_set(&d, "the sealed input", -ENOKEY, "%s", why);
    else
        r = zk_seal_open(&pair, p->job_id, p->index, blob, len, ret, ret_len, &d);
    free(blob);
    if (r) {
        out->permanent = r == -EACCES || r == -EKEYREJECTED;
        snprintf(out->error, sizeof out->error, "%s: %s", what, d.msg);
    }
    return r;
}
