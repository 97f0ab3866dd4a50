/*
 * io_internal.h -- private helpers of common/io/ (not a public header).
 */
#ifndef ZK_COMMON_IO_INTERNAL_H
#define ZK_COMMON_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"

/*
 * Read exactly len bytes at file offset off of fd into dst.  Uses io_uring
 * with several chunks in flight when built with ZK_HAVE_URING and the
 * request is large, plain pread otherwise (and as the fallback).
 * Returns 0, ZK_ETRUNCATED on a premature end of file, or -errno.
 */
int zk_io_read_at(int fd, uint64_t off, void *dst, size_t len);

/* Little-endian loads from a byte buffer. */
static inline uint32_t zk_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t zk_le64(const uint8_t *p)
{
    return (uint64_t)zk_le32(p) | (uint64_t)zk_le32(p + 4) << 32;
}

/*
 * Sequential reader over one section with a bounded internal buffer, for
 * the variable-length and small-record sections (r1cs constraints, zkey
 * coefficients).
 */
struct zk_secreader {
    const struct zk_binfile *bf;
    const struct zk_binsec *sec;
    uint64_t pos;           /* next payload byte not yet in buf */
    uint8_t *buf;
    size_t cap, len, at;    /* buf holds [at, len) unread */
};

int zk_secreader_init(struct zk_secreader *r, const struct zk_binfile *bf,
                      const struct zk_binsec *sec, size_t cap);
void zk_secreader_done(struct zk_secreader *r);
/* Bytes of the section not consumed yet. */
uint64_t zk_secreader_left(const struct zk_secreader *r);
/*
 * Point *ret at the next n (<= cap) bytes and consume them.  The pointer is
 * valid until the next call.  ZK_ESECTION_SIZE if fewer than n bytes are
 * left in the section, -errno / ZK_ETRUNCATED on I/O failure.
 */
int zk_secreader_next(struct zk_secreader *r, size_t n, const uint8_t **ret,
                      struct zk_diag *diag);

/*
 * On-curve and subgroup check of one zkey header point (file bytes, 8-byte
 * aligned, not infinity, coordinates already canonical).  `g2` selects G2.
 * Returns 0, ZK_ENOT_ON_CURVE or ZK_ENOT_IN_GROUP.  In zkey_points.c, the
 * one place that uses the curve code of common/ec/.
 */
int zk_zkey_point_check(enum zk_curve curve, int g2, const uint64_t *pt);

#endif /* ZK_COMMON_IO_INTERNAL_H */
