/*
 * stored.c -- a witness job's .wtns read from the ledger (stored.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sealed.h"
#include "stored.h"
#include "zk/wtns.h"

int synthd_stored_wtns(zk_ledger *l, const struct zk_ledger_part *p,
                       const struct zk_zkey_header *kh, void *dst,
                       struct synthd_witness_out *out)
{
    size_t n = strlen(p->witness);
    memset(out, 0, sizeof *out);
    out->witness_s = -1;
    /* only a blob submitted under a .wtns name can be one: an input job's
     * blob is read once, by the generator's stage */
    if (!p->has_input || n < 5 || strcmp(p->witness + n - 5, ".wtns"))
        return 1;
    char *blob = NULL;
    size_t len = 0;
    struct zk_diag d = { "" };
    int r = synthd_part_input(l, p, "reading the stored witness", &blob, &len, out);
    if (r)
        return r;
    if (len < 4 || memcmp(blob, "wtns", 4)) {   /* a circuit input under that name */
        free(blob);
        return 1;
    }
    struct zk_wtns w;
    memset(&w, 0, sizeof w);
    r = zk_wtns_open_mem(&w, blob, len, p->witness, &d);
    if (!r && !(r = zk_wtns_check_against_zkey(&w.hdr, kh, p->witness, &d)))
        r = zk_wtns_read_values(&w, 0, kh->n_vars, dst, &d);
    zk_wtns_done(&w);
    free(blob);
    if (r) {
        out->permanent = 1;   /* the stored bytes do not change */
        snprintf(out->error, sizeof out->error, "the stored witness: %s", d.msg);
    }
    return r;
}
