/*
 * human.c -- a byte count as people read it (zk/util.h: zk_size_human,
 * zk_size_human_prec).
 */
#include <stdio.h>

#include "zk/util.h"

const char *zk_size_human_prec(uint64_t b, int digits, char *buf, size_t len)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    double v = (double)b;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%.*f %s", u ? digits : 0, v, unit[u]);
    return buf;
}

const char *zk_size_human(uint64_t b, char *buf, size_t len)
{
    return zk_size_human_prec(b, 1, buf, len);
}
