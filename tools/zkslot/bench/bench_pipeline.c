/*
 * bench_pipeline.c -- `zkslot bench pipeline KEY.zkey WITNESS.wtns...
 * [--threads T] [--slots S] [--repeats R] [--json]`: the pipeline's
 * throughput against proving the same partitions back to back.
 *
 *   baseline  the K witnesses proved one after the other in this process
 *             with T threads (key loaded once, not timed; stricter than K
 *             runs of `zkslot prove`, which would reload the key each time)
 *   pipeline  a private pool of S slots and ledger, zkslot-synthd (1 worker,
 *             T threads) and zkslot-gpud (T threads) started and ready
 *             (not timed), then one job of the K witnesses: time from submit
 *             to the job's `done`
 *
 * Each is run R times, alternating; medians and their ratio are printed
 * (ratio >= 1: the pipeline keeps up with back-to-back proving).  The
 * daemons are found next to this binary (build tree or install prefix) or
 * given with --synthd PATH / --gpud PATH.
 *
 * `zkslot bench pipeline KEY.zkey --input IN.json... --witness-gen PATH
 * (or --witness-cmd CMD) [...]`: the same from circuit inputs, with
 * synthesis scaling (bench_inputs):
 *
 *   baseline  back to back in this process, what `zkslot prove --input`
 *             does for each input (the generator run, its witness read,
 *             the proof), key loaded once
 *   1x1, 1x2  one synthd with 1 and with 2 workers, one gpud
 *   2x1       two synthd processes of 1 worker (as on two NUMA nodes)
 *
 * Each configuration's daemons are started once (not timed) and given R
 * jobs of the K inputs; the medians of the job times, their ratio to the
 * baseline, and the per-partition stage medians from the ledger (witness,
 * a/b/c, prove_start, finalize) are printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "cmd.h"
#include "g16_cli.h"
#include "zk/error.h"
#include "zk/ledger.h"
#include "zk/parallel.h"
#include "zk/pool.h"
#include "zk/slotfmt.h"
#include "zk/witgen.h"

extern char **environ;

#define USAGE "usage: zkslot bench pipeline KEY.zkey WITNESS.wtns... [--threads T] " \
              "[--slots S] [--repeats R] [--synthd PATH] [--gpud PATH] [--json]\n" \
              "       zkslot bench pipeline KEY.zkey --input IN.json... " \
              "(--witness-gen PATH | --witness-cmd CMD) [same options]\n"

/* A daemon binary next to ours: DIR/NAME, DIR/../DIRNAME/NAME (build tree). */
static int find_daemon(const char *name, const char *subdir, char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return -1;
    self[len] = 0;
    char *dir = dirname(self);
    snprintf(out, n, "%s/%s", dir, name);
    if (access(out, X_OK) == 0)
        return 0;
    snprintf(out, n, "%s/%s/%s", dir, subdir, name);
    if (access(out, X_OK) == 0)
        return 0;
    snprintf(out, n, "%s/../%s/%s", dir, subdir, name);
    return access(out, X_OK) == 0 ? 0 : -1;
}

struct daemons {
    pid_t synthd, gpud;
    int notify_fd;
    char sock[108];
};

static pid_t spawn(const char *path, char *const argv[], const char *log)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    int r = posix_spawn(&pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return r ? -1 : pid;
}

/* Waits for READY=1 from `want` processes on the notify socket (30 s). */
static int wait_ready(int fd, int want)
{
    double end = bench_now() + 120;
    int got = 0;
    while (got < want && bench_now() < end) {
        char buf[512];
        struct timeval tv = { 0, 200000 };
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
            continue;
        buf[n] = 0;
        if (strstr(buf, "READY=1"))
            got++;
    }
    return got == want ? 0 : -1;
}

static void stop(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}

/* ---- a private pipeline: directory, pool, ledger with the key, config ------- */

struct bpriv {
    char dir[32];                        /* mkdtemp */
    char pool[128], conf[PATH_MAX], log[PATH_MAX];
    zk_ledger *l;
    struct zk_ledger_key lk;             /* the key, registered as "bench" */
    int have_dir, have_pool, keep;       /* keep: leave dir (its log) for a look */
};

/* Makes the pipeline for key kh (at keypath) with nslots slots; g (may be
 * NULL) is the key's witness generator.  ZKSLOT_CONFIG then names its
 * config.  0, or -1 with a message (bpriv_close cleans up either way). */
static int bpriv_open(struct bpriv *b, const char *keypath, const struct zk_zkey_header *kh,
                      unsigned nslots, const struct zk_witgen *g)
{
    struct zk_slot_desc sd;
    struct zk_diag d;
    struct stat st;
    int r;
    memset(b, 0, sizeof *b);
    snprintf(b->dir, sizeof b->dir, "/tmp/zkslot-bench-XXXXXX");
    if (!mkdtemp(b->dir)) {
        perror("zkslot bench pipeline: mkdtemp");
        return -1;
    }
    b->have_dir = 1;
    snprintf(b->pool, sizeof b->pool, "/dev/shm/zkslot-bench-%d.pool", (int)getpid());
    struct zk_pool_params pp = { nslots, zk_slotfmt_layout(kh->n_vars, kh->domain_size, &sd),
                                 NULL, NULL, 0, ZK_POOL_CREATE_TMPFS };
    if ((r = zk_pool_create(b->pool, &pp, NULL))) {
        fprintf(stderr, "zkslot bench pipeline: %s: %s\n", b->pool, zk_strerror(r));
        return -1;
    }
    b->have_pool = 1;
    char ledger[PATH_MAX];
    snprintf(ledger, sizeof ledger, "%s/%s", b->dir, ZK_LEDGER_FILE);
    if ((r = zk_ledger_open(ledger, ZK_LEDGER_CREATE, 0, &b->l, &d))) {
        fprintf(stderr, "zkslot bench pipeline: %s\n", d.msg);
        return -1;
    }
    struct zk_ledger_key *lk = &b->lk;
    snprintf(lk->name, sizeof lk->name, "bench");
    if (!realpath(keypath, lk->path)) {
        fprintf(stderr, "zkslot bench pipeline: %s: %s\n", keypath, strerror(errno));
        return -1;
    }
    snprintf(lk->curve, sizeof lk->curve, "%s", zk_curve_name(kh->curve));
    snprintf(lk->hash, sizeof lk->hash, "%032x", 0);   /* file_mtime_ns 0: header checks only */
    lk->file_size = stat(keypath, &st) ? 0 : (uint64_t)st.st_size;
    lk->n_vars = kh->n_vars;
    lk->n_public = kh->n_public;
    lk->domain_size = kh->domain_size;
    if (g) {
        if (zk_witgen_hash(g, lk->witgen_hash, &d)) {
            fprintf(stderr, "zkslot bench pipeline: %s\n", d.msg);
            return -1;
        }
        lk->witgen_kind = g->kind;
        snprintf(lk->witgen, sizeof lk->witgen, "%s", g->spec);
    }
    if ((r = zk_ledger_key_add(b->l, lk, &d))) {
        fprintf(stderr, "zkslot bench pipeline: %s\n", d.msg);
        return -1;
    }
    snprintf(b->conf, sizeof b->conf, "%s/zkslot.conf", b->dir);
    FILE *cf = fopen(b->conf, "w");
    if (!cf) {
        fprintf(stderr, "zkslot bench pipeline: %s: %s\n", b->conf, strerror(errno));
        return -1;
    }
    fprintf(cf, "[zkslot]\nstate_dir = %s\npoll_ms = 5\n[pool]\npath = %s\n", b->dir, b->pool);
    fclose(cf);
    setenv("ZKSLOT_CONFIG", b->conf, 1);
    unsetenv("ZKSLOT_POOL");
    unsetenv("ZKSLOT_STATE_DIR");
    snprintf(b->log, sizeof b->log, "%s/daemons.log", b->dir);
    return 0;
}

/* Polls job until it is finished (every 2 ms).  0 when done, -1 (printed)
 * when it failed, was canceled, or the ledger could not be read. */
static int bpriv_wait(zk_ledger *l, int64_t job, const char *log)
{
    struct zk_ledger_job j;
    struct zk_diag d;
    for (;;) {
        if (zk_ledger_job_get(l, job, &j, &d)) {
            fprintf(stderr, "zkslot bench pipeline: %s\n", d.msg);
            return -1;
        }
        if (j.state >= ZK_JOB_DONE)
            break;
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    if (j.state == ZK_JOB_DONE)
        return 0;
    fprintf(stderr, "zkslot bench pipeline: job %s: %s (log %s)\n", zk_job_state_name(j.state),
            j.error, log);
    return -1;
}

static void bpriv_close(struct bpriv *b)
{
    zk_ledger_close(b->l);
    b->l = NULL;
    if (b->have_pool)
        zk_pool_destroy(b->pool, 1, NULL);
    if (b->have_dir && !b->keep) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", b->dir);
        if (system(cmd) != 0)
            fprintf(stderr, "zkslot bench pipeline: could not remove %s\n", b->dir);
    } else if (b->have_dir) {
        fprintf(stderr, "zkslot bench pipeline: kept %s\n", b->dir);
    }
    b->have_dir = b->have_pool = 0;
}

/* ---- from circuit inputs: synthesis scaling -------------------------------- */

struct bi_stage {                        /* per-partition stage times of a config */
    double *witness, *abc, *start, *finalize;
    unsigned n, cap;
};

static int bi_part(void *ctx, const struct zk_ledger_part *p)
{
    struct bi_stage *st = ctx;
    if (st->n == st->cap)
        return 0;
    st->witness[st->n] = p->witness_s;
    st->abc[st->n] = p->synth_s - (p->witness_s > 0 ? p->witness_s : 0);
    st->start[st->n] = p->start_s;
    st->finalize[st->n] = p->finalize_s;
    st->n++;
    return 0;
}

struct bi_env {
    const char *synthd, *gpud, *dir, *log;
    zk_ledger *l;
    int64_t key_id;
    const char *const *name, *const *text;
    const size_t *len;
    unsigned nin, nthreads, repeats;
};

/* One configuration: nsynthd synthds of `workers` workers and a gpud,
 * started, given `repeats` jobs, stopped.  Job times into t[], stage
 * times into *st.  0, or -1 with a message. */
static int bi_config(const struct bi_env *e, unsigned nsynthd, unsigned workers, double *t,
                     struct bi_stage *st)
{
    char sock[PATH_MAX], wb[16], tb[16], gtb[16];
    pid_t pids[3] = { -1, -1, -1 };
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;
    unsigned per = e->nthreads / (workers * nsynthd);
    snprintf(sock, sizeof sock, "%s/notify-%ux%u", e->dir, nsynthd, workers);
    if (fd < 0 || snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock) >= (int)sizeof sa.sun_path ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa)) {
        perror("zkslot bench pipeline: notify socket");
        goto out;
    }
    snprintf(wb, sizeof wb, "%u", workers);
    snprintf(tb, sizeof tb, "%u", per ? per : 1);
    snprintf(gtb, sizeof gtb, "%u", e->nthreads);
    char *sargv[] = { (char *)e->synthd, "--workers", wb, "--threads", tb, NULL };
    char *gargv[] = { (char *)e->gpud, "--backend", "cpu", "--threads", gtb, NULL };
    setenv("NOTIFY_SOCKET", sock, 1);
    pids[0] = spawn(e->gpud, gargv, e->log);
    for (unsigned i = 0; i < nsynthd; i++)
        pids[1 + i] = spawn(e->synthd, sargv, e->log);
    unsetenv("NOTIFY_SOCKET");
    if (wait_ready(fd, (int)nsynthd + 1)) {
        fprintf(stderr, "zkslot bench pipeline: the daemons did not become ready (log %s)\n",
                e->log);
        goto out;
    }
    close(fd);          /* see cmd_bench_pipeline: an unread socket would block them */
    fd = -1;
    unlink(sock);
    for (unsigned rep = 0; rep < e->repeats; rep++) {
        struct zk_diag d;
        char outd[PATH_MAX];
        int64_t job;
        snprintf(outd, sizeof outd, "%s/out-%ux%u-%u", e->dir, nsynthd, workers, rep);
        double t0 = bench_now();
        if (zk_ledger_job_submit_inputs(e->l, e->key_id, outd, e->name, e->text, e->len, e->nin,
                                        &job, &d)) {
            fprintf(stderr, "zkslot bench pipeline: submit: %s\n", d.msg);
            goto out;
        }
        if (bpriv_wait(e->l, job, e->log))
            goto out;
        t[rep] = bench_now() - t0;
        zk_ledger_part_list(e->l, job, bi_part, st, &d);
    }
    rc = 0;
out:
    for (int i = 0; i < 3; i++)
        stop(pids[i]);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* The back-to-back baseline: generator, witness, proof for each input. */
static int bi_baseline(const struct zk_groth16_key *k, const struct zk_witgen *g,
                       const char *const *paths, unsigned nin, unsigned nthreads,
                       const char *dir, double *ret_s, double *ret_witness_s)
{
    char wt[PATH_MAX];
    double t0 = bench_now(), tw = 0;
    snprintf(wt, sizeof wt, "%s/baseline.wtns", dir);
    for (unsigned i = 0; i < nin; i++) {
        struct zk_witgen_result res;
        struct zk_groth16_proof proof;
        struct zk_diag d;
        zk_scalar *w = NULL;
        if (zk_witgen_run(g, paths[i], wt, NULL, NULL, &res, &d)) {
            fprintf(stderr, "zkslot bench pipeline: %s: %s: %s\n", paths[i], d.msg, res.output);
            return -1;
        }
        tw += res.seconds;
        int r = g16_cli_load_witness("bench pipeline", wt, k, &w);
        unlink(wt);
        if (r)
            return -1;
        r = zk_groth16_prove(k, w, nthreads, &proof);
        free(w);
        if (r) {
            fprintf(stderr, "zkslot bench pipeline: prove: %s\n", zk_strerror(r));
            return -1;
        }
    }
    *ret_s = bench_now() - t0;
    *ret_witness_s = tw;
    return 0;
}

static double med_valid(double *v, unsigned n)
{
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
        if (v[i] >= 0)
            v[m++] = v[i];
    return m ? bench_median(v, m) : -1;
}

static int bench_inputs(const char *keypath, const char *const *inputs, unsigned nin,
                        const char *gen, int gen_is_cmd, unsigned nthreads, unsigned nslots,
                        unsigned repeats, const char *synthd, const char *gpud, int json)
{
    static const unsigned cfgs[][2] = { { 1, 1 }, { 1, 2 }, { 2, 1 } };   /* synthds, workers */
    enum { NCFG = 3 };
    struct zk_groth16_key *k = NULL;
    struct zk_witgen g;
    struct zk_diag d;
    struct bpriv bp;
    char **text = calloc(nin, sizeof *text), **abs = calloc(nin, sizeof *abs);
    size_t *len = calloc(nin, sizeof *len);
    double *tb = calloc(repeats, sizeof *tb), *twb = calloc(repeats, sizeof *twb);
    double *tc = calloc((size_t)NCFG * repeats, sizeof *tc);
    struct bi_stage st[NCFG];
    int ret = 2;

    memset(st, 0, sizeof st);
    memset(&bp, 0, sizeof bp);
    if (!text || !abs || !len || !tb || !twb || !tc)
        goto out;
    for (int c = 0; c < NCFG; c++) {
        st[c].cap = nin * repeats;
        st[c].witness = calloc(st[c].cap, sizeof(double));
        st[c].abc = calloc(st[c].cap, sizeof(double));
        st[c].start = calloc(st[c].cap, sizeof(double));
        st[c].finalize = calloc(st[c].cap, sizeof(double));
        if (!st[c].witness || !st[c].abc || !st[c].start || !st[c].finalize)
            goto out;
    }
    if (zk_witgen_resolve(gen, gen_is_cmd, &g, &d)) {
        fprintf(stderr, "zkslot bench pipeline: %s\n", d.msg);
        goto out;
    }
    for (unsigned i = 0; i < nin; i++) {
        if (!(text[i] = g16_cli_read_text("bench pipeline", inputs[i])))
            goto out;
        len[i] = strlen(text[i]);
        if (zk_input_check(text[i], len[i], inputs[i], &d)) {
            fprintf(stderr, "zkslot bench pipeline: %s\n", d.msg);
            goto out;
        }
        if (!(abs[i] = realpath(inputs[i], NULL)))
            goto out;
    }
    if (g16_cli_load_key("bench pipeline", keypath, nthreads, &k))
        goto out;
    const struct zk_zkey_header *kh = zk_groth16_key_header(k);
    if (bpriv_open(&bp, keypath, kh, nslots, &g))
        goto out;
    if (!json)
        printf("bench pipeline --input: %u partitions of 2^%u (%s), %s generator, %u threads, "
               "%u slots, %u repeats\n", nin, kh->log2_domain, bp.lk.curve,
               zk_witgen_kind_name(g.kind), nthreads, nslots, repeats);
    struct bi_env e = { synthd, gpud, bp.dir, bp.log, bp.l, bp.lk.id, (const char *const *)abs,
                        (const char *const *)text, len, nin, nthreads, repeats };
    for (unsigned rep = 0; rep < repeats; rep++)
        if (bi_baseline(k, &g, (const char *const *)abs, nin, nthreads, bp.dir, &tb[rep],
                        &twb[rep]))
            goto out;
    for (int c = 0; c < NCFG; c++)
        if (bi_config(&e, cfgs[c][0], cfgs[c][1], tc + (size_t)c * repeats, &st[c])) {
            bp.keep = 1;    /* the log */
            goto out;
        }
    double mb = bench_median(tb, repeats), mbw = bench_median(twb, repeats) / nin;
    if (json) {
        printf("{\"partitions\": %u, \"log2_domain\": %u, \"curve\": \"%s\", "
               "\"generator\": \"%s\", \"threads\": %u, \"slots\": %u, \"repeats\": %u, "
               "\"back_to_back_s\": %.6f, \"back_to_back_witness_s\": %.6f, \"configs\": [",
               nin, kh->log2_domain, bp.lk.curve, zk_witgen_kind_name(g.kind), nthreads, nslots,
               repeats, mb, mbw);
    } else {
        printf("  %-26s %9s %9s %9s | per partition (medians): %8s %8s %8s %8s\n", "config",
               "median s", "proofs/s", "vs b2b", "witness", "a,b,c", "start", "finalize");
        printf("  %-26s %9.3f %9.2f %9s | %34.3f\n", "back to back (prove --input)", mb,
               nin / mb, "1.00x", mbw);
    }
    for (int c = 0; c < NCFG; c++) {
        double m = bench_median(tc + (size_t)c * repeats, repeats);
        double w = med_valid(st[c].witness, st[c].n), a = med_valid(st[c].abc, st[c].n);
        double s0 = med_valid(st[c].start, st[c].n), f = med_valid(st[c].finalize, st[c].n);
        char label[64];
        snprintf(label, sizeof label, "%u synthd x %u worker%s", cfgs[c][0], cfgs[c][1],
                 cfgs[c][1] > 1 ? "s" : "");
        if (json)
            printf("%s{\"synthd\": %u, \"workers\": %u, \"pipeline_s\": %.6f, "
                   "\"throughput_ratio\": %.4f, \"witness_s\": %.6f, \"abc_s\": %.6f, "
                   "\"start_s\": %.6f, \"finalize_s\": %.6f}", c ? ", " : "", cfgs[c][0],
                   cfgs[c][1], m, mb / m, w, a, s0, f);
        else
            printf("  %-26s %9.3f %9.2f %8.2fx | %34.3f %8.3f %8.3f %8.3f\n", label, m, nin / m,
                   mb / m, w, a, s0, f);
    }
    if (json)
        printf("]}\n");
    ret = 0;
out:
    bpriv_close(&bp);
    for (unsigned i = 0; text && abs && i < nin; i++) {
        free(text[i]);
        free(abs[i]);
    }
    free(text);
    free(abs);
    free(len);
    free(tb);
    free(twb);
    free(tc);
    for (int c = 0; c < NCFG; c++) {
        free(st[c].witness);
        free(st[c].abc);
        free(st[c].start);
        free(st[c].finalize);
    }
    zk_groth16_key_free(k);
    return ret;
}

int cmd_bench_pipeline(int argc, char **argv)
{
    const char **wpaths = calloc((size_t)argc, sizeof *wpaths);
    const char *keypath = NULL, *synthd_path = NULL, *gpud_path = NULL;
    char synthd_buf[PATH_MAX], gpud_buf[PATH_MAX];
    unsigned nw = 0, nthreads = 0, nslots = 2, repeats = 3;
    int json = 0, ret = 2, r, input = 0, gen_is_cmd = 0;
    const char *gen = NULL;
    struct zk_groth16_key *k = NULL;
    zk_scalar **w = NULL;
    double *tb = NULL, *tp = NULL;
    struct bpriv bp;
    struct daemons dm = { -1, -1, -1, "" };
    char **abs = NULL;

    if (!wpaths)
        return 2;
    memset(&bp, 0, sizeof bp);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (g16_cli_parse_uint("bench pipeline", "--threads", argv[++i], &nthreads))
                goto out;
        } else if (!strcmp(argv[i], "--slots") && i + 1 < argc) {
            if (g16_cli_parse_uint("bench pipeline", "--slots", argv[++i], &nslots))
                goto out;
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            if (g16_cli_parse_uint("bench pipeline", "--repeats", argv[++i], &repeats))
                goto out;
        } else if (!strcmp(argv[i], "--synthd") && i + 1 < argc) {
            synthd_path = argv[++i];
        } else if (!strcmp(argv[i], "--gpud") && i + 1 < argc) {
            gpud_path = argv[++i];
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--input")) {
            input = 1;
        } else if ((!strcmp(argv[i], "--witness-gen") || !strcmp(argv[i], "--witness-cmd")) &&
                   i + 1 < argc) {
            gen_is_cmd = !strcmp(argv[i], "--witness-cmd");
            gen = argv[++i];
        } else if (argv[i][0] != '-') {
            if (!keypath)
                keypath = argv[i];
            else
                wpaths[nw++] = argv[i];
        } else {
            fputs(USAGE, stderr);
            goto out;
        }
    }
    if (!keypath || !nw || !repeats || !nslots || input != (gen != NULL)) {
        fputs(USAGE, stderr);
        goto out;
    }
    if (!synthd_path) {
        if (find_daemon("zkslot-synthd", "synthd", synthd_buf, sizeof synthd_buf)) {
            fprintf(stderr, "zkslot bench pipeline: zkslot-synthd not found next to zkslot "
                            "(give --synthd PATH)\n");
            goto out;
        }
        synthd_path = synthd_buf;
    }
    if (!gpud_path) {
        if (find_daemon("zkslot-gpud", "gpud", gpud_buf, sizeof gpud_buf)) {
            fprintf(stderr, "zkslot bench pipeline: zkslot-gpud not found next to zkslot "
                            "(give --gpud PATH)\n");
            goto out;
        }
        gpud_path = gpud_buf;
    }
    if (!nthreads)
        nthreads = zk_nthreads_default();
    if (input) {
        ret = bench_inputs(keypath, wpaths, nw, gen, gen_is_cmd, nthreads, nslots, repeats,
                           synthd_path, gpud_path, json);
        goto out;
    }
    if (g16_cli_load_key("bench pipeline", keypath, nthreads, &k))
        goto out;
    w = calloc(nw, sizeof *w);
    tb = calloc(repeats, sizeof *tb);
    tp = calloc(repeats, sizeof *tp);
    if (!w || !tb || !tp)
        goto out;
    for (unsigned i = 0; i < nw; i++) {
        if (g16_cli_load_witness("bench pipeline", wpaths[i], k, &w[i]))
            goto out;
    }

    /* the private pipeline: pool, ledger, config, notify socket, daemons */
    const struct zk_zkey_header *kh = zk_groth16_key_header(k);
    struct zk_diag d;
    if (bpriv_open(&bp, keypath, kh, nslots, NULL))
        goto out;
    zk_ledger *l = bp.l;
    const struct zk_ledger_key lk = bp.lk;
    const char *logp = bp.log;
    abs = calloc(nw, sizeof *abs);
    if (!abs)
        goto out;
    for (unsigned i = 0; i < nw; i++)
        abs[i] = realpath(wpaths[i], NULL);
    dm.notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(dm.sock, sizeof dm.sock, "%s/notify", bp.dir);
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", dm.sock);
    if (dm.notify_fd < 0 || bind(dm.notify_fd, (struct sockaddr *)&sa, sizeof sa)) {
        perror("zkslot bench pipeline: notify socket");
        goto out;
    }
    setenv("NOTIFY_SOCKET", dm.sock, 1);
    char tbuf[16];
    snprintf(tbuf, sizeof tbuf, "%u", nthreads);
    char *sargv[] = { (char *)synthd_path, "--workers", "1", "--threads", tbuf, NULL };
    char *gargv[] = { (char *)gpud_path, "--backend", "cpu", "--threads", tbuf, NULL };
    dm.synthd = spawn(synthd_path, sargv, logp);
    dm.gpud = spawn(gpud_path, gargv, logp);
    unsetenv("NOTIFY_SOCKET");
    if (dm.synthd < 0 || dm.gpud < 0 || wait_ready(dm.notify_fd, 2)) {
        fprintf(stderr, "zkslot bench pipeline: the daemons did not become ready (log %s)\n",
                logp);
        bp.keep = 1;   /* the log */
        goto out;
    }
    /* Stop listening: an unread datagram socket fills up (max_dgram_qlen)
     * and would block the daemons' sd_notify calls; once closed, their
     * notifications fail with ECONNREFUSED instead. */
    close(dm.notify_fd);
    dm.notify_fd = -1;
    unlink(dm.sock);
    if (!json)
        printf("bench pipeline: %u partitions of 2^%u (%s), %u threads, %u slots, %u repeats\n",
               nw, kh->log2_domain, lk.curve, nthreads, nslots, repeats);

    for (unsigned rep = 0; rep < repeats; rep++) {
        /* back to back, in this process */
        double t0 = bench_now();
        for (unsigned i = 0; i < nw; i++) {
            struct zk_groth16_proof proof;
            if ((r = zk_groth16_prove(k, w[i], nthreads, &proof))) {
                fprintf(stderr, "zkslot bench pipeline: prove: %s\n", zk_strerror(r));
                goto out;
            }
        }
        tb[rep] = bench_now() - t0;
        /* through the pipeline */
        int64_t job;
        char outd[PATH_MAX];
        snprintf(outd, sizeof outd, "%s/out%u", bp.dir, rep);
        t0 = bench_now();
        if ((r = zk_ledger_job_submit(l, lk.id, outd, (const char *const *)abs, nw, &job, &d))) {
            fprintf(stderr, "zkslot bench pipeline: submit: %s\n", d.msg);
            goto out;
        }
        if (bpriv_wait(l, job, logp)) {
            bp.keep = 1;
            goto out;
        }
        tp[rep] = bench_now() - t0;
        if (!json)
            printf("  repeat %u: back to back %.3f s, pipeline %.3f s\n", rep + 1, tb[rep],
                   tp[rep]);
    }
    double mb = bench_median(tb, repeats), mp = bench_median(tp, repeats);
    if (json)
        printf("{\"partitions\": %u, \"log2_domain\": %u, \"curve\": \"%s\", \"threads\": %u, "
               "\"slots\": %u, \"repeats\": %u, \"back_to_back_s\": %.6f, "
               "\"pipeline_s\": %.6f, \"throughput_ratio\": %.4f}\n",
               nw, kh->log2_domain, lk.curve, nthreads, nslots, repeats, mb, mp, mb / mp);
    else
        printf("median: back to back %.3f s (%.2f proofs/s), pipeline %.3f s (%.2f proofs/s); "
               "pipeline throughput = %.3fx back to back\n",
               mb, nw / mb, mp, nw / mp, mb / mp);
    ret = 0;
out:
    if (abs) {
        for (unsigned i = 0; i < nw; i++)
            free(abs[i]);
        free(abs);
    }
    stop(dm.gpud);
    stop(dm.synthd);
    if (dm.notify_fd >= 0)
        close(dm.notify_fd);
    bpriv_close(&bp);
    if (w) {
        for (unsigned i = 0; i < nw; i++)
            free(w[i]);
        free(w);
    }
    free(tb);
    free(tp);
    free(wpaths);
    zk_groth16_key_free(k);
    return ret;
}
