/*
 * proto.c -- the slot protocol: acquire/publish/abandon for producers,
 * claim/release/unclaim for consumers, the reaper and the checker.
 *
 * The state words are the truth; the semaphores only wake waiters.  A
 * waiter sleeps on its semaphore for at most one tick, then runs the reaper
 * and rescans the state words without a permit, so a permit leaked by a
 * killed process (or one posted twice by a race) costs at most one tick.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Debian's xxHash, compiled inline so that XXH3 uses the widest vector
 * unit of the build target (the shared library is built for baseline SSE2);
 * the hash value is the same on every path. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "pool/atomics.h"
#include "pool/layout.h"
#include "pool/scrub.h"
#include "zk/error.h"
#include "zk/pool.h"

_Static_assert(sizeof(XXH3_state_t) <= sizeof(((struct zk_pool_writer *)0)->state),
               "writer state holds an XXH3 state");
_Static_assert(_Alignof(XXH3_state_t) <= 64, "writer state alignment");

#define WRITER_CHUNK (64u << 10)   /* copy, then hash while still in L2 */

/* A handle usable by this process for slot operations, or ZK_ESTATE. */
static int usable(const zk_pool *h)
{
    if (!h || !h->hdr || (h->flags & ZK_POOL_OBSERVER) || !h->owner)
        return ZK_ESTATE;
    return h->pid == (int32_t)getpid() ? 0 : ZK_ESTATE;
}

static void count(const zk_pool *h, enum zk_pool_counter c)
{
    /* Relaxed: statistics only; nothing is ordered by them. */
    zk_fetch_add_relaxed(&h->hdr->counters[c], 1);
}

static void set_state_ns(struct pool_slot *s)
{
    zk_store_relaxed(&s->state_ns, pool_now_ns());   /* relaxed: display only */
}

/* Regions lie inside the slot and are at most ZK_POOL_MAX_REGIONS. */
static int regions_ok(uint64_t n, const uint64_t *off, const uint64_t *bytes, uint64_t cap)
{
    if (n > ZK_POOL_MAX_REGIONS)
        return 0;
    for (uint64_t i = 0; i < n; i++) {
        if (off[i] > cap || bytes[i] > cap - off[i])
            return 0;
    }
    return 1;
}

static uint64_t hash_regions(const unsigned char *base, uint64_t n, const uint64_t *off,
                             const uint64_t *bytes)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    for (uint64_t i = 0; i < n; i++)
        XXH3_64bits_update(&st, base + off[i], (size_t)bytes[i]);
    return XXH3_64bits_digest(&st);
}

/* Checksum of slot `index` as its entry describes it (caller holds the slot
 * or accepts a torn result).  UINT64_MAX-1 marks impossible regions. */
uint64_t pool_slot_hash(const struct zk_pool *h, uint32_t index)
{
    const struct pool_slot *s = pool_slot(h, index);
    uint64_t off[ZK_POOL_MAX_REGIONS], bytes[ZK_POOL_MAX_REGIONS];
    /* Relaxed: the caller's acquire of the state word orders these. */
    uint64_t n = zk_load_relaxed(&s->nregions);
    if (n > ZK_POOL_MAX_REGIONS)
        return UINT64_MAX - 1;
    for (uint64_t i = 0; i < n; i++) {
        off[i] = zk_load_relaxed(&s->region_off[i]);
        bytes[i] = zk_load_relaxed(&s->region_bytes[i]);
    }
    if (!regions_ok(n, off, bytes, h->slot_size))
        return UINT64_MAX - 1;
    return hash_regions(pool_slot_data(h, index), n, off, bytes);
}

/* Copies slot i's metadata to the caller's view (caller holds the slot). */
static void fill_view(const zk_pool *h, uint32_t i, uint64_t word, struct zk_slot *ret)
{
    const struct pool_slot *s = pool_slot(h, i);
    memset(ret, 0, sizeof *ret);
    ret->index = i;
    ret->numa_node = s->numa_node;
    ret->data = pool_slot_data(h, i);
    ret->capacity = h->slot_size;
    /* Relaxed: we hold the slot; our acquire CAS ordered the holder's writes. */
    ret->partition_id = zk_load_relaxed(&s->partition_id);
    ret->key_id = zk_load_relaxed(&s->key_id);
    uint64_t n = zk_load_relaxed(&s->nregions);
    ret->nregions = (uint32_t)(n > ZK_POOL_MAX_REGIONS ? ZK_POOL_MAX_REGIONS + 1 : n);
    for (uint32_t r = 0; r < ret->nregions && r < ZK_POOL_MAX_REGIONS; r++) {
        ret->region_off[r] = zk_load_relaxed(&s->region_off[r]);
        ret->region_bytes[r] = zk_load_relaxed(&s->region_bytes[r]);
    }
    ret->checksum = zk_load_relaxed(&s->checksum);
    ret->fill_ns = zk_load_relaxed(&s->fill_ns);
    ret->claim_ns = zk_load_relaxed(&s->claim_ns);
    ret->priority = (uint32_t)zk_load_relaxed(&s->priority);
    ret->deadline_ns = zk_load_relaxed(&s->deadline_ns);
    ret->word = word;
}

/* A scan of the state words: 1 taken (into *ret), 0 nothing to take, -1
 * free slots there, but none this caller may take (the reserve). */
typedef int (*take_fn)(zk_pool *h, const void *arg, struct zk_slot *ret);

static void add_ms(struct timespec *t, unsigned ms)
{
    t->tv_sec += ms / 1000;
    t->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

static int ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/*
 * A permit taken from sem for a slot this caller may not have (a reserved
 * one): posted back when the permits are fewer than the FREE slots (it was
 * that slot's), else dropped (a surplus, which the takes absorb).  Returns
 * 1: the caller naps a tick without the semaphore.
 */
static int give_back(zk_pool *h, sem_t *sem)
{
    int v = 0;
    uint32_t nfree = 0;
    for (uint32_t i = 0; i < h->nslots; i++)
        nfree += zk_load_relaxed(&pool_slot(h, i)->state) == 0;   /* relaxed: a count */
    if (sem_getvalue(sem, &v) == 0 && (uint32_t)(v < 0 ? 0 : v) < nfree)
        sem_post(sem);
    return 1;
}

/*
 * The wait loop shared by acquire and claim: take a permit if one is there,
 * else sleep on the semaphore for at most one tick; after a tick, reap and
 * rescan without a permit.  `take` scans the state words and CASes.  A
 * permit taken for a slot the caller may not have (a reserved one) is
 * posted back, and the caller then sleeps a tick without the semaphore, so
 * that a waiter who may take it wakes first and no permit is lost.
 */
static int wait_take(zk_pool *h, sem_t *sem, int timeout_ms, const zk_cancel_flag *cancel,
                     take_fn take, const void *arg, struct zk_slot *ret)
{
    struct timespec now, deadline, until;
    int t, nap = 0;
    clock_gettime(CLOCK_MONOTONIC, &now);
    deadline = now;
    add_ms(&deadline, timeout_ms > 0 ? (unsigned)timeout_ms : 0);
    for (;;) {
        /* Relaxed: the flag carries no data, only "stop". */
        if (cancel && atomic_load_explicit(cancel, memory_order_relaxed))
            return ZK_ECANCELED;
        if (!nap && sem_trywait(sem) == 0) {
            if ((t = take(h, arg, ret)) > 0)
                return 0;
            if (t < 0)
                nap = give_back(h, sem);
            continue;       /* surplus permit consumed: the count self-corrects */
        }
        if (timeout_ms == 0)
            return take(h, arg, ret) > 0 ? 0 : ZK_ETIMEOUT;
        clock_gettime(CLOCK_MONOTONIC, &until);
        add_ms(&until, h->tick_ms);
        if (timeout_ms > 0 && ts_before(&deadline, &until))
            until = deadline;
        if (nap) {   /* then with a permit again, never without: no surplus */
            nap = 0;
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (timeout_ms > 0 && !ts_before(&now, &deadline))
                return ZK_ETIMEOUT;
            continue;
        } else if (sem_clockwait(sem, CLOCK_MONOTONIC, &until) == 0) {
            if ((t = take(h, arg, ret)) > 0)
                return 0;
            if (t < 0)
                nap = give_back(h, sem);
            continue;
        } else if (errno == EINTR) {
            continue;
        } else if (errno != ETIMEDOUT) {
            return -errno;
        }
        if (!(h->flags & ZK_POOL_NO_REAP))
            zk_pool_reap(h, 0, NULL, NULL, NULL);
        if (take(h, arg, ret) > 0)          /* a leaked permit costs one tick */
            return 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (timeout_ms > 0 && !ts_before(&now, &deadline))
            return ZK_ETIMEOUT;
    }
}

struct ids { uint64_t partition_id, key_id; int cls; };

/* CASes FREE slot i to FILLING(us) for ids: 1 taken, 0 not FREE. */
static int take_one(zk_pool *h, uint32_t i, const struct ids *ids, struct zk_slot *ret)
{
    struct pool_slot *s = pool_slot(h, i);
    uint64_t w = 0;   /* the FREE word */
    uint64_t filling = word_make(ZK_SLOT_FILLING, h->owner);
    /* Relaxed peek: the CAS below decides. */
    if (zk_load_relaxed(&s->state) != 0)
        return 0;
    /* Acquire: the last holder's release CAS (consumer done reading the
     * data) happens-before we overwrite it. */
    if (!zk_cas_acquire(&s->state, &w, filling))
        return 0;
    /* Relaxed: the slot is ours; publish's release CAS orders these. */
    zk_store_relaxed(&s->partition_id, ids->partition_id);
    zk_store_relaxed(&s->key_id, ids->key_id);
    zk_store_relaxed(&s->nregions, 0);
    zk_store_relaxed(&s->total_bytes, 0);
    zk_store_relaxed(&s->acquire_ns, pool_now_ns());
    set_state_ns(s);
    count(h, ZK_PC_ACQUIRED);
    fill_view(h, i, filling, ret);
    return 1;
}

/* Producer scan: CAS the first FREE slot (rotating start) to FILLING(us):
 * an unreserved one first; a reserved one only for a class that may. */
static int take_free(zk_pool *h, const void *arg, struct zk_slot *ret)
{
    const struct ids *ids = arg;
    uint32_t n = h->nslots - h->reserve;
    /* Relaxed: only spreads producers over the table. */
    uint32_t start = __atomic_fetch_add(&h->scan_start, 1, __ATOMIC_RELAXED);
    for (uint32_t k = 0; k < n; k++)
        if (take_one(h, (start + k) % n, ids, ret))
            return 1;
    if (!h->reserve)
        return 0;
    if (ids->cls < h->reserve_class) {   /* is a reserved one free (not ours)? */
        for (uint32_t i = n; i < h->nslots; i++)
            if (zk_load_relaxed(&pool_slot(h, i)->state) == 0)   /* relaxed: a hint */
                return -1;
        return 0;
    }
    for (uint32_t k = 0; k < h->reserve; k++)
        if (take_one(h, n + (start + k) % h->reserve, ids, ret))
            return 1;
    return 0;
}

uint32_t zk_pool_set_reserve(zk_pool *h, uint32_t n, int min_class)
{
    h->reserve = h->nslots ? (n < h->nslots ? n : h->nslots - 1) : 0;
    h->reserve_class = min_class;
    return h->reserve;
}

int zk_pool_slot_reserved(const zk_pool *h, uint32_t index)
{
    return index < h->nslots && index >= h->nslots - h->reserve;
}

int zk_pool_acquire_class(zk_pool *h, uint64_t partition_id, uint64_t key_id, int cls,
                          int timeout_ms, const zk_cancel_flag *cancel, struct zk_slot *ret)
{
    struct ids ids = { partition_id, key_id, cls };
    int r = usable(h);
    if (r < 0)
        return r;
    return wait_take(h, &h->hdr->sem_free, timeout_ms, cancel, take_free, &ids, ret);
}

int zk_pool_acquire(zk_pool *h, uint64_t partition_id, uint64_t key_id, int timeout_ms,
                    const zk_cancel_flag *cancel, struct zk_slot *ret)
{
    return zk_pool_acquire_class(h, partition_id, key_id, 0, timeout_ms, cancel, ret);
}

/* The slot entry of s if its state word is still s->word, else NULL. */
static struct pool_slot *held(const zk_pool *h, const struct zk_slot *s, int state)
{
    if (usable(h) < 0 || s->index >= h->nslots || word_state(s->word) != state ||
        word_low(s->word) != h->owner)
        return NULL;
    struct pool_slot *e = pool_slot(h, s->index);
    /* Relaxed: only we can move the word away from our own owner value
     * (the reaper never touches a live owner), so this cannot go stale. */
    return zk_load_relaxed(&e->state) == s->word ? e : NULL;
}

int zk_pool_set_ids(zk_pool *h, struct zk_slot *s, uint64_t partition_id, uint64_t key_id)
{
    struct pool_slot *e = held(h, s, ZK_SLOT_FILLING);
    if (!e)
        return ZK_ESTATE;
    /* Relaxed: the slot is ours; publish's release CAS orders the stores. */
    zk_store_relaxed(&e->partition_id, partition_id);
    zk_store_relaxed(&e->key_id, key_id);
    s->partition_id = partition_id;
    s->key_id = key_id;
    return 0;
}

int zk_pool_publish(zk_pool *h, struct zk_slot *s, const struct zk_slot_desc *d)
{
    struct pool_slot *e = held(h, s, ZK_SLOT_FILLING);
    uint64_t total = 0;
    if (!e)
        return ZK_ESTATE;
    if (!d || !regions_ok(d->nregions, d->region_off, d->region_bytes, h->slot_size))
        return ZK_ERANGE;
    uint64_t sum = d->have_checksum ? d->checksum
                                    : hash_regions(s->data, d->nregions, d->region_off,
                                                   d->region_bytes);
    /* Relaxed stores: the release CAS below publishes them together. */
    zk_store_relaxed(&e->nregions, d->nregions);
    for (uint32_t i = 0; i < d->nregions; i++) {
        zk_store_relaxed(&e->region_off[i], d->region_off[i]);
        zk_store_relaxed(&e->region_bytes[i], d->region_bytes[i]);
        total += d->region_bytes[i];
    }
    zk_store_relaxed(&e->total_bytes, total);
    zk_store_relaxed(&e->checksum, sum);
    zk_store_relaxed(&e->fill_ns, pool_now_ns());
    zk_store_relaxed(&e->claim_ns, 0);
    zk_store_relaxed(&e->priority, d->priority);
    zk_store_relaxed(&e->deadline_ns, d->deadline_ns);
    /* Relaxed: FIFO hint for consumers, no data hangs on it. */
    zk_store_relaxed(&e->publish_seq, zk_fetch_add_relaxed(&h->hdr->publish_seq, 1));
    set_state_ns(e);
    uint64_t w = s->word;
    /* Release: the slot data and the metadata above happen-before any
     * consumer's acquire CAS that sees READY. */
    if (!zk_cas_release(&e->state, &w, word_make(ZK_SLOT_READY, s->partition_id)))
        return ZK_ESTATE;
    sem_post(&h->hdr->sem_ready);   /* first: the CAS-to-post window is what a
                                       take without a permit can race */
    count(h, ZK_PC_PUBLISHED);
    s->word = word_make(ZK_SLOT_READY, s->partition_id);
    return 0;
}

/* Gives a held slot back: FILLING/CLAIMED -> FREE or CLAIMED -> READY. */
static int hand_back(zk_pool *h, struct zk_slot *s, int from, int to)
{
    struct pool_slot *e = held(h, s, from);
    if (!e)
        return ZK_ESTATE;
    uint64_t part = zk_load_relaxed(&e->partition_id);   /* relaxed: ours */
    if (to == ZK_SLOT_FREE && from == ZK_SLOT_CLAIMED) {
        /* FILLING (ours) while it is zeroed: a consumer killed meanwhile
         * leaves a dead owner's FILLING slot, which the reaper zeroes whole
         * and frees, not a CLAIMED one it would hand back READY, half
         * zeroed (its checksum then fails) */
        uint64_t cw = s->word, fw = word_make(ZK_SLOT_FILLING, word_low(cw));
        if (!zk_cas_acq_rel(&e->state, &cw, fw))
            return ZK_ESTATE;
        s->word = fw;
    }
    if (to == ZK_SLOT_FREE) {
        pool_slot_scrub(h, s->index, from == ZK_SLOT_FILLING);   /* still ours */
        zk_store_relaxed(&e->partition_id, ZK_POOL_NO_ID);   /* relaxed: ours */
    }
    set_state_ns(e);
    uint64_t w = s->word;
    uint64_t nw = to == ZK_SLOT_FREE ? 0 : word_make(ZK_SLOT_READY, part);
    /* Release: our reads of (and writes to) the data are done before the
     * next holder's acquire CAS lets it touch the slot. */
    if (!zk_cas_release(&e->state, &w, nw))
        return ZK_ESTATE;
    sem_post(to == ZK_SLOT_FREE ? &h->hdr->sem_free : &h->hdr->sem_ready);
    s->word = nw;
    return 0;
}

int zk_pool_abandon(zk_pool *h, struct zk_slot *s)
{
    int r = hand_back(h, s, ZK_SLOT_FILLING, ZK_SLOT_FREE);
    if (!r)
        count(h, ZK_PC_ABANDONED);
    return r;
}

int zk_pool_release(zk_pool *h, struct zk_slot *s)
{
    int r = hand_back(h, s, ZK_SLOT_CLAIMED, ZK_SLOT_FREE);
    if (!r)
        count(h, ZK_PC_RELEASED);
    return r;
}

int zk_pool_unclaim(zk_pool *h, struct zk_slot *s)
{
    int r = hand_back(h, s, ZK_SLOT_CLAIMED, ZK_SLOT_READY);
    if (!r)
        count(h, ZK_PC_UNCLAIMED);
    return r;
}

/* Which of two READY slots a consumer takes first (zk_pool_claim's order):
 * 1 when (prio, deadline, pref, seq) goes before the best so far. */
static int claim_before(uint64_t prio, uint64_t deadline, int pref, uint64_t seq,
                        uint64_t b_prio, uint64_t b_deadline, int b_pref, uint64_t b_seq)
{
    if (prio != b_prio)
        return prio > b_prio;
    if (deadline != b_deadline)   /* 0 (none) after any deadline */
        return deadline && (!b_deadline || deadline < b_deadline);
    if (pref != b_pref)
        return pref > b_pref;
    return seq < b_seq;
}

/* What a consumer's scan takes: the preferred node, the lowest class. */
struct take_arg {
    int node;
    uint64_t min_prio;
};

/* Consumer scan: the first READY slot in claim order (of class min_prio or
 * above), preferably on the node. */
static int take_ready(zk_pool *h, const void *arg, struct zk_slot *ret)
{
    const struct take_arg *ta = arg;
    int node = ta->node;
    uint32_t n = h->nslots;
    uint64_t claimed = word_make(ZK_SLOT_CLAIMED, h->owner);
    for (uint32_t attempt = 0; attempt <= n; attempt++) {
        int64_t best = -1;
        uint64_t best_w = 0, best_seq = UINT64_MAX, best_prio = 0, best_deadline = 0;
        int best_pref = 0;
        for (uint32_t i = 0; i < n; i++) {
            const struct pool_slot *s = pool_slot(h, i);
            /* Acquire: the publish_seq read next is the published one. */
            uint64_t w = zk_load_acquire(&s->state);
            if (word_state(w) != ZK_SLOT_READY)
                continue;
            /* relaxed: hints for the order; the CAS below decides */
            uint64_t seq = zk_load_relaxed(&s->publish_seq);
            uint64_t prio = zk_load_relaxed(&s->priority);
            uint64_t deadline = zk_load_relaxed(&s->deadline_ns);
            if (prio < ta->min_prio)
                continue;
            int pref = node >= 0 && s->numa_node == node;
            if (best < 0 || claim_before(prio, deadline, pref, seq, best_prio, best_deadline,
                                         best_pref, best_seq)) {
                best = i;
                best_w = w;
                best_seq = seq;
                best_pref = pref;
                best_prio = prio;
                best_deadline = deadline;
            }
        }
        if (best < 0)
            return 0;
        struct pool_slot *s = pool_slot(h, (uint32_t)best);
        /* Acquire: pairs with publish's release CAS, making the data and
         * metadata written by the producer visible to us. */
        if (zk_cas_acquire(&s->state, &best_w, claimed)) {
            zk_store_relaxed(&s->claim_ns, pool_now_ns());   /* relaxed: ours */
            set_state_ns(s);
            count(h, ZK_PC_CLAIMED);
            fill_view(h, (uint32_t)best, claimed, ret);
            return 1;
        }
    }
    return 0;
}

int zk_pool_verify(const zk_pool *h, const struct zk_slot *s)
{
    if (!h || !h->hdr || !h->data || !s->data ||
        !regions_ok(s->nregions, s->region_off, s->region_bytes, h->slot_size))
        return ZK_ECHECKSUM;
    uint64_t sum = hash_regions(s->data, s->nregions, s->region_off, s->region_bytes);
    return sum == s->checksum ? 0 : ZK_ECHECKSUM;
}

int zk_pool_claim(zk_pool *h, int preferred_node, unsigned flags, int timeout_ms,
                  const zk_cancel_flag *cancel, struct zk_slot *ret)
{
    int r = usable(h);
    if (r < 0)
        return r;
    struct take_arg ta = { preferred_node, 0 };
    r = wait_take(h, &h->hdr->sem_ready, timeout_ms, cancel, take_ready, &ta, ret);
    if (r == 0 && !(flags & ZK_POOL_CLAIM_NOVERIFY) && zk_pool_verify(h, ret) < 0) {
        count(h, ZK_PC_CHECKSUM_FAIL);
        return ZK_ECHECKSUM;
    }
    return r;
}

int zk_pool_claim_class(zk_pool *h, int preferred_node, uint32_t min_priority,
                        struct zk_slot *ret)
{
    int r = usable(h);
    if (r < 0)
        return r;
    /* no permit taken: the one this slot's publish posted stays, and the
     * next blocking claim that finds nothing for it consumes it (a surplus
     * permit costs one empty scan, wait_take) */
    struct take_arg ta = { preferred_node, min_priority };
    if (!take_ready(h, &ta, ret))
        return ZK_ETIMEOUT;
    if (zk_pool_verify(h, ret) < 0) {
        count(h, ZK_PC_CHECKSUM_FAIL);
        return ZK_ECHECKSUM;
    }
    return 0;
}

/* ---- streaming writer ------------------------------------------------- */

void zk_pool_writer_init(struct zk_pool_writer *w, struct zk_slot *s)
{
    memset(&w->desc, 0, sizeof w->desc);
    w->slot = s;
    w->cursor = 0;
    XXH3_64bits_reset((XXH3_state_t *)(void *)w->state);
}

int zk_pool_writer_region(struct zk_pool_writer *w, uint64_t off)
{
    struct zk_slot_desc *d = &w->desc;
    if (d->nregions >= ZK_POOL_MAX_REGIONS || off < w->cursor || off > w->slot->capacity)
        return ZK_ERANGE;
    d->region_off[d->nregions] = off;
    d->region_bytes[d->nregions] = 0;
    d->nregions++;
    w->cursor = off;
    return 0;
}

int zk_pool_writer_put(struct zk_pool_writer *w, const void *src, size_t n)
{
    struct zk_slot_desc *d = &w->desc;
    XXH3_state_t *st = (XXH3_state_t *)(void *)w->state;
    const unsigned char *p = src;
    if (d->nregions == 0 || n > w->slot->capacity - w->cursor)
        return ZK_ERANGE;
    while (n) {
        size_t c = n < WRITER_CHUNK ? n : WRITER_CHUNK;
        unsigned char *dst = w->slot->data + w->cursor;
        memcpy(dst, p, c);
        XXH3_64bits_update(st, dst, c);   /* hot in cache: nearly free */
        w->cursor += c;
        d->region_bytes[d->nregions - 1] += c;
        p += c;
        n -= c;
    }
    return 0;
}

const struct zk_slot_desc *zk_pool_writer_finish(struct zk_pool_writer *w)
{
    w->desc.checksum = XXH3_64bits_digest((XXH3_state_t *)(void *)w->state);
    w->desc.have_checksum = 1;
    return &w->desc;
}

/* ---- reaper ------------------------------------------------------------ */

/* One slot: FILLING(dead) -> FREE, CLAIMED(dead) -> READY.  The old state
 * if reaped, else 0. */
static int reap_slot(zk_pool *h, uint32_t i, zk_pool_reap_fn fn, void *ctx)
{
    struct pool_slot *s = pool_slot(h, i);
    /* Acquire: the partition id read below belongs to this word. */
    uint64_t w = zk_load_acquire(&s->state);
    int st = word_state(w);
    if ((st != ZK_SLOT_FILLING && st != ZK_SLOT_CLAIMED) || pool_owner_alive(h, word_low(w)))
        return 0;
    uint64_t part = zk_load_relaxed(&s->partition_id);   /* relaxed: after acquire */
    /* a dead producer's slot is ours (FILLING) while it is zeroed, then FREE */
    uint64_t nw = st == ZK_SLOT_FILLING ? word_make(ZK_SLOT_FILLING, h->owner)
                                        : word_make(ZK_SLOT_READY, part);
    /* Acq_rel: we take over from the dead owner (acquire) and hand the slot
     * to the next holder (release).  A dead owner never moves the word, so
     * only one reaper can win; the others see a changed word.  A FILLING
     * slot's id is kept so that status shows what was lost. */
    if (!zk_cas_acq_rel(&s->state, &w, nw))
        return 0;
    if (st == ZK_SLOT_FILLING) {
        pool_slot_scrub(h, i, 1);
        /* Release: the zeroes are written before a producer's acquire. */
        if (!zk_cas_release(&s->state, &nw, 0))
            return 0;                     /* cannot happen: the word is ours */
    }
    set_state_ns(s);
    if (st == ZK_SLOT_FILLING) {
        count(h, ZK_PC_REAPED_FILLING);
        sem_post(&h->hdr->sem_free);
    } else {
        count(h, ZK_PC_REAPED_CLAIMED);
        sem_post(&h->hdr->sem_ready);
    }
    if (fn)
        fn(ctx, i, st, owner_pid(word_low(w)), part);
    return st;
}

/* Sets a semaphore's value to `want` by posting or try-waiting; the delta. */
static int resync_sem(sem_t *sem, int want)
{
    int v = 0, delta = 0;
    sem_getvalue(sem, &v);
    for (; v < want; v++, delta++)
        sem_post(sem);
    for (; v > want && sem_trywait(sem) == 0; v--, delta--)
        ;
    return delta;
}

int zk_pool_reap(zk_pool *h, unsigned flags, zk_pool_reap_fn fn, void *ctx,
                 struct zk_pool_reap_stats *stats)
{
    struct zk_pool_reap_stats local;
    int r = usable(h);
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (r < 0)
        return r;
    for (uint32_t i = 0; i < h->nslots; i++) {
        int st = reap_slot(h, i, fn, ctx);
        stats->filling_freed += st == ZK_SLOT_FILLING;
        stats->claimed_requeued += st == ZK_SLOT_CLAIMED;
    }
    if ((r = pool_lock(h)) < 0)
        return r;
    struct pool_attach *t = pool_attach_table(h);
    for (int i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
        uint64_t o = zk_load_relaxed(&t[i].owner);   /* relaxed: under the lock */
        if (o && !pool_attach_alive(&t[i], o)) {
            zk_store_relaxed(&t[i].owner, 0);        /* relaxed: under the lock */
            stats->attach_cleared++;
        }
    }
    /* Quiescent (no other live process, and attaching needs this lock):
     * the semaphores can be set exactly to the state counts. */
    if ((flags & ZK_POOL_REAP_RESYNC) && pool_live_others(h) == 0) {
        int nfree = 0, nready = 0;
        for (uint32_t i = 0; i < h->nslots; i++) {
            /* Relaxed: no other process runs; our own threads are idle by contract. */
            int st = word_state(zk_load_relaxed(&pool_slot(h, i)->state));
            nfree += st == ZK_SLOT_FREE;
            nready += st == ZK_SLOT_READY;
        }
        stats->free_adjust = resync_sem(&h->hdr->sem_free, nfree);
        stats->ready_adjust = resync_sem(&h->hdr->sem_ready, nready);
        stats->resynced = 1;
        if (stats->free_adjust || stats->ready_adjust)
            count(h, ZK_PC_RESYNC);
    }
    pool_unlock(h);
    return 0;
}
