/*
 * parallel.h -- fork/join parallelism for the arithmetic kernels (NTT, MSM,
 * prover).  Threads are created per call and joined before return: the
 * kernels run for milliseconds to seconds, so the ~20 us of thread start-up
 * is noise, and nothing lives between calls.  On a busy machine a new
 * thread may wait milliseconds for a CPU: the caller then runs its share
 * itself instead of waiting for it (zk_parallel_run).
 */
#ifndef ZK_COMMON_PARALLEL_H
#define ZK_COMMON_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* fn(arg, t, nthreads) is called once for each t in [0, nthreads). */
typedef void (*zk_run_fn)(void *arg, unsigned t, unsigned nthreads);

/* fn(arg, begin, end) processes the half-open range [begin, end). */
typedef void (*zk_range_fn)(void *arg, size_t begin, size_t end);

/*
 * Runs fn on nthreads threads (the caller's thread is t = 0) and returns
 * when all have finished.  nthreads == 0 means zk_nthreads_default().
 * Each share t runs exactly once, on its own thread or on the caller's:
 * a share whose thread has not started by the time the caller is done
 * with share 0 (a busy machine), or could not be created, runs on the
 * caller's thread, one after the other.  So fn must not wait for another
 * share, and this function cannot fail.
 */
void zk_parallel_run(unsigned nthreads, zk_run_fn fn, void *arg);

/*
 * Splits [0, n) into chunks of `grain` (>= 1) items handed out dynamically to
 * nthreads threads; returns when every chunk is done.  Cannot fail.
 */
void zk_parallel_for(unsigned nthreads, size_t n, size_t grain,
                     zk_range_fn fn, void *arg);

/* The number of CPUs this process may run on (sched_getaffinity), >= 1. */
unsigned zk_nthreads_default(void);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_PARALLEL_H */
