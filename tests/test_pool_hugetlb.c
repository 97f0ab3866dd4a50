/*
 * test_pool_hugetlb.c -- the slot pool on hugetlbfs.  Needs root: reserves
 * a few 2 MiB pages (echo N > /proc/sys/vm/nr_hugepages), mounts a private
 * hugetlbfs, and restores both afterwards.  Exits 77 with the reason when
 * that is not possible.  Concurrent runs are serialised by a lock file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "zk/error.h"
#include "zk/pool.h"
#include "zktest.h"

#define NR_PATH "/proc/sys/vm/nr_hugepages"
#define FREE_PATH "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"

static long orig_nr = -1;
static char mnt[64];
static int mounted;
static char path[256];

static long read_long(const char *p)
{
    FILE *f = fopen(p, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

static int write_long(const char *p, long v)
{
    FILE *f = fopen(p, "w");
    if (!f)
        return -1;
    int r = fprintf(f, "%ld\n", v) > 0 ? 0 : -1;
    return fclose(f) == 0 ? r : -1;
}

static void cleanup(void)
{
    zk_pool_destroy(path, 1, NULL);
    if (mounted)
        umount(mnt);
    if (mnt[0])
        rmdir(mnt);
    if (orig_nr >= 0)
        write_long(NR_PATH, orig_nr);
    mounted = 0;
    mnt[0] = 0;
    orig_nr = -1;
}

static void skip(const char *why)
{
    cleanup();
    zt_skip(why);
}

int main(int argc, char **argv)
{
    enum { NEED = 4 };   /* metadata page + 3 slots of 2 MiB */
    zt_init(argc, argv);
    if (geteuid() != 0)
        zt_skip("reserving huge pages needs root");
    if (read_long(NR_PATH) < 0 || read_long(FREE_PATH) < 0)
        zt_skip("no 2 MiB huge page support in this kernel");
    int lock = open("/tmp/zkslot-hugepages.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (lock < 0 || flock(lock, LOCK_EX) < 0)
        zt_skip("cannot take /tmp/zkslot-hugepages.lock");
    snprintf(path, sizeof path, "/dev/shm/zkslot-hugetlb-%d.pool", (int)getpid());
    atexit(cleanup);   /* also after a failed ZT_REQUIRE or a skip */
    orig_nr = read_long(NR_PATH);
    long free0 = read_long(FREE_PATH);
    if (write_long(NR_PATH, orig_nr + NEED) < 0 || read_long(FREE_PATH) < free0 + NEED)
        skip("the kernel could not reserve 4 more huge pages (memory fragmented?)");
    snprintf(mnt, sizeof mnt, "/tmp/zkslot-hugetlbfs-XXXXXX");
    if (!mkdtemp(mnt)) {
        mnt[0] = 0;
        skip("mkdtemp failed");
    }
    if (mount("none", mnt, "hugetlbfs", 0, "pagesize=2M") < 0)
        skip("mount -t hugetlbfs is not permitted here");
    mounted = 1;
    long avail = read_long(FREE_PATH);
    printf("  reserved %d pages (nr_hugepages %ld -> %ld), %ld free, mounted %s\n", NEED,
           orig_nr, orig_nr + NEED, avail, mnt);

    /* shortage: more slots than pages fails at creation, nothing left behind */
    struct zk_pool_params p = { .nslots = (uint32_t)avail + 2, .slot_size = 2 << 20, .dir = mnt };
    struct zk_pool_create_result res;
    int r = zk_pool_create(path, &p, &res);
    ZT_CHECK(r == ZK_ENOHUGEPAGES, "shortage: %s", zk_strerror(r));
    ZT_CHECK(res.backing == ZK_POOL_BACKING_HUGETLBFS && res.page_size == (2u << 20));
    ZT_CHECK(res.pages_needed == (uint64_t)avail + 3 && res.pages_free == (uint64_t)avail,
             "needed %llu free %llu", (unsigned long long)res.pages_needed,
             (unsigned long long)res.pages_free);
    ZT_CHECK(access(path, F_OK) != 0 && access(res.file, F_OK) != 0, "left a file behind");
    ZT_CHECK(read_long(FREE_PATH) == avail, "pages leaked by the failed create");

    /* the real thing: 3 slots in 4 pages, the well-known path a symlink */
    p.nslots = 3;
    p.flags = ZK_POOL_CREATE_HUGETLB;
    r = zk_pool_create(path, &p, &res);
    ZT_REQUIRE(r == 0, zt_finish(), "create: %s", zk_strerror(r));
    ZT_CHECK(res.backing == ZK_POOL_BACKING_HUGETLBFS && !strncmp(res.file, mnt, strlen(mnt)));
    struct stat st;
    ZT_CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    ZT_CHECK(read_long(FREE_PATH) == avail - NEED, "fallocate reserved every page up front");
    zk_pool *h = calloc(1, zk_pool_sizeof());
    ZT_REQUIRE(zk_pool_attach(h, path, NULL) == 0, zt_finish());
    struct zk_pool_info in;
    zk_pool_info(h, &in);
    ZT_CHECK(in.backing == ZK_POOL_BACKING_HUGETLBFS && in.nslots == 3);
    struct zk_slot s, c;
    struct zk_pool_writer w;
    unsigned char buf[100000];
    zt_rand_bytes(buf, sizeof buf);
    for (int round = 0; round < 5; round++) {
        ZT_CHECK(zk_pool_acquire(h, (uint64_t)round, 9, 0, NULL, &s) == 0);
        ZT_CHECK(((uintptr_t)s.data & ((2u << 20) - 1)) == 0, "slot not huge-page aligned");
        zk_pool_writer_init(&w, &s);
        ZT_CHECK(zk_pool_writer_region(&w, 0) == 0);
        ZT_CHECK(zk_pool_writer_put(&w, buf, sizeof buf) == 0);
        ZT_CHECK(zk_pool_publish(h, &s, zk_pool_writer_finish(&w)) == 0);
        ZT_CHECK(zk_pool_claim(h, ZK_POOL_ANY_NODE, 0, 0, NULL, &c) == 0);
        ZT_CHECK(c.partition_id == (uint64_t)round && c.checksum == XXH3_64bits(buf, sizeof buf));
        ZT_CHECK(zk_pool_release(h, &c) == 0);
    }
    ZT_CHECK(zk_pool_check(h, NULL, NULL) == 0);
    zk_pool_detach(h);
    free(h);
    ZT_CHECK(zk_pool_destroy(path, 0, NULL) == 0);
    ZT_CHECK(lstat(path, &st) != 0 && access(res.file, F_OK) != 0, "destroy left files");
    ZT_CHECK(read_long(FREE_PATH) == avail, "destroy gave the pages back");

    /* automatic choice: a mounted hugetlbfs with reserved pages is used */
    p.dir = NULL;
    p.flags = 0;
    p.nslots = 1;
    r = zk_pool_create(path, &p, &res);
    ZT_CHECK(r == 0 && res.backing == ZK_POOL_BACKING_HUGETLBFS, "auto: %s backing %d",
             zk_strerror(r), res.backing);
    ZT_CHECK(zk_pool_destroy(path, 0, NULL) == 0);
    long want = orig_nr;
    cleanup();
    ZT_CHECK(read_long(NR_PATH) == want, "nr_hugepages restored");
    close(lock);
    return zt_finish();
}
