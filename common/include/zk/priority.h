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

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_PRIORITY_H */
