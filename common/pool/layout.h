/*
 * layout.h -- the pool's two files as every process sees them (private).
 *
 * The control file (the pool path; 0640: operators read it):
 *   [0, 4096)                       struct pool_hdr
 *   [attach_off, +64 * 64)          struct pool_attach[ZK_POOL_MAX_ATTACH]
 *   [table_off, +nslots * 256)      struct pool_slot[nslots]  (slot headers)
 *   padded to file_size, a multiple of the huge-page size
 * The data file (the control file's name + POOL_DATA_SUFFIX, beside it;
 * 0600: the daemons' user only, since slots hold witnesses):
 *   [i * slot_size, +slot_size)     slot i's data; slot_size is a multiple
 *                                   of the huge-page size, data_size bytes
 *
 * Only offsets are stored; nothing in the files is a pointer.  Changing any
 * structure below means bumping POOL_LAYOUT_VERSION.
 */
#ifndef ZK_COMMON_POOL_LAYOUT_H
#define ZK_COMMON_POOL_LAYOUT_H

#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>

#include "zk/pool.h"

#define POOL_MAGIC 0x314C4F4F504B5AULL /* "ZKPOOL1\0" little-endian */
#define POOL_LAYOUT_VERSION 3u  /* 3: slot data in a file of its own (0600) */
#define POOL_LAYOUT_LEGACY 2u   /* one file, data after the table: destroy only */
#define POOL_DATA_SUFFIX ".data"
#define POOL_HDR_SIZE 4096u
#define POOL_ATTACH_SIZE 64u
#define POOL_SLOT_SIZE 256u
#define POOL_TMPFS_ALIGN (2u << 20)     /* slot alignment on tmpfs: 2 MiB */

/* State word: [63:62] state; FILLING/CLAIMED: [61:40] pid, [39:0] start time
 * (clock ticks since boot, field 22 of /proc/PID/stat); READY: [61:0] the
 * partition id (truncated); FREE: 0. */
#define POOL_STATE_SHIFT 62
#define POOL_PID_SHIFT 40
#define POOL_PID_MASK ((1ULL << 22) - 1)
#define POOL_START_MASK ((1ULL << 40) - 1)
#define POOL_LOW_MASK ((1ULL << 62) - 1)

static inline int word_state(uint64_t w) { return (int)(w >> POOL_STATE_SHIFT); }
static inline uint64_t word_low(uint64_t w) { return w & POOL_LOW_MASK; }
static inline uint64_t word_make(int state, uint64_t low)
{
    return ((uint64_t)state << POOL_STATE_SHIFT) | (low & POOL_LOW_MASK);
}
static inline int32_t owner_pid(uint64_t owner)
{
    return (int32_t)((owner >> POOL_PID_SHIFT) & POOL_PID_MASK);
}

struct pool_hdr {
    uint64_t magic;                 /* 0: written last (release) at creation */
    uint32_t version;               /* 8 */
    uint32_t hdr_size;              /* 12 */
    uint32_t attach_entry_size;     /* 16 */
    uint32_t slot_entry_size;       /* 20 */
    uint32_t nslots;                /* 24 */
    uint32_t attach_max;            /* 28 */
    uint32_t backing;               /* 32: enum zk_pool_backing */
    uint32_t sem_size;              /* 36: sizeof(sem_t) of the creator */
    uint64_t page_size;             /* 40 */
    uint64_t slot_size;             /* 48: bytes per slot, page multiple */
    uint64_t attach_off;            /* 56 */
    uint64_t table_off;             /* 64 */
    uint64_t data_off;              /* 72: 0 (version 2: the data's offset) */
    uint64_t file_size;             /* 80: the control file's size */
    uint64_t created_ns;            /* 88 */
    uint64_t publish_seq;           /* 96: atomic, orders READY slots (FIFO) */
    uint64_t data_size;             /* 104: the data file's size (version 2: 0) */
    uint64_t reserved0[2];          /* 112 */
    uint64_t counters[ZK_PC_COUNT]; /* 128: atomic statistics */
    uint64_t reserved1[16 - ZK_PC_COUNT];
    sem_t sem_free __attribute__((aligned(64)));  /* 256 */
    sem_t sem_ready __attribute__((aligned(64))); /* 320 */
    /* 384: unused since version 2 (was a robust mutex, which glibc aborts
     * on when forged); the attach table is locked with flock() */
    unsigned char reserved2[64] __attribute__((aligned(64)));
    unsigned char pad[POOL_HDR_SIZE - 448];
};

struct pool_attach {
    uint64_t owner;                 /* 0 = empty, else pid/start as in state words */
    uint64_t attach_ns;
    char name[16];
    uint64_t pidns;                 /* 32: the owner's PID namespace (0: not recorded) */
    uint64_t boot;                  /* 40: the owner's boot id digest (0: not recorded) */
    uint64_t btime;                 /* 48: the owner's boot time, zk/proc.h (0: not
                                       recorded; a zkslot before it left it as it was) */
    uint64_t reserved[1];
};

struct pool_slot {
    uint64_t state;                 /* 0: the state word, changed by CAS only */
    uint64_t data_off;              /* 8: in the data file */
    int32_t numa_node;              /* 16 */
    uint32_t index;                 /* 20 */
    uint64_t nregions;              /* 24 */
    uint64_t partition_id;          /* 32 */
    uint64_t key_id;                /* 40 */
    uint64_t checksum;              /* 48 */
    uint64_t publish_seq;           /* 56 */
    uint64_t acquire_ns;            /* 64 */
    uint64_t fill_ns;               /* 72 */
    uint64_t claim_ns;              /* 80 */
    uint64_t state_ns;              /* 88 */
    uint64_t total_bytes;           /* 96 */
    uint64_t priority;              /* 104: enum zk_priority of a READY slot's
                                       partition (0 = low in a pool made before) */
    uint64_t deadline_ns;           /* 112: its job's deadline, 0 = none */
    uint64_t reserved[1];           /* 120 */
    uint64_t region_off[ZK_POOL_MAX_REGIONS];   /* 128 */
    uint64_t region_bytes[ZK_POOL_MAX_REGIONS]; /* 192 */
};

_Static_assert(sizeof(struct pool_hdr) == POOL_HDR_SIZE, "pool header is one page");
_Static_assert(offsetof(struct pool_hdr, counters) == 128, "counters at 128");
_Static_assert(offsetof(struct pool_hdr, data_size) == 104, "data size at 104");
_Static_assert(ZK_PC_COUNT <= 16, "counter space");
_Static_assert(offsetof(struct pool_hdr, sem_free) == 256, "sem_free at 256");
_Static_assert(offsetof(struct pool_hdr, sem_ready) == 320, "sem_ready at 320");
_Static_assert(offsetof(struct pool_hdr, reserved2) == 384, "reserved2 at 384");
_Static_assert(sizeof(sem_t) <= 64, "semaphores fit");
_Static_assert(sizeof(struct pool_attach) == POOL_ATTACH_SIZE, "attach entry size");
_Static_assert(sizeof(struct pool_slot) == POOL_SLOT_SIZE, "slot entry size");
_Static_assert(offsetof(struct pool_slot, region_off) == 128, "regions at 128");
_Static_assert(offsetof(struct pool_slot, region_bytes) == 192, "regions at 192");
_Static_assert(ZK_POOL_MAX_SLOTS - 1 <= UINT32_MAX, "slot index fits");

/* Private attach flag (beside zk/pool.h's): an observer's handle mapped
 * writable (destroy marks the header), with only a symlink's trust check. */
#define POOL_ATTACH_WRITE 0x80000000u

/*
 * The process-local handle (caller memory, zk_pool_sizeof() bytes).
 * The geometry is copied from the header once, when attach validated it,
 * and never read from shared memory again: a process that can write the
 * pool cannot make another one index outside its mapping by rewriting the
 * header.
 */
struct zk_pool {
    struct pool_hdr *hdr;           /* the control file's mapping; NULL when not attached */
    size_t map_len;
    unsigned char *data;            /* the data file's mapping; NULL when this
                                       observer may not read it (or destroy) */
    size_t data_len;
    uint32_t nslots;                /* geometry, from the validated header */
    uint64_t slot_size, page_size, attach_off, table_off;
    uint64_t owner;                 /* this process: pid/start word (0 observer) */
    int fd;                         /* the pool file, open while attached: flock() */
    int32_t pid;                    /* getpid() at attach: detects use after fork */
    int attach_idx;                 /* entry in the attach table, -1 if none */
    unsigned flags;                 /* ZK_POOL_OBSERVER / ZK_POOL_NO_REAP */
    unsigned tick_ms;
    uint32_t scan_start;            /* rotating start for producers (relaxed) */
    uint32_t reserve;               /* zk_pool_set_reserve: the last `reserve` slots */
    int reserve_class;              /* ... are taken only at this class or above */
};

static inline struct pool_attach *pool_attach_table(const struct zk_pool *h)
{
    return (struct pool_attach *)((unsigned char *)h->hdr + h->attach_off);
}

static inline struct pool_slot *pool_slot(const struct zk_pool *h, uint32_t i)
{
    return (struct pool_slot *)((unsigned char *)h->hdr + h->table_off) + i;
}

/* Slot i's data; only where h->data is mapped (writers always are). */
static inline unsigned char *pool_slot_data(const struct zk_pool *h, uint32_t i)
{
    return h->data + (uint64_t)i * h->slot_size;
}

/* proc.c: process identity and liveness. */
/* The owner word of the caller and its identity (namespace and boot for its
 * attach entry); -errno / -EXDEV as zk_proc_self. */
struct zk_proc_id;
int pool_self_owner(uint64_t *ret_owner, struct zk_proc_id *ret_me);
/* Attach entry `a` (owner word read as `owner`): 1 alive or not ours to
 * judge, 0 dead (zk_proc_alive with the entry's namespace and boot). */
int pool_attach_alive(const struct pool_attach *a, uint64_t owner);
/* The holder `owner` of a slot word: judged with the namespace and boot of
 * its attach entry when it has one (a holder in another PID namespace is
 * never judged dead from here).  Cannot fail. */
int pool_owner_alive(const struct zk_pool *h, uint64_t owner);
uint64_t pool_now_ns(void);

/* numa.c: libnuma wrapper with no-op stubs. */
int pool_numa_prefer(int node);     /* 0 or -errno; node < 0 resets */
int pool_numa_node_count(void);     /* >= 1 */

/* pool_internal: shared between pool.c and proto.c. */
int pool_lock(struct zk_pool *h);
void pool_unlock(struct zk_pool *h);
uint64_t pool_slot_hash(const struct zk_pool *h, uint32_t index);
/* Live attached processes other than the caller's own.  Cannot fail. */
unsigned pool_live_others(const struct zk_pool *h);

#endif /* ZK_COMMON_POOL_LAYOUT_H */
