/*
 * fuzz_slot.c -- libFuzzer target for a pool slot as gpud reads it from
 * shared memory: the slot's regions as the producer declared them and the
 * partition header and data inside them (zk/slotfmt.h), through the public
 * pool API only.  One pool of one 2 MiB slot is made once per process in a
 * private tmpfs directory; each input fills the slot and publishes it,
 * then claims it, verifies its checksum and checks it (zk_slotfmt_check)
 * with and without an expected key, and reads what gpud reads from a slot
 * that passed (the header, the public inputs of the witness region; for a
 * bellperson partition, ZK_SLOTFMT_BELLPERSON, the assignment parsed in
 * place as gpud parses it).
 *
 * Input: byte 0 is flags (bit 0: regions from the header's own n_vars and
 * domain_size through zk_slotfmt_layout -- a bellperson header's: w all
 * the data after the first 4 KiB, zk_slotfmt_layout_bp --, else from the next 65 bytes:
 * nregions, then 8 x (u32 offset, u32 length); bit 1: claim with
 * ZK_POOL_CLAIM_NOVERIFY and verify afterwards, as a backend that checks
 * later does); the rest is the slot's data from offset 0.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "zk/bellperson.h"
#include "zk/binfile.h"
#include "zk/error.h"
#include "zk/pool.h"
#include "zk/slotfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_SLOT_BYTES (2u << 20)
#define FUZZ_DESC_BYTES (2 + 8 * ZK_POOL_MAX_REGIONS)   /* flags, nregions, regions */

/* The key gpud would prove with: a small BN254 circuit. */
static const struct zk_slotfmt_header fuzz_key = {
    .curve = ZK_CURVE_BN254, .n_vars = 8, .n_public = 2, .domain_size = 16, .key_id = 1,
};

/* A bellperson key's: 2 inputs (ONE and one public), 2 aux, domain 4. */
static const struct zk_slotfmt_header fuzz_bp_key = {
    .format = ZK_SLOTFMT_BELLPERSON, .curve = ZK_CURVE_BLS12_381, .n_vars = 4, .n_public = 1,
    .domain_size = 4, .key_id = 1,
};

static zk_pool *fuzz_pool(void)
{
    static zk_pool *h;
    if (h)
        return h;
    const char *dir = fuzz_private_dir();
    char path[256];
    if (!dir)
        abort();
    snprintf(path, sizeof path, "%s/slot.pool", dir);
    struct zk_pool_params p = { .nslots = 1, .slot_size = FUZZ_SLOT_BYTES, .dir = dir,
                                .flags = ZK_POOL_CREATE_TMPFS };
    struct zk_pool_attach_opts o = { .name = "fuzz-slot" };
    zk_pool *nh = calloc(1, zk_pool_sizeof());
    int r = nh ? zk_pool_create(path, &p, NULL) : -ENOMEM;
    if (r == 0)
        r = zk_pool_attach(nh, path, &o);
    if (r) {
        fprintf(stderr, "fuzz_slot: a pool in %s: %s\n", dir, zk_strerror(r));
        abort();
    }
    return h = nh;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The regions the input declares, into d. */
static void fuzz_desc(const uint8_t *data, size_t size, int from_header,
                      const uint8_t *body, size_t body_len, struct zk_slot_desc *d)
{
    memset(d, 0, sizeof *d);
    if (from_header) {
        struct zk_slotfmt_header h;
        memset(&h, 0, sizeof h);
        memcpy(&h, body, body_len < sizeof h ? body_len : sizeof h);
        uint64_t bpa = body_len > ZK_SLOTFMT_ALIGN ? body_len - ZK_SLOTFMT_ALIGN : 0;
        if (!(h.format == ZK_SLOTFMT_BELLPERSON ? zk_slotfmt_layout_bp(bpa, d)
                                                : zk_slotfmt_layout(h.n_vars, h.domain_size, d)))
            memset(d, 0, sizeof *d);
        return;
    }
    if (size < FUZZ_DESC_BYTES)
        return;
    d->nregions = data[1];
    for (unsigned i = 0; i < ZK_POOL_MAX_REGIONS; i++) {
        d->region_off[i] = le32(data + 2 + 8 * i);
        d->region_bytes[i] = le32(data + 6 + 8 * i);
    }
}

/* What gpud does with a claimed slot, up to the prover. */
static void fuzz_read_slot(const struct zk_slot *s)
{
    if (zk_slotfmt_check(s, NULL) == 0) {
        for (unsigned i = 0; i < s->nregions; i++)
            if (s->region_off[i] > s->capacity ||
                s->region_bytes[i] > s->capacity - s->region_off[i])
                abort();          /* a slot that passes lies inside its slot */
    }
    if (zk_slotfmt_check(s, &fuzz_bp_key) == 0) {   /* gpud_bp_prove's reads */
        static unsigned char bpub[32];
        zk_bp_assignment *as = NULL;
        memcpy(bpub, s->data + s->region_off[ZK_SLOTFMT_W] + ZK_SLOTFMT_BPA_MIN + 32, 32);
        if (zk_bp_assignment_parse(s->data + s->region_off[ZK_SLOTFMT_W],
                                   s->region_bytes[ZK_SLOTFMT_W], "slot", &as, NULL) == 0)
            zk_bp_assignment_fits(as, 2, 2, 4, "slot", NULL);
        zk_bp_assignment_free(as);
    }
    if (zk_slotfmt_check(s, &fuzz_key) != 0)
        return;
    static unsigned char pub[32 * 2];
    struct zk_slotfmt_header sh;
    memcpy(pub, s->data + s->region_off[ZK_SLOTFMT_W] + 32, fuzz_key.n_public * 32);
    memcpy(&sh, s->data, sizeof sh);
    if (sh.n_public != fuzz_key.n_public || sh.key_id != fuzz_key.key_id)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zk_pool *h = fuzz_pool();
    struct zk_slot s;
    struct zk_slot_desc d;
    if (size < 1)
        return 0;
    int from_header = data[0] & 1, noverify = data[0] & 2;
    size_t skip = from_header ? 1 : FUZZ_DESC_BYTES;
    const uint8_t *body = size > skip ? data + skip : data + size;
    size_t body_len = size > skip ? size - skip : 0;

    if (zk_pool_acquire(h, 7, fuzz_key.key_id, 0, NULL, &s) != 0)
        abort();                  /* the one slot was not given back */
    memset(s.data, 0, s.capacity);
    memcpy(s.data, body, body_len < s.capacity ? body_len : s.capacity);
    fuzz_desc(data, size, from_header, body, body_len, &d);
    if (zk_pool_publish(h, &s, &d) != 0) {
        if (zk_pool_abandon(h, &s) != 0)
            abort();
        return 0;
    }
    int r = zk_pool_claim(h, ZK_POOL_ANY_NODE, noverify ? ZK_POOL_CLAIM_NOVERIFY : 0, 0, NULL, &s);
    if (r == 0 && noverify)
        r = zk_pool_verify(h, &s);
    if (r != 0)
        abort();                  /* published as is: claimable, checksum good */
    fuzz_read_slot(&s);
    if (zk_pool_release(h, &s) != 0)
        abort();
    return 0;
}
