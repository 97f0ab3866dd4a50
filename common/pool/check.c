/*
 * check.c -- zk_pool_check: the invariants `zkslot pool check` reports, and
 * (zk_pool_check_notes) the expected findings that are no violation.  An
 * observer that may not read the slot data (an operator: the data file is
 * the daemons' user's alone) checks everything but the READY checksums,
 * and a note says so.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pool/atomics.h"
#include "pool/layout.h"
#include "zk/error.h"
#include "zk/pool.h"

struct report {
    zk_pool_violation_fn fn, note;
    void *ctx;
    int n;
};

/* One finding: a violation (counted, to r->fn) or a note (not counted, to
 * r->note); either callback may be NULL. */
static void finding(struct report *r, int note, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void finding(struct report *r, int note, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->n += !note;
    zk_pool_violation_fn fn = note ? r->note : r->fn;
    if (fn)
        fn(r->ctx, msg);
}

#define violation(r, ...) finding((r), 0, __VA_ARGS__)

/* A READY slot's checksum, ignoring slots that changed hands while hashed.
 * A slot claimed since its publish (claim_ns is cleared by publish, set by
 * claim, kept by unclaim and by the reaper) was handed back READY by a
 * consumer, possibly one that used it as scratch: gpud's CPU backend
 * proves in place, so after its death such a slot fails its checksum by
 * design (docs/architecture.md, "Decisions"); its next claim drops it and
 * the partition is synthesized again.  That is a note, not a violation. */
static void check_ready(const zk_pool *h, uint32_t i, uint64_t w, struct report *rep)
{
    const struct pool_slot *s = pool_slot(h, i);
    uint64_t seq = zk_load_relaxed(&s->publish_seq);   /* relaxed: after the acquire of w */
    uint64_t want = zk_load_relaxed(&s->checksum);
    uint64_t claimed = zk_load_relaxed(&s->claim_ns);  /* relaxed: checked with seq below */
    uint64_t got = pool_slot_hash(h, i);
    /* Acquire + same seq: nobody claimed and republished it meanwhile. */
    if (zk_load_acquire(&s->state) != w || zk_load_relaxed(&s->publish_seq) != seq)
        return;
    unsigned long long part = (unsigned long long)zk_load_relaxed(&s->partition_id);
    if (got == UINT64_MAX - 1) {
        violation(rep, "slot %u: READY with regions outside the slot", i);
    } else if (got != want && claimed) {
        finding(rep, 1, "slot %u: READY partition %llu fails its checksum after a consumer "
                        "held it (gpud's CPU backend proves in place): expected; its next "
                        "claim drops it and the partition is synthesized again", i, part);
    } else if (got != want) {
        violation(rep, "slot %u: READY partition %llu fails its checksum", i, part);
    }
}

int zk_pool_check(const zk_pool *h, zk_pool_violation_fn fn, void *ctx)
{
    return zk_pool_check_notes(h, fn, NULL, ctx);
}

/*
 * A semaphore's range.  A take without a permit (wait_take after a tick, or
 * with timeout 0: how a permit lost to a crash is recovered) can race a
 * publish or release whose CAS is visible before its sem_post, and leave
 * one permit too many, which the next take that finds no slot absorbs.  So
 * while other processes run, a value above the slot count by at most one
 * per attachable process is a note; beyond that, or negative, a violation.
 */
static void check_sem(struct report *r, const char *name, int v, uint32_t n, int live)
{
    if (v >= 0 && (uint32_t)v <= n)
        return;
    if (live && v > 0 && (uint32_t)v <= n + ZK_POOL_MAX_ATTACH)
        finding(r, 1, "semaphore %s = %d above the %u slots: a surplus left by a take "
                "without a permit that raced a %s (the next takes absorb it)", name, v, n,
                !strcmp(name, "ready") ? "publish" : "release");
    else
        violation(r, "semaphore %s = %d outside [0, %u]", name, v, n);
}

int zk_pool_check_notes(const zk_pool *h, zk_pool_violation_fn fn, zk_pool_violation_fn note,
                        void *ctx)
{
    struct report rep = { fn, note, ctx, 0 };
    uint32_t n = h->nslots, cnt[4] = { 0 };
    for (uint32_t i = 0; i < n; i++) {
        /* Acquire: metadata read by check_ready matches this word. */
        uint64_t w = zk_load_acquire(&pool_slot(h, i)->state);
        int st = word_state(w);
        cnt[st]++;
        if (st == ZK_SLOT_FREE && w != 0)
            violation(&rep, "slot %u: FREE word carries bits 0x%llx", i,
                      (unsigned long long)w);
        if (st == ZK_SLOT_FILLING || st == ZK_SLOT_CLAIMED) {
            int32_t pid = owner_pid(word_low(w));
            if (pid <= 0)
                violation(&rep, "slot %u: %s with no owner", i, zk_slot_state_name(st));
            else if (!pool_owner_alive(h, word_low(w)))
                violation(&rep, "slot %u: %s by dead process %d (needs reaping)", i,
                          zk_slot_state_name(st), (int)pid);
        }
        if (st == ZK_SLOT_READY && h->data)
            check_ready(h, i, w, &rep);
    }
    if (!h->data && cnt[ZK_SLOT_READY])
        finding(&rep, 1, "%u READY slot(s): checksums not verified: the slot data is readable"
                " by the daemons' user and root only", cnt[ZK_SLOT_READY]);
    int vf = -1, vr = -1, live = pool_live_others(h);
    sem_getvalue(&h->hdr->sem_free, &vf);
    sem_getvalue(&h->hdr->sem_ready, &vr);
    check_sem(&rep, "free", vf, n, live);
    check_sem(&rep, "ready", vr, n, live);
    if (live == 0) {
        /* Quiescent: permits must match the slots exactly. */
        if ((uint32_t)vf != cnt[ZK_SLOT_FREE])
            violation(&rep, "semaphore free = %d but %u slots are FREE", vf,
                      cnt[ZK_SLOT_FREE]);
        if ((uint32_t)vr != cnt[ZK_SLOT_READY])
            violation(&rep, "semaphore ready = %d but %u slots are READY", vr,
                      cnt[ZK_SLOT_READY]);
    }
    const struct pool_attach *t = pool_attach_table(h);
    for (int i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
        uint64_t o = zk_load_acquire(&t[i].owner);   /* acquire: pairs with register */
        if (o && !pool_attach_alive(&t[i], o))
            violation(&rep, "attach entry %d: process %d is dead (needs reaping)", i,
                      (int)owner_pid(o));
    }
    return rep.n;
}
