/*
 * test_synthpart.c -- the one path of a partition into the pool
 * (zk/synthpart.h) against a real ledger (SQLite) and pool (tmpfs), one
 * slot:
 *   - a take whose claim finds nothing: the claim's error, the slot FREE
 *     again, *ret untouched; a take with the pool full: the pool's
 *     ZK_ETIMEOUT, the claim never called;
 *   - a take: slot FILLING, partition synthesizing by us with the slot
 *     recorded;
 *   - a publish whose statement cannot be recorded: the slot still
 *     FILLING, nothing READY; handed back without a note: slot FREE,
 *     partition left synthesizing; with one: queued, the note recorded; a
 *     second hand-back: the pool's ZK_ESTATE;
 *   - a publish: the statement of the slot's public signals in the ledger
 *     (through the runner), the header (ids, sizes, class, witness time),
 *     READY; ready: the ledger's ready, then ZK_ESTATE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zk/error.h"
#include "zk/ledger.h"
#include "zk/pool.h"
#include "zk/slotfmt.h"
#include "zk/statement.h"
#include "zk/synthpart.h"
#include "zktest.h"

#define HASH "0123456789abcdef0123456789abcdef"

static struct zk_proc_id me;
static zk_ledger *l;
static zk_pool *pool;
static int64_t key_id, job_id;
static unsigned claims, runs;
static int fail_runs;

/* The test's claim step: the oldest queued partition, counted. */
static int claim(void *ctx, const struct zk_slot *s, struct zk_ledger_part *ret,
                 struct zk_diag *diag)
{
    (void)ctx;
    claims++;
    return zk_ledger_claim_queued(l, &me, (int32_t)s->index, ret, diag);
}

/* The test's runner: counts, and fails every write while fail_runs. */
static int runner(void *ctx, zk_synthpart_op op, void *op_ctx, const char *what,
                  struct zk_diag *diag)
{
    (void)ctx;
    runs++;
    if (fail_runs)
        return zk_diag_set(diag, "ledger", ZK_ELEDGER, "%s: disk full (test)", what);
    return op(op_ctx, diag);
}

static unsigned slots_in(int st)
{
    struct zk_pool_info pi;
    zk_pool_info(pool, &pi);
    return pi.count[st];
}

static struct zk_ledger_part part_get(int64_t id)
{
    struct zk_ledger_part p;
    memset(&p, 0, sizeof p);
    p.state = -1;
    ZT_CHECK(zk_ledger_part_get(l, id, &p, NULL) == 0, "part_get %lld", (long long)id);
    return p;
}

static void test_take_failures(const struct zk_synthpart_writer *w)
{
    struct zk_synthpart t, held;
    struct zk_diag d = { "" };
    int step = 0, r;

    /* nothing queued: the claim's answer, the slot given back */
    memset(&t, 0xAA, sizeof t);
    r = zk_synthpart_take(w, ZK_PRIO_LOW, 0, NULL, claim, NULL, &t, &step, &d);
    ZT_CHECK(r == -ENOENT && step == ZK_SYNTHPART_CLAIM && claims == 1, "%d %d %s", r, step,
             d.msg);
    ZT_CHECK(slots_in(ZK_SLOT_FREE) == 1, "a failed claim kept its slot");
    ZT_CHECK(((unsigned char *)&t)[0] == 0xAA && t.p.id == (int64_t)0xAAAAAAAAAAAAAAAAULL,
             "a failed take wrote *ret");

    /* the one slot held: the next take fails at the slot, no claim */
    const char *wit[2] = { "/w/0.wtns", "/w/1.wtns" };
    ZT_REQUIRE(zk_ledger_job_submit(l, key_id, NULL, wit, 2, &job_id, &d) == 0, , "%s", d.msg);
    claims = 0;
    r = zk_synthpart_take(w, ZK_PRIO_LOW, 0, NULL, claim, NULL, &held, &step, &d);
    ZT_REQUIRE(r == 0 && claims == 1, , "%d %s", r, d.msg);
    r = zk_synthpart_take(w, ZK_PRIO_LOW, 0, NULL, claim, NULL, &t, &step, &d);
    ZT_CHECK(r == ZK_ETIMEOUT && step == ZK_SYNTHPART_SLOT && claims == 1 &&
             strstr(d.msg, "taking a slot"), "%d %d %u %s", r, step, claims, d.msg);
    ZT_CHECK(zk_synthpart_abandon(w, &held, "test", &d) == 0, "%s", d.msg);
}

/* Takes a partition, checks it is ours; 0 or -1. */
static int take(const struct zk_synthpart_writer *w, struct zk_synthpart *t)
{
    struct zk_diag d = { "" };
    int r = zk_synthpart_take(w, ZK_PRIO_LOW, 1000, NULL, claim, NULL, t, NULL, &d);
    ZT_REQUIRE(r == 0, -1, "take: %d %s", r, d.msg);
    struct zk_ledger_part p = part_get(t->p.id);
    ZT_CHECK(slots_in(ZK_SLOT_FILLING) == 1, "the slot is not FILLING");
    ZT_CHECK(p.state == ZK_PART_SYNTHESIZING && p.slot == (int32_t)t->s.index &&
             p.owner.pid == me.pid && p.job_id == job_id, "state %d slot %d", p.state, p.slot);
    /* a witness: w[0] = 1, the one public signal 7, the rest 0 */
    uint64_t need = zk_slotfmt_layout(4, 4, &t->d);
    ZT_REQUIRE(need && need <= t->s.capacity, -1, "layout %llu", (unsigned long long)need);
    uint8_t *wv = t->s.data + t->d.region_off[ZK_SLOTFMT_W];
    memset(wv, 0, 4 * 32);
    wv[0] = 1;
    wv[32] = 7;
    return 0;
}

static void test_handback(const struct zk_synthpart_writer *w,
                          const struct zk_zkey_header *kh)
{
    struct zk_synthpart t;
    struct zk_diag d = { "" };
    if (take(w, &t))
        return;
    fail_runs = 1;
    int r = zk_synthpart_publish(w, &t, HASH, kh, 0.5, -1, &d);
    fail_runs = 0;
    ZT_CHECK(r == ZK_ELEDGER && strstr(d.msg, "recording a statement"), "%d %s", r, d.msg);
    ZT_CHECK(slots_in(ZK_SLOT_FILLING) == 1 && slots_in(ZK_SLOT_READY) == 0,
             "a publish whose statement failed changed the slot");
    ZT_CHECK(part_get(t.p.id).statement[0] == 0, "a statement recorded");

    /* without a note: the slot only */
    ZT_CHECK(zk_synthpart_abandon(w, &t, NULL, &d) == 0, "%s", d.msg);
    ZT_CHECK(slots_in(ZK_SLOT_FREE) == 1, "the slot is not FREE");
    ZT_CHECK(part_get(t.p.id).state == ZK_PART_SYNTHESIZING, "requeued without a note");
    ZT_CHECK(zk_ledger_part_requeue(l, t.p.id, ZK_PART_SYNTHESIZING, &me, "x", &d) == 0, "%s",
             d.msg);

    /* with one: requeued; again: the slot is no longer ours */
    if (take(w, &t))
        return;
    ZT_CHECK(zk_synthpart_abandon(w, &t, "handed back (test)", &d) == 0, "%s", d.msg);
    struct zk_ledger_part p = part_get(t.p.id);
    ZT_CHECK(p.state == ZK_PART_QUEUED && strstr(p.error, "handed back (test)"), "%d %s",
             p.state, p.error);
    r = zk_synthpart_abandon(w, &t, "again", &d);
    ZT_CHECK(r == ZK_ESTATE && strstr(d.msg, "reaped"), "%d %s", r, d.msg);
}

static void test_publish(const struct zk_synthpart_writer *w, const struct zk_zkey_header *kh)
{
    struct zk_synthpart t;
    struct zk_slotfmt_header h;
    struct zk_diag d = { "" };
    char want[ZK_STATEMENT_LEN];
    if (take(w, &t))
        return;
    runs = 0;
    int r = zk_synthpart_publish(w, &t, HASH, kh, 0.25, 0.0004, &d);
    ZT_REQUIRE(r == 0 && runs == 1, , "%d %u %s", r, runs, d.msg);
    ZT_CHECK(slots_in(ZK_SLOT_READY) == 1, "not READY");
    memcpy(&h, t.s.data, sizeof h);
    ZT_CHECK(h.magic == ZK_SLOTFMT_MAGIC && h.version == ZK_SLOTFMT_VERSION &&
             h.curve == ZK_CURVE_BN254 && h.partition_id == (uint64_t)t.p.id &&
             h.key_id == (uint64_t)key_id && h.n_vars == 4 && h.n_public == 1 &&
             h.domain_size == 4 && h.synth_ns == 250000000 && h.witness_ms == 1 &&
             h.attempt == t.p.attempts && h.priority == (uint32_t)t.p.priority,
             "header: part %llu key %llu synth %llu witness %u", (unsigned long long)h.partition_id,
             (unsigned long long)h.key_id, (unsigned long long)h.synth_ns, h.witness_ms);
    zk_statement(HASH, (const zk_scalar *)(t.s.data + t.d.region_off[ZK_SLOTFMT_W]) + 1, 1,
                 want);
    ZT_CHECK(!strcmp(part_get(t.p.id).statement, want), "statement %s, want %s",
             part_get(t.p.id).statement, want);

    r = zk_synthpart_ready(w, &t, 0.3, -1, &d);
    struct zk_ledger_part p = part_get(t.p.id);
    ZT_CHECK(r == 0 && p.state == ZK_PART_READY && p.synth_s > 0.29 && p.synth_s < 0.31,
             "%d state %d synth %.3f %s", r, p.state, p.synth_s, d.msg);
    ZT_CHECK(zk_synthpart_ready(w, &t, 0.3, -1, &d) == ZK_ESTATE, "ready twice");
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/zkt-synthpart-XXXXXX", db[300], pool_path[300];
    struct zk_diag d = { "" };
    zt_init(argc, argv);
    ZT_REQUIRE(mkdtemp(dir) && zk_proc_self(&me) == 0, 1, "setup");
    snprintf(db, sizeof db, "%s/ledger.db", dir);
    snprintf(pool_path, sizeof pool_path, "/dev/shm/zkt-synthpart-%d.pool", (int)getpid());
    struct zk_pool_params pp = { .nslots = 1, .slot_size = 1 << 20,
                                 .flags = ZK_POOL_CREATE_TMPFS };
    struct zk_pool_attach_opts ao = { .name = "test", .tick_ms = 10 };
    struct zk_ledger_key k;
    memset(&k, 0, sizeof k);
    snprintf(k.name, sizeof k.name, "t");
    snprintf(k.path, sizeof k.path, "/keys/t.zkey");
    snprintf(k.curve, sizeof k.curve, "bn128");
    snprintf(k.hash, sizeof k.hash, HASH);
    k.file_size = 1000;
    k.n_vars = 4;
    k.n_public = 1;
    k.domain_size = 4;
    pool = calloc(1, zk_pool_sizeof());
    int r = zk_ledger_open(db, ZK_LEDGER_CREATE, 1000, &l, &d);
    if (!r && !(r = zk_ledger_key_add(l, &k, &d)))
        key_id = k.id;
    if (!r && !(r = zk_pool_create(pool_path, &pp, NULL)))
        r = zk_pool_attach(pool, pool_path, &ao);
    ZT_CHECK(r == 0 && pool, "setup: %d %s", r, d.msg);
    if (r == 0) {
        struct zk_zkey_header kh;
        memset(&kh, 0, sizeof kh);
        kh.curve = ZK_CURVE_BN254;
        kh.n_vars = 4;
        kh.n_public = 1;
        kh.domain_size = 4;
        const struct zk_synthpart_writer w = { pool, l, &me, runner, NULL };
        test_take_failures(&w);
        test_handback(&w, &kh);
        test_publish(&w, &kh);
        zk_pool_detach(pool);
    }
    free(pool);
    zk_ledger_close(l);
    zk_pool_destroy(pool_path, 1, NULL);
    zt_rmtree(dir);
    return zt_finish();
}
