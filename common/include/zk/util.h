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

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_UTIL_H */
