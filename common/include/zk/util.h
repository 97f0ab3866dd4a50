/*
 * util.h -- small helpers shared by common/ and the binaries.
 */
#ifndef ZK_COMMON_UTIL_H
#define ZK_COMMON_UTIL_H

#include <stddef.h>

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

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_UTIL_H */
