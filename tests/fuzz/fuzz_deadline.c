/*
 * fuzz_deadline.c -- libFuzzer target for `zkslot submit --deadline`
 * (zk_deadline_parse): the bytes are the text.  An accepted deadline lies
 * after "now" and at most 366 days ahead; a refused one leaves the output
 * untouched; the same text gives the same answer twice; a duration moves
 * with "now", a time does not.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "zk/priority.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const int64_t now = 1764644400LL * 1000000000;   /* 2025-12-02T03:00:00Z */
    const int64_t max = 366LL * 86400 * 1000000000;
    char *s = fuzz_text(data, size);
    if (!s)
        return 0;
    int64_t v = -7, w = -7, later = -7;
    int r = zk_deadline_parse(s, now, &v);
    if (r == 0 && !(v > now && v - now <= max))
        abort();
    if (r && (v != -7 || (r != -EINVAL && r != -ERANGE && r != -ETIME)))
        abort();
    if (zk_deadline_parse(s, now, &w) != r || w != v)
        abort();
    /* a second later: a duration moves by it, a time stays or expires */
    int r2 = zk_deadline_parse(s, now + 1000000000, &later);
    if (r == 0 && r2 == 0 && later != v && later != v + 1000000000)
        abort();
    free(s);
    return 0;
}
