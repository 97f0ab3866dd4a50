/*
 * bench_api.c -- `zkslot bench api`: a bounded load on a zkslot-apid of
 * this machine (loopback or a unix socket only), while its farm proves.
 *
 *   zkslot bench api --server URL --key NAME --witness W.wtns
 *                    [--clients N] [--rate R] [--duration S] [--pid PID] [--json]
 *
 * N clients (default 200) each submit a job of one witness (base64, a
 * request id of their own per job), long-poll it until it finishes
 * (GET /v1/jobs/{id}?wait=20), and submit the next, for S seconds
 * (default 30); meanwhile 64 status threads send GET /v1/jobs/{id} of a
 * submitted job at R requests/s in all (default 2000; each request due at
 * t0 + k/R, sent at once when late).  A 429 is the documented answer of a
 * full server: the client waits Retry-After and resends the same request
 * (same request id).  After the time, the clients finish their last job
 * (at most 120 s more).  Then every job is checked: its id given to one
 * request only (none duplicated), found with our request id and done
 * (none lost), and the jobs the server lists with this run's request ids
 * are exactly those (none made twice, none unanswered).
 *
 * Printed: status requests sent and per second achieved, their p50/p99/max
 * latency (HTTP 200 answers), jobs submitted/done/failed/lost/duplicated,
 * errors by kind (HTTP status and code, or the transport's failure), 429s
 * apart, and apid's RSS (/proc/PID/status VmRSS; PID from --pid, else the
 * one zkslot-apid process of this machine) at the start, after a quarter
 * of the time (its threads and buffers warm), at the end and at most.
 * Exit 0 when there was no error but 429s, nothing lost or duplicated and
 * every job done; 1 otherwise; 2 on bad usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "cmd.h"
#include "http_client.h"
#include "remote.h"

#define STATUS_THREADS 64
#define KINDS_MAX 32
#define GRACE_S 120.0
#define POLL_WAIT_S 20

struct job {
    int64_t id;
    char rid[64];
};

struct lat {
    double *v;
    size_t n, cap;
};

struct run {
    const char *url, *token, *key;
    char *witness_b64;                /* a JSON string's text, quotes included */
    unsigned clients, rate;
    double duration, t0, t_end;
    char run_id[32];
    pthread_mutex_t lock;             /* jobs, kinds */
    struct job *jobs;
    size_t njobs, cap;
    struct {
        char kind[96];
        unsigned long n;
    } kinds[KINDS_MAX];
    unsigned nkinds;
    atomic_ulong busy, status_sent, status_late;
    atomic_ulong next_ticket;
    struct lat lat[STATUS_THREADS];
};

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL);
}

/* Counts one error of `kind` (a 429 apart). */
static void count(struct run *r, const char *kind)
{
    pthread_mutex_lock(&r->lock);
    unsigned i = 0;
    while (i < r->nkinds && strcmp(r->kinds[i].kind, kind))
        i++;
    if (i == r->nkinds && i < KINDS_MAX)
        snprintf(r->kinds[r->nkinds++].kind, sizeof r->kinds[0].kind, "%s", kind);
    if (i < KINDS_MAX)
        r->kinds[i].n++;
    pthread_mutex_unlock(&r->lock);
}

/* One call; the status (-1: transport failure, counted).  429 and any
 * status not 200/201 are counted, 429s apart; *o the JSON answer or NULL. */
static int call(struct run *r, const char *method, const char *path, const char *body,
                double timeout_s, json_t **o)
{
    struct http_resp h;
    char err[256], kind[96];
    json_error_t je;
    *o = NULL;
    /* loopback or unix:/ only (loopback()): no TLS, no CA file */
    if (http_call(r->url, method, path, body, r->token, NULL, timeout_s, &h, err, sizeof err) < 0) {
        snprintf(kind, sizeof kind, "transport: %s",
                 strstr(err, "cannot connect") ? "cannot connect"
                 : strstr(err, "in time")      ? "no answer in time"
                 : strstr(err, "send")         ? "cannot send"
                                               : "a broken answer");
        count(r, kind);
        return -1;
    }
    *o = json_loadb(h.body, h.len, 0, &je);
    free(h.body);
    if (h.status == 429) {
        atomic_fetch_add(&r->busy, 1);
    } else if (h.status != 200 && h.status != 201) {
        const char *c = json_string_value(json_object_get(json_object_get(*o, "error"), "code"));
        snprintf(kind, sizeof kind, "HTTP %d %s", h.status, c ? c : "(no JSON error)");
        count(r, kind);
    }
    return h.status;
}

static int finished(const char *state)
{
    return state && (!strcmp(state, "done") || !strcmp(state, "failed") ||
                     !strcmp(state, "canceled"));
}

/* A client: submit, long-poll, again, until the time is up. */
static void *client(void *arg)
{
    struct run *r = ((void **)arg)[0];
    unsigned me = (unsigned)(uintptr_t)((void **)arg)[1];
    char *body = NULL, path[96];
    json_t *o;
    for (unsigned seq = 0; bench_now() < r->t_end; seq++) {
        struct job j = { 0 };
        snprintf(j.rid, sizeof j.rid, "%s-%u-%u", r->run_id, me, seq);
        free(body);
        if (asprintf(&body, "{\"key\":\"%s\",\"witnesses\":[%s],\"request_id\":\"%s\"}", r->key,
                     r->witness_b64, j.rid) < 0)
            return NULL;
        int st;
        /* a 429 or a lost answer: the same request again, as a client must */
        while ((st = call(r, "POST", "/v1/jobs", body, 60, &o)) == 429 || st < 0) {
            json_decref(o);
            if (bench_now() > r->t_end + GRACE_S)
                goto out;
            sleep_s(st == 429 ? 1.0 : 0.2);
        }
        j.id = json_integer_value(json_object_get(o, "id"));
        json_decref(o);
        if (st != 200 && st != 201) {
            sleep_s(0.2);
            continue;
        }
        pthread_mutex_lock(&r->lock);
        if (r->njobs == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 1024;
            struct job *n = realloc(r->jobs, cap * sizeof *n);
            if (n)
                r->jobs = n, r->cap = cap;
        }
        if (r->njobs < r->cap)
            r->jobs[r->njobs++] = j;
        pthread_mutex_unlock(&r->lock);
        snprintf(path, sizeof path, "/v1/jobs/%lld?wait=%d", (long long)j.id, POLL_WAIT_S);
        for (;;) {
            st = call(r, "GET", path, NULL, POLL_WAIT_S + 10, &o);
            int done = st == 200 && finished(json_string_value(json_object_get(o, "state")));
            json_decref(o);
            if (done || bench_now() > r->t_end + GRACE_S)
                break;
            if (st != 200)
                sleep_s(st == 429 ? 1.0 : 0.2);
        }
    }
out:
    free(body);
    return NULL;
}

/* A status thread: the tickets due at t0 + k/rate until the end. */
static void *status(void *arg)
{
    struct run *r = ((void **)arg)[0];
    struct lat *l = &r->lat[(uintptr_t)((void **)arg)[1]];
    unsigned seed = (unsigned)(uintptr_t)l;
    char path[64];
    json_t *o;
    for (;;) {
        unsigned long k = atomic_fetch_add(&r->next_ticket, 1);
        double due = r->t0 + (double)k / r->rate, now = bench_now();
        if (due >= r->t_end)
            break;
        if (due > now)
            sleep_s(due - now);
        else if (now - due > 0.1)
            atomic_fetch_add(&r->status_late, 1);
        pthread_mutex_lock(&r->lock);
        int64_t id = r->njobs ? r->jobs[rand_r(&seed) % r->njobs].id : 0;
        pthread_mutex_unlock(&r->lock);
        if (!id)
            continue;   /* no job yet: this ticket is skipped */
        snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)id);
        double t = bench_now();
        int st = call(r, "GET", path, NULL, 30, &o);
        t = bench_now() - t;
        json_decref(o);
        atomic_fetch_add(&r->status_sent, 1);
        if (st == 200 && l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 4096;
            double *v = realloc(l->v, cap * sizeof *v);
            if (v)
                l->v = v, l->cap = cap;
        }
        if (st == 200 && l->n < l->cap)
            l->v[l->n++] = t;
    }
    return NULL;
}

/* VmRSS of pid in KiB, or -1. */
static long rss_kib(long pid)
{
    char p[64], line[256];
    long kib = -1;
    snprintf(p, sizeof p, "/proc/%ld/status", pid);
    FILE *f = fopen(p, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

/* The one process named zkslot-apid on this machine, or 0. */
static long find_apid(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    long found = 0, n = 0;
    while (d && (e = readdir(d))) {
        char p[300], comm[64] = "";
        long pid = strtol(e->d_name, NULL, 10);
        if (pid <= 0)
            continue;
        snprintf(p, sizeof p, "/proc/%ld/comm", pid);
        FILE *f = fopen(p, "r");
        if (f && fgets(comm, sizeof comm, f) && !strcmp(comm, "zkslot-apid\n"))
            found = pid, n++;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n == 1 ? found : 0;
}

static int loopback(const char *url)
{
    return !strncmp(url, "unix:/", 6) || !strncmp(url, "http://127.", 11) ||
           !strncmp(url, "http://[::1]", 12) || !strncmp(url, "http://localhost", 16);
}

static int cmp_job(const void *a, const void *b)
{
    const struct job *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* After the run: each job found, ours, done; the server's list of this
 * run's jobs the same set.  Counts into the out parameters. */
static void verify(struct run *r, unsigned long *done, unsigned long *failed,
                   unsigned long *lost, unsigned long *dup)
{
    char path[128];
    json_t *o;
    *done = *failed = *lost = *dup = 0;
    qsort(r->jobs, r->njobs, sizeof *r->jobs, cmp_job);
    for (size_t i = 0; i < r->njobs; i++) {
        if (i && r->jobs[i - 1].id == r->jobs[i].id)
            (*dup)++;   /* one job answered to two requests */
        snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)r->jobs[i].id);
        int st;
        while ((st = call(r, "GET", path, NULL, 30, &o)) == 429)
            json_decref(o), sleep_s(1);
        const char *state = json_string_value(json_object_get(o, "state")),
                   *rid = json_string_value(json_object_get(o, "request_id"));
        if (st != 200 || !rid || strcmp(rid, r->jobs[i].rid))
            (*lost)++;
        else if (state && !strcmp(state, "done"))
            (*done)++;
        else
            (*failed)++;
        json_decref(o);
    }
    /* the server's jobs with this run's request ids: exactly ours */
    unsigned long listed = 0;
    long long after = 0;
    size_t plen = strlen(r->run_id);
    for (;;) {
        int pl = snprintf(path, sizeof path, "/v1/jobs?key=%s&limit=1000", r->key);
        if (after)
            snprintf(path + pl, sizeof path - (size_t)pl, "&after=%lld", after);
        int st = call(r, "GET", path, NULL, 60, &o);
        json_t *arr = json_object_get(o, "jobs"), *v;
        size_t i;
        if (st != 200 || !json_is_array(arr)) {
            json_decref(o);
            if (st == 429) {
                sleep_s(1);
                continue;
            }
            break;
        }
        json_array_foreach(arr, i, v) {
            const char *rid = json_string_value(json_object_get(v, "request_id"));
            if (rid && !strncmp(rid, r->run_id, plen) && rid[plen] == '-')
                listed++;
        }
        json_t *next = json_object_get(o, "next");
        after = json_integer_value(next);
        json_decref(o);
        if (!json_is_integer(next))
            break;
    }
    if (listed > r->njobs)
        *dup += listed - r->njobs;   /* made but never answered to us */
    else if (listed < r->njobs)
        *lost += r->njobs - listed;
}

static int cmp_double(const void *a, const void *b)
{
    return bench_cmp_double(a, b);
}

int cmd_bench_api(int argc, char **argv)
{
    static const struct option opts[] = { { "server", required_argument, 0, 's' },
                                          { "key", required_argument, 0, 'k' },
                                          { "witness", required_argument, 0, 'w' },
                                          { "clients", required_argument, 0, 'c' },
                                          { "rate", required_argument, 0, 'r' },
                                          { "duration", required_argument, 0, 'd' },
                                          { "pid", required_argument, 0, 'p' },
                                          { "json", no_argument, 0, 'j' },
                                          { 0, 0, 0, 0 } };
    static struct run r;
    const char *witness = NULL;
    long pid = 0;
    int json = 0, o;
    r.clients = 200, r.rate = 2000, r.duration = 30;
    r.url = remote_server();
    optind = 1;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 's': r.url = optarg; break;
        case 'k': r.key = optarg; break;
        case 'w': witness = optarg; break;
        case 'c': r.clients = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'r': r.rate = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'd': r.duration = strtod(optarg, NULL); break;
        case 'p': pid = strtol(optarg, NULL, 10); break;
        case 'j': json = 1; break;
        default: goto usage;
        }
    }
    if (!r.url || !r.key || !witness || optind != argc || r.clients < 1 || r.clients > 2000 ||
        r.rate < 1 || r.rate > 100000 || !(r.duration > 0 && r.duration <= 3600) ||
        strspn(r.key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
            strlen(r.key))
        goto usage;
    if (!loopback(r.url)) {
        fprintf(stderr, "zkslot bench api: %s: a loopback address or unix:/PATH only (the "
                "load is bounded to this machine)\n", r.url);
        return 2;
    }
    json_t *b64 = remote_base64_file(witness);
    if (!b64 || !(r.witness_b64 = json_dumps(b64, JSON_ENCODE_ANY))) {
        json_decref(b64);
        return 2;
    }
    json_decref(b64);
    r.token = getenv("ZKSLOT_TOKEN");
    snprintf(r.run_id, sizeof r.run_id, "bench-%ld-%d", (long)time(NULL), (int)getpid());
    pthread_mutex_init(&r.lock, NULL);
    if (!pid)
        pid = find_apid();
    long rss0 = pid ? rss_kib(pid) : -1;
    pthread_t *th = calloc(r.clients + STATUS_THREADS, sizeof *th);
    void *(*args)[2] = calloc(r.clients + STATUS_THREADS, sizeof *args);
    if (!th || !args)
        return 2;
    r.t0 = bench_now();
    r.t_end = r.t0 + r.duration;
    unsigned n = 0;
    for (unsigned i = 0; i < r.clients + STATUS_THREADS; i++) {
        args[i][0] = &r;
        args[i][1] = (void *)(uintptr_t)(i < r.clients ? i : i - r.clients);
        if (pthread_create(&th[n], NULL, i < r.clients ? client : status, args[i]) == 0)
            n++;
        else
            count(&r, "bench: a thread could not start");
    }
    /* apid's RSS once a second: after the first quarter (threads and
     * buffers warm) it should stay where it is */
    long rss_q = -1, rss_max = rss0;
    while (pid && bench_now() < r.t_end) {
        sleep_s(1);
        long v = rss_kib(pid);
        rss_max = v > rss_max ? v : rss_max;
        if (rss_q < 0 && bench_now() >= r.t0 + r.duration / 4)
            rss_q = v;
    }
    for (unsigned i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    double wall = bench_now() - r.t0;
    long rss1 = pid ? rss_kib(pid) : -1;
    unsigned long done, failed, lost, dup;
    verify(&r, &done, &failed, &lost, &dup);

    size_t nl = 0;
    for (unsigned i = 0; i < STATUS_THREADS; i++)
        nl += r.lat[i].n;
    double *all = malloc((nl + 1) * sizeof *all);
    size_t k = 0;
    for (unsigned i = 0; i < STATUS_THREADS && all; i++)
        for (size_t m = 0; m < r.lat[i].n; m++)
            all[k++] = r.lat[i].v[m] * 1e3;
    if (all && nl)
        qsort(all, nl, sizeof *all, cmp_double);
    double p50 = nl ? all[(nl - 1) / 2] : 0, p99 = nl ? all[(size_t)((double)(nl - 1) * 0.99)] : 0,
           mx = nl ? all[nl - 1] : 0;
    unsigned long sent = atomic_load(&r.status_sent), nerr = 0;
    for (unsigned i = 0; i < r.nkinds; i++)
        nerr += r.kinds[i].n;
    int ok = !nerr && !lost && !dup && done == r.njobs;
    if (json) {
        json_t *ks = json_object();
        for (unsigned i = 0; i < r.nkinds; i++)
            json_object_set_new(ks, r.kinds[i].kind, json_integer((json_int_t)r.kinds[i].n));
        json_t *out = json_pack(
            "{s:s,s:i,s:i,s:f,s:f,s:{s:I,s:f,s:I,s:f,s:f,s:f},s:{s:I,s:I,s:I,s:I,s:I},"
            "s:I,s:o,s:I,s:I,s:I,s:I,s:b}",
            "server", r.url, "clients", (int)r.clients, "rate", (int)r.rate, "duration_s",
            r.duration, "wall_s", wall, "status", "sent", (json_int_t)sent, "per_s",
            (double)sent / r.duration, "late", (json_int_t)atomic_load(&r.status_late), "p50_ms",
            p50, "p99_ms", p99, "max_ms", mx, "jobs", "submitted", (json_int_t)r.njobs, "done",
            (json_int_t)done, "failed", (json_int_t)failed, "lost", (json_int_t)lost,
            "duplicated", (json_int_t)dup, "busy_429", (json_int_t)atomic_load(&r.busy),
            "errors", ks, "rss_start_kib", (json_int_t)rss0, "rss_quarter_kib", (json_int_t)rss_q,
            "rss_end_kib", (json_int_t)rss1, "rss_max_kib", (json_int_t)rss_max, "ok", ok);
        char *s = out ? json_dumps(out, JSON_INDENT(2)) : NULL;
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(out);
    } else {
        printf("zkslot bench api: %s, %u clients, status at %u/s for %.0f s (%.1f s with the "
               "last jobs)\n", r.url, r.clients, r.rate, r.duration, wall);
        printf("status requests: %lu (%.0f/s; %lu sent over 100 ms late), p50 %.2f ms, "
               "p99 %.2f ms, max %.2f ms\n", sent, (double)sent / r.duration,
               (unsigned long)atomic_load(&r.status_late), p50, p99, mx);
        printf("jobs: %zu submitted, %lu done, %lu failed or unfinished, %lu lost, "
               "%lu duplicated\n", r.njobs, done, failed, lost, dup);
        printf("429 busy (documented): %lu\n", (unsigned long)atomic_load(&r.busy));
        printf("errors: %s\n", r.nkinds ? "" : "none");
        for (unsigned i = 0; i < r.nkinds; i++)
            printf("  %s: %lu\n", r.kinds[i].kind, r.kinds[i].n);
        if (pid)
            printf("apid RSS (pid %ld): %.1f MiB at the start, %.1f MiB after a quarter of "
                   "the time, %.1f MiB at the end (at most %.1f MiB)\n", pid,
                   (double)rss0 / 1024, (double)rss_q / 1024, (double)rss1 / 1024,
                   (double)rss_max / 1024);
        else
            printf("apid RSS: not measured (no --pid and not exactly one zkslot-apid)\n");
    }
    for (unsigned i = 0; i < STATUS_THREADS; i++)
        free(r.lat[i].v);
    free(all);
    free(th);
    free(args);
    free(r.jobs);
    free(r.witness_b64);
    return ok ? 0 : 1;
usage:
    fprintf(stderr, "usage: zkslot bench api --server URL --key NAME --witness W.wtns "
                    "[--clients N] [--rate R] [--duration S] [--pid PID] [--json]\n"
                    "  defaults: 200 clients, 2000 status requests/s, 30 s; URL loopback or "
                    "unix:/PATH\n");
    return 2;
}
