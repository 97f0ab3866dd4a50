/*
 * recover.c -- the recovery pass of every daemon: reap the pool, then
 * reconcile the ledger with what the slots hold.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/zkd.h"
#include "util/testhook.h"
#include "zk/error.h"

struct held {
    zk_pool *pool;
    int scanned, err;
    uint64_t *ids;
    size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The slots that hold a partition (READY or CLAIMED), sorted.  Scanned on
 * the first question only: the ledger has read its candidates by then, so
 * a partition published after the scan cannot look lost (ledger.h). */
static void scan(struct held *h)
{
    struct zk_pool_info info;

    h->scanned = 1;
    if (!h->pool)
        return;
    zk_pool_info(h->pool, &info);
    h->ids = malloc((info.nslots ? info.nslots : 1) * sizeof *h->ids);
    if (!h->ids) {
        h->err = -ENOMEM;
        return;
    }
    for (uint32_t i = 0; i < info.nslots; i++) {
        struct zk_pool_slot_info si;
        if (zk_pool_slot_info(h->pool, i, &si) == 0 &&
            (si.state == ZK_SLOT_READY || si.state == ZK_SLOT_CLAIMED) &&
            si.partition_id != ZK_POOL_NO_ID)
            h->ids[h->n++] = si.partition_id;
    }
    qsort(h->ids, h->n, sizeof *h->ids, cmp_u64);
}

static int slot_holds(void *ctx, int64_t part_id)
{
    struct held *h = ctx;
    uint64_t key = (uint64_t)part_id;
    if (!h->scanned)
        scan(h);
    if (h->err)
        return 1;   /* cannot tell: presume held, move nothing */
    return h->n && bsearch(&key, h->ids, h->n, sizeof key, cmp_u64) != NULL;
}

int zkd_recover(zk_pool *pool, unsigned reap_flags, zk_ledger *l, int check_ready,
                uint32_t max_attempts, struct zkd_recovery *ret, struct zk_diag *diag)
{
    struct zkd_recovery rec;
    struct held h = { pool, 0, 0, NULL, 0 };
    int r;

    memset(&rec, 0, sizeof rec);
    /* Test hook: while the file ZKSLOT_TEST_NO_RECOVERY names exists, the
     * pass moves nothing.  The crash tests' control: with it, what a killed
     * daemon held must stay stuck, or the tests could not see recovery. */
    const char *off = zk_test_hook("ZKSLOT_TEST_NO_RECOVERY");
    if (off && *off && access(off, F_OK) == 0) {
        if (ret)
            *ret = rec;
        return 0;
    }
    if (pool && (r = zk_pool_reap(pool, reap_flags, NULL, NULL, &rec.reap)) < 0)
        return zk_diag_set(diag, "pool", r, "reaping failed: %s", zk_strerror(r));
    r = zk_ledger_reconcile(l, slot_holds, &h, check_ready, max_attempts,
                            &rec.ledger_changed, diag);
    free(h.ids);
    if (r == 0 && ret)
        *ret = rec;
    return r;
}

int zkd_slot_ready_part(zk_ledger *l, const struct zk_slot *s, struct zk_ledger_part *lp)
{
    return s->partition_id <= INT64_MAX &&
           zk_ledger_part_get(l, (int64_t)s->partition_id, lp, NULL) == 0 &&
           lp->state == ZK_PART_READY && lp->slot == (int32_t)s->index &&
           (uint64_t)lp->key_id == s->key_id;
}
