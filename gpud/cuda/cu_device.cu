/*
 * cu_device.cu -- device discovery, the per-thread error message and
 * kernel time, and page-locking of host memory (zkcuda.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cu_common.cuh"

static __thread char cu_err[320];
static __thread double cu_kernel_s;

void zk_cuda_set_error(const char *expr, const char *file, int line, cudaError_t e)
{
    snprintf(cu_err, sizeof cu_err, "%s: %s:%d: %s (%s)", expr, file, line,
             cudaGetErrorString(e), cudaGetErrorName(e));
    /* a failed call also leaves its error as the thread's "last error";
     * taken now, so that the next launch check of a later operation does
     * not report this one again (a sticky error stays regardless) */
    cudaGetLastError();
}

void zk_cuda_set_kernel_seconds(double s)
{
    cu_kernel_s = s;
}

extern "C" const char *zk_cuda_last_error(void)
{
    return cu_err;
}

extern "C" const char *zk_cuda_strerror(int rc)
{
    static __thread char buf[384];
    if (rc != ZK_EGPU)
        return zk_strerror(rc);
    snprintf(buf, sizeof buf, "%s: %s", zk_strerror(rc), cu_err);
    return buf;
}

extern "C" double zk_cuda_last_kernel_seconds(void)
{
    return cu_kernel_s;
}

static pthread_once_t cu_once = PTHREAD_ONCE_INIT;
static int cu_ndev;

static void cu_probe(void)
{
    int n = 0;
    /* no driver or no device: an error here simply means "none" */
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 0)
        n = 0;
    cudaGetLastError();
    cu_ndev = n;
}

extern "C" int zk_cuda_device_count(void)
{
    pthread_once(&cu_once, cu_probe);
    return cu_ndev;
}

extern "C" int zk_cuda_available(void)
{
    return zk_cuda_device_count() > 0;
}

extern "C" int zk_cuda_device_describe(int dev, char *buf, size_t len)
{
    int rc = 0;
    cudaDeviceProp p;
    if (dev < 0 || dev >= zk_cuda_device_count())
        return ZK_ENODEV;
    ZK_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    snprintf(buf, len, "%s, %zu MiB, sm_%d%d", p.name, (size_t)(p.totalGlobalMem >> 20), p.major,
             p.minor);
out:
    return rc;
}

#define CU_REG_PIECE ((size_t)64 << 30)

extern "C" int zk_cuda_register(void *mem, size_t len)
{
    int rc = 0;
    size_t done = 0;
    if (!zk_cuda_available())
        return ZK_ENODEV;
    while (done < len) {
        size_t n = len - done < CU_REG_PIECE ? len - done : CU_REG_PIECE;
        cudaError_t e = cudaHostRegister((char *)mem + done, n, cudaHostRegisterPortable);
        if (e != cudaSuccess) {
            zk_cuda_set_error("cudaHostRegister(pool)", __FILE__, __LINE__, e);
            cudaGetLastError();               /* clear the sticky error */
            rc = ZK_EGPU;
            goto out;
        }
        done += n;
    }
out:
    if (rc) {                                 /* undo the pieces that worked */
        for (size_t at = 0; at < done; at += CU_REG_PIECE)
            cudaHostUnregister((char *)mem + at);
        cudaGetLastError();
    }
    return rc;
}

extern "C" int zk_cuda_unregister(void *mem, size_t len)
{
    int rc = 0;
    if (!zk_cuda_available())
        return ZK_ENODEV;
    for (size_t at = 0; at < len; at += CU_REG_PIECE)
        ZK_CUDA_CHECK(cudaHostUnregister((char *)mem + at));
out:
    return rc;
}
