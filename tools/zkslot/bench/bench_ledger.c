/*
 * bench_ledger.c -- `zkslot bench ledger`: how many partitions per second
 * the ledger's queue moves through claim (queued -> synthesizing) and done,
 * with 1, 4 and 16 concurrent claimers (processes, each with its own
 * handle) on tiny partitions: SQLite (a fresh file in a temporary
 * directory, always, the baseline) and, with --ledger URL, that ledger
 * (PostgreSQL: a database of its own; the bench adds one key and its jobs,
 * canceled or done at the end) side by side, measured in the same run.
 *
 *   zkslot bench ledger [--ledger URL] [--claimers 1,4,16] [--parts N]
 *                       [--repeats R] [--json]
 *
 * Each repeat submits one job of N partitions, releases the claimers at
 * once and times until the last has found nothing queued; the median of
 * the repeats is printed as partitions/s and transitions/s (two per
 * partition), and for the --ledger backend its ratio to SQLite's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "cmd.h"
#include "zk/error.h"
#include "zk/ledger.h"
#include "zk/proc.h"

#define MAX_CLAIMERS 64

/* One claimer: claim and mark done until nothing is queued; exit 0 or 1. */
static void claimer(const char *url, int go_fd)
{
    struct zk_proc_id me;
    struct zk_ledger_part p;
    struct zk_diag d = { "" };
    zk_ledger *l = NULL;
    char c;
    int r;
    if (zk_proc_self(&me) || zk_ledger_open(url, 0, 0, &l, &d)) {
        fprintf(stderr, "zkslot bench ledger: claimer: %s\n", d.msg);
        _exit(1);
    }
    if (read(go_fd, &c, 1) < 0) /* released when the parent closes the pipe */
        _exit(1);
    while ((r = zk_ledger_claim_queued(l, &me, 0, &p, &d)) == 0) {
        if ((r = zk_ledger_part_done(l, p.id, &me, NULL, NULL, 0, &d)) < 0)
            break;
    }
    if (r != -ENOENT)
        fprintf(stderr, "zkslot bench ledger: claimer: %s\n", d.msg);
    zk_ledger_close(l);
    _exit(r == -ENOENT ? 0 : 1);
}

/* One repeat: a job of nparts, n claimers; its wall time in *ret_s. 0 or -1. */
static int run_once(zk_ledger *l, const char *url, int64_t key, unsigned nparts, unsigned n,
                    double *ret_s)
{
    const char **w = calloc(nparts, sizeof *w);
    struct zk_diag d = { "" };
    int64_t job;
    int fd[2];
    pid_t pids[MAX_CLAIMERS];
    if (!w)
        return -1;
    for (unsigned i = 0; i < nparts; i++)
        w[i] = "/bench/tiny.wtns";
    int r = zk_ledger_job_submit(l, key, "/nonexistent/bench", w, nparts, &job, &d);
    free(w);
    if (r < 0 || pipe(fd)) {
        fprintf(stderr, "zkslot bench ledger: submit: %s\n", d.msg);
        return -1;
    }
    fflush(NULL);
    for (unsigned k = 0; k < n; k++) {
        if ((pids[k] = fork()) == 0) {
            close(fd[1]);
            claimer(url, fd[0]);
        }
    }
    close(fd[0]);
    usleep(200000);   /* every claimer connected and waiting */
    double t0 = bench_now();
    close(fd[1]);
    int bad = 0;
    for (unsigned k = 0; k < n; k++) {
        int st;
        if (pids[k] < 0 || waitpid(pids[k], &st, 0) != pids[k] || !WIFEXITED(st) ||
            WEXITSTATUS(st))
            bad = 1;
    }
    *ret_s = bench_now() - t0;
    struct zk_ledger_job j;
    if (!bad && (zk_ledger_job_get(l, job, &j, &d) || j.count[ZK_PART_DONE] != nparts)) {
        fprintf(stderr, "zkslot bench ledger: job %lld: %u of %u partitions done\n",
                (long long)job, j.count[ZK_PART_DONE], nparts);
        bad = 1;
    }
    return bad ? -1 : 0;
}

/* The medians for each claimer count of `url` into rate[] (partitions/s). */
static int bench_url(const char *url, const unsigned *claimers, unsigned nc, unsigned nparts,
                     unsigned repeats, double *rate)
{
    struct zk_diag d = { "" };
    zk_ledger *l = NULL;
    if (zk_ledger_open(url, ZK_LEDGER_CREATE, 0, &l, &d)) {
        fprintf(stderr, "zkslot bench ledger: %s\n", d.msg);
        return -1;
    }
    struct zk_ledger_key k;
    memset(&k, 0, sizeof k);
    snprintf(k.name, sizeof k.name, "bench-ledger-%d", (int)getpid());
    snprintf(k.path, sizeof k.path, "/nonexistent/bench.zkey");
    snprintf(k.curve, sizeof k.curve, "bn128");
    snprintf(k.hash, sizeof k.hash, "00000000000000000000000000000000");
    int r = zk_ledger_key_add(l, &k, &d);
    for (unsigned c = 0; !r && c < nc; c++) {
        double t[64];
        for (unsigned i = 0; !r && i < repeats; i++)
            r = run_once(l, url, k.id, nparts, claimers[c], &t[i]);
        rate[c] = r ? 0 : nparts / bench_median(t, repeats);
    }
    if (r && d.msg[0])
        fprintf(stderr, "zkslot bench ledger: %s\n", d.msg);
    zk_ledger_close(l);
    return r ? -1 : 0;
}

int cmd_bench_ledger(int argc, char **argv)
{
    static const struct option opts[] = {
        { "ledger", required_argument, 0, 'L' },   { "claimers", required_argument, 0, 'c' },
        { "parts", required_argument, 0, 'n' },    { "repeats", required_argument, 0, 'r' },
        { "json", no_argument, 0, 'j' },           { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    static const char usage[] = "usage: zkslot bench ledger [--ledger URL] [--claimers 1,4,16]"
                                " [--parts N] [--repeats R] [--json]\n";
    const char *url = NULL;
    unsigned claimers[8] = { 1, 4, 16 }, nc = 3, nparts = 400, repeats = 3;
    int json = 0, o;
    while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        switch (o) {
        case 'L':
            url = optarg;
            break;
        case 'c':
            nc = 0;
            for (char *s = optarg; *s && nc < 8; s = *end ? end + 1 : end) {
                unsigned long v = strtoul(s, &end, 10);
                if (end == s || v < 1 || v > MAX_CLAIMERS || (*end && *end != ',')) {
                    fprintf(stderr, "zkslot bench ledger: --claimers: '%s' is not a list of"
                                    " 1..%d\n", optarg, MAX_CLAIMERS);
                    return 2;
                }
                claimers[nc++] = (unsigned)v;
            }
            break;
        case 'n':
            nparts = (unsigned)strtoul(optarg, &end, 10);
            if (*end || nparts < 1 || nparts > 100000) {
                fprintf(stderr, "zkslot bench ledger: --parts: 1..100000, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'r':
            repeats = (unsigned)strtoul(optarg, &end, 10);
            if (*end || repeats < 1 || repeats > 64) {
                fprintf(stderr, "zkslot bench ledger: --repeats: 1..64, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (optind != argc || nc == 0) {
        fputs(usage, stderr);
        return 2;
    }
    char dir[] = "/tmp/zkbench-ledger-XXXXXX", file[64];
    if (!mkdtemp(dir)) {
        fprintf(stderr, "zkslot bench ledger: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    snprintf(file, sizeof file, "%s/ledger.db", dir);
    double sq[8] = { 0 }, other[8] = { 0 };
    int r = bench_url(file, claimers, nc, nparts, repeats, sq);
    if (!r && url)
        r = bench_url(url, claimers, nc, nparts, repeats, other);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm) != 0)
        fprintf(stderr, "zkslot bench ledger: could not remove %s\n", dir);
    if (r)
        return 1;
    if (json) {
        printf("{\"parts\": %u, \"repeats\": %u, \"results\": [", nparts, repeats);
        for (unsigned c = 0; c < nc; c++) {
            printf("%s{\"claimers\": %u, \"sqlite_parts_per_s\": %.1f", c ? ", " : "",
                   claimers[c], sq[c]);
            if (url)
                printf(", \"other_parts_per_s\": %.1f", other[c]);
            printf("}");
        }
        printf("]}\n");
        return 0;
    }
    printf("ledger queue: %u tiny partitions per run, claim + done each, median of %u\n",
           nparts, repeats);
    const char *oname = url && !zk_ledger_sqlite_path(url) ? "postgres" : "other";
    char h1[32], h2[32];
    snprintf(h1, sizeof h1, "%s parts/s", oname);
    snprintf(h2, sizeof h2, "%s trans/s", oname);
    printf("%-9s %18s %18s", "claimers", "sqlite parts/s", "sqlite trans/s");
    if (url)
        printf(" %18s %18s %8s", h1, h2, "ratio");
    printf("\n");
    for (unsigned c = 0; c < nc; c++) {
        printf("%-9u %18.0f %18.0f", claimers[c], sq[c], 2 * sq[c]);
        if (url)
            printf(" %18.0f %18.0f %7.2fx", other[c], 2 * other[c], other[c] / sq[c]);
        printf("\n");
    }
    return 0;
}
