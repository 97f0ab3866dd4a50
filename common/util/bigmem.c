/*
 * bigmem.c -- working memory for the large arrays of the prover (MSM scratch,
 * a/b/c, the key's point sections): from 1 MiB up, anonymous mappings whose
 * whole huge pages are advised
 * to use transparent huge pages, so that touching tens of MiB costs a few
 * dozen page faults instead of thousands (they are expensive in a virtual
 * machine, and each MSM of a proof used to fault its scratch in again).
 *
 * Every block carries a 64-byte header just before the pointer handed out,
 * so zk_big_free needs only the pointer.
 *
 * zk_secret_alloc's blocks (what is derived from a witness) are always a
 * mapping of their own, whatever their size, advised MADV_DONTDUMP: a core
 * dump of the process leaves them out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "zk/util.h"

#define BIG_MIN ((size_t)1 << 20)       /* below: the heap */
#define BIG_HUGE ((size_t)1 << 21)      /* x86-64 huge page */
#define BIG_HDR 64
#define BIG_MAGIC 0x7a6b626967ULL        /* "zkbig" */

struct big_hdr {
    uint64_t magic;
    void *base;                         /* mapping start, or the heap block */
    size_t len;                         /* mapping length; 0: heap */
};

/* n bytes from a huge-page boundary in an anonymous mapping of their own,
 * the header in the page before them; left out of core dumps if dontdump.
 * Only the whole huge pages the n bytes fill are advised: the tail stays
 * in small pages, so a block of 2.1 MiB holds 2.1 MiB of memory, not 4
 * (a small key's sections, a/b/c at 2^15: a third of a proof's peak RSS). */
static void *big_map(size_t n, int dontdump)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (n + page - 1) & ~(page - 1);
    size_t len = span + BIG_HUGE + page;
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uint8_t *p = (uint8_t *)(((uintptr_t)m + page + BIG_HUGE - 1) & ~(uintptr_t)(BIG_HUGE - 1));
    uint8_t *start = p - page, *end = p + span;
    if (start > m)
        munmap(m, (size_t)(start - m));
    if (m + len > end)
        munmap(end, (size_t)(m + len - end));
#ifdef MADV_HUGEPAGE
    if (n >= BIG_HUGE)                      /* advice: fine if refused */
        (void)madvise(p, n & ~(BIG_HUGE - 1), MADV_HUGEPAGE);
#endif
    if (dontdump && madvise(start, (size_t)(end - start), MADV_DONTDUMP) != 0) {
        munmap(start, (size_t)(end - start));
        return NULL;
    }
    struct big_hdr *h = (struct big_hdr *)(void *)(p - BIG_HDR);
    *h = (struct big_hdr){ BIG_MAGIC, start, (size_t)(end - start) };
    return p;
}

void *zk_big_alloc(size_t n)
{
    if (n > SIZE_MAX - 2 * BIG_HUGE - BIG_HDR)
        return NULL;
    if (n < BIG_MIN) {
        uint8_t *b = aligned_alloc(64, BIG_HDR + ((n + 63) & ~(size_t)63));
        if (!b)
            return NULL;
        struct big_hdr *h = (struct big_hdr *)(void *)b;
        *h = (struct big_hdr){ BIG_MAGIC, b, 0 };
        return b + BIG_HDR;
    }
    return big_map(n, 0);
}

void *zk_secret_alloc(size_t n)
{
    if (n > SIZE_MAX - 2 * BIG_HUGE - BIG_HDR)
        return NULL;
    return big_map(n ? n : 1, 1);
}

void zk_big_free(void *ptr)
{
    if (!ptr)
        return;
    struct big_hdr *h = (struct big_hdr *)(void *)((uint8_t *)ptr - BIG_HDR);
    if (h->magic != BIG_MAGIC)
        abort();                        /* not ours: a bug, never ignore it */
    h->magic = 0;
    if (h->len)
        munmap(h->base, h->len);
    else
        free(h->base);
}
