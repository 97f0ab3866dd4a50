/*
 * proc.h -- process identity that survives pid reuse: pid + start time.
 *
 * A pid alone is recycled; (pid, start time in clock ticks since boot,
 * field 22 of /proc/PID/stat) is not.  The ledger records owners this way;
 * the pool packs the same two numbers into its state words.
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
};

/*
 * State letter (R, S, Z, ...) and start time of `pid` from /proc/PID/stat.
 * -ENOENT when the process is gone, -errno / -EINVAL otherwise; the
 * outputs are written only on success.
 */
int zk_proc_stat(int32_t pid, char *ret_state, uint64_t *ret_start);

/* The identity of the calling process; -errno if /proc is unreadable. */
int zk_proc_self(struct zk_proc_id *ret);

/*
 * 1 if `id` still runs, 0 if it is gone, a zombie, or its pid now belongs
 * to another process (start time differs; compared on the low
 * `start_bits` bits, 64 = all).  When /proc cannot tell (permission), 1:
 * presuming a live owner dead would give its work to two processes.
 */
int zk_proc_alive(const struct zk_proc_id *id, unsigned start_bits);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_PROC_H */
