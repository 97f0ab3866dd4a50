/*
 * plan_filecoin.c -- Filecoin's circuit shapes for `zkslot plan --filecoin`
 * (plan_filecoin.h): the compiled-in counts and the sizes derived from them.
 */
#include "plan_filecoin.h"

#include <stdio.h>
#include <string.h>

#include "zk/slotfmt.h"

#define FIL_COUNTED "counted on the blank circuit by zkslot-fil-synth count (filecoin-proofs 19.1)"
#define FIL_PR1325 \
    FIL_COUNTED "; the same as filecoin-proofs' circuitinfo (rust-fil-proofs PR 1325)"

static const struct zk_fil_shape shapes[] = {
    /* name, registered proof, constraints, inputs, aux, partitions, sectors/partition */
    { "porep-2KiB", "StackedDrg2KiBV1_1", 2687921, 40, 2685673, 1, 0,
      FIL_COUNTED "; the same on real inputs (zkslot-fil-synth synth)" },
    { "winning-2KiB", "StackedDrgWinning2KiBV1", 90750, 133, 91674, 1, 0,
      FIL_COUNTED "; the same on real inputs" },
    { "window-2KiB", "StackedDrgWindow2KiBV1_2", 21866, 23, 22128, 0, 2,
      FIL_COUNTED "; the same on real inputs" },
    { "snap-2KiB", "StackedDrg2KiBV1 (update)", 1705039, 5, 1703569, 1, 0,
      FIL_COUNTED "; the same on real inputs" },
    { "porep-32GiB", "StackedDrg32GiBV1_1", 130278541, 328, 130169893, 10, 0, FIL_PR1325 },
    { "winning-32GiB", "StackedDrgWinning32GiBV1", 370590, 133, 375210, 1, 0, FIL_PR1325 },
    { "window-32GiB", "StackedDrgWindow32GiBV1_2", 125279217, 25840, 126902376, 0, 2349,
      FIL_PR1325 },
    { "snap-32GiB", "StackedDrg32GiBV1 (update)", 81049499, 5, 80978488, 16, 0, FIL_COUNTED },
    { "porep-64GiB", "StackedDrg64GiBV1_1", 131185849, 328, 131076643, 10, 0, FIL_COUNTED },
    { "winning-64GiB", "StackedDrgWinning64GiBV1", 391314, 133, 396000, 1, 0, FIL_COUNTED },
    { "window-64GiB", "StackedDrgWindow64GiBV1_2", 129887900, 25301, 131500200, 0, 2300,
      FIL_COUNTED },
    { "snap-64GiB", "StackedDrg64GiBV1 (update)", 85006101, 5, 84931220, 16, 0, FIL_COUNTED },
};

const struct zk_fil_shape *zk_fil_shape_find(const char *name)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (!strcmp(shapes[i].name, name))
            return &shapes[i];
    return NULL;
}

void zk_fil_shape_names(char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0] && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ", " : "", shapes[i].name);
}

uint64_t zk_fil_rows(const struct zk_fil_shape *s)
{
    return s->constraints + s->inputs;
}

uint64_t zk_fil_domain(const struct zk_fil_shape *s)
{
    uint64_t d = 1, rows = zk_fil_rows(s);
    while (d < rows)
        d <<= 1;
    return d;
}

uint64_t zk_fil_density_bytes(const struct zk_fil_shape *s)
{
    return 8 * (2 * ((s->aux + 63) / 64) + (s->inputs + 63) / 64);
}

uint64_t zk_fil_slot_bytes(const struct zk_fil_shape *s, uint64_t *witness_region)
{
    struct zk_slot_desc d;
    uint64_t b = zk_slotfmt_layout(s->inputs + s->aux, zk_fil_domain(s), &d);
    if (!b)
        return 0;
    if (witness_region)
        *witness_region = d.region_bytes[ZK_SLOTFMT_W];
    uint64_t dens = (zk_fil_density_bytes(s) + ZK_SLOTFMT_ALIGN - 1) / ZK_SLOTFMT_ALIGN *
                    ZK_SLOTFMT_ALIGN;
    return (b + ZK_SLOTFMT_ALIGN - 1) / ZK_SLOTFMT_ALIGN * ZK_SLOTFMT_ALIGN + dens;
}

uint64_t zk_fil_bpa_bytes(const struct zk_fil_shape *s)
{
    return 3 * zk_fil_rows(s) * 32 + (s->inputs + s->aux) * 32 + zk_fil_density_bytes(s);
}

uint64_t zk_fil_points_bound(const struct zk_fil_shape *s)
{
    uint64_t n = s->inputs + s->aux;
    return (zk_fil_domain(s) - 1 + s->aux + 2 * n) * 96 + n * 192;
}
