/*
 * util.h -- small helpers shared by common/ and the binaries.
 */
#ifndef ZK_COMMON_UTIL_H
#define ZK_COMMON_UTIL_H

#include <stddef.h>
#include <stdint.h>

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
void zk_big_free(void *p);

/* b bytes as "512 B", "1.5 KiB", "16.0 GiB" (binary units, one decimal) into
 * buf; returns buf. */
const char *zk_size_human(uint64_t b, char *buf, size_t len);

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

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_UTIL_H */
