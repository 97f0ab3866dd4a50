/*
 * util.h -- small helpers shared by common/ and the binaries.
 */
#ifndef ZK_COMMON_UTIL_H
#define ZK_COMMON_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "zk/binfile.h"   /* struct zk_diag */

#ifdef __cplusplus
extern "C" {
#endif

/* Overwrites n bytes at p with zeros in a way the compiler cannot elide
 * (for secrets: toxic waste, blinding factors, witness copies). */
void zk_memzero(void *p, size_t n);

/*
 * Memory for large temporary arrays, 64-byte aligned, not zeroed: from 1 MiB
 * up an anonymous mapping aligned to 2 MiB and advised to use transparent
 * huge pages (far fewer page faults when it is first touched), below that the
 * heap.  Returns NULL when out of memory.  Free with zk_big_free (NULL is
 * ignored; a pointer that zk_big_alloc did not return aborts).
 */
void *zk_big_alloc(size_t n);
/* The same for secrets (a witness copy, arrays computed from a witness):
 * always an anonymous mapping of its own (even below 1 MiB), advised
 * MADV_DONTDUMP so that a core dump leaves it out; NULL when out of memory
 * or when the advice is refused.  Free with zk_big_free (zero it first). */
void *zk_secret_alloc(size_t n);
void zk_big_free(void *p);

/* A shared library loaded when first needed (dlopen, RTLD_NOW): its
 * handle, or NULL with dlerror's text in err.  Never closed. */
void *zk_dl_open(const char *soname, char *err, size_t n);
/* The symbol `name` of h, or NULL with "SONAME: no symbol NAME" in err. */
void *zk_dl_sym(void *h, const char *soname, const char *name, char *err, size_t n);

/* CLOCK_MONOTONIC in seconds (durations, not dates). */
double zk_now_s(void);

/*
 * 1 when every byte of [p, p+len) is in a mapping of this process that
 * may be written (len 0: 1), 0 when some byte is in a read-only mapping or
 * in none, -errno when /proc/self/maps cannot be read.  Read from the
 * kernel's list of mappings, so a range another thread maps or protects
 * meanwhile may be seen either way.
 */
int zk_mem_writable(const void *p, size_t len);

/*
 * Writes `len` bytes to `name` (no slash) in the directory dirfd
 * atomically: a temporary file there (created with `mode` less the umask),
 * fsync, renameat, fsync of the directory.  The temporary file is opened
 * with O_CREAT|O_EXCL|O_NOFOLLOW, so a symlink planted under its name is
 * never followed; an entry already there is removed first.  *ret_existed
 * (may be NULL) = 1 if `name` existed before.  0 or -errno.
 */
int zk_write_atomic_at(int dirfd, const char *name, const void *buf, size_t len,
                       mode_t mode, int *ret_existed);
/* The directory of `path` into buf: "." for a bare name, "/" for a file
 * at the root, else everything before the last slash.  0, or
 * -ENAMETOOLONG when it does not fit (buf then holds a truncated copy). */
int zk_path_dir(const char *path, char *buf, size_t len);

/*
 * Opens the directory `path` (O_RDONLY | O_DIRECTORY) without following a
 * symlink in any of its components: each is opened with O_NOFOLLOW below
 * the one before, from "/".  With mode nonzero a missing component is
 * made (mkdirat, `mode` less the umask) and opened the same way.  A ".."
 * component is refused (-EINVAL).  The descriptor, or -errno: -ENOTDIR
 * (or -ELOOP) when a component is a symlink or not a directory.
 */
int zk_open_dir_nofollow(const char *path, mode_t mode);

/* The file `path` opened with `flags` (O_NOFOLLOW added) in its directory
 * opened by zk_open_dir_nofollow: no symlink in any component is
 * followed.  The descriptor, or -errno as there. */
int zk_open_file_nofollow(const char *path, int flags);

/* zk_write_atomic_at in the directory of `path`. */
int zk_write_atomic(const char *path, const void *buf, size_t len, mode_t mode);

/*
 * Opens `path`, a name others can predict in a directory others may write
 * (the pool's files and key stores in /dev/shm or the pool's directory,
 * the keyid records, the state directory's files), so that nothing planted
 * there blocks the caller or is followed: open(2) with O_NOFOLLOW |
 * O_NONBLOCK | O_CLOEXEC added to `flags` (O_RDONLY or O_RDWR; O_CREAT,
 * O_TRUNC, O_DIRECTORY and O_PATH are refused, -EINVAL), then fstat of the
 * descriptor into *ret_st (may be NULL).  Never blocks, reads nothing.
 * Returns the descriptor (O_NONBLOCK left set: a regular file ignores it),
 * or with one line in diag (may be NULL) naming the file: -ELOOP for a
 * symlink ("a symlink (refused)"), ZK_EUNTRUSTED for anything but a
 * regular file (a FIFO, a socket, a directory: its kind, owner and mode),
 * -errno of open or fstat.  The owner and mode rules of each kind of file
 * are the caller's, checked on *ret_st before it reads.
 */
struct stat;
int zk_open_shared(const char *path, int flags, struct stat *ret_st, struct zk_diag *diag);

/*
 * The same write, streamed: zk_atomic_begin creates the temporary file
 * beside `path` (as zk_write_atomic_at does) and leaves its descriptor in
 * a->fd for the caller to write (pwrite, or fdopen of a dup); then
 * zk_atomic_commit fsyncs and closes it, renames it over `path` and
 * fsyncs the directory, or zk_atomic_abort removes it.  Both end the
 * handle (commit removes the temporary file when it fails).  0 or -errno.
 */
struct zk_atomic_file {
    int dirfd, fd;
    char name[256], tmp[256];
};
int zk_atomic_begin(struct zk_atomic_file *a, const char *path, mode_t mode);
int zk_atomic_commit(struct zk_atomic_file *a);
void zk_atomic_abort(struct zk_atomic_file *a);
/*
 * zk_atomic_write writes all of buf[0..len) at the file's offset (short
 * writes and EINTR resumed), as zk_write_atomic_at writes its buffer.
 * zk_atomic_sync fsyncs what was written so far (the handle stays open):
 * a caller may sync one file on another thread while it computes the
 * next.  zk_atomic_commit_all commits n handles together: every file
 * fsynced (cheap for one already synced), then closed and renamed over
 * its name in the order given, then each distinct directory fsynced once
 * (one fsync for files side by side, against one each by
 * zk_atomic_commit).  On failure *ret_failed (may be NULL) is the index of
 * the handle that failed; the handles before it that were renamed stay in
 * place, the others' temporary files are removed.  It ends every handle.
 * 0 or -errno.  The handles must name distinct files.
 */
int zk_atomic_write(struct zk_atomic_file *a, const void *buf, size_t len);
int zk_atomic_sync(struct zk_atomic_file *a);
int zk_atomic_commit_all(struct zk_atomic_file *const *v, size_t n, size_t *ret_failed);

/* b bytes as "512 B", "1.5 KiB", "16.0 GiB" (binary units, one decimal) into
 * buf; returns buf.  zk_size_human_prec: `digits` decimals ("16.00 GiB",
 * as `zkslot plan` prints its arithmetic); whole bytes have none. */
const char *zk_size_human(uint64_t b, char *buf, size_t len);
const char *zk_size_human_prec(uint64_t b, int digits, char *buf, size_t len);

/*
 * XXH3-128 over prefix[0..prefix_len) then the contents of paths[0..n) in
 * order, as 32 lowercase hex digits in hex (33 bytes with the NUL).
 * *ret_bytes (may be NULL) = file bytes hashed.  progress (may be NULL) is
 * called after each chunk with the bytes done of the total.  -errno with
 * diag naming the file that could not be read.
 */
int zk_hash128_files(const void *prefix, size_t prefix_len, const char *const *paths, size_t n,
                     char hex[33], uint64_t *ret_bytes,
                     void (*progress)(void *ctx, const char *path, uint64_t done, uint64_t total),
                     void *ctx, struct zk_diag *diag);

/* One file's XXH3-128 (zk_hash128_files' hash of it alone), with its
 * status when reading began and ended in *before and *after (the caller
 * compares them to know the hash is of one version; *after all zero when
 * it cannot be had).  0, or -errno with diag naming the file. */
struct stat;
int zk_hash128_file(const char *path, char hex[33], struct stat *before, struct stat *after,
                    struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_UTIL_H */
