/*
 * scrub.c -- a released slot does not keep the previous partition's
 * witness readable (scrub.h).  The pool file is readable by the daemons'
 * group, and a FREE slot waits there until the next producer overwrites
 * it; zeroing on the way to FREE bounds a witness's life in the pool to
 * its partition's.  Costs one memset of the data (docs/pool.md).
 */
#include <string.h>

#include "pool/atomics.h"
#include "pool/layout.h"
#include "pool/scrub.h"

void pool_slot_scrub(const struct zk_pool *h, uint32_t i, int filling)
{
    struct pool_slot *s = pool_slot(h, i);
    unsigned char *data = pool_slot_data(h, i);
    /* Relaxed: the caller holds the slot; its acquire ordered these. */
    if (filling) {
        if (zk_load_relaxed(&s->partition_id) != ZK_POOL_NO_ID)
            memset(data, 0, h->slot_size);
        return;
    }
    uint64_t n = zk_load_relaxed(&s->nregions);
    if (n > ZK_POOL_MAX_REGIONS) {        /* a forged table: all of it */
        memset(data, 0, h->slot_size);
        return;
    }
    for (uint64_t r = 0; r < n; r++) {
        uint64_t off = zk_load_relaxed(&s->region_off[r]);
        uint64_t len = zk_load_relaxed(&s->region_bytes[r]);
        if (off > h->slot_size || len > h->slot_size - off) {
            memset(data, 0, h->slot_size);
            return;
        }
        memset(data + off, 0, len);
    }
}
