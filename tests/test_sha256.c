/*
 * test_sha256.c -- zk_sha256 (common/util/sha256.c) against FIPS 180-4's
 * examples ("", "abc", the 56-byte two-block message, a million 'a') and
 * messages of every padding boundary (55, 56, 63, 64, 65, 119, 120, 128
 * bytes of (7i + 3) mod 256; digests from Python's hashlib).
 */
#include <stdlib.h>
#include <string.h>

#include "zk/sha256.h"
#include "zktest.h"

static void check(const void *msg, size_t len, const char *want, const char *what)
{
    char hex[2 * ZK_SHA256_LEN + 1];
    zk_sha256_hex(msg, len, hex);
    ZT_CHECK(!strcmp(hex, want), "%s (%zu bytes): %s, expected %s", what, len, hex, want);
}

int main(void)
{
    static const struct { size_t n; const char *hex; } pad[] = {
        { 55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b" },
        { 56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27" },
        { 63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055" },
        { 64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241" },
        { 65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e" },
        { 119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e" },
        { 120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5" },
        { 128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6" },
    };
    unsigned char buf[128];
    check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty");
    check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "abc");
    check("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "two blocks");
    char *a = malloc(1000000);
    ZT_REQUIRE(a, 1, "out of memory");
    memset(a, 'a', 1000000);
    check(a, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
          "a million a");
    free(a);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 7 + 3);
    for (size_t i = 0; i < sizeof pad / sizeof pad[0]; i++)
        check(buf, pad[i].n, pad[i].hex, "padding boundary");
    return zt_finish();
}
