/*
 * params.c -- bellperson's parameter files (.params) and verifying keys
 * (.vk): zk_bp_key_open, zk_bp_vk_open and their _mem forms.
 *
 * Layout (no padding, all counts u32 big-endian, points Zcash-encoded,
 * uncompressed, big-endian: G1 96 bytes, G2 192 as x.c1 x.c0 y.c1 y.c0):
 *   vk     alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2, count + ic
 *   then   count + h, count + l, count + a, count + b_g1 (G1), count + b_g2 (G2)
 * A .vk is the first part alone.  The verifying key's points are checked in
 * full (encoding, on the curve, in the subgroup); the queries for encoding,
 * the curve and length (bellperson reads them unchecked; the MSM's result
 * on a point outside the subgroup is wrong, never unsafe).  As bellperson's
 * reader does, a point at infinity anywhere is refused.  The shape must be
 * one bellperson's generator makes: h has m - 1 points for a power of two
 * m, a holds every input and at most every aux, b_g1 and b_g2 agree.
 * Bytes after the last query are refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bp_internal.h"
#include "zk/ec.h"
#include "zk/error.h"
#include "zk/ntt.h"
#include "zk/parallel.h"
#include "zk/util.h"

#define G1U BLS381_G1_UNCOMPRESSED_BYTES
#define G2U BLS381_G2_UNCOMPRESSED_BYTES

struct bp_cursor {
    const uint8_t *p;
    size_t len, off;
    const char *name;
    struct zk_diag *diag;
    int drop;                   /* p is our own mapping of the file: pages
                                 * decoded are dropped as we go (bp_drop) */
};

/* Points decoded per pass: the file's pages of one pass are dropped
 * before the next, so a key's open holds its decoded points and at most
 * this much of the file at once, not both whole. */
#define BP_PASS_BYTES (16u << 20)

/* Gives back the mapped pages of [from, to) that lie wholly inside it
 * (MADV_DONTNEED on a private read-only file mapping: they are read from
 * the file again if touched). */
static void bp_drop(const struct bp_cursor *c, const uint8_t *from, const uint8_t *to)
{
    if (c->drop)
        zk_bp_drop_pages(from, to);
}

static int bp_take(struct bp_cursor *c, uint64_t n, const char *what, const uint8_t **ret)
{
    if (n > c->len - c->off)
        return zk_diag_set(c->diag, c->name, ZK_ETRUNCATED,
                           "truncated in %s: %llu bytes needed at offset %zu, %zu left", what,
                           (unsigned long long)n, c->off, c->len - c->off);
    *ret = c->p + c->off;
    c->off += n;
    return 0;
}

static int bp_count(struct bp_cursor *c, const char *what, uint32_t *ret)
{
    const uint8_t *b = NULL;
    int rc = bp_take(c, 4, what, &b);
    if (rc == 0)
        *ret = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    return rc;
}

/* Point i of query `what`, at byte `at` of the file, did not decode. */
static int bp_point_error(struct bp_cursor *c, const char *what, uint64_t i, size_t at, int rc)
{
    return zk_diag_set(c->diag, c->name, rc, "%s point %llu (offset %zu): %s", what,
                       (unsigned long long)i, at, zk_strerror(rc));
}

/* A point of the verifying key (`what`, at byte `at`) did not decode. */
static int bp_vk_point_error(struct bp_cursor *c, const char *what, size_t at, int rc)
{
    return zk_diag_set(c->diag, c->name, rc, "%s (offset %zu): %s", what, at, zk_strerror(rc));
}

/* One vk point (G1, or G2 when g2), fully checked, not infinity. */
static int bp_vk_point(struct bp_cursor *c, const char *what, int g2, void *out)
{
    const uint8_t *b = NULL;
    int rc = bp_take(c, g2 ? G2U : G1U, what, &b), inf = 0;
    if (rc == 0) {
        rc = g2 ? bls381_g2_from_uncompressed(out, b, 0) : bls381_g1_from_uncompressed(out, b, 0);
        if (rc != 0)
            return bp_vk_point_error(c, what, (size_t)(b - c->p), rc);
        inf = g2 ? bls381_g2_affine_is_inf(out) : bls381_g1_affine_is_inf(out);
    }
    if (inf)
        return zk_diag_set(c->diag, c->name, ZK_EBAD_ENCODING, "%s is the point at infinity", what);
    return rc;
}

/* ---- a query of n points, decoded on all threads ------------------------- */

struct bp_decode_arg {
    const uint8_t *src;
    void *dst;
    int g2;
    unsigned flags;
    uint64_t bad;               /* lowest bad index + 1, 0 = none (atomic) */
};

/* Decodes point i of d; 0 or the decoder's code (ZK_EBAD_ENCODING for
 * infinity). */
static int bp_decode_one(const struct bp_decode_arg *d, size_t i)
{
    int rc;
    if (d->g2) {
        bls381_g2_affine *q = (bls381_g2_affine *)d->dst + i;
        rc = bls381_g2_from_uncompressed(q, d->src + i * G2U, d->flags);
        if (rc == 0 && bls381_g2_affine_is_inf(q))
            rc = ZK_EBAD_ENCODING;
    } else {
        bls381_g1_affine *q = (bls381_g1_affine *)d->dst + i;
        rc = bls381_g1_from_uncompressed(q, d->src + i * G1U, d->flags);
        if (rc == 0 && bls381_g1_affine_is_inf(q))
            rc = ZK_EBAD_ENCODING;
    }
    return rc;
}

static void bp_decode_range(void *arg, size_t begin, size_t end)
{
    struct bp_decode_arg *d = arg;
    for (size_t i = begin; i < end; i++) {
        if (bp_decode_one(d, i) != 0) {
            uint64_t want = i + 1, cur = __atomic_load_n(&d->bad, __ATOMIC_RELAXED);
            while ((cur == 0 || want < cur) &&
                   !__atomic_compare_exchange_n(&d->bad, &cur, want, 0, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED))
                ;
            return;
        }
    }
}

static int bp_query(struct bp_cursor *c, const char *what, int g2, unsigned flags, uint32_t *n,
                    void **ret)
{
    size_t psz = g2 ? G2U : G1U;
    size_t asz = g2 ? sizeof(bls381_g2_affine) : sizeof(bls381_g1_affine);
    const uint8_t *b = NULL;
    struct bp_decode_arg d;
    void *dst;
    int rc;

    *ret = NULL;
    if ((rc = bp_count(c, what, n)) != 0 || (rc = bp_take(c, (uint64_t)*n * psz, what, &b)) != 0)
        return rc;
    dst = zk_big_alloc(*n ? (size_t)*n * asz : 1);
    if (dst == NULL)
        return zk_diag_set(c->diag, c->name, -ENOMEM, "%s: %u points: out of memory", what, *n);
    d.src = b;
    d.dst = dst;
    d.g2 = g2;
    d.flags = flags;
    d.bad = 0;
    for (size_t done = 0, step = BP_PASS_BYTES / psz; done < *n && d.bad == 0; done += step) {
        struct bp_decode_arg part = d;
        size_t k = *n - done < step ? *n - done : step;
        part.src = b + done * psz;
        part.dst = (uint8_t *)dst + done * asz;
        zk_parallel_for(0, k, 4096, bp_decode_range, &part);
        if (part.bad != 0)
            d.bad = done + part.bad;
        bp_drop(c, part.src, part.src + k * psz);
    }
    if (d.bad != 0) {
        rc = bp_decode_one(&d, d.bad - 1);
        zk_big_free(dst);
        size_t at = (size_t)(b - c->p) + (size_t)(d.bad - 1) * psz;
        if (rc == ZK_EBAD_ENCODING)
            return zk_diag_set(c->diag, c->name, ZK_EBAD_ENCODING,
                               "%s point %llu (offset %zu): bad encoding or the point at infinity",
                               what, (unsigned long long)(d.bad - 1), at);
        return bp_point_error(c, what, d.bad - 1, at, rc);
    }
    *ret = dst;
    return 0;
}

/* ---- the verifying key ----------------------------------------------------- */

void zk_bp_vk_release(struct zk_bp_vk *vk)
{
    if (vk != NULL) {
        zk_big_free(vk->ic);
        vk->ic = NULL;
    }
}

static int bp_vk_read(struct bp_cursor *c, struct zk_bp_vk *vk)
{
    int rc;
    void *ic;

    memset(vk, 0, sizeof *vk);
    if ((rc = bp_vk_point(c, "alpha_g1", 0, &vk->alpha_g1)) != 0 ||
        (rc = bp_vk_point(c, "beta_g1", 0, &vk->beta_g1)) != 0 ||
        (rc = bp_vk_point(c, "beta_g2", 1, &vk->beta_g2)) != 0 ||
        (rc = bp_vk_point(c, "gamma_g2", 1, &vk->gamma_g2)) != 0 ||
        (rc = bp_vk_point(c, "delta_g1", 0, &vk->delta_g1)) != 0 ||
        (rc = bp_vk_point(c, "delta_g2", 1, &vk->delta_g2)) != 0)
        return rc;
    if ((rc = bp_query(c, "ic", 0, 0, &vk->n_ic, &ic)) != 0)
        return rc;
    vk->ic = ic;
    if (vk->n_ic == 0) {
        zk_bp_vk_release(vk);
        return zk_diag_set(c->diag, c->name, ZK_EFORMAT, "ic is empty (input 0, ONE, has none)");
    }
    return 0;
}

int zk_bp_vk_parse(const uint8_t *buf, size_t len, const char *name, struct zk_bp_vk *vk,
                   size_t *used, struct zk_diag *diag)
{
    struct bp_cursor c = { buf, len, 0, name, diag, 0 };
    int rc = bp_vk_read(&c, vk);
    *used = c.off;
    return rc;
}

int zk_bp_vk_open_mem(const void *buf, size_t len, const char *name, zk_bp_vk **out,
                      struct zk_diag *diag)
{
    struct zk_bp_vk *vk = calloc(1, sizeof *vk);
    size_t used;
    int rc;

    *out = NULL;
    if (vk == NULL)
        return zk_diag_set(diag, name, -ENOMEM, "out of memory");
    rc = zk_bp_vk_parse(buf, len, name, vk, &used, diag);
    if (rc == 0 && used != len)
        rc = zk_diag_set(diag, name, ZK_EFORMAT,
                         "%zu bytes after the verifying key (a .params file? it is not a .vk)",
                         len - used);
    if (rc != 0) {
        zk_bp_vk_release(vk);
        free(vk);
        return rc;
    }
    *out = vk;
    return 0;
}

int zk_bp_vk_open(const char *path, zk_bp_vk **out, struct zk_diag *diag)
{
    void *m;
    size_t len;
    int rc = zk_bp_map_file(path, &m, &len, diag);
    if (rc != 0)
        return rc;
    rc = zk_bp_vk_open_mem(m, len, path, out, diag);
    if (m != NULL)
        munmap(m, len);
    return rc;
}

void zk_bp_vk_close(zk_bp_vk *vk)
{
    zk_bp_vk_release(vk);
    free(vk);
}

uint32_t zk_bp_vk_n_public(const zk_bp_vk *vk)
{
    return vk->n_ic - 1;
}

int zk_bp_vk_same(const zk_bp_vk *a, const zk_bp_vk *b)
{
    return a->n_ic == b->n_ic && !memcmp(&a->alpha_g1, &b->alpha_g1, sizeof a->alpha_g1) &&
           !memcmp(&a->beta_g1, &b->beta_g1, sizeof a->beta_g1) &&
           !memcmp(&a->delta_g1, &b->delta_g1, sizeof a->delta_g1) &&
           !memcmp(&a->beta_g2, &b->beta_g2, sizeof a->beta_g2) &&
           !memcmp(&a->gamma_g2, &b->gamma_g2, sizeof a->gamma_g2) &&
           !memcmp(&a->delta_g2, &b->delta_g2, sizeof a->delta_g2) &&
           !memcmp(a->ic, b->ic, (size_t)a->n_ic * sizeof *a->ic);
}

/* ---- the parameter file ---------------------------------------------------- */

void zk_bp_key_close(zk_bp_key *k)
{
    if (k == NULL)
        return;
    if (k->release) {   /* borrowed points (store.c) */
        k->release(k->release_ctx);
        free(k);
        return;
    }
    zk_bp_vk_release(&k->vk);
    zk_big_free(k->h);
    zk_big_free(k->l);
    zk_big_free(k->a);
    zk_big_free(k->b_g1);
    zk_big_free(k->b_g2);
    free(k);
}

int zk_bp_key_shape(const struct zk_bp_key_info *in, const char *name, struct zk_diag *diag)
{
    uint64_t m = (uint64_t)in->n_h + 1;
    if ((m & (m - 1)) != 0 || m > (1ULL << BLS381_FR_TWO_ADICITY))
        return zk_diag_set(diag, name, ZK_EDOMAIN,
                           "h has %u points: not 2^k - 1 for a domain of BLS12-381", in->n_h);
    if (in->n_a < in->n_ic || (uint64_t)in->n_a > (uint64_t)in->n_ic + in->n_l)
        return zk_diag_set(diag, name, ZK_ELENGTH,
                           "a has %u points: not between the %u inputs and inputs + %u aux",
                           in->n_a, in->n_ic, in->n_l);
    if (in->n_b_g1 != in->n_b_g2)
        return zk_diag_set(diag, name, ZK_ELENGTH, "b_g1 has %u points, b_g2 %u", in->n_b_g1,
                           in->n_b_g2);
    if ((uint64_t)in->n_b_g1 > (uint64_t)in->n_ic + in->n_l)
        return zk_diag_set(diag, name, ZK_ELENGTH, "b has %u points: more than %u inputs + %u aux",
                           in->n_b_g1, in->n_ic, in->n_l);
    return 0;
}

/* The key at buf[0 .. len); drop: buf is the file's private mapping,
 * whose pages may be given back as they are decoded. */
static int bp_key_parse(const void *buf, size_t len, const char *name, int drop,
                        zk_bp_key **out, struct zk_diag *diag)
{
    struct bp_cursor c = { buf, len, 0, name, diag, drop };
    struct zk_bp_key *k = calloc(1, sizeof *k);
    unsigned fl = ZK_EC_NO_SUBGROUP_CHECK;
    void *p;
    int rc;

    *out = NULL;
    if (k == NULL)
        return zk_diag_set(diag, name, -ENOMEM, "out of memory");
    if ((rc = bp_vk_read(&c, &k->vk)) != 0)
        goto fail;
    if ((rc = bp_query(&c, "h", 0, fl, &k->info.n_h, &p)) != 0)
        goto fail;
    k->h = p;
    if ((rc = bp_query(&c, "l", 0, fl, &k->info.n_l, &p)) != 0)
        goto fail;
    k->l = p;
    if ((rc = bp_query(&c, "a", 0, fl, &k->info.n_a, &p)) != 0)
        goto fail;
    k->a = p;
    if ((rc = bp_query(&c, "b_g1", 0, fl, &k->info.n_b_g1, &p)) != 0)
        goto fail;
    k->b_g1 = p;
    if ((rc = bp_query(&c, "b_g2", 1, fl, &k->info.n_b_g2, &p)) != 0)
        goto fail;
    k->b_g2 = p;
    if (c.off != len) {
        rc = zk_diag_set(diag, name, ZK_EFORMAT, "%zu bytes after b_g2, the last query",
                         len - c.off);
        goto fail;
    }
    k->info.file_bytes = len;
    k->info.n_ic = k->vk.n_ic;
    k->info.log2_domain = zk_bp_log2_domain((uint64_t)k->info.n_h + 1);
    if ((rc = zk_bp_key_shape(&k->info, name, diag)) != 0)
        goto fail;
    *out = k;
    return 0;
fail:
    zk_bp_key_close(k);
    return rc;
}

int zk_bp_key_open_mem(const void *buf, size_t len, const char *name, zk_bp_key **out,
                       struct zk_diag *diag)
{
    return bp_key_parse(buf, len, name, 0, out, diag);
}

int zk_bp_key_open(const char *path, zk_bp_key **out, struct zk_diag *diag)
{
    void *m;
    size_t len;
    int rc = zk_bp_map_file(path, &m, &len, diag);
    if (rc != 0)
        return rc;
    rc = bp_key_parse(m, len, path, 1, out, diag);
    if (m != NULL)
        munmap(m, len);
    return rc;
}

void zk_bp_key_get_info(const zk_bp_key *key, struct zk_bp_key_info *info)
{
    *info = key->info;
}

const zk_bp_vk *zk_bp_key_vk(const zk_bp_key *key)
{
    return &key->vk;
}
