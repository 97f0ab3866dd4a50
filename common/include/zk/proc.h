/*
 * proc.h -- process identity that survives pid reuse: pid + start time,
 * with the PID namespace and the boot it belongs to.
 *
 * A pid alone is recycled; (pid, start time in clock ticks since boot,
 * field 22 of /proc/PID/stat) is not.  A pid means something only in its
 * PID namespace, and only until the machine reboots: the identity carries
 * both (the namespace's inode number; the boot as a 64-bit digest of the
 * boot id and as the boot time), so a process judges only owners it can
 * see.  The ledger records all five; the pool packs pid and start time
 * into its state words and keeps namespace and boot in the attach table.
 *
 * Two processes of one boot may read different boot ids: systemd-nspawn
 * bind-mounts its own over /proc/sys/kernel/random/boot_id, and a unit
 * with ProtectKernelTunables= (the daemons) sees the kernel's again.  The
 * boot time (what /proc/stat shows as btime) is the kernel's in both
 * views, so a record whose boot id differs from ours is from another boot
 * only if its boot time differs too (zk_proc_alive says by how much).
 */
#ifndef ZK_COMMON_PROC_H
#define ZK_COMMON_PROC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct zk_proc_id {
    int32_t pid;          /* 0 = nobody */
    uint64_t start;       /* clock ticks since boot */
    uint64_t pidns;       /* inode of /proc/self/ns/pid; 0 = not recorded */
    uint64_t boot;        /* digest of /proc/sys/kernel/random/boot_id; 0 = not recorded */
    uint64_t btime;       /* boot time, seconds since the epoch (/proc/stat's btime);
                             0 = not recorded (a record older than this field) */
};

/* Slack of the boot-time comparison, in seconds (zk_proc_alive). */
#define ZK_PROC_BTIME_SLACK_S 2

/*
 * State letter (R, S, Z, ...) and start time of `pid` from /proc/PID/stat.
 * -ENOENT when the process is gone, -errno / -EINVAL otherwise; the
 * outputs are written only on success.
 */
int zk_proc_stat(int32_t pid, char *ret_state, uint64_t *ret_start);

/*
 * The identity of the calling process, namespace and boot included;
 * -errno if /proc is unreadable, -EXDEV when the /proc mounted here
 * belongs to another PID namespace (its pids are not ours: a container
 * must mount its own).  Cached per process (recomputed after fork).
 */
int zk_proc_self(struct zk_proc_id *ret);

/*
 * The kernel's boot time in seconds since the epoch (CLOCK_REALTIME minus
 * CLOCK_BOOTTIME, rounded: /proc/stat's btime), read now; 0 if unknown or
 * not after the epoch.  A clock step moves it by the step.
 */
uint64_t zk_proc_btime(void);

/*
 * 1 if `id` may still run, 0 if it is known dead.  Dead means one of:
 *  - its boot is a previous boot: its boot id is recorded and is not the
 *    one we read, and its boot time is not recorded or is not ours (off by
 *    more than max(ZK_PROC_BTIME_SLACK_S, half its start time in seconds)).
 *    Sound because a previous boot outlived its owner's start, so its
 *    boot time is at least that start time (since boot) before ours.  Two
 *    errors remain: a previous boot's owner that recorded itself within
 *    the slack of its boot counts as of this boot (then judged by pid and
 *    start time), and a clock stepped by more than the margin between its
 *    recording and our check makes another view's owner a previous boot's.
 *    A matching boot time alone never proves a boot (pids and start times
 *    repeat across deterministic boots): it only lets two views of one
 *    boot id agree;
 *  - kill(pid, 0) fails with ESRCH (EPERM: it exists, someone else's);
 *  - /proc shows a zombie, or a start time that differs (the pid was
 *    reused; compared on the low `start_bits` bits, 64 = all).
 * An owner in another PID namespace (recorded and not ours) cannot be
 * judged from here and counts as alive; so does one /proc hides
 * (hidepid=) or cannot read: presuming a live owner dead would give its
 * work to two processes.
 */
int zk_proc_alive(const struct zk_proc_id *id, unsigned start_bits);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_PROC_H */
