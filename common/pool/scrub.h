/*
 * scrub.h -- a slot keeps nothing of its partition once it is FREE (private).
 */
#ifndef ZK_COMMON_POOL_SCRUB_H
#define ZK_COMMON_POOL_SCRUB_H

#include <stdint.h>

struct zk_pool;

/*
 * Zeroes what slot i may hold of its partition (witness, a, b, c), while
 * the caller still holds it (FILLING or CLAIMED by the caller), before the
 * slot goes FREE.  filling = 0: a published slot, whose regions say what
 * it holds: each region is zeroed.  filling = 1: a slot given up before
 * publish (abandon, or a dead producer's, by the reaper): the regions are
 * not written yet, so the whole slot is zeroed, unless its partition id is
 * ZK_POOL_NO_ID (the producer never learned its work, so wrote nothing).
 */
void pool_slot_scrub(const struct zk_pool *h, uint32_t i, int filling);

#endif
