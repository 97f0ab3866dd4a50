/*
 * plan_filecoin.h -- Filecoin's Groth16 circuits as `zkslot plan --filecoin
 * SHAPE` sizes them (docs/plan.md, "Filecoin shapes"): one partition's
 * counts (constraints, inputs with ONE, aux), the partitions of a proof,
 * and what follows from them in zkslot's terms: the slot a partition takes
 * (zk/slotfmt.h plus the density bitmaps a bellperson assignment carries),
 * the assignment file the synthesizer writes (the .bpa,
 * zk/bellperson.h), and an upper bound of the parameter file's points.
 *
 * The counts are compiled in: counted on the upstream blank circuits by
 * `zkslot-fil-synth count` (filecoin-proofs 19.1), each entry naming its
 * source; none is measured on a real sector here.
 */
#ifndef ZK_TOOL_PLAN_FILECOIN_H
#define ZK_TOOL_PLAN_FILECOIN_H

#include <stddef.h>
#include <stdint.h>

struct zk_fil_shape {
    const char *name;              /* "porep-32GiB" */
    const char *registered;        /* the registered proof counted */
    uint64_t constraints;          /* the circuit's, without the input rows */
    uint64_t inputs;               /* public inputs, ONE included */
    uint64_t aux;
    uint64_t partitions;           /* per proof; WindowPoSt: per full partition of sectors */
    uint64_t sectors_per_partition;/* WindowPoSt only (partitions = ceil(sectors / this)) */
    const char *source;            /* where the counts come from */
};

/* The shape of that name, or NULL. */
const struct zk_fil_shape *zk_fil_shape_find(const char *name);

/* The names, comma-separated, into buf. */
void zk_fil_shape_names(char *buf, size_t n);

/* rows = constraints + one per input (bellperson's); domain = next power of two. */
uint64_t zk_fil_rows(const struct zk_fil_shape *s);
uint64_t zk_fil_domain(const struct zk_fil_shape *s);

/* Bytes of the density bitmaps (a_aux, b_input, b_aux; 64-bit words). */
uint64_t zk_fil_density_bytes(const struct zk_fil_shape *s);

/* Bytes of one partition's slot: zk_slotfmt_layout(inputs + aux, domain)
 * and the density bitmaps as one more 4 KiB-aligned region.  0 on overflow. */
uint64_t zk_fil_slot_bytes(const struct zk_fil_shape *s, uint64_t *witness_region);

/* Bytes of the assignment file (and of the synthesizer's resident
 * assignment): a, b, c over the rows, inputs and aux (32 bytes each), the
 * densities. */
uint64_t zk_fil_bpa_bytes(const struct zk_fil_shape *s);

/* Upper bound of the parameter file's points: h (domain - 1), l (aux),
 * a and b_g1 (inputs + aux each) as 96-byte G1, b_g2 (inputs + aux) as
 * 192-byte G2, every density bit set. */
uint64_t zk_fil_points_bound(const struct zk_fil_shape *s);

#endif /* ZK_TOOL_PLAN_FILECOIN_H */
