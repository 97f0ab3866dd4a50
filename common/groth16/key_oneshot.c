/*
 * key_oneshot.c -- zk_groth16_key_load_oneshot (zk/groth16.h): a key for
 * one proof from an open .zkey, what the one-shot `zkslot prove` uses.
 *
 * The coefficients are loaded at once (synthesis needs them all) and
 * released as soon as synthesis is done.  The point sections are not
 * loaded: each is read from the file just before its MSM, into one buffer
 * the size of the largest section that the next MSM's section overwrites
 * (read in chunks on the proof's threads).
 * The proof's peak memory so holds one section of points instead of the
 * whole key and the coefficients (docs/arithmetic.md, "Peak memory").
 * Fresh pages cost their zeroing by the kernel at the first touch, so the
 * buffer is the coefficients' values' block where that is large enough
 * (many coefficients, as SHA-256's), else a new one made at the first
 * section; either way once, not once per section.
 *
 * The file is read, not mapped: a mapped file truncated by another process
 * is a SIGBUS at the next touch, where a read is an error.  A read that
 * fails, or a file whose size or modification time changed since it was
 * opened (written in place: the points would not be the ones the header
 * was checked with), fails the proof with a message for
 * zk_groth16_key_error.  A file replaced by a rename is not a change: the
 * open descriptor still reads the old one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "g16_internal.h"
#include "zk/error.h"
#include "zk/parallel.h"
#include "zk/util.h"

struct g16_source {
    struct zk_groth16_key *k;         /* the key it feeds (its coefficients) */
    struct zk_zkey z;                 /* the file, open until the key is freed */
    struct stat st;                   /* the file when it was opened (fd only) */
    void *buf;                        /* the largest section's bytes, 64-aligned;
                                       * NULL until synthesis is done */
    size_t most;                      /* the largest section's bytes */
    unsigned nthreads;                /* reading each section in chunks */
    int failed;                       /* diag holds the error of a read */
    struct zk_diag diag;
};

static const enum zk_zkey_section oneshot_secs[] = {
    ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1, ZK_ZKEY_SEC_B2, ZK_ZKEY_SEC_C, ZK_ZKEY_SEC_H,
};

/* The file changed in place since it was opened: size or mtime differ. */
static int file_changed(const struct g16_source *s)
{
    struct stat now;
    if (s->z.bf.fd < 0)
        return 0;                     /* a zkey in memory */
    if (fstat(s->z.bf.fd, &now) != 0)
        return -errno;
    return now.st_size != s->st.st_size || now.st_mtim.tv_sec != s->st.st_mtim.tv_sec ||
           now.st_mtim.tv_nsec != s->st.st_mtim.tv_nsec;
}

int g16_source_points(struct g16_source *s, enum zk_zkey_section id, const void **ret)
{
    int rc = file_changed(s);
    if (rc)
        rc = zk_diag_set(&s->diag, s->z.bf.name, rc < 0 ? rc : ZK_EFORMAT,
                         rc < 0 ? "cannot stat: %s"
                                : "changed since it was opened (written while a proof read it)",
                         rc < 0 ? zk_strerror(rc) : "");
    else if (!s->buf && !(s->buf = zk_big_alloc(s->most)))
        rc = zk_diag_set(&s->diag, s->z.bf.name, -ENOMEM, "out of memory for its points");
    else
        rc = g16_read_points(&s->z, id, s->buf, s->nthreads, &s->diag);
    if (rc) {
        s->failed = 1;
        return rc;
    }
    *ret = s->buf;
    return 0;
}

void g16_source_synth_done(struct g16_source *s)
{
    struct zk_groth16_key *k = s->k;
    /* val[0] is one zk_big_alloc of max(n_coef, 1) scalars (prove.c's
     * load_coefs): its pages, faulted in already, hold the points if they fit */
    size_t vb = (size_t)(k->hdr.n_coef ? k->hdr.n_coef : 1) * sizeof(zk_scalar);
    free(k->rowptr[0]);
    free(k->rowptr[1]);
    free(k->sig[0]);                  /* [1] points into [0]'s allocation */
    if (!s->buf && k->val[0] && vb >= s->most)
        s->buf = k->val[0];
    else
        zk_big_free(k->val[0]);
    memset(k->rowptr, 0, sizeof k->rowptr);
    memset(k->sig, 0, sizeof k->sig);
    memset(k->val, 0, sizeof k->val);
    k->what &= ~ZK_G16_LOAD_COEFS;
}

void g16_source_free(struct g16_source *s)
{
    if (!s)
        return;
    zk_big_free(s->buf);
    zk_zkey_done(&s->z);
    free(s);
}

int zk_groth16_key_load_oneshot(struct zk_zkey *z, unsigned nthreads, struct zk_diag *diag,
                                struct zk_groth16_key **ret)
{
    struct zk_groth16_load_opts o = { .what = ZK_G16_LOAD_COEFS, .threads = nthreads };
    struct zk_groth16_key *k = NULL;
    struct g16_source *s;
    size_t most = 64;
    int rc;

    if (!z || !ret)
        return ZK_EBADPARAMS;
    if (!(s = calloc(1, sizeof *s)))
        return -ENOMEM;
    if (z->bf.fd >= 0 && fstat(z->bf.fd, &s->st) != 0) {
        rc = zk_diag_set(diag, z->bf.name, -errno, "cannot stat: %s", strerror(errno));
        free(s);
        return rc;
    }
    for (size_t i = 0; i < sizeof oneshot_secs / sizeof oneshot_secs[0]; i++) {
        size_t pb = 0;
        uint64_t n = zk_zkey_section_points(z, oneshot_secs[i], &pb);
        if (n > SIZE_MAX / pb) {
            free(s);
            return zk_diag_set(diag, z->bf.name, -ENOMEM, "section %d too large",
                               (int)oneshot_secs[i]);
        }
        most = n * pb > most ? (size_t)(n * pb) : most;
    }
    if ((rc = zk_groth16_key_load_opts(z, &o, diag, &k))) {
        free(s);
        return rc;
    }
    s->most = most;
    s->nthreads = nthreads ? nthreads : zk_nthreads_default();
    s->k = k;
    s->z = *z;                        /* taken over: the caller's is left closed */
    memset(z, 0, sizeof *z);
    z->bf.fd = -1;
    k->src = s;
    *ret = k;
    return 0;
}

const char *zk_groth16_key_error(const struct zk_groth16_key *k)
{
    return k && k->src && k->src->failed ? k->src->diag.msg : NULL;
}
