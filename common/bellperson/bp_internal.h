/*
 * bp_internal.h -- private to common/bellperson/: the opened parameter
 * file, verifying key and assignment of zk/bellperson.h.
 *
 * Points are held decoded, in zkslot's affine form (Montgomery, the
 * all-zero point is infinity), so the MSMs of common/msm/ take them as they
 * are; the file they came from is no longer needed once opened.  Field
 * elements of an assignment are plain 4-limb integers (the .bpa's own
 * little-endian bytes, used in place where the buffer allows).
 */
#ifndef ZK_COMMON_BP_INTERNAL_H
#define ZK_COMMON_BP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ec/curves.h"
#include "zk/bellperson.h"

struct zk_bp_vk {
    bls381_g1_affine alpha_g1, beta_g1, delta_g1;
    bls381_g2_affine beta_g2, gamma_g2, delta_g2;
    uint32_t n_ic;
    bls381_g1_affine *ic;              /* n_ic points, zk_big_alloc */
};

struct zk_bp_key {
    struct zk_bp_vk vk;
    struct zk_bp_key_info info;
    bls381_g1_affine *h, *l, *a, *b_g1;   /* zk_big_alloc each, or borrowed */
    bls381_g2_affine *b_g2;
    void (*release)(void *ctx);           /* borrowed points (vk.ic too): given back */
    void *release_ctx;                    /* through release(release_ctx) at close */
};


struct zk_bp_assignment {
    uint64_t n_inputs, n_aux, n_constraints;
    const bls381_fr *input, *aux, *a, *b, *c;   /* plain, canonical */
    const uint64_t *a_aux, *b_input, *b_aux;     /* LSB-first bitmaps */
    uint64_t pop_a_aux, pop_b_input, pop_b_aux;
    void *map;                                   /* mmap of a file, or NULL */
    size_t map_len;
    void *own;                                   /* an aligned copy, or NULL */
};

/* Reads the verifying key at buf[0 .. len) into *vk (ic allocated), its
 * length in bytes to *used.  Errors as zk_bp_vk_open_mem. */
int zk_bp_vk_parse(const uint8_t *buf, size_t len, const char *name, struct zk_bp_vk *vk,
                   size_t *used, struct zk_diag *diag);
void zk_bp_vk_release(struct zk_bp_vk *vk);

/* Maps `path` read-only (opened O_NONBLOCK: a FIFO never stalls the
 * caller; a regular file only).  *map NULL for an empty file.  Errors:
 * -errno, -EINVAL "not a regular file"; diag names the file. */
int zk_bp_map_file(const char *path, void **map, size_t *len, struct zk_diag *diag);

/* k with 7^((q-1)/2^32) = w^k for zkslot's NTT root w (5^((q-1)/2^32)): odd, below
 * 2^32 (prove.c; tests check it). */
uint64_t zk_bp_root_multiplier(void);

/* Gives back the pages of a private read-only file mapping that lie
 * wholly inside [from, to) (MADV_DONTNEED: the file's bytes are read again
 * if touched).  Only for the caller's own mapping of a file. */
void zk_bp_drop_pages(const void *from, const void *to);

/* The steps of a hooked proof's multiplications (zk_bp_set_between), in
 * points; 0 restores the default.  For tests, whose circuits are smaller
 * than one default step. */
void zk_bp_set_steps(size_t g1, size_t g2);

/* The next power of two >= n (1 for n = 0), and its log2. */
unsigned zk_bp_log2_domain(uint64_t n);

#endif /* ZK_COMMON_BP_INTERNAL_H */
