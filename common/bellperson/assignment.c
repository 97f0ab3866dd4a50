/*
 * assignment.c -- zkslot's .bpa: the proving assignment of one bellperson
 * circuit (what its ProvingAssignment holds after synthesis).
 *
 * Layout, all integers little-endian:
 *   "ZKBPASN1"  u32 version (1)  u32 flags (0)
 *   u64 n_inputs (ONE included)  u64 n_aux  u64 n_constraints
 *   inputs, aux, a, b, c      32 bytes each, canonical (< r), plain
 *   a_aux, b_input, b_aux     bitmaps, ceil(len / 64) u64 words each,
 *                             LSB-first; bits past len are zero
 * n_constraints counts the one constraint per input that synthesis appends.
 * The values are used in place when the buffer is 8-byte aligned (a mapped
 * file always is), else from an aligned copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bp_internal.h"
#include "zk/error.h"
#include "zk/util.h"

#define BPA_HEADER 40

static uint64_t bp_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Words of a bitmap of n bits. */
static uint64_t bp_words(uint64_t n)
{
    return (n + 63) / 64;
}

/* Popcount of a bitmap; -1 when a bit past n is set. */
static int64_t bp_bits(const uint64_t *w, uint64_t n)
{
    uint64_t pop = 0, nw = bp_words(n);
    for (uint64_t i = 0; i < nw; i++)
        pop += (uint64_t)__builtin_popcountll(w[i]);
    if (n % 64 != 0 && (w[nw - 1] >> (n % 64)) != 0)
        return -1;
    return (int64_t)pop;
}

static int bp_canonical(const bls381_fr *v, uint64_t n, const char *name, const char *what,
                        struct zk_diag *diag)
{
    for (uint64_t i = 0; i < n; i++)
        if (!bls381_fr_is_canonical(v[i].l))
            return zk_diag_set(diag, name, ZK_ENOT_CANONICAL, "%s value %llu is not below r",
                               what, (unsigned long long)i);
    return 0;
}

static int bp_parse(struct zk_bp_assignment *as, const uint8_t *p, size_t len, const char *name,
                    struct zk_diag *diag)
{
    uint64_t ni, na, nc, vals, need;
    const uint8_t *q;
    int64_t pop;
    int rc;

    if (len < BPA_HEADER)
        return zk_diag_set(diag, name, len >= 8 && memcmp(p, ZK_BPA_MAGIC, 8) == 0 ?
                           ZK_ETRUNCATED : ZK_EBADMAGIC,
                           "%zu bytes: not a .bpa assignment (header is %d)", len, BPA_HEADER);
    if (memcmp(p, ZK_BPA_MAGIC, 8) != 0)
        return zk_diag_set(diag, name, ZK_EBADMAGIC, "not a .bpa assignment (bad magic)");
    if ((uint32_t)bp_le64(p + 8) != ZK_BPA_VERSION || bp_le64(p + 8) >> 32 != 0)
        return zk_diag_set(diag, name, ZK_EVERSION, "version %u flags %u: not 1 and 0",
                           (unsigned)(uint32_t)bp_le64(p + 8), (unsigned)(bp_le64(p + 8) >> 32));
    ni = bp_le64(p + 16);
    na = bp_le64(p + 24);
    nc = bp_le64(p + 32);
    if (ni == 0 || ni > (1ULL << 32) || na > (1ULL << 36) || nc > (1ULL << 32))
        return zk_diag_set(diag, name, ZK_ELENGTH,
                           "counts out of range: %llu inputs, %llu aux, %llu constraints",
                           (unsigned long long)ni, (unsigned long long)na, (unsigned long long)nc);
    if (nc < ni)
        return zk_diag_set(diag, name, ZK_ELENGTH,
                           "%llu constraints: fewer than the %llu appended for the inputs",
                           (unsigned long long)nc, (unsigned long long)ni);
    vals = ni + na + 3 * nc;
    need = BPA_HEADER + 32 * vals + 8 * (2 * bp_words(na) + bp_words(ni));
    if (len != need)
        return zk_diag_set(diag, name, len < need ? ZK_ETRUNCATED : ZK_ELENGTH,
                           "%zu bytes, the counts make %llu", len, (unsigned long long)need);
    q = p + BPA_HEADER;
    as->n_inputs = ni;
    as->n_aux = na;
    as->n_constraints = nc;
    as->input = (const bls381_fr *)q;
    as->aux = as->input + ni;
    as->a = as->aux + na;
    as->b = as->a + nc;
    as->c = as->b + nc;
    as->a_aux = (const uint64_t *)(as->c + nc);
    as->b_input = as->a_aux + bp_words(na);
    as->b_aux = as->b_input + bp_words(ni);
    if ((rc = bp_canonical(as->input, ni, name, "input", diag)) != 0 ||
        (rc = bp_canonical(as->aux, na, name, "aux", diag)) != 0 ||
        (rc = bp_canonical(as->a, nc, name, "a", diag)) != 0 ||
        (rc = bp_canonical(as->b, nc, name, "b", diag)) != 0 ||
        (rc = bp_canonical(as->c, nc, name, "c", diag)) != 0)
        return rc;
    if (memcmp(as->input, &(bls381_fr){ { 1, 0, 0, 0 } }, sizeof(bls381_fr)) != 0)
        return zk_diag_set(diag, name, ZK_EFORMAT, "input 0 is not ONE");
    if ((pop = bp_bits(as->a_aux, na)) < 0)
        return zk_diag_set(diag, name, ZK_EFORMAT, "a_aux: bits set past its %llu aux",
                           (unsigned long long)na);
    as->pop_a_aux = (uint64_t)pop;
    if ((pop = bp_bits(as->b_input, ni)) < 0)
        return zk_diag_set(diag, name, ZK_EFORMAT, "b_input: bits set past its %llu inputs",
                           (unsigned long long)ni);
    as->pop_b_input = (uint64_t)pop;
    if ((pop = bp_bits(as->b_aux, na)) < 0)
        return zk_diag_set(diag, name, ZK_EFORMAT, "b_aux: bits set past its %llu aux",
                           (unsigned long long)na);
    as->pop_b_aux = (uint64_t)pop;
    return 0;
}

int zk_bp_assignment_parse(const void *buf, size_t len, const char *name,
                           zk_bp_assignment **out, struct zk_diag *diag)
{
    struct zk_bp_assignment *as = calloc(1, sizeof *as);
    const uint8_t *p = buf;
    int rc;

    *out = NULL;
    if (as == NULL)
        return zk_diag_set(diag, name, -ENOMEM, "out of memory");
    if (((uintptr_t)buf & 7) != 0 && len > 0) {
        if ((as->own = zk_big_alloc(len)) == NULL) {
            free(as);
            return zk_diag_set(diag, name, -ENOMEM, "%zu bytes: out of memory", len);
        }
        memcpy(as->own, buf, len);
        p = as->own;
    }
    rc = bp_parse(as, p, len, name, diag);
    if (rc != 0) {
        zk_bp_assignment_free(as);
        return rc;
    }
    *out = as;
    return 0;
}

int zk_bp_assignment_open(const char *path, zk_bp_assignment **out, struct zk_diag *diag)
{
    void *m;
    size_t len;
    int rc = zk_bp_map_file(path, &m, &len, diag);

    *out = NULL;
    if (rc != 0)
        return rc;
    rc = zk_bp_assignment_parse(m, len, path, out, diag);
    if (rc != 0) {
        if (m != NULL)
            munmap(m, len);
        return rc;
    }
    (*out)->map = m;
    (*out)->map_len = len;
    /* the check read every value: give the pages of aux, a, b and c back
     * (MADV_DONTNEED on a private read-only file mapping: the file's bytes
     * are read again when the prover touches them), so that an assignment
     * is held once while it is proved, not for the whole proof */
    zk_bp_drop_pages((*out)->aux, (*out)->c + (*out)->n_constraints);
    return 0;
}

void zk_bp_assignment_free(zk_bp_assignment *as)
{
    if (as == NULL)
        return;
    if (as->map != NULL)
        munmap(as->map, as->map_len);
    zk_big_free(as->own);
    free(as);
}

uint64_t zk_bp_assignment_n_inputs(const zk_bp_assignment *as)
{
    return as->n_inputs;
}

uint64_t zk_bp_assignment_n_aux(const zk_bp_assignment *as)
{
    return as->n_aux;
}

uint64_t zk_bp_assignment_n_constraints(const zk_bp_assignment *as)
{
    return as->n_constraints;
}

const uint8_t *zk_bp_assignment_input(const zk_bp_assignment *as, uint64_t i)
{
    return (const uint8_t *)(as->input + i);
}

int zk_bp_assignment_fits(const zk_bp_assignment *as, uint64_t n_inputs, uint64_t n_aux,
                          uint64_t domain, const char *name, struct zk_diag *diag)
{
    if (as->n_inputs == n_inputs && as->n_aux == n_aux && as->n_constraints <= domain)
        return 0;
    return zk_diag_set(diag, name, ZK_ELENGTH,
                       "%llu inputs, %llu aux, %llu constraints: the key takes %llu inputs, "
                       "%llu aux, at most %llu constraints",
                       (unsigned long long)as->n_inputs, (unsigned long long)as->n_aux,
                       (unsigned long long)as->n_constraints, (unsigned long long)n_inputs,
                       (unsigned long long)n_aux, (unsigned long long)domain);
}

uint64_t zk_bp_assignment_bytes(uint64_t n_inputs, uint64_t n_aux, uint64_t n_constraints)
{
    if (n_inputs > (1ULL << 32) || n_aux > (1ULL << 36) || n_constraints > (1ULL << 32))
        return 0;
    return BPA_HEADER + 32 * (n_inputs + n_aux + 3 * n_constraints) +
           8 * (2 * bp_words(n_aux) + bp_words(n_inputs));
}
