/*
 * zkey.c -- reader of snarkjs Groth16 .zkey files (see zk/zkey.h).
 */
#include <errno.h>
#include <string.h>

#include "io_internal.h"
#include "zk/error.h"
#include "zk/zkey.h"

#define HDR2_MAX 1024          /* section 2 is 660 (BN254) or 964 (BLS) bytes */
#define COEF_BUF 16384u        /* bytes per read in zk_zkey_read_coefs (its stack) */

static const char *const point_names[6] = { "alpha1", "beta1", "beta2",
                                            "gamma2", "delta1", "delta2" };

static unsigned s_max(enum zk_curve c)
{
    return c == ZK_CURVE_BN254 ? 28 : 32;
}

/* Section 1: the protocol word. */
static int read_protocol(struct zk_zkey *z, struct zk_diag *diag)
{
    const struct zk_binsec *s;
    uint8_t b[4];
    int rc = zk_binfile_find(&z->bf, ZK_ZKEY_SEC_HEADER, &s, diag);
    if (rc)
        return rc;
    if (s->size != 4)
        return zk_diag_set(diag, z->bf.name, ZK_ESECTION_SIZE,
                           "section 1 has %llu bytes, expected 4", (unsigned long long)s->size);
    rc = zk_binfile_read(&z->bf, s, 0, b, 4, diag);
    if (rc)
        return rc;
    z->hdr.protocol = zk_le32(b);
    if (z->hdr.protocol != 1)
        return zk_diag_set(diag, z->bf.name, ZK_EPROTOCOL,
                           "protocol %u is not Groth16 (1)%s", z->hdr.protocol,
                           z->hdr.protocol == 2    ? ": a PLONK key"
                           : z->hdr.protocol == 10 ? ": an FFLONK key"
                                                   : "");
    return 0;
}

/* Primes of section 2 -> curve; sets n8q/n8r/g1/g2 sizes. */
static int parse_primes(struct zk_zkey *z, const uint8_t *b, size_t size, struct zk_diag *diag)
{
    struct zk_zkey_header *h = &z->hdr;
    const char *nm = z->bf.name;
    enum zk_curve cq, cr;

    if (size < 4)
        return zk_diag_set(diag, nm, ZK_ESECTION_SIZE, "section 2 has %zu bytes, too short", size);
    h->n8q = zk_le32(b);
    if (h->n8q != 32 && h->n8q != 48)
        return zk_diag_set(diag, nm, ZK_ECURVE, "base field of %u bytes: no supported curve",
                           h->n8q);
    if (size < 8 + (size_t)h->n8q)
        return zk_diag_set(diag, nm, ZK_ESECTION_SIZE, "section 2 has %zu bytes, too short", size);
    if (zk_curve_from_q(b + 4, h->n8q, &cq))
        return zk_diag_set(diag, nm, ZK_ECURVE,
                           "base field prime q is not BN254's or BLS12-381's");
    h->n8r = zk_le32(b + 4 + h->n8q);
    if (h->n8r != 32)
        return zk_diag_set(diag, nm, ZK_ECURVE, "scalar field of %u bytes: no supported curve",
                           h->n8r);
    if (size < 8 + (size_t)h->n8q + h->n8r)
        return zk_diag_set(diag, nm, ZK_ESECTION_SIZE, "section 2 has %zu bytes, too short", size);
    if (zk_curve_from_r(b + 8 + h->n8q, h->n8r, &cr) || cr != cq)
        return zk_diag_set(diag, nm, ZK_ECURVE, "scalar field prime r does not match q (%s)",
                           zk_curve_name(cq));
    h->curve = cq;
    h->g1_bytes = 2 * h->n8q;
    h->g2_bytes = 4 * h->n8q;
    return 0;
}

/* Section 2: primes, sizes and the six header points. */
static int read_groth16_header(struct zk_zkey *z, struct zk_diag *diag)
{
    struct zk_zkey_header *h = &z->hdr;
    const char *nm = z->bf.name;
    const struct zk_binsec *s;
    uint8_t b[HDR2_MAX];

    int rc = zk_binfile_find(&z->bf, ZK_ZKEY_SEC_GROTH16, &s, diag);
    if (rc)
        return rc;
    size_t size = s->size < HDR2_MAX ? (size_t)s->size : HDR2_MAX;
    rc = zk_binfile_read(&z->bf, s, 0, b, size, diag);
    if (rc)
        return rc;
    rc = parse_primes(z, b, size, diag);
    if (rc)
        return rc;
    size_t at = 8 + (size_t)h->n8q + h->n8r;
    uint64_t want = at + 12 + 3 * (uint64_t)h->g1_bytes + 3 * (uint64_t)h->g2_bytes;
    if (s->size != want)
        return zk_diag_set(diag, nm, ZK_ESECTION_SIZE,
                           "section 2 has %llu bytes, a %s Groth16 header has %llu",
                           (unsigned long long)s->size, zk_curve_name(h->curve),
                           (unsigned long long)want);
    h->n_vars = zk_le32(b + at);
    h->n_public = zk_le32(b + at + 4);
    h->domain_size = zk_le32(b + at + 8);
    at += 12;
    if (h->domain_size == 0 || (h->domain_size & (h->domain_size - 1)))
        return zk_diag_set(diag, nm, ZK_EFORMAT, "domainSize %u is not a power of two",
                           h->domain_size);
    while ((1u << h->log2_domain) < h->domain_size)
        h->log2_domain++;
    if (h->log2_domain >= s_max(h->curve))
        return zk_diag_set(diag, nm, ZK_EDOMAIN, "domainSize 2^%u is not supported",
                           h->log2_domain);
    if (h->n_public >= h->n_vars)
        return zk_diag_set(diag, nm, ZK_EFORMAT, "nPublic %u is not below nVars %u",
                           h->n_public, h->n_vars);
    if (h->n_public >= h->domain_size)
        return zk_diag_set(diag, nm, ZK_EFORMAT, "nPublic %u does not fit domainSize %u",
                           h->n_public, h->domain_size);
    uint64_t *dst[6] = { h->alpha1, h->beta1, h->beta2, h->gamma2, h->delta1, h->delta2 };
    for (int i = 0; i < 6; i++) {
        size_t n = (i == 2 || i == 3 || i == 5) ? h->g2_bytes : h->g1_bytes;
        memcpy(dst[i], b + at, n);
        at += n;
    }
    return 0;
}

/* Find section `id` and check its size equals count * unit (+ extra). */
static int check_section(struct zk_zkey *z, unsigned id, uint64_t count, uint64_t unit,
                         uint64_t extra, const char *what, struct zk_diag *diag)
{
    const struct zk_binsec *s;
    int rc = zk_binfile_find(&z->bf, id, &s, diag);
    if (rc)
        return rc;
    /* count < 2^33 and unit <= 192: the product cannot overflow 64 bits. */
    uint64_t want = count * unit + extra;
    if (s->size != want)
        return zk_diag_set(diag, z->bf.name, ZK_ESECTION_SIZE,
                           "section %u has %llu bytes, header implies %llu (%s %llu x %llu%s)",
                           id, (unsigned long long)s->size, (unsigned long long)want, what,
                           (unsigned long long)count, (unsigned long long)unit,
                           extra ? " + 4" : "");
    z->sec[id] = *s;
    return 0;
}

static int check_sections(struct zk_zkey *z, struct zk_diag *diag)
{
    struct zk_zkey_header *h = &z->hdr;
    const struct zk_binsec *s;
    uint8_t b[4];
    int rc;

    rc = zk_binfile_find(&z->bf, ZK_ZKEY_SEC_COEFS, &s, diag);
    if (rc)
        return rc;
    if (s->size < 4)
        return zk_diag_set(diag, z->bf.name, ZK_ESECTION_SIZE,
                           "section 4 has %llu bytes, too short for its count",
                           (unsigned long long)s->size);
    rc = zk_binfile_read(&z->bf, s, 0, b, 4, diag);
    if (rc)
        return rc;
    h->n_coef = zk_le32(b);
    if ((rc = check_section(z, ZK_ZKEY_SEC_COEFS, h->n_coef, 12 + h->n8r, 4, "nCoef", diag)) ||
        (rc = check_section(z, ZK_ZKEY_SEC_IC, (uint64_t)h->n_public + 1, h->g1_bytes, 0,
                            "nPublic+1", diag)) ||
        (rc = check_section(z, ZK_ZKEY_SEC_A, h->n_vars, h->g1_bytes, 0, "nVars", diag)) ||
        (rc = check_section(z, ZK_ZKEY_SEC_B1, h->n_vars, h->g1_bytes, 0, "nVars", diag)) ||
        (rc = check_section(z, ZK_ZKEY_SEC_B2, h->n_vars, h->g2_bytes, 0, "nVars", diag)) ||
        (rc = check_section(z, ZK_ZKEY_SEC_C, (uint64_t)h->n_vars - h->n_public - 1,
                            h->g1_bytes, 0, "nVars-nPublic-1", diag)) ||
        (rc = check_section(z, ZK_ZKEY_SEC_H, h->domain_size, h->g1_bytes, 0, "domainSize",
                            diag)))
        return rc;
    /* Section 10 (contributions) is optional and not interpreted. */
    if (zk_binfile_find(&z->bf, ZK_ZKEY_SEC_CONTRIB, &s, NULL) == 0)
        z->sec[ZK_ZKEY_SEC_CONTRIB] = *s;
    return 0;
}

static int zkey_load(struct zk_zkey *z, struct zk_diag *diag)
{
    int rc;
    z->hdr.version = z->bf.version;
    if (z->bf.version < 1 || z->bf.version > ZK_ZKEY_VERSION_MAX)
        return zk_diag_set(diag, z->bf.name, ZK_EVERSION,
                           "zkey version %u is not supported (1..%u)", z->bf.version,
                           ZK_ZKEY_VERSION_MAX);
    if ((rc = read_protocol(z, diag)) || (rc = read_groth16_header(z, diag)))
        return rc;
    const struct zk_binsec *s;
    if ((rc = zk_binfile_find(&z->bf, ZK_ZKEY_SEC_HEADER, &s, diag)))
        return rc;
    z->sec[ZK_ZKEY_SEC_HEADER] = *s;
    if ((rc = zk_binfile_find(&z->bf, ZK_ZKEY_SEC_GROTH16, &s, diag)))
        return rc;
    z->sec[ZK_ZKEY_SEC_GROTH16] = *s;
    if ((rc = check_sections(z, diag)))
        return rc;
    return zk_zkey_check_header_points(&z->hdr, z->bf.name, diag);
}

int zk_zkey_open(struct zk_zkey *z, const char *path, struct zk_diag *diag)
{
    memset(z, 0, sizeof *z);
    int rc = zk_binfile_open(&z->bf, path, "zkey", diag);
    if (!rc)
        rc = zkey_load(z, diag);
    if (rc)
        zk_zkey_done(z);
    return rc;
}

int zk_zkey_open_mem(struct zk_zkey *z, const void *buf, size_t len, const char *name,
                     struct zk_diag *diag)
{
    memset(z, 0, sizeof *z);
    int rc = zk_binfile_open_mem(&z->bf, buf, len, name, "zkey", diag);
    if (!rc)
        rc = zkey_load(z, diag);
    if (rc)
        zk_zkey_done(z);
    return rc;
}

void zk_zkey_done(struct zk_zkey *z)
{
    if (!z)
        return;
    zk_binfile_done(&z->bf);
    memset(z, 0, sizeof *z);
    z->bf.fd = -1;
}

/* ---- header points ------------------------------------------------------------ */

static int all_zero(const uint64_t *p, size_t bytes)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < bytes / 8; i++)
        acc |= p[i];
    return acc == 0;
}

int zk_zkey_check_header_points(const struct zk_zkey_header *h, const char *name,
                                struct zk_diag *diag)
{
    const uint64_t *pts[6] = { h->alpha1, h->beta1, h->beta2, h->gamma2, h->delta1, h->delta2 };
    for (int i = 0; i < 6; i++) {
        int g2 = (i == 2 || i == 3 || i == 5);
        size_t bytes = g2 ? h->g2_bytes : h->g1_bytes;
        if (all_zero(pts[i], bytes))
            return zk_diag_set(diag, name, ZK_EBAD_ENCODING,
                               "header point %s is the point at infinity", point_names[i]);
        for (size_t c = 0; c < bytes / h->n8q; c++) {
            const uint8_t *coord = (const uint8_t *)pts[i] + c * h->n8q;
            if (!zk_curve_fq_is_canonical(h->curve, coord, h->n8q))
                return zk_diag_set(diag, name, ZK_ENOT_CANONICAL,
                                   "header point %s: coordinate %zu is not below q",
                                   point_names[i], c);
        }
        int rc = zk_zkey_point_check(h->curve, g2, pts[i]);
        if (rc)
            return zk_diag_set(diag, name, rc, "header point %s is %s", point_names[i],
                               rc == ZK_ENOT_ON_CURVE ? "not on the curve"
                                                      : "not in the prime-order subgroup");
    }
    return 0;
}

/* ---- big sections ---------------------------------------------------------------- */

uint64_t zk_zkey_section_points(const struct zk_zkey *z, enum zk_zkey_section id,
                                size_t *ret_point_bytes)
{
    const struct zk_zkey_header *h = &z->hdr;
    size_t ps = h->g1_bytes;
    uint64_t n;
    switch (id) {
    case ZK_ZKEY_SEC_IC: n = (uint64_t)h->n_public + 1; break;
    case ZK_ZKEY_SEC_A:
    case ZK_ZKEY_SEC_B1: n = h->n_vars; break;
    case ZK_ZKEY_SEC_B2: n = h->n_vars; ps = h->g2_bytes; break;
    case ZK_ZKEY_SEC_C: n = (uint64_t)h->n_vars - h->n_public - 1; break;
    case ZK_ZKEY_SEC_H: n = h->domain_size; break;
    default: n = 0; ps = 0; break;
    }
    if (ret_point_bytes)
        *ret_point_bytes = ps;
    return n;
}

int zk_zkey_read_points(const struct zk_zkey *z, enum zk_zkey_section id, uint64_t first,
                        uint64_t count, void *dst, struct zk_diag *diag)
{
    size_t ps;
    uint64_t n = zk_zkey_section_points(z, id, &ps);
    if (ps == 0)
        return zk_diag_set(diag, z->bf.name, ZK_EBADPARAMS, "section %u has no points", id);
    if (first > n || count > n - first)
        return zk_diag_set(diag, z->bf.name, ZK_ESECTION_SIZE,
                           "points %llu..%llu requested, section %u has %llu",
                           (unsigned long long)first, (unsigned long long)(first + count),
                           id, (unsigned long long)n);
    if (count > SIZE_MAX / ps)
        return zk_diag_set(diag, z->bf.name, -ENOMEM, "request too large");
    return zk_binfile_read(&z->bf, &z->sec[id], first * ps, dst, (size_t)(count * ps), diag);
}

static int unpack_coef(const struct zk_zkey *z, const uint8_t *p, uint64_t idx,
                       struct zk_zkey_coef *c, struct zk_diag *diag)
{
    const struct zk_zkey_header *h = &z->hdr;
    c->matrix = zk_le32(p);
    c->constraint = zk_le32(p + 4);
    c->signal = zk_le32(p + 8);
    c->pad = 0;
    if (c->matrix > 1 || c->constraint >= h->domain_size || c->signal >= h->n_vars)
        return zk_diag_set(diag, z->bf.name, ZK_EFORMAT,
                           "coefficient %llu: (matrix %u, constraint %u, signal %u) outside "
                           "(2, domainSize %u, nVars %u)",
                           (unsigned long long)idx, c->matrix, c->constraint, c->signal,
                           h->domain_size, h->n_vars);
    if (!zk_curve_fr_is_canonical(h->curve, p + 12, 32))
        return zk_diag_set(diag, z->bf.name, ZK_ENOT_CANONICAL,
                           "coefficient %llu: value is not below r", (unsigned long long)idx);
    for (int i = 0; i < 4; i++)
        c->value[i] = zk_le64(p + 12 + 8 * i);
    return 0;
}

int zk_zkey_read_coefs(const struct zk_zkey *z, uint64_t first, uint64_t count,
                       struct zk_zkey_coef *dst, struct zk_diag *diag)
{
    const uint64_t rec = 12 + (uint64_t)z->hdr.n8r;
    const uint64_t n = z->hdr.n_coef;
    const size_t chunk = COEF_BUF / rec;
    uint8_t buf[COEF_BUF];        /* a stack buffer: no fresh pages per call */

    if (first > n || count > n - first)
        return zk_diag_set(diag, z->bf.name, ZK_ESECTION_SIZE,
                           "coefficients %llu..%llu requested, section 4 has %llu",
                           (unsigned long long)first, (unsigned long long)(first + count),
                           (unsigned long long)n);
    for (uint64_t done = 0; done < count;) {
        size_t k = count - done < chunk ? (size_t)(count - done) : chunk;
        int rc = zk_binfile_read(&z->bf, &z->sec[ZK_ZKEY_SEC_COEFS], 4 + (first + done) * rec,
                                 buf, k * rec, diag);
        if (rc)
            return rc;
        for (size_t i = 0; i < k; i++) {
            rc = unpack_coef(z, buf + i * rec, first + done + i, &dst[done + i], diag);
            if (rc)
                return rc;
        }
        done += k;
    }
    return 0;
}
