/*
 * prove.c -- the Groth16 prover (docs/formats.md section 6) and the
 * curve-independent parts of the verifier: key loading, the split
 * start/finalize API, blinding scalars, and the per-curve instantiations of
 * prove_tmpl.h.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "ec/curves.h"
#include "ff/fp12.h"
#include "g16_internal.h"
#include "zk/error.h"
#include "zk/msm.h"
#include "zk/util.h"
#include "zk/ntt.h"
#include "zk/pairing.h"
#include "zk/parallel.h"

/* ---- per-curve instantiations --------------------------------------------- */

/*                    curve   enum zk_curve       (prove_tmpl.h) */
#define ZK_PROVE_TMPL (bn254,  ZK_CURVE_BN254)
#include "prove_tmpl.h"
#define ZK_PROVE_TMPL (bls381, ZK_CURVE_BLS12_381)
#include "prove_tmpl.h"

const struct g16_ops *zk_g16_ops(enum zk_curve curve)
{
    switch (curve) {
    case ZK_CURVE_BN254: return &g16_bn254_g16_ops;
    case ZK_CURVE_BLS12_381: return &g16_bls381_g16_ops;
    }
    return NULL;
}

double zk_g16_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- key loading ---------------------------------------------------------- */

struct zk_groth16_key *zk_groth16_key_free(struct zk_groth16_key *k)
{
    if (!k)
        return NULL;
    free(k->rowptr[0]);
    free(k->rowptr[1]);
    free(k->sig[0]);                  /* [1] points into [0]'s allocation */
    zk_big_free(k->val[0]);
    zk_g16_tables_free(k);
    g16_source_free(k->src);
    if (k->pt_release) {
        k->pt_release(k->pt_release_ctx);
    } else {
        zk_big_free(k->pt_a);
        zk_big_free(k->pt_b1);
        zk_big_free(k->pt_b2);
        zk_big_free(k->pt_c);
        zk_big_free(k->pt_h);
        zk_big_free(k->pt_ic);
    }
    free(k);
    return NULL;
}

int zk_groth16_key_new(const struct zk_zkey_header *h, struct zk_groth16_key **ret)
{
    struct zk_groth16_key *k;
    if (!h || !ret)
        return ZK_EBADPARAMS;
    if (!zk_g16_ops(h->curve))
        return ZK_ECURVE;
    if (!(k = calloc(1, sizeof *k)))
        return -ENOMEM;
    k->hdr = *h;
    k->ops = zk_g16_ops(h->curve);
    k->g1b = h->g1_bytes;
    k->g2b = h->g2_bytes;
    *ret = k;
    return 0;
}

int zk_groth16_key_use_points(struct zk_groth16_key *k, const void *const pts[6],
                              void (*release)(void *ctx), void *ctx)
{
    if (!k || !pts || !release || (k->what & ZK_G16_LOAD_POINTS))
        return ZK_EBADPARAMS;
    for (int i = 0; i < 6; i++) {
        if (!pts[i] || ((uintptr_t)pts[i] & 63))
            return ZK_EBADPARAMS;
    }
    k->pt_ic = (void *)pts[0];
    k->pt_a = (void *)pts[1];
    k->pt_b1 = (void *)pts[2];
    k->pt_b2 = (void *)pts[3];
    k->pt_c = (void *)pts[4];
    k->pt_h = (void *)pts[5];
    k->pt_release = release;
    k->pt_release_ctx = ctx;
    k->what |= ZK_G16_LOAD_POINTS;
    return 0;
}

const struct zk_zkey_header *zk_groth16_key_header(const struct zk_groth16_key *k)
{
    return &k->hdr;
}

/*
 * load_coefs takes the one pass of coefs_in_order (below) where it can.
 * Otherwise section 4 is read COEF_WINDOW coefficients at a time, each
 * window decoded by the threads in tasks of COEF_TASK (zk_zkey_read_coefs
 * checks every entry), then regrouped by (matrix, row) with a counting sort: pass 1
 * counts the entries of each row, pass 2 places them.  A key of at most
 * one window is decoded once and placed from memory; a larger one is read
 * again in pass 2 (its transient memory stays one window: 96 MiB).
 */
#define COEF_WINDOW ((uint64_t)1 << 21)
#define COEF_TASK ((uint64_t)1 << 16)

struct coef_job {
    const struct zk_zkey *z;
    struct zk_zkey_coef *dst;         /* the window's entries */
    uint64_t first, count;            /* the window in section 4 */
    atomic_int rc;                    /* first error; its thread fills diag */
    struct zk_diag *diag;
};

static void coef_range(void *arg, size_t begin, size_t end)
{
    struct coef_job *j = arg;
    for (size_t t = begin; t < end; t++) {
        uint64_t at = (uint64_t)t * COEF_TASK;
        uint64_t n = j->count - at < COEF_TASK ? j->count - at : COEF_TASK;
        struct zk_diag d;
        int zero = 0;
        if (atomic_load_explicit(&j->rc, memory_order_relaxed))
            return;                   /* another task failed: stop early */
        int rc = zk_zkey_read_coefs(j->z, j->first + at, n, j->dst + at, &d);
        /* the one thread whose error wins writes the caller's diag; the
         * join in zk_parallel_for publishes it */
        if (rc && atomic_compare_exchange_strong(&j->rc, &zero, rc) && j->diag)
            *j->diag = d;
    }
}

/* Entries [first, first + count) of section 4 into dst, on nthreads. */
static int coef_decode(const struct zk_zkey *z, uint64_t first, uint64_t count,
                       struct zk_zkey_coef *dst, unsigned nthreads, struct zk_diag *diag)
{
    struct coef_job j = { z, dst, first, count, 0, diag };
    zk_parallel_for(nthreads, (size_t)((count + COEF_TASK - 1) / COEF_TASK), 1, coef_range,
                    &j);
    return atomic_load_explicit(&j.rc, memory_order_relaxed);
}

/*
 * The one pass for a section 4 whose entries come row by row within each
 * matrix (snarkjs and zkslot setup write it so: constraint by
 * constraint): each entry is placed as it is read, COEF_RUN at a time
 * through a stack array, with no buffer of the whole section (its pages
 * would be fresh, zeroed by the kernel, and as large as the section).  A's
 * entries fill sig and val (n_coef each) from the front, B's from the back
 * downwards; B's are then turned around in place, so both end in row
 * order, B's right after A's.  Returns 0 (rowptr, sig, val made), 1 (an
 * entry's row comes before its matrix's previous one: nothing kept,
 * rowptr zero again) or an error.
 */
#define COEF_RUN 256u

static int coefs_in_order(struct zk_groth16_key *k, const struct zk_zkey *z,
                          struct zk_diag *diag)
{
    const uint64_t nc = k->hdr.n_coef;
    const size_t n = k->hdr.domain_size;
    struct zk_zkey_coef e[COEF_RUN];
    uint64_t front = 0, back = nc;    /* A's next slot, one past B's next */
    uint32_t last[2] = { 0, 0 };
    uint32_t *sig = malloc((nc ? nc : 1) * sizeof(uint32_t));
    zk_scalar *val = zk_big_alloc((nc ? nc : 1) * sizeof(zk_scalar));
    int rc;

    k->sig[0] = sig;
    k->val[0] = val;
    if (!sig || !val)
        return -ENOMEM;
    for (uint64_t f = 0; f < nc; f += COEF_RUN) {
        unsigned cn = nc - f < COEF_RUN ? (unsigned)(nc - f) : COEF_RUN;
        if ((rc = zk_zkey_read_coefs(z, f, cn, e, diag)))
            return rc;
        for (unsigned i = 0; i < cn; i++) {
            uint32_t m = e[i].matrix;
            uint64_t at = m ? --back : front++;   /* f + i < nc: never meet */
            if (e[i].constraint < last[m]) {
                free(sig);
                zk_big_free(val);
                k->sig[0] = NULL;
                k->val[0] = NULL;
                memset(k->rowptr[0], 0, (n + 1) * sizeof(uint32_t));
                memset(k->rowptr[1], 0, (n + 1) * sizeof(uint32_t));
                return 1;
            }
            last[m] = e[i].constraint;
            k->rowptr[m][e[i].constraint + 1]++;
            sig[at] = e[i].signal;
            memcpy(val[at].l, e[i].value, sizeof e[i].value);
        }
    }
    for (uint64_t i = front, j = nc; i + 1 < j; i++, j--) {
        uint32_t ts = sig[i];
        zk_scalar tv = val[i];
        sig[i] = sig[j - 1];
        val[i] = val[j - 1];
        sig[j - 1] = ts;
        val[j - 1] = tv;
    }
    k->sig[1] = sig + front;
    k->val[1] = val + front;
    for (int m = 0; m < 2; m++) {
        for (size_t i = 0; i < n; i++)
            k->rowptr[m][i + 1] += k->rowptr[m][i];
    }
    return 0;
}

#undef COEF_RUN

static int load_coefs(struct zk_groth16_key *k, const struct zk_zkey *z, unsigned nthreads,
                      struct zk_diag *diag)
{
    const uint64_t nc = k->hdr.n_coef;
    const size_t n = k->hdr.domain_size;
    const uint64_t win = nc < COEF_WINDOW ? (nc ? nc : 1) : COEF_WINDOW;
    struct zk_zkey_coef *tmp = NULL;
    uint64_t cnt[2] = { 0, 0 };
    int rc = -ENOMEM;

    if (nc > UINT32_MAX)
        return ZK_EFORMAT;
    for (int m = 0; m < 2; m++)
        k->rowptr[m] = calloc(n + 1, sizeof(uint32_t));
    if (!k->rowptr[0] || !k->rowptr[1])
        goto out;
    if ((rc = coefs_in_order(k, z, diag)) <= 0)
        return rc;
    rc = -ENOMEM;
    if (!(tmp = zk_big_alloc((size_t)win * sizeof *tmp)))
        goto out;
    /* pass 1: count entries per row */
    for (uint64_t f = 0; f < nc; f += win) {
        uint64_t cn = nc - f < win ? nc - f : win;
        if ((rc = coef_decode(z, f, cn, tmp, nthreads, diag)))
            goto out;
        for (uint64_t i = 0; i < cn; i++) {
            k->rowptr[tmp[i].matrix][tmp[i].constraint + 1]++;
            cnt[tmp[i].matrix]++;
        }
    }
    rc = -ENOMEM;
    for (int m = 0; m < 2; m++) {
        for (size_t i = 0; i < n; i++)
            k->rowptr[m][i + 1] += k->rowptr[m][i];
    }
    k->sig[0] = malloc((nc ? nc : 1) * sizeof(uint32_t));
    k->val[0] = zk_big_alloc((nc ? nc : 1) * sizeof(zk_scalar));
    if (!k->sig[0] || !k->val[0])
        goto out;
    k->sig[1] = k->sig[0] + cnt[0];
    k->val[1] = k->val[0] + cnt[0];
    /* pass 2: place entries; rowptr[m][i] is used as the fill cursor of row i
     * and ends up as the start of row i + 1, so shift back afterwards */
    for (uint64_t f = 0; f < nc; f += win) {
        uint64_t cn = nc - f < win ? nc - f : win;
        if (nc > win && (rc = coef_decode(z, f, cn, tmp, nthreads, diag)))
            goto out;
        for (uint64_t i = 0; i < cn; i++) {
            const struct zk_zkey_coef *e = &tmp[i];
            uint32_t at = k->rowptr[e->matrix][e->constraint]++;
            if (at >= cnt[e->matrix]) {       /* the file changed since pass 1 */
                rc = zk_diag_set(diag, z->bf.name, ZK_EFORMAT,
                                 "section 4 changed while it was read");
                goto out;
            }
            k->sig[e->matrix][at] = e->signal;
            memcpy(k->val[e->matrix][at].l, e->value, sizeof e->value);
        }
    }
    for (int m = 0; m < 2; m++) {
        memmove(k->rowptr[m] + 1, k->rowptr[m], n * sizeof(uint32_t));
        k->rowptr[m][0] = 0;
    }
    rc = 0;
out:
    zk_big_free(tmp);
    return rc;
}

#undef COEF_TASK
#undef COEF_WINDOW

/* One chunk of point section reads, run on several threads. */
struct load_job {
    const struct zk_zkey *z;
    enum zk_zkey_section id;
    uint8_t *dst;
    size_t pb;                        /* bytes per point */
    uint64_t cnt, per;                /* points in all, per chunk */
    atomic_int rc;                    /* first error; its thread fills diag */
    struct zk_diag *diag;
};

static void load_range(void *arg, size_t begin, size_t end)
{
    struct load_job *j = arg;
    for (size_t c = begin; c < end; c++) {
        uint64_t first = (uint64_t)c * j->per;
        uint64_t n = j->cnt - first < j->per ? j->cnt - first : j->per;
        struct zk_diag d;
        if (atomic_load_explicit(&j->rc, memory_order_relaxed))
            return;                   /* another chunk failed: stop early */
        int rc = zk_zkey_read_points(j->z, j->id, first, n, j->dst + first * j->pb, &d);
        int zero = 0;
        /* the one thread whose error wins writes the caller's diag; the
         * join in zk_parallel_for publishes it */
        if (rc && atomic_compare_exchange_strong(&j->rc, &zero, rc) && j->diag)
            *j->diag = d;
    }
}

int g16_read_points(const struct zk_zkey *z, enum zk_zkey_section id, void *dst,
                    unsigned nthreads, struct zk_diag *diag)
{
    size_t pb = 0;
    uint64_t cnt = zk_zkey_section_points(z, id, &pb);
    if (!cnt)
        return 0;
    /* ~2 MiB per chunk */
    struct load_job j = { .z = z, .id = id, .dst = dst, .pb = pb, .cnt = cnt,
                          .per = ((uint64_t)2 << 20) / pb, .diag = diag };
    atomic_init(&j.rc, 0);
    size_t chunks = (size_t)((cnt + j.per - 1) / j.per);
    zk_parallel_for(nthreads, chunks, 1, load_range, &j);
    return atomic_load(&j.rc);
}

static int load_points(const struct zk_zkey *z, enum zk_zkey_section id, void **ret,
                       unsigned nthreads, struct zk_diag *diag)
{
    size_t pb = 0;
    uint64_t cnt = zk_zkey_section_points(z, id, &pb);
    void *p = zk_big_alloc(cnt * pb);
    int rc;

    if (!p)
        return -ENOMEM;
    if ((rc = g16_read_points(z, id, p, nthreads, diag))) {
        zk_big_free(p);
        return rc;
    }
    *ret = p;
    return 0;
}

int zk_groth16_key_load_opts(const struct zk_zkey *z, const struct zk_groth16_load_opts *o,
                             struct zk_diag *diag, struct zk_groth16_key **ret)
{
    static const struct {
        enum zk_zkey_section id;
        size_t off;
        const char *name;
    } secs[] = {
        { ZK_ZKEY_SEC_IC, offsetof(struct zk_groth16_key, pt_ic), "IC" },
        { ZK_ZKEY_SEC_A, offsetof(struct zk_groth16_key, pt_a), "A" },
        { ZK_ZKEY_SEC_B1, offsetof(struct zk_groth16_key, pt_b1), "B1" },
        { ZK_ZKEY_SEC_B2, offsetof(struct zk_groth16_key, pt_b2), "B2" },
        { ZK_ZKEY_SEC_C, offsetof(struct zk_groth16_key, pt_c), "C" },
        { ZK_ZKEY_SEC_H, offsetof(struct zk_groth16_key, pt_h), "H" },
    };
    unsigned what = o && o->what ? o->what : ZK_G16_LOAD_ALL;
    uint64_t total = 0, done = 0;
    struct zk_groth16_key *k;
    int rc;

    if (!z || !ret)
        return ZK_EBADPARAMS;
    k = calloc(1, sizeof *k);
    if (!k)
        return -ENOMEM;
    k->hdr = z->hdr;
    k->ops = zk_g16_ops(z->hdr.curve);
    k->g1b = z->hdr.g1_bytes;
    k->g2b = z->hdr.g2_bytes;
    k->what = what;
    rc = ZK_ECURVE;
    if (!k->ops)
        goto fail;
    if (what & ZK_G16_LOAD_COEFS)
        total += z->hdr.n_coef * 44;   /* 4+4+4+32 bytes per entry in the file */
    if (what & ZK_G16_LOAD_POINTS) {
        for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
            size_t pb = 0;
            total += zk_zkey_section_points(z, secs[i].id, &pb) * pb;
        }
    }
    if (what & ZK_G16_LOAD_COEFS) {
        if ((rc = load_coefs(k, z, o && o->threads ? o->threads : zk_nthreads_default(),
                             diag)))
            goto fail;
        done += z->hdr.n_coef * 44;
        if (o && o->progress)
            o->progress(o->ctx, "coefficients", done, total);
    }
    if (what & ZK_G16_LOAD_POINTS) {
        for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
            size_t pb = 0;
            uint64_t n = zk_zkey_section_points(z, secs[i].id, &pb);
            if ((rc = load_points(z, secs[i].id, (void **)((char *)k + secs[i].off),
                                  o && o->threads ? o->threads : zk_nthreads_default(),
                                  diag)))
                goto fail;
            done += n * pb;
            if (o && o->progress)
                o->progress(o->ctx, secs[i].name, done, total);
        }
    }
    *ret = k;
    return 0;
fail:
    zk_groth16_key_free(k);
    return rc;
}

int zk_groth16_key_load(const struct zk_zkey *z, unsigned nthreads, struct zk_diag *diag,
                        struct zk_groth16_key **ret)
{
    struct zk_groth16_load_opts o = { .what = ZK_G16_LOAD_ALL, .threads = nthreads };
    return zk_groth16_key_load_opts(z, &o, diag, ret);
}

/* ---- proving -------------------------------------------------------------- */

int zk_groth16_synthesize(const struct zk_groth16_key *k, const zk_scalar *w, zk_scalar *a,
                          zk_scalar *b, zk_scalar *c, unsigned nthreads)
{
    if (!k || !w || !a || !b || !c)
        return ZK_EBADPARAMS;
    if (!(k->what & ZK_G16_LOAD_COEFS))
        return ZK_ESTATE;
    k->ops->synth(k, w, a, b, c, nthreads);
    return 0;
}

struct zk_groth16_pending *zk_groth16_pending_free(struct zk_groth16_pending *p)
{
    if (!p)
        return NULL;
    if (p->w && !p->w_borrowed) {
        zk_memzero(p->w, (size_t)p->k->hdr.n_vars * sizeof(zk_scalar));
        zk_big_free(p->w);
    }
    free(p);
    return NULL;
}

/* A pending proof for k with its own copy of w (n_vars scalars; w NULL:
 * none, the backend gives B2), results and timings zero; NULL when out of
 * memory. */
static struct zk_groth16_pending *g16_pending_alloc(const struct zk_groth16_key *k,
                                                    const zk_scalar *w)
{
    struct zk_groth16_pending *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->k = k;
    if (!w)
        return p;
    p->w = zk_secret_alloc((size_t)k->hdr.n_vars * sizeof(zk_scalar));
    if (!p->w) {
        free(p);
        return NULL;
    }
    memcpy(p->w, w, (size_t)k->hdr.n_vars * sizeof(zk_scalar));
    return p;
}

const void *zk_groth16_key_points(const struct zk_groth16_key *k, enum zk_zkey_section id,
                                  uint64_t *ret_count, size_t *ret_point_bytes)
{
    const void *p = NULL;
    size_t pb = 0;
    uint64_t n = 0;
    if (k && (k->what & ZK_G16_LOAD_POINTS)) {
        switch (id) {
        case ZK_ZKEY_SEC_IC: p = k->pt_ic; n = (uint64_t)k->hdr.n_public + 1; break;
        case ZK_ZKEY_SEC_A: p = k->pt_a; n = k->hdr.n_vars; break;
        case ZK_ZKEY_SEC_B1: p = k->pt_b1; n = k->hdr.n_vars; break;
        case ZK_ZKEY_SEC_B2: p = k->pt_b2; n = k->hdr.n_vars; pb = k->g2b; break;
        case ZK_ZKEY_SEC_C: p = k->pt_c; n = (uint64_t)k->hdr.n_vars - k->hdr.n_public - 1; break;
        case ZK_ZKEY_SEC_H: p = k->pt_h; n = k->hdr.domain_size; break;
        default: break;
        }
        if (p && !pb)
            pb = k->g1b;
    }
    if (ret_count)
        *ret_count = p ? n : 0;
    if (ret_point_bytes)
        *ret_point_bytes = p ? pb : 0;
    return p;
}

int zk_groth16_pending_new(const struct zk_groth16_key *k, const zk_scalar *w,
                           const uint64_t *msm_a, const uint64_t *msm_b1,
                           const uint64_t *msm_c, const uint64_t *msm_h,
                           const uint64_t *msm_b2, const struct zk_groth16_timings *t,
                           struct zk_groth16_pending **ret)
{
    struct zk_groth16_pending *p;
    size_t words = 3 * (size_t)(k ? k->ops->fq_limbs : 0);
    if (!k || !(w || msm_b2) || !msm_a || !msm_b1 || !msm_c || !msm_h || !ret)
        return ZK_EBADPARAMS;
    if (!(k->what & ZK_G16_LOAD_POINTS))
        return ZK_ESTATE;
    /* with B2 given, finalize needs no witness */
    if (!(p = g16_pending_alloc(k, msm_b2 ? NULL : w)))
        return -ENOMEM;
    if (msm_b2)
        memcpy(p->msm_b2, msm_b2, 2 * words * sizeof(uint64_t));
    memcpy(p->msm_a, msm_a, words * sizeof(uint64_t));
    memcpy(p->msm_b1, msm_b1, words * sizeof(uint64_t));
    memcpy(p->msm_c, msm_c, words * sizeof(uint64_t));
    memcpy(p->msm_h, msm_h, words * sizeof(uint64_t));
    if (t)
        p->t = *t;
    *ret = p;
    return 0;
}

/* The points of section id for one MSM: the resident ones, or a one-shot
 * key's, read from its file now (key_oneshot.c). */
static int g16_points(const struct zk_groth16_key *k, enum zk_zkey_section id,
                      const void **ret)
{
    if (k->src)
        return g16_source_points(k->src, id, ret);
    *ret = zk_groth16_key_points(k, id, NULL, NULL);
    return 0;
}

/* Points resident, or read per MSM from the file (a one-shot key). */
static int g16_has_points(const struct zk_groth16_key *k)
{
    return (k->what & ZK_G16_LOAD_POINTS) || k->src;
}

/* Scratch bytes for the G1 MSMs of prove_start. */
static size_t g16_scratch_size(const struct zk_groth16_key *k, unsigned nthreads)
{
    const struct zk_zkey_header *h = &k->hdr;
    const size_t n[3] = { h->n_vars, h->n_vars - h->n_public - 1, h->domain_size };
    static const enum zk_groth16_msm id[3] = { ZK_G16_MSM_A, ZK_G16_MSM_C, ZK_G16_MSM_H };
    size_t m = 0;
    for (int i = 0; i < 3; i++) {
        size_t x = k->ops->msm_g1_scratch(n[i], nthreads, k->tab[id[i]]);
        if (i == 0) {                 /* B1 has A's count, maybe not its table */
            size_t y = k->ops->msm_g1_scratch(n[i], nthreads, k->tab[ZK_G16_MSM_B1]);
            x = y > x ? y : x;
        }
        m = x > m ? x : m;
    }
    return m;
}

/*
 * prove_start with the MSMs' scratch memory: `scratch` holds at least
 * g16_scratch_size(k, nthreads) bytes, or is NULL to allocate it here
 * (once for all four MSMs: fresh memory is zeroed by the kernel on first
 * touch, a cost each MSM paid again when it allocated its own).
 * borrow_w: the pending proof uses w itself, which outlives it
 * (zk_groth16_prove), instead of a copy (n_vars scalars more at the peak).
 */
static int g16_start(const struct zk_groth16_key *k, const zk_scalar *w, zk_scalar *a,
                     zk_scalar *b, zk_scalar *c, unsigned nthreads, void *scratch,
                     int borrow_w, struct zk_groth16_pending **ret)
{
    const struct g16_ops *ops;
    const struct zk_zkey_header *h;
    struct zk_groth16_pending *p;
    const void *pts;
    void *mem = NULL;
    double t0, t1;
    int rc;

    if (!k || !w || !a || !b || !c || !ret)
        return ZK_EBADPARAMS;
    if (!g16_has_points(k))
        return ZK_ESTATE;
    ops = k->ops;
    h = &k->hdr;
    if (!scratch) {
        if (!(mem = zk_secret_alloc(g16_scratch_size(k, nthreads))))
            return -ENOMEM;
        scratch = mem;
    }
    if (!(p = g16_pending_alloc(k, borrow_w ? NULL : w))) {
        zk_big_free(mem);
        return -ENOMEM;
    }
    if (borrow_w) {
        p->w = (zk_scalar *)w;        /* read only: the MSMs' scalars */
        p->w_borrowed = 1;
    }

    t0 = zk_g16_now();
    if ((rc = ops->odd_coset(a, h->log2_domain, nthreads)) ||
        (rc = ops->odd_coset(b, h->log2_domain, nthreads)) ||
        (rc = ops->odd_coset(c, h->log2_domain, nthreads)))
        goto fail;
    t1 = zk_g16_now();
    p->t.ntt = t1 - t0;
    ops->h(a, b, c, h->domain_size, nthreads);
    t0 = zk_g16_now();
    p->t.h = t0 - t1;

    if ((rc = g16_points(k, ZK_ZKEY_SEC_A, &pts)) ||
        (rc = ops->msm_g1(p->msm_a, pts, p->w, h->n_vars, nthreads, scratch,
                          k->tab[ZK_G16_MSM_A])))
        goto fail;
    t1 = zk_g16_now();
    p->t.msm_a = t1 - t0;
    if ((rc = g16_points(k, ZK_ZKEY_SEC_B1, &pts)) ||
        (rc = ops->msm_g1(p->msm_b1, pts, p->w, h->n_vars, nthreads, scratch,
                          k->tab[ZK_G16_MSM_B1])))
        goto fail;
    t0 = zk_g16_now();
    p->t.msm_b1 = t0 - t1;
    if ((rc = g16_points(k, ZK_ZKEY_SEC_C, &pts)) ||
        (rc = ops->msm_g1(p->msm_c, pts, p->w + h->n_public + 1,
                          h->n_vars - h->n_public - 1, nthreads, scratch,
                          k->tab[ZK_G16_MSM_C])))
        goto fail;
    t1 = zk_g16_now();
    p->t.msm_c = t1 - t0;
    if ((rc = g16_points(k, ZK_ZKEY_SEC_H, &pts)) ||
        (rc = ops->msm_g1(p->msm_h, pts, a, h->domain_size, nthreads, scratch,
                          k->tab[ZK_G16_MSM_H])))
        goto fail;
    t0 = zk_g16_now();
    p->t.msm_h = t0 - t1;
    zk_big_free(mem);
    *ret = p;
    return 0;
fail:
    zk_big_free(mem);
    zk_groth16_pending_free(p);
    return rc;
}

int zk_groth16_prove_start(const struct zk_groth16_key *k, const zk_scalar *w, zk_scalar *a,
                           zk_scalar *b, zk_scalar *c, unsigned nthreads,
                           struct zk_groth16_pending **ret)
{
    return g16_start(k, w, a, b, c, nthreads, NULL, 0, ret);
}

/* finalize_rs with the B2 MSM's scratch (msm_g2_scratch(n_vars, B2's table) bytes, or
 * NULL to allocate it). */
static int g16_finalize_rs(struct zk_groth16_pending *p, const zk_scalar *r,
                           const zk_scalar *s, unsigned nthreads, void *scratch,
                           struct zk_groth16_proof *proof)
{
    const struct zk_groth16_key *k;
    uint64_t b2[G16_G2J_WORDS];
    const void *pts;
    double t0, t1, t2;
    int rc;

    if (!p || !r || !s || !proof)
        return ZK_EBADPARAMS;
    k = p->k;
    if (!k->ops->fr_is_canonical(r) || !k->ops->fr_is_canonical(s))
        return ZK_ERANGE;
    t0 = zk_g16_now();
    if (!p->w)                        /* B2 given by the backend */
        memcpy(b2, p->msm_b2, sizeof b2);
    else if ((rc = g16_points(k, ZK_ZKEY_SEC_B2, &pts)) ||
             (rc = k->ops->msm_g2(b2, pts, p->w, k->hdr.n_vars, nthreads, scratch,
                                  k->tab[ZK_G16_MSM_B2])))
        return rc;
    t1 = zk_g16_now();
    k->ops->assemble(p, b2, r, s, proof);
    t2 = zk_g16_now();
    proof->t = p->t;
    if (p->w)                         /* else the backend's time stands */
        proof->t.msm_b2 = t1 - t0;
    proof->t.assemble = t2 - t1;
    proof->t.total = proof->t.synth + proof->t.ntt + proof->t.h + proof->t.msm_a +
                     proof->t.msm_b1 + proof->t.msm_c + proof->t.msm_h + proof->t.msm_b2 +
                     proof->t.assemble;
    return 0;
}

int zk_groth16_prove_finalize_rs(struct zk_groth16_pending *p, const zk_scalar *r,
                                 const zk_scalar *s, unsigned nthreads,
                                 struct zk_groth16_proof *proof)
{
    return g16_finalize_rs(p, r, s, nthreads, NULL, proof);
}

/* A uniform scalar in [0, r) by rejection sampling over bitlen(r) bits. */
static int random_scalar(const struct g16_ops *ops, zk_scalar *ret)
{
    /* r has 254 (BN254) or 255 (BLS12-381) bits */
    const uint64_t top_mask = ops->curve == ZK_CURVE_BN254 ? (1ULL << 62) - 1
                                                            : (1ULL << 63) - 1;
    for (;;) {
        zk_scalar x;
        size_t got = 0;
        while (got < sizeof x) {
            ssize_t n = getrandom((unsigned char *)&x + got, sizeof x - got, 0);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return -errno;
            }
            got += (size_t)n;
        }
        x.l[3] &= top_mask;
        if (ops->fr_is_canonical(&x)) {
            *ret = x;
            zk_memzero(&x, sizeof x);
            return 0;
        }
    }
}

/* prove_finalize with the B2 MSM's scratch (see g16_finalize_rs). */
static int g16_finalize(struct zk_groth16_pending *p, unsigned nthreads, void *scratch,
                        struct zk_groth16_proof *proof)
{
    zk_scalar r, s;
    int rc;

    if (!p || !proof)
        return ZK_EBADPARAMS;
    if ((rc = random_scalar(p->k->ops, &r)) || (rc = random_scalar(p->k->ops, &s)))
        return rc;
    rc = g16_finalize_rs(p, &r, &s, nthreads, scratch, proof);
    zk_memzero(&r, sizeof r);
    zk_memzero(&s, sizeof s);
    return rc;
}

int zk_groth16_prove_finalize(struct zk_groth16_pending *p, unsigned nthreads,
                              struct zk_groth16_proof *proof)
{
    return g16_finalize(p, nthreads, NULL, proof);
}

int zk_groth16_prove(const struct zk_groth16_key *k, const zk_scalar *w, unsigned nthreads,
                     struct zk_groth16_proof *proof)
{
    struct zk_groth16_pending *p = NULL;
    zk_scalar *abc;
    uint8_t *scratch;
    size_t n;
    double t0, t1;
    int rc;

    if (!k || !w || !proof)
        return ZK_EBADPARAMS;
    if (!g16_has_points(k) || !(k->what & ZK_G16_LOAD_COEFS))
        return ZK_ESTATE;
    /* one block for a, b, c and every MSM's scratch, faulted in once: b
     * and c are dead once h is in a (before the first MSM), so the G1
     * MSMs' scratch starts at b, and a is dead after H's MSM, so B2's
     * starts at a (the block: the largest of the three, not their sum) */
    n = k->hdr.domain_size;
    size_t a_bytes = (n * sizeof(zk_scalar) + 63) & ~(size_t)63;
    size_t bytes = 3 * a_bytes;
    size_t g1 = a_bytes + g16_scratch_size(k, nthreads);
    size_t g2 = k->ops->msm_g2_scratch(k->hdr.n_vars, nthreads, k->tab[ZK_G16_MSM_B2]);
    bytes = g1 > bytes ? g1 : bytes;
    bytes = g2 > bytes ? g2 : bytes;
    abc = zk_secret_alloc(bytes);
    if (!abc)
        return -ENOMEM;
    scratch = (uint8_t *)abc + a_bytes;
    t0 = zk_g16_now();
    rc = zk_groth16_synthesize(k, w, abc, (zk_scalar *)scratch,
                               (zk_scalar *)scratch + a_bytes / sizeof *abc, nthreads);
    if (k->src)                       /* a one-shot key: its coefficients are done */
        g16_source_synth_done(k->src);
    t1 = zk_g16_now();
    if (rc == 0)
        rc = g16_start(k, w, abc, (zk_scalar *)scratch, (zk_scalar *)scratch + a_bytes / sizeof *abc,
                       nthreads, scratch, 1, &p);
    if (rc == 0) {
        p->t.synth = t1 - t0;
        rc = g16_finalize(p, nthreads, abc, proof);
    }
    zk_groth16_pending_free(p);
    zk_big_free(abc);
    return rc;
}

/* ---- verification key and verifier ---------------------------------------- */

/* *ret from header h and the n_public + 1 IC points at ic, pb bytes each
 * (as the file stores them); the vk's points are ZK_G16_G1_WORDS words
 * apart.  0 or -ENOMEM (*ret untouched). */
static int vk_make(const struct zk_zkey_header *h, const unsigned char *ic, size_t pb,
                   struct zk_groth16_vk *ret)
{
    struct zk_groth16_vk v;
    memset(&v, 0, sizeof v);
    v.curve = h->curve;
    v.n_public = h->n_public;
    memcpy(v.alpha1, h->alpha1, h->g1_bytes);
    memcpy(v.beta2, h->beta2, h->g2_bytes);
    memcpy(v.gamma2, h->gamma2, h->g2_bytes);
    memcpy(v.delta2, h->delta2, h->g2_bytes);
    v.ic = calloc((size_t)h->n_public + 1, sizeof *v.ic);
    if (!v.ic)
        return -ENOMEM;
    for (size_t i = 0; i <= h->n_public; i++)
        memcpy(v.ic[i], ic + i * pb, pb);
    *ret = v;
    return 0;
}

int zk_groth16_vk_from_key(const struct zk_groth16_key *k, struct zk_groth16_vk *vk)
{
    if (!(k->what & ZK_G16_LOAD_POINTS))
        return ZK_ESTATE;
    return vk_make(&k->hdr, (const unsigned char *)k->pt_ic, k->g1b, vk);
}

int zk_groth16_vk_from_zkey(const struct zk_zkey *z, struct zk_groth16_vk *vk,
                            struct zk_diag *diag)
{
    const struct zk_zkey_header *h = &z->hdr;
    size_t pb = 0;
    uint64_t n = zk_zkey_section_points(z, ZK_ZKEY_SEC_IC, &pb);
    memset(vk, 0, sizeof *vk);
    if (n != (uint64_t)h->n_public + 1 || pb != h->g1_bytes)
        return zk_diag_set(diag, z->bf.name, ZK_ESECTION_SIZE,
                           "IC section holds %llu points, the header says %u public signals",
                           (unsigned long long)n, h->n_public);
    unsigned char *raw = malloc(n * pb);
    if (!raw)
        return -ENOMEM;
    int r = zk_zkey_read_points(z, ZK_ZKEY_SEC_IC, 0, n, raw, diag);
    if (!r)
        r = vk_make(h, raw, pb, vk);
    free(raw);
    return r;
}

void zk_groth16_vk_done(struct zk_groth16_vk *vk)
{
    if (!vk)
        return;
    free(vk->ic);
    vk->ic = NULL;
}

int zk_groth16_verify(const struct zk_groth16_vk *vk, const zk_scalar *pub, size_t n_pub,
                      const struct zk_groth16_proof *proof, int *ret_valid)
{
    const struct g16_ops *ops;

    if (!vk || !proof || !ret_valid || (n_pub && !pub) || !vk->ic)
        return ZK_EBADPARAMS;
    ops = zk_g16_ops(vk->curve);
    if (!ops)
        return ZK_ECURVE;
    if (proof->curve != vk->curve)
        return ZK_ECURVE_MISMATCH;
    if (n_pub != vk->n_public)
        return ZK_ELENGTH;
    for (size_t i = 0; i < n_pub; i++) {
        if (!ops->fr_is_canonical(&pub[i]))
            return ZK_ERANGE;
    }
    return ops->verify(vk, pub, proof, ret_valid);
}
