/*
 * binfile.h -- the iden3 binary container shared by .zkey, .wtns, .r1cs and
 * .ptau (snarkjs @iden3/binfileutils; docs/formats.md section 2), plus
 * the curve identification and the one-line diagnostics used by the readers
 * of zkey.h, wtns.h and r1cs.h.
 *
 * A container is "magic(4) u32 version u32 nSections" followed by
 * nSections records "u32 id, u64 size, payload".  Records are not in
 * numeric order; look them up by id with zk_binfile_find().
 *
 * Files are read with pread (or io_uring when ZK_HAVE_URING is 1) into
 * caller-provided memory; nothing is mmapped, so no unaligned pointers are
 * ever handed out.  A container can also sit in a caller's memory buffer
 * (tests, fuzzing): the same calls then copy from it.
 *
 * Errors: 0 or a negative code of zk/error.h.  Every reader that fails
 * fills an optional struct zk_diag with one line "<file>: <problem>"; it
 * never prints.
 */
#ifndef ZK_COMMON_BINFILE_H
#define ZK_COMMON_BINFILE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The curves snarkjs supports, named as snarkjs writes them. */
enum zk_curve {
    ZK_CURVE_BN254 = 0,     /* "bn128" */
    ZK_CURVE_BLS12_381 = 1, /* "bls12381" */
};

#define ZK_CURVE_COUNT 2

/* "bn128" or "bls12381" (snarkjs's names); "unknown" for other values. */
const char *zk_curve_name(enum zk_curve curve);

/* Bytes per base-field element: 32 (BN254) or 48 (BLS12-381); 0 if unknown. */
unsigned zk_curve_n8q(enum zk_curve curve);

/* Bytes per scalar-field element: 32 on both curves; 0 if unknown. */
unsigned zk_curve_n8r(enum zk_curve curve);

/*
 * Identify a curve by its scalar-field prime r (n8 bytes, little endian, as
 * in the wtns/r1cs/zkey headers).  Returns 0 and sets *ret_curve, or
 * ZK_ECURVE when the prime is not one of the supported curves' r.
 */
int zk_curve_from_r(const uint8_t *prime_le, size_t n8, enum zk_curve *ret_curve);

/* Same for the base-field prime q (n8 bytes LE).  0 or ZK_ECURVE. */
int zk_curve_from_q(const uint8_t *prime_le, size_t n8, enum zk_curve *ret_curve);

/*
 * 1 if the n8-byte little-endian integer is < r of `curve` (a canonical
 * scalar), 0 otherwise (also when n8 differs from the curve's n8r).
 */
int zk_curve_fr_is_canonical(enum zk_curve curve, const uint8_t *le, size_t n8);

/* 1 if the n8-byte LE integer is < q of `curve`, 0 otherwise. */
int zk_curve_fq_is_canonical(enum zk_curve curve, const uint8_t *le, size_t n8);

/* One line naming the file and the problem; empty string when none. */
struct zk_diag {
    char msg[256];
};

/*
 * Fill diag (if not NULL) with "<name>: <printf message>" (name NULL:
 * "<memory>"), truncated to fit.  Control characters (a newline that a
 * parser's message quotes from the input) become '?', so it stays one line.
 * Returns err, so a reader can write
 * `return zk_diag_set(diag, name, ZK_EFORMAT, "...", ...);`.  Never fails.
 */
int zk_diag_set(struct zk_diag *diag, const char *name, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* zk_diag_set with a va_list (for a reader's own wrapper). */
int zk_diag_vset(struct zk_diag *diag, const char *name, int err, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* One section record: payload at `offset` (absolute), `size` bytes. */
struct zk_binsec {
    uint32_t id;
    uint64_t offset;
    uint64_t size;
};

/* An opened container.  Fields are read-only for callers. */
struct zk_binfile {
    int fd;                  /* -1 when backed by memory */
    const uint8_t *mem;      /* the buffer when fd == -1 */
    uint64_t file_size;
    char *name;              /* display name used in diagnostics (owned) */
    char magic[5];           /* NUL-terminated */
    uint32_t version;
    uint32_t n_sections;
    struct zk_binsec *sections; /* n_sections records in file order (owned) */
};

/*
 * Open the container at `path` and walk its section records.  `magic` is
 * the expected 4-character magic ("zkey", "wtns", "r1cs", "ptau"), or NULL
 * to accept any.  Version checks are left to the format readers.  The
 * path is opened without blocking (O_NONBLOCK: a FIFO or a device named
 * by a user never stalls a daemon) and must be a regular file (-EINVAL
 * "not a regular file"); a wrong magic's bytes are not quoted unless they
 * are another zkslot format's (the message may reach a user who could not
 * read the file).
 * Errors: -errno (open/read failures), ZK_ETRUNCATED (shorter than the
 * 12-byte header or than a record claims), ZK_EBADMAGIC, -ENOMEM.  On
 * failure *bf is left closed (zk_binfile_done() is harmless) and diag, if
 * not NULL, holds one line.
 */
int zk_binfile_open(struct zk_binfile *bf, const char *path, const char *magic,
                    struct zk_diag *diag);
/* The same, following no symlink in any component of path
 * (zk_open_dir_nofollow, then O_NOFOLLOW): for a daemon reading a file a
 * user named by its canonical path, which a link swapped in since must
 * not redirect to a file only the daemon may read. */
int zk_binfile_open_nofollow(struct zk_binfile *bf, const char *path, const char *magic,
                             struct zk_diag *diag);

/*
 * Same as zk_binfile_open() over a memory buffer of `len` bytes that must
 * outlive *bf.  `name` (may be NULL: "<memory>") is used in diagnostics.
 */
int zk_binfile_open_mem(struct zk_binfile *bf, const void *buf, size_t len,
                        const char *name, const char *magic, struct zk_diag *diag);

/* Close and free; accepts a zeroed or already-closed struct. */
void zk_binfile_done(struct zk_binfile *bf);

/*
 * Look up the single section with `id`.  Returns 0 and *ret, or
 * ZK_ESECTION_MISSING (none) or ZK_ESECTION_DUP (more than one), filling
 * diag.  *ret points into bf->sections.
 */
int zk_binfile_find(const struct zk_binfile *bf, uint32_t id,
                    const struct zk_binsec **ret, struct zk_diag *diag);

/*
 * Copy `len` bytes of section `sec`, starting `off` bytes into its payload,
 * into dst (any alignment).  Large reads go in big chunks (pread, or
 * io_uring when built with it) straight into dst.  Errors: ZK_ESECTION_SIZE
 * if [off, off+len) is not inside the section, ZK_ETRUNCATED if the file
 * shrank, -errno on I/O failure.
 */
int zk_binfile_read(const struct zk_binfile *bf, const struct zk_binsec *sec,
                    uint64_t off, void *dst, size_t len, struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_BINFILE_H */
