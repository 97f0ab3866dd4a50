/*
 * clock.c -- the monotonic clock in seconds (zk/util.h: zk_now_s), for
 * durations people read: progress lines, --verbose phase times.
 */
#include <time.h>

#include "zk/util.h"

double zk_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
