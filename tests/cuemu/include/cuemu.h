/*
 * cuemu.h -- the controls of cuemu (the CPU stand-in for the CUDA runtime,
 * see cuda_runtime.h) for tests written in C.
 *
 * Failure injection, also from the environment (read once, at start):
 *   CUEMU_FAIL_AFTER=N     the N-th runtime call of the process fails;
 *   CUEMU_FAIL_ON=NAME:K   the K-th call whose name contains NAME fails
 *                          (a kernel's name, e.g. k_h_step:3, or a runtime
 *                          function's, e.g. cudaMemcpyAsync:10).
 * A failed call returns cudaErrorLaunchFailure and so does every later
 * call (a lost device stays lost) until cuemu_fail_after(0, .).  A failed
 * call has no effect (a failed free frees nothing, a failed launch runs
 * nothing).
 */
#ifndef ZK_CUEMU_H
#define ZK_CUEMU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runtime calls (launches included) made so far by the process. */
long cuemu_calls(void);

/* n > 0: the n-th runtime call from now fails; sticky: and every later one
 * (a lost device), else only that one (a transient error such as running
 * out of device memory).  n == 0: the device works again, nothing armed. */
void cuemu_fail_after(long n, int sticky);

/* The name of the call the last cuemu_fail_after made fail ("" if that call
 * has not come yet): a runtime function or a kernel. */
const char *cuemu_injected(void);

/* Allocation calls made so far (cudaMalloc, cudaMallocAsync, cudaMallocHost),
 * failed ones included: what a steady state must not add to. */
long cuemu_alloc_calls(void);

/* Device allocations not yet freed, and their bytes. */
size_t cuemu_live_allocations(void);
size_t cuemu_live_bytes(void);

/* Host ranges registered (cudaHostRegister) and not yet unregistered. */
size_t cuemu_registered(void);

/* Whether the devices take cudaHostRegisterReadOnly (the attribute
 * cudaDevAttrHostRegisterReadOnlySupported; default 1).  0: a registration
 * with that flag fails with cudaErrorNotSupported, as on such a GPU. */
void cuemu_set_register_readonly(int supported);

/* The device memory of every device, in bytes (0: CUEMU_MEM_MB's, default
 * 16 GiB); allocations beyond it fail with cudaErrorMemoryAllocation. */
void cuemu_set_device_memory(size_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* ZK_CUEMU_H */
