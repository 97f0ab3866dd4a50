/*
 * observe.c -- the snapshot behind `zkslot metrics` and `zkslot top`.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "observe.h"
#include "zk/error.h"

const char *const obs_stage_names[OBS_STAGES] = { "synth", "wait", "start", "finalize",
                                                  "total" };
const double obs_bucket_le[OBS_BUCKETS] = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                            1,     2.5,  5,     10,   30,  120, 1e300 };

struct times_ctx {
    struct obs *o;
    int64_t recent_from;
    double *recent[OBS_STAGES];
    unsigned nrecent, cap;
};

static int on_times(void *ctx, const struct zk_ledger_part_times *t)
{
    struct times_ctx *tc = ctx;
    struct obs *o = tc->o;
    double v[OBS_STAGES] = { t->synth_s, t->wait_s, t->start_s, t->finalize_s,
                             t->queued_ns && t->done_ns > t->queued_ns
                                 ? (double)(t->done_ns - t->queued_ns) * 1e-9 : -1 };
    for (int s = 0; s < OBS_STAGES; s++) {
        if (v[s] < 0)
            continue;
        for (int b = 0; b < OBS_BUCKETS; b++) {
            if (v[s] <= obs_bucket_le[b])
                o->bucket[s][b]++;
        }
        o->sum[s] += v[s];
        o->count[s]++;
    }
    int c = t->priority;
    const double cv[2] = { v[OBS_STAGES - 1], v[1] };   /* total, wait */
    for (int k = 0; k < 2 && c >= 0 && c < ZK_PRIO_COUNT; k++) {
        if (cv[k] < 0)
            continue;
        for (int b = 0; b < OBS_BUCKETS; b++)
            o->class_bucket[k][c][b] += cv[k] <= obs_bucket_le[b];
        o->class_sum[k][c] += cv[k];
        o->class_count[k][c]++;
    }
    if (t->done_ns >= tc->recent_from) {
        if (tc->nrecent == tc->cap) {
            unsigned cap = tc->cap ? 2 * tc->cap : 64;
            for (int s = 0; s < OBS_STAGES; s++) {
                double *p = realloc(tc->recent[s], cap * sizeof *p);
                if (!p)
                    return -1;
                tc->recent[s] = p;
            }
            tc->cap = cap;
        }
        for (int s = 0; s < OBS_STAGES; s++)
            tc->recent[s][tc->nrecent] = v[s];
        tc->nrecent++;
    }
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of the non-negative values of v[0..n); -1 if none. */
static double median_known(double *v, unsigned n)
{
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        if (v[i] >= 0)
            v[k++] = v[i];
    }
    if (!k)
        return -1;
    qsort(v, k, sizeof *v, cmp_d);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

struct daemons_ctx {
    struct obs *o;
    unsigned cap;
};

static int on_daemon(void *ctx, const struct zk_ledger_daemon *d)
{
    struct daemons_ctx *dc = ctx;
    struct obs *o = dc->o;
    if (o->ndaemons == dc->cap) {
        unsigned cap = dc->cap ? 2 * dc->cap : 8;
        struct obs_daemon *p = realloc(o->daemons, cap * sizeof *p);
        if (!p)
            return -1;
        o->daemons = p;
        dc->cap = cap;
    }
    o->daemons[o->ndaemons].d = *d;
    o->daemons[o->ndaemons].alive = 0;
    o->ndaemons++;
    return 0;
}

int obs_collect(struct lcli *c, struct obs *o)
{
    struct zk_diag d;
    struct times_ctx tc;
    struct daemons_ctx dc = { o, 0 };
    int r;

    memset(o, 0, sizeof *o);
    memset(&tc, 0, sizeof tc);
    o->at_ns = lcli_now_ns();
    if (!c->l) {   /* another user's ledger (the daemons'): the pool alone */
        o->no_ledger = 1;
        goto pool;
    }
    if ((r = zk_ledger_totals(c->l, &o->totals, &d)) ||
        (r = (c->local ? zk_ledger_daemon_list : zk_ledger_farm_daemons)(c->l, on_daemon, &dc,
                                                                           &d))) {
        fprintf(stderr, "zkslot %s: %s\n", c->cmd, r == -1 ? "out of memory" : d.msg);
        return -1;
    }
    tc.o = o;
    tc.recent_from = o->at_ns - 60 * 1000000000LL;
    r = zk_ledger_done_times(c->l, 0, on_times, &tc, &d);
    if (!r) {
        o->recent = tc.nrecent;
        for (int s = 0; s < OBS_STAGES; s++)
            o->recent_median[s] = median_known(tc.recent[s], tc.nrecent);
    }
    for (int s = 0; s < OBS_STAGES; s++)
        free(tc.recent[s]);
    if (r) {
        fprintf(stderr, "zkslot %s: %s\n", c->cmd, r == -1 ? "out of memory" : d.msg);
        return -1;
    }

pool:   /* the pool, as an observer */
    snprintf(o->pool_path, sizeof o->pool_path, "%s", c->cfg.pool);
    zk_pool *h = calloc(1, zk_pool_sizeof());
    struct zk_pool_attach_opts ao = { "observer", ZK_POOL_OBSERVER, 0, NULL };
    if (!h)
        return -1;
    if ((r = zk_pool_attach(h, c->cfg.pool, &ao))) {
        snprintf(o->pool_error, sizeof o->pool_error, "%s", zk_strerror(r));
    } else {
        o->have_pool = 1;
        zk_pool_info(h, &o->pool);
        unsigned n = o->pool.nslots < sizeof o->slots - 1 ? o->pool.nslots : sizeof o->slots - 1;
        for (unsigned i = 0; i < n; i++) {
            struct zk_pool_slot_info si;
            static const char letter[] = ".FRC";
            o->slots[i] = zk_pool_slot_info(h, i, &si) == 0 && si.state >= 0 && si.state < 4
                              ? letter[si.state] : '?';
        }
        o->slots[n] = 0;
        for (unsigned i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
            struct zk_pool_attach_info ai;
            if (zk_pool_attach_info(h, i, &ai) == 0)
                o->attached[o->nattached++] = ai;
        }
        zk_pool_detach(h);
    }
    free(h);
    /* this machine's daemons: alive when their pid is attached to its pool;
     * another machine's: when that machine's lease is current (its pids
     * mean nothing here) */
    const char *here = c->l ? zk_ledger_machine(c->l) : "";
    for (unsigned i = 0; i < o->ndaemons; i++) {
        struct obs_daemon *od = &o->daemons[i];
        od->remote = od->d.machine[0] && strcmp(od->d.machine, here);
        if (od->remote)
            od->alive = od->d.lease;
        for (unsigned j = 0; j < o->nattached && !od->remote; j++) {
            if (o->attached[j].pid == od->d.last_pid && o->attached[j].alive)
                od->alive = 1;
        }
    }
    return 0;
}

void obs_free(struct obs *o)
{
    free(o->daemons);
    o->daemons = NULL;
}

int obs_parse_interval(const char *cmd, const char *arg, double *ret)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v > 0)) {
        fprintf(stderr, "zkslot %s: --interval: '%s' is not a positive number\n", cmd, arg);
        return -1;
    }
    *ret = v;
    return 0;
}

void obs_sleep(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL);
}

static void help(FILE *out, const char *name, const char *type, const char *text)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* A daemon's labels: machine (on a shared ledger), role, instance; label
 * values escaped as the text format wants (backslash, quote, newline). */
static const char *daemon_labels(const struct obs_daemon *od, char *buf, size_t n)
{
    const char *v[3] = { od->d.machine, od->d.role, od->d.instance };
    static const char *const k[3] = { "machine", "role", "instance" };
    size_t len = 0;
    buf[0] = 0;
    for (int f = od->d.machine[0] ? 0 : 1; f < 3; f++) {
        len += (size_t)snprintf(buf + len, n - len, "%s%s=\"", len ? "," : "", k[f]);
        for (const char *c = v[f]; *c && len + 3 < n; c++) {
            if (*c == '\\' || *c == '"' || *c == '\n')
                buf[len++] = '\\';
            buf[len++] = *c == '\n' ? 'n' : *c;
        }
        len += (size_t)snprintf(buf + len, n - len, "\"");
        if (len >= n)
            break;
    }
    buf[n - 1] = 0;
    return buf;
}

/* The ledger's part of the exposition: jobs, partitions, stages, daemons. */
static void write_ledger(const struct obs *o, FILE *out)
{
    help(out, "zkslot_partitions", "gauge", "Partitions in the ledger by state.");
    for (int s = 0; s < ZK_PART_STATE_COUNT; s++)
        fprintf(out, "zkslot_partitions{state=\"%s\"} %llu\n", zk_part_state_name(s),
                (unsigned long long)o->totals.parts[s]);
    help(out, "zkslot_jobs", "gauge", "Jobs in the ledger by state.");
    for (int s = 0; s < ZK_JOB_STATE_COUNT; s++)
        fprintf(out, "zkslot_jobs{state=\"%s\"} %llu\n", zk_job_state_name(s),
                (unsigned long long)o->totals.jobs[s]);
    help(out, "zkslot_proofs_total", "counter", "Proofs written (duplicates included).");
    fprintf(out, "zkslot_proofs_total %llu\n", (unsigned long long)o->totals.proofs);
    help(out, "zkslot_partition_errors_total", "counter", "Partition errors recorded.");
    fprintf(out, "zkslot_partition_errors_total %llu\n", (unsigned long long)o->totals.errors);
    help(out, "zkslot_syntheses_total", "counter", "Syntheses started (attempts).");
    fprintf(out, "zkslot_syntheses_total %llu\n", (unsigned long long)o->totals.attempts);
    help(out, "zkslot_proofs_per_second", "gauge", "Partitions done in the last 60 s / 60.");
    fprintf(out, "zkslot_proofs_per_second %.6g\n", o->recent / 60.0);
    help(out, "zkslot_stage_seconds", "histogram",
         "Seconds per stage of every done partition (total = submit to done).");
    for (int s = 0; s < OBS_STAGES; s++) {
        for (int b = 0; b < OBS_BUCKETS; b++) {
            if (b == OBS_BUCKETS - 1)
                fprintf(out, "zkslot_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %llu\n",
                        obs_stage_names[s], (unsigned long long)o->count[s]);
            else
                fprintf(out, "zkslot_stage_seconds_bucket{stage=\"%s\",le=\"%g\"} %llu\n",
                        obs_stage_names[s], obs_bucket_le[b],
                        (unsigned long long)o->bucket[s][b]);
        }
        fprintf(out, "zkslot_stage_seconds_sum{stage=\"%s\"} %.6f\n", obs_stage_names[s],
                o->sum[s]);
        fprintf(out, "zkslot_stage_seconds_count{stage=\"%s\"} %llu\n", obs_stage_names[s],
                (unsigned long long)o->count[s]);
    }
    help(out, "zkslot_queue_partitions", "gauge",
         "Partitions queued (not yet synthesizing) by their job's class.");
    for (int c = 0; c < ZK_PRIO_COUNT; c++)
        fprintf(out, "zkslot_queue_partitions{class=\"%s\"} %llu\n", zk_priority_name(c),
                (unsigned long long)o->totals.queued_class[c]);
    help(out, "zkslot_inflight_partitions", "gauge",
         "Partitions synthesizing, ready or proving by their job's class.");
    for (int c = 0; c < ZK_PRIO_COUNT; c++)
        fprintf(out, "zkslot_inflight_partitions{class=\"%s\"} %llu\n", zk_priority_name(c),
                (unsigned long long)o->totals.inflight_class[c]);
    static const char *const cname[2] = { "zkslot_latency_seconds", "zkslot_wait_seconds" };
    static const char *const chelp[2] = {
        "Submit-to-done seconds of every done partition by its job's class.",
        "Seconds every done partition waited READY for a prover, by its job's class." };
    for (int k = 0; k < 2; k++) {
        help(out, cname[k], "histogram", chelp[k]);
        for (int c = 0; c < ZK_PRIO_COUNT; c++) {
            for (int b = 0; b < OBS_BUCKETS - 1; b++)
                fprintf(out, "%s_bucket{class=\"%s\",le=\"%g\"} %llu\n", cname[k],
                        zk_priority_name(c), obs_bucket_le[b],
                        (unsigned long long)o->class_bucket[k][c][b]);
            fprintf(out, "%s_bucket{class=\"%s\",le=\"+Inf\"} %llu\n", cname[k],
                    zk_priority_name(c), (unsigned long long)o->class_count[k][c]);
            fprintf(out, "%s_sum{class=\"%s\"} %.6f\n", cname[k], zk_priority_name(c),
                    o->class_sum[k][c]);
            fprintf(out, "%s_count{class=\"%s\"} %llu\n", cname[k], zk_priority_name(c),
                    (unsigned long long)o->class_count[k][c]);
        }
    }
    char lb[512];   /* the longest escaped labels fit */
    help(out, "zkslot_daemon_starts_total", "counter", "Times each daemon instance started.");
    for (unsigned i = 0; i < o->ndaemons; i++)
        fprintf(out, "zkslot_daemon_starts_total{%s} %llu\n", daemon_labels(&o->daemons[i], lb,
                sizeof lb), (unsigned long long)o->daemons[i].d.starts);
    help(out, "zkslot_daemon_restarts_total", "counter", "Starts after the first.");
    for (unsigned i = 0; i < o->ndaemons; i++)
        fprintf(out, "zkslot_daemon_restarts_total{%s} %llu\n", daemon_labels(&o->daemons[i], lb,
                sizeof lb),
                (unsigned long long)(o->daemons[i].d.starts ? o->daemons[i].d.starts - 1 : 0));
    help(out, "zkslot_daemon_up", "gauge", "1 if the instance's last process is attached to the "
         "pool and alive (another machine's: that machine's lease is current).");
    for (unsigned i = 0; i < o->ndaemons; i++)
        fprintf(out, "zkslot_daemon_up{%s} %d\n", daemon_labels(&o->daemons[i], lb, sizeof lb),
                o->daemons[i].alive);
}

void obs_write_prometheus(const struct obs *o, FILE *out)
{
    if (!o->no_ledger)   /* another user's ledger: what the pool says only */
        write_ledger(o, out);
    help(out, "zkslot_pool_up", "gauge", "1 if the pool could be read.");
    fprintf(out, "zkslot_pool_up %d\n", o->have_pool);
    if (!o->have_pool)
        return;
    static const char *const st[4] = { "free", "filling", "ready", "claimed" };
    help(out, "zkslot_pool_slots", "gauge", "Pool slots by state.");
    for (int s = 0; s < 4; s++)
        fprintf(out, "zkslot_pool_slots{state=\"%s\"} %u\n", st[s], o->pool.count[s]);
    help(out, "zkslot_pool_slot_bytes", "gauge", "Usable bytes per slot.");
    fprintf(out, "zkslot_pool_slot_bytes %llu\n", (unsigned long long)o->pool.slot_size);
    help(out, "zkslot_pool_bytes", "gauge", "Size of the pool file (the memory bound of the partitions).");
    fprintf(out, "zkslot_pool_bytes %llu\n", (unsigned long long)o->pool.file_size);
    help(out, "zkslot_pool_huge_pages", "gauge", "1 if the pool is backed by huge pages.");
    fprintf(out, "zkslot_pool_huge_pages %d\n", o->pool.backing == ZK_POOL_BACKING_HUGETLBFS);
    static const char *const ev[ZK_PC_COUNT] = { "acquired", "published", "abandoned", "claimed",
                                                 "unclaimed", "released", "reaped_filling",
                                                 "reaped_claimed", "checksum_failures",
                                                 "resyncs" };
    help(out, "zkslot_pool_events_total", "counter", "Slot transitions and recoveries since the pool was created.");
    for (int i = 0; i < ZK_PC_COUNT; i++)
        fprintf(out, "zkslot_pool_events_total{event=\"%s\"} %llu\n", ev[i],
                (unsigned long long)o->pool.counters[i]);
    help(out, "zkslot_pool_attached_processes", "gauge", "Processes attached to the pool.");
    fprintf(out, "zkslot_pool_attached_processes{alive=\"yes\"} %u\n", o->pool.attached_live);
    fprintf(out, "zkslot_pool_attached_processes{alive=\"no\"} %u\n", o->pool.attached_dead);
}
