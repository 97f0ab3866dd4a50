/*
 * proc.c -- process identity (zk/proc.h).
 *
 * The boot is recorded twice: as a digest of the boot id, exact but not
 * the same in every view (systemd-nspawn bind-mounts a container's own
 * over /proc/sys/kernel/random/boot_id; a unit with
 * ProtectKernelTunables= reads the kernel's), and as the boot time
 * (CLOCK_REALTIME - CLOCK_BOOTTIME, /proc/stat's btime), the kernel's in
 * every view but moved by clock steps.  Equal digests: one boot.  Unequal
 * digests: one boot seen from two views if the boot times agree within
 * max(ZK_PROC_BTIME_SLACK_S, half the owner's start time), else (or with
 * no boot time recorded, a record older than the field) a previous boot.
 * The start-time term holds because a previous boot lasted at least until
 * its owner recorded itself, start ticks after that boot began.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "zk/proc.h"

int zk_proc_stat(int32_t pid, char *ret_state, uint64_t *ret_start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ESRCH ? -ENOENT : -errno;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    int err = n < 0 ? -errno : 0;
    close(fd);
    if (err)
        return err == -ESRCH ? -ENOENT : err;
    buf[n] = 0;
    char *p = strrchr(buf, ')');   /* comm may contain spaces and parens */
    if (!p || p[1] != ' ')
        return -EINVAL;
    p += 2;
    char state = *p;
    for (int field = 3; field < 22; field++) {   /* skip to field 22 */
        p = strchr(p, ' ');
        if (!p)
            return -EINVAL;
        p++;
    }
    char *end;
    errno = 0;
    unsigned long long start = strtoull(p, &end, 10);
    if (errno || end == p)
        return -EINVAL;
    *ret_state = state;
    *ret_start = start;
    return 0;
}

/* FNV-1a over the boot id's text; never 0 (0 means "not recorded"). */
static uint64_t boot_digest(void)
{
    char buf[64];
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n <= 0)
        return 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (ssize_t i = 0; i < n && buf[i] != '\n'; i++)
        h = (h ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
    return h ? h : 1;
}

uint64_t zk_proc_btime(void)
{
    struct timespec rt, bt;
    if (clock_gettime(CLOCK_REALTIME, &rt) || clock_gettime(CLOCK_BOOTTIME, &bt))
        return 0;
    int64_t ms = ((int64_t)rt.tv_sec - (int64_t)bt.tv_sec) * 1000 +
                 ((int64_t)rt.tv_nsec - (int64_t)bt.tv_nsec) / 1000000;
    return ms >= 500 ? (uint64_t)((ms + 500) / 1000) : 0;
}

/* Whether owner `id`, whose boot id is not ours, was recorded in this boot
 * as another view saw it: its boot time is recorded and close to ours. */
static int same_boot_time(const struct zk_proc_id *id)
{
    uint64_t now = id->btime ? zk_proc_btime() : 0;
    if (!now)
        return 0;
    long hz = sysconf(_SC_CLK_TCK);
    uint64_t margin = id->start / (uint64_t)(hz > 0 ? hz : 100) / 2;
    if (margin < ZK_PROC_BTIME_SLACK_S)
        margin = ZK_PROC_BTIME_SLACK_S;
    uint64_t diff = now > id->btime ? now - id->btime : id->btime - now;
    return diff <= margin;
}

static uint64_t self_pidns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* The pid /proc/self names: differs from getpid() when /proc belongs to
 * another PID namespace. */
static int32_t proc_self_pid(void)
{
    char buf[32];
    ssize_t n = readlink("/proc/self", buf, sizeof buf - 1);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    return (int32_t)strtol(buf, NULL, 10);
}

/* This process's namespace and boot, cached per pid (a forked child, which
 * may live in a new PID namespace, recomputes).  Racing threads compute
 * and store the same values. */
static struct {
    int32_t pid;
    uint64_t pidns, boot;
} self_cache;

static void self_ns_boot(uint64_t *ret_ns, uint64_t *ret_boot)
{
    int32_t pid = (int32_t)getpid();
    if (__atomic_load_n(&self_cache.pid, __ATOMIC_ACQUIRE) != pid) {
        __atomic_store_n(&self_cache.pidns, self_pidns(), __ATOMIC_RELAXED);
        __atomic_store_n(&self_cache.boot, boot_digest(), __ATOMIC_RELAXED);
        __atomic_store_n(&self_cache.pid, pid, __ATOMIC_RELEASE);
    }
    *ret_ns = __atomic_load_n(&self_cache.pidns, __ATOMIC_RELAXED);
    *ret_boot = __atomic_load_n(&self_cache.boot, __ATOMIC_RELAXED);
}

int zk_proc_self(struct zk_proc_id *ret)
{
    char state;
    uint64_t start;
    int32_t pid = (int32_t)getpid();
    int32_t seen = proc_self_pid();
    if (seen < 0)
        return -errno;
    if (seen != pid)
        return -EXDEV;
    int r = zk_proc_stat(pid, &state, &start);
    if (r < 0)
        return r;
    ret->pid = pid;
    ret->start = start;
    self_ns_boot(&ret->pidns, &ret->boot);
    ret->btime = zk_proc_btime();
    return 0;
}

int zk_proc_alive(const struct zk_proc_id *id, unsigned start_bits)
{
    char state;
    uint64_t start, ns, boot;
    if (id->pid <= 0)
        return 0;
    self_ns_boot(&ns, &boot);
    if (id->boot && boot && id->boot != boot && !same_boot_time(id))
        return 0;                   /* a previous boot's process */
    if (id->pidns && id->pidns != ns)
        return 1;                   /* not ours to judge */
    if (kill(id->pid, 0) < 0 && errno == ESRCH)
        return 0;
    int r = zk_proc_stat(id->pid, &state, &start);
    if (r < 0)
        return 1;                   /* exists (kill said so) but hidden or unreadable */
    if (state == 'Z' || state == 'X' || state == 'x')
        return 0;
    uint64_t mask = start_bits >= 64 ? UINT64_MAX : (1ULL << start_bits) - 1;
    return (start & mask) == (id->start & mask);
}
