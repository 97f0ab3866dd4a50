/*
 * cuemu.cc -- the CPU stand-in for the CUDA runtime (include/cuda_runtime.h
 * says what it checks and what it cannot).  Kernel threads of a block run
 * on the stream's thread, one at a time (as fibers when the block shares
 * memory); each stream is a thread running its queue in order.  x86-64
 * only.
 *
 * Environment:
 *   CUEMU_DEVICES=N      devices reported (default 1; 0: no device); streams and
 *                        events belong to the device current when they were made,
 *                        and using them with another device fails as on a GPU
 *   CUEMU_MEM_MB=N       device memory per device (default 16384)
 *   CUEMU_FAIL_AFTER=N, CUEMU_FAIL_ON=NAME:K   failure injection (cuemu.h)
 *   CUEMU_STRICT=1       device allocations left at exit fail the process
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "cuda_runtime.h"
#include "zk/util.h"

#if defined(__SANITIZE_ADDRESS__)
# define CUEMU_ASAN 1
extern "C" {
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
}
#else
# define CUEMU_ASAN 0
#endif

static thread_local uint3 cu_thread_idx, cu_block_idx;
static thread_local dim3 cu_block_dim, cu_grid_dim;
uint3 &cuemu_thread_idx(void) { return cu_thread_idx; }
uint3 &cuemu_block_idx(void) { return cu_block_idx; }
dim3 &cuemu_block_dim(void) { return cu_block_dim; }
dim3 &cuemu_grid_dim(void) { return cu_grid_dim; }

/* ---- configuration, failure injection, errors ------------------------------ */

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 10) : dflt;
}

struct cuemu_state {
    std::mutex mu;
    std::map<uintptr_t, size_t> dev;          /* device allocations */
    std::set<uintptr_t> freeing;              /* cudaFreeAsync queued, not yet run */
    std::map<uintptr_t, size_t> pinned_size;  /* cudaMallocHost blocks */
    std::map<uintptr_t, size_t> registered;   /* cudaHostRegister */
    std::set<cudaStream_t> streams;
    std::set<cudaEvent_t> events;
    size_t live_bytes = 0;
};

static cuemu_state &S()
{
    static cuemu_state *s = new cuemu_state;  /* never destroyed: used at exit */
    return *s;
}

static std::atomic<long> n_calls;
static std::atomic<long> n_allocs;            /* allocation calls (device and page-locked) */
static std::atomic<long> fail_at;             /* call number that fails; 0: none */
static std::atomic<bool> fail_sticky{ true };
static std::atomic<bool> cuemu_dead;          /* injected device loss (sticky) */
static std::atomic<unsigned> epoch;           /* +1 at each loss: older queued work is dropped */
static char fail_name[64];                    /* CUEMU_FAIL_ON */
static long fail_hits, fail_k;
static char injected[64];                     /* the call that was made to fail */
static std::mutex fail_mu;
static thread_local cudaError_t cuemu_last;
static thread_local bool in_host_fn;          /* running a cudaLaunchHostFunc function */
static thread_local int cuemu_cur_dev;
static int n_dev = 1;
static size_t mem_bytes = (size_t)16384 << 20;

static int ndev(void) { return n_dev; }
static size_t mem_total(void) { return mem_bytes; }

static cudaError_t fail(cudaError_t e)
{
    if (e != cudaSuccess)
        cuemu_last = e;
    return e;
}

/* the injected failure of call n: true if this call must fail */
static void lose_device(void);

static bool inject(long n, const char *what, bool sticky)
{
    std::lock_guard<std::mutex> g(fail_mu);
    snprintf(injected, sizeof injected, "%s", what);
    if (sticky) {
        lose_device();
        fprintf(stderr, "cuemu: injected device failure at runtime call %ld (%s)\n", n, what);
    }
    return true;
}

cudaError_t cuemu_enter(const char *what)
{
    if (in_host_fn) {
        fprintf(stderr, "cuemu: %s called from a function queued with cudaLaunchHostFunc, "
                        "which CUDA forbids\n", what);
        abort();
    }
    long n = ++n_calls, at = fail_at;
    bool now = false;
    if (at > 0 && n == at)
        now = inject(n, what, fail_sticky);
    if (fail_k > 0 && strstr(what, fail_name)) {
        std::lock_guard<std::mutex> g(fail_mu);
        if (++fail_hits == fail_k) {
            lose_device();
            fprintf(stderr, "cuemu: injected device failure at runtime call %ld (%s)\n", n,
                    what);
        }
    }
    if (now || cuemu_dead)
        return fail(cudaErrorLaunchFailure);
    if (n_dev <= 0)
        return fail(cudaErrorNoDevice);
    return cudaSuccess;
}

extern "C" long cuemu_calls(void)
{
    return n_calls;
}

extern "C" void cuemu_fail_after(long n, int sticky)
{
    std::lock_guard<std::mutex> g(fail_mu);
    if (n > 0)
        injected[0] = 0;
    fail_sticky = sticky != 0;
    fail_at = n > 0 ? n_calls + n : 0;
    cuemu_dead = false;
}

extern "C" const char *cuemu_injected(void)
{
    return injected;
}

#define ENTER()                                                                \
    do {                                                                       \
        cudaError_t e_ = cuemu_enter(__func__);                                \
        if (e_ != cudaSuccess)                                                 \
            return e_;                                                         \
    } while (0)

__attribute__((format(printf, 2, 3)))
static cudaError_t complain(cudaError_t e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cuemu: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return fail(e);
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = cuemu_dead ? cudaErrorLaunchFailure : cuemu_last;
    cuemu_last = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return cuemu_dead ? cudaErrorLaunchFailure : cuemu_last;
}

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorHostMemoryAlreadyRegistered: return "cudaErrorHostMemoryAlreadyRegistered";
    case cudaErrorHostMemoryNotRegistered: return "cudaErrorHostMemoryNotRegistered";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    }
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorHostMemoryAlreadyRegistered:
        return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered: return "pointer does not correspond to a registered memory region";
    case cudaErrorLaunchFailure: return "unspecified launch failure (cuemu)";
    case cudaErrorNotSupported: return "operation not supported";
    }
    return "unknown error";
}

/* ---- devices ------------------------------------------------------------------ */

cudaError_t cudaGetDeviceCount(int *n)
{
    int d = ndev();
    *n = d > 0 ? d : 0;
    return d > 0 ? cudaSuccess : fail(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int dev)
{
    ENTER();
    if (dev < 0 || dev >= ndev())
        return fail(cudaErrorInvalidDevice);
    cuemu_cur_dev = dev;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *dev)
{
    ENTER();
    *dev = cuemu_cur_dev;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
    ENTER();
    if (dev < 0 || dev >= ndev())
        return fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "cuemu %d (kernels run on the CPU)", dev);
    p->totalGlobalMem = mem_total();
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = 1;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total_b)
{
    ENTER();
    std::lock_guard<std::mutex> g(S().mu);
    *total_b = mem_total();
    *free_b = S().live_bytes < mem_total() ? mem_total() - S().live_bytes : 0;
    return cudaSuccess;
}

/* ---- memory -------------------------------------------------------------------- */

/* the allocation holding [p, p + n), or dev.end() */
static std::map<uintptr_t, size_t>::iterator find_dev(const void *p, size_t n)
{
    auto &m = S().dev;
    uintptr_t a = (uintptr_t)p;
    auto it = m.upper_bound(a);
    if (it == m.begin())
        return m.end();
    --it;
    if (a < it->first || a + n > it->first + it->second || a + n < a)
        return m.end();
    return it;
}

static bool is_dev(const void *p)
{
    std::lock_guard<std::mutex> g(S().mu);
    return p && find_dev(p, 1) != S().dev.end();
}

cudaError_t cuemu_check_device(const void *p, size_t bytes, const char *what)
{
    if (bytes == 0)
        return cudaSuccess;
    std::lock_guard<std::mutex> g(S().mu);
    if (!p || find_dev(p, bytes) == S().dev.end())
        return complain(cudaErrorInvalidValue,
                        "%s: [%p, +%zu) is not inside one device allocation", what, p, bytes);
    return cudaSuccess;
}

/* ---- streams ------------------------------------------------------------------------ */

/*
 * A stream is a worker thread running its queue in order, so that the
 * caller goes on while the "device" works, as with a GPU: work on two
 * streams runs concurrently unless events order it.  The NULL stream runs
 * its work in the calling thread, at once.  Work queued before the device
 * was lost is dropped, except event records (so that nothing waits for
 * ever on a record that will not come).
 */
struct cuemu_task {
    unsigned epoch;
    bool always;
    std::function<void()> fn;
};

struct CUstream_st {
    unsigned flags;
    int dev;                                 /* the device current at creation */
    std::mutex mu;
    std::condition_variable cv;
    std::deque<cuemu_task> q;
    bool busy = false, stop = false;
    size_t freeing_bytes = 0;                /* queued frees (stream-ordered reuse) */
    std::thread th;
};

static void stream_main(cudaStream_t st)
{
    std::unique_lock<std::mutex> g(st->mu);
    for (;;) {
        st->cv.wait(g, [st] { return st->stop || !st->q.empty(); });
        if (st->q.empty())
            return;                          /* stop, and nothing left */
        cuemu_task task = std::move(st->q.front());
        st->q.pop_front();
        st->busy = true;
        g.unlock();
        if (task.always || task.epoch == epoch)
            task.fn();
        g.lock();
        st->busy = false;
        st->cv.notify_all();
    }
}

static void submit(cudaStream_t st, std::function<void()> fn, bool always = false)
{
    if (!st) {
        fn();
        return;
    }
    std::lock_guard<std::mutex> g(st->mu);
    st->q.push_back(cuemu_task{ epoch.load(), always, std::move(fn) });
    st->cv.notify_all();
}

static void drain(cudaStream_t st)
{
    if (!st)
        return;
    std::unique_lock<std::mutex> g(st->mu);
    st->cv.wait(g, [st] { return st->q.empty() && !st->busy; });
}

/* what the whole device has queued (cudaFree and friends synchronize) */
static void drain_all(void)
{
    std::vector<cudaStream_t> v;
    {
        std::lock_guard<std::mutex> g(S().mu);
        v.assign(S().streams.begin(), S().streams.end());
    }
    for (cudaStream_t st : v)
        drain(st);
}

static cudaError_t check_stream(cudaStream_t st)
{
    std::lock_guard<std::mutex> g(S().mu);
    if (st && !S().streams.count(st))
        return fail(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

/* ---- memory ------------------------------------------------------------------------ */

/* credit: bytes whose stream-ordered free is queued on the allocating
 * stream (the runtime's pools reuse them for later work of that stream) */
static cudaError_t dev_alloc(void **p, size_t bytes, size_t credit)
{
    *p = NULL;
    n_allocs++;
    if (bytes == 0)
        return cudaSuccess;
    std::lock_guard<std::mutex> g(S().mu);
    if (S().live_bytes + bytes > mem_total() + credit)
        return fail(cudaErrorMemoryAllocation);
    void *m = malloc(bytes);
    if (!m)
        return fail(cudaErrorMemoryAllocation);
    memset(m, 0xa5, bytes);                   /* device memory starts as garbage */
    S().dev[(uintptr_t)m] = bytes;
    S().live_bytes += bytes;
    *p = m;
    return cudaSuccess;
}

static void dev_free_now(void *p)
{
    std::lock_guard<std::mutex> g(S().mu);
    auto it = S().dev.find((uintptr_t)p);
    S().live_bytes -= it->second;
    S().dev.erase(it);
    S().freeing.erase((uintptr_t)p);
    free(p);
}

/* the size of live allocation p not already being freed, or 0 */
static size_t dev_size(void *p)
{
    std::lock_guard<std::mutex> g(S().mu);
    auto it = S().dev.find((uintptr_t)p);
    if (it == S().dev.end() || S().freeing.count((uintptr_t)p))
        return 0;
    return it->second;
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    ENTER();
    return dev_alloc(p, bytes, 0);
}

cudaError_t cudaFree(void *p)
{
    ENTER();
    if (!p)
        return cudaSuccess;
    if (!dev_size(p))
        return complain(cudaErrorInvalidValue, "cudaFree: %p is not a device allocation", p);
    drain_all();                              /* cudaFree waits for the device */
    dev_free_now(p);
    return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t st)
{
    ENTER();
    cudaError_t e = check_stream(st);
    if (e)
        return e;
    size_t credit = 0;
    if (st) {
        std::lock_guard<std::mutex> g(st->mu);
        credit = st->freeing_bytes;
    }
    return dev_alloc(p, bytes, credit);
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t st)
{
    ENTER();
    cudaError_t e = check_stream(st);
    size_t n;
    if (e)
        return e;
    if (!p)
        return cudaSuccess;
    if (!(n = dev_size(p)))
        return complain(cudaErrorInvalidValue, "cudaFreeAsync: %p is not a device allocation "
                        "(or is being freed already)", p);
    {
        std::lock_guard<std::mutex> g(S().mu);
        S().freeing.insert((uintptr_t)p);
    }
    if (st) {
        std::lock_guard<std::mutex> g(st->mu);
        st->freeing_bytes += n;
    }
    submit(st, [p, n, st]() {
        dev_free_now(p);
        if (st) {
            std::lock_guard<std::mutex> g(st->mu);
            st->freeing_bytes -= n;
        }
    }, true);                                 /* (dropped, it would be lost for good) */
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    ENTER();
    n_allocs++;
    *p = malloc(bytes ? bytes : 1);
    if (!*p)
        return fail(cudaErrorMemoryAllocation);
    std::lock_guard<std::mutex> g(S().mu);
    S().pinned_size[(uintptr_t)*p] = bytes ? bytes : 1;
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *p)
{
    ENTER();
    if (!p)
        return cudaSuccess;
    drain_all();
    std::lock_guard<std::mutex> g(S().mu);
    if (!S().pinned_size.erase((uintptr_t)p))
        return complain(cudaErrorInvalidValue, "cudaFreeHost: %p is not from cudaMallocHost", p);
    free(p);
    return cudaSuccess;
}

/* page-locked host memory (copies from and to it are asynchronous) */
static bool is_locked(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    std::lock_guard<std::mutex> g(S().mu);
    for (auto &r : S().registered)
        if (a >= r.first && a + n <= r.first + r.second)
            return true;
    auto it = S().pinned_size.upper_bound(a);
    if (it == S().pinned_size.begin())
        return false;
    --it;
    return a >= it->first && a + n <= it->first + it->second;
}

/*
 * Checks a copy and queues it on st.  As in the runtime: from pageable host
 * memory the data is staged before the call returns; into pageable host
 * memory the call waits for the stream and copies; with page-locked memory
 * or device to device the copy runs when the stream gets to it.
 */
static cudaError_t copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                        cudaStream_t st)
{
    bool dd = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyHostToDevice;
    bool sd = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDeviceToHost;
    cudaError_t e;
    if (bytes == 0)
        return cudaSuccess;
    if (kind == cudaMemcpyDefault || kind == cudaMemcpyHostToHost) {
        dd = is_dev(dst);
        sd = is_dev(src);
    }
    if (dd && (e = cuemu_check_device(dst, bytes, "cudaMemcpy destination")))
        return e;
    if (sd && (e = cuemu_check_device(src, bytes, "cudaMemcpy source")))
        return e;
    if (!dd && is_dev(dst))
        return complain(cudaErrorInvalidValue, "cudaMemcpy: destination %p is device memory", dst);
    if (!sd && is_dev(src))
        return complain(cudaErrorInvalidValue, "cudaMemcpy: source %p is device memory", src);
    if (!sd && !is_locked(src, bytes)) {
        auto stage = std::make_shared<std::vector<unsigned char>>(
            (const unsigned char *)src, (const unsigned char *)src + bytes);
        submit(st, [dst, stage]() { memcpy(dst, stage->data(), stage->size()); });
    } else if (!dd && !is_locked(dst, bytes)) {
        drain(st);
        memmove(dst, src, bytes);
    } else {
        submit(st, [dst, src, bytes]() { memmove(dst, src, bytes); });
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    ENTER();
    return copy(dst, src, bytes, kind, NULL);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t st)
{
    ENTER();
    cudaError_t e = check_stream(st);
    return e ? e : copy(dst, src, bytes, kind, st);
}

cudaError_t cudaMemsetAsync(void *dst, int v, size_t bytes, cudaStream_t st)
{
    ENTER();
    cudaError_t e = check_stream(st);
    if (e || (e = cuemu_check_device(dst, bytes, "cudaMemsetAsync")))
        return e;
    submit(st, [dst, v, bytes]() { memset(dst, v, bytes); });
    return cudaSuccess;
}

void cuemu_submit(cudaStream_t st, std::function<void()> task)
{
    submit(st, std::move(task));
}

static std::atomic<bool> register_readonly{ true };   /* cuemu_set_register_readonly */

extern "C" void cuemu_set_register_readonly(int supported)
{
    register_readonly = supported != 0;
}

/*
 * The driver pins pages for the device to write unless told that they are
 * read-only, so memory this process may not write (a PROT_READ mapping,
 * such as a key store) is refused without cudaHostRegisterReadOnly; with
 * it, a device without cudaDevAttrHostRegisterReadOnlySupported refuses
 * (CUDA's cuda_runtime_api.h, cudaHostRegister).
 */
cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned flags)
{
    ENTER();
    uintptr_t a = (uintptr_t)p;
    if (!p || !bytes)
        return fail(cudaErrorInvalidValue);
    if ((flags & cudaHostRegisterReadOnly) && !register_readonly)
        return fail(cudaErrorNotSupported);
    if (!(flags & cudaHostRegisterReadOnly) && zk_mem_writable(p, bytes) != 1)
        return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(S().mu);
    for (auto &r : S().registered)
        if (a < r.first + r.second && r.first < a + bytes)
            return fail(cudaErrorHostMemoryAlreadyRegistered);
    S().registered[a] = bytes;
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *p)
{
    ENTER();
    drain_all();
    std::lock_guard<std::mutex> g(S().mu);
    if (!S().registered.erase((uintptr_t)p))
        return fail(cudaErrorHostMemoryNotRegistered);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **dev, void *host, unsigned flags)
{
    ENTER();
    uintptr_t a = (uintptr_t)host;
    std::lock_guard<std::mutex> g(S().mu);
    for (auto &r : S().registered)
        if (a >= r.first && a < r.first + r.second && !flags) {
            *dev = host;                      /* unified addressing */
            return cudaSuccess;
        }
    return fail(cudaErrorInvalidValue);
}

extern "C" size_t cuemu_live_bytes(void)
{
    std::lock_guard<std::mutex> g(S().mu);
    return S().live_bytes;
}

extern "C" size_t cuemu_registered(void)
{
    std::lock_guard<std::mutex> g(S().mu);
    return S().registered.size();
}

static size_t mem_default;

extern "C" void cuemu_set_device_memory(size_t bytes)
{
    std::lock_guard<std::mutex> g(S().mu);
    mem_bytes = bytes ? bytes : mem_default;
}

extern "C" long cuemu_alloc_calls(void)
{
    return n_allocs;
}

extern "C" size_t cuemu_live_allocations(void)
{
    std::lock_guard<std::mutex> g(S().mu);
    return S().dev.size();
}

/* ---- streams and events ----------------------------------------------------------- */

/* An event completes when its stream reaches the record; records are
 * numbered so that a wait covers the record that came before it. */
struct CUevent_st {
    unsigned flags;
    int dev;                                 /* the device current at creation */
    std::mutex mu;
    std::condition_variable cv;
    uint64_t recorded = 0, done = 0;
    double t = 0;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the device is lost: the work queued so far is dropped (stream_main) */
static void lose_device(void)
{
    cuemu_dead = true;
    epoch++;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *st, unsigned flags)
{
    ENTER();
    cudaStream_t s = new CUstream_st;
    s->flags = flags;
    s->dev = cuemu_cur_dev;
    s->th = std::thread(stream_main, s);
    *st = s;
    std::lock_guard<std::mutex> g(S().mu);
    S().streams.insert(s);
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t st)
{
    /* on a lost device this fails too, but the thread goes all the same (a
     * process would exit; the tests go on, and must not pile up threads) */
    cudaError_t e0 = cuemu_enter(__func__);
    if (e0 != cudaSuccess && e0 != cudaErrorLaunchFailure)
        return e0;
    {
        std::lock_guard<std::mutex> g(S().mu);
        if (!st || !S().streams.erase(st))
            return fail(cudaErrorInvalidResourceHandle);
    }
    {
        std::lock_guard<std::mutex> g(st->mu);      /* its queued work still runs */
        st->stop = true;
        st->cv.notify_all();
    }
    st->th.join();
    delete st;
    return e0;
}

cudaError_t cudaStreamSynchronize(cudaStream_t st)
{
    ENTER();
    cudaError_t e = check_stream(st);
    if (!e)
        drain(st);
    return e;
}

static cudaError_t check_event(cudaEvent_t e)
{
    std::lock_guard<std::mutex> g(S().mu);
    if (!e || !S().events.count(e))
        return fail(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

/* waits until event e has reached record number n */
static void event_wait(cudaEvent_t e, uint64_t n)
{
    std::unique_lock<std::mutex> g(e->mu);
    e->cv.wait(g, [e, n] { return e->done >= n; });
}

/* the number of e's latest record, the one a wait waits for */
static uint64_t event_last(cudaEvent_t e)
{
    std::lock_guard<std::mutex> g(e->mu);
    return e->recorded;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t st, cudaEvent_t e, unsigned flags)
{
    ENTER();
    cudaError_t r = check_stream(st);
    if (r || (r = check_event(e)))
        return r;
    if (flags)
        return fail(cudaErrorInvalidValue);
    uint64_t n = event_last(e);
    submit(st, [e, n]() { event_wait(e, n); });
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t st, cudaHostFn_t fn, void *arg)
{
    ENTER();
    cudaError_t e = check_stream(st);
    if (e)
        return e;
    /* on the stream's thread, as the runtime calls it from a thread of its own */
    submit(st, [fn, arg]() {
        in_host_fn = true;
        fn(arg);
        in_host_fn = false;
    });
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
    ENTER();
    *e = new CUevent_st;
    (*e)->flags = flags;
    (*e)->dev = cuemu_cur_dev;
    std::lock_guard<std::mutex> g(S().mu);
    S().events.insert(*e);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    return cudaEventCreateWithFlags(e, 0);
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    ENTER();
    {
        std::lock_guard<std::mutex> g(S().mu);
        if (!e || !S().events.erase(e))
            return fail(cudaErrorInvalidResourceHandle);
    }
    event_wait(e, event_last(e));             /* (the runtime defers the release) */
    delete e;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t st)
{
    ENTER();
    cudaError_t r = check_stream(st);
    if (r || (r = check_event(e)))
        return r;
    if (e->dev != (st ? st->dev : cuemu_cur_dev))
        return complain(cudaErrorInvalidResourceHandle,
                        "cudaEventRecord: an event of device %d recorded on a stream of "
                        "device %d", e->dev, st ? st->dev : cuemu_cur_dev);
    uint64_t n;
    {
        std::lock_guard<std::mutex> g(e->mu);
        n = ++e->recorded;
    }
    submit(st, [e, n]() {
        std::lock_guard<std::mutex> g(e->mu);
        if (e->done < n) {
            e->done = n;
            e->t = now_s();
        }
        e->cv.notify_all();
    }, true);
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    ENTER();
    cudaError_t r = check_event(e);
    if (r)
        return r;
    event_wait(e, event_last(e));
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t e)
{
    ENTER();
    cudaError_t r = check_event(e);
    if (r)
        return r;
    std::lock_guard<std::mutex> g(e->mu);
    return e->done >= e->recorded ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    ENTER();
    cudaError_t r = check_event(a);
    if (r || (r = check_event(b)))
        return r;
    if ((a->flags | b->flags) & cudaEventDisableTiming)
        return fail(cudaErrorInvalidResourceHandle);
    if (a->dev != b->dev)
        return complain(cudaErrorInvalidResourceHandle,
                        "cudaEventElapsedTime: events of devices %d and %d", a->dev, b->dev);
    std::lock_guard<std::mutex> ga(a->mu);
    std::unique_lock<std::mutex> gb(b->mu, std::defer_lock);
    if (a != b)
        gb.lock();
    if (!a->recorded || !b->recorded)
        return fail(cudaErrorInvalidResourceHandle);
    if (a->done < a->recorded || b->done < b->recorded)
        return fail(cudaErrorNotReady);
    *ms = (float)((b->t - a->t) * 1e3);
    return cudaSuccess;
}

/* ---- kernels ----------------------------------------------------------------------- */

/*
 * A launch without dynamic shared memory runs each thread as a plain call:
 * a block can only share data through shared memory, which in these
 * sources is always dynamic (ZK_CU_DYN_SMEM; `__shared__` alone does not
 * compile here), so such a kernel has nothing to synchronize and calling
 * __syncthreads in it is reported.  With shared memory the threads of a
 * block are fibers switched by cuemu_switch (callee-saved registers and the
 * stack pointer: the kernels are plain C++ without signals or TLS games),
 * each running to its next barrier in turn.
 */
enum { F_RUN, F_BARRIER, F_DONE };

struct cuemu_fiber {
    void *sp;
    int state;
    void *fake_stack;
};

struct cuemu_block {
    std::vector<cuemu_fiber> f;
    std::vector<char *> stacks;
    size_t stack_bytes = 0;
    void *sched_sp = NULL;
    const void *sched_bottom = NULL;
    size_t sched_size = 0;
    int cur = -1;
    bool fibers = false;
    const char *name = NULL;
    const std::function<void()> *body = NULL;
    alignas(64) unsigned char smem[48 << 10];
};

static thread_local cuemu_block *B;

/* frees the launching thread's block (fiber stacks included) when it exits */
struct cuemu_block_owner {
    ~cuemu_block_owner()
    {
        if (!B)
            return;
        for (char *st : B->stacks)
            munmap(st, B->stack_bytes);
        delete B;
        B = NULL;
    }
};
static thread_local cuemu_block_owner B_owner;

/* void cuemu_switch(void **save_sp, void *sp): saves the callee-saved
 * registers on the current stack, stores its pointer in *save_sp and
 * resumes the stack sp (saved the same way, or made by fiber_stack) */
extern "C" void cuemu_switch(void **save_sp, void *sp);
__asm__(".text\n"
        ".globl cuemu_switch\n"
        ".type cuemu_switch, @function\n"
        "cuemu_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size cuemu_switch, .-cuemu_switch\n");

static void fiber_main(void);

/* a fresh stack whose first cuemu_switch "returns" into fiber_main, with
 * the stack aligned as after a call */
static void *fiber_stack(char *stack, size_t bytes)
{
    uintptr_t top = ((uintptr_t)stack + bytes) & ~(uintptr_t)15;
    void **sp = (void **)top;
    *--sp = NULL;                          /* fiber_main's return address: never used */
    *--sp = (void *)fiber_main;
    for (int i = 0; i < 6; i++)
        *--sp = NULL;                      /* rbp rbx r12 r13 r14 r15 */
    return sp;
}

void *cuemu_dyn_smem(void)
{
    if (!B || B->cur < 0) {
        fprintf(stderr, "cuemu: dynamic shared memory used outside a kernel\n");
        abort();
    }
    return B->smem;
}

/* from the running fiber back to the scheduler */
static void to_sched(bool final)
{
    cuemu_fiber *f = &B->f[(size_t)B->cur];
#if CUEMU_ASAN
    __sanitizer_start_switch_fiber(final ? NULL : &f->fake_stack, B->sched_bottom, B->sched_size);
#else
    (void)final;
#endif
    cuemu_switch(&f->sp, B->sched_sp);
#if CUEMU_ASAN
    __sanitizer_finish_switch_fiber(f->fake_stack, NULL, NULL);
#endif
}

static void fiber_main(void)
{
#if CUEMU_ASAN
    __sanitizer_finish_switch_fiber(NULL, &B->sched_bottom, &B->sched_size);
#endif
    (*B->body)();
    B->f[(size_t)B->cur].state = F_DONE;
    to_sched(true);
    abort();                               /* never resumed */
}

void __syncthreads(void)
{
    if (!B || B->cur < 0) {
        fprintf(stderr, "cuemu: __syncthreads outside a kernel\n");
        abort();
    }
    if (!B->fibers) {
        fprintf(stderr, "cuemu: kernel %s calls __syncthreads but was launched without "
                        "shared memory\n", B->name);
        abort();
    }
    B->f[(size_t)B->cur].state = F_BARRIER;
    to_sched(false);
}

static void set_thread(unsigned t)
{
    threadIdx.x = t % blockDim.x;
    threadIdx.y = (t / blockDim.x) % blockDim.y;
    threadIdx.z = t / (blockDim.x * blockDim.y);
    B->cur = (int)t;
}

static void run_block_plain(unsigned nthr)
{
    for (unsigned t = 0; t < nthr; t++) {
        set_thread(t);
        (*B->body)();
    }
    B->cur = -1;
}

static void run_block_fibers(unsigned nthr)
{
    for (unsigned t = 0; t < nthr; t++) {
        B->f[t].state = F_RUN;
        B->f[t].fake_stack = NULL;
        B->f[t].sp = fiber_stack(B->stacks[t], B->stack_bytes);
    }
    for (;;) {
        unsigned done = 0, waiting = 0;
        for (unsigned t = 0; t < nthr; t++) {
            if (B->f[t].state != F_RUN)
                continue;
            set_thread(t);
            void *fake = NULL;
#if CUEMU_ASAN
            __sanitizer_start_switch_fiber(&fake, B->stacks[t], B->stack_bytes);
#endif
            cuemu_switch(&B->sched_sp, B->f[t].sp);
#if CUEMU_ASAN
            __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
            (void)fake;
            B->cur = -1;
        }
        for (unsigned t = 0; t < nthr; t++) {
            done += B->f[t].state == F_DONE;
            waiting += B->f[t].state == F_BARRIER;
        }
        if (done == nthr)
            return;
        if (done) {
            fprintf(stderr,
                    "cuemu: kernel %s, block (%u,%u,%u): %u threads wait at __syncthreads "
                    "that %u threads of the block never reach\n",
                    B->name, blockIdx.x, blockIdx.y, blockIdx.z, waiting, done);
            abort();
        }
        for (unsigned t = 0; t < nthr; t++)
            B->f[t].state = F_RUN;
    }
}

static void run_grid(dim3 grid, dim3 block, size_t smem, const char *name,
                     const std::function<void()> &body);

void cuemu_launch(dim3 grid, dim3 block, size_t smem, cudaStream_t st, const char *name,
                  std::function<void()> body)
{
    if (cuemu_enter(name) != cudaSuccess || check_stream(st) != cudaSuccess)
        return;
    if (st && st->dev != cuemu_cur_dev) {
        complain(cudaErrorInvalidResourceHandle,
                 "launch of %s on a stream of device %d while device %d is current", name,
                 st->dev, cuemu_cur_dev);
        return;
    }
    unsigned long long nthr = (unsigned long long)block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu || grid.y > 65535 ||
        grid.z > 65535 || nthr == 0 || nthr > 1024 || block.z > 64 || smem > (48u << 10)) {
        fprintf(stderr, "cuemu: launch of %s: invalid configuration: grid (%u,%u,%u), "
                        "block (%u,%u,%u), %zu bytes of shared memory\n",
                name, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem);
        fail(cudaErrorInvalidConfiguration);
        return;
    }
    if (B && B->cur >= 0) {
        fprintf(stderr, "cuemu: launch of %s from inside a kernel\n", name);
        abort();
    }
    submit(st, [grid, block, smem, name, body]() { run_grid(grid, block, smem, name, body); });
}

/* a launch, on its stream's thread */
static void run_grid(dim3 grid, dim3 block, size_t smem, const char *name,
                     const std::function<void()> &body)
{
    unsigned long long nthr = (unsigned long long)block.x * block.y * block.z;
    if (!B) {
        B = new cuemu_block;                  /* per host thread, kept until it exits */
        (void)&B_owner;
    }
    B->fibers = smem > 0;
    if (B->fibers) {
        if (!B->stack_bytes)
            B->stack_bytes = (size_t)env_long("CUEMU_STACK_KB", CUEMU_ASAN ? 1024 : 128) << 10;
        while (B->stacks.size() < nthr) {
            void *s = mmap(NULL, B->stack_bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
            if (s == MAP_FAILED) {
                perror("cuemu: fiber stack");
                abort();
            }
            B->stacks.push_back((char *)s);
        }
        if (B->f.size() < nthr)
            B->f.resize(nthr);
    }
    B->body = &body;
    B->name = name;
    gridDim = grid;
    blockDim = block;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                blockIdx.x = x;
                blockIdx.y = y;
                blockIdx.z = z;
                if (B->fibers) {
                    memset(B->smem, 0xa5, smem);  /* shared memory starts as garbage */
                    run_block_fibers((unsigned)nthr);
                } else {
                    run_block_plain((unsigned)nthr);
                }
            }
    B->body = NULL;
}

/* ---- exit --------------------------------------------------------------------------- */

static void cuemu_at_exit(void)
{
    size_t n, bytes;
    {
        std::lock_guard<std::mutex> g(S().mu);
        n = S().dev.size();
        bytes = S().live_bytes;
    }
    if (n && env_long("CUEMU_STRICT", 0)) {
        fprintf(stderr, "cuemu: %zu device allocations (%zu bytes) never freed\n", n, bytes);
        _exit(3);
    }
}

__attribute__((constructor)) static void cuemu_init(void)
{
    const char *on = getenv("CUEMU_FAIL_ON"), *colon;
    n_dev = (int)env_long("CUEMU_DEVICES", 1);
    mem_bytes = mem_default = (size_t)env_long("CUEMU_MEM_MB", 16384) << 20;
    fail_at = env_long("CUEMU_FAIL_AFTER", 0);
    if (on && (colon = strrchr(on, ':')) && (size_t)(colon - on) < sizeof fail_name) {
        memcpy(fail_name, on, (size_t)(colon - on));
        fail_k = strtol(colon + 1, NULL, 10);
    }
    atexit(cuemu_at_exit);
}
