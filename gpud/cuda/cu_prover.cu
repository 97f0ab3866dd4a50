/*
 * cu_prover.cu -- prove_start on one GPU (zkcuda.h): the key's G1 point
 * sections live in device memory for the life of the prover; each
 * partition's w, a, b, c are copied in, the slot is let go as soon as the
 * copies are complete, and the coset NTTs, the H step and the four G1 MSMs
 * run on the device.  The pending proof is finished on the CPU
 * (zk_groth16_prove_finalize: B2 on G2, blinding, assembly).
 *
 * A prover is used by one thread at a time (gpud's starter thread).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cu_ops.cuh"

struct zk_cuda_prover {
    int dev;
    enum zk_curve curve;
    const struct zk_groth16_key *k;
    struct zk_zkey_header h;
    void *pt[4];                     /* A, B1, C, H on the device */
    uint64_t npt[4];
    zk_scalar *dw, *da, *db, *dc;    /* partition buffers, reused */
    union {                          /* the domain's NTT plan, of p->curve */
        cu_ntt_plan<cu_bn254> bn254;
        cu_ntt_plan<cu_bls381> bls381;
    } plan;
    int have_plan;
    cudaStream_t st;
    cudaEvent_t copied;
};

static const enum zk_zkey_section cu_secs[4] = { ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1, ZK_ZKEY_SEC_C,
                                                 ZK_ZKEY_SEC_H };

static double cu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

extern "C" struct zk_cuda_prover *zk_cuda_prover_free(struct zk_cuda_prover *p)
{
    if (!p)
        return NULL;
    ZK_CUDA_IGNORE(cudaSetDevice(p->dev));
    if (p->have_plan) {
        if (p->curve == ZK_CURVE_BN254)
            cu_ntt_plan_free<cu_bn254>(&p->plan.bn254, p->st);
        else
            cu_ntt_plan_free<cu_bls381>(&p->plan.bls381, p->st);
    }
    if (p->st)
        ZK_CUDA_IGNORE(cudaStreamSynchronize(p->st));
    for (int i = 0; i < 4; i++)
        if (p->pt[i])
            ZK_CUDA_IGNORE(cudaFree(p->pt[i]));
    if (p->dw)
        ZK_CUDA_IGNORE(cudaFree(p->dw));
    if (p->copied)
        ZK_CUDA_IGNORE(cudaEventDestroy(p->copied));
    if (p->st)
        ZK_CUDA_IGNORE(cudaStreamDestroy(p->st));
    free(p);
    return NULL;
}

extern "C" int zk_cuda_prover_new(int dev, const struct zk_groth16_key *k,
                                  struct zk_cuda_prover **ret)
{
    int rc = 0;
    struct zk_cuda_prover *p = NULL;
    size_t n, dom;
    if (!k || !ret)
        return ZK_EBADPARAMS;
    if (!zk_cuda_available())
        return ZK_ENODEV;
    if (!(p = (struct zk_cuda_prover *)calloc(1, sizeof *p)))
        return -ENOMEM;
    p->dev = dev;
    p->k = k;
    p->h = *zk_groth16_key_header(k);
    p->curve = p->h.curve;
    n = p->h.n_vars;
    dom = p->h.domain_size;
    ZK_CUDA_CHECK(cudaSetDevice(dev));
    ZK_CUDA_CHECK(cudaStreamCreateWithFlags(&p->st, cudaStreamNonBlocking));
    ZK_CUDA_CHECK(cudaEventCreateWithFlags(&p->copied, cudaEventDisableTiming));
    for (int i = 0; i < 4; i++) {
        size_t pb = 0;
        const void *hp = zk_groth16_key_points(k, cu_secs[i], &p->npt[i], &pb);
        if (!hp) {
            rc = ZK_ESTATE;
            goto out;
        }
        ZK_CUDA_CHECK(cudaMalloc(&p->pt[i], p->npt[i] ? p->npt[i] * pb : 1));
        ZK_CUDA_CHECK(cudaMemcpy(p->pt[i], hp, p->npt[i] * pb, cudaMemcpyHostToDevice));
    }
    ZK_CUDA_CHECK(cudaMalloc((void **)&p->dw, (n + 3 * dom) * sizeof(zk_scalar)));
    rc = p->curve == ZK_CURVE_BN254
             ? cu_ntt_plan_make<cu_bn254>(&p->plan.bn254, p->h.log2_domain, p->st)
             : cu_ntt_plan_make<cu_bls381>(&p->plan.bls381, p->h.log2_domain, p->st);
    if (rc)
        goto out;
    p->have_plan = 1;
    p->da = p->dw + n;
    p->db = p->da + dom;
    p->dc = p->db + dom;
    *ret = p;
    return 0;
out:
    zk_cuda_prover_free(p);
    return rc;
}

template <class C>
static int cu_start(struct zk_cuda_prover *p, const cu_ntt_plan<C> *plan, const zk_scalar *w,
                    const zk_scalar *a, const zk_scalar *b, const zk_scalar *c,
                    void (*copied)(void *), void *ctx, struct zk_groth16_pending **ret)
{
    typedef typename C::Fr Fr;
    typedef typename C::G1 G1;
    typedef typename C::G1A G1A;
    int rc = 0;
    const struct zk_zkey_header *h = &p->h;
    size_t n = h->n_vars, dom = h->domain_size;
    struct zk_groth16_timings t;
    G1 r[4];
    double t0, t1;
    /* the pending proof needs w after the slot holding it is let go */
    zk_scalar *wcopy = (zk_scalar *)malloc(n * sizeof(zk_scalar) + 1);
    if (!wcopy)
        return -ENOMEM;
    memcpy(wcopy, w, n * sizeof(zk_scalar));
    memset(&t, 0, sizeof t);
    ZK_CUDA_CHECK(cudaSetDevice(p->dev));
    ZK_CUDA_CHECK(cudaMemcpyAsync(p->dw, w, n * sizeof(zk_scalar), cudaMemcpyHostToDevice, p->st));
    ZK_CUDA_CHECK(cudaMemcpyAsync(p->da, a, dom * sizeof(zk_scalar), cudaMemcpyHostToDevice, p->st));
    ZK_CUDA_CHECK(cudaMemcpyAsync(p->db, b, dom * sizeof(zk_scalar), cudaMemcpyHostToDevice, p->st));
    ZK_CUDA_CHECK(cudaMemcpyAsync(p->dc, c, dom * sizeof(zk_scalar), cudaMemcpyHostToDevice, p->st));
    ZK_CUDA_CHECK(cudaEventRecord(p->copied, p->st));
    ZK_CUDA_CHECK(cudaEventSynchronize(p->copied));
    if (copied)
        copied(ctx);                 /* the slot may go now */
    t0 = cu_now();
    if ((rc = cu_ntt_odd_coset<C>(plan, (Fr *)p->da, p->st)) ||
        (rc = cu_ntt_odd_coset<C>(plan, (Fr *)p->db, p->st)) ||
        (rc = cu_ntt_odd_coset<C>(plan, (Fr *)p->dc, p->st)))
        goto out;
    ZK_CUDA_CHECK(cudaStreamSynchronize(p->st));
    t1 = cu_now();
    t.ntt = t1 - t0;
    if ((rc = cu_h_step<C>((Fr *)p->da, (const Fr *)p->db, (const Fr *)p->dc, dom, p->st)))
        goto out;
    ZK_CUDA_CHECK(cudaStreamSynchronize(p->st));
    t0 = cu_now();
    t.h = t0 - t1;
    if ((rc = cu_msm_g1<C>(&r[0], (const G1A *)p->pt[0], (const uint64_t *)p->dw, n, p->st)))
        goto out;
    t1 = cu_now();
    t.msm_a = t1 - t0;
    if ((rc = cu_msm_g1<C>(&r[1], (const G1A *)p->pt[1], (const uint64_t *)p->dw, n, p->st)))
        goto out;
    t0 = cu_now();
    t.msm_b1 = t0 - t1;
    if ((rc = cu_msm_g1<C>(&r[2], (const G1A *)p->pt[2],
                           (const uint64_t *)(p->dw + h->n_public + 1), p->npt[2], p->st)))
        goto out;
    t1 = cu_now();
    t.msm_c = t1 - t0;
    if ((rc = cu_msm_g1<C>(&r[3], (const G1A *)p->pt[3], (const uint64_t *)p->da, dom, p->st)))
        goto out;
    t0 = cu_now();
    t.msm_h = t0 - t1;
    rc = zk_groth16_pending_new(p->k, wcopy, (const uint64_t *)&r[0], (const uint64_t *)&r[1],
                                (const uint64_t *)&r[2], (const uint64_t *)&r[3], &t, ret);
out:
    if (rc == ZK_EGPU)
        ZK_CUDA_IGNORE(cudaStreamSynchronize(p->st));
    memset(wcopy, 0, n * sizeof(zk_scalar));   /* witness: wipe (best effort) */
    free(wcopy);
    return rc;
}

extern "C" int zk_cuda_prove_start(struct zk_cuda_prover *p, const zk_scalar *w,
                                   const zk_scalar *a, const zk_scalar *b, const zk_scalar *c,
                                   void (*copied)(void *ctx), void *ctx,
                                   struct zk_groth16_pending **ret)
{
    if (!p || !w || !a || !b || !c || !ret)
        return ZK_EBADPARAMS;
    switch (p->curve) {
    case ZK_CURVE_BN254:
        return cu_start<cu_bn254>(p, &p->plan.bn254, w, a, b, c, copied, ctx, ret);
    case ZK_CURVE_BLS12_381:
        return cu_start<cu_bls381>(p, &p->plan.bls381, w, a, b, c, copied, ctx, ret);
    }
    return ZK_ECURVE;
}
