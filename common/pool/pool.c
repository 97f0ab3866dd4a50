/*
 * pool.c -- creating, attaching, detaching and destroying the slot pool,
 * and the read-only views (info, slot and attach iterators).  The protocol
 * itself (acquire/publish/claim/release/reap/check) is in proto.c.
 *
 * A pool is two files (layout.h): the control file at the pool path (or
 * its symlink's target), 0640, which operators map read-only for their
 * views, and the slot data beside it (POOL_DATA_SUFFIX), 0600, which only
 * the daemons' user and root open.  Whoever attaches to write (acquire,
 * publish, claim, release, reap, destroy) opens both read-write, so the
 * files' modes are the rule: only the daemons write the pool, only they
 * read the witnesses in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <pwd.h>
#include <unistd.h>

#include "pool/atomics.h"
#include "pool/layout.h"
#include "zk/binfile.h"
#include "zk/error.h"
#include "zk/pool.h"
#include "zk/proc.h"
#include "zk/util.h"

#define HUGETLBFS_MAGIC_ 0x958458f6L
#define TMPFS_MAGIC_ 0x01021994L
#define POOL_MAGIC_DEAD 0x444145444C4F4F50ULL /* destroyed: attach refuses */

_Static_assert(sizeof(struct zk_pool) <= 128, "handle stays small");

const char *zk_pool_default_path(void)
{
    struct stat st;
    return stat(ZK_POOL_RUN_DIR, &st) == 0 && S_ISDIR(st.st_mode) ? ZK_POOL_RUN_PATH
                                                                 : ZK_POOL_SHM_PATH;
}

size_t zk_pool_sizeof(void)
{
    return sizeof(struct zk_pool);
}

int zk_pool_parse_size(const char *s, uint64_t *ret_bytes)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -EINVAL;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return -ERANGE;
    if (end == s)
        return -EINVAL;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift && *end == 'i')
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end)
        return -EINVAL;
    if (shift && v > (UINT64_MAX >> shift))
        return -ERANGE;
    *ret_bytes = (uint64_t)v << shift;
    return 0;
}

/*
 * The attach table's lock: flock() on the pool file, which the kernel
 * drops when its holder dies (so a holder killed inside the section leaves
 * nothing to recover: the section only stores whole words), and which no
 * byte of the file can forge.  flock() belongs to the open file, not to the
 * thread, so a process-local mutex orders this process's own threads first.
 * 0 or -errno.
 */
static pthread_mutex_t pool_lock_local = PTHREAD_MUTEX_INITIALIZER;

int pool_lock(struct zk_pool *h)
{
    pthread_mutex_lock(&pool_lock_local);
    while (flock(h->fd, LOCK_EX) < 0) {
        if (errno != EINTR) {
            int e = errno;
            pthread_mutex_unlock(&pool_lock_local);
            return -e;
        }
    }
    return 0;
}

void pool_unlock(struct zk_pool *h)
{
    flock(h->fd, LOCK_UN);
    pthread_mutex_unlock(&pool_lock_local);
}

/* Reads one unsigned number from a sysfs file; 0 when unreadable. */
static uint64_t read_u64_file(const char *path)
{
    FILE *f = fopen(path, "re");
    unsigned long long v = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%llu", &v) != 1)
        v = 0;
    fclose(f);
    return v;
}

static uint64_t hugepages_count(uint64_t page_size, const char *what)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/kernel/mm/hugepages/hugepages-%llukB/%s",
             (unsigned long long)(page_size >> 10), what);
    return read_u64_file(path);
}

/* Finds a hugetlbfs mount whose page size has pages reserved. */
static int find_hugetlbfs(char *dir, size_t len, int *ret_unmounted)
{
    FILE *f = fopen("/proc/mounts", "re");
    char line[4096];
    int found = 0;
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        char dev[256], mnt[4096], type[64];
        struct statfs sf;
        if (sscanf(line, "%255s %4095s %63s", dev, mnt, type) != 3)
            continue;
        if (strcmp(type, "hugetlbfs") || strchr(mnt, '\\') || strlen(mnt) >= len)
            continue;
        /* a mount we cannot create files in (root's /dev/hugepages for the
         * zkslot user) is no choice: look for the next one */
        if (access(mnt, W_OK | X_OK))
            continue;
        if (statfs(mnt, &sf) || hugepages_count((uint64_t)sf.f_bsize, "nr_hugepages") == 0)
            continue;
        snprintf(dir, len, "%s", mnt);
        found = 1;
    }
    fclose(f);
    if (!found && read_u64_file("/proc/sys/vm/nr_hugepages") > 0)
        *ret_unmounted = 1;
    return found;
}

/* Splits the choice of backing directory out of zk_pool_create. */
static int choose_dir(const char *path, const struct zk_pool_params *p,
                      struct zk_pool_create_result *res, char *dir, size_t len,
                      int *ret_derived)
{
    struct statfs sf;
    if (p->dir) {
        if (strlen(p->dir) >= len)
            return -ENAMETOOLONG;
        snprintf(dir, len, "%s", p->dir);
    } else if ((p->flags & ZK_POOL_CREATE_TMPFS) ||
               !find_hugetlbfs(dir, len, &res->hugepages_unmounted)) {
        *ret_derived = 1;
        if (zk_path_dir(path, dir, len) < 0)
            return -ENAMETOOLONG;
    }
    if (statfs(dir, &sf) < 0)
        return -errno;
    if ((long)sf.f_type == HUGETLBFS_MAGIC_) {
        res->backing = ZK_POOL_BACKING_HUGETLBFS;
        res->page_size = (uint64_t)sf.f_bsize;
    } else if ((long)sf.f_type == TMPFS_MAGIC_) {
        res->backing = ZK_POOL_BACKING_TMPFS;
        res->page_size = POOL_TMPFS_ALIGN;
    } else {
        return ZK_EBADPARAMS;   /* a disk-backed pool would page to disk */
    }
    if ((p->flags & ZK_POOL_CREATE_TMPFS) && res->backing != ZK_POOL_BACKING_TMPFS)
        return ZK_EBADPARAMS;
    if ((p->flags & ZK_POOL_CREATE_HUGETLB) && res->backing != ZK_POOL_BACKING_HUGETLBFS)
        return ZK_ENOHUGEPAGES;
    return 0;
}

static uint64_t round_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

/* Geometry from the parameters: the control file's size (header, attach
 * table, slot table, page-aligned) and the data file's; ZK_EBADPARAMS /
 * -EOVERFLOW when absurd. */
static int geometry(const struct zk_pool_params *p, uint64_t page, uint64_t *slot_size,
                    uint64_t *ctl_size, uint64_t *data_size)
{
    if (p->nslots == 0 || p->nslots > ZK_POOL_MAX_SLOTS || p->slot_size == 0 ||
        p->slot_size > (UINT64_MAX >> 2))
        return ZK_EBADPARAMS;
    *slot_size = round_up(p->slot_size, page);
    *ctl_size = round_up(POOL_HDR_SIZE + (uint64_t)ZK_POOL_MAX_ATTACH * POOL_ATTACH_SIZE +
                         (uint64_t)p->nslots * POOL_SLOT_SIZE, page);
    if (*slot_size > (UINT64_MAX - *ctl_size) / p->nslots ||
        *ctl_size + *slot_size * p->nslots > (uint64_t)INT64_MAX)
        return -EOVERFLOW;
    *data_size = *slot_size * p->nslots;
    return 0;
}

/* Reserves the data file's memory, slot by slot on its NUMA node. */
static int reserve(int fd, const struct zk_pool_params *p, uint64_t slot_size)
{
    int r = 0;
    for (uint32_t i = 0; i < p->nslots && !r; i++) {
        if (p->n_numa_nodes)
            r = pool_numa_prefer(p->numa_nodes[i % p->n_numa_nodes]);
        if (!r && fallocate(fd, 0, (off_t)(i * slot_size), (off_t)slot_size) < 0)
            r = -errno;
    }
    if (p->n_numa_nodes)
        pool_numa_prefer(-1);
    return r;
}

/* Fills in a fresh control mapping of ctl_size bytes; the magic goes last. */
static int init_mapping(struct pool_hdr *hdr, const struct zk_pool_params *p,
                        const struct zk_pool_create_result *res, uint64_t slot_size,
                        uint64_t ctl_size, uint64_t data_size)
{
    memset(hdr, 0, ctl_size);
    hdr->version = POOL_LAYOUT_VERSION;
    hdr->hdr_size = POOL_HDR_SIZE;
    hdr->attach_entry_size = POOL_ATTACH_SIZE;
    hdr->slot_entry_size = POOL_SLOT_SIZE;
    hdr->nslots = p->nslots;
    hdr->attach_max = ZK_POOL_MAX_ATTACH;
    hdr->backing = (uint32_t)res->backing;
    hdr->sem_size = sizeof(sem_t);
    hdr->page_size = res->page_size;
    hdr->slot_size = slot_size;
    hdr->attach_off = POOL_HDR_SIZE;
    hdr->table_off = POOL_HDR_SIZE + (uint64_t)ZK_POOL_MAX_ATTACH * POOL_ATTACH_SIZE;
    hdr->data_off = 0;
    hdr->file_size = ctl_size;
    hdr->data_size = data_size;
    hdr->created_ns = pool_now_ns();
    if (sem_init(&hdr->sem_free, 1, p->nslots) < 0 || sem_init(&hdr->sem_ready, 1, 0) < 0)
        return -errno;
    struct pool_slot *t = (struct pool_slot *)((unsigned char *)hdr + hdr->table_off);
    for (uint32_t i = 0; i < p->nslots; i++) {
        t[i].index = i;
        t[i].data_off = i * slot_size;
        t[i].numa_node = p->n_numa_nodes ? p->numa_nodes[i % p->n_numa_nodes] : -1;
        t[i].partition_id = t[i].key_id = ZK_POOL_NO_ID;
        t[i].state_ns = hdr->created_ns;
    }
    /* Release: everything above is visible to whoever sees the magic
     * (the file is also renamed into place only after this). */
    zk_store_release(&hdr->magic, POOL_MAGIC);
    return 0;
}

/* The files' modes (a umask may narrow them): operators read the control
 * file, nobody but its owner (the daemons' user) the slot data. */
#define POOL_CTL_MODE 0640
#define POOL_DATA_MODE 0600

/*
 * Builds the new file `tmp`: the data file (is_data: data_size bytes, 0600,
 * its slots reserved on their nodes) or the control file (ctl_size bytes,
 * 0640, mapped and initialised).  Fails with the file removed; a shortage
 * of huge pages is ZK_ENOHUGEPAGES.
 */
static int build_file(const char *tmp, int is_data, const struct zk_pool_params *p,
                      struct zk_pool_create_result *res, uint64_t slot_size, uint64_t ctl_size,
                      uint64_t data_size)
{
    void *map = MAP_FAILED;
    mode_t mode = is_data ? POOL_DATA_MODE : POOL_CTL_MODE;
    uint64_t size = is_data ? data_size : ctl_size;
    int r = 0, fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)size) < 0) {
        r = -errno;
        goto out;
    }
    if (is_data) {
        r = reserve(fd, p, slot_size);
    } else if (fallocate(fd, 0, 0, (off_t)size) < 0) {
        r = -errno;
    } else {
        map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        r = map == MAP_FAILED ? -errno : init_mapping(map, p, res, slot_size, ctl_size, data_size);
    }
    if (r == -ENOSPC && res->backing == ZK_POOL_BACKING_HUGETLBFS)
        r = ZK_ENOHUGEPAGES;
out:
    if (map != MAP_FAILED)
        munmap(map, (size_t)size);
    close(fd);
    if (r)
        unlink(tmp);
    return r;
}

/* Removes `file` if it is still the file `tmp` names (ours, not the one
 * a concurrent create linked there). */
static void unlink_if_same(const char *file, const char *tmp)
{
    struct stat a, b;
    if (stat(file, &a) == 0 && stat(tmp, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        unlink(file);
}

int zk_pool_create(const char *path, const struct zk_pool_params *p,
                   struct zk_pool_create_result *res)
{
    struct zk_pool_create_result local;
    char dir[PATH_MAX], tmp[PATH_MAX + 32], data[PATH_MAX + 8], dtmp[PATH_MAX + 40];
    uint64_t slot_size, ctl_size, data_size;
    struct stat st;
    int r, derived_dir = 0;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    if (!path || !*path || !p)
        return ZK_EBADPARAMS;
    for (unsigned i = 0; i < p->n_numa_nodes; i++) {
        if (p->numa_nodes[i] < 0 || p->numa_nodes[i] >= pool_numa_node_count())
            return ZK_EBADPARAMS;
    }
    if (lstat(path, &st) == 0)
        return -EEXIST;
    if ((r = choose_dir(path, p, res, dir, sizeof dir, &derived_dir)) < 0)
        return r;
    if ((r = geometry(p, res->page_size, &slot_size, &ctl_size, &data_size)) < 0)
        return r;
    res->file_size = ctl_size + data_size;   /* both files: the pool's memory */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!*base || snprintf(res->file, sizeof res->file, "%s/%s", dir, base) >=
                      (int)sizeof res->file)
        return ZK_EBADPARAMS;
    if (derived_dir)   /* data next to the pool path: it is the pool path */
        snprintf(res->file, sizeof res->file, "%s", path);
    if (res->backing == ZK_POOL_BACKING_HUGETLBFS) {
        res->pages_needed = res->file_size / res->page_size;
        res->pages_free = hugepages_count(res->page_size, "free_hugepages");
        res->pages_reserved = hugepages_count(res->page_size, "nr_hugepages");
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", res->file, (int)getpid());
    snprintf(data, sizeof data, "%s" POOL_DATA_SUFFIX, res->file);
    snprintf(dtmp, sizeof dtmp, "%s.tmp.%d", data, (int)getpid());
    if ((r = build_file(dtmp, 1, p, res, slot_size, ctl_size, data_size)) < 0)
        return r;
    if ((r = build_file(tmp, 0, p, res, slot_size, ctl_size, data_size)) < 0) {
        unlink(dtmp);
        return r;
    }
    /* The data first: a control file in place means a complete pool.
     * Never replace an existing pool: a live one's semaphores would be lost.
     * (A data file left by a create that died between the two links is
     * -EEXIST here; zk_pool_destroy removes it.) */
    if (link(dtmp, data) < 0)
        r = -errno;
    else if (link(tmp, res->file) < 0) {
        r = -errno;
        unlink_if_same(data, dtmp);
    }
    unlink(dtmp);
    unlink(tmp);
    if (r < 0)
        return r;
    char *rp = realpath(path, NULL);   /* NULL: path does not exist yet */
    int same = rp && !strcmp(rp, res->file);
    free(rp);
    if (!same && strcmp(path, res->file) && symlink(res->file, path) < 0) {
        r = -errno;
        unlink(res->file);
        unlink(data);
        return r;
    }
    return 0;
}

/* Validates a header read from a control file of `size` bytes.  `legacy`:
 * a version-2 pool (one file) passes too, for zk_pool_destroy. */
static int validate(const struct pool_hdr *h, uint64_t size, int legacy)
{
    if (h->magic == POOL_MAGIC_DEAD)
        return -ENOENT;
    if (h->magic != POOL_MAGIC)
        return ZK_EBADMAGIC;
    int old = legacy && h->version == POOL_LAYOUT_LEGACY;
    if (h->version != POOL_LAYOUT_VERSION && !old)
        return ZK_EVERSION;
    if (h->hdr_size != POOL_HDR_SIZE || h->attach_entry_size != POOL_ATTACH_SIZE ||
        h->slot_entry_size != POOL_SLOT_SIZE || h->attach_max != ZK_POOL_MAX_ATTACH ||
        h->sem_size != sizeof(sem_t))
        return ZK_EPOOL_LAYOUT;
    if (h->nslots == 0 || h->nslots > ZK_POOL_MAX_SLOTS || h->page_size < 4096 ||
        (h->page_size & (h->page_size - 1)) || h->slot_size == 0 ||
        h->slot_size % h->page_size)
        return ZK_EPOOL_LAYOUT;
    if (h->backing != ZK_POOL_BACKING_HUGETLBFS && h->backing != ZK_POOL_BACKING_TMPFS)
        return ZK_EPOOL_LAYOUT;
    struct zk_pool_params p = { .nslots = h->nslots, .slot_size = h->slot_size };
    uint64_t ss, csize, dsize;
    if (geometry(&p, h->page_size, &ss, &csize, &dsize) < 0 || ss != h->slot_size)
        return ZK_EPOOL_LAYOUT;
    if (h->attach_off != POOL_HDR_SIZE ||
        h->table_off != POOL_HDR_SIZE + (uint64_t)ZK_POOL_MAX_ATTACH * POOL_ATTACH_SIZE)
        return ZK_EPOOL_LAYOUT;
    if (old ? h->data_off != csize || h->file_size != csize + dsize
            : h->data_off != 0 || h->file_size != csize || h->data_size != dsize)
        return ZK_EPOOL_LAYOUT;
    return size == h->file_size ? 0 : ZK_ETRUNCATED;
}

/* 1 when the caller is in group `gid` (effective or supplementary). */
static int in_group(gid_t gid)
{
    gid_t g[256];
    if (gid == getegid())
        return 1;
    int n = getgroups(256, g);
    for (int i = 0; i < n; i++) {
        if (g[i] == gid)
            return 1;
    }
    return 0;
}

/* "uid 1001 (name)" */
static const char *user_name(uid_t uid, char *buf, size_t len)
{
    char pwbuf[1024];
    struct passwd pw, *res = NULL;
    if (getpwuid_r(uid, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res)
        snprintf(buf, len, "uid %u (%s)", (unsigned)uid, res->pw_name);
    else
        snprintf(buf, len, "uid %u", (unsigned)uid);
    return buf;
}

/*
 * The owner of the directory `path` is in, when no one else can create
 * files there (its mode has no write bit for others), else -1: that owner
 * put the file there or let it be put.  /dev/shm (1777) has none.
 */
static uid_t dir_owner(const char *path)
{
    char dir[PATH_MAX];
    struct stat st;
    if (zk_path_dir(path, dir, sizeof dir) < 0 || stat(dir, &st) < 0 || (st.st_mode & S_IWOTH))
        return (uid_t)-1;
    return st.st_uid;
}

/*
 * The trust rule of zk_pool_attach for a file (or link) at `path` that
 * `st` describes: owned by us, by root, or by the owner of a directory
 * only its owner (and group) can create files in; for a regular file, not
 * writable by others, and group-writable only for one of our groups.
 */
static int trusted(const char *path, const struct stat *st, int is_link, struct zk_diag *diag)
{
    char who[128];
    uid_t me = geteuid();
    if (st->st_uid != me && st->st_uid != 0 && st->st_uid != dir_owner(path)) {
        char mine[128];
        return zk_diag_set(diag, path, ZK_EUNTRUSTED,
                           "%s is owned by %s, mode %04o: a pool must belong to this user"
                           " (%s), to root, or to the owner of its directory",
                           is_link ? "the symlink" : "the pool file",
                           user_name(st->st_uid, who, sizeof who),
                           (unsigned)(st->st_mode & 07777), user_name(me, mine, sizeof mine));
    }
    if (is_link)
        return 0;
    if (!S_ISREG(st->st_mode))
        return zk_diag_set(diag, path, ZK_EUNTRUSTED, "not a regular file (mode %06o)",
                           (unsigned)st->st_mode);
    if ((st->st_mode & S_IWOTH) || ((st->st_mode & S_IWGRP) && !in_group(st->st_gid)))
        return zk_diag_set(diag, path, ZK_EUNTRUSTED,
                           "owned by %s, mode %04o: writable by %s, who could forge slots"
                           " (chmod o-w,g-w or recreate the pool)",
                           user_name(st->st_uid, who, sizeof who),
                           (unsigned)(st->st_mode & 07777),
                           (st->st_mode & S_IWOTH) ? "every user" : "a group this user is not in");
    return 0;
}

/*
 * Opens the pool file behind `path`: the path itself, or the target of a
 * symlink at `path` (one level; a link owned by another user is refused),
 * never following a further link.  `check`: CHECK_ALL, the trust checks
 * (writers, and observers that ask); CHECK_LINK, only the link's (destroy:
 * it unlinks a link's target, and writes nothing a hostile file could
 * turn against it); 0, none.  The fd, with *ret_st its fstat and ret_file
 * (PATH_MAX bytes) the file opened (path or the link's target).
 */
enum { CHECK_LINK = 1, CHECK_ALL = 2 };

/* The one line a caller that may not write the pool gets. */
static int write_refused(const char *path, const struct stat *st, int e, struct zk_diag *diag)
{
    char who[128];
    return zk_diag_set(diag, path, -e,
                       "%s (owner %s, mode %04o): only the daemons' user and root write the"
                       " pool; other users get read-only views (zkslot pool status, pool"
                       " check, top, metrics)", strerror(e),
                       user_name(st->st_uid, who, sizeof who), (unsigned)(st->st_mode & 07777));
}

static int open_pool_file(const char *path, int writable, int check, struct stat *ret_st,
                          char *ret_file, struct zk_diag *diag)
{
    /* zk_open_shared: a FIFO planted at the name never blocks an observer
     * (O_NONBLOCK), and anything but a regular file is refused in one line */
    int flags = writable ? O_RDWR : O_RDONLY;
    struct zk_diag od = { "" };   /* the refusal of a non-regular file */
    struct stat st;
    int fd = zk_open_shared(path, flags, &st, &od);
    const char *file = path;
    char target[PATH_MAX];
    if (fd == -ELOOP) {
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (lstat(path, &st) < 0 || n <= 0)
            return zk_diag_set(diag, path, -errno, "%s", strerror(errno));
        target[n] = 0;
        int r = check ? trusted(path, &st, 1, diag) : 0;
        if (r < 0)
            return r;
        if (target[0] != '/') {   /* relative to the link's directory */
            char dir[PATH_MAX], full[2 * PATH_MAX];
            int m = zk_path_dir(path, dir, sizeof dir) == 0
                        ? snprintf(full, sizeof full, "%s/%s", dir, target) : -1;
            if (m >= 0 && (size_t)m < sizeof target)
                memcpy(target, full, (size_t)m + 1);
        }
        file = target;
        fd = zk_open_shared(file, flags, &st, &od);
    }
    if (fd == ZK_EUNTRUSTED) {   /* not a regular file: zk_open_shared's line */
        if (diag)
            *diag = od;
        return fd;
    }
    if (fd < 0) {
        int e = -fd;
        if (e == ELOOP)
            return zk_diag_set(diag, path, ZK_EUNTRUSTED, "%s is a symlink to a symlink", file);
        /* a file we may not open: whose is it? (a planted one says so) */
        if ((e == EACCES || e == EPERM) && lstat(file, &st) == 0) {
            /* an operator of this pool (in its group) may not write it;
             * anyone else hears first whose file it is (a planted one) */
            if (writable && in_group(st.st_gid))
                return write_refused(path, &st, e, diag);
            int r = check == CHECK_ALL ? trusted(file, &st, 0, diag) : 0;
            if (r < 0)
                return r;
            if (writable)
                return write_refused(path, &st, e, diag);
            char who[128];
            return zk_diag_set(diag, path, -e, "%s (owner %s, mode %04o)", strerror(e),
                               user_name(st.st_uid, who, sizeof who),
                               (unsigned)(st.st_mode & 07777));
        }
        if (file == path)
            return zk_diag_set(diag, path, -e, "%s", strerror(e));
        return zk_diag_set(diag, path, -e, "symlink to %s: %s", file, strerror(e));
    }
    int r = check == CHECK_ALL ? trusted(file, &st, 0, diag) : 0;
    if (r < 0) {
        close(fd);
        return r;
    }
    *ret_st = st;
    snprintf(ret_file, PATH_MAX, "%s", file);
    return fd;
}

/*
 * Maps the slot data file beside the control file `ctl` (opened by
 * open_pool_file, described by `cst`) into h: read-write for a writer,
 * read-only for an observer, whose attach does without it when the file
 * is not for it to read (h->data stays NULL).  The file must be a regular
 * file of the control file's owner, of data_size bytes, and (for a writer)
 * readable and writable by that owner alone: it holds the witnesses.
 */
static int map_data(struct zk_pool *h, const char *path, const char *ctl,
                    const struct stat *cst, int writable, uint64_t data_size,
                    struct zk_diag *diag)
{
    char file[PATH_MAX + 8], who[128];
    struct stat st;
    if (snprintf(file, sizeof file, "%s" POOL_DATA_SUFFIX, ctl) >= (int)sizeof file)
        return zk_diag_set(diag, path, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
    struct zk_diag od = { "" };
    int fd = zk_open_shared(file, writable ? O_RDWR : O_RDONLY, &st, &od);
    if (fd == ZK_EUNTRUSTED) {   /* a FIFO planted there: refused, not waited on */
        if (diag)
            *diag = od;
        return fd;
    }
    if (fd < 0) {
        int e = -fd;
        if (!writable && (e == EACCES || e == EPERM))
            return 0;   /* an operator: the views need no slot data */
        if (writable && (e == EACCES || e == EPERM) && lstat(file, &st) == 0)
            return write_refused(file, &st, e, diag);
        return zk_diag_set(diag, file, -e, "the pool's slot data: %s", strerror(e));
    }
    int r = 0;
    if (st.st_uid != cst->st_uid ||
             (writable && (st.st_mode & 077)))
        r = zk_diag_set(diag, file, ZK_EUNTRUSTED,
                        "the pool's slot data is owned by %s, mode %04o: it must be a regular"
                        " file of the pool file's owner, mode 0600 (it holds witnesses)",
                        user_name(st.st_uid, who, sizeof who), (unsigned)(st.st_mode & 07777));
    else if ((uint64_t)st.st_size != data_size)
        r = zk_diag_set(diag, file, ZK_ETRUNCATED, "the pool's slot data has %lld bytes, %llu"
                        " expected", (long long)st.st_size, (unsigned long long)data_size);
    if (r == 0) {
        void *m = mmap(NULL, (size_t)data_size, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                       MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
            r = zk_diag_set(diag, file, -errno, "mmap: %s", strerror(errno));
        else {
            h->data = m;
            h->data_len = (size_t)data_size;
        }
    }
    close(fd);
    return r;
}

/* Opens, validates and maps the pool at `path`; the validated geometry is
 * copied into h (the only copy this process uses). */
static int map_pool(struct zk_pool *h, const char *path, struct zk_diag *diag)
{
    struct pool_hdr hdr;
    struct stat st = { 0 };   /* set by open_pool_file when it returns an fd */
    char file[PATH_MAX];
    int destroyer = !!(h->flags & POOL_ATTACH_WRITE);
    int writable = !(h->flags & ZK_POOL_OBSERVER) || destroyer;
    int check = destroyer ? CHECK_LINK
                : writable || (h->flags & ZK_POOL_CHECK_TRUST) ? CHECK_ALL : 0;
    int r = 0, fd = open_pool_file(path, writable, check, &st, file, diag);
    if (fd < 0)
        return fd;
    if ((uint64_t)st.st_size < sizeof hdr) {
        r = st.st_size == 0 ? ZK_EBADMAGIC : ZK_ETRUNCATED;
        goto out;
    }
    ssize_t n = pread(fd, &hdr, sizeof hdr, 0);
    if (n != (ssize_t)sizeof hdr) {
        r = n < 0 ? -errno : ZK_ETRUNCATED;
        goto out;
    }
    if ((r = validate(&hdr, (uint64_t)st.st_size, destroyer)) < 0)
        goto out;
    /* destroy maps only the control part of a version-2 pool */
    size_t len = (size_t)(hdr.version == POOL_LAYOUT_VERSION ? hdr.file_size : hdr.data_off);
    int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
    void *map = mmap(NULL, len, prot, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        r = -errno;
        goto out;
    }
    h->hdr = map;
    h->map_len = len;
    h->nslots = hdr.nslots;
    h->slot_size = hdr.slot_size;
    h->page_size = hdr.page_size;
    h->attach_off = hdr.attach_off;
    h->table_off = hdr.table_off;
    h->fd = fd;   /* kept open: the attach lock (pool_lock) */
    if (!destroyer && (r = map_data(h, path, file, &st, writable, hdr.data_size, diag)) < 0) {
        munmap(map, len);
        h->hdr = NULL;
        close(fd);
        return r;
    }
    return 0;
out:
    close(fd);
    if (r < 0 && diag && !diag->msg[0])
        zk_diag_set(diag, path, r, "%s", zk_strerror(r));
    return r;
}

/* Claims an attach entry for h (empty or dead); -EUSERS when full. */
static int register_self(struct zk_pool *h, const char *name, const struct zk_proc_id *me)
{
    struct pool_attach *t = pool_attach_table(h);
    int r = pool_lock(h);
    if (r < 0)
        return r;
    r = -EUSERS;
    /* Under the lock: a destroy that ran while we mapped wins. */
    if (zk_load_acquire(&h->hdr->magic) != POOL_MAGIC) {
        r = -ENOENT;
        goto out;
    }
    for (int i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
        /* Relaxed: entries change only under the lock we hold. */
        uint64_t o = zk_load_relaxed(&t[i].owner);
        if (o && pool_attach_alive(&t[i], o))
            continue;
        memset(t[i].name, 0, sizeof t[i].name);
        zk_store_relaxed(&t[i].pidns, me->pidns);
        zk_store_relaxed(&t[i].boot, me->boot);
        zk_store_relaxed(&t[i].btime, me->btime);
        if (name)
            strncpy(t[i].name, name, sizeof t[i].name - 1);
        zk_store_relaxed(&t[i].attach_ns, pool_now_ns());
        /* Release: lock-free readers (status) that see the owner see the name. */
        zk_store_release(&t[i].owner, h->owner);
        h->attach_idx = i;
        r = 0;
        break;
    }
out:
    pool_unlock(h);
    return r;
}

int zk_pool_attach(zk_pool *h, const char *path, const struct zk_pool_attach_opts *opts)
{
    struct zk_diag *diag = opts ? opts->diag : NULL;
    struct zk_proc_id me = { 0 };
    int r;
    memset(h, 0, sizeof *h);
    if (diag)
        diag->msg[0] = 0;
    h->attach_idx = -1;
    h->fd = -1;
    h->flags = opts ? opts->flags : 0;
    h->tick_ms = opts && opts->tick_ms ? opts->tick_ms : 100;
    h->pid = (int32_t)getpid();
    if (!(h->flags & ZK_POOL_OBSERVER) && (r = pool_self_owner(&h->owner, &me)) < 0)
        return zk_diag_set(diag, "/proc/self", r, "%s", r == -EXDEV
                               ? "the /proc mounted here is another PID namespace's"
                               : zk_strerror(r));
    if ((r = map_pool(h, path, diag)) < 0) {
        h->hdr = NULL;
        return r;
    }
    if (h->flags & ZK_POOL_OBSERVER)
        return 0;
    if ((r = register_self(h, opts ? opts->name : NULL, &me)) < 0)
        goto fail;
    if (!(h->flags & ZK_POOL_NO_REAP) && (r = zk_pool_reap(h, 0, NULL, NULL, NULL)) < 0)
        goto fail;
    return 0;
fail:
    zk_diag_set(diag, path, r, "%s", zk_strerror(r));
    zk_pool_detach(h);
    return r;
}

void zk_pool_detach(zk_pool *h)
{
    if (!h || !h->hdr)
        return;
    if (h->attach_idx >= 0 && h->pid == (int32_t)getpid()) {
        uint64_t mine = h->owner;
        /* Release: nothing of ours is pending once the entry reads empty.
         * CAS so that a reaper that already cleared it is not undone. */
        zk_cas_release(&pool_attach_table(h)[h->attach_idx].owner, &mine, 0);
    }
    munmap(h->hdr, h->map_len);
    if (h->data)
        munmap(h->data, h->data_len);
    close(h->fd);
    memset(h, 0, sizeof *h);
    h->attach_idx = -1;
    h->fd = -1;
}

/* Live attached processes other than the caller's own process. */
static unsigned live_others(const struct zk_pool *h)
{
    const struct pool_attach *t = pool_attach_table(h);
    unsigned n = 0;
    int32_t self = (int32_t)getpid();
    for (int i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
        /* Acquire: pairs with the release in register_self. */
        uint64_t o = zk_load_acquire(&t[i].owner);
        if (o && owner_pid(o) != self && pool_attach_alive(&t[i], o))
            n++;
    }
    return n;
}

unsigned pool_live_others(const struct zk_pool *h)
{
    return live_others(h);
}

/* Removes the pool path, the control file when the path is a symlink to
 * it, and the slot data beside the control file (none in a version-2 pool). */
static int unlink_pool(const char *path)
{
    char target[PATH_MAX], data[PATH_MAX + 8];
    struct stat st;
    snprintf(data, sizeof data, "%s" POOL_DATA_SUFFIX, path);
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 0) {
            target[n] = 0;
            unlink(target);
            if (target[0] == '/')
                snprintf(data, sizeof data, "%s" POOL_DATA_SUFFIX, target);
            else if (zk_path_dir(path, data, sizeof data) == 0 &&
                     strlen(data) + strlen(target) + 8 < sizeof data)
                strcat(strcat(strcat(data, "/"), target), POOL_DATA_SUFFIX);
        }
    }
    int r = unlink(path) < 0 ? -errno : 0;
    unlink(data);
    return r;
}

int zk_pool_destroy(const char *path, int force, unsigned *ret_live)
{
    struct zk_pool h;
    struct stat st;
    /* unregistered, but mapped writable: it marks the header dead */
    struct zk_pool_attach_opts o = { .flags = ZK_POOL_OBSERVER | POOL_ATTACH_WRITE };
    int r = zk_pool_attach(&h, path, &o);
    if (r == -ENOENT && lstat(path, &st) == 0) {
        /* a dangling symlink, or a pool marked destroyed by a destroy that
         * died before unlinking: finish the job */
        if (ret_live)
            *ret_live = 0;
        return unlink_pool(path);
    }
    char data[PATH_MAX + 8];
    snprintf(data, sizeof data, "%s" POOL_DATA_SUFFIX, path);
    if (r == -ENOENT && lstat(data, &st) == 0 && S_ISREG(st.st_mode) &&
        (st.st_uid == geteuid() || geteuid() == 0)) {
        /* only the slot data of a create that died before its control
         * file was linked */
        if (ret_live)
            *ret_live = 0;
        return unlink(data) < 0 ? -errno : 0;
    }
    if (r < 0)
        return r;
    if ((r = pool_lock(&h)) < 0)
        goto out;
    unsigned live = live_others(&h);
    if (ret_live)
        *ret_live = live;
    if (live && !force) {
        pool_unlock(&h);
        r = ZK_EBUSY;
        goto out;
    }
    /* Release under the lock: attaches still in flight see a dead pool. */
    zk_store_release(&h.hdr->magic, POOL_MAGIC_DEAD);
    pool_unlock(&h);
    r = unlink_pool(path);
out:
    zk_pool_detach(&h);
    return r;
}

int zk_pool_mapping(const zk_pool *h, void **ret_base, size_t *ret_len)
{
    if (!h || !h->hdr)
        return ZK_ESTATE;
    *ret_base = h->hdr;
    *ret_len = h->map_len;
    return 0;
}

int zk_pool_data_mapping(const zk_pool *h, void **ret_base, size_t *ret_len)
{
    if (!h || !h->hdr || !h->data)
        return ZK_ESTATE;
    *ret_base = h->data;
    *ret_len = h->data_len;
    return 0;
}

int zk_pool_data_readable(const zk_pool *h)
{
    return h && h->data;
}

void zk_pool_info(const zk_pool *h, struct zk_pool_info *ret)
{
    const struct pool_hdr *hdr = h->hdr;
    memset(ret, 0, sizeof *ret);
    ret->backing = (int)hdr->backing;   /* display only */
    ret->nslots = h->nslots;
    ret->slot_size = h->slot_size;
    ret->page_size = h->page_size;
    ret->file_size = h->map_len + (uint64_t)h->nslots * h->slot_size;   /* both files */
    ret->created_ns = zk_load_relaxed(&hdr->created_ns);
    sem_getvalue((sem_t *)&hdr->sem_free, &ret->sem_free);
    sem_getvalue((sem_t *)&hdr->sem_ready, &ret->sem_ready);
    for (uint32_t i = 0; i < h->nslots; i++) {
        /* Relaxed: a status snapshot, no data is read through it. */
        ret->count[word_state(zk_load_relaxed(&pool_slot(h, i)->state))]++;
    }
    const struct pool_attach *t = pool_attach_table(h);
    for (int i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
        uint64_t o = zk_load_relaxed(&t[i].owner);   /* relaxed: statistics */
        if (o && pool_attach_alive(&t[i], o))
            ret->attached_live++;
        else if (o)
            ret->attached_dead++;
    }
    for (int i = 0; i < ZK_PC_COUNT; i++)
        ret->counters[i] = zk_load_relaxed(&hdr->counters[i]);   /* relaxed: statistics */
}

int zk_pool_slot_info(const zk_pool *h, uint32_t index, struct zk_pool_slot_info *ret)
{
    if (index >= h->nslots)
        return ZK_ERANGE;
    const struct pool_slot *s = pool_slot(h, index);
    /* Acquire: the metadata read below is at least as new as this word. */
    uint64_t w = zk_load_acquire(&s->state);
    memset(ret, 0, sizeof *ret);
    ret->index = index;
    ret->state = word_state(w);
    ret->numa_node = s->numa_node;
    ret->owner_alive = -1;
    if (ret->state == ZK_SLOT_FILLING || ret->state == ZK_SLOT_CLAIMED) {
        ret->owner_pid = owner_pid(word_low(w));
        ret->owner_alive = pool_owner_alive(h, word_low(w));
    }
    /* Relaxed loads: fields may be rewritten by their holder meanwhile; a
     * status line may mix two moments, nothing acts on it. */
    ret->partition_id = zk_load_relaxed(&s->partition_id);
    ret->key_id = zk_load_relaxed(&s->key_id);
    ret->bytes = zk_load_relaxed(&s->total_bytes);
    ret->capacity = h->slot_size;
    ret->state_ns = zk_load_relaxed(&s->state_ns);
    ret->fill_ns = zk_load_relaxed(&s->fill_ns);
    ret->claim_ns = zk_load_relaxed(&s->claim_ns);
    ret->checksum = zk_load_relaxed(&s->checksum);
    ret->priority = (uint32_t)zk_load_relaxed(&s->priority);
    ret->deadline_ns = zk_load_relaxed(&s->deadline_ns);
    ret->reserved = zk_pool_slot_reserved(h, index);
    return 0;
}

int zk_pool_attach_info(const zk_pool *h, unsigned i, struct zk_pool_attach_info *ret)
{
    if (i >= ZK_POOL_MAX_ATTACH)
        return ZK_ERANGE;
    const struct pool_attach *t = pool_attach_table(h) + i;
    /* Acquire: pairs with register_self's release, so the name is complete. */
    uint64_t o = zk_load_acquire(&t->owner);
    if (!o)
        return -ENOENT;
    memset(ret, 0, sizeof *ret);
    ret->pid = owner_pid(o);
    ret->alive = pool_attach_alive(t, o);
    ret->attach_ns = zk_load_relaxed(&t->attach_ns);
    memcpy(ret->name, t->name, sizeof ret->name - 1);
    return 0;
}

const char *zk_slot_state_name(int state)
{
    static const char *const names[] = { "FREE", "FILLING", "READY", "CLAIMED" };
    return state >= 0 && state < 4 ? names[state] : "INVALID";
}
