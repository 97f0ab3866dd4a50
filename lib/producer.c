/*
 * producer.c -- libzkslot's producer face (zkslot.h): an external
 * synthesizer creates a job, takes a free slot and a queued partition of
 * it, writes the witness into the slot, and publishes it for gpud as
 * synthd would; for a bellperson key, zkslot_part_publish_bp does all
 * three with an assignment the caller holds (copied into the slot as a
 * .bpa, checked there as synthd checks one).
 *
 * The path is synthd's own (zk/synthpart.h, shared with synthd/main.c):
 * the slot first (the permit: memory stays bounded, backpressure holds),
 * then the ledger claim (claim_part: queued -> synthesizing(this process),
 * the slot recorded), then the data, the statement, the slot header
 * (zk/slotfmt.h), publish and `ready`.  gpud checks a
 * producer's slot exactly as a synthd's: checksum, header against the key
 * and the ledger's record of the partition and slot.  The owner of the
 * slot and of the claim is this process (pid and start time): killed, its
 * slot is reaped FREE by the next waiter on the pool and its partition
 * goes back to queued by the daemons' reconciliation, for a producer to
 * take again (zkslot_part_take).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "submit_core.h"
#include "zk/bellperson.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/pool.h"
#include "zk/slotfmt.h"
#include "zk/synthpart.h"
#include "zk/zkey.h"
#include "zkslot_internal.h"

struct zkslot_producer {
    zkslot *z;
    zk_pool *pool;
    struct zk_proc_id me;
    int64_t key_id;                    /* the key loaded, 0 = none */
    struct zk_groth16_key *k;
    char key_hash[33];                 /* its registered hash (the statement's) */
    unsigned held;                     /* partitions in hand */
};

/* A partition in hand (zkslot_part.priv). */
struct held {
    struct zk_synthpart part;          /* slot, claim, layout (zk/synthpart.h) */
    struct timespec t0;
};

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* This producer as a writer of the pool (zk/synthpart.h): its ledger
 * writes run once, their failure answered to the caller. */
static struct zk_synthpart_writer writer(const zkslot_producer *p)
{
    return (struct zk_synthpart_writer){ p->pool, p->z->l, &p->me, NULL, NULL };
}

ZKSLOT_EXPORT int zkslot_producer_open(zkslot *z, const char *pool, zkslot_producer **ret,
                                       char *msg, size_t n)
{
    struct zk_diag d = { "" };
    int r;
    if (!z || !ret)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_producer_open: no handle");
    if (z->producer)
        return zkslot_say(msg, n, ZK_ESTATE, "zkslot_producer_open: this handle has a "
                          "producer already");
    zkslot_producer *p = calloc(1, sizeof *p);
    if (!p || !(p->pool = calloc(1, zk_pool_sizeof()))) {
        free(p);
        return zkslot_say(msg, n, -ENOMEM, "zkslot_producer_open: out of memory");
    }
    if ((r = zk_proc_self(&p->me)) < 0) {
        free(p->pool);
        free(p);
        return zkslot_say(msg, n, r, "/proc/self: %s", zk_strerror(r));
    }
    struct zk_pool_attach_opts ao = { "producer", 0, 0, &d };
    const char *path = pool && *pool ? pool : z->cfg.pool;
    if ((r = zk_pool_attach(p->pool, path, &ao)) < 0) {
        free(p->pool);
        free(p);
        return zkslot_say(msg, n, r, "%s", d.msg[0] ? d.msg : zk_strerror(r));
    }
    zk_pool_set_reserve(p->pool, z->cfg.pool_reserve, z->cfg.pool_reserve_class);
    p->z = z;
    z->producer = p;
    *ret = p;
    return zkslot_say(msg, n, 0, "%s", "");
}

ZKSLOT_EXPORT void zkslot_producer_close(zkslot_producer *p)
{
    if (!p)
        return;
    zk_pool_detach(p->pool);
    free(p->pool);
    zk_groth16_key_free(p->k);
    p->z->producer = NULL;
    free(p);
}

ZKSLOT_EXPORT int zkslot_job_create(zkslot_producer *p, const char *key, uint32_t nparts,
                                    const struct zkslot_submit_opts *o, int64_t *ret_job,
                                    char *msg, size_t n)
{
    struct zk_ledger_key k;
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    int64_t id = 0;
    int r;
    if (!p || !nparts || nparts > 1u << 20 || !ret_job)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_job_create: no producer, "
                          "partitions (1 .. 2^20) or job id");
    zkslot *z = p->z;
    if ((r = zkslot_key_for_job(z, key, SUBMIT_PRODUCED, &k, msg, n)) < 0 ||
        (r = zkslot_admit(z, o, &k, nparts, msg, n)) < 0)
        return r;
    /* the partitions' witness names say who writes them: no file is read */
    char name[64];
    snprintf(name, sizeof name, "producer:%d", (int)getpid());
    const char **names = calloc(nparts, sizeof *names);
    if (!names)
        return zkslot_say(msg, n, -ENOMEM, "zkslot_job_create: out of memory");
    for (uint32_t i = 0; i < nparts; i++)
        names[i] = name;
    /* the witnesses come later: a retry repeats the key and the count */
    struct zk_ledger_submit_opts so = { o ? o->priority : -1, o ? o->deadline_ns : 0,
                                        o ? o->request_id : NULL, 0, NULL, 1,
                                        o && (o->flags & ZKSLOT_SUBMIT_FORCE) };
    char *out = NULL;
    if (o && (r = zkslot_out_dir(z, o->out_dir, nparts, &out, msg, n)) < 0) {
        free(names);
        return r;
    }
    r = zk_ledger_job_submit_opts(z->l, k.id, out, &so, names, NULL, NULL, nparts, &id, &d);
    free(names);
    if (r < 0 || (r = zk_ledger_job_get(z->l, id, &j, &d)) < 0 ||
        (r = zk_ledger_job_resolve_out(&j, z->cfg.state_dir)) < 0)
        r = zkslot_say(msg, n, r, "%s", d.msg[0] ? d.msg : zk_strerror(r));
    else if (!so.existing)
        r = submit_job_dirs(z->l, &j, z->cfg.state_dir, out != NULL, msg, n);
    free(out);
    if (r < 0)
        return r;
    *ret_job = id;
    return zkslot_say(msg, n, 0, "%s", "");
}

/* The coefficients of key_id into p->k (once per key: a producer that
 * changes keys reloads). */
static int load_key(zkslot_producer *p, int64_t key_id, char *msg, size_t n)
{
    struct zk_ledger_key lk;
    struct zk_zkey zf;
    struct zk_diag d = { "" };
    struct zk_groth16_load_opts lo = { ZK_G16_LOAD_COEFS, NULL, NULL, 0 };
    struct zk_groth16_key *k = NULL;
    int r;
    if (p->key_id == key_id)
        return 0;
    if ((r = zk_ledger_key_get_id(p->z->l, key_id, &lk, &d)) < 0)
        return zkslot_say(msg, n, r, "%s", d.msg);
    if (lk.format == ZK_KEY_BELLPERSON)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "key '%s' is a bellperson key: its partitions "
                          "are published with zkslot_part_publish_bp", lk.name);
    memset(&zf, 0, sizeof zf);
    if ((r = zk_zkey_open(&zf, lk.path, &d)) == 0) {
        r = zk_groth16_key_load_opts(&zf, &lo, &d, &k);
        zk_zkey_done(&zf);
    }
    if (r < 0)
        return zkslot_say(msg, n, r, "key '%s': %s", lk.name, d.msg);
    zk_groth16_key_free(p->k);
    p->k = k;
    p->key_id = key_id;
    snprintf(p->key_hash, sizeof p->key_hash, "%s", lk.hash);
    return 0;
}

/* Claims a queued partition of job `job` (key key_id) for slot s into *ret:
 * the ledger's next one of this job alone (zk_ledger_set_claim_job), so
 * no other job's partition is touched.  -ENOENT when the job has none
 * queued of a class slot s may hold. */
static int claim_part(zkslot_producer *p, int64_t job, int64_t key_id, const struct zk_slot *s,
                      struct zk_ledger_part *ret, char *msg, size_t n)
{
    zk_ledger *l = p->z->l;
    struct zk_diag d = { "" };
    int min_class = zk_pool_slot_reserved(p->pool, s->index) ? p->z->cfg.pool_reserve_class
                                                              : ZK_PRIO_LOW;
    int r = zk_ledger_set_claim_keys(l, &key_id, 1);
    zk_ledger_set_claim_job(l, job);
    if (r == 0)
        r = zk_ledger_claim_queued_class(l, &p->me, (int32_t)s->index, min_class, ret, &d);
    zk_ledger_set_claim_job(l, 0);
    zk_ledger_set_claim_keys(l, NULL, 0);
    if (r == -ENOENT)
        return zkslot_say(msg, n, r, "job %lld: no queued partition to take", (long long)job);
    return r < 0 ? zkslot_say(msg, n, r, "%s", d.msg) : 0;
}

/* The producer's ledger step of a take (zk_synthpart_claim): the slot
 * checked to hold a partition of the key, then claim_part (its message
 * into msg). */
struct take_ctx {
    zkslot_producer *p;
    const struct zk_ledger_job *j;
    uint64_t need;                     /* the bytes a partition of the key needs */
    char *msg;
    size_t n;
};

static int take_claim(void *ctx, const struct zk_slot *s, struct zk_ledger_part *ret,
                      struct zk_diag *diag)
{
    const struct take_ctx *t = ctx;
    (void)diag;
    if (!t->need || t->need > s->capacity)
        return zkslot_say(t->msg, t->n, ZK_ELENGTH, "key '%s': a partition needs %llu bytes "
                          "but a slot holds %llu", t->j->key_name, (unsigned long long)t->need,
                          (unsigned long long)s->capacity);
    return claim_part(t->p, t->j->id, t->j->key_id, s, ret, t->msg, t->n);
}

/* Job `job` into *j when it has a queued partition to take: 0, or the
 * reason in msg. */
static int job_takeable(zkslot_producer *p, int64_t job, struct zk_ledger_job *j, char *msg,
                        size_t n)
{
    struct zk_diag d = { "" };
    int r;
    if ((r = zk_ledger_job_get(p->z->l, job, j, &d)) == -ENOENT)
        return zkslot_say(msg, n, r, "no job %lld", (long long)job);
    if (r < 0)
        return zkslot_say(msg, n, r, "%s", d.msg);
    if (j->state != ZK_JOB_QUEUED && j->state != ZK_JOB_RUNNING)
        return zkslot_say(msg, n, ZK_ESTATE, "job %lld is %s", (long long)job,
                          zk_job_state_name(j->state));
    if (!j->count[ZK_PART_QUEUED])
        return zkslot_say(msg, n, -ENOENT, "job %lld: no queued partition to take",
                          (long long)job);
    return 0;
}

ZKSLOT_EXPORT int zkslot_part_take(zkslot_producer *p, int64_t job, int timeout_ms,
                                   struct zkslot_part **ret, char *msg, size_t n)
{
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    int r;
    if (!p || !ret)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_part_take: no producer or part");
    if ((r = job_takeable(p, job, &j, msg, n)) < 0)
        return r;
    if ((r = load_key(p, j.key_id, msg, n)) < 0)
        return r;
    const struct zk_zkey_header *kh = zk_groth16_key_header(p->k);
    struct held *h = calloc(1, sizeof *h);
    struct zkslot_part *part = calloc(1, sizeof *part);
    if (!h || !part) {
        free(h);
        free(part);
        return zkslot_say(msg, n, -ENOMEM, "zkslot_part_take: out of memory");
    }
    struct zk_synthpart *sp = &h->part;
    struct take_ctx tc = { p, &j, zk_slotfmt_layout(kh->n_vars, kh->domain_size, &sp->d), msg,
                           n };
    struct zk_synthpart_writer w = writer(p);
    int step = 0;
    r = zk_synthpart_take(&w, j.priority, timeout_ms, NULL, take_claim, &tc, sp, &step, &d);
    if (r < 0) {
        if (step == ZK_SYNTHPART_SLOT)
            zkslot_say(msg, n, r, "taking a slot: %s", zk_strerror(r));
        free(h);
        free(part);
        return r;
    }
    clock_gettime(CLOCK_MONOTONIC, &h->t0);
    part->job = job;
    part->index = sp->p.index;
    part->slot = sp->s.index;
    part->curve = (int)kh->curve + 1;
    part->n_vars = kh->n_vars;
    part->n_public = kh->n_public;
    part->domain_size = kh->domain_size;
    part->witness = sp->s.data + sp->d.region_off[ZK_SLOTFMT_W];
    part->a = sp->s.data + sp->d.region_off[ZK_SLOTFMT_A];
    part->b = sp->s.data + sp->d.region_off[ZK_SLOTFMT_B];
    part->c = sp->s.data + sp->d.region_off[ZK_SLOTFMT_C];
    part->priv = h;
    p->held++;
    *ret = part;
    return zkslot_say(msg, n, 0, "%s", "");
}

/* Frees part after the slot left our hands. */
static void drop(zkslot_producer *p, struct zkslot_part *part)
{
    free(part->priv);
    free(part);
    p->held--;
}

ZKSLOT_EXPORT int zkslot_part_abandon(zkslot_producer *p, struct zkslot_part *part, char *msg,
                                      size_t n)
{
    if (!p || !part || !part->priv)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_part_abandon: no producer or part");
    struct held *h = part->priv;
    struct zk_synthpart_writer w = writer(p);
    struct zk_diag d = { "" };
    int64_t id = h->part.p.id;
    int r = zk_synthpart_abandon(&w, &h->part, "abandoned by its producer", &d);
    drop(p, part);
    if (r < 0)
        return zkslot_say(msg, n, r, "partition %lld: %s", (long long)id, d.msg);
    return zkslot_say(msg, n, 0, "%s", "");
}

/* Every witness value below r: a .wtns's own check, applied to what the
 * producer wrote. */
static int check_witness(const struct zk_zkey_header *kh, const struct zkslot_part *part,
                         char *msg, size_t n)
{
    const uint8_t *w = part->witness;
    for (uint64_t i = 0; i < kh->n_vars; i++)
        if (!zk_curve_fr_is_canonical(kh->curve, w + 32 * i, 32))
            return zkslot_say(msg, n, ZK_ERANGE, "job %lld partition %u: witness value %llu "
                              "is not below the field's modulus; nothing published",
                              (long long)part->job, part->index, (unsigned long long)i);
    return 0;
}

ZKSLOT_EXPORT int zkslot_part_publish(zkslot_producer *p, struct zkslot_part *part,
                                      unsigned flags, char *msg, size_t n)
{
    if (!p || !part || !part->priv)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_part_publish: no producer or part");
    struct held *h = part->priv;
    const struct zk_zkey_header *kh = zk_groth16_key_header(p->k);
    struct zk_diag d = { "" };
    int r = flags & ~ZKSLOT_PUBLISH_ABC ? zkslot_say(msg, n, ZK_EBADPARAMS, "unknown flags %#x",
                                                     flags)
                                        : check_witness(kh, part, msg, n);
    if (r == 0 && !(flags & ZKSLOT_PUBLISH_ABC) &&
        (r = zk_groth16_synthesize(p->k, part->witness, part->a, part->b, part->c, 0)) < 0)
        zkslot_say(msg, n, r, "job %lld partition %u: synthesis failed: %s",
                   (long long)part->job, part->index, zk_strerror(r));
    if (r < 0) {
        char why[512];
        zkslot_part_abandon(p, part, why, sizeof why);
        return r;
    }
    int64_t id = h->part.p.id;
    struct zk_synthpart_writer w = writer(p);
    double synth_s = since(&h->t0);
    if ((r = zk_synthpart_publish(&w, &h->part, p->key_hash, kh, synth_s, -1, &d)) < 0) {
        zkslot_part_abandon(p, part, NULL, 0);
        return zkslot_say(msg, n, r, "partition %lld: %s", (long long)id, d.msg);
    }
    /* a gpud may have taken it from synthesizing already: ZK_ESTATE is fine */
    r = zk_synthpart_ready(&w, &h->part, synth_s, -1, &d);
    drop(p, part);
    if (r < 0 && r != ZK_ESTATE)
        return zkslot_say(msg, n, r, "%s", d.msg);
    return zkslot_say(msg, n, 0, "%s", "");
}

/* as into the .bpa layout at dst (zk_bp_assignment_bytes of its counts). */
static void bpa_write(uint8_t *dst, const struct zkslot_bp_assignment *as)
{
    const uint32_t version = ZK_BPA_VERSION, flags = 0;
    const uint64_t ni = as->n_inputs, na = as->n_aux, nc = as->n_constraints;
    memcpy(dst, ZK_BPA_MAGIC, 8);
    memcpy(dst + 8, &version, 4);
    memcpy(dst + 12, &flags, 4);
    memcpy(dst + 16, &ni, 8);
    memcpy(dst + 24, &na, 8);
    memcpy(dst + 32, &nc, 8);
    uint8_t *q = dst + ZK_SLOTFMT_BPA_MIN;
    const void *vals[5] = { as->inputs, as->aux, as->a, as->b, as->c };
    const uint64_t cnt[5] = { ni, na, nc, nc, nc };
    for (int i = 0; i < 5; i++) {
        memcpy(q, vals[i], 32 * cnt[i]);
        q += 32 * cnt[i];
    }
    const uint64_t *bits[3] = { as->a_aux, as->b_input, as->b_aux };
    const uint64_t words[3] = { (na + 63) / 64, (ni + 63) / 64, (na + 63) / 64 };
    for (int i = 0; i < 3; i++) {
        memcpy(q, bits[i], 8 * words[i]);
        q += 8 * words[i];
    }
}

ZKSLOT_EXPORT int zkslot_part_publish_bp(zkslot_producer *p, int64_t job, int timeout_ms,
                                         const struct zkslot_bp_assignment *as,
                                         uint32_t *ret_index, char *msg, size_t n)
{
    struct zk_ledger_job j;
    struct zk_ledger_key lk;
    struct zk_diag d = { "" };
    struct held h;
    int r;
    if (!p || !as || !as->inputs || !as->aux || !as->a || !as->b || !as->c || !as->a_aux ||
        !as->b_input || !as->b_aux)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_part_publish_bp: a buffer is missing");
    if ((r = job_takeable(p, job, &j, msg, n)) < 0)
        return r;
    if ((r = zk_ledger_key_get_id(p->z->l, j.key_id, &lk, &d)) < 0)
        return zkslot_say(msg, n, r, "%s", d.msg);
    uint64_t bytes = zk_bp_assignment_bytes(as->n_inputs, as->n_aux, as->n_constraints);
    if (lk.format != ZK_KEY_BELLPERSON)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "job %lld: key '%s' is not a bellperson key "
                          "(zkslot_part_take takes its partitions)", (long long)job, lk.name);
    if (as->n_inputs != lk.n_public + 1 || as->n_inputs + as->n_aux != lk.n_vars ||
        as->n_constraints > lk.domain_size || !bytes)
        return zkslot_say(msg, n, ZK_ELENGTH, "job %lld: %llu inputs, %llu aux, %llu "
                          "constraints: key '%s' takes %llu inputs, %llu aux, at most %llu "
                          "constraints; nothing published", (long long)job,
                          (unsigned long long)as->n_inputs, (unsigned long long)as->n_aux,
                          (unsigned long long)as->n_constraints, lk.name,
                          (unsigned long long)lk.n_public + 1,
                          (unsigned long long)(lk.n_vars - lk.n_public - 1),
                          (unsigned long long)lk.domain_size);
    memset(&h, 0, sizeof h);
    struct zk_synthpart *sp = &h.part;
    struct take_ctx tc = { p, &j, zk_slotfmt_layout_bp(bytes, &sp->d), msg, n };
    struct zk_synthpart_writer w = writer(p);
    int step = 0;
    if ((r = zk_synthpart_take(&w, j.priority, timeout_ms, NULL, take_claim, &tc, sp, &step,
                               &d)) < 0)
        return step == ZK_SYNTHPART_SLOT ? zkslot_say(msg, n, r, "taking a slot: %s",
                                                      zk_strerror(r))
                                         : r;
    clock_gettime(CLOCK_MONOTONIC, &h.t0);
    uint8_t *bpa = sp->s.data + sp->d.region_off[ZK_SLOTFMT_W];
    zk_bp_assignment *parsed = NULL;
    char name[64];
    snprintf(name, sizeof name, "job %lld partition %u", (long long)job, sp->p.index);
    bpa_write(bpa, as);
    /* the checks synthd makes of a .bpa, on what is in the slot */
    r = zk_bp_assignment_parse(bpa, (size_t)bytes, name, &parsed, &d);
    zk_bp_assignment_free(parsed);
    struct zk_zkey_header kh;
    memset(&kh, 0, sizeof kh);
    kh.curve = ZK_CURVE_BLS12_381;
    kh.n_vars = (uint32_t)lk.n_vars;
    kh.n_public = (uint32_t)lk.n_public;
    kh.domain_size = (uint32_t)lk.domain_size;
    if (r == 0 && (r = zk_synthpart_publish_bp(&w, sp, lk.hash, &kh, since(&h.t0), &d)) == 0) {
        if (ret_index)
            *ret_index = sp->p.index;
        /* a gpud may have taken it from synthesizing already: ZK_ESTATE is fine */
        r = zk_synthpart_ready(&w, sp, since(&h.t0), -1, &d);
        return r < 0 && r != ZK_ESTATE ? zkslot_say(msg, n, r, "%s", d.msg)
                                       : zkslot_say(msg, n, 0, "%s", "");
    }
    char why[sizeof d.msg];
    snprintf(why, sizeof why, "%s", d.msg);
    zk_synthpart_abandon(&w, sp, "its assignment was refused", NULL);
    return zkslot_say(msg, n, r, "%s; nothing published", why);
}
