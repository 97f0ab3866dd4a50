/*
 * memwritable.c -- whether this process may write a range of its memory
 * (zk/util.h), from the mappings the kernel lists in /proc/self/maps.  The
 * CUDA prover asks it before page-locking a key's points: a key store is
 * mapped read-only, and the runtime page-locks read-only memory only when
 * told so (cudaHostRegisterReadOnly).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "zk/util.h"

int zk_mem_writable(const void *p, size_t len)
{
    uintptr_t need = (uintptr_t)p, end = (uintptr_t)p + len;
    char *line = NULL;
    size_t cap = 0;
    int r = 0;
    if (!len)
        return 1;
    if (end < need)
        return 0;                         /* wraps: no such range */
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return -errno;
    /* the lines are in address order: walk them from the range's start */
    while (getline(&line, &cap, f) > 0) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
            continue;
        if (hi <= need)
            continue;
        if (lo > need || perms[1] != 'w')
            break;                        /* a hole, or a page not writable */
        need = hi;
        if (need >= end) {
            r = 1;
            break;
        }
    }
    free(line);
    fclose(f);
    return r;
}
