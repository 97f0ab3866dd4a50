/*
 * atomics.h -- the only way pool code touches shared words.
 *
 * Named wrappers over the GCC/Clang __atomic builtins on plain uint64_t
 * fields of the mapped file (the layout stays a plain C struct that every
 * process agrees on).  Each call site states why its ordering suffices.
 */
#ifndef ZK_COMMON_POOL_ATOMICS_H
#define ZK_COMMON_POOL_ATOMICS_H

#include <stdint.h>

_Static_assert(__atomic_always_lock_free(sizeof(uint64_t), 0),
               "64-bit atomics must be lock-free to work across processes");

static inline uint64_t zk_load_acquire(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline uint64_t zk_load_relaxed(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void zk_store_release(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void zk_store_relaxed(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline uint64_t zk_fetch_add_relaxed(uint64_t *p, uint64_t v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

/* CAS that acquires what the previous holder released (success), relaxed on failure. */
static inline int zk_cas_acquire(uint64_t *p, uint64_t *expected, uint64_t desired)
{
    return __atomic_compare_exchange_n(p, expected, desired, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* CAS that publishes this thread's earlier writes (success), relaxed on failure. */
static inline int zk_cas_release(uint64_t *p, uint64_t *expected, uint64_t desired)
{
    return __atomic_compare_exchange_n(p, expected, desired, 0, __ATOMIC_RELEASE,
                                       __ATOMIC_RELAXED);
}

/* CAS that both acquires and publishes (reaper, hand-backs). */
static inline int zk_cas_acq_rel(uint64_t *p, uint64_t *expected, uint64_t desired)
{
    return __atomic_compare_exchange_n(p, expected, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

#endif /* ZK_COMMON_POOL_ATOMICS_H */
