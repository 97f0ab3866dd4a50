/*
 * pool.h -- the slot pool: a bounded set of huge-page shared-memory slots in
 * which synthesis output waits for a prover.
 *
 * One pool file per machine (on hugetlbfs when huge pages are reserved,
 * otherwise on tmpfs), mapped MAP_SHARED by every process that uses it.
 * Each slot has one state word changed only by compare-and-swap:
 *
 *   FREE -> FILLING(owner) -> READY(partition) -> CLAIMED(owner) -> FREE
 *
 * An owner is a process identity (pid + start time), so a recycled pid is
 * never mistaken for the dead owner.  Two process-shared counting
 * semaphores, `free` and `ready`, wake waiters up; they are hints only: a
 * waiter uses timed waits and rescans the state words, so a permit leaked
 * by a killed process costs one tick, never a slot.  The reaper (run at
 * attach and on every wait tick) turns FILLING(dead) into FREE and
 * CLAIMED(dead) into READY.
 *
 * Every function returns 0 or a negative code from zk/error.h (-errno for
 * system failures).  Nothing here logs, exits or allocates after attach.
 * A zk_pool handle belongs to one process: after fork() the child must
 * attach its own handle (calls through an inherited one fail with
 * ZK_ESTATE).  One handle may be used by several threads of its process.
 * docs/pool.md describes the protocol and the recovery rules.
 */
#ifndef ZK_COMMON_POOL_H
#define ZK_COMMON_POOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <atomic>
typedef std::atomic_int zk_cancel_flag;
extern "C" {
#else
#include <stdatomic.h>
typedef atomic_int zk_cancel_flag;     /* set nonzero to cancel a wait */
#endif

/*
 * The pool path every tool and daemon uses unless told otherwise:
 * ZK_POOL_RUN_PATH in /run/zkslot (made by zkslot's tmpfiles.d entry, mode
 * 0750, user and group zkslot: no other user can plant a file there) when
 * that directory exists, else ZK_POOL_SHM_PATH in the world-writable
 * /dev/shm (a machine without the units installed; the trust checks of
 * zk_pool_attach then refuse a file another user planted).
 */
#define ZK_POOL_RUN_DIR "/run/zkslot"
#define ZK_POOL_RUN_PATH ZK_POOL_RUN_DIR "/zkslot.pool"
#define ZK_POOL_SHM_PATH "/dev/shm/zkslot.pool"
const char *zk_pool_default_path(void);

#define ZK_POOL_MAX_REGIONS 8          /* regions per slot (a, b, c, wtns...) */
#define ZK_POOL_MAX_ATTACH 64          /* processes registered at once */
#define ZK_POOL_MAX_SLOTS 65536
#define ZK_POOL_NO_ID UINT64_MAX       /* partition/key id not known yet */
#define ZK_POOL_ANY_NODE (-1)          /* no NUMA preference */

enum zk_slot_state {
    ZK_SLOT_FREE = 0,
    ZK_SLOT_FILLING = 1,
    ZK_SLOT_READY = 2,
    ZK_SLOT_CLAIMED = 3,
};

enum zk_pool_backing {
    ZK_POOL_BACKING_HUGETLBFS = 1,     /* huge pages, reserved by fallocate */
    ZK_POOL_BACKING_TMPFS = 2,         /* tmpfs / /dev/shm: no huge pages */
};

/* zk_pool_create flags. */
#define ZK_POOL_CREATE_TMPFS 0x1u      /* never use huge pages */
#define ZK_POOL_CREATE_HUGETLB 0x2u    /* fail unless huge pages are used */

struct zk_pool_params {
    uint32_t nslots;                   /* 1 .. ZK_POOL_MAX_SLOTS */
    uint64_t slot_size;                /* bytes; rounded up to the huge-page size */
    const char *dir;                   /* backing directory; NULL = automatic */
    const int *numa_nodes;             /* slots spread round-robin over these */
    unsigned n_numa_nodes;             /* 0 = no placement */
    unsigned flags;                    /* ZK_POOL_CREATE_* */
};

/* What zk_pool_create did, or why it failed (filled in both cases). */
struct zk_pool_create_result {
    int backing;                       /* enum zk_pool_backing, 0 if unknown */
    char file[4096];                   /* the backing file (may differ from path) */
    uint64_t file_size;
    uint64_t page_size;                /* alignment of every slot's data */
    uint64_t pages_needed;             /* hugetlbfs: pages the pool needs */
    uint64_t pages_free;               /* hugetlbfs: free pages at creation */
    uint64_t pages_reserved;           /* hugetlbfs: nr_hugepages at creation */
    int hugepages_unmounted;           /* pages reserved but no hugetlbfs mount */
};

/* zk_pool_attach flags. */
#define ZK_POOL_OBSERVER 0x1u          /* read-only mapping: not registered, no reaping,
                                          the slot data only where the caller may read it */
#define ZK_POOL_NO_REAP 0x2u           /* never run the reaper (test control only) */
#define ZK_POOL_CHECK_TRUST 0x4u       /* an observer that applies the writers' trust checks */

struct zk_diag;                        /* zk/binfile.h */

struct zk_pool_attach_opts {
    const char *name;                  /* role shown by `pool status` (<= 15 chars) */
    unsigned flags;                    /* ZK_POOL_OBSERVER, ZK_POOL_NO_REAP */
    unsigned tick_ms;                  /* wait tick (rescan + reap); 0 = 100 ms */
    struct zk_diag *diag;              /* may be NULL: a failed attach's one-line cause */
};

typedef struct zk_pool zk_pool;

/* A slot held by the caller (FILLING for a producer, CLAIMED for a consumer). */
struct zk_slot {
    uint32_t index;
    int numa_node;                     /* -1 when unplaced */
    unsigned char *data;               /* slot data in this process's mapping */
    uint64_t capacity;                 /* usable bytes at data */
    uint64_t partition_id, key_id;
    uint32_t nregions;
    uint64_t region_off[ZK_POOL_MAX_REGIONS];
    uint64_t region_bytes[ZK_POOL_MAX_REGIONS];
    uint64_t checksum;                 /* XXH3-64 of the regions, in order */
    uint64_t fill_ns, claim_ns;        /* CLOCK_REALTIME of publish / claim */
    uint32_t priority;                 /* as published (zk_slot_desc) */
    uint64_t deadline_ns;
    uint64_t word;                     /* private: the state word held */
};

/* What a producer publishes: the data regions, in checksum order. */
struct zk_slot_desc {
    uint32_t nregions;                 /* 0 .. ZK_POOL_MAX_REGIONS */
    uint64_t region_off[ZK_POOL_MAX_REGIONS];
    uint64_t region_bytes[ZK_POOL_MAX_REGIONS];
    int have_checksum;                 /* checksum below is already computed */
    uint64_t checksum;
    /* claim order (zk_pool_claim): enum zk_priority (zk/priority.h) and
     * the job's deadline (CLOCK_REALTIME, 0 = none); hints for the order
     * only: a consumer checks what it proves against the slot's data */
    uint32_t priority;
    uint64_t deadline_ns;
};

/* Streaming fill: copies into a slot and hashes each chunk while it is hot. */
struct zk_pool_writer {
    unsigned char state[640] __attribute__((aligned(64))); /* private XXH3 state */
    struct zk_slot *slot;
    uint64_t cursor;
    struct zk_slot_desc desc;
};

/* zk_pool_claim flags. */
#define ZK_POOL_CLAIM_NOVERIFY 0x1u    /* skip the checksum (caller verifies later) */

/* A snapshot of one slot for status displays (racy by nature). */
struct zk_pool_slot_info {
    uint32_t index;
    int state;                         /* enum zk_slot_state */
    int numa_node;
    int32_t owner_pid;                 /* FILLING/CLAIMED; else 0 */
    int owner_alive;                   /* 1 alive, 0 dead, -1 not applicable */
    uint64_t partition_id, key_id;
    uint64_t bytes;                    /* sum of the region sizes */
    uint64_t capacity;
    uint64_t state_ns;                 /* CLOCK_REALTIME of the last transition */
    uint64_t fill_ns, claim_ns;
    uint64_t checksum;
    uint32_t priority;                 /* READY/CLAIMED: as published */
    uint64_t deadline_ns;
    int reserved;                      /* in this handle's reserve (zk_pool_set_reserve) */
};

enum zk_pool_counter {
    ZK_PC_ACQUIRED, ZK_PC_PUBLISHED, ZK_PC_ABANDONED, ZK_PC_CLAIMED,
    ZK_PC_UNCLAIMED, ZK_PC_RELEASED, ZK_PC_REAPED_FILLING,
    ZK_PC_REAPED_CLAIMED, ZK_PC_CHECKSUM_FAIL, ZK_PC_RESYNC,
    ZK_PC_COUNT
};

struct zk_pool_info {
    int backing;
    uint32_t nslots;
    uint64_t slot_size;                /* usable bytes per slot */
    uint64_t page_size;
    uint64_t file_size;
    uint64_t created_ns;
    int sem_free, sem_ready;           /* current semaphore values */
    uint32_t count[4];                 /* slots per enum zk_slot_state */
    uint32_t attached_live, attached_dead;
    uint64_t counters[ZK_PC_COUNT];
};

/* One registered process, for status displays. */
struct zk_pool_attach_info {
    int32_t pid;
    int alive;
    uint64_t attach_ns;
    char name[16];
};

/* What one reaper pass did. */
struct zk_pool_reap_stats {
    uint32_t filling_freed;            /* FILLING(dead) -> FREE */
    uint32_t claimed_requeued;         /* CLAIMED(dead) -> READY */
    uint32_t attach_cleared;           /* dead attach entries removed */
    int resynced;                      /* semaphores set to the state counts */
    int free_adjust, ready_adjust;     /* permits added (+) or taken (-) */
};

/* Called for every slot the reaper recovers (partition back to the ledger). */
typedef void (*zk_pool_reap_fn)(void *ctx, uint32_t index, int old_state,
                                int32_t dead_pid, uint64_t partition_id);
/* Called once per violation found by zk_pool_check. */
typedef void (*zk_pool_violation_fn)(void *ctx, const char *msg);

/* zk_pool_reap flags. */
#define ZK_POOL_REAP_RESYNC 0x1u       /* also repair semaphore values if quiescent */

/*
 * Parses "123", "64K", "16M", "2G", "1T" (binary multiples, optional
 * trailing "B"/"iB") into *ret_bytes.  -EINVAL on garbage, -ERANGE on
 * overflow; *ret_bytes untouched on failure.
 */
int zk_pool_parse_size(const char *s, uint64_t *ret_bytes);

/*
 * Creates the pool file at `path` (the well-known name).  The data lives in
 * p->dir when given, else on a hugetlbfs mount when huge pages are reserved,
 * else next to `path` (tmpfs).  When the data file is not `path`, `path`
 * becomes a symlink to it.  The whole size is reserved with fallocate, so a
 * shortage fails here: ZK_ENOHUGEPAGES with res->pages_needed/pages_free set
 * (nothing left behind).  -EEXIST when a pool is already at `path`.
 * `res` may be NULL; it is filled on success and on failure.
 */
int zk_pool_create(const char *path, const struct zk_pool_params *p,
                   struct zk_pool_create_result *res);

/* Bytes of caller memory a zk_pool handle needs (aligned like max_align_t). */
size_t zk_pool_sizeof(void);

/*
 * Maps the pool at `path` into `h` (caller memory of zk_pool_sizeof()
 * bytes), validates magic, layout version and geometry (ZK_EBADMAGIC,
 * ZK_EVERSION, ZK_EPOOL_LAYOUT; never a crash on a foreign or truncated
 * file), registers the process in the attach table (-EUSERS when full)
 * and runs the reaper, unless opts says otherwise.  opts may be NULL.
 * On failure nothing stays mapped or registered; opts->diag (when set)
 * says why in one line naming the file.
 *
 * A pool is two files: the control file at `path` (0640: header, attach
 * and slot tables) and the slot data beside it ("<file>.data", 0600).
 * Writers open both read-write, so only the pool's owner (the daemons'
 * user) and root attach without ZK_POOL_OBSERVER; anyone else gets
 * -EACCES, the cause saying who may write the pool.  An observer maps the
 * control file read-only and the data only where it may read it.
 *
 * Trust (writers, and observers with ZK_POOL_CHECK_TRUST; observers map
 * read-only): the file must be a
 * regular file owned by the caller's effective user, by root, or by the
 * owner of its directory when others cannot write that directory (so
 * root, and operators as observers, may use the pool in /run/zkslot, user
 * zkslot's, but not one another user left in /dev/shm), not writable by others,
 * and group-writable only for a group the caller is in; `path` may be a
 * symlink (a hugetlbfs data file) only when the link passes the same
 * owner rule, and its target is opened without following another link.  Else ZK_EUNTRUSTED, the cause naming the
 * file, its owner and its mode.  A writer's data file must be a regular
 * file of the control file's owner, mode 0600.  The geometry is copied into `h` here and
 * never re-read from the file.
 */
int zk_pool_attach(zk_pool *h, const char *path, const struct zk_pool_attach_opts *opts);

/* Unregisters and unmaps.  Accepts a never-attached (zeroed) handle.  Cannot fail. */
void zk_pool_detach(zk_pool *h);

/*
 * Removes the pool at `path` (and its backing file).  Refused with ZK_EBUSY
 * while another live process is attached, unless `force`; *ret_live (may
 * be NULL) receives the number of live attached processes.  Processes that
 * still map the pool keep their memory until they detach.
 */
int zk_pool_destroy(const char *path, int force, unsigned *ret_live);

/*
 * Producer: takes a FREE slot and marks it FILLING(this process), recording
 * partition_id/key_id (ZK_POOL_NO_ID if unknown) for the reaper.
 * timeout_ms < 0 waits forever, 0 tries once.  `cancel` (may be NULL) is
 * polled every tick; nonzero -> ZK_ECANCELED.  ZK_ETIMEOUT on timeout.
 * *ret is written only on success.
 */
int zk_pool_acquire(zk_pool *h, uint64_t partition_id, uint64_t key_id,
                    int timeout_ms, const zk_cancel_flag *cancel, struct zk_slot *ret);

/*
 * Reserved capacity (docs/scheduling.md): the last n slots of the table
 * are taken only by zk_pool_acquire_class at class min_class or above, so
 * that urgent work finds a slot when the rest of the pool is full of
 * lower work.  A setting of this handle (every producer of a pool sets
 * the same, from the configuration); n is capped at nslots - 1 so that
 * some slot is left for every class.  Returns the n in force.
 */
uint32_t zk_pool_set_reserve(zk_pool *h, uint32_t n, int min_class);

/*
 * zk_pool_acquire for work of class cls (enum zk_priority): a class below
 * the reserve's takes only unreserved slots; one at or above it takes an
 * unreserved slot when there is one, else a reserved one.  *ret->index
 * tells which (zk_pool_slot_reserved).  zk_pool_acquire is class low.
 */
int zk_pool_acquire_class(zk_pool *h, uint64_t partition_id, uint64_t key_id, int cls,
                          int timeout_ms, const zk_cancel_flag *cancel, struct zk_slot *ret);
/* 1 when slot index is in this handle's reserve, else 0. */
int zk_pool_slot_reserved(const zk_pool *h, uint32_t index);

/*
 * Producer: sets the partition and key ids of a FILLING slot taken with
 * ZK_POOL_NO_ID (the slot is the permit, taken before the work is known).
 * ZK_ESTATE if the slot is no longer ours.
 */
int zk_pool_set_ids(zk_pool *h, struct zk_slot *s, uint64_t partition_id, uint64_t key_id);

/*
 * Producer: records the regions and checksum (computed here unless
 * d->have_checksum) and turns FILLING into READY(partition), waking one
 * consumer.  ZK_ERANGE if a region lies outside the slot, ZK_ESTATE if the
 * slot is no longer ours (reaped); the slot is then not touched.
 */
int zk_pool_publish(zk_pool *h, struct zk_slot *s, const struct zk_slot_desc *d);

/* Producer: gives a FILLING slot back (FREE) without publishing.  ZK_ESTATE if not ours. */
int zk_pool_abandon(zk_pool *h, struct zk_slot *s);

/*
 * Consumer: claims the READY slot of the highest priority (as published),
 * then the earliest deadline (none last), then slots on `preferred_node`
 * (ZK_POOL_ANY_NODE for none), then the oldest, and marks it
 * CLAIMED(this process).  Timeout and cancel as for acquire.  The checksum
 * is verified unless ZK_POOL_CLAIM_NOVERIFY: on mismatch ZK_ECHECKSUM is
 * returned with *ret filled and the slot still CLAIMED by the caller, who
 * must release it (and re-queue the partition).
 */
int zk_pool_claim(zk_pool *h, int preferred_node, unsigned flags, int timeout_ms,
                  const zk_cancel_flag *cancel, struct zk_slot *ret);

/*
 * Consumer, without waiting: claims the first READY slot in claim order
 * whose class (as published) is min_priority or above, as zk_pool_claim
 * would (checksum verified: ZK_ECHECKSUM with the slot claimed, as there).
 * ZK_ETIMEOUT when there is none.  gpud asks this between the steps of a
 * long proof, for a partition too urgent to wait for it.
 */
int zk_pool_claim_class(zk_pool *h, int preferred_node, uint32_t min_priority,
                        struct zk_slot *ret);

/* Consumer: CLAIMED -> FREE, waking one producer.  ZK_ESTATE if not ours. */
int zk_pool_release(zk_pool *h, struct zk_slot *s);

/* Consumer: CLAIMED -> READY (hand the partition back unprocessed).  ZK_ESTATE if not ours. */
int zk_pool_unclaim(zk_pool *h, struct zk_slot *s);

/* Recomputes the checksum of a held slot: 0 or ZK_ECHECKSUM. */
int zk_pool_verify(const zk_pool *h, const struct zk_slot *s);

/*
 * Streaming fill: w->desc collects regions.  region() starts a new region
 * at byte offset `off` (>= the end of the previous one), put() appends n
 * bytes to it, finish() completes w->desc (checksum included) for
 * zk_pool_publish.  put/region return ZK_ERANGE past the slot's end.
 */
void zk_pool_writer_init(struct zk_pool_writer *w, struct zk_slot *s);
int zk_pool_writer_region(struct zk_pool_writer *w, uint64_t off);
int zk_pool_writer_put(struct zk_pool_writer *w, const void *src, size_t n);
const struct zk_slot_desc *zk_pool_writer_finish(struct zk_pool_writer *w);

/*
 * Reaper: FILLING(dead) -> FREE and CLAIMED(dead) -> READY, posting the
 * matching semaphore; clears dead attach entries.  With
 * ZK_POOL_REAP_RESYNC and no other live attached process, the semaphore
 * values are also set to the FREE/READY counts; use it only while no other
 * thread of this process uses the pool (e.g. at daemon start).
 * Idempotent; fn (may be NULL) is told about each recovered slot;
 * stats may be NULL.  Returns 0, or ZK_ESTATE for an observer handle.
 */
int zk_pool_reap(zk_pool *h, unsigned flags, zk_pool_reap_fn fn, void *ctx,
                 struct zk_pool_reap_stats *stats);

/* Geometry, state counts, semaphore values and counters.  Cannot fail. */
void zk_pool_info(const zk_pool *h, struct zk_pool_info *ret);

/* The attached control file's mapping (header, attach and slot tables).
 * 0, or ZK_ESTATE when not attached. */
int zk_pool_mapping(const zk_pool *h, void **ret_base, size_t *ret_len);

/* The attached slot data's mapping (every slot): for page-locking it once
 * for a GPU (cudaHostRegister) or keeping it out of core dumps.  0, or
 * ZK_ESTATE when not attached or not mapped (an observer that may not
 * read the data file). */
int zk_pool_data_mapping(const zk_pool *h, void **ret_base, size_t *ret_len);

/* 1 when this handle maps the slot data (writers; observers running as
 * the pool's owner or root), else 0. */
int zk_pool_data_readable(const zk_pool *h);

/* Status iterator: a snapshot of slot `index`.  ZK_ERANGE past the end. */
int zk_pool_slot_info(const zk_pool *h, uint32_t index, struct zk_pool_slot_info *ret);

/* Attach-table iterator: entry `i` (0 .. ZK_POOL_MAX_ATTACH-1); -ENOENT if empty. */
int zk_pool_attach_info(const zk_pool *h, unsigned i, struct zk_pool_attach_info *ret);

/*
 * Verifies the invariants: valid state words, no dead owner, checksums of
 * READY slots, semaphore values (exactly equal to the FREE/READY counts
 * when no other live process is attached, in range otherwise, or above it
 * by a surplus zk_pool_check_notes explains), no dead
 * attach entry.  Calls fn once per violation; returns how many (>= 0).
 */
int zk_pool_check(const zk_pool *h, zk_pool_violation_fn fn, void *ctx);

/*
 * zk_pool_check, and note (NULL: none) once per finding that is expected,
 * not a violation: a READY slot that fails its checksum after a consumer
 * held it since its publish (reaped from a dead consumer, or un-claimed),
 * as gpud's CPU backend leaves it, since it proves in place; its next claim
 * drops it and the partition is synthesized again; and, while other
 * processes are attached, a semaphore above the slot count by at most
 * ZK_POOL_MAX_ATTACH (a take without a permit that raced a publish or a
 * release: the next takes absorb it).  Returns the violations.
 */
int zk_pool_check_notes(const zk_pool *h, zk_pool_violation_fn fn, zk_pool_violation_fn note,
                        void *ctx);

/* Name of a slot state ("FREE", ...). */
const char *zk_slot_state_name(int state);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_POOL_H */
