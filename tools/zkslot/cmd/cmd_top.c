/*
 * cmd_top.c -- `zkslot top [--once] [--interval S]`: a live view of the
 * pool, the daemons, the jobs and the throughput, redrawn every S seconds
 * (default 1) until interrupted; --once prints one frame and exits.
 * Common options: --config FILE, --state-dir DIR, --pool PATH.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "ledger_cli.h"
#include "local_route.h"
#include "observe.h"
#include "zk/util.h"

struct running_ctx {
    FILE *out;
    unsigned shown;
};

static int on_job(void *ctx, const struct zk_ledger_job *j)
{
    struct running_ctx *rc = ctx;
    char age[32];
    if (j->state != ZK_JOB_QUEUED && j->state != ZK_JOB_RUNNING)
        return 0;
    if (++rc->shown > 10)
        return 0;
    fprintf(rc->out,
            "  job %-5lld %-20s %-8s %-8s %3u/%-3u done  synth %u  ready %u  proving %u  "
            "queued %u  age %s\n",
            (long long)j->id, j->key_name, zk_job_state_name(j->state),
            zk_priority_name(j->priority), j->count[ZK_PART_DONE],
            j->nparts, j->count[ZK_PART_SYNTHESIZING], j->count[ZK_PART_READY],
            j->count[ZK_PART_PROVING], j->count[ZK_PART_QUEUED],
            lcli_duration(lcli_now_ns() - j->submitted_ns, age, sizeof age));
    return 0;
}

static void secs(char *buf, size_t n, double s)
{
    if (s < 0)
        snprintf(buf, n, "-");
    else if (s < 1)
        snprintf(buf, n, "%.0f ms", s * 1e3);
    else
        snprintf(buf, n, "%.2f s", s);
}

static int frame(struct lcli *c, FILE *out)
{
    struct obs o;
    char when[32], b[OBS_STAGES][32];
    time_t now = time(NULL);
    struct tm tm;

    if (obs_collect(c, &o))
        return -1;
    localtime_r(&now, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    char url[sizeof c->ledger_path];   /* shown without its password */
    fprintf(out, "zkslot top  %s  ledger %s\n", when,
            zk_ledger_url_redact(c->ledger_path, url, sizeof url));
    if (o.have_pool) {
        char ssz[32];
        fprintf(out, "pool   %s: %u slots x %s, %s\n", o.pool_path, o.pool.nslots,
                zk_size_human(o.pool.slot_size, ssz, sizeof ssz),
                o.pool.backing == ZK_POOL_BACKING_HUGETLBFS ? "huge pages" : "tmpfs (no huge pages)");
        fprintf(out, "slots  [%s]  free %u  filling %u  ready %u  claimed %u\n", o.slots,
                o.pool.count[ZK_SLOT_FREE], o.pool.count[ZK_SLOT_FILLING],
                o.pool.count[ZK_SLOT_READY], o.pool.count[ZK_SLOT_CLAIMED]);
        fprintf(out, "       reaped %llu filling + %llu claimed, checksum failures %llu\n",
                (unsigned long long)o.pool.counters[ZK_PC_REAPED_FILLING],
                (unsigned long long)o.pool.counters[ZK_PC_REAPED_CLAIMED],
                (unsigned long long)o.pool.counters[ZK_PC_CHECKSUM_FAIL]);
    } else {
        fprintf(out, "pool   %s: %s\n", o.pool_path, o.pool_error);
    }
    if (o.no_ledger) {   /* the daemons' alone: jobs through zkslot-apid */
        fprintf(out, "ledger the daemons' alone: jobs, partitions and daemons not shown "
                "(`zkslot status` lists your jobs through zkslot-apid)\n");
        obs_free(&o);
        return 0;
    }
    fprintf(out, "daemons");
    if (!o.ndaemons)
        fprintf(out, " none started yet");
    for (unsigned i = 0; i < o.ndaemons; i++) {
        const struct obs_daemon *od = &o.daemons[i];
        if (od->remote)   /* its pid is its machine's: its lease says whether it lives */
            fprintf(out, "%s %s@%s on %s %s (starts %llu)", i ? "," : "", od->d.role,
                    od->d.instance, od->d.machine, od->alive ? "lease ok" : "LEASE EXPIRED",
                    (unsigned long long)od->d.starts);
        else
            fprintf(out, "%s %s@%s pid %d %s (starts %llu)", i ? "," : "", od->d.role,
                    od->d.instance, (int)od->d.last_pid, od->alive ? "up" : "DOWN",
                    (unsigned long long)od->d.starts);
    }
    fprintf(out, "\n");
    const uint64_t *p = o.totals.parts;
    fprintf(out, "parts  queued %llu  synthesizing %llu  ready %llu  proving %llu  done %llu  "
                 "failed %llu  canceled %llu\n",
            (unsigned long long)p[0], (unsigned long long)p[1], (unsigned long long)p[2],
            (unsigned long long)p[3], (unsigned long long)p[4], (unsigned long long)p[5],
            (unsigned long long)p[6]);
    fprintf(out, "class  queued/in flight:");
    for (int c = ZK_PRIO_COUNT - 1; c >= 0; c--)
        fprintf(out, "  %s %llu/%llu", zk_priority_name(c),
                (unsigned long long)o.totals.queued_class[c],
                (unsigned long long)o.totals.inflight_class[c]);
    fprintf(out, "\n");
    fprintf(out, "rate   %u proofs in the last 60 s (%.2f/s); %llu proofs in all, %llu errors\n",
            o.recent, o.recent / 60.0, (unsigned long long)o.totals.proofs,
            (unsigned long long)o.totals.errors);
    for (int s = 0; s < OBS_STAGES; s++)
        secs(b[s], sizeof b[s], o.recent_median[s]);
    fprintf(out, "stages (median, last 60 s)  synth %s  wait %s  start %s  finalize %s  "
                 "submit-to-proof %s\n", b[0], b[1], b[2], b[3], b[4]);
    fprintf(out, "jobs   queued %llu  running %llu  done %llu  failed %llu  canceled %llu\n",
            (unsigned long long)o.totals.jobs[0], (unsigned long long)o.totals.jobs[1],
            (unsigned long long)o.totals.jobs[2], (unsigned long long)o.totals.jobs[3],
            (unsigned long long)o.totals.jobs[4]);
    struct running_ctx rc = { out, 0 };
    struct zk_diag d;
    if (zk_ledger_job_list(c->l, on_job, &rc, &d) < 0)
        fprintf(out, "  (jobs: %s)\n", d.msg);
    if (rc.shown > 10)
        fprintf(out, "  ... and %u more\n", rc.shown - 10);
    obs_free(&o);
    return 0;
}

#define TOP_USAGE                                                                          \
    "usage: zkslot top [--once] [--interval S] [--local] [--config FILE] [--state-dir DIR]\n" \
    "                  [--pool PATH]\n"                                                     \
    "  on a shared ledger every machine's daemons; --local: this machine's only\n"

int cmd_top(int argc, char **argv)
{
    static const struct option opts[] = { LCLI_OPTIONS,
                                          { "pool", required_argument, 0, 'p' },
                                          { "once", no_argument, 0, '1' },
                                          { "interval", required_argument, 0, 'i' },
                                          { "local", no_argument, 0, 'H' },
                                          { 0, 0, 0, 0 } };
    struct lcli c;
    const char *pool = NULL;
    double interval = 1;
    int once = 0, o, rc = 0;

    if (cmd_help) {   /* without arguments top would run */
        fputs(TOP_USAGE, stderr);
        return 2;
    }
    memset(&c, 0, sizeof c);
    c.cmd = "top";
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (lcli_option(&c, o, optarg))
            continue;
        if (o == 'p') {
            pool = optarg;
        } else if (o == '1') {
            once = 1;
        } else if (o == 'H') {
            c.local = 1;
        } else if (o == 'i') {
            if (obs_parse_interval("top", optarg, &interval))
                return 2;
        } else {
            fputs(TOP_USAGE, stderr);
            return 2;
        }
    }
    if (optind != argc || local_view_open(&c))
        return 2;
    if (pool)
        snprintf(c.cfg.pool, sizeof c.cfg.pool, "%s", pool);
    int tty = isatty(1) && !once;
    for (;;) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f || frame(&c, f)) {
            if (f)
                fclose(f);
            free(buf);
            rc = 2;
            break;
        }
        fclose(f);
        if (tty)
            fputs("\033[H\033[2J", stdout);   /* home, clear: then one write */
        fwrite(buf, 1, len, stdout);
        fflush(stdout);
        free(buf);
        if (once)
            break;
        obs_sleep(interval);
    }
    lcli_close(&c);
    return rc;
}
