/*
 * cu_prover.cu -- prove_start on one GPU (zkcuda.h).  The key's point
 * sections (A, B1, C, H on G1, B2 on G2) and the domain's NTT plan live in
 * device memory for the life of the prover.  A partition is a job:
 *
 *   copy stream:     wait set_free[s]; w, a, b, c -> set s; record copied;
 *                    host function: copied(ctx) (the slot may go)
 *   compute stream:  wait copied; 3 odd-coset NTTs; H step; MSMs A, B1, C,
 *                    H, B2 (window sums -> the job's page-locked buffer);
 *                    record set_free[s]; record done
 *
 * with two buffer sets s, so the copy of the next partition overlaps the
 * compute of the current one.  zk_cuda_prove_enqueue only queues that;
 * zk_cuda_job_wait waits for `done`, combines the windows on the host and
 * returns the pending proof that zk_groth16_prove_finalize completes on
 * the CPU (blinding, assembly).  B2 is on the GPU too: on the CPU its G2
 * MSM is a third of the whole proof's time (bench prove, BLS12-381 2^16),
 * which would cap the GPU's speed-up at about 3x.
 *
 * Threads: one thread enqueues (gpud's starter) while another waits for
 * earlier jobs (gpud's finisher); the job list is locked, the streams are
 * CUDA's, and the rest of a prover is read-only after zk_cuda_prover_new.
 * Every entry point sets the prover's device first, before any event,
 * allocation or launch: a thread's current device is its own (0 in a fresh
 * thread), and an event made on another device cannot be recorded on this
 * one's streams.
 *
 * Memory: everything a proof uses on the device (the MSMs' scratch, sized
 * for the largest of the five, the two input sets, the NTT plan) and the
 * jobs' page-locked buffers and events are allocated once and kept: a
 * proof allocates nothing (test_cuda_prover_emu counts).  The compute
 * stream runs one proof at a time, so one scratch serves all.  A key
 * served from its store has its points in a read-only mapping: they are
 * page-locked once (cudaHostRegisterReadOnly) for the upload and for the
 * sections left in host memory, and unlocked when the prover is freed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_ops.cuh"
#include "zk/util.h"

#define CU_SETS 2
/* the MSMs, in the order they run: A, B1, C, H on G1, B2 on G2 */
#define CU_MSMS 5
#define CU_B2 4
/* events of a job on the compute stream: before the NTTs, after the NTTs,
 * after H, after each MSM */
#define CU_JOB_MARKS (3 + CU_MSMS)

static const enum zk_zkey_section cu_secs[CU_MSMS] = { ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1,
                                                       ZK_ZKEY_SEC_C, ZK_ZKEY_SEC_H,
                                                       ZK_ZKEY_SEC_B2 };
static const char *const cu_sec_names[CU_MSMS] = { "A", "B1", "C", "H", "B2" };

struct cu_set {
    zk_scalar *dw, *da, *db, *dc;      /* device: one partition's inputs */
    cudaEvent_t free_ev;               /* its last reader is done */
};

struct zk_cuda_job {
    struct zk_cuda_prover *p;
    struct zk_cuda_job *next;          /* the prover's free list */
    void *hpart;                       /* page-locked: the MSMs' window sums */
    cudaEvent_t copied_ev, mark[CU_JOB_MARKS];
    cudaEvent_t called_ev;             /* after cu_copied on the copy stream: the
                                          callback has returned (a job is reused
                                          only then: a late callback would call
                                          the next partition's copied()) */
    void (*copied)(void *ctx);
    void *ctx;
};

struct zk_cuda_prover {
    int dev;
    enum zk_curve curve;
    const struct zk_groth16_key *k;
    struct zk_zkey_header h;
    void *pt[CU_MSMS];                 /* cu_secs as the device sees them */
    void *mapped[CU_MSMS];             /* non-NULL: pt[i] is this host memory, mapped */
    void *locked[CU_MSMS];             /* non-NULL: the key's host copy, page-locked here */
    cudaError_t lock_err;              /* why a read-only copy was uploaded from pageable
                                          memory (cudaSuccess: none was) */
    uint64_t npt[CU_MSMS];
    size_t nparts[CU_MSMS];            /* cu_msm_parts of each MSM */
    size_t pj_bytes[CU_MSMS];          /* bytes of a Jacobian point of each */
    struct cu_set set[CU_SETS];
    unsigned next_set;                 /* the enqueuing thread's */
    void *scratch;                     /* device: the MSMs' (the compute stream's) */
    size_t scratch_bytes;
    union {                            /* the domain's NTT plan, of p->curve */
        cu_ntt_plan<cu_bn254> bn254;
        cu_ntt_plan<cu_bls381> bls381;
    } plan;
    int have_plan;
    cudaStream_t cst, st;              /* copies, compute */
    pthread_mutex_t lock;              /* free_jobs */
    struct zk_cuda_job *free_jobs;
};

/* ---- jobs ------------------------------------------------------------------ */

/* The calling thread's current device := dev.  0 or ZK_EGPU. */
static int cu_use_device(int dev)
{
    int rc = 0;
    ZK_CUDA_CHECK(cudaSetDevice(dev));
out:
    return rc;
}

/* offset of MSM i's window sums in a job's buffer (i = CU_MSMS: its size) */
static size_t cu_part_at(const struct zk_cuda_prover *p, int i)
{
    size_t at = 0;
    for (int m = 0; m < i; m++)
        at += p->nparts[m] * p->pj_bytes[m];
    return at;
}

static void cu_job_destroy(struct zk_cuda_job *j)
{
    if (!j)
        return;
    if (j->hpart)
        ZK_CUDA_IGNORE(cudaFreeHost(j->hpart));
    if (j->copied_ev)
        ZK_CUDA_IGNORE(cudaEventDestroy(j->copied_ev));
    if (j->called_ev)
        ZK_CUDA_IGNORE(cudaEventDestroy(j->called_ev));
    for (int i = 0; i < CU_JOB_MARKS; i++)
        if (j->mark[i])
            ZK_CUDA_IGNORE(cudaEventDestroy(j->mark[i]));
    free(j);
}

/* A job from the free list, or a new one (its page-locked buffer and
 * events made once and kept with it). */
static int cu_job_get(struct zk_cuda_prover *p, struct zk_cuda_job **ret)
{
    int rc = 0;
    struct zk_cuda_job *j;
    pthread_mutex_lock(&p->lock);
    j = p->free_jobs;
    if (j)
        p->free_jobs = j->next;
    pthread_mutex_unlock(&p->lock);
    if (j) {
        *ret = j;
        return 0;
    }
    if (!(j = (struct zk_cuda_job *)calloc(1, sizeof *j)))
        return -ENOMEM;
    j->p = p;
    ZK_CUDA_CHECK(cudaMallocHost(&j->hpart, cu_part_at(p, CU_MSMS) + 1));
    ZK_CUDA_CHECK(cudaEventCreateWithFlags(&j->copied_ev, cudaEventDisableTiming));
    ZK_CUDA_CHECK(cudaEventCreateWithFlags(&j->called_ev, cudaEventDisableTiming));
    for (int i = 0; i < CU_JOB_MARKS; i++)
        ZK_CUDA_CHECK(cudaEventCreate(&j->mark[i]));
    *ret = j;
    return 0;
out:
    cu_job_destroy(j);
    return rc;
}

static void cu_job_put(struct zk_cuda_job *j)
{
    struct zk_cuda_prover *p = j->p;
    j->copied = NULL;
    j->ctx = NULL;
    pthread_mutex_lock(&p->lock);
    j->next = p->free_jobs;
    p->free_jobs = j;
    pthread_mutex_unlock(&p->lock);
}

/* the window sums of MSM i in the job's buffer */
static void *cu_job_part(const struct zk_cuda_job *j, int i)
{
    return (char *)j->hpart + cu_part_at(j->p, i);
}

/* ---- prover -------------------------------------------------------------------- */

extern "C" struct zk_cuda_prover *zk_cuda_prover_free(struct zk_cuda_prover *p)
{
    if (!p)
        return NULL;
    ZK_CUDA_IGNORE(cudaSetDevice(p->dev));
    if (p->cst)
        ZK_CUDA_IGNORE(cudaStreamSynchronize(p->cst));
    if (p->st)
        ZK_CUDA_IGNORE(cudaStreamSynchronize(p->st));
    if (p->have_plan) {
        if (p->curve == ZK_CURVE_BN254)
            cu_ntt_plan_free<cu_bn254>(&p->plan.bn254, p->st);
        else
            cu_ntt_plan_free<cu_bls381>(&p->plan.bls381, p->st);
        ZK_CUDA_IGNORE(cudaStreamSynchronize(p->st));
    }
    while (p->free_jobs) {
        struct zk_cuda_job *j = p->free_jobs;
        p->free_jobs = j->next;
        cu_job_destroy(j);
    }
    for (int i = 0; i < CU_MSMS; i++) {
        if (p->locked[i])
            ZK_CUDA_IGNORE(cudaHostUnregister(p->locked[i]));
        if (!p->mapped[i] && p->pt[i])
            ZK_CUDA_IGNORE(cudaFree(p->pt[i]));
    }
    if (p->scratch)
        ZK_CUDA_IGNORE(cudaFree(p->scratch));
    for (int s = 0; s < CU_SETS; s++) {
        if (p->set[s].dw)
            ZK_CUDA_IGNORE(cudaFree(p->set[s].dw));
        if (p->set[s].free_ev)
            ZK_CUDA_IGNORE(cudaEventDestroy(p->set[s].free_ev));
    }
    if (p->cst)
        ZK_CUDA_IGNORE(cudaStreamDestroy(p->cst));
    if (p->st)
        ZK_CUDA_IGNORE(cudaStreamDestroy(p->st));
    pthread_mutex_destroy(&p->lock);
    free(p);
    return NULL;
}

/*
 * Page-locks the key's host copy of section i (hp, bytes) for the prover's
 * life when it is to be read from host memory (!fits: mapped for the GPU)
 * or when it is read-only, i.e. a key store's mapping (docs/keystore.md):
 * the upload is then a DMA from it, with no staging copy.  The runtime
 * page-locks read-only memory only with cudaHostRegisterReadOnly (the GPU
 * never writes the points).  A section that fits and cannot be locked
 * (RLIMIT_MEMLOCK, a GPU without read-only registration) is uploaded from
 * pageable memory instead, its error kept in p->lock_err for
 * zk_cuda_prover_describe; for a section that does not fit that is the
 * prover's error (ZK_EGPU, naming the section and why).  0 or ZK_EGPU.
 */
static int cu_lock_points(struct zk_cuda_prover *p, int i, const void *hp, size_t bytes,
                          int fits)
{
    char what[160];
    /* (unknown: taken as read-only; the flag is right for any memory the GPU only reads) */
    int ro = zk_mem_writable(hp, bytes) != 1;
    if (fits && !ro)
        return 0;                               /* a heap copy: pageable, as it was */
    unsigned flags = cudaHostRegisterPortable | (fits ? 0u : (unsigned)cudaHostRegisterMapped) |
                     (ro ? (unsigned)cudaHostRegisterReadOnly : 0u);
    cudaError_t e = cudaHostRegister((void *)hp, bytes ? bytes : 1, flags);
    if (e == cudaSuccess) {
        p->locked[i] = (void *)hp;
        return 0;
    }
    cudaGetLastError();                         /* (not the next launch check's error) */
    if (fits) {
        if (p->lock_err == cudaSuccess)
            p->lock_err = e;
        return 0;
    }
    /* (short: gpud's diag holds 256 characters, the CUDA error last) */
    snprintf(what, sizeof what, "cudaHostRegister(%s points, %zu bytes, %s, not fitting the GPU)",
             cu_sec_names[i], bytes, ro ? "read-only store" : "writable");
    zk_cuda_set_error(what, __FILE__, __LINE__, e);
    return ZK_EGPU;
}

extern "C" int zk_cuda_prover_new(int dev, const struct zk_groth16_key *k,
                                  struct zk_cuda_prover **ret)
{
    int rc = 0;
    struct zk_cuda_prover *p = NULL;
    size_t n, dom, reserve, pb[CU_MSMS];
    const void *hp[CU_MSMS];
    if (!k || !ret)
        return ZK_EBADPARAMS;
    if (!zk_cuda_available())
        return ZK_ENODEV;
    if (!(p = (struct zk_cuda_prover *)calloc(1, sizeof *p)))
        return -ENOMEM;
    pthread_mutex_init(&p->lock, NULL);
    p->dev = dev;
    p->k = k;
    p->h = *zk_groth16_key_header(k);
    p->curve = p->h.curve;
    n = p->h.n_vars;
    dom = p->h.domain_size;
    ZK_CUDA_CHECK(cudaSetDevice(dev));
    ZK_CUDA_CHECK(cudaStreamCreateWithFlags(&p->cst, cudaStreamNonBlocking));
    ZK_CUDA_CHECK(cudaStreamCreateWithFlags(&p->st, cudaStreamNonBlocking));
    /* the MSMs: A, B1 and B2 over w, C over w past the public part, H over
     * the domain */
    for (int i = 0; i < CU_MSMS; i++) {
        if (!(hp[i] = zk_groth16_key_points(k, cu_secs[i], &p->npt[i], &pb[i]))) {
            rc = ZK_ESTATE;
            goto out;
        }
        p->nparts[i] = cu_msm_parts(p->npt[i]);
        p->pj_bytes[i] = p->curve == ZK_CURVE_BN254
                             ? (i == CU_B2 ? sizeof(cu_bn254::g2::P) : sizeof(cu_bn254::g1::P))
                             : (i == CU_B2 ? sizeof(cu_bls381::g2::P) : sizeof(cu_bls381::g1::P));
    }
    for (int s = 0; s < CU_SETS; s++) {
        struct cu_set *cs = &p->set[s];
        ZK_CUDA_CHECK(cudaMalloc((void **)&cs->dw, (n + 3 * dom) * sizeof(zk_scalar)));
        cs->da = cs->dw + n;
        cs->db = cs->da + dom;
        cs->dc = cs->db + dom;
        ZK_CUDA_CHECK(cudaEventCreateWithFlags(&cs->free_ev, cudaEventDisableTiming));
    }
    /* the MSMs' scratch, once: the largest of the five */
    for (int i = 0; i < CU_MSMS; i++) {
        size_t r = cu_msm_scratch_bytes(p->npt[i], p->pj_bytes[i]);
        if (!r && p->npt[i]) {
            rc = ZK_EGPU;
            goto out;
        }
        p->scratch_bytes = r > p->scratch_bytes ? r : p->scratch_bytes;
    }
    ZK_CUDA_CHECK(cudaMalloc(&p->scratch, p->scratch_bytes ? p->scratch_bytes : 1));
    /*
     * The points go to device memory while what is left keeps room for the
     * NTT plan; the rest are read from the key's own host memory,
     * page-locked and mapped (over PCIe: slower, but a key larger than the
     * GPU still proves).
     */
    reserve = 3 * dom * sizeof(zk_scalar) + ((size_t)1 << 20);  /* (+ its power tables) */
    for (int i = 0; i < CU_MSMS; i++) {
        size_t bytes = p->npt[i] * pb[i], free_b = 0, total_b = 0;
        ZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        int fits = bytes + reserve <= free_b;
        if ((rc = cu_lock_points(p, i, hp[i], bytes, fits)))
            goto out;
        if (fits) {
            ZK_CUDA_CHECK(cudaMalloc(&p->pt[i], bytes ? bytes : 1));
            ZK_CUDA_CHECK(cudaMemcpy(p->pt[i], hp[i], bytes, cudaMemcpyHostToDevice));
            continue;
        }
        p->mapped[i] = (void *)hp[i];
        ZK_CUDA_CHECK(cudaHostGetDevicePointer(&p->pt[i], (void *)hp[i], 0));
    }
    {
        size_t free_b = 0, total_b = 0;
        ZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (free_b < reserve) {
            /* not even with every point in host memory */
            zk_cuda_set_error("zk_cuda_prover_new: too little device memory left for the NTT "
                              "plan", __FILE__, __LINE__,
                              cudaErrorMemoryAllocation);
            rc = ZK_EGPU;
            goto out;
        }
    }
    rc = p->curve == ZK_CURVE_BN254
             ? cu_ntt_plan_make<cu_bn254>(&p->plan.bn254, p->h.log2_domain, p->st)
             : cu_ntt_plan_make<cu_bls381>(&p->plan.bls381, p->h.log2_domain, p->st);
    if (rc)
        goto out;
    p->have_plan = 1;
    *ret = p;
    return 0;
out:
    zk_cuda_prover_free(p);
    return rc;
}

/* ---- prove_start ------------------------------------------------------------------ */

/* host function on the copy stream: the copies are complete */
static void cu_copied(void *arg)
{
    struct zk_cuda_job *j = (struct zk_cuda_job *)arg;
    if (j->copied)
        j->copied(j->ctx);
}

template <class C>
static int cu_compute(struct zk_cuda_prover *p, const cu_ntt_plan<C> *plan, struct zk_cuda_job *j,
                      const struct cu_set *cs)
{
    typedef typename C::Fr Fr;
    typedef typename C::g1 G1;
    typedef typename C::g2 G2;
    int rc = 0;
    const struct zk_zkey_header *h = &p->h;
    const uint64_t *w = (const uint64_t *)cs->dw;
    /* the scalars of each MSM: A, B1 over w; C over w past the public
     * part; H over the H step's output; B2 over w */
    const uint64_t *sc[CU_MSMS] = { w, w, w + 4 * (h->n_public + 1), (const uint64_t *)cs->da,
                                    w };
    ZK_CUDA_CHECK(cudaStreamWaitEvent(p->st, j->copied_ev, 0));
    ZK_CUDA_CHECK(cudaEventRecord(j->mark[0], p->st));
    if ((rc = cu_ntt_odd_coset<C>(plan, (Fr *)cs->da, p->st)) ||
        (rc = cu_ntt_odd_coset<C>(plan, (Fr *)cs->db, p->st)) ||
        (rc = cu_ntt_odd_coset<C>(plan, (Fr *)cs->dc, p->st)))
        goto out;
    ZK_CUDA_CHECK(cudaEventRecord(j->mark[1], p->st));
    if ((rc = cu_h_step<C>((Fr *)cs->da, (const Fr *)cs->db, (const Fr *)cs->dc, h->domain_size,
                           p->st)))
        goto out;
    ZK_CUDA_CHECK(cudaEventRecord(j->mark[2], p->st));
    for (int i = 0; i < CU_MSMS; i++) {
        rc = i == CU_B2 ? cu_msm_enqueue<G2>((typename G2::P *)cu_job_part(j, i),
                                             (const typename G2::PA *)p->pt[i], sc[i], p->npt[i],
                                             p->scratch, p->scratch_bytes, p->st)
                        : cu_msm_enqueue<G1>((typename G1::P *)cu_job_part(j, i),
                                             (const typename G1::PA *)p->pt[i], sc[i], p->npt[i],
                                             p->scratch, p->scratch_bytes, p->st);
        if (rc)
            goto out;
        ZK_CUDA_CHECK(cudaEventRecord(j->mark[3 + i], p->st));
    }
    ZK_CUDA_CHECK(cudaEventRecord(cs->free_ev, p->st));
out:
    return rc;
}

template <class C>
static int cu_finish(struct zk_cuda_job *j, struct zk_groth16_pending **ret)
{
    typedef typename C::g1 G1;
    typedef typename C::g2 G2;
    int rc = 0;
    struct zk_cuda_prover *p = j->p;
    struct zk_groth16_timings t;
    typename G1::P r[CU_MSMS - 1];
    typename G2::P b2;
    float ms[CU_JOB_MARKS - 1];
    ZK_CUDA_CHECK(cudaEventSynchronize(j->mark[CU_JOB_MARKS - 1]));
    for (int i = 0; i + 1 < CU_JOB_MARKS; i++)
        ZK_CUDA_CHECK(cudaEventElapsedTime(&ms[i], j->mark[i], j->mark[i + 1]));
    for (int i = 0; i < CU_B2; i++)
        cu_msm_combine<G1>(&r[i], (const typename G1::P *)cu_job_part(j, i), p->npt[i]);
    cu_msm_combine<G2>(&b2, (const typename G2::P *)cu_job_part(j, CU_B2), p->npt[CU_B2]);
    memset(&t, 0, sizeof t);
    t.ntt = ms[0] * 1e-3;
    t.h = ms[1] * 1e-3;
    t.msm_a = ms[2] * 1e-3;
    t.msm_b1 = ms[3] * 1e-3;
    t.msm_c = ms[4] * 1e-3;
    t.msm_h = ms[5] * 1e-3;
    t.msm_b2 = ms[6] * 1e-3;
    rc = zk_groth16_pending_new(p->k, NULL, (const uint64_t *)&r[0], (const uint64_t *)&r[1],
                                (const uint64_t *)&r[2], (const uint64_t *)&r[3],
                                (const uint64_t *)&b2, &t, ret);
out:
    return rc;
}

extern "C" int zk_cuda_prover_describe(const struct zk_cuda_prover *p, char *buf, size_t len)
{
    size_t at = 0;
    if (!p || !buf || !len)
        return ZK_EBADPARAMS;
    buf[0] = 0;
    for (int where = 0; where < 2; where++) {
        int any = 0;
        for (int i = 0; i < CU_MSMS; i++) {
            if ((p->mapped[i] != NULL) != where)
                continue;
            at += (size_t)snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
                                   "%s%s", any ? " " : (at ? "; " : ""), cu_sec_names[i]);
            any = 1;
        }
        if (any)
            at += (size_t)snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0, " %s",
                                   where ? "in page-locked host memory" : "in device memory");
    }
    if (p->lock_err != cudaSuccess)
        snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
                 " (uploaded from pageable memory: page-locking the read-only copy failed: %s)",
                 cudaGetErrorName(p->lock_err));
    return 0;
}

extern "C" int zk_cuda_prove_enqueue(struct zk_cuda_prover *p, const zk_scalar *w,
                                     const zk_scalar *a, const zk_scalar *b, const zk_scalar *c,
                                     void (*copied)(void *ctx), void *ctx,
                                     struct zk_cuda_job **ret)
{
    int rc = 0;
    struct zk_cuda_job *j = NULL;
    struct cu_set *cs;
    size_t n, dom;
    if (!p || !w || !a || !b || !c || !ret)
        return ZK_EBADPARAMS;
    *ret = NULL;
    n = p->h.n_vars;
    dom = p->h.domain_size;
    /* before the job's events are made (a new job): they are the device's */
    if ((rc = cu_use_device(p->dev)) || (rc = cu_job_get(p, &j)))
        return rc;
    j->copied = copied;
    j->ctx = ctx;
    cs = &p->set[p->next_set];
    ZK_CUDA_CHECK(cudaStreamWaitEvent(p->cst, cs->free_ev, 0));
    ZK_CUDA_CHECK(cudaMemcpyAsync(cs->dw, w, n * sizeof(zk_scalar), cudaMemcpyHostToDevice,
                                  p->cst));
    ZK_CUDA_CHECK(cudaMemcpyAsync(cs->da, a, dom * sizeof(zk_scalar), cudaMemcpyHostToDevice,
                                  p->cst));
    ZK_CUDA_CHECK(cudaMemcpyAsync(cs->db, b, dom * sizeof(zk_scalar), cudaMemcpyHostToDevice,
                                  p->cst));
    ZK_CUDA_CHECK(cudaMemcpyAsync(cs->dc, c, dom * sizeof(zk_scalar), cudaMemcpyHostToDevice,
                                  p->cst));
    ZK_CUDA_CHECK(cudaEventRecord(j->copied_ev, p->cst));
    ZK_CUDA_CHECK(cudaLaunchHostFunc(p->cst, cu_copied, j));
    ZK_CUDA_CHECK(cudaEventRecord(j->called_ev, p->cst));
    rc = p->curve == ZK_CURVE_BN254 ? cu_compute<cu_bn254>(p, &p->plan.bn254, j, cs)
                                    : cu_compute<cu_bls381>(p, &p->plan.bls381, j, cs);
    if (rc)
        goto out;
    p->next_set = (p->next_set + 1) % CU_SETS;
    *ret = j;
    return 0;
out:
    /* nothing may still read the caller's arrays, and copied() has run or
     * never will, before the error is returned */
    ZK_CUDA_IGNORE(cudaStreamSynchronize(p->cst));
    ZK_CUDA_IGNORE(cudaStreamSynchronize(p->st));
    cu_job_put(j);
    return rc;
}

extern "C" int zk_cuda_job_wait(struct zk_cuda_job *j, struct zk_groth16_pending **ret)
{
    int rc;
    if (!j || !ret)
        return ZK_EBADPARAMS;
    *ret = NULL;
    /* (the waits and timings would work from any device; set it anyway, as
     * every thread touching the prover does) */
    if (!(rc = cu_use_device(j->p->dev)))
        rc = j->p->curve == ZK_CURVE_BN254 ? cu_finish<cu_bn254>(j, ret)
                                           : cu_finish<cu_bls381>(j, ret);
    if (rc) {             /* the job's buffers may still be written: wait */
        ZK_CUDA_IGNORE(cudaStreamSynchronize(j->p->cst));
        ZK_CUDA_IGNORE(cudaStreamSynchronize(j->p->st));
    }
    /* the compute waited for the copies, not for copied(): wait for it to
     * have returned before the job (its copied/ctx) can be reused */
    cudaError_t e = cudaEventSynchronize(j->called_ev);
    int rc2 = e == cudaSuccess ? 0 : ZK_EGPU;
    if (rc2 && !rc) {
        zk_cuda_set_error("cudaEventSynchronize(j->called_ev)", __FILE__, __LINE__, e);
        zk_groth16_pending_free(*ret);
        *ret = NULL;
        rc = rc2;
    }
    cu_job_put(j);
    return rc;
}

extern "C" int zk_cuda_prove_start(struct zk_cuda_prover *p, const zk_scalar *w,
                                   const zk_scalar *a, const zk_scalar *b, const zk_scalar *c,
                                   void (*copied)(void *ctx), void *ctx,
                                   struct zk_groth16_pending **ret)
{
    struct zk_cuda_job *j;
    int rc;
    if (!ret)
        return ZK_EBADPARAMS;
    *ret = NULL;
    if ((rc = zk_cuda_prove_enqueue(p, w, a, b, c, copied, ctx, &j)))
        return rc;
    return zk_cuda_job_wait(j, ret);
}
