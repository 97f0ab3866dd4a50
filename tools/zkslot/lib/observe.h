/*
 * observe.h -- one snapshot of the whole system for `zkslot metrics` and
 * `zkslot top`: the ledger's counts, daemon starts and stage times, and the
 * pool's slots, counters and attached processes (read as an observer: it
 * never changes the pool).
 */
#ifndef ZK_TOOLS_OBSERVE_H
#define ZK_TOOLS_OBSERVE_H

#include <stdint.h>
#include <stdio.h>

#include "ledger_cli.h"
#include "zk/pool.h"

#define OBS_STAGES 5                   /* synth, wait, start, finalize, total */
#define OBS_BUCKETS 14

extern const char *const obs_stage_names[OBS_STAGES];
extern const double obs_bucket_le[OBS_BUCKETS];   /* upper bounds, last = +Inf */

struct obs_daemon {
    struct zk_ledger_daemon d;         /* d.machine: "" or this one, or another's */
    int remote;                        /* of another machine (a shared ledger) */
    int alive;                         /* this machine's: attached to the pool and
                                          alive now; another's: its machine's
                                          lease is current */
};

struct obs {
    int64_t at_ns;
    int no_ledger;                     /* c->l NULL (another user's ledger): the
                                          ledger's fields are zero, not shown */
    struct zk_ledger_totals totals;
    struct obs_daemon *daemons;
    unsigned ndaemons;
    /* histograms over every done partition (cumulative) */
    uint64_t bucket[OBS_STAGES][OBS_BUCKETS];
    double sum[OBS_STAGES];
    uint64_t count[OBS_STAGES];
    /* submit-to-done ("total", CLASS_TOTAL) and READY-to-claimed ("wait",
     * CLASS_WAIT) of every done partition, by its job's class */
#define OBS_CLASS_TOTAL 0
#define OBS_CLASS_WAIT 1
    uint64_t class_bucket[2][ZK_PRIO_COUNT][OBS_BUCKETS];
    double class_sum[2][ZK_PRIO_COUNT];
    uint64_t class_count[2][ZK_PRIO_COUNT];
    /* the last 60 s */
    unsigned recent;                   /* partitions done */
    double recent_median[OBS_STAGES];
    /* the pool */
    int have_pool;
    char pool_path[1024];
    char pool_error[256];
    struct zk_pool_info pool;
    char slots[4096 + 1];              /* one letter per slot: . F R C */
    struct zk_pool_attach_info attached[ZK_POOL_MAX_ATTACH];
    unsigned nattached;
};

/* Fills *o from the ledger (open in c; NULL: none, o->no_ledger) and the
 * pool of c->cfg: the daemons of the whole farm on a shared ledger, this
 * machine's with c->local.  0 or -1 (printed). */
int obs_collect(struct lcli *c, struct obs *o);
void obs_free(struct obs *o);

/* --interval S of `zkslot CMD`: a positive number of seconds; 0, or -1 printed. */
int obs_parse_interval(const char *cmd, const char *arg, double *ret);
/* Sleeps s seconds. */
void obs_sleep(double s);

/* Prometheus text exposition (version 0.0.4) of *o. */
void obs_write_prometheus(const struct obs *o, FILE *out);

#endif /* ZK_TOOLS_OBSERVE_H */
