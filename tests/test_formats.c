/*
 * test_formats.c -- the .zkey / .wtns / .r1cs readers (common/io/).
 *
 * Files are built in memory by a small writer that follows
 * docs/formats.md sections 2-5 (the independent reference here), then
 * parsed valid and after targeted corruption: truncation at every byte,
 * wrong magic, bad version, missing / duplicated sections, section size
 * mismatches, unknown primes, foreign-curve and wrong-length witnesses,
 * non-canonical field elements, header points off the curve or outside the
 * subgroup.  Each must give its typed error and a one-line diagnostic
 * naming the file; random byte mutations must never crash (ASan lane).
 * The prime comparisons are cross-checked with GMP.
 *
 *   test_formats --write-corpus DIR   writes fuzz seeds to DIR/{zkey,wtns,r1cs}/
 */
#include <errno.h>
#include <gmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ec/curves.h"
#include "zk/binfile.h"
#include "zk/error.h"
#include "zk/r1cs.h"
#include "zk/slotfmt.h"
#include "zk/wtns.h"
#include "zk/zkey.h"
#include "zktest.h"

/* ---- byte-level writer ------------------------------------------------------ */

struct sec {
    uint32_t id;
    uint8_t *data;
    size_t len, cap;
};

struct file {
    char magic[5];
    uint32_t version;
    int n;
    struct sec s[24];
};

static void put(struct sec *s, const void *p, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        s->cap = 2 * (s->len + n + 1);
        s->data = realloc(s->data, s->cap);
        if (!s->data)
            abort();
    }
    memcpy(s->data + s->len, p, n);
    s->len += n;
}

static void put32(struct sec *s, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    put(s, b, 4);
}

static void put64(struct sec *s, uint64_t v)
{
    put32(s, (uint32_t)v);
    put32(s, (uint32_t)(v >> 32));
}

static struct sec *add_sec(struct file *f, uint32_t id)
{
    struct sec *s = &f->s[f->n++];
    memset(s, 0, sizeof *s);
    s->id = id;
    return s;
}

static struct sec *find_sec(struct file *f, uint32_t id)
{
    for (int i = 0; i < f->n; i++)
        if (f->s[i].id == id)
            return &f->s[i];
    return NULL;
}

static void file_free(struct file *f)
{
    for (int i = 0; i < f->n; i++)
        free(f->s[i].data);
    f->n = 0;
}

static struct file file_copy(const struct file *f)
{
    struct file c = *f;
    for (int i = 0; i < f->n; i++) {
        c.s[i].data = malloc(f->s[i].len + 1);
        c.s[i].cap = f->s[i].len + 1;
        memcpy(c.s[i].data, f->s[i].data, f->s[i].len);
    }
    return c;
}

static void drop_sec(struct file *f, uint32_t id)
{
    for (int i = 0; i < f->n; i++) {
        if (f->s[i].id == id) {
            free(f->s[i].data);
            memmove(&f->s[i], &f->s[i + 1], (size_t)(f->n - i - 1) * sizeof f->s[0]);
            f->n--;
            return;
        }
    }
}

static void dup_sec(struct file *f, uint32_t id)
{
    struct sec *s = find_sec(f, id);
    struct sec *d = add_sec(f, id);
    put(d, s->data, s->len);
}

/* Serialize; `order` (may be NULL) lists section indexes in output order. */
static uint8_t *serialize(const struct file *f, const int *order, size_t *ret_len)
{
    struct sec out = { 0 };
    put(&out, f->magic, 4);
    put32(&out, f->version);
    put32(&out, (uint32_t)f->n);
    for (int k = 0; k < f->n; k++) {
        const struct sec *s = &f->s[order ? order[k] : k];
        put32(&out, s->id);
        put64(&out, s->len);
        put(&out, s->data, s->len);
    }
    *ret_len = out.len;
    return out.data;
}

/* ---- curve data ---------------------------------------------------------------- */

static const char *const R_HEX[2] = {
    "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001",
    "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
};
static const char *const Q_HEX[2] = {
    "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47",
    "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
};

/* n-byte little-endian encoding of a hex number (+ delta, may be negative). */
static void hex_le(uint8_t *out, size_t n, const char *hex, long delta)
{
    mpz_t z;
    mpz_init_set_str(z, hex, 16);
    if (delta >= 0)
        mpz_add_ui(z, z, (unsigned long)delta);
    else
        mpz_sub_ui(z, z, (unsigned long)-delta);
    memset(out, 0, n);
    size_t cnt = 0;
    mpz_export(out, &cnt, -1, 1, -1, 0, z);
    mpz_clear(z);
}

static unsigned n8q_of(int c)
{
    return c == ZK_CURVE_BN254 ? 32 : 48;
}

/* Header points: generators, as file bytes (= affine struct bytes). */
static void g1_gen(int c, uint8_t *out)
{
    if (c == ZK_CURVE_BN254) {
        bn254_g1_affine a;
        bn254_g1_generator(&a);
        memcpy(out, &a, sizeof a);
    } else {
        bls381_g1_affine a;
        bls381_g1_generator(&a);
        memcpy(out, &a, sizeof a);
    }
}

static void g2_gen(int c, uint8_t *out)
{
    if (c == ZK_CURVE_BN254) {
        bn254_g2_affine a;
        bn254_g2_generator(&a);
        memcpy(out, &a, sizeof a);
    } else {
        bls381_g2_affine a;
        bls381_g2_generator(&a);
        memcpy(out, &a, sizeof a);
    }
}

/* A BLS12-381 G1 point on the curve but outside the r-torsion subgroup. */
static void bls_g1_not_in_group(uint8_t *out)
{
    bls381_fp b, x, rhs, y;
    bls381_fp_from_u64(&b, 4);
    for (uint64_t i = 1;; i++) {
        bls381_fp_from_u64(&x, i);
        bls381_fp_sqr(&rhs, &x);
        bls381_fp_mul(&rhs, &rhs, &x);
        bls381_fp_add(&rhs, &rhs, &b);
        if (!bls381_fp_sqrt(&y, &rhs))
            continue;
        bls381_g1_affine a = { x, y };
        if (bls381_g1_affine_is_on_curve(&a) && !bls381_g1_affine_in_subgroup(&a)) {
            memcpy(out, &a, sizeof a);
            return;
        }
    }
}

/* ---- builders --------------------------------------------------------------------- */

struct zkey_spec {
    int curve;
    uint32_t n_vars, n_public, domain;
    uint32_t n_coef;
};

static void fill_pattern(struct sec *s, size_t n, uint32_t tag)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t b = (uint8_t)(i * 131u + tag * 7u + (i >> 8));
        put(s, &b, 1);
    }
}

/* A small zkey in `zkey contribute` section order (1..10). */
static struct file make_zkey(const struct zkey_spec *z)
{
    struct file f = { .magic = "zkey", .version = 1 };
    unsigned n8q = n8q_of(z->curve), n8r = 32, g1 = 2 * n8q, g2 = 4 * n8q;
    uint8_t buf[256];

    put32(add_sec(&f, 1), 1);
    struct sec *h = add_sec(&f, 2);
    put32(h, n8q);
    hex_le(buf, n8q, Q_HEX[z->curve], 0);
    put(h, buf, n8q);
    put32(h, n8r);
    hex_le(buf, n8r, R_HEX[z->curve], 0);
    put(h, buf, n8r);
    put32(h, z->n_vars);
    put32(h, z->n_public);
    put32(h, z->domain);
    for (int i = 0; i < 6; i++) {
        int is_g2 = (i == 2 || i == 3 || i == 5);
        if (is_g2)
            g2_gen(z->curve, buf);
        else
            g1_gen(z->curve, buf);
        put(h, buf, is_g2 ? g2 : g1);
    }
    fill_pattern(add_sec(&f, 3), (size_t)(z->n_public + 1) * g1, 3);
    struct sec *c = add_sec(&f, 4);
    put32(c, z->n_coef);
    for (uint32_t i = 0; i < z->n_coef; i++) {
        put32(c, i & 1);
        put32(c, i % z->domain);
        put32(c, (i * 7) % z->n_vars);
        hex_le(buf, 32, R_HEX[z->curve], -(long)(i + 1));   /* r - 1 - i */
        put(c, buf, 32);
    }
    fill_pattern(add_sec(&f, 5), (size_t)z->n_vars * g1, 5);
    fill_pattern(add_sec(&f, 6), (size_t)z->n_vars * g1, 6);
    fill_pattern(add_sec(&f, 7), (size_t)z->n_vars * g2, 7);
    fill_pattern(add_sec(&f, 8), (size_t)(z->n_vars - z->n_public - 1) * g1, 8);
    fill_pattern(add_sec(&f, 9), (size_t)z->domain * g1, 9);
    fill_pattern(add_sec(&f, 10), 40, 10);
    return f;
}

static struct file make_wtns(int curve, uint32_t n)
{
    struct file f = { .magic = "wtns", .version = 2 };
    uint8_t buf[32];
    struct sec *h = add_sec(&f, 1);
    put32(h, 32);
    hex_le(buf, 32, R_HEX[curve], 0);
    put(h, buf, 32);
    put32(h, n);
    struct sec *v = add_sec(&f, 2);
    for (uint32_t i = 0; i < n; i++) {
        if (i % 3 == 2)
            hex_le(buf, 32, R_HEX[curve], -1);
        else {
            memset(buf, 0, 32);
            buf[0] = (uint8_t)(i + 1);
            buf[5] = (uint8_t)i;
        }
        put(v, buf, 32);
    }
    return f;
}

/* r1cs: constraint i is  w[i%nw] * w[1] = (r-1-i) * w[(i+1)%nw] + 5 w[0]. */
static struct file make_r1cs(int curve, uint32_t n_wires, uint32_t n_constraints)
{
    struct file f = { .magic = "r1cs", .version = 1 };
    uint8_t buf[32];
    struct sec *c = add_sec(&f, 2);   /* circom writes 2, 1, 3 */
    for (uint32_t i = 0; i < n_constraints; i++) {
        memset(buf, 0, 32);
        buf[0] = 1;
        put32(c, 1);
        put32(c, i % n_wires);
        put(c, buf, 32);
        put32(c, 1);
        put32(c, 1);
        put(c, buf, 32);
        put32(c, 2);
        put32(c, (i + 1) % n_wires);
        hex_le(buf, 32, R_HEX[curve], -(long)(i + 1));
        put(c, buf, 32);
        put32(c, 0);
        memset(buf, 0, 32);
        buf[0] = 5;
        put(c, buf, 32);
    }
    struct sec *h = add_sec(&f, 1);
    put32(h, 32);
    hex_le(buf, 32, R_HEX[curve], 0);
    put(h, buf, 32);
    put32(h, n_wires);
    put32(h, 1);   /* nPubOut */
    put32(h, 1);   /* nPubIn */
    put32(h, 1);   /* nPrvIn */
    put64(h, n_wires + 3);
    put32(h, n_constraints);
    struct sec *m = add_sec(&f, 3);
    for (uint32_t i = 0; i < n_wires; i++)
        put64(m, i);
    return f;
}

/* ---- parse helpers ------------------------------------------------------------------ */

static int diag_ok(const struct zk_diag *d, const char *name)
{
    return d->msg[0] && strncmp(d->msg, name, strlen(name)) == 0 &&
           d->msg[strlen(name)] == ':' && !strchr(d->msg, '\n');
}

static int parse_zkey(const struct file *f, const int *order, struct zk_diag *d)
{
    size_t len;
    uint8_t *b = serialize(f, order, &len);
    struct zk_zkey z;
    int rc = zk_zkey_open_mem(&z, b, len, "k.zkey", d);
    zk_zkey_done(&z);
    free(b);
    return rc;
}

static int parse_wtns(const struct file *f, struct zk_diag *d)
{
    size_t len;
    uint8_t *b = serialize(f, NULL, &len);
    struct zk_wtns w;
    int rc = zk_wtns_open_mem(&w, b, len, "w.wtns", d);
    if (!rc) {
        uint8_t *vals = malloc((size_t)w.hdr.n_witness * 32 + 1);
        rc = zk_wtns_read_values(&w, 0, w.hdr.n_witness, vals, d);
        free(vals);
    }
    zk_wtns_done(&w);
    free(b);
    return rc;
}

static int parse_r1cs(const struct file *f, struct zk_diag *d)
{
    size_t len;
    uint8_t *b = serialize(f, NULL, &len);
    struct zk_r1cs r;
    int rc = zk_r1cs_open_mem(&r, b, len, "c.r1cs", d);
    if (!rc)
        rc = zk_r1cs_for_each_constraint(&r, NULL, NULL, NULL, d);
    zk_r1cs_done(&r);
    free(b);
    return rc;
}

#define EXPECT_RC(expr, want, d, name)                                                  \
    do {                                                                                \
        int rc_ = (expr);                                                               \
        ZT_CHECK(rc_ == (want), "%s: got %d (%s), want %s", #expr, rc_,                 \
                 zk_strerror(rc_), #want);                                              \
        if (rc_)                                                                        \
            ZT_CHECK(diag_ok(d, name), "diag '%s'", (d)->msg);                          \
    } while (0)

/* ---- tests --------------------------------------------------------------------------- */

static void test_primes(void)
{
    for (int c = 0; c < 2; c++) {
        uint8_t b[48];
        enum zk_curve got;
        hex_le(b, 32, R_HEX[c], 0);
        ZT_CHECK(zk_curve_from_r(b, 32, &got) == 0 && (int)got == c);
        ZT_CHECK(zk_curve_from_q(b, 32, &got) == ZK_ECURVE);
        hex_le(b, n8q_of(c), Q_HEX[c], 0);
        ZT_CHECK(zk_curve_from_q(b, n8q_of(c), &got) == 0 && (int)got == c);
        ZT_CHECK(zk_curve_from_q(b, n8q_of(c) - 8, &got) == ZK_ECURVE);
        /* canonical compare vs GMP at the edges and at random */
        mpz_t r, x;
        mpz_init_set_str(r, R_HEX[c], 16);
        mpz_init(x);
        for (int i = 0; i < 2000; i++) {
            long d = i < 6 ? i - 3 : 0;
            if (i < 6) {
                hex_le(b, 32, R_HEX[c], d);
            } else {
                zt_rand_bytes(b, 32);
                if (i % 2) {   /* near r: share its top 8..31 bytes */
                    uint8_t rr[32];
                    size_t keep = 8 + (size_t)(i % 24);
                    hex_le(rr, 32, R_HEX[c], 0);
                    memcpy(b + 32 - keep, rr + 32 - keep, keep);
                }
            }
            mpz_import(x, 32, -1, 1, -1, 0, b);
            int want = mpz_cmp(x, r) < 0;
            ZT_CHECK(zk_curve_fr_is_canonical((enum zk_curve)c, b, 32) == want, "i=%d", i);
        }
        mpz_clears(r, x, NULL);
        ZT_CHECK(!strcmp(zk_curve_name((enum zk_curve)c), c ? "bls12381" : "bn128"));
    }
}

static void test_zkey_valid(int curve)
{
    struct zkey_spec sp = { curve, 7, 2, 8, 13 };
    struct file f = make_zkey(&sp);
    static const int setup_order[10] = { 0, 1, 3, 2, 8, 7, 4, 5, 6, 9 }; /* ids 1 2 4 3 9 8 5 6 7 10 */
    for (int pass = 0; pass < 3; pass++) {
        size_t len;
        uint8_t *b = serialize(&f, pass == 1 ? setup_order : NULL, &len);
        struct zk_zkey z;
        struct zk_diag d;
        char path[] = "/tmp/zkformats-XXXXXX";
        int rc;
        if (pass == 2) {   /* through a real file: the pread path */
            int fd = mkstemp(path);
            ZT_REQUIRE(fd >= 0, );
            ZT_CHECK(write(fd, b, len) == (ssize_t)len);
            close(fd);
            rc = zk_zkey_open(&z, path, &d);
        } else {
            rc = zk_zkey_open_mem(&z, b, len, "k.zkey", &d);
        }
        ZT_CHECK(rc == 0, "curve %d pass %d: %s", curve, pass, d.msg);
        if (rc == 0) {
            const struct zk_zkey_header *h = &z.hdr;
            ZT_CHECK((int)h->curve == curve && h->n_vars == 7 && h->n_public == 2 &&
                     h->domain_size == 8 && h->log2_domain == 3 && h->n_coef == 13 &&
                     h->protocol == 1 && h->version == 1);
            ZT_CHECK(h->g1_bytes == 2 * n8q_of(curve) && h->g2_bytes == 4 * n8q_of(curve));
            uint8_t gen[192];
            g2_gen(curve, gen);
            ZT_CHECK(!memcmp(h->gamma2, gen, h->g2_bytes));
            /* point sections equal their bytes in the file, at any offset */
            for (unsigned id = 3; id <= 9; id++) {
                if (id == 4)
                    continue;
                size_t ps;
                uint64_t n = zk_zkey_section_points(&z, id, &ps);
                struct sec *s = find_sec(&f, id);
                ZT_CHECK(n * ps == s->len, "id %u", id);
                uint64_t *dst = malloc(n * ps + 8);
                ZT_CHECK(zk_zkey_read_points(&z, id, 0, n, dst, &d) == 0, "%s", d.msg);
                ZT_CHECK(!memcmp(dst, s->data, n * ps), "id %u", id);
                ZT_CHECK(zk_zkey_read_points(&z, id, 1, n - 1, dst, &d) == 0);
                ZT_CHECK(!memcmp(dst, s->data + ps, (n - 1) * ps), "id %u", id);
                ZT_CHECK(zk_zkey_read_points(&z, id, 1, n, dst, &d) == ZK_ESECTION_SIZE);
                ZT_CHECK(zk_zkey_read_points(&z, id, UINT64_MAX, 2, dst, &d) ==
                         ZK_ESECTION_SIZE);
                free(dst);
            }
            struct zk_zkey_coef co[13];
            ZT_CHECK(zk_zkey_read_coefs(&z, 0, 13, co, &d) == 0, "%s", d.msg);
            for (uint32_t i = 0; i < 13; i++) {
                uint8_t want[32];
                hex_le(want, 32, R_HEX[curve], -(long)(i + 1));
                ZT_CHECK(co[i].matrix == (i & 1) && co[i].constraint == i % 8 &&
                         co[i].signal == (i * 7) % 7 && !memcmp(co[i].value, want, 32),
                         "coef %u", i);
            }
            ZT_CHECK(zk_zkey_read_coefs(&z, 12, 2, co, &d) == ZK_ESECTION_SIZE);
            ZT_CHECK(zk_zkey_read_points(&z, ZK_ZKEY_SEC_COEFS, 0, 1, co, &d) ==
                     ZK_EBADPARAMS);
        }
        zk_zkey_done(&z);
        zk_zkey_done(&z);   /* idempotent */
        if (pass == 2)
            unlink(path);
        free(b);
    }
    file_free(&f);
}

static void test_truncation(void)
{
    struct zkey_spec sp = { ZK_CURVE_BN254, 4, 1, 4, 5 };
    struct file fs[3] = { make_zkey(&sp), make_wtns(ZK_CURVE_BLS12_381, 4),
                          make_r1cs(ZK_CURVE_BN254, 5, 3) };
    const char *names[3] = { "k.zkey", "w.wtns", "c.r1cs" };
    for (int k = 0; k < 3; k++) {
        size_t len;
        uint8_t *b = serialize(&fs[k], NULL, &len);
        unsigned bad = 0;
        for (size_t cut = 0; cut < len; cut++) {
            uint8_t *t = malloc(cut + 1);   /* exact-size copy: ASan catches overreads */
            memcpy(t, b, cut);
            struct zk_diag d;
            int rc;
            if (k == 0) {
                struct zk_zkey z;
                rc = zk_zkey_open_mem(&z, t, cut, names[k], &d);
                zk_zkey_done(&z);
            } else if (k == 1) {
                struct zk_wtns w;
                rc = zk_wtns_open_mem(&w, t, cut, names[k], &d);
                zk_wtns_done(&w);
            } else {
                struct zk_r1cs r;
                rc = zk_r1cs_open_mem(&r, t, cut, names[k], &d);
                zk_r1cs_done(&r);
            }
            if (rc != ZK_ETRUNCATED || !diag_ok(&d, names[k])) {
                if (!bad)
                    printf("  %s cut at %zu: rc %d '%s'\n", names[k], cut, rc, d.msg);
                bad++;
            }
            free(t);
        }
        ZT_CHECK(bad == 0, "%s: %u truncations without ZK_ETRUNCATED", names[k], bad);
        free(b);
        file_free(&fs[k]);
    }
}

static void test_zkey_errors(int curve)
{
    struct zkey_spec sp = { curve, 6, 2, 8, 9 };
    struct file base = make_zkey(&sp);
    struct zk_diag d;
    struct file f;
    unsigned n8q = n8q_of(curve);
    size_t pt0 = 20 + n8q + 32;   /* alpha1 offset in section 2 */
    size_t g1 = 2 * n8q, g2 = 4 * n8q;

    EXPECT_RC(parse_zkey(&base, NULL, &d), 0, &d, "k.zkey");

    f = file_copy(&base);
    memcpy(f.magic, "zkez", 4);
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EBADMAGIC, &d, "k.zkey");
    memcpy(f.magic, "wtns", 4);
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EBADMAGIC, &d, "k.zkey");
    f.version = 3;
    memcpy(f.magic, "zkey", 4);
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EVERSION, &d, "k.zkey");
    f.version = 0;
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EVERSION, &d, "k.zkey");
    f.version = 2;
    EXPECT_RC(parse_zkey(&f, NULL, &d), 0, &d, "k.zkey");
    file_free(&f);

    for (uint32_t id = 1; id <= 9; id++) {
        f = file_copy(&base);
        drop_sec(&f, id);
        EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ESECTION_MISSING, &d, "k.zkey");
        ZT_CHECK(strstr(d.msg, "section") != NULL, "%s", d.msg);
        file_free(&f);
        f = file_copy(&base);
        dup_sec(&f, id);
        EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ESECTION_DUP, &d, "k.zkey");
        file_free(&f);
        /* one byte too many / too few in each section */
        for (int delta = -1; delta <= 1; delta += 2) {
            f = file_copy(&base);
            struct sec *s = find_sec(&f, id);
            if (delta > 0)
                put(s, "x", 1);
            else
                s->len--;
            int want = ZK_ESECTION_SIZE;
            EXPECT_RC(parse_zkey(&f, NULL, &d), want, &d, "k.zkey");
            file_free(&f);
        }
    }
    /* section 10 duplicated or missing: not needed, fine */
    f = file_copy(&base);
    drop_sec(&f, 10);
    EXPECT_RC(parse_zkey(&f, NULL, &d), 0, &d, "k.zkey");
    file_free(&f);

    /* a point section of the right size for another nVars */
    f = file_copy(&base);
    find_sec(&f, 5)->len -= g1;
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ESECTION_SIZE, &d, "k.zkey");
    ZT_CHECK(strstr(d.msg, "section 5 has") != NULL, "%s", d.msg);
    file_free(&f);
    /* nCoef disagreeing with the section size */
    f = file_copy(&base);
    find_sec(&f, 4)->data[0]++;
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ESECTION_SIZE, &d, "k.zkey");
    file_free(&f);

    /* protocol */
    f = file_copy(&base);
    find_sec(&f, 1)->data[0] = 2;
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EPROTOCOL, &d, "k.zkey");
    file_free(&f);

    /* primes: q + 2, r + 2, n8q changed, r of the other curve */
    struct sec *h;
    f = file_copy(&base);
    find_sec(&f, 2)->data[4] ^= 2;
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ECURVE, &d, "k.zkey");
    file_free(&f);
    f = file_copy(&base);
    find_sec(&f, 2)->data[8 + n8q] ^= 2;
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ECURVE, &d, "k.zkey");
    file_free(&f);
    f = file_copy(&base);
    h = find_sec(&f, 2);
    hex_le(h->data + 8 + n8q, 32, R_HEX[!curve], 0);
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ECURVE, &d, "k.zkey");
    file_free(&f);
    f = file_copy(&base);
    find_sec(&f, 2)->data[0] = 40;
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ECURVE, &d, "k.zkey");
    file_free(&f);

    /* sizes in the header */
    f = file_copy(&base);
    h = find_sec(&f, 2);
    h->data[8 + n8q + 32 + 8] = 6;   /* domainSize 6 */
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EFORMAT, &d, "k.zkey");
    h->data[8 + n8q + 32 + 8] = 0;   /* domainSize 0 */
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EFORMAT, &d, "k.zkey");
    if (curve == ZK_CURVE_BN254) {   /* 2^28 = 2^s_max: refused */
        memcpy(h->data + 8 + n8q + 32 + 8, "\0\0\0\x10", 4);
        EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EDOMAIN, &d, "k.zkey");
    }
    file_free(&f);
    f = file_copy(&base);
    h = find_sec(&f, 2);
    h->data[8 + n8q + 32 + 4] = 6;   /* nPublic = nVars */
    EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EFORMAT, &d, "k.zkey");
    file_free(&f);

    /* header points */
    for (int i = 0; i < 6; i++) {
        int is_g2 = (i == 2 || i == 3 || i == 5);
        size_t off = pt0;
        for (int j = 0; j < i; j++)
            off += (j == 2 || j == 3 || j == 5) ? g2 : g1;
        size_t sz = is_g2 ? g2 : g1;
        f = file_copy(&base);
        h = find_sec(&f, 2);
        memset(h->data + off, 0, sz);
        EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_EBAD_ENCODING, &d, "k.zkey");
        file_free(&f);
        f = file_copy(&base);
        h = find_sec(&f, 2);
        h->data[off + n8q] ^= 1;           /* y (or x.c1) changed: off the curve */
        EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ENOT_ON_CURVE, &d, "k.zkey");
        file_free(&f);
        f = file_copy(&base);
        h = find_sec(&f, 2);
        hex_le(h->data + off + sz - n8q, n8q, Q_HEX[curve], 0);   /* last coord = q */
        EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ENOT_CANONICAL, &d, "k.zkey");
        file_free(&f);
    }
    if (curve == ZK_CURVE_BLS12_381) {
        f = file_copy(&base);
        h = find_sec(&f, 2);
        bls_g1_not_in_group(h->data + pt0 + 2 * g1 + 2 * g2);   /* delta1 */
        EXPECT_RC(parse_zkey(&f, NULL, &d), ZK_ENOT_IN_GROUP, &d, "k.zkey");
        ZT_CHECK(strstr(d.msg, "delta1") != NULL, "%s", d.msg);
        file_free(&f);
    }

    /* coefficient entries: checked when read */
    for (int kind = 0; kind < 4; kind++) {
        f = file_copy(&base);
        uint8_t *e = find_sec(&f, 4)->data + 4 + 44 * 3;
        int want = ZK_EFORMAT;
        switch (kind) {
        case 0: e[0] = 2; break;                 /* matrix 2 */
        case 1: e[4] = 8; break;                 /* constraint = domainSize */
        case 2: e[8] = 6; break;                 /* signal = nVars */
        case 3: hex_le(e + 12, 32, R_HEX[curve], 0); want = ZK_ENOT_CANONICAL; break;
        }
        size_t len;
        uint8_t *b = serialize(&f, NULL, &len);
        struct zk_zkey z;
        struct zk_zkey_coef co[9];
        ZT_CHECK(zk_zkey_open_mem(&z, b, len, "k.zkey", &d) == 0);
        EXPECT_RC(zk_zkey_read_coefs(&z, 0, 9, co, &d), want, &d, "k.zkey");
        EXPECT_RC(zk_zkey_read_coefs(&z, 0, 3, co, &d), 0, &d, "k.zkey");
        EXPECT_RC(zk_zkey_read_coefs(&z, 4, 5, co, &d), 0, &d, "k.zkey");
        zk_zkey_done(&z);
        free(b);
        file_free(&f);
    }
    file_free(&base);
}

static void test_wtns(void)
{
    struct zk_diag d;
    struct file f;
    for (int c = 0; c < 2; c++) {
        struct file base = make_wtns(c, 6);
        EXPECT_RC(parse_wtns(&base, &d), 0, &d, "w.wtns");
        size_t len;
        uint8_t *b = serialize(&base, NULL, &len);
        struct zk_wtns w;
        ZT_CHECK(zk_wtns_open_mem(&w, b, len, "w.wtns", &d) == 0, "%s", d.msg);
        ZT_CHECK((int)w.hdr.curve == c && w.hdr.n_witness == 6 && w.hdr.n8 == 32 &&
                 w.hdr.version == 2);
        if (len == 76 + 6 * 32)
            ZT_CHECK(w.values.offset == 76);
        uint64_t vals[6][4];
        ZT_CHECK(zk_wtns_read_values(&w, 0, 6, vals, &d) == 0);
        ZT_CHECK(!memcmp(vals, find_sec(&base, 2)->data, sizeof vals));
        ZT_CHECK(zk_wtns_read_values(&w, 2, 4, vals, &d) == 0);
        ZT_CHECK(!memcmp(vals, find_sec(&base, 2)->data + 64, 4 * 32));
        ZT_CHECK(zk_wtns_read_values(&w, 3, 4, vals, &d) == ZK_ESECTION_SIZE);

        /* against a zkey header */
        struct zk_zkey_header zh = { .curve = (enum zk_curve)c, .n_vars = 6 };
        EXPECT_RC(zk_wtns_check_against_zkey(&w.hdr, &zh, "w.wtns", &d), 0, &d, "w.wtns");
        zh.n_vars = 7;
        EXPECT_RC(zk_wtns_check_against_zkey(&w.hdr, &zh, "w.wtns", &d), ZK_ELENGTH, &d,
                  "w.wtns");
        zh.n_vars = 6;
        zh.curve = (enum zk_curve)!c;
        EXPECT_RC(zk_wtns_check_against_zkey(&w.hdr, &zh, "w.wtns", &d), ZK_ECURVE_MISMATCH,
                  &d, "w.wtns");
        zk_wtns_done(&w);
        free(b);

        f = file_copy(&base);
        f.version = 3;
        EXPECT_RC(parse_wtns(&f, &d), ZK_EVERSION, &d, "w.wtns");
        f.version = 1;
        EXPECT_RC(parse_wtns(&f, &d), 0, &d, "w.wtns");
        memcpy(f.magic, "zkey", 4);
        EXPECT_RC(parse_wtns(&f, &d), ZK_EBADMAGIC, &d, "w.wtns");
        file_free(&f);
        for (uint32_t id = 1; id <= 2; id++) {
            f = file_copy(&base);
            drop_sec(&f, id);
            EXPECT_RC(parse_wtns(&f, &d), ZK_ESECTION_MISSING, &d, "w.wtns");
            file_free(&f);
            f = file_copy(&base);
            dup_sec(&f, id);
            EXPECT_RC(parse_wtns(&f, &d), ZK_ESECTION_DUP, &d, "w.wtns");
            file_free(&f);
            f = file_copy(&base);
            static const uint8_t zeros[32];
            put(find_sec(&f, id), zeros, id == 1 ? 1 : 32);
            EXPECT_RC(parse_wtns(&f, &d), ZK_ESECTION_SIZE, &d, "w.wtns");
            file_free(&f);
        }
        /* nWitness disagreeing with the values: the "wrong length" file */
        f = file_copy(&base);
        find_sec(&f, 1)->data[36] = 7;
        EXPECT_RC(parse_wtns(&f, &d), ZK_ESECTION_SIZE, &d, "w.wtns");
        file_free(&f);
        /* unknown prime; q instead of r; n8 = 48 */
        f = file_copy(&base);
        find_sec(&f, 1)->data[4] ^= 4;
        EXPECT_RC(parse_wtns(&f, &d), ZK_ECURVE, &d, "w.wtns");
        hex_le(find_sec(&f, 1)->data + 4, 32, Q_HEX[0], 0);
        EXPECT_RC(parse_wtns(&f, &d), ZK_ECURVE, &d, "w.wtns");
        find_sec(&f, 1)->data[0] = 48;
        EXPECT_RC(parse_wtns(&f, &d), ZK_ECURVE, &d, "w.wtns");
        file_free(&f);
        /* non-canonical value: w[4] = r, then w[4] = 2^256 - 1 */
        f = file_copy(&base);
        hex_le(find_sec(&f, 2)->data + 4 * 32, 32, R_HEX[c], 0);
        EXPECT_RC(parse_wtns(&f, &d), ZK_ENOT_CANONICAL, &d, "w.wtns");
        ZT_CHECK(strstr(d.msg, "value 4 ") != NULL, "%s", d.msg);
        memset(find_sec(&f, 2)->data + 4 * 32, 0xff, 32);
        EXPECT_RC(parse_wtns(&f, &d), ZK_ENOT_CANONICAL, &d, "w.wtns");
        file_free(&f);
        file_free(&base);
    }
}

struct r1cs_seen {
    uint32_t count;
    int bad;
    int curve;
};

static int r1cs_cb(void *ctx, uint32_t i, const struct zk_r1cs_lc lc[3])
{
    struct r1cs_seen *s = ctx;
    uint8_t want[32];
    hex_le(want, 32, R_HEX[s->curve], -(long)(i + 1));
    if (i != s->count || lc[0].n != 1 || lc[1].n != 1 || lc[2].n != 2 ||
        lc[0].t[0].wire != i % 9 || lc[1].t[0].wire != 1 || lc[2].t[0].wire != (i + 1) % 9 ||
        memcmp(lc[2].t[0].coef, want, 32) || lc[2].t[1].wire != 0 || lc[2].t[1].coef[0] != 5 ||
        lc[0].t[0].coef[0] != 1)
        s->bad++;
    s->count++;
    return i == 1000 ? 42 : 0;
}

static void test_r1cs(void)
{
    struct zk_diag d;
    struct file f;
    for (int c = 0; c < 2; c++) {
        struct file base = make_r1cs(c, 9, 11);
        size_t len;
        uint8_t *b = serialize(&base, NULL, &len);
        struct zk_r1cs r;
        ZT_CHECK(zk_r1cs_open_mem(&r, b, len, "c.r1cs", &d) == 0, "%s", d.msg);
        ZT_CHECK((int)r.hdr.curve == c && r.hdr.n_wires == 9 && r.hdr.n_constraints == 11 &&
                 r.hdr.n_pub_out == 1 && r.hdr.n_pub_in == 1 && r.hdr.n_prv_in == 1 &&
                 r.hdr.n_labels == 12 && r.map.size == 72);
        struct r1cs_seen seen = { 0, 0, c };
        uint64_t terms[3];
        ZT_CHECK(zk_r1cs_for_each_constraint(&r, r1cs_cb, &seen, terms, &d) == 0, "%s", d.msg);
        ZT_CHECK(seen.count == 11 && seen.bad == 0, "count %u bad %d", seen.count, seen.bad);
        ZT_CHECK(terms[0] == 11 && terms[1] == 11 && terms[2] == 22);
        zk_r1cs_done(&r);
        free(b);

        f = file_copy(&base);
        f.version = 2;
        EXPECT_RC(parse_r1cs(&f, &d), ZK_EVERSION, &d, "c.r1cs");
        file_free(&f);
        for (uint32_t id = 1; id <= 3; id++) {
            f = file_copy(&base);
            drop_sec(&f, id);
            EXPECT_RC(parse_r1cs(&f, &d), id == 3 ? 0 : ZK_ESECTION_MISSING, &d, "c.r1cs");
            file_free(&f);
            f = file_copy(&base);
            dup_sec(&f, id);
            EXPECT_RC(parse_r1cs(&f, &d), ZK_ESECTION_DUP, &d, "c.r1cs");
            file_free(&f);
            f = file_copy(&base);
            put(find_sec(&f, id), "\0", 1);
            EXPECT_RC(parse_r1cs(&f, &d), ZK_ESECTION_SIZE, &d, "c.r1cs");
            file_free(&f);
        }
        /* the last constraint cut short / one constraint fewer in the header */
        f = file_copy(&base);
        find_sec(&f, 2)->len -= 36;
        EXPECT_RC(parse_r1cs(&f, &d), ZK_ESECTION_SIZE, &d, "c.r1cs");
        file_free(&f);
        f = file_copy(&base);
        find_sec(&f, 1)->data[60] = 10;
        EXPECT_RC(parse_r1cs(&f, &d), ZK_ESECTION_SIZE, &d, "c.r1cs");
        find_sec(&f, 1)->data[60] = 12;
        EXPECT_RC(parse_r1cs(&f, &d), ZK_ESECTION_SIZE, &d, "c.r1cs");
        file_free(&f);
        /* a huge term count */
        f = file_copy(&base);
        memset(find_sec(&f, 2)->data, 0xff, 4);
        EXPECT_RC(parse_r1cs(&f, &d), ZK_ESECTION_SIZE, &d, "c.r1cs");
        file_free(&f);
        /* wire out of range, coefficient = r */
        f = file_copy(&base);
        find_sec(&f, 2)->data[4] = 9;
        EXPECT_RC(parse_r1cs(&f, &d), ZK_EFORMAT, &d, "c.r1cs");
        file_free(&f);
        f = file_copy(&base);
        hex_le(find_sec(&f, 2)->data + 8, 32, R_HEX[c], 0);
        EXPECT_RC(parse_r1cs(&f, &d), ZK_ENOT_CANONICAL, &d, "c.r1cs");
        file_free(&f);
        /* unknown prime, inputs exceeding the wires */
        f = file_copy(&base);
        find_sec(&f, 1)->data[10] ^= 1;
        EXPECT_RC(parse_r1cs(&f, &d), ZK_ECURVE, &d, "c.r1cs");
        file_free(&f);
        f = file_copy(&base);
        find_sec(&f, 1)->data[48] = 7;   /* nPrvIn = 7: 9 inputs/outputs, 9 wires */
        EXPECT_RC(parse_r1cs(&f, &d), ZK_EFORMAT, &d, "c.r1cs");
        file_free(&f);
        file_free(&base);
    }
    /* a callback's nonzero return stops the walk and is passed through */
    struct file big = make_r1cs(ZK_CURVE_BN254, 9, 1500);
    size_t len;
    uint8_t *b = serialize(&big, NULL, &len);
    struct zk_r1cs r;
    ZT_CHECK(zk_r1cs_open_mem(&r, b, len, "c.r1cs", &d) == 0);
    struct r1cs_seen seen = { 0, 0, 0 };
    ZT_CHECK(zk_r1cs_for_each_constraint(&r, r1cs_cb, &seen, NULL, &d) == 42);
    ZT_CHECK(seen.count == 1001 && seen.bad == 0);
    zk_r1cs_done(&r);
    free(b);
    file_free(&big);
}

/* Container corner cases the format readers share. */
static void test_container(void)
{
    struct zk_binfile bf;
    struct zk_diag d;
    uint8_t hdr[24] = "ptau\1\0\0\0\xff\xff\xff\xff";
    EXPECT_RC(zk_binfile_open_mem(&bf, hdr, 12, "p.ptau", "ptau", &d), ZK_ETRUNCATED, &d,
              "p.ptau");
    /* one section of 0 bytes, id 7 */
    memcpy(hdr + 8, "\1\0\0\0\7\0\0\0\0\0\0\0\0\0\0\0", 16);
    ZT_CHECK(zk_binfile_open_mem(&bf, hdr, 24, "p.ptau", NULL, &d) == 0, "%s", d.msg);
    const struct zk_binsec *s;
    ZT_CHECK(bf.n_sections == 1 && zk_binfile_find(&bf, 7, &s, &d) == 0 && s->offset == 24 &&
             s->size == 0);
    ZT_CHECK(zk_binfile_find(&bf, 1, &s, &d) == ZK_ESECTION_MISSING);
    uint8_t x;
    ZT_CHECK(zk_binfile_read(&bf, &bf.sections[0], 0, &x, 1, &d) == ZK_ESECTION_SIZE);
    zk_binfile_done(&bf);
    /* a section size near 2^64 must not wrap */
    memcpy(hdr + 16, "\xf8\xff\xff\xff\xff\xff\xff\xff", 8);
    EXPECT_RC(zk_binfile_open_mem(&bf, hdr, 24, "p.ptau", "ptau", &d), ZK_ETRUNCATED, &d,
              "p.ptau");
    /* missing file, directory */
    EXPECT_RC(zk_binfile_open(&bf, "/nonexistent/x.zkey", "zkey", &d), -ENOENT, &d,
              "/nonexistent/x.zkey");
    EXPECT_RC(zk_binfile_open(&bf, "/tmp", "zkey", &d), -EINVAL, &d, "/tmp");
    zk_binfile_done(&bf);
}

/* A point section of > 16 MiB through a real file (the io_uring path when built). */
static void test_big_read(void)
{
    struct zkey_spec sp = { ZK_CURVE_BLS12_381, 5, 1, 1u << 18, 3 };
    struct file f = make_zkey(&sp);
    size_t len;
    uint8_t *b = serialize(&f, NULL, &len);
    char path[] = "/tmp/zkformats-big-XXXXXX";
    int fd = mkstemp(path);
    ZT_REQUIRE(fd >= 0, );
    ZT_CHECK(write(fd, b, len) == (ssize_t)len);
    close(fd);
    struct zk_zkey z;
    struct zk_diag d;
    ZT_CHECK(zk_zkey_open(&z, path, &d) == 0, "%s", d.msg);
    size_t ps;
    uint64_t n = zk_zkey_section_points(&z, ZK_ZKEY_SEC_H, &ps);
    ZT_CHECK(n == (1u << 18) && ps == 96);
    uint64_t *dst = malloc(n * ps);
    ZT_CHECK(zk_zkey_read_points(&z, ZK_ZKEY_SEC_H, 0, n, dst, &d) == 0, "%s", d.msg);
    ZT_CHECK(!memcmp(dst, find_sec(&f, 9)->data, n * ps));
    ZT_CHECK(zk_zkey_read_points(&z, ZK_ZKEY_SEC_H, 1000, n - 1000, dst, &d) == 0);
    ZT_CHECK(!memcmp(dst, find_sec(&f, 9)->data + 1000 * ps, (n - 1000) * ps));
    /* the file shrinks after open: ZK_ETRUNCATED, not garbage */
    ZT_CHECK(truncate(path, (off_t)(len - 100)) == 0);
    ZT_CHECK(zk_zkey_read_points(&z, ZK_ZKEY_SEC_H, 0, n, dst, &d) == ZK_ETRUNCATED, "%s",
             d.msg);
    free(dst);
    zk_zkey_done(&z);
    unlink(path);
    free(b);
    file_free(&f);
}

/* Random byte mutations of valid files: any result but a crash. */
static void test_mutations(void)
{
    struct zkey_spec sp = { ZK_CURVE_BN254, 5, 1, 8, 6 };
    struct file fs[3] = { make_zkey(&sp), make_wtns(ZK_CURVE_BN254, 5),
                          make_r1cs(ZK_CURVE_BLS12_381, 6, 4) };
    unsigned ok = 0;
    for (int k = 0; k < 3; k++) {
        size_t len;
        uint8_t *b = serialize(&fs[k], NULL, &len);
        for (int it = 0; it < 3000; it++) {
            uint8_t *t = malloc(len);
            memcpy(t, b, len);
            int nflip = 1 + (int)(zt_rand64() % 4);
            for (int j = 0; j < nflip; j++) {
                size_t pos = zt_rand64() % (j == 0 && it % 2 ? (len < 200 ? len : 200) : len);
                t[pos] = (uint8_t)zt_rand64();
            }
            struct zk_diag d;
            int rc;
            if (k == 0) {
                struct zk_zkey z;
                rc = zk_zkey_open_mem(&z, t, len, "m", &d);
                if (!rc) {
                    struct zk_zkey_coef co[6];
                    rc = zk_zkey_read_coefs(&z, 0, z.hdr.n_coef < 6 ? z.hdr.n_coef : 6, co, &d);
                }
                zk_zkey_done(&z);
            } else if (k == 1) {
                rc = 0;
                struct zk_wtns w;
                rc = zk_wtns_open_mem(&w, t, len, "m", &d);
                if (!rc && w.hdr.n_witness <= 5) {
                    uint64_t v[5][4];
                    rc = zk_wtns_read_values(&w, 0, w.hdr.n_witness, v, &d);
                }
                zk_wtns_done(&w);
            } else {
                struct zk_r1cs r;
                rc = zk_r1cs_open_mem(&r, t, len, "m", &d);
                if (!rc)
                    rc = zk_r1cs_for_each_constraint(&r, NULL, NULL, NULL, &d);
                zk_r1cs_done(&r);
            }
            ok += rc == 0;
            if (rc)
                ZT_CHECK(rc < 0 && diag_ok(&d, "m"), "rc %d diag '%s'", rc, d.msg);
            free(t);
        }
        free(b);
        file_free(&fs[k]);
    }
    printf("mutations: %u of 9000 still parsed\n", ok);
}

/* ---- corpus writer ---------------------------------------------------------------------- */

static void write_file(const char *dir, const char *sub, const char *name, const uint8_t *b,
                       size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(b, 1, len, fp) != len)
        perror(path);
    if (fp)
        fclose(fp);
}

static int write_corpus(const char *dir)
{
    size_t len;
    uint8_t *b;
    char name[64];
    for (int c = 0; c < 2; c++) {
        const char *cn = c ? "bls12381" : "bn128";
        struct zkey_spec sp = { c, 4, 1, 4, 5 };
        struct file f = make_zkey(&sp);
        static const int setup_order[10] = { 0, 1, 3, 2, 8, 7, 4, 5, 6, 9 };
        b = serialize(&f, NULL, &len);
        snprintf(name, sizeof name, "synthetic-%s", cn);
        write_file(dir, "zkey", name, b, len);
        free(b);
        b = serialize(&f, setup_order, &len);
        snprintf(name, sizeof name, "synthetic-setup-order-%s", cn);
        write_file(dir, "zkey", name, b, len);
        free(b);
        dup_sec(&f, 5);
        b = serialize(&f, NULL, &len);
        snprintf(name, sizeof name, "dup-section-%s", cn);
        write_file(dir, "zkey", name, b, len);
        free(b);
        file_free(&f);

        f = make_wtns(c, 4);
        b = serialize(&f, NULL, &len);
        snprintf(name, sizeof name, "synthetic-%s", cn);
        write_file(dir, "wtns", name, b, len);
        free(b);
        find_sec(&f, 1)->data[36] = 9;
        b = serialize(&f, NULL, &len);
        snprintf(name, sizeof name, "wrong-length-%s", cn);
        write_file(dir, "wtns", name, b, len);
        free(b);
        file_free(&f);

        f = make_r1cs(c, 6, 4);
        b = serialize(&f, NULL, &len);
        snprintf(name, sizeof name, "synthetic-%s", cn);
        write_file(dir, "r1cs", name, b, len);
        free(b);
        memset(find_sec(&f, 2)->data, 0xff, 4);
        b = serialize(&f, NULL, &len);
        snprintf(name, sizeof name, "huge-nterms-%s", cn);
        write_file(dir, "r1cs", name, b, len);
        free(b);
        file_free(&f);
    }
    return 0;
}

/* A slot's header of format 2 (class and deadline) and of format 1 (a
 * slot published before classes, read as low and no deadline). */
static void test_slotfmt_versions(void)
{
    struct zk_slot_desc d;
    uint64_t need = zk_slotfmt_layout(8, 16, &d);
    ZT_REQUIRE(need > 0, );
    unsigned char *buf = calloc(1, need);
    ZT_REQUIRE(buf != NULL, );
    struct zk_slotfmt_header h;
    memset(&h, 0, sizeof h);
    h.magic = ZK_SLOTFMT_MAGIC;
    h.version = ZK_SLOTFMT_VERSION;
    h.curve = 1;
    h.partition_id = 5;
    h.key_id = 6;
    h.n_vars = 8;
    h.n_public = 1;
    h.domain_size = 16;
    h.priority = 3;
    h.deadline_ns = 12345;
    memcpy(buf, &h, sizeof h);
    struct zk_slot s = { 0 };
    s.data = buf;
    s.capacity = need;
    s.nregions = d.nregions;
    memcpy(s.region_off, d.region_off, sizeof d.region_off);
    memcpy(s.region_bytes, d.region_bytes, sizeof d.region_bytes);
    struct zk_slotfmt_header got, want = h;
    ZT_CHECK(zk_slotfmt_check(&s, &want) == 0);
    ZT_CHECK(zk_slotfmt_read(&s, &got) == 0 && got.priority == 3 && got.deadline_ns == 12345);
    /* format 1: a 72-byte header region; whatever follows it is not read */
    h.version = 1;
    memcpy(buf, &h, sizeof h);
    s.region_bytes[ZK_SLOTFMT_HDR] = ZK_SLOTFMT_V1_SIZE;
    ZT_CHECK(zk_slotfmt_check(&s, &want) == 0, "a format-1 slot is accepted");
    ZT_CHECK(zk_slotfmt_read(&s, &got) == 0 && got.priority == 0 && got.deadline_ns == 0 &&
             got.partition_id == 5);
    /* a version that does not match its header's size is refused */
    h.version = 2;
    memcpy(buf, &h, sizeof h);
    ZT_CHECK(zk_slotfmt_check(&s, &want) == ZK_EVERSION);
    s.region_bytes[ZK_SLOTFMT_HDR] = sizeof h;
    h.version = 1;
    memcpy(buf, &h, sizeof h);
    ZT_CHECK(zk_slotfmt_check(&s, &want) == ZK_EVERSION);
    s.region_bytes[ZK_SLOTFMT_HDR] = 40;
    ZT_CHECK(zk_slotfmt_check(&s, &want) == ZK_EBADMAGIC);
    free(buf);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
        return write_corpus(argv[2]);
    zt_init(argc, argv);
    test_primes();
    test_container();
    test_zkey_valid(ZK_CURVE_BN254);
    test_zkey_valid(ZK_CURVE_BLS12_381);
    test_truncation();
    test_zkey_errors(ZK_CURVE_BN254);
    test_zkey_errors(ZK_CURVE_BLS12_381);
    test_wtns();
    test_r1cs();
    test_big_read();
    test_mutations();
    test_slotfmt_versions();
    return zt_finish();
}
