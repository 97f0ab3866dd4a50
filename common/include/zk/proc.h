/*
 * proc.h -- process identity that survives pid reuse: pid + start time,
 * with the PID namespace and the boot it belongs to.
 *
 * A pid alone is recycled; (pid, start time in clock ticks since boot,
 * field 22 of /proc/PID/stat) is not.  A pid means something only in its
 * PID namespace, and only until the machine reboots: the identity carries
 * both (the namespace's inode number, a 64-bit digest of the kernel's boot
 * id), so a process judges only owners it can see.  The ledger records
 * all four; the pool packs pid and start time into its state words and
 * keeps namespace and boot in the attach table.
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
};

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
 * 1 if `id` may still run, 0 if it is known dead.  Dead means one of:
 *  - its boot is recorded and is not this boot (a previous boot's owner);
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
