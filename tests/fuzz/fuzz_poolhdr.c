/*
 * fuzz_poolhdr.c -- libFuzzer target for the pool file as zk_pool_attach
 * reads it (header, attach table, slot table), through the public pool
 * API only.  The bytes become a pool file (mode 0600, ours) in a private
 * tmpfs directory; when the header's file_size (offset 80) is larger than
 * the input and at most 16 MiB, the file is extended to it with zeros (a
 * sparse tail, so the geometry checks can pass); beside it, the slot data
 * file of the size the header's data_size (offset 104) names, when at most
 * 16 MiB (else empty: layout version 3).  It is attached as an
 * observer, read as `zkslot pool status` and `pool check` read it (info,
 * every slot's and attach entry's snapshot, the invariant check), then
 * attached again as a registered process (the reaper runs) and detached.
 * Nothing may crash or hang, whatever the file holds.
 *
 * The attach table's lock is flock() on the file (pool layout version 2);
 * until then it was a glibc robust mutex at offset 384, and glibc aborted
 * on a forged one (found by this target after 567 inputs; the corpus file
 * forged-attach-lock replays it).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "zk/pool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_POOL_MAX_FILE (16u << 20)
static void count_violation(void *ctx, const char *msg)
{
    (void)msg;
    (*(unsigned *)ctx)++;
}

static void fuzz_read_pool(zk_pool *h)
{
    struct zk_pool_info in;
    struct zk_pool_slot_info si;
    struct zk_pool_attach_info ai;
    unsigned n = 0;
    zk_pool_info(h, &in);
    for (uint32_t i = 0; i < in.nslots && i < 64; i++)
        if (zk_pool_slot_info(h, i, &si) != 0)
            abort();              /* every slot below nslots has a snapshot */
    if (zk_pool_slot_info(h, in.nslots, &si) == 0)
        abort();                  /* none past the end */
    for (unsigned i = 0; i < ZK_POOL_MAX_ATTACH; i++)
        zk_pool_attach_info(h, i, &ai);
    if (zk_pool_check(h, count_violation, &n) != (int)n)
        abort();                  /* returns what it reported */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_private_dir();
    char path[256];
    if (!dir)
        abort();
    snprintf(path, sizeof path, "%s/zkslot.pool", dir);
    unlink(path);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        abort();
    uint64_t want = 0;
    if (size >= 88)
        memcpy(&want, data + 80, sizeof want);
    if ((size && write(fd, data, size) != (ssize_t)size) ||
        (want > size && want <= FUZZ_POOL_MAX_FILE && ftruncate(fd, (off_t)want) != 0))
        abort();
    close(fd);
    /* the slot data file beside it, of the size the header names (at 104) */
    char dpath[300];
    uint64_t dsize = 0;
    snprintf(dpath, sizeof dpath, "%s.data", path);
    if (size >= 112)
        memcpy(&dsize, data + 104, sizeof dsize);
    fd = open(dpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || (dsize <= FUZZ_POOL_MAX_FILE && ftruncate(fd, (off_t)dsize) != 0))
        abort();
    close(fd);

    static zk_pool *h;
    if (!h && !(h = calloc(1, zk_pool_sizeof())))
        abort();
    struct zk_pool_attach_opts obs = { .name = "fuzz-status", .flags = ZK_POOL_OBSERVER };
    struct zk_pool_attach_opts reg = { .name = "fuzz-attach" };
    if (zk_pool_attach(h, path, &obs) == 0) {
        fuzz_read_pool(h);
        zk_pool_detach(h);
    }
    if (zk_pool_attach(h, path, &reg) == 0) {
        fuzz_read_pool(h);
        zk_pool_detach(h);
    }
    unlink(path);
    unlink(dpath);
    return 0;
}
