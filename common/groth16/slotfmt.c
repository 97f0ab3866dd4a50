/*
 * slotfmt.c -- the partition layout inside a pool slot (zk/slotfmt.h).
 */
#include <stddef.h>
#include <string.h>

#include "zk/error.h"
#include "zk/slotfmt.h"

_Static_assert(ZK_SLOTFMT_V1_SIZE == offsetof(struct zk_slotfmt_header, priority),
               "version 1 ends where priority starts");

static uint64_t align_up(uint64_t x)
{
    return (x + ZK_SLOTFMT_ALIGN - 1) & ~(uint64_t)(ZK_SLOTFMT_ALIGN - 1);
}

/* The five regions of the given sizes (header, w, a, b, c) into d, each
 * on its boundary; the bytes they take. */
static uint64_t place(const uint64_t bytes[ZK_SLOTFMT_NREGIONS], struct zk_slot_desc *d)
{
    uint64_t off = 0;
    memset(d, 0, sizeof *d);
    d->nregions = ZK_SLOTFMT_NREGIONS;
    for (int i = 0; i < ZK_SLOTFMT_NREGIONS; i++) {
        d->region_off[i] = off;
        d->region_bytes[i] = bytes[i];
        off = align_up(off + bytes[i]);
    }
    return off;
}

uint64_t zk_slotfmt_layout(uint64_t n_vars, uint64_t domain_size, struct zk_slot_desc *d)
{
    const uint64_t lim = UINT64_MAX / 64;
    uint64_t bytes[ZK_SLOTFMT_NREGIONS];

    if (n_vars > lim || domain_size > lim)
        return 0;
    bytes[ZK_SLOTFMT_HDR] = sizeof(struct zk_slotfmt_header);
    bytes[ZK_SLOTFMT_W] = n_vars * 32;
    bytes[ZK_SLOTFMT_A] = bytes[ZK_SLOTFMT_B] = bytes[ZK_SLOTFMT_C] = domain_size * 32;
    return place(bytes, d);
}

uint64_t zk_slotfmt_layout_bp(uint64_t bpa_bytes, struct zk_slot_desc *d)
{
    uint64_t bytes[ZK_SLOTFMT_NREGIONS] = { sizeof(struct zk_slotfmt_header), bpa_bytes, 0, 0, 0 };
    if (bpa_bytes > UINT64_MAX / 4)
        return 0;
    return place(bytes, d);
}

int zk_slotfmt_read(const struct zk_slot *s, struct zk_slotfmt_header *ret)
{
    uint64_t hb = s->nregions >= 1 && s->region_off[ZK_SLOTFMT_HDR] == 0
                      ? s->region_bytes[ZK_SLOTFMT_HDR]
                      : 0;
    memset(ret, 0, sizeof *ret);
    if (hb != sizeof *ret && hb != ZK_SLOTFMT_V1_SIZE)
        return ZK_EBADMAGIC;
    memcpy(ret, s->data, hb);
    if (ret->magic != ZK_SLOTFMT_MAGIC)
        return ZK_EBADMAGIC;
    if (ret->version != (hb == sizeof *ret ? ZK_SLOTFMT_VERSION : 1u))
        return ZK_EVERSION;
    return 0;
}

int zk_slotfmt_check(const struct zk_slot *s, const struct zk_slotfmt_header *expect)
{
    struct zk_slotfmt_header h;
    struct zk_slot_desc d;

    if (s->nregions != ZK_SLOTFMT_NREGIONS)
        return ZK_EBADMAGIC;
    int r = zk_slotfmt_read(s, &h);
    if (r)
        return r;
    if (h.format > ZK_SLOTFMT_BELLPERSON)
        return ZK_EVERSION;
    uint64_t bpa = s->region_bytes[ZK_SLOTFMT_W];
    if (h.format == ZK_SLOTFMT_BELLPERSON &&
        (h.n_vars > (UINT64_MAX - ZK_SLOTFMT_BPA_MIN) / 32 ||
         bpa < ZK_SLOTFMT_BPA_MIN + h.n_vars * 32 || h.n_vars < h.n_public + 1))
        return ZK_ELENGTH;
    uint64_t need = h.format == ZK_SLOTFMT_BELLPERSON ? zk_slotfmt_layout_bp(bpa, &d)
                                                       : zk_slotfmt_layout(h.n_vars, h.domain_size, &d);
    if (!need || need > s->capacity)
        return ZK_ELENGTH;
    d.region_bytes[ZK_SLOTFMT_HDR] = s->region_bytes[ZK_SLOTFMT_HDR];   /* as read */
    for (int i = 0; i < ZK_SLOTFMT_NREGIONS; i++) {
        if (s->region_off[i] != d.region_off[i] || s->region_bytes[i] != d.region_bytes[i])
            return ZK_ELENGTH;
    }
    if (expect && (h.format != expect->format || h.curve != expect->curve ||
                   h.n_vars != expect->n_vars ||
                   h.n_public != expect->n_public || h.domain_size != expect->domain_size ||
                   h.key_id != expect->key_id))
        return ZK_ELENGTH;
    return 0;
}
