/*
 * human.c -- a byte count as people read it (zk/util.h: zk_size_human).
 */
#include <stdio.h>

#include "zk/util.h"

const char *zk_size_human(uint64_t b, char *buf, size_t len)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    double v = (double)b;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}
