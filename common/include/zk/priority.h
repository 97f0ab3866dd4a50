/*
 * priority.h -- the four priority classes of jobs, partitions and slots.
 *
 * A job has a class (low, normal, high, critical; `zkslot submit
 * --priority`, else its key's default, else normal) and optionally a
 * deadline.  synthd claims queued partitions by class (highest first,
 * after aging), then earliest deadline, then oldest job; the class and
 * deadline travel with the partition into its slot, where gpud claims the
 * READY slot of the highest class first.  docs/scheduling.md gives the
 * rules: aging, the reserved slots and workers, deadlines.
 *
 * The values are stored in the ledger and in the pool file: never renumber.
 */
#ifndef ZK_COMMON_PRIORITY_H
#define ZK_COMMON_PRIORITY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum zk_priority {
    ZK_PRIO_LOW = 0,
    ZK_PRIO_NORMAL = 1,
    ZK_PRIO_HIGH = 2,
    ZK_PRIO_CRITICAL = 3,
};
#define ZK_PRIO_COUNT 4                   /* enum zk_priority values: 0 .. 3 */
#define ZK_PRIO_DEFAULT ZK_PRIO_NORMAL

/* "low", "normal", "high", "critical"; "?" if out of range. */
const char *zk_priority_name(int prio);
/* The class named s (exactly one of the names above), or -1. */
int zk_priority_parse(const char *s);

/*
 * A job's deadline as `zkslot submit --deadline` (and the API) spells it,
 * into *ret_ns (CLOCK_REALTIME ns): a duration from now_ns, one or more
 * whole numbers each with a unit ms, s, m, h or d ("30s", "1h30m"; a bare
 * number is seconds), at most 366 days; or a time, RFC 3339 with a zone
 * ("2026-12-02T03:00:00Z", "...+01:00") or "@" and Unix seconds, after
 * now_ns.  0, or -EINVAL (garbage, zero, negative, an invalid date),
 * -ERANGE (too far), -ETIME (a time not after now_ns); *ret_ns untouched
 * then.  Fuzzed: tests/fuzz/fuzz_deadline.c.
 */
int zk_deadline_parse(const char *s, int64_t now_ns, int64_t *ret_ns);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_PRIORITY_H */
