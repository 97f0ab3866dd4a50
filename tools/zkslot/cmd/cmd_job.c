/*
 * cmd_job.c -- the job subcommands over the ledger:
 *
 *   zkslot submit --key NAME [--out DIR] WITNESS.wtns...   prints the job id
 *   zkslot submit --key NAME [--out DIR] --input INPUT.json...
 *                                       a job from circuit inputs, stored in
 *                                       the ledger; the key's witness
 *                                       generator runs in synthd
 *          [--priority CLASS] [--deadline DURATION|TIME [--force]]
 *          [--request-id ID]            scheduling (docs/scheduling.md); a
 *                                       deadline the queue cannot meet is
 *                                       refused (exit 3) unless --force
 *   zkslot reprioritize JOB CLASS
 *   zkslot status [JOB] [--json]
 *   zkslot wait JOB [--timeout S]       0 done, 1 failed/canceled, 3 timeout
 *   zkslot result JOB                   proof/public paths of the done
 *                                       partitions; 1 if the job is not done
 *                                       (running, failed, canceled: the done
 *                                       ones still listed, the state on stderr)
 *   zkslot cancel JOB                   1 if the job had finished already
 *
 * All take --config FILE and --state-dir DIR (ledger_cli.h).  Exit code 2
 * is an error (bad arguments, no ledger, unknown job, bad witness).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "filecoin_cli.h"
#include "g16_cli.h"
#include "ledger_cli.h"
#include "local_route.h"
#include "remote.h"
#include "job_json.h"
#include "submit_core.h"
#include "zk/bellperson.h"
#include "zk/pool.h"
#include "zk/slotfmt.h"
#include "zk/statement.h"
#include "zk/error.h"
#include "zk/seal.h"
#include "zk/util.h"
#include "zk/keyfile.h"
#include "zk/witgen.h"
#include "zk/wtns.h"

enum { A_KEY = 1, A_OUT = 2, A_JSON = 4, A_TIMEOUT = 8, A_INPUT = 16, A_SCHED = 32 };
enum { OPT_BPA = 0x100, OPT_FILECOIN };

struct args {
    struct lcli c;
    const char *key, *out;
    int json;
    int input;           /* submit: the files are circuit inputs */
    int bpa;             /* submit: the files are bellperson assignments (.bpa) */
    const char *filecoin; /* submit: the file is a Filecoin proof's input of this kind */
    double timeout;      /* < 0: none */
    int npos;
    char **pos;
    /* submit's scheduling (A_SCHED) */
    int priority;        /* < 0: the key's default */
    int64_t deadline_ns; /* 0: none */
    int64_t deadline_in; /* > 0: --deadline was a duration (ns), from the ledger's clock */
    const char *request_id;
    int force;
};

static int parse(int argc, char **argv, const char *cmd, unsigned allowed, struct args *a)
{
    static const struct option opts[] = { LCLI_OPTIONS,
                                          { "key", required_argument, 0, 'k' },
                                          { "out", required_argument, 0, 'o' },
                                          { "json", no_argument, 0, 'j' },
                                          { "timeout", required_argument, 0, 't' },
                                          { "input", no_argument, 0, 'i' },
                                          { "priority", required_argument, 0, 'p' },
                                          { "deadline", required_argument, 0, 'd' },
                                          { "request-id", required_argument, 0, 'r' },
                                          { "force", no_argument, 0, 'f' },
                                          { "bpa", no_argument, 0, OPT_BPA },
                                          { "filecoin", required_argument, 0, OPT_FILECOIN },
                                          { 0, 0, 0, 0 } };
    int o;
    memset(a, 0, sizeof *a);
    a->c.cmd = cmd;
    a->timeout = -1;
    a->priority = -1;
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (lcli_option(&a->c, o, optarg))
            continue;
        if (o == 'k' && (allowed & A_KEY)) {
            a->key = optarg;
        } else if (o == 'o' && (allowed & A_OUT)) {
            a->out = optarg;
        } else if (o == 'j' && (allowed & A_JSON)) {
            a->json = 1;
        } else if (o == 'i' && (allowed & A_INPUT)) {
            a->input = 1;
        } else if (o == OPT_BPA && (allowed & A_INPUT)) {
            a->bpa = 1;
        } else if (o == OPT_FILECOIN && (allowed & A_INPUT)) {
            a->filecoin = optarg;
        } else if (o == 'p' && (allowed & A_SCHED)) {
            if ((a->priority = zk_priority_parse(optarg)) < 0) {
                fprintf(stderr, "zkslot %s: --priority: '%s' is not low, normal, high or "
                        "critical; nothing submitted\n", cmd, optarg);
                return -2;   /* said: no usage after it */
            }
        } else if (o == 'd' && (allowed & A_SCHED)) {
            int64_t now = lcli_now_ns(), later = 0;
            int r = zk_deadline_parse(optarg, now, &a->deadline_ns);
            /* a duration moves with now: measured from the ledger's clock
             * once it is open (lcli_deadline_rebase), not this machine's */
            if (!r && !zk_deadline_parse(optarg, now + 1000000000, &later) &&
                later != a->deadline_ns)
                a->deadline_in = a->deadline_ns - now;
            if (r) {
                fprintf(stderr, "zkslot %s: --deadline: '%s' %s; nothing submitted\n", cmd,
                        optarg,
                        r == -ETIME    ? "is not in the future"
                        : r == -ERANGE ? "is more than 366 days ahead"
                                       : "is not a duration (30s, 5m, 1h30m) or a time "
                                         "(2026-12-02T03:00:00Z, @UNIX_SECONDS)");
                return -2;   /* said: no usage after it */
            }
        } else if (o == 'r' && (allowed & A_SCHED)) {
            a->request_id = optarg;
            if (!*optarg || strlen(optarg) > ZK_LEDGER_REQUEST_ID_MAX) {
                fprintf(stderr, "zkslot %s: --request-id: 1 to %d bytes; nothing submitted\n",
                        cmd, ZK_LEDGER_REQUEST_ID_MAX);
                return -2;   /* said: no usage after it */
            }
        } else if (o == 'f' && (allowed & A_SCHED)) {
            a->force = 1;
        } else if (o == 't' && (allowed & A_TIMEOUT)) {
            char *end;
            a->timeout = strtod(optarg, &end);
            if (end == optarg || *end || !(a->timeout >= 0) || !isfinite(a->timeout)) {
                fprintf(stderr, "zkslot %s: --timeout: '%s' is not a number of seconds\n", cmd,
                        optarg);
                return -1;
            }
        } else {
            fprintf(stderr, "zkslot %s: bad option '%s'\n", cmd, argv[optind - 1]);
            return -1;
        }
    }
    a->npos = argc - optind;
    a->pos = argv + optind;
    return 0;
}

static const char *usage_common = "[--config FILE] [--state-dir DIR] [--ledger URL]";

/* ---- submit ------------------------------------------------------------------ */

/* Checks every witness against the key; absolute paths into abs[i] (malloc'd). */
static int check_witnesses(const struct zk_ledger_key *k, char **files, int n, char **abs)
{
    struct zk_zkey_header zh;
    int bad = 0;
    memset(&zh, 0, sizeof zh);
    zh.curve = !strcmp(k->curve, "bls12381") ? ZK_CURVE_BLS12_381 : ZK_CURVE_BN254;
    zh.n_vars = (uint32_t)k->n_vars;
    for (int i = 0; i < n; i++) {
        struct zk_wtns w = { 0 };
        struct zk_diag d = { "" };
        if (zk_wtns_open(&w, files[i], &d) < 0 ||
            zk_wtns_check_against_zkey(&w.hdr, &zh, files[i], &d) < 0) {
            fprintf(stderr, "zkslot submit: %s (key '%s')\n", d.msg, k->name);
            bad++;
        }
        zk_wtns_done(&w);
        abs[i] = realpath(files[i], NULL);
        if (!abs[i] && !d.msg[0]) {
            fprintf(stderr, "zkslot submit: %s: %s\n", files[i], strerror(errno));
            bad++;
        }
    }
    return bad;
}

/* Checks every .bpa against the bellperson key k (its shape, every value
 * canonical); absolute paths into abs[i] (malloc'd). */
static int check_bpas(const struct zk_ledger_key *k, char **files, int n, char **abs)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        zk_bp_assignment *as = NULL;
        struct zk_diag d = { "" };
        if (zk_bp_assignment_open(files[i], &as, &d) < 0 ||
            zk_bp_assignment_fits(as, k->n_public + 1, k->n_vars - k->n_public - 1,
                                  k->domain_size, files[i], &d) < 0) {
            fprintf(stderr, "zkslot submit: %s (key '%s')\n", d.msg, k->name);
            bad++;
        }
        zk_bp_assignment_free(as);
        abs[i] = realpath(files[i], NULL);
        if (!abs[i] && !d.msg[0]) {
            fprintf(stderr, "zkslot submit: %s: %s\n", files[i], strerror(errno));
            bad++;
        }
    }
    return bad;
}

/*
 * Reads and checks every circuit input (zk_input_check); its text into
 * text[i] (malloc'd) and its absolute path into abs[i].  Returns the number
 * refused, each with one line naming the file.
 */
static int check_inputs(const struct zk_ledger_key *k, char **files, int n, char **abs,
                        char **text, size_t *len)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        struct zk_diag d = { "" };
        if (!(text[i] = g16_cli_read_text("submit", files[i]))) {
            bad++;
            continue;
        }
        len[i] = strlen(text[i]);
        if (len[i] > ZK_LEDGER_INPUT_MAX) {
            fprintf(stderr, "zkslot submit: %s: %zu bytes; an input is at most %u\n", files[i],
                    len[i], ZK_LEDGER_INPUT_MAX);
            bad++;
        } else if (submit_input_check(k, text[i], len[i], files[i], &d) < 0) {
            fprintf(stderr, "zkslot submit: %s (key '%s')\n", d.msg, k->name);
            bad++;
        }
        if (!(abs[i] = realpath(files[i], NULL))) {
            fprintf(stderr, "zkslot submit: %s: %s\n", files[i], strerror(errno));
            bad++;
        }
    }
    return bad;
}

/* --out DIR made (its new directories given group gid), then it
 * (canonical) and the partition directories already in it as
 * submit_out_dir_check judges them: the canonical path, malloc'd, or NULL
 * after one line. */
static char *out_dir_made(const char *dir, gid_t gid, int n)
{
    char msg[SUBMIT_MSG_MAX];
    char *out = NULL;
    int r = submit_mkdir_shared(dir, gid, msg, sizeof msg);
    if (r < 0 || !(out = realpath(dir, NULL))) {
        if (r >= 0)
            snprintf(msg, sizeof msg, "%s: %s", dir, strerror(errno));
        fprintf(stderr, "zkslot submit: cannot create the output directory %s; nothing "
                "submitted\n", msg);
        return NULL;
    }
    if (submit_out_dir_check(out, (uint32_t)n, msg, sizeof msg) == 0)
        return out;
    fprintf(stderr, "zkslot submit: %s\n", msg);
    free(out);
    return NULL;
}

/* zkslot --server: to zkslot-apid; --out (a directory of this machine)
 * only to its unix socket, made and checked here as the caller. */
static int submit_remote(struct args *a)
{
    const char *url = remote_server();
    char *out = NULL;
    struct stat sst;
    if (a->out && !strncmp(url, "unix:", 5)) {
        if (lcli_resolve(&a->c, 0) < 0)
            return 2;
        if (stat(a->c.cfg.state_dir, &sst)) {
            fprintf(stderr, "zkslot submit: %s: %s\n", a->c.cfg.state_dir, strerror(errno));
            return 2;
        }
        if (!(out = out_dir_made(a->out, sst.st_gid, a->npos)))
            return 2;
    }
    int rc = remote_submit(a->key, a->pos, a->npos, a->input, a->priority, a->deadline_ns,
                           a->force, a->request_id, out);
    free(out);
    return rc;
}

/* The admission check of --deadline (submit_admit): 0 to go on, 3
 * refused (one line), 2 an error. */
static int admit(struct args *a, const struct zk_ledger_key *k, uint32_t n)
{
    char msg[SUBMIT_MSG_MAX];
    int r = submit_admit(a->c.l, k, a->priority, n, a->deadline_ns, msg, sizeof msg);
    if (r == 0)
        return 0;
    fprintf(stderr, "zkslot submit: %s%s\n", msg,
            r == ZK_EDEADLINE ? "; --force queues it anyway; nothing submitted" : "");
    return r == ZK_EDEADLINE ? 3 : 2;
}

/* A job of the files in a (parsed, checked): queued, its id printed.  The
 * exit status. */
static int submit_parsed(struct args a)
{
    struct zk_ledger_key k;
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    char **abs = NULL, *out = NULL, **text = NULL;
    size_t *len = NULL;
    int64_t id = 0;
    int rc = 2, r;
    /* a job is all .wtns or all inputs: one kind of synthesis per job, so
     * that its partitions cost the same and fail for the same reasons */
    for (int i = 0; i < a.npos && !a.input && !a.bpa; i++) {
        size_t n = strlen(a.pos[i]);
        if (n > 5 && !strcmp(a.pos[i] + n - 5, ".json")) {
            fprintf(stderr, "zkslot submit: %s looks like a circuit input: submit inputs with "
                    "--input (a job is all witnesses or all inputs); nothing submitted\n",
                    a.pos[i]);
            return 2;
        }
    }
    if (local_route(&a.c) < 0)   /* not the ledger's owner: to apid's socket */
        return 2;
    if (remote_server() && a.bpa) {
        fprintf(stderr, "zkslot submit: --bpa: the API takes no assignments yet; submit on "
                "the proving machine as the daemons' user; nothing submitted\n");
        return 2;
    }
    if (remote_server())   /* zkslot --server URL: to zkslot-apid */
        return submit_remote(&a);
    if (lcli_open(&a.c, 1) < 0)
        return 2;
    char msg[SUBMIT_MSG_MAX];
    if (submit_key_check(a.c.l, &a.c.cfg, a.key,
                         a.input ? SUBMIT_INPUTS : a.bpa ? SUBMIT_BPA : SUBMIT_WITNESSES, &k, msg,
                         sizeof msg) < 0) {
        fprintf(stderr, "zkslot submit: %s\n", msg);
        goto out;
    }
    int shared = strcmp(zk_ledger_backend(a.c.l), "sqlite") != 0;
    int bp = k.format == ZK_KEY_BELLPERSON;
    if (bp && shared && a.bpa) {
        fprintf(stderr, "zkslot submit: key '%s' is a bellperson key: its assignments are read "
                "from this machine's files, which a shared ledger's proving machine may not "
                "see (not yet); nothing submitted\n", k.name);
        goto out;
    }
    abs = calloc((size_t)a.npos, sizeof *abs);
    text = calloc((size_t)a.npos, sizeof *text);
    len = calloc((size_t)a.npos, sizeof *len);
    if (!abs || !text || !len)
        goto out;
    int bad = a.input ? check_inputs(&k, a.pos, a.npos, abs, text, len)
              : bp    ? check_bpas(&k, a.pos, a.npos, abs)
                      : check_witnesses(&k, a.pos, a.npos, abs);
    if (bad) {
        fprintf(stderr, "zkslot submit: %d of %d %s refused; nothing submitted\n", bad,
                a.npos, a.input ? (a.npos > 1 ? "inputs" : "input")
                        : bp    ? (a.npos > 1 ? "assignments" : "assignment")
                                : (a.npos > 1 ? "witnesses" : "witness"));
        goto out;
    }
    /* a shared ledger stores each witness like an input: the machine that
     * proves it need not see this file (synthd/stored.c) */
    for (int i = 0; i < a.npos && shared && !a.input; i++)
        if (!(text[i] = g16_cli_read_file("submit", a.pos[i], ZK_LEDGER_INPUT_MAX, &len[i]))) {
            fprintf(stderr, "zkslot submit: a shared ledger stores each witness (at most %u "
                    "bytes; else submit its circuit input, --input); nothing submitted\n",
                    ZK_LEDGER_INPUT_MAX);
            goto out;
        }
    struct stat sst = { .st_gid = (gid_t)-1 };   /* shared: no group to give */
    if (!shared && stat(a.c.cfg.state_dir, &sst)) {
        fprintf(stderr, "zkslot submit: %s: %s\n", a.c.cfg.state_dir, strerror(errno));
        goto out;
    }
    if (a.out && !(out = out_dir_made(a.out, sst.st_gid, a.npos)))
        goto out;
    if (a.deadline_in > 0)   /* lcli_now_ns is the ledger's clock now that it is open */
        a.deadline_ns = lcli_now_ns() + a.deadline_in;
    if (a.deadline_ns && !a.force &&
        (rc = admit(&a, &k, (uint32_t)a.npos)) != 0)
        goto out;
    rc = 2;
    /* inputs, and on a shared ledger witnesses too, are stored in the ledger */
    int stored = a.input || shared;
    struct zk_ledger_submit_opts so = { a.priority, a.deadline_ns, a.request_id, 0, NULL, 0,
                                        a.force };
    /* what is stored is sealed to the daemons (zk/seal.h) */
    struct zk_seal_pub sk;
    if (stored && (r = zk_seal_for_submit(a.c.cfg.state_dir, shared, &sk, &d)) != 0) {
        if (r < 0) {
            fprintf(stderr, "zkslot submit: %s; nothing submitted\n", d.msg);
            goto out;
        }
        zk_ledger_set_seal(a.c.l, zk_seal_submit_cb, &sk);
    }
    r = zk_ledger_job_submit_opts(a.c.l, k.id, out, &so, (const char *const *)abs,
                                  stored ? (const char *const *)text : NULL,
                                  stored ? len : NULL, (uint32_t)a.npos, &id, &d);
    if (r < 0 || (r = zk_ledger_job_get(a.c.l, id, &j, &d)) < 0 ||
        (r = zk_ledger_job_resolve_out(&j, a.c.cfg.state_dir)) < 0) {
        fprintf(stderr, "zkslot submit: %s%s\n", d.msg, r == -EEXIST ? "; nothing submitted" : "");
        goto out;
    }
    if (so.existing) {   /* a retry: the first submit's job, nothing queued */
        fprintf(stderr, "zkslot submit: request id '%s' is job %lld (%s), submitted before; "
                "nothing queued\n", a.request_id, (long long)id, zk_job_state_name(j.state));
        printf("%lld\n", (long long)id);
        rc = 0;
        goto out;
    }
    /* on a shared ledger without --out each proving machine makes its own
     * <state_dir>/jobs/<id>: nothing to make here */
    if (submit_job_dirs(a.c.l, &j, a.c.cfg.state_dir, out != NULL, msg, sizeof msg) < 0) {
        fprintf(stderr, "zkslot submit: %s\n", msg);
        goto out;
    }
    printf("%lld\n", (long long)id);
    rc = 0;
out:
    submit_files_free(abs, text, len, (size_t)a.npos);
    free(out);
    lcli_close(&a.c);
    return rc;
}

/*
 * `--filecoin KIND FILE`: the provider's input split by the Filecoin
 * synthesizer, as the caller, into one part file per partition in a
 * private directory (dir: fil_split_private); the job is those parts as inputs of
 * key fil-KIND-SIZE (or --key), each synthesized by the key's generator
 * in synthd.  0, or 2 with one line said (a bad input: the synthesizer's
 * line, nothing queued).
 */
static int filecoin_split(struct args *a, char *dir, size_t dir_n, char ***parts, int *n,
                          char *key, size_t key_n)
{
    char prog[PATH_MAX], msg[FIL_MSG_MAX];
    if (!fil_kind_valid(a->filecoin)) {
        fprintf(stderr, "zkslot submit: --filecoin '%s': not porep, winning, window or snap; "
                "nothing submitted\n", a->filecoin);
        return 2;
    }
    if (a->npos != 1 || a->input || a->bpa) {
        fprintf(stderr, "zkslot submit: --filecoin %s takes one input file (a C1 output, "
                "PoSt or update input: docs/filecoin.md), without --input or --bpa\n",
                a->filecoin);
        return 2;
    }
    if (fil_synth_find(NULL, prog, sizeof prog, msg, sizeof msg) < 0) {
        fprintf(stderr, "zkslot submit: %s; nothing submitted\n", msg);
        return 2;
    }
    if (fil_split_private(prog, a->filecoin, a->pos[0], dir, dir_n, parts, n, key, key_n, msg,
                          sizeof msg) != 0) {
        fprintf(stderr, "zkslot submit: %s%s\n", msg, dir[0] ? "; nothing submitted" : "");
        return 2;
    }
    a->pos = *parts;
    a->npos = *n;
    a->input = 1;
    if (!a->key)
        a->key = key;
    return 0;
}

/* `--filecoin KIND FILE` with `zkslot --server URL`: the provider's input
 * sent as it is (the API's "filecoin"), split on the server by the key's
 * own synthesizer; this machine needs none.  The key is --key or the one
 * the input names (its SectorSize, or its registered_proof). */
static int filecoin_remote(struct args *a)
{
    char key[96], msg[FIL_MSG_MAX];
    if (!fil_kind_valid(a->filecoin) || a->npos != 1 || a->input || a->bpa || a->out) {
        fprintf(stderr, "zkslot submit: --filecoin porep|winning|window|snap takes one input "
                "file, without --input, --bpa or --out (with --server); nothing submitted\n");
        return 2;
    }
    if (!a->key && fil_input_key(a->filecoin, a->pos[0], key, sizeof key, msg, sizeof msg)) {
        fprintf(stderr, "zkslot submit: %s; nothing submitted\n", msg);
        return 2;
    }
    return remote_submit_filecoin(a->key ? a->key : key, a->filecoin, a->pos[0], a->priority,
                                  a->deadline_ns, a->force, a->request_id);
}

int cmd_submit(int argc, char **argv)
{
    struct args a;
    int r = parse(argc, argv, "submit", A_KEY | A_OUT | A_INPUT | A_SCHED, &a);
    if (r == -2)
        return 2;
    if (r < 0 || (!a.key && !a.filecoin) || a.npos < 1 || (a.force && !a.deadline_ns) ||
        (a.bpa && a.input)) {
        fprintf(stderr, "usage: zkslot submit --key NAME [--out DIR] WITNESS.wtns... %s\n"
                        "       zkslot submit --key NAME [--out DIR] --input INPUT.json... %s\n"
                        "       zkslot submit --key NAME [--out DIR] --bpa A.bpa... "
                        "(a bellperson key)\n"
                        "       zkslot submit --filecoin porep|winning|window|snap FILE "
                        "[--key NAME] [--out DIR]\n"
                        "  one partition per file; a job is all witnesses or all inputs\n"
                        "  [--priority low|normal|high|critical] [--deadline DURATION|TIME "
                        "[--force]] [--request-id ID]\n",
                usage_common, usage_common);
        return 2;
    }
    if (!a.filecoin)
        return submit_parsed(a);
    if (remote_server())   /* zkslot --server URL: the input itself, split there */
        return filecoin_remote(&a);
    char dir[PATH_MAX] = "", key[96], **parts = NULL;
    int n = 0, rc = filecoin_split(&a, dir, sizeof dir, &parts, &n, key, sizeof key);
    if (rc == 0)
        rc = submit_parsed(a);
    fil_split_remove(dir, parts, n);
    return rc;
}

/* ---- status ------------------------------------------------------------------ */

static int list_job(void *ctx, const struct zk_ledger_job *j)
{
    json_t *arr = ctx;
    char age[32];
    if (arr) {
        json_t *o = job_json(j);
        return o ? json_array_append_new(arr, o) : -ENOMEM;
    }
    printf("%-8lld %-20s %-9s %-8s %6u/%-6u %s\n", (long long)j->id, j->key_name,
           zk_job_state_name(j->state), zk_priority_name(j->priority), j->count[ZK_PART_DONE],
           j->nparts, lcli_duration(lcli_now_ns() - j->submitted_ns, age, sizeof age));
    return 0;
}

static const char *fmt_s(double s, char *buf, size_t n)
{
    if (s < 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.3f", s);
    return buf;
}

static int list_part(void *ctx, const struct zk_ledger_part *p)
{
    json_t *arr = ctx;
    char owner[48], t[5][24];
    if (arr) {
        json_t *o = part_json(p);
        return o ? json_array_append_new(arr, o) : -ENOMEM;
    }
    if (p->owner.pid)
        snprintf(owner, sizeof owner, "%s:%d", p->owner_role, (int)p->owner.pid);
    else
        snprintf(owner, sizeof owner, "-");
    printf("%5u %-12s %4u %4u %5u %-14s %4d %8s %8s %8s %8s %8s %s\n", p->index,
           zk_part_state_name(p->state), p->attempts, p->errors, p->proofs, owner, (int)p->slot,
           fmt_s(p->witness_s, t[4], sizeof t[4]),
           fmt_s(p->synth_s, t[0], sizeof t[0]), fmt_s(p->wait_s, t[1], sizeof t[1]),
           fmt_s(p->start_s, t[2], sizeof t[2]), fmt_s(p->finalize_s, t[3], sizeof t[3]),
           p->error);
    return 0;
}

static int show_job(struct args *a, int64_t id)
{
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    char age[32];
    int r = zk_ledger_job_get(a->c.l, id, &j, &d);
    if (r == 0 && (r = zk_ledger_job_resolve_out(&j, a->c.cfg.state_dir)) < 0)
        zk_diag_set(&d, a->c.cfg.state_dir, r, "output directory name too long");
    if (r < 0) {
        if (r == -ENOENT)
            fprintf(stderr, "zkslot status: no job %lld\n", (long long)id);
        else
            fprintf(stderr, "zkslot status: %s\n", d.msg);
        return 2;
    }
    if (a->json) {
        json_t *o = job_json(&j), *parts = json_array();
        if (!o || !parts || json_object_set_new(o, "partitions", parts) < 0)
            return 2;
        r = zk_ledger_part_list(a->c.l, id, list_part, parts, &d);
        char *s = r < 0 ? NULL : json_dumps(o, JSON_INDENT(2));
        json_decref(o);
        if (!s) {
            fprintf(stderr, "zkslot status: %s\n", r < 0 ? d.msg : "out of memory");
            return 2;
        }
        printf("%s\n", s);
        free(s);
        return 0;
    }
    printf("job %lld: key %s, %s, %u/%u done, submitted %s ago", (long long)j.id, j.key_name,
           zk_job_state_name(j.state), j.count[ZK_PART_DONE], j.nparts,
           lcli_duration(lcli_now_ns() - j.submitted_ns, age, sizeof age));
    if (j.finished_ns && j.started_ns)
        printf(", ran %s", lcli_duration(j.finished_ns - j.started_ns, age, sizeof age));
    printf("\n  class: %s", zk_priority_name(j.priority));
    if (j.deadline_ns) {
        int64_t left = j.deadline_ns - lcli_now_ns();
        printf(", deadline %s %s", lcli_duration(left < 0 ? -left : left, age, sizeof age),
               left < 0 ? "ago" : "from now");
    }
    if (j.request_id[0])
        printf(", request id %s", j.request_id);
    if (j.principal[0])
        printf(", by %s", j.principal);
    printf("\n  out: %s\n", j.out_dir);
    if (j.error[0])
        printf("  error: %s\n", j.error);
    printf("%5s %-12s %4s %4s %5s %-14s %4s %8s %8s %8s %8s %8s %s\n", "INDEX", "STATE", "ATT",
           "ERR", "PROOF", "OWNER", "SLOT", "WITNS_S", "SYNTH_S", "WAIT_S", "START_S", "FINAL_S",
           "ERROR");
    r = zk_ledger_part_list(a->c.l, id, list_part, NULL, &d);
    if (r < 0) {
        fprintf(stderr, "zkslot status: %s\n", d.msg);
        return 2;
    }
    return 0;
}

int cmd_status(int argc, char **argv)
{
    struct args a;
    struct zk_diag d = { "" };
    int64_t id = 0;
    int rc = 2;
    /* cmd_help: without arguments status would list the jobs */
    if (cmd_help || parse(argc, argv, "status", A_JSON, &a) < 0 || a.npos > 1) {
        fprintf(stderr, "usage: zkslot status [JOB] [--json] %s\n", usage_common);
        return 2;
    }
    if (a.npos == 1 && lcli_job_id("status", a.pos[0], &id) < 0)
        return 2;
    if (local_route(&a.c) < 0)
        return 2;
    if (remote_server())
        return remote_status(id, a.json);
    if (lcli_open(&a.c, 0) < 0)
        return 2;
    if (id) {
        rc = show_job(&a, id);
        goto out;
    }
    json_t *arr = a.json ? json_array() : NULL;
    if (!a.json)
        printf("%-8s %-20s %-9s %-8s %13s %s\n", "JOB", "KEY", "STATE", "CLASS", "DONE/TOTAL", "AGE");
    int r = zk_ledger_job_list(a.c.l, list_job, arr, &d);
    if (r < 0) {
        fprintf(stderr, "zkslot status: %s\n", r == -ENOMEM ? "out of memory" : d.msg);
    } else if (arr) {
        json_t *o = json_pack("{s:O}", "jobs", arr);
        char *s = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
        json_decref(o);
        if (s) {
            printf("%s\n", s);
            free(s);
            rc = 0;
        }
    } else {
        rc = 0;
    }
    json_decref(arr);
out:
    lcli_close(&a.c);
    return rc;
}

/* ---- wait, result, cancel ----------------------------------------------------- */

/* Parses `CMD JOB [options]` and opens the ledger; 0, an exit code (2), or
 * OPEN_REMOTE under zkslot --server (nothing opened). */
#define OPEN_REMOTE (-1)
static int open_job(int argc, char **argv, const char *cmd, unsigned allowed, struct args *a,
                    int64_t *id, const char *usage)
{
    if (parse(argc, argv, cmd, allowed, a) < 0 || a->npos != 1) {
        fprintf(stderr, "usage: zkslot %s %s %s\n", cmd, usage, usage_common);
        return 2;
    }
    if (lcli_job_id(cmd, a->pos[0], id) < 0)
        return 2;
    if (local_route(&a->c) < 0)
        return 2;
    if (remote_server())
        return OPEN_REMOTE;
    return lcli_open(&a->c, 0) < 0 ? 2 : 0;
}

static int get_job(struct args *a, int64_t id, struct zk_ledger_job *j)
{
    struct zk_diag d = { "" };
    int r = zk_ledger_job_get(a->c.l, id, j, &d);
    if (r == 0 && (r = zk_ledger_job_resolve_out(j, a->c.cfg.state_dir)) < 0)
        zk_diag_set(&d, a->c.cfg.state_dir, r, "output directory name too long");
    if (r == -ENOENT)
        fprintf(stderr, "zkslot %s: no job %lld\n", a->c.cmd, (long long)id);
    else if (r < 0)
        fprintf(stderr, "zkslot %s: %s\n", a->c.cmd, d.msg);
    return r;
}

int cmd_wait(int argc, char **argv)
{
    struct args a;
    struct zk_ledger_job j;
    int64_t id;
    int rc = open_job(argc, argv, "wait", A_TIMEOUT, &a, &id, "JOB [--timeout S]");
    if (rc == OPEN_REMOTE)
        return remote_wait(id, a.timeout);
    if (rc)
        return rc;
    int tty = isatty(2), shown = 0;
    int64_t t0 = lcli_now_ns();
    unsigned poll_ms = a.c.cfg.poll_ms ? a.c.cfg.poll_ms : 100;
    for (;;) {
        rc = 2;
        if (get_job(&a, id, &j) < 0)
            break;
        if (tty) {
            fprintf(stderr, "\rjob %lld: %s, %u/%u done, %u proving, %u synthesizing   ",
                    (long long)id, zk_job_state_name(j.state), j.count[ZK_PART_DONE], j.nparts,
                    j.count[ZK_PART_PROVING], j.count[ZK_PART_SYNTHESIZING]);
            shown = 1;
        }
        if (j.state == ZK_JOB_DONE || j.state == ZK_JOB_FAILED || j.state == ZK_JOB_CANCELED) {
            if (shown)
                fprintf(stderr, "\n");
            shown = 0;
            rc = j.state == ZK_JOB_DONE ? 0 : 1;
            if (rc)
                fprintf(stderr, "zkslot wait: job %lld %s: %s\n", (long long)id,
                        zk_job_state_name(j.state), j.error[0] ? j.error : "(no message)");
            break;
        }
        double waited = (double)(lcli_now_ns() - t0) / 1e9;
        if (a.timeout >= 0 && waited >= a.timeout) {
            if (shown)
                fprintf(stderr, "\n");
            shown = 0;
            fprintf(stderr, "zkslot wait: timed out after %g s: job %lld is %s (%u/%u done)\n",
                    a.timeout, (long long)id, zk_job_state_name(j.state), j.count[ZK_PART_DONE],
                    j.nparts);
            rc = 3;
            break;
        }
        double left_ms = a.timeout >= 0 ? (a.timeout - waited) * 1e3 : poll_ms;
        double ms = left_ms < poll_ms ? left_ms : poll_ms;
        struct timespec ts = { (time_t)(ms / 1e3), (long)fmod(ms * 1e6, 1e9) };
        nanosleep(&ts, NULL);
    }
    if (shown)
        fprintf(stderr, "\n");
    lcli_close(&a.c);
    return rc;
}

struct result_ctx {
    zk_ledger *l;
    const char *out_dir;              /* where the proving machine wrote them */
    const char *to;                   /* --out: written here from the ledger */
    const char *machine;              /* this machine's name */
    unsigned written, missing, refused;
    struct zk_ledger_key key;         /* the job's */
    struct zk_groth16_vk vk;
    int have_vk;                      /* else results checked by statement only */
    zk_bp_key *bp_key;                /* a bellperson key's (its vk), when here */
    uint8_t *bp_proofs;               /* bellperson --out FILE: nparts x 192 bytes */
    uint32_t nparts;
};

/* 0 when partition p's result (proof.json, public.json texts) is the proof
 * of p's statement (zk/statement.h); else one line and rc->refused + 1. */
static int check_result(struct result_ctx *rc, const struct zk_ledger_part *p,
                        const char *proof, const char *pub)
{
    struct zk_diag d = { "" };
    int r = rc->key.format == ZK_KEY_BELLPERSON
                ? zk_result_check_bp(&rc->key, p, rc->bp_key ? zk_bp_key_vk(rc->bp_key) : NULL,
                                     proof, pub, &d)
                : zk_result_check(&rc->key, p, rc->have_vk ? &rc->vk : NULL, proof, pub, &d);
    if (r == 0)
        return 0;
    fprintf(stderr, "zkslot result: %s%s\n", d.msg,
            r == ZK_ESTATEMENT ? " (refused: not written out)" : "");
    rc->refused++;
    return r;
}

/* Partition p's result from the ledger into rc->to/<index>/{proof,public}.json. */
static int write_result(struct result_ctx *rc, const struct zk_ledger_part *p)
{
    char dir[4200], pf[4300], uf[4300];
    struct zk_ledger_result res;
    struct zk_diag d = { "" };
    int r;
    snprintf(dir, sizeof dir, "%s/%u", rc->to, p->index);
    snprintf(pf, sizeof pf, "%s/proof.json", dir);
    snprintf(uf, sizeof uf, "%s/public.json", dir);
    if ((r = zk_ledger_part_result(rc->l, p->id, &res, &d)) == -ENOENT) {
        fprintf(stderr, "zkslot result: partition %u: no result in the ledger (done by a zkslot "
                "that kept none; the proving machine wrote it to %s/%u/)\n", p->index,
                rc->out_dir, p->index);
        rc->missing++;
        return 0;
    }
    if (r < 0) {
        fprintf(stderr, "zkslot result: %s\n", d.msg);
        return r;
    }
    if (check_result(rc, p, res.proof, res.pub)) {
        zk_ledger_result_free(&res);
        return 0;
    }
    if (rc->bp_proofs) {   /* checked: its 192 bytes in their place */
        for (int i = 0; i < ZK_BP_PROOF_BYTES && p->index < rc->nparts; i += 32) {
            char hex[65];
            memcpy(hex, res.proof + 2 * i, 64);
            hex[64] = 0;
            zk_bp_hex32(hex, rc->bp_proofs + (size_t)p->index * ZK_BP_PROOF_BYTES + i);
        }
        rc->written++;
        zk_ledger_result_free(&res);
        return 0;
    }
    /* public.json first, as gpud does: a proof.json there means both are */
    if ((r = lcli_mkdirs(dir)) < 0)
        fprintf(stderr, "zkslot result: cannot create %s: %s\n", dir, zk_strerror(r));
    else if ((r = zk_write_atomic(uf, res.pub, res.pub_len, 0644)) < 0)
        fprintf(stderr, "zkslot result: cannot write %s: %s\n", uf, zk_strerror(r));
    else if ((r = zk_write_atomic(pf, res.proof, res.proof_len, 0644)) < 0)
        fprintf(stderr, "zkslot result: cannot write %s: %s\n", pf, zk_strerror(r));
    else {
        printf("%s %s\n", pf, uf);
        rc->written++;
    }
    zk_ledger_result_free(&res);
    return r;
}

/* A proof.bin's 192 bytes as the ledger keeps them (384 hex digits);
 * NULL with the reason printed. */
static char *bp_proof_hex(const char *path)
{
    size_t n = 0;
    unsigned char *b = (unsigned char *)g16_cli_read_file("result", path, ZK_BP_PROOF_BYTES + 1, &n);
    char *hex = b && n == ZK_BP_PROOF_BYTES ? malloc(2 * ZK_BP_PROOF_BYTES + 1) : NULL;
    if (b && n != ZK_BP_PROOF_BYTES)
        fprintf(stderr, "zkslot result: %s: %zu bytes, a proof is %d\n", path, n,
                ZK_BP_PROOF_BYTES);
    for (size_t i = 0; hex && i < ZK_BP_PROOF_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", b[i]);
    free(b);
    return hex;
}

/* One done partition's proof and public paths (others have no result);
 * with --out, written there from the ledger first. */
static int print_result(void *ctx, const struct zk_ledger_part *p)
{
    struct result_ctx *rc = ctx;
    if (p->state != ZK_PART_DONE)
        return 0;
    if (rc->to)
        return write_result(rc, p);
    /* only paths that are here: a farm's proofs are on the machine that
     * proved them (and in the ledger, which --out writes out) */
    char pf[4300], uf[4300];
    snprintf(pf, sizeof pf, "%s/%u/%s", rc->out_dir, p->index,
             rc->key.format == ZK_KEY_BELLPERSON ? "proof.bin" : "proof.json");
    snprintf(uf, sizeof uf, "%s/%u/public.json", rc->out_dir, p->index);
    if (!access(pf, R_OK) && !access(uf, R_OK)) {
        char *proof = rc->key.format == ZK_KEY_BELLPERSON ? bp_proof_hex(pf)
                                                          : g16_cli_read_text("result", pf);
        char *pub = g16_cli_read_text("result", uf);
        int bad = !proof || !pub ? (rc->missing++, 1) : check_result(rc, p, proof, pub);
        free(proof);
        free(pub);
        if (!bad)
            printf("%s %s\n", pf, uf);
        return 0;
    }
    if (p->machine[0] && strcmp(p->machine, rc->machine))
        fprintf(stderr, "zkslot result: partition %u was proved on machine %s: its files are "
                "there, not on this one (%s); `zkslot result JOB --out DIR` writes them here "
                "from the ledger\n", p->index, p->machine, rc->machine);
    else
        fprintf(stderr, "zkslot result: partition %u: %s: %s; `zkslot result JOB --out DIR` "
                "writes it again from the ledger\n", p->index, access(pf, R_OK) ? pf : uf,
                strerror(errno));
    rc->missing++;
    return 0;
}

int cmd_result(int argc, char **argv)
{
    struct args a;
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    int64_t id;
    int rc = open_job(argc, argv, "result", A_OUT, &a, &id, "JOB [--out DIR]");
    if (rc == OPEN_REMOTE)
        return remote_result(id, a.out);
    if (rc)
        return rc;
    rc = 2;
    if (get_job(&a, id, &j) < 0)
        goto out;
    struct result_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.l = a.c.l;
    ctx.out_dir = j.out_dir;
    ctx.to = a.out;
    ctx.machine = zk_ledger_machine(a.c.l);
    if (zk_ledger_key_get_id(a.c.l, j.key_id, &ctx.key, &d) < 0) {
        fprintf(stderr, "zkslot result: job %lld: its key: %s\n", (long long)id, d.msg);
        goto out;
    }
    /* the proofs are verified where the key's file is here; elsewhere
     * (a client machine of a farm) their public signals are still checked
     * against the statement synthd recorded */
    int bp = ctx.key.format == ZK_KEY_BELLPERSON;
    if (bp ? zk_result_key_bp(&ctx.key, a.c.cfg.pool, &ctx.bp_key, &d) == 0
           : zk_result_vk(&ctx.key, &ctx.vk, &d) == 0)
        ctx.have_vk = 1;
    else if (j.count[ZK_PART_DONE])
        fprintf(stderr, "zkslot result: note: proofs not verified here (%s); their public "
                "signals are checked against the job's statement\n", d.msg);
    /* a bellperson job's --out is one file: its proofs concatenated in
     * partition order (what filecoin-proofs returns), all checked first */
    ctx.nparts = j.nparts;
    if (bp && a.out && !(ctx.bp_proofs = calloc(j.nparts ? j.nparts : 1, ZK_BP_PROOF_BYTES)))
        goto out;
    int r = zk_ledger_part_list(a.c.l, id, print_result, &ctx, &d);
    zk_groth16_vk_done(&ctx.vk);
    zk_bp_key_close(ctx.bp_key);
    if (r >= 0 && ctx.bp_proofs && (ctx.written != j.nparts || ctx.refused)) {
        fprintf(stderr, "zkslot result: %s not written: %u of %u proofs checked\n", a.out,
                ctx.written, j.nparts);
        ctx.missing += ctx.written == j.nparts ? 0 : 1;
    } else if (r >= 0 && ctx.bp_proofs &&
               (r = zk_write_atomic(a.out, ctx.bp_proofs,
                                    (size_t)j.nparts * ZK_BP_PROOF_BYTES, 0644)) < 0) {
        fprintf(stderr, "zkslot result: cannot write %s: %s\n", a.out, zk_strerror(r));
        d.msg[0] = 0;
    } else if (ctx.bp_proofs) {
        printf("%s\n", a.out);
    }
    free(ctx.bp_proofs);
    if (r < 0) {
        if (d.msg[0])   /* else the partition's write said why */
            fprintf(stderr, "zkslot result: %s\n", d.msg);
        goto out;
    }
    rc = ctx.missing || ctx.refused ? 1 : 0;
    if (j.state != ZK_JOB_DONE) {
        fprintf(stderr, "zkslot result: job %lld is %s (%u/%u done): %s%s%s\n",
                (long long)id, zk_job_state_name(j.state), j.count[ZK_PART_DONE], j.nparts,
                j.count[ZK_PART_DONE] ? "only the done partitions are listed" : "no result",
                j.error[0] ? ": " : "", j.error);
        rc = 1;
    }
out:
    lcli_close(&a.c);
    return rc;
}

int cmd_cancel(int argc, char **argv)
{
    struct args a;
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    int64_t id;
    int rc = open_job(argc, argv, "cancel", 0, &a, &id, "JOB");
    if (rc == OPEN_REMOTE)
        return remote_cancel(id);
    if (rc)
        return rc;
    int r = zk_ledger_job_cancel(a.c.l, id, &d);
    if (r == ZK_ESTATE && zk_ledger_job_get(a.c.l, id, &j, NULL) == 0) {
        fprintf(stderr, "zkslot cancel: job %lld has finished already (%s)\n", (long long)id,
                zk_job_state_name(j.state));
        rc = 1;
    } else if (r == -ENOENT && zk_ledger_job_get(a.c.l, id, &j, NULL) == 0) {
        /* there, but not this role's to change (a PostgreSQL submitter's
         * row-level security: docs/ledger.md, "Roles and grants") */
        fprintf(stderr, "zkslot cancel: job %lld is not yours to cancel (a submitter cancels "
                "only its own jobs)\n", (long long)id);
        rc = 2;
    } else if (r == -ENOENT) {
        fprintf(stderr, "zkslot cancel: no job %lld\n", (long long)id);
        rc = 2;
    } else if (r < 0) {
        fprintf(stderr, "zkslot cancel: %s\n", d.msg);
        rc = 2;
    } else {
        fprintf(stderr, "job %lld canceled\n", (long long)id);
        rc = 0;
    }
    lcli_close(&a.c);
    return rc;
}

int cmd_reprioritize(int argc, char **argv)
{
    struct args a;
    struct zk_diag d = { "" };
    int64_t id;
    int prio;
    if (parse(argc, argv, "reprioritize", 0, &a) < 0 || a.npos != 2) {
        fprintf(stderr, "usage: zkslot reprioritize JOB low|normal|high|critical %s\n",
                usage_common);
        return 2;
    }
    if (lcli_job_id("reprioritize", a.pos[0], &id) < 0)
        return 2;
    if ((prio = zk_priority_parse(a.pos[1])) < 0) {
        fprintf(stderr, "zkslot reprioritize: '%s' is not low, normal, high or critical\n",
                a.pos[1]);
        return 2;
    }
    if (lcli_open(&a.c, 0) < 0)
        return 2;
    int rc = 0, r = zk_ledger_job_reprioritize(a.c.l, id, prio, &d);
    if (r == ZK_ESTATE) {
        fprintf(stderr, "zkslot reprioritize: %s (only a queued or running job changes "
                "class)\n", d.msg);
        rc = 1;
    } else if (r == -ENOENT) {
        fprintf(stderr, "zkslot reprioritize: no job %lld\n", (long long)id);
        rc = 2;
    } else if (r < 0) {
        fprintf(stderr, "zkslot reprioritize: %s\n", d.msg);
        rc = 2;
    } else {
        fprintf(stderr, "job %lld: class %s (its partitions not yet synthesized are claimed "
                "in the new order)\n", (long long)id, zk_priority_name(prio));
    }
    lcli_close(&a.c);
    return rc;
}
