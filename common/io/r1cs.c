/*
 * r1cs.c -- reader of circom .r1cs files (see zk/r1cs.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "zk/error.h"
#include "zk/r1cs.h"

#define R1CS_READ_BUF ((size_t)1 << 20)

static int read_header(struct zk_r1cs *r, const struct zk_binsec *s, struct zk_diag *diag)
{
    struct zk_r1cs_header *h = &r->hdr;
    const char *nm = r->bf.name;
    uint8_t b[32 + 32];
    int rc;

    if (s->size < 4)
        return zk_diag_set(diag, nm, ZK_ESECTION_SIZE, "section 1 has %llu bytes, too short",
                           (unsigned long long)s->size);
    if ((rc = zk_binfile_read(&r->bf, s, 0, b, 4, diag)))
        return rc;
    h->n8 = zk_le32(b);
    if (h->n8 != 32)
        return zk_diag_set(diag, nm, ZK_ECURVE, "field of %u bytes: no supported curve", h->n8);
    if (s->size != 32 + (uint64_t)h->n8)
        return zk_diag_set(diag, nm, ZK_ESECTION_SIZE, "section 1 has %llu bytes, expected %u",
                           (unsigned long long)s->size, 32 + h->n8);
    if ((rc = zk_binfile_read(&r->bf, s, 0, b, 32 + h->n8, diag)))
        return rc;
    if (zk_curve_from_r(b + 4, h->n8, &h->curve))
        return zk_diag_set(diag, nm, ZK_ECURVE,
                           "prime is not the scalar field of BN254 or BLS12-381");
    const uint8_t *p = b + 4 + h->n8;
    h->n_wires = zk_le32(p);
    h->n_pub_out = zk_le32(p + 4);
    h->n_pub_in = zk_le32(p + 8);
    h->n_prv_in = zk_le32(p + 12);
    h->n_labels = zk_le64(p + 16);
    h->n_constraints = zk_le32(p + 24);
    uint64_t io = (uint64_t)h->n_pub_out + h->n_pub_in + h->n_prv_in;
    if (io >= h->n_wires)
        return zk_diag_set(diag, nm, ZK_EFORMAT,
                           "%llu inputs/outputs do not fit %u wires (wire 0 is the constant)",
                           (unsigned long long)io, h->n_wires);
    return 0;
}

static int r1cs_load(struct zk_r1cs *r, struct zk_diag *diag)
{
    const struct zk_binsec *s;
    int rc;

    r->hdr.version = r->bf.version;
    if (r->hdr.version < 1 || r->hdr.version > ZK_R1CS_VERSION_MAX)
        return zk_diag_set(diag, r->bf.name, ZK_EVERSION,
                           "r1cs version %u is not supported (1)", r->hdr.version);
    if ((rc = zk_binfile_find(&r->bf, 1, &s, diag)) || (rc = read_header(r, s, diag)))
        return rc;
    if ((rc = zk_binfile_find(&r->bf, 2, &s, diag)))
        return rc;
    r->constraints = *s;
    rc = zk_binfile_find(&r->bf, 3, &s, NULL);
    if (rc == ZK_ESECTION_DUP)
        return zk_binfile_find(&r->bf, 3, &s, diag);
    if (rc == 0) {
        uint64_t want = (uint64_t)r->hdr.n_wires * 8;
        if (s->size != want)
            return zk_diag_set(diag, r->bf.name, ZK_ESECTION_SIZE,
                               "section 3 has %llu bytes, header implies %llu (nWires %u x 8)",
                               (unsigned long long)s->size, (unsigned long long)want,
                               r->hdr.n_wires);
        r->map = *s;
    }
    return 0;
}

int zk_r1cs_open(struct zk_r1cs *r, const char *path, struct zk_diag *diag)
{
    memset(r, 0, sizeof *r);
    int rc = zk_binfile_open(&r->bf, path, "r1cs", diag);
    if (!rc)
        rc = r1cs_load(r, diag);
    if (rc)
        zk_r1cs_done(r);
    return rc;
}

int zk_r1cs_open_mem(struct zk_r1cs *r, const void *buf, size_t len, const char *name,
                     struct zk_diag *diag)
{
    memset(r, 0, sizeof *r);
    int rc = zk_binfile_open_mem(&r->bf, buf, len, name, "r1cs", diag);
    if (!rc)
        rc = r1cs_load(r, diag);
    if (rc)
        zk_r1cs_done(r);
    return rc;
}

void zk_r1cs_done(struct zk_r1cs *r)
{
    if (!r)
        return;
    zk_binfile_done(&r->bf);
    memset(r, 0, sizeof *r);
    r->bf.fd = -1;
}

/* Terms buffer for one constraint (A, B, C back to back), grown on demand. */
struct lc_buf {
    struct zk_r1cs_term *t;
    size_t cap;
};

static int lc_reserve(struct lc_buf *b, size_t n)
{
    if (n <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < n)
        cap *= 2;
    struct zk_r1cs_term *t = realloc(b->t, cap * sizeof *t);
    if (!t)
        return -ENOMEM;
    b->t = t;
    b->cap = cap;
    return 0;
}

/* Read one linear combination (count + terms) appended at b->t[*used]. */
static int read_lc(const struct zk_r1cs *r, struct zk_secreader *rd, struct lc_buf *b,
                   size_t *used, uint32_t *ret_n, uint32_t ci, struct zk_diag *diag)
{
    const size_t rec = 4 + (size_t)r->hdr.n8;
    const uint8_t *p;
    int rc = zk_secreader_next(rd, 4, &p, diag);
    if (rc)
        return rc;
    uint32_t n = zk_le32(p);
    if ((uint64_t)n * rec > zk_secreader_left(rd))
        return zk_diag_set(diag, r->bf.name, ZK_ESECTION_SIZE,
                           "constraint %u claims %u terms, section 2 has only %llu bytes left",
                           ci, n, (unsigned long long)zk_secreader_left(rd));
    if ((rc = lc_reserve(b, *used + n)))
        return zk_diag_set(diag, r->bf.name, rc, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        struct zk_r1cs_term *t = &b->t[*used + i];
        if ((rc = zk_secreader_next(rd, rec, &p, diag)))
            return rc;
        t->wire = zk_le32(p);
        t->pad = 0;
        if (t->wire >= r->hdr.n_wires)
            return zk_diag_set(diag, r->bf.name, ZK_EFORMAT,
                               "constraint %u: wire %u is not below nWires %u", ci, t->wire,
                               r->hdr.n_wires);
        if (!zk_curve_fr_is_canonical(r->hdr.curve, p + 4, r->hdr.n8))
            return zk_diag_set(diag, r->bf.name, ZK_ENOT_CANONICAL,
                               "constraint %u: coefficient of wire %u is not below r", ci,
                               t->wire);
        for (int k = 0; k < 4; k++)
            t->coef[k] = zk_le64(p + 4 + 8 * k);
    }
    *used += n;
    *ret_n = n;
    return 0;
}

int zk_r1cs_for_each_constraint(const struct zk_r1cs *r, zk_r1cs_constraint_fn fn, void *ctx,
                                uint64_t ret_terms[3], struct zk_diag *diag)
{
    struct zk_secreader rd;
    struct lc_buf b = { 0 };
    uint64_t terms[3] = { 0, 0, 0 };
    int rc = zk_secreader_init(&rd, &r->bf, &r->constraints, R1CS_READ_BUF);
    if (rc)
        return zk_diag_set(diag, r->bf.name, rc, "out of memory");
    for (uint32_t ci = 0; ci < r->hdr.n_constraints; ci++) {
        struct zk_r1cs_lc lc[3];
        size_t used = 0, start[3];
        for (int m = 0; m < 3; m++) {
            start[m] = used;
            if ((rc = read_lc(r, &rd, &b, &used, &lc[m].n, ci, diag)))
                goto out;
            terms[m] += lc[m].n;
        }
        for (int m = 0; m < 3; m++)
            lc[m].t = b.t ? b.t + start[m] : NULL;
        if (fn && (rc = fn(ctx, ci, lc)))
            goto out;
    }
    if (zk_secreader_left(&rd)) {
        rc = zk_diag_set(diag, r->bf.name, ZK_ESECTION_SIZE,
                         "section 2 has %llu bytes after the %u constraints of the header",
                         (unsigned long long)zk_secreader_left(&rd), r->hdr.n_constraints);
        goto out;
    }
    if (ret_terms)
        memcpy(ret_terms, terms, sizeof terms);
out:
    free(b.t);
    zk_secreader_done(&rd);
    return rc;
}
