/*
 * binfile.c -- the iden3 binary container (see zk/binfile.h), curve
 * identification by prime, diagnostics, and the sequential section reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ff/consts.h"
#include "io_internal.h"
#include "zk/binfile.h"
#include "zk/error.h"
#include "zk/util.h"

/* ---- curves ---------------------------------------------------------------- */

struct curve_info {
    const char *name;
    unsigned n8q, n8r;
    uint64_t q[6], r[4];
};

static const struct curve_info curves[ZK_CURVE_COUNT] = {
    [ZK_CURVE_BN254] = { "bn128", 32, 32, BN254_FP_P, BN254_FR_P },
    [ZK_CURVE_BLS12_381] = { "bls12381", 48, 32, BLS381_FP_P, BLS381_FR_P },
};

const char *zk_curve_name(enum zk_curve curve)
{
    return (unsigned)curve < ZK_CURVE_COUNT ? curves[curve].name : "unknown";
}

unsigned zk_curve_n8q(enum zk_curve curve)
{
    return (unsigned)curve < ZK_CURVE_COUNT ? curves[curve].n8q : 0;
}

unsigned zk_curve_n8r(enum zk_curve curve)
{
    return (unsigned)curve < ZK_CURVE_COUNT ? curves[curve].n8r : 0;
}

/* Compare the n8-byte LE integer a with the limb vector p (n8/8 limbs). */
static int cmp_le_limbs(const uint8_t *a, const uint64_t *p, size_t n8)
{
    for (size_t i = n8; i-- > 0;) {
        uint8_t pb = (uint8_t)(p[i / 8] >> (8 * (i % 8)));
        if (a[i] != pb)
            return a[i] < pb ? -1 : 1;
    }
    return 0;
}

int zk_curve_from_r(const uint8_t *prime_le, size_t n8, enum zk_curve *ret_curve)
{
    for (unsigned c = 0; c < ZK_CURVE_COUNT; c++) {
        if (n8 == curves[c].n8r && cmp_le_limbs(prime_le, curves[c].r, n8) == 0) {
            *ret_curve = (enum zk_curve)c;
            return 0;
        }
    }
    return ZK_ECURVE;
}

int zk_curve_from_q(const uint8_t *prime_le, size_t n8, enum zk_curve *ret_curve)
{
    for (unsigned c = 0; c < ZK_CURVE_COUNT; c++) {
        if (n8 == curves[c].n8q && cmp_le_limbs(prime_le, curves[c].q, n8) == 0) {
            *ret_curve = (enum zk_curve)c;
            return 0;
        }
    }
    return ZK_ECURVE;
}

int zk_curve_fr_is_canonical(enum zk_curve curve, const uint8_t *le, size_t n8)
{
    if ((unsigned)curve >= ZK_CURVE_COUNT || n8 != curves[curve].n8r)
        return 0;
    return cmp_le_limbs(le, curves[curve].r, n8) < 0;
}

int zk_curve_fq_is_canonical(enum zk_curve curve, const uint8_t *le, size_t n8)
{
    if ((unsigned)curve >= ZK_CURVE_COUNT || n8 != curves[curve].n8q)
        return 0;
    return cmp_le_limbs(le, curves[curve].q, n8) < 0;
}

/* ---- diagnostics --------------------------------------------------------------- */

int zk_diag_vset(struct zk_diag *diag, const char *name, int err, const char *fmt, va_list ap)
{
    if (!diag)
        return err;
    int n = snprintf(diag->msg, sizeof diag->msg, "%s: ", name ? name : "<memory>");
    if (n < 0 || (size_t)n >= sizeof diag->msg)
        return err;
    vsnprintf(diag->msg + n, sizeof diag->msg - (size_t)n, fmt, ap);
    for (char *c = diag->msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return err;
}

int zk_diag_set(struct zk_diag *diag, const char *name, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    zk_diag_vset(diag, name, err, fmt, ap);
    va_end(ap);
    return err;
}

/* ---- container ------------------------------------------------------------------- */

/* Raw read at an absolute file offset, bounds already checked by callers. */
static int raw_read(const struct zk_binfile *bf, uint64_t off, void *dst, size_t len)
{
    if (len == 0)
        return 0;
    if (off > bf->file_size || len > bf->file_size - off)
        return ZK_ETRUNCATED;
    if (bf->fd < 0) {
        memcpy(dst, bf->mem + off, len);
        return 0;
    }
    return zk_io_read_at(bf->fd, off, dst, len);
}

/* Walk the section records once the 12-byte header is known. */
static int walk_sections(struct zk_binfile *bf, uint32_t n_sections, struct zk_diag *diag)
{
    /* Every record takes at least 12 bytes: bound n before allocating. */
    uint64_t room = bf->file_size - 12;
    if ((uint64_t)n_sections > room / 12)
        return zk_diag_set(diag, bf->name, ZK_ETRUNCATED,
                           "header claims %u sections, file of %llu bytes holds at most %llu",
                           n_sections, (unsigned long long)bf->file_size,
                           (unsigned long long)(room / 12));
    if (n_sections) {
        bf->sections = calloc(n_sections, sizeof *bf->sections);
        if (!bf->sections)
            return zk_diag_set(diag, bf->name, -ENOMEM, "out of memory");
    }
    uint64_t pos = 12;
    for (uint32_t i = 0; i < n_sections; i++) {
        uint8_t rec[12];
        if (bf->file_size - pos < 12)
            return zk_diag_set(diag, bf->name, ZK_ETRUNCATED,
                               "truncated in the record of section #%u at byte %llu", i,
                               (unsigned long long)pos);
        int rc = raw_read(bf, pos, rec, sizeof rec);
        if (rc)
            return zk_diag_set(diag, bf->name, rc, "reading section record #%u: %s", i,
                               zk_strerror(rc));
        uint32_t id = zk_le32(rec);
        uint64_t size = zk_le64(rec + 4);
        pos += 12;
        if (size > bf->file_size - pos)
            return zk_diag_set(diag, bf->name, ZK_ETRUNCATED,
                               "section %u claims %llu bytes at offset %llu, file has %llu",
                               id, (unsigned long long)size, (unsigned long long)pos,
                               (unsigned long long)bf->file_size);
        bf->sections[i] = (struct zk_binsec){ .id = id, .offset = pos, .size = size };
        pos += size;
        bf->n_sections = i + 1;
    }
    return 0;
}

static int open_common(struct zk_binfile *bf, const char *magic, struct zk_diag *diag)
{
    uint8_t hdr[12];
    if (bf->file_size < 4)
        return zk_diag_set(diag, bf->name, ZK_ETRUNCATED,
                           "file has %llu bytes, shorter than the 12-byte header",
                           (unsigned long long)bf->file_size);
    int rc = raw_read(bf, 0, hdr, bf->file_size < 12 ? 4 : 12);
    if (rc)
        return zk_diag_set(diag, bf->name, rc, "reading header: %s", zk_strerror(rc));
    memcpy(bf->magic, hdr, 4);
    bf->magic[4] = 0;
    if (magic && memcmp(hdr, magic, 4) != 0) {
        /* the bytes are named only when they are another format's magic:
         * the file may be one its reader could not read (a daemon reading
         * a path a user gave), and the message goes back to that user */
        static const char *const known[] = { "zkey", "wtns", "r1cs" };
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (!memcmp(hdr, known[i], 4))
                return zk_diag_set(diag, bf->name, ZK_EBADMAGIC,
                                   "a .%s file, expected a .%s file", known[i], magic);
        return zk_diag_set(diag, bf->name, ZK_EBADMAGIC,
                           "wrong magic, expected \"%s\" (not a .%s file)", magic, magic);
    }
    if (bf->file_size < 12)
        return zk_diag_set(diag, bf->name, ZK_ETRUNCATED,
                           "file has %llu bytes, shorter than the 12-byte header",
                           (unsigned long long)bf->file_size);
    bf->version = zk_le32(hdr + 4);
    return walk_sections(bf, zk_le32(hdr + 8), diag);
}

static int set_name(struct zk_binfile *bf, const char *name, struct zk_diag *diag)
{
    bf->name = strdup(name ? name : "<memory>");
    if (!bf->name)
        return zk_diag_set(diag, name, -ENOMEM, "out of memory");
    return 0;
}

/* path opened for zk_binfile_open (nofollow: no link in any component);
 * the fd or -errno */
static int open_path(const char *path, int nofollow)
{
    /* never blocks: a FIFO or a device is refused after, not waited on */
    const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    if (!nofollow) {
        int fd = open(path, flags);
        return fd < 0 ? -errno : fd;
    }
    return zk_open_file_nofollow(path, flags);
}

static int open_file(struct zk_binfile *bf, const char *path, const char *magic, int nofollow,
                     struct zk_diag *diag)
{
    struct stat st;
    int rc;

    memset(bf, 0, sizeof *bf);
    bf->fd = -1;
    if (diag)
        diag->msg[0] = 0;
    rc = set_name(bf, path, diag);
    if (rc)
        goto out;
    bf->fd = open_path(path, nofollow);
    if (bf->fd < 0) {
        rc = bf->fd;
        bf->fd = -1;
        rc = zk_diag_set(diag, path, rc, "cannot open: %s%s", zk_strerror(rc),
                         nofollow && (rc == -ELOOP || rc == -ENOTDIR)
                             ? " (a symlink in its path?)" : "");
        goto out;
    }
    if (fstat(bf->fd, &st) != 0) {
        rc = zk_diag_set(diag, path, -errno, "cannot stat: %s", strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = zk_diag_set(diag, path, -EINVAL, "not a regular file");
        goto out;
    }
    bf->file_size = (uint64_t)st.st_size;
    rc = open_common(bf, magic, diag);
out:
    if (rc)
        zk_binfile_done(bf);
    return rc;
}

int zk_binfile_open(struct zk_binfile *bf, const char *path, const char *magic,
                    struct zk_diag *diag)
{
    return open_file(bf, path, magic, 0, diag);
}

int zk_binfile_open_nofollow(struct zk_binfile *bf, const char *path, const char *magic,
                             struct zk_diag *diag)
{
    return open_file(bf, path, magic, 1, diag);
}

int zk_binfile_open_mem(struct zk_binfile *bf, const void *buf, size_t len,
                        const char *name, const char *magic, struct zk_diag *diag)
{
    int rc;

    memset(bf, 0, sizeof *bf);
    bf->fd = -1;
    if (diag)
        diag->msg[0] = 0;
    rc = set_name(bf, name, diag);
    if (rc)
        goto out;
    bf->mem = buf;
    bf->file_size = len;
    rc = open_common(bf, magic, diag);
out:
    if (rc)
        zk_binfile_done(bf);
    return rc;
}

void zk_binfile_done(struct zk_binfile *bf)
{
    if (!bf)
        return;
    if (bf->fd >= 0)
        close(bf->fd);
    free(bf->sections);
    free(bf->name);
    memset(bf, 0, sizeof *bf);
    bf->fd = -1;
}

int zk_binfile_find(const struct zk_binfile *bf, uint32_t id,
                    const struct zk_binsec **ret, struct zk_diag *diag)
{
    const struct zk_binsec *found = NULL;
    for (uint32_t i = 0; i < bf->n_sections; i++) {
        if (bf->sections[i].id != id)
            continue;
        if (found)
            return zk_diag_set(diag, bf->name, ZK_ESECTION_DUP,
                               "section %u occurs more than once", id);
        found = &bf->sections[i];
    }
    if (!found)
        return zk_diag_set(diag, bf->name, ZK_ESECTION_MISSING, "section %u is missing", id);
    *ret = found;
    return 0;
}

int zk_binfile_read(const struct zk_binfile *bf, const struct zk_binsec *sec,
                    uint64_t off, void *dst, size_t len, struct zk_diag *diag)
{
    if (off > sec->size || len > sec->size - off)
        return zk_diag_set(diag, bf->name, ZK_ESECTION_SIZE,
                           "read of %zu bytes at %llu is outside section %u (%llu bytes)", len,
                           (unsigned long long)off, sec->id, (unsigned long long)sec->size);
    int rc = raw_read(bf, sec->offset + off, dst, len);
    if (rc)
        return zk_diag_set(diag, bf->name, rc, "reading section %u: %s", sec->id,
                           zk_strerror(rc));
    return 0;
}

/* ---- sequential section reader ------------------------------------------------------ */

int zk_secreader_init(struct zk_secreader *r, const struct zk_binfile *bf,
                      const struct zk_binsec *sec, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->bf = bf;
    r->sec = sec;
    if (cap > sec->size)
        cap = sec->size ? (size_t)sec->size : 1;
    r->buf = malloc(cap);
    if (!r->buf)
        return -ENOMEM;
    r->cap = cap;
    return 0;
}

void zk_secreader_done(struct zk_secreader *r)
{
    free(r->buf);
    r->buf = NULL;
}

uint64_t zk_secreader_left(const struct zk_secreader *r)
{
    return (r->sec->size - r->pos) + (r->len - r->at);
}

int zk_secreader_next(struct zk_secreader *r, size_t n, const uint8_t **ret,
                      struct zk_diag *diag)
{
    if (n > zk_secreader_left(r))
        return zk_diag_set(diag, r->bf->name, ZK_ESECTION_SIZE,
                           "section %u ends inside a record (%llu bytes left, %zu needed)",
                           r->sec->id, (unsigned long long)zk_secreader_left(r), n);
    if (n > r->cap)
        return zk_diag_set(diag, r->bf->name, ZK_EBADPARAMS, "record larger than buffer");
    if (r->len - r->at < n) {
        size_t keep = r->len - r->at;
        memmove(r->buf, r->buf + r->at, keep);
        uint64_t left = r->sec->size - r->pos;
        size_t want = r->cap - keep;
        if (want > left)
            want = (size_t)left;
        int rc = zk_binfile_read(r->bf, r->sec, r->pos, r->buf + keep, want, diag);
        if (rc)
            return rc;
        r->pos += want;
        r->at = 0;
        r->len = keep + want;
    }
    *ret = r->buf + r->at;
    r->at += n;
    return 0;
}
