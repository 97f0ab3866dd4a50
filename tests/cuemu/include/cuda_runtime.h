/*
 * cuda_runtime.h of cuemu -- a CPU stand-in for the parts of the CUDA
 * runtime that gpud/cuda/ uses, so that the kernels of the .cu files of gpud/cuda/ can
 * be compiled as C++ and executed on the host by the tests (test_cuda_emu,
 * the emulated gpud of the pipeline tests) on machines without a GPU.
 *
 * What it checks: every kernel thread runs (threads of a block as fibers,
 * so __syncthreads has its meaning and a barrier not reached by all threads
 * of a block is reported), launch configurations (empty grids, more than
 * 1024 threads per block, too much shared memory), that copies, memsets and
 * frees name device memory on the side that must be device memory and stay
 * inside its allocation, event timing flags, device numbers, host
 * registrations.  Runtime calls can be made to fail like a lost device
 * (cuemu.h), for the error paths.
 * Under ASan every device buffer is a malloc'd block, so kernels indexing
 * out of bounds are caught.
 *
 * What it cannot check: races between threads or blocks (threads run one at
 * a time), the memory model, warp-level behaviour, and anything about
 * speed.  Each stream is a thread that runs its work in order while the
 * caller goes on, so streams run concurrently unless events order them; a
 * function queued with cudaLaunchHostFunc runs on its stream's thread and
 * may not call CUDA.  A lost device drops the work queued before.
 *
 * This is test tooling: it is never linked into an installed binary.
 */
#ifndef ZK_CUEMU_CUDA_RUNTIME_H
#define ZK_CUEMU_CUDA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <functional>

#include "cuemu.h"

#define ZK_CUDA_EMU 1

#define __host__
#define __device__
#define __global__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
} cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterReadOnly 0x08   /* (CUDA 11.1+) read-only host memory */
#define cudaHostAllocPortable 0x01

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef void (*cudaHostFn_t)(void *userData);

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int major, minor;
    int multiProcessorCount;
};

struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

/*
 * The coordinates of the kernel thread being run (per host thread).  The
 * kernels reach them through functions rather than as thread_local
 * variables: with GCC 12's UBSan, reading blockIdx.x after a fiber switch
 * (__syncthreads) was reported as a member access through a null pointer,
 * though the variable's address was the right one.
 */
uint3 &cuemu_thread_idx(void);
uint3 &cuemu_block_idx(void);
dim3 &cuemu_block_dim(void);
dim3 &cuemu_grid_dim(void);
#define threadIdx (cuemu_thread_idx())
#define blockIdx (cuemu_block_idx())
#define blockDim (cuemu_block_dim())
#define gridDim (cuemu_grid_dim())

void __syncthreads(void);
static inline unsigned long long __brevll(unsigned long long x)
{
    unsigned long long r = 0;
    for (int i = 0; i < 64; i++, x >>= 1)
        r = (r << 1) | (x & 1);
    return r;
}

/* kernel launches: gpud/cuda/cu_common.cuh's ZK_CU_LAUNCH and
 * ZK_CU_DYN_SMEM take these definitions instead of <<< >>> */
void cuemu_launch(dim3 grid, dim3 block, size_t smem, cudaStream_t st, const char *name,
                  std::function<void()> body);
void *cuemu_dyn_smem(void);
/* (the arguments are evaluated and copied at the launch, as by <<< >>>) */
#define ZK_CU_LAUNCH(k, grid, block, smem, st, ...)                            \
    cuemu_launch((grid), (block), (smem), (st), #k, std::bind(k, __VA_ARGS__))

/* queues work on st (the CUB stand-ins): it runs when the stream gets there */
void cuemu_submit(cudaStream_t st, std::function<void()> task);
#define ZK_CU_DYN_SMEM(type, name) type *name = (type *)cuemu_dyn_smem()

/* checks used by the CUB stand-ins: [p, p + bytes) inside one device
 * allocation (cudaErrorInvalidValue, with a message, otherwise) */
cudaError_t cuemu_check_device(const void *p, size_t bytes, const char *what);
/* counts a runtime call; the failure it must return, if any */
cudaError_t cuemu_enter(const char *what);

cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaGetDevice(int *dev);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev);
cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total_b);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);

cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t st);
cudaError_t cudaFreeAsync(void *p, cudaStream_t st);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t st);
cudaError_t cudaMemsetAsync(void *dst, int v, size_t bytes, cudaStream_t st);
/* refuses a range this process may not write unless flags has
 * cudaHostRegisterReadOnly (cudaErrorInvalidValue), as the runtime does on
 * a GPU without pageable-memory access (cuemu.h: cuemu_set_register_readonly) */
cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned flags);
cudaError_t cudaHostUnregister(void *p);
cudaError_t cudaHostGetDevicePointer(void **dev, void *host, unsigned flags);

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *st, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t st);
cudaError_t cudaStreamSynchronize(cudaStream_t st);
cudaError_t cudaStreamWaitEvent(cudaStream_t st, cudaEvent_t e, unsigned flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t st, cudaHostFn_t fn, void *arg);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t st);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);

#endif /* ZK_CUEMU_CUDA_RUNTIME_H */
