/*
 * wtns.c -- reader of .wtns witness files (see zk/wtns.h).
 */
#include <errno.h>
#include <string.h>

#include "io_internal.h"
#include "zk/error.h"
#include "zk/wtns.h"

static int wtns_load(struct zk_wtns *w, struct zk_diag *diag)
{
    struct zk_wtns_header *h = &w->hdr;
    const char *nm = w->bf.name;
    const struct zk_binsec *s1, *s2;
    uint8_t b[8 + 64];
    int rc;

    h->version = w->bf.version;
    if (h->version < 1 || h->version > ZK_WTNS_VERSION_MAX)
        return zk_diag_set(diag, nm, ZK_EVERSION, "wtns version %u is not supported (1..%u)",
                           h->version, ZK_WTNS_VERSION_MAX);
    if ((rc = zk_binfile_find(&w->bf, 1, &s1, diag)) ||
        (rc = zk_binfile_find(&w->bf, 2, &s2, diag)))
        return rc;
    if (s1->size < 4)
        return zk_diag_set(diag, nm, ZK_ESECTION_SIZE, "section 1 has %llu bytes, too short",
                           (unsigned long long)s1->size);
    if ((rc = zk_binfile_read(&w->bf, s1, 0, b, 4, diag)))
        return rc;
    h->n8 = zk_le32(b);
    if (h->n8 != 32)
        return zk_diag_set(diag, nm, ZK_ECURVE, "field of %u bytes: no supported curve", h->n8);
    if (s1->size != 8 + (uint64_t)h->n8)
        return zk_diag_set(diag, nm, ZK_ESECTION_SIZE, "section 1 has %llu bytes, expected %u",
                           (unsigned long long)s1->size, 8 + h->n8);
    if ((rc = zk_binfile_read(&w->bf, s1, 0, b, 8 + h->n8, diag)))
        return rc;
    if (zk_curve_from_r(b + 4, h->n8, &h->curve))
        return zk_diag_set(diag, nm, ZK_ECURVE,
                           "prime is not the scalar field of BN254 or BLS12-381");
    h->n_witness = zk_le32(b + 4 + h->n8);
    uint64_t want = (uint64_t)h->n_witness * h->n8;
    if (s2->size != want)
        return zk_diag_set(diag, nm, ZK_ESECTION_SIZE,
                           "section 2 has %llu bytes, header implies %llu (nWitness %u x %u)",
                           (unsigned long long)s2->size, (unsigned long long)want,
                           h->n_witness, h->n8);
    w->values = *s2;
    return 0;
}

static int wtns_open(struct zk_wtns *w, const char *path, int nofollow, struct zk_diag *diag)
{
    memset(w, 0, sizeof *w);
    int rc = nofollow ? zk_binfile_open_nofollow(&w->bf, path, "wtns", diag)
                      : zk_binfile_open(&w->bf, path, "wtns", diag);
    if (!rc)
        rc = wtns_load(w, diag);
    if (rc)
        zk_wtns_done(w);
    return rc;
}

int zk_wtns_open(struct zk_wtns *w, const char *path, struct zk_diag *diag)
{
    return wtns_open(w, path, 0, diag);
}

int zk_wtns_open_nofollow(struct zk_wtns *w, const char *path, struct zk_diag *diag)
{
    return wtns_open(w, path, 1, diag);
}

int zk_wtns_open_mem(struct zk_wtns *w, const void *buf, size_t len, const char *name,
                     struct zk_diag *diag)
{
    memset(w, 0, sizeof *w);
    int rc = zk_binfile_open_mem(&w->bf, buf, len, name, "wtns", diag);
    if (!rc)
        rc = wtns_load(w, diag);
    if (rc)
        zk_wtns_done(w);
    return rc;
}

void zk_wtns_done(struct zk_wtns *w)
{
    if (!w)
        return;
    zk_binfile_done(&w->bf);
    memset(w, 0, sizeof *w);
    w->bf.fd = -1;
}

int zk_wtns_read_values(const struct zk_wtns *w, uint64_t first, uint64_t count, void *dst,
                        struct zk_diag *diag)
{
    const uint64_t n = w->hdr.n_witness;
    const size_t n8 = w->hdr.n8;
    if (first > n || count > n - first)
        return zk_diag_set(diag, w->bf.name, ZK_ESECTION_SIZE,
                           "values %llu..%llu requested, witness has %llu",
                           (unsigned long long)first, (unsigned long long)(first + count),
                           (unsigned long long)n);
    if (count > SIZE_MAX / n8)
        return zk_diag_set(diag, w->bf.name, -ENOMEM, "request too large");
    int rc = zk_binfile_read(&w->bf, &w->values, first * n8, dst, (size_t)(count * n8), diag);
    if (rc)
        return rc;
    const uint8_t *p = dst;
    for (uint64_t i = 0; i < count; i++) {
        if (!zk_curve_fr_is_canonical(w->hdr.curve, p + i * n8, n8))
            return zk_diag_set(diag, w->bf.name, ZK_ENOT_CANONICAL,
                               "witness value %llu is not below r",
                               (unsigned long long)(first + i));
    }
    return 0;
}

int zk_wtns_check_against_zkey(const struct zk_wtns_header *w, const struct zk_zkey_header *z,
                               const char *wtns_name, struct zk_diag *diag)
{
    if (w->curve != z->curve)
        return zk_diag_set(diag, wtns_name, ZK_ECURVE_MISMATCH,
                           "witness is for %s, the key for %s", zk_curve_name(w->curve),
                           zk_curve_name(z->curve));
    if (w->n_witness != z->n_vars)
        return zk_diag_set(diag, wtns_name, ZK_ELENGTH,
                           "witness has %u values, the key expects nVars = %u", w->n_witness,
                           z->n_vars);
    return 0;
}
