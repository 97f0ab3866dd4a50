/*
 * sha256.h -- SHA-256 (FIPS 180-4) of a byte string, for what must not be
 * reversible: the API tokens zkslot-apid keeps hashed at rest.  (xxhash,
 * used for file identities, is not a cryptographic hash.)  Cannot fail.
 */
#ifndef ZK_COMMON_SHA256_H
#define ZK_COMMON_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZK_SHA256_LEN 32

/* The digest of buf[0..len) into out. */
void zk_sha256(const void *buf, size_t len, uint8_t out[ZK_SHA256_LEN]);
/* The same as 64 lowercase hex digits and a NUL into hex. */
void zk_sha256_hex(const void *buf, size_t len, char hex[2 * ZK_SHA256_LEN + 1]);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_SHA256_H */
