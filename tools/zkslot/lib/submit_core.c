/*
 * submit_core.c -- the key checks and output directories of a submit
 * (contract in submit_core.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ledger_cli.h"
#include "submit_core.h"
#include "zk/bellperson.h"
#include "zk/error.h"
#include "zk/keyfile.h"
#include "zk/pool.h"
#include "zk/slotfmt.h"
#include "zk/witgen.h"

/* One message into msg (n bytes), truncated to fit. */
__attribute__((format(printf, 3, 4))) static void say(char *msg, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
}

/* The key's partitions must fit the pool's slots: checked when the pool
 * exists (it may legitimately be created later). */
static int check_slot_size(const struct zk_config *cfg, const struct zk_ledger_key *k,
                           char *msg, size_t n)
{
    struct zk_slot_desc sd;
    struct zk_pool_info pi;
    struct zk_pool_attach_opts ao = { "submit", ZK_POOL_OBSERVER, 0, NULL };
    /* a bellperson partition: its .bpa, at most every value and a, b, c
     * over the whole domain, and three bitmaps (docs/bellperson.md) */
    uint64_t bpa = zk_bp_assignment_bytes(k->n_public + 1, k->n_vars - k->n_public - 1,
                                          k->domain_size);
    uint64_t need = k->format == ZK_KEY_BELLPERSON ? zk_slotfmt_layout_bp(bpa, &sd)
                                                   : zk_slotfmt_layout(k->n_vars, k->domain_size, &sd);
    zk_pool *h = calloc(1, zk_pool_sizeof());
    int rc = 0;

    if (!h || zk_pool_attach(h, cfg->pool, &ao)) {
        free(h);
        return 0;
    }
    zk_pool_info(h, &pi);
    if (!need || need > pi.slot_size) {
        say(msg, n,
                 "key '%s' needs %llu bytes per partition but the slots of %s hold %llu: "
                 "nothing submitted (recreate the pool with --slot-size %lluM or more; see "
                 "zkslot plan --key %s)",
                 k->name, (unsigned long long)need, cfg->pool,
                 (unsigned long long)pi.slot_size,
                 (unsigned long long)((need + (1u << 20) - 1) >> 20), k->path);
        rc = -EFBIG;
    }
    zk_pool_detach(h);
    free(h);
    return rc;
}

/* A caller's name for a message: printable ASCII as is, any other byte
 * as \xHH (a message stays one line whatever the name holds), at most 64
 * bytes of it. */
static const char *name_for_msg(const char *s, char *buf, size_t n)
{
    size_t o = 0, i = 0;
    for (; s[i] && i < 64 && o + 5 < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        o += (size_t)snprintf(buf + o, n - o, ch >= 0x20 && ch < 0x7f ? "%c" : "\\x%02x", ch);
    }
    snprintf(buf + o, n - o, "%s", s[i] ? "..." : "");
    return buf;
}

int submit_key_check(zk_ledger *l, const struct zk_config *cfg, const char *name, int input,
                     struct zk_ledger_key *ret, char *msg, size_t n)
{
    struct zk_diag d = { "" };
    char nb[300];
    int r = zk_ledger_key_get(l, name, ret, &d);
    if (r == -ENOENT) {
        say(msg, n, "no key named '%s' (see zkslot key list)", name_for_msg(name, nb, sizeof nb));
        return r;
    }
    if (r < 0) {
        say(msg, n, "%s", d.msg);
        return r;
    }
    /* one machine: the key file here is the one gpud will prove with.  A
     * shared ledger's machines each check their own copy before claiming
     * (common/daemon/keylocal.c), and a client need not have one. */
    int hashed = 0, shared = strcmp(zk_ledger_backend(l), "sqlite") != 0;
    if (!shared && (r = zk_keyfile_check(ret, &hashed, &d)) < 0) {
        say(msg, n, "%s; nothing submitted", d.msg);
        return r;
    }
    if (hashed) {   /* same content, new identity (touched, copied): record it */
        struct zk_ledger_key now = *ret;
        if (zk_keyfile_stat(ret->path, &now) == 0)
            zk_ledger_key_set_identity(l, ret->id, now.file_dev, now.file_ino,
                                       now.file_mtime_ns, NULL);
    }
    if ((r = check_slot_size(cfg, ret, msg, n)) < 0)
        return r;
    /* a bellperson key's jobs are assignments, or inputs of its generator */
    int bp_inputs = ret->format == ZK_KEY_BELLPERSON && input == SUBMIT_INPUTS && ret->witgen_kind;
    if (input != SUBMIT_PRODUCED && !bp_inputs &&
        (ret->format == ZK_KEY_BELLPERSON) != (input == SUBMIT_BPA)) {
        say(msg, n, "key '%s' is a %s key: %s; nothing submitted", ret->name,
            zk_key_format_name(ret->format),
            input == SUBMIT_BPA ? "assignments (--bpa) are for a bellperson key"
                                : "its jobs are assignments (.bpa), submitted on the proving "
                                  "machine: zkslot submit --key NAME --bpa A.bpa...");
        return -EINVAL;
    }
    if (input == SUBMIT_INPUTS && !ret->witgen_kind) {
        say(msg, n, "key '%s' has no witness generator, so its jobs cannot be inputs: "
                 "register the key with `zkslot key add NAME KEY.zkey --witness-gen PATH`; "
                 "nothing submitted", ret->name);
        return -ENOEXEC;
    }
    return 0;
}

int submit_input_check(const struct zk_ledger_key *k, const char *buf, size_t len,
                       const char *name, struct zk_diag *d)
{
    return k->format == ZK_KEY_BELLPERSON ? zk_input_check_object(buf, len, name, d)
                                          : zk_input_check(buf, len, name, d);
}

int submit_mkdir_shared(const char *path, gid_t gid, char *msg, size_t n)
{
    char failed[4200];
    int r = lcli_mkdirs_ex(path, 02770, gid, 1, failed, sizeof failed);
    if (r == -EPERM) {
        struct group *g = getgrgid(gid);
        say(msg, n, "%s: cannot give it to group %s (the state directory's): %s (is the "
                 "submitter in that group?)", failed, g ? g->gr_name : "?", zk_strerror(r));
    } else if (r < 0) {
        say(msg, n, "%s: %s", failed, zk_strerror(r));
    }
    return r;
}

int submit_out_dir_check(const char *out, uint32_t nparts, char *msg, size_t n)
{
    char dir[4200];
    struct stat st;
    const char *bad = NULL;
    if (access(out, W_OK | X_OK) != 0)
        bad = out;
    for (uint32_t i = 0; i < nparts && !bad; i++) {
        snprintf(dir, sizeof dir, "%s/%u", out, i);
        if (lstat(dir, &st) == 0 && (!S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0))
            bad = dir;
    }
    if (!bad)
        return 0;
    say(msg, n, "the output directory %s is not a directory you may write (gpud writes the "
        "proofs there for you); nothing submitted", bad);
    return -EACCES;
}

void submit_files_free(char **abs, char **text, size_t *len, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (abs)
            free(abs[i]);
        if (text)
            free(text[i]);
    }
    free(abs);
    free(text);
    free(len);
}

int submit_job_dirs(zk_ledger *l, const struct zk_ledger_job *j, const char *state_dir,
                    int explicit_out, char *msg, size_t n)
{
    struct stat st = { .st_gid = (gid_t)-1 };   /* shared: no group to give */
    char dir[4200], why[SUBMIT_MSG_MAX];
    int shared = strcmp(zk_ledger_backend(l), "sqlite") != 0;
    if (shared && !explicit_out)   /* each proving machine makes its own */
        return 0;
    if (!shared && stat(state_dir, &st)) {
        int r = -errno;
        say(msg, n, "%s: %s", state_dir, strerror(-r));
        return r;
    }
    for (uint32_t i = 0; i < j->nparts; i++) {
        snprintf(dir, sizeof dir, "%s/%u", j->out_dir, i);
        int r = submit_mkdir_shared(dir, st.st_gid, why, sizeof why);
        if (r < 0) {
            say(msg, n, "cannot create the output directory %s; job %lld canceled", why,
                     (long long)j->id);
            zk_ledger_job_cancel(l, j->id, NULL);
            return r;
        }
    }
    return 0;
}

int submit_admit(zk_ledger *l, const struct zk_ledger_key *k, int prio, uint32_t nparts,
                 int64_t deadline_ns, char *msg, size_t n)
{
    struct zk_ledger_estimate e;
    struct zk_diag d = { "" };
    if (zk_ledger_estimate(l, prio >= 0 ? prio : k->priority, &e, &d) < 0) {
        say(msg, n, "%s", d.msg);
        return ZK_ELEDGER;
    }
    if (!e.samples || !e.provers)
        return 0;
    double need = e.synth_s + (double)(e.ahead + nparts) * e.start_s / e.provers + e.finalize_s;
    double left = (double)(deadline_ns - lcli_now_ns()) * 1e-9;
    if (need <= left)
        return 0;
    say(msg, n, "the deadline cannot be met: %.1f s left, about %.1f s needed (%llu "
        "partition(s) of class %s or above ahead, %u of its own, %.3f s a partition over %u "
        "prover(s), the median of the last %u)", left, need, (unsigned long long)e.ahead,
        zk_priority_name(prio), nparts, e.start_s, e.provers, e.samples);
    return ZK_EDEADLINE;
}
