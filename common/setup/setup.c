/*
 * setup.c -- INSECURE Groth16 test keys (see zk/setup.h): the byte stream
 * for the toxic waste, the coefficient buffer, the zkey writer, and the two
 * curve instantiations of setup_tmpl.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "ec/curves.h"
#include "zk/error.h"
#include "zk/ntt.h"
#include "zk/parallel.h"
#include "zk/r1cs.h"
#include "zk/setup.h"
#include "zk/util.h"

/* ---- toxic-waste bytes: getrandom, or a seeded expansion for tests ----------- */

struct setup_rng {
    int seeded;
    uint64_t s[4];
};

static uint64_t rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void setup_rng_bytes(struct setup_rng *rng, uint8_t *out, size_t n)
{
    if (!rng->seeded) {
        size_t got = 0;
        while (got < n) {
            ssize_t k = getrandom(out + got, n - got, 0);
            if (k > 0)
                got += (size_t)k;
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng->s[i % 4] + i;
        rng->s[i % 4] = rng_splitmix(&x);
        out[i] = (uint8_t)rng->s[i % 4];
    }
}

/* ---- coefficient entries of section 4 ------------------------------------------- */

#define SETUP_COEF_BYTES 44      /* u32 matrix, u32 constraint, u32 signal, 32-byte value */

struct setup_coefs {
    uint8_t *rec;
    size_t n, cap;
};

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int setup_coefs_push(struct setup_coefs *c, uint32_t matrix, uint32_t constraint,
                            uint32_t signal, const limb_t value[4])
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 4096;
        uint8_t *p = realloc(c->rec, cap * SETUP_COEF_BYTES);
        if (!p)
            return -ENOMEM;
        c->rec = p;
        c->cap = cap;
    }
    uint8_t *r = c->rec + c->n++ * SETUP_COEF_BYTES;
    put_le32(r, matrix);
    put_le32(r + 4, constraint);
    put_le32(r + 8, signal);
    for (int i = 0; i < 32; i++)
        r[12 + i] = (uint8_t)(value[i / 8] >> (8 * (i % 8)));
    return 0;
}

static void setup_coefs_done(struct setup_coefs *c)
{
    free(c->rec);
    memset(c, 0, sizeof *c);
}

/* ---- the zkey writer: buffered, errors sticky, section sizes patched -------- */

struct setup_writer {
    FILE *f;                  /* buffered, over a dup of file.fd */
    struct zk_atomic_file file;
    const char *path;
    long sec_start;           /* offset of the current section's size field */
    int err;
};

static int setup_writer_open(struct setup_writer *w, const char *path, struct zk_diag *diag)
{
    memset(w, 0, sizeof *w);
    w->path = path;
    w->file.fd = w->file.dirfd = -1;
    int r = zk_atomic_begin(&w->file, path, 0666);
    int fd = r < 0 ? -1 : fcntl(w->file.fd, F_DUPFD_CLOEXEC, 0);
    if (r == 0 && (fd < 0 || !(w->f = fdopen(fd, "wb"))))
        r = -errno;
    if (r < 0) {
        if (fd >= 0)
            close(fd);
        return zk_diag_set(diag, path, r, "cannot create the key: %s", zk_strerror(r));
    }
    static const uint8_t head[12] = { 'z', 'k', 'e', 'y', 1, 0, 0, 0, 10, 0, 0, 0 };
    if (fwrite(head, 1, sizeof head, w->f) != sizeof head)
        w->err = -EIO;
    return 0;
}

static void setup_put(struct setup_writer *w, const void *p, size_t n)
{
    if (!w->err && n && fwrite(p, 1, n, w->f) != n)
        w->err = -errno ? -errno : -EIO;
}

static void setup_put_u32(struct setup_writer *w, uint32_t v)
{
    uint8_t b[4];
    put_le32(b, v);
    setup_put(w, b, 4);
}

/* limbs as little-endian bytes, nbytes of them */
static void setup_put_limbs(struct setup_writer *w, const limb_t *l, size_t nbytes)
{
    uint8_t b[64];
    for (size_t i = 0; i < nbytes; i++)
        b[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
    setup_put(w, b, nbytes);
}

static void setup_begin_section(struct setup_writer *w, uint32_t id)
{
    setup_put_u32(w, id);
    w->sec_start = ftell(w->f);
    static const uint8_t zero8[8];
    setup_put(w, zero8, 8);
}

static void setup_end_section(struct setup_writer *w)
{
    if (w->err)
        return;
    long end = ftell(w->f);
    uint64_t size = (uint64_t)(end - w->sec_start - 8);
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(size >> (8 * i));
    if (fseek(w->f, w->sec_start, SEEK_SET) != 0)
        w->err = -errno;
    setup_put(w, b, 8);
    if (!w->err && fseek(w->f, end, SEEK_SET) != 0)
        w->err = -errno;
}

/* Flush, then zk_atomic_commit (fsync, rename into place).  On failure
 * nothing is left behind. */
static int setup_writer_commit(struct setup_writer *w, struct zk_diag *diag)
{
    int r = w->err;
    if (fclose(w->f) != 0 && !r)
        r = -errno;
    w->f = NULL;
    if (r)
        zk_atomic_abort(&w->file);
    else
        r = zk_atomic_commit(&w->file);
    if (r)
        return zk_diag_set(diag, w->path, r, "cannot write the key: %s", zk_strerror(r));
    return 0;
}

/* Discards an uncommitted key (the temporary file); harmless after commit. */
static void setup_writer_abort(struct setup_writer *w)
{
    if (!w->path)             /* never opened (zeroed) */
        return;
    if (w->f)
        fclose(w->f);
    zk_atomic_abort(&w->file);
    memset(w, 0, sizeof *w);
}

/* ---- instantiations ------------------------------------------------------------ */

/*                         group      (fixed_base_tmpl.h) */
#define ZK_FIXED_BASE_TMPL (bn254_g1)
#include "fixed_base_tmpl.h"
#define ZK_FIXED_BASE_TMPL (bn254_g2)
#include "fixed_base_tmpl.h"
#define ZK_FIXED_BASE_TMPL (bls381_g1)
#include "fixed_base_tmpl.h"
#define ZK_FIXED_BASE_TMPL (bls381_g2)
#include "fixed_base_tmpl.h"

/*                    curve   constants  (setup_tmpl.h) */
#define ZK_SETUP_TMPL (bn254,  BN254)
#include "setup_tmpl.h"
#define ZK_SETUP_TMPL (bls381, BLS381)
#include "setup_tmpl.h"

int zk_setup_zkey(const char *r1cs_path, const char *zkey_path, int want_curve,
                  const struct zk_setup_opts *opts, struct zk_diag *diag)
{
    static const struct zk_setup_opts defaults = { 0 };
    struct zk_r1cs r1cs;
    struct setup_rng rng = { 0 };
    int r;

    if (!opts)
        opts = &defaults;
    memset(&r1cs, 0, sizeof r1cs);
    r = zk_r1cs_open(&r1cs, r1cs_path, diag);
    if (r != 0)
        return r;
    if (want_curve >= 0 && (int)r1cs.hdr.curve != want_curve) {
        r = zk_diag_set(diag, r1cs_path, ZK_ECURVE_MISMATCH,
                        "circuit is over %s, not %s (recompile it with circom --prime)",
                        zk_curve_name(r1cs.hdr.curve), zk_curve_name((enum zk_curve)want_curve));
        goto out;
    }
    if (opts->seed) {
        rng.seeded = 1;
        memcpy(rng.s, opts->seed, sizeof rng.s);
    }
    if (r1cs.hdr.curve == ZK_CURVE_BN254)
        r = bn254_setup(&r1cs, zkey_path, opts, &rng, diag);
    else
        r = bls381_setup(&r1cs, zkey_path, opts, &rng, diag);
out:
    zk_memzero(&rng, sizeof rng);
    zk_r1cs_done(&r1cs);
    return r;
}
