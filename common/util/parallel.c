#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "zk/parallel.h"

#define ZK_MAX_THREADS 1024

struct run_ctx {
    zk_run_fn fn;
    void *arg;
    unsigned t, nthreads;
};

static void *run_thread(void *p)
{
    struct run_ctx *c = p;
    c->fn(c->arg, c->t, c->nthreads);
    return NULL;
}

unsigned zk_nthreads_default(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (unsigned)n;
    }
    return 1;
}

void zk_parallel_run(unsigned nthreads, zk_run_fn fn, void *arg)
{
    if (nthreads == 0)
        nthreads = zk_nthreads_default();
    if (nthreads > ZK_MAX_THREADS)
        nthreads = ZK_MAX_THREADS;
    if (nthreads == 1) {
        fn(arg, 0, 1);
        return;
    }
    struct run_ctx *ctx = calloc(nthreads, sizeof *ctx);
    pthread_t *tid = calloc(nthreads, sizeof *tid);
    unsigned char *started = calloc(nthreads, 1);
    if (!ctx || !tid || !started) {       /* no memory: run the shares serially */
        free(ctx);
        free(tid);
        free(started);
        for (unsigned t = 0; t < nthreads; t++)
            fn(arg, t, nthreads);
        return;
    }
    for (unsigned t = 0; t < nthreads; t++)
        ctx[t] = (struct run_ctx){ fn, arg, t, nthreads };
    for (unsigned t = 1; t < nthreads; t++)
        started[t] = pthread_create(&tid[t], NULL, run_thread, &ctx[t]) == 0;
    fn(arg, 0, nthreads);
    for (unsigned t = 1; t < nthreads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            fn(arg, t, nthreads);
    }
    free(ctx);
    free(tid);
    free(started);
}

struct for_ctx {
    zk_range_fn fn;
    void *arg;
    size_t n, grain;
    atomic_size_t next;
};

static void for_worker(void *p, unsigned t, unsigned nthreads)
{
    struct for_ctx *c = p;
    (void)t;
    (void)nthreads;
    for (;;) {
        /* relaxed: the counter only partitions work; results are published
         * by the join in zk_parallel_run (pthread_join synchronizes). */
        size_t b = atomic_fetch_add_explicit(&c->next, c->grain, memory_order_relaxed);
        if (b >= c->n)
            break;
        size_t e = b + c->grain < c->n ? b + c->grain : c->n;
        c->fn(c->arg, b, e);
    }
}

void zk_parallel_for(unsigned nthreads, size_t n, size_t grain,
                     zk_range_fn fn, void *arg)
{
    if (grain == 0)
        grain = 1;
    if (nthreads == 0)
        nthreads = zk_nthreads_default();
    size_t chunks = (n + grain - 1) / grain;
    if (chunks < nthreads)
        nthreads = chunks ? (unsigned)chunks : 1;
    struct for_ctx c = { .fn = fn, .arg = arg, .n = n, .grain = grain };
    atomic_init(&c.next, 0);
    zk_parallel_run(nthreads, for_worker, &c);
}
