#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "zk/parallel.h"

#define ZK_MAX_THREADS 1024

/*
 * One zk_parallel_run: share t (t >= 1) is claimed once, by its own
 * thread when that one starts, or by the caller once it is done with its
 * share 0 and finds t unclaimed (then the late thread, when it does
 * start, finds nothing to do and exits).  On a busy machine a new thread
 * may wait milliseconds for a CPU; the caller no longer waits for it: it
 * runs the share itself (with a dynamic split nothing is left by then)
 * and joins only the threads that took theirs.  The block is shared by
 * the caller and every thread started; the last one to let go frees it.
 */
enum { SHARE_FREE, SHARE_THREAD, SHARE_CALLER };

struct run_share {
    struct run_block *b;
    unsigned t;
    atomic_uint state;               /* SHARE_* */
};

struct run_block {
    zk_run_fn fn;
    void *arg;
    unsigned nthreads;
    atomic_uint refs;                /* the caller and each thread started */
    struct run_share share[];
};

static void run_block_release(struct run_block *b)
{
    if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        free(b);
}

static void *run_thread(void *p)
{
    struct run_share *s = p;
    struct run_block *b = s->b;
    unsigned free_state = SHARE_FREE;
    /* acq_rel: the claim orders the share's work after the caller's setup
     * and before the join that publishes it */
    if (atomic_compare_exchange_strong_explicit(&s->state, &free_state, SHARE_THREAD,
                                                memory_order_acq_rel, memory_order_acquire))
        b->fn(b->arg, s->t, b->nthreads);
    run_block_release(b);            /* b->arg is not touched after a lost claim */
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
    struct run_block *b = calloc(1, sizeof *b + nthreads * sizeof b->share[0]);
    pthread_t *tid = calloc(nthreads, sizeof *tid);
    unsigned char *started = calloc(nthreads, 1);
    if (!b || !tid || !started) {         /* no memory: run the shares serially */
        free(b);
        free(tid);
        free(started);
        for (unsigned t = 0; t < nthreads; t++)
            fn(arg, t, nthreads);
        return;
    }
    b->fn = fn;
    b->arg = arg;
    b->nthreads = nthreads;
    atomic_init(&b->refs, 1);
    for (unsigned t = 0; t < nthreads; t++) {
        b->share[t].b = b;
        b->share[t].t = t;
        atomic_init(&b->share[t].state, SHARE_FREE);
    }
    for (unsigned t = 1; t < nthreads; t++) {
        atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
        started[t] = pthread_create(&tid[t], NULL, run_thread, &b->share[t]) == 0;
        if (!started[t])
            atomic_fetch_sub_explicit(&b->refs, 1, memory_order_relaxed);
    }
    fn(arg, 0, nthreads);
    for (unsigned t = 1; t < nthreads; t++) {
        unsigned free_state = SHARE_FREE;
        if (atomic_compare_exchange_strong_explicit(&b->share[t].state, &free_state,
                                                    SHARE_CALLER, memory_order_acq_rel,
                                                    memory_order_acquire)) {
            fn(arg, t, nthreads);         /* not started yet (or not at all) */
            if (started[t])
                pthread_detach(tid[t]);   /* it exits on its own, touching only b */
            started[t] = 0;
        }
    }
    for (unsigned t = 1; t < nthreads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
    }
    run_block_release(b);
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
