/*
 * zkcuda.h -- the CUDA side of zkslot behind a plain C boundary: Fr NTTs,
 * the H step, G1 MSMs and prove_start on one GPU, for BN254 and BLS12-381.
 *
 * Built from the .cu files of gpud/cuda/ when CMake finds nvcc (ZK_ENABLE_CUDA AUTO|ON);
 * otherwise stub.c provides the same functions, zk_cuda_available()
 * returns 0 and the others ZK_ENODEV, so callers never need #ifdef.
 *
 * Data formats are those of the CPU code (common/): scalars are zk_scalar
 * (4 limbs), Fr elements in Montgomery form for NTTs, plain for MSM scalars;
 * points in the zkey's affine Montgomery encoding (all zero = infinity);
 * results as Jacobian limbs (x, y, z; z = 0 infinity) exactly as the CPU
 * G1 type lays them out.  Every GPU operation has a CPU twin in common/
 * (bn254_fr_ntt, bn254_g1_msm, zk_groth16_prove_start ...) that the
 * differential tests (tests/test_cuda.c) compare against.
 *
 * Errors: 0 or a negative code (zk/error.h); a CUDA failure returns
 * ZK_EGPU and leaves a one-line description (the failed call, file, line
 * and CUDA's message) for zk_cuda_last_error() in the calling thread.
 * A device that has failed stays failed (sticky CUDA errors): gpud then
 * exits non-zero so that systemd restarts it.
 */
#ifndef ZK_GPUD_CUDA_ZKCUDA_H
#define ZK_GPUD_CUDA_ZKCUDA_H

#include <stddef.h>
#include <stdint.h>

#include "zk/bellperson.h"
#include "zk/groth16.h"
#include "zk/zkey.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if CUDA is built in and at least one device can be used, else 0.
 * Probed once (thread-safe) and cached.  Cannot fail. */
int zk_cuda_available(void);

/* Devices visible to this process (0 without CUDA or devices). */
int zk_cuda_device_count(void);

/* "NAME, N MiB, sm_XY" of device dev into buf.  0, ZK_ENODEV or ZK_EGPU. */
int zk_cuda_device_describe(int dev, char *buf, size_t len);

/* The last CUDA failure of the calling thread, "" if none. */
const char *zk_cuda_last_error(void);

/* zk_strerror(rc), followed for ZK_EGPU by ": " and the calling thread's
 * last CUDA failure: the one text to show for an error of this API.  The
 * string lives until the thread's next call. */
const char *zk_cuda_strerror(int rc);

/* Device time in seconds of the last operation of the calling thread
 * (kernels only, between CUDA events; copies to and from the host are not
 * included), for `zkslot bench --backend cuda`. */
double zk_cuda_last_kernel_seconds(void);

/*
 * NTT of data[0 .. 2^log_n) on device dev, with the CPU's conventions
 * (zk/ntt.h): forward or inverse, natural order in and out; with shift
 * non-NULL a coset transform (forward: x_k *= shift^k first; inverse: the
 * exact inverse).  odd_coset != 0 instead runs the prover's step 2
 * (bn254_fr_ntt_to_odd_coset).  data is host memory, copied to the device
 * and back.  0, ZK_EDOMAIN, ZK_EBADPARAMS, ZK_ECURVE, ZK_ENODEV, ZK_EGPU,
 * -ENOMEM; data is untouched on every error but ZK_EGPU, after which its
 * contents are unspecified (the device may have failed during the copy
 * back).
 */
int zk_cuda_ntt(int dev, enum zk_curve curve, zk_scalar *data, unsigned log_n, int inverse,
                const zk_scalar *shift, int odd_coset);

/*
 * G1 MSM on device dev: ret_jac = sum scalars[i] * points[i], scalars plain
 * (< 2^256, reduced or not), points affine in the zkey encoding (infinity
 * allowed, all in the prime-order subgroup), host memory.  ret_jac holds
 * 3 * (4 or 6) limbs.  Errors as zk_cuda_ntt.
 */
int zk_cuda_msm_g1(int dev, enum zk_curve curve, uint64_t *ret_jac, const void *points,
                   const zk_scalar *scalars, size_t n);
/* The same on G2: points in the zkey's G2 affine encoding, ret_jac of
 * 3 * 2 * (4 or 6) limbs. */
int zk_cuda_msm_g2(int dev, enum zk_curve curve, uint64_t *ret_jac, const void *points,
                   const zk_scalar *scalars, size_t n);

/*
 * bellperson's prover (zk/bellperson.h) with its NTTs and MSMs on device
 * dev (zk_cuda_ntt, zk_cuda_msm_g1/_g2; the rest, threads of it, on the
 * CPU): the same 192 bytes as zk_bp_prove.  0, or the error with diag;
 * ZK_ENODEV without a device (or CUDA built in).
 */
int zk_cuda_bp_prove(int dev, const zk_bp_key *key, const zk_bp_assignment *as,
                     const uint8_t r[32], const uint8_t s[32], unsigned threads,
                     uint8_t proof[ZK_BP_PROOF_BYTES], struct zk_diag *diag);

/* ---- prove_start on the GPU ------------------------------------------------ */

struct zk_cuda_prover;

/*
 * Uploads the point sections of the MSMs (A, B1, C, H on G1 and B2 on G2)
 * of k (loaded with ZK_G16_LOAD_POINTS) to device dev, where they stay until
 * zk_cuda_prover_free.  Points in read-only memory (a key store's mapping)
 * are page-locked with cudaHostRegisterReadOnly for as long (their upload a
 * DMA); when that fails, the sections that fit are uploaded from pageable
 * memory (zk_cuda_prover_describe says so) and a section that does not fit
 * is ZK_EGPU, the error naming it.  0 and *ret, or ZK_ENODEV, ZK_EGPU
 * (device memory exhausted included), -ENOMEM.
 */
int zk_cuda_prover_new(int dev, const struct zk_groth16_key *k, struct zk_cuda_prover **ret);

/*
 * Where p keeps the key's point sections, e.g. "A B1 C H B2 in device memory",
 * or with "...; H in page-locked host memory" for those that did not fit:
 * zk_cuda_prover_new puts a section in device memory while enough is left
 * for the MSMs' scratch, and otherwise page-locks and maps the key's own
 * host copy (read over PCIe: slower).  Then " (uploaded from pageable
 * memory: page-locking the read-only copy failed: cudaError...)" when a
 * store's points could not be page-locked.  0 or ZK_EBADPARAMS.
 */
int zk_cuda_prover_describe(const struct zk_cuda_prover *p, char *buf, size_t len);

/* Frees the device memory of p; accepts NULL and returns NULL. */
struct zk_cuda_prover *zk_cuda_prover_free(struct zk_cuda_prover *p);

/*
 * prove_start of zk_groth16_prove_start on the GPU, queued: w (n_vars plain
 * scalars) and a, b, c (domain_size Montgomery elements each, from
 * synthesis) are copied to the device (at full speed from page-locked
 * memory, see zk_cuda_register) and the coset NTTs, the H step and the MSMs
 * for A, B1, C, H and B2 are queued behind the copies; the call returns
 * without waiting for either.  When the copies are complete, copied(ctx)
 * is called (if not NULL) from a thread of the CUDA runtime: it must not
 * call CUDA and must not block for long.  After that none of the four
 * arrays is read again, so a slot holding them can be released.  The
 * copies of a job overlap the compute of the job before it (two device
 * buffer sets).
 *
 * *job is then given to zk_cuda_job_wait, which waits for the device and
 * returns the pending proof, with every MSM done, that
 * zk_groth16_prove_finalize completes on the CPU (blinding, assembly).
 * Jobs of one prover may be queued by one thread while another waits for
 * earlier ones; each job is waited for exactly once.
 *
 * 0 and *job, or an error as above (ZK_ESTATE if the key has no points);
 * on error copied() has already run or never will, and the arrays are no
 * longer read.
 */
struct zk_cuda_job;
int zk_cuda_prove_enqueue(struct zk_cuda_prover *p, const zk_scalar *w, const zk_scalar *a,
                          const zk_scalar *b, const zk_scalar *c, void (*copied)(void *ctx),
                          void *ctx, struct zk_cuda_job **job);

/* Waits for job (and frees it, whatever the result): 0 and *ret, or
 * ZK_EGPU (the device failed running it), -ENOMEM. */
int zk_cuda_job_wait(struct zk_cuda_job *job, struct zk_groth16_pending **ret);

/* zk_cuda_prove_enqueue and zk_cuda_job_wait in one call. */
int zk_cuda_prove_start(struct zk_cuda_prover *p, const zk_scalar *w, const zk_scalar *a,
                        const zk_scalar *b, const zk_scalar *c,
                        void (*copied)(void *ctx), void *ctx,
                        struct zk_groth16_pending **ret);

/*
 * Page-locks [mem, mem + len) for the GPU (cudaHostRegister, portable), in
 * pieces of at most 64 GiB, so copies from it run at full PCIe speed.
 * gpud registers the slot pool once at start, before READY=1.  0, ZK_ENODEV
 * or ZK_EGPU (the sticky error of a failed registration is cleared).
 */
int zk_cuda_register(void *mem, size_t len);
int zk_cuda_unregister(void *mem, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* ZK_GPUD_CUDA_ZKCUDA_H */
