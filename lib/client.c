/*
 * client.c -- libzkslot's handle and client face: open, submit, status,
 * wait, result, cancel (zkslot.h).  The checks are those of `zkslot
 * submit` (tools/zkslot/lib/submit_core.c, shared); what the CLI prints,
 * this returns as a code and a message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "submit_core.h"
#include "zk/error.h"
#include "zk/statement.h"
#include "zk/witgen.h"
#include "zk/wtns.h"
#include "zk/zkey.h"
#include "zkslot_internal.h"

ZKSLOT_EXPORT int zkslot_open(const char *ledger, const char *config, zkslot **ret, char *msg,
                              size_t n)
{
    struct zk_diag d = { "" };
    int r;
    if (!ret)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_open: ret is NULL");
    zkslot *z = calloc(1, sizeof *z);
    if (!z)
        return zkslot_say(msg, n, -ENOMEM, "zkslot_open: out of memory");
    if ((r = zk_config_resolve(&z->cfg, config, &d)) < 0 ||
        (ledger && (r = zk_config_set(&z->cfg, "ledger", "url", ledger, &d)) < 0)) {
        free(z);
        return zkslot_say(msg, n, r, "%s", d.msg);
    }
    char abs[PATH_MAX];
    if (realpath(z->cfg.state_dir, abs) && strlen(abs) < sizeof z->cfg.state_dir)
        memcpy(z->cfg.state_dir, abs, strlen(abs) + 1);
    if (zk_config_ledger_path(&z->cfg, z->ledger_path, sizeof z->ledger_path) < 0) {
        free(z);
        return zkslot_say(msg, n, -ENAMETOOLONG, "%s: state directory name too long",
                          z->cfg.state_dir);
    }
    const char *file = zk_ledger_sqlite_path(z->ledger_path);
    if (file && access(file, F_OK) != 0 && errno == ENOENT) {
        zkslot_say(msg, n, -ENOENT, "no ledger at %s (register a key first: zkslot key add)",
                   file);
        free(z);
        return -ENOENT;
    }
    if ((r = zk_ledger_open(z->ledger_path, 0, 0, &z->l, &d)) < 0 ||
        (r = zk_ledger_set_machine(z->l, z->cfg.machine)) < 0) {
        if (!d.msg[0])
            snprintf(d.msg, sizeof d.msg, "[zkslot] machine: %s", zk_strerror(r));
        zk_ledger_close(z->l);
        free(z);
        return zkslot_say(msg, n, r, "%s", d.msg);
    }
    *ret = z;
    return zkslot_say(msg, n, 0, "%s", "");
}

ZKSLOT_EXPORT void zkslot_close(zkslot *z)
{
    if (!z)
        return;
    zkslot_producer_close(z->producer);
    zk_ledger_close(z->l);
    free(z);
}

int zkslot_key_for_job(zkslot *z, const char *name, int input, struct zk_ledger_key *ret,
                       char *msg, size_t n)
{
    if (!name || !*name)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "no key name given");
    return submit_key_check(z->l, &z->cfg, name, input, ret, msg, n);
}

int zkslot_out_dir(zkslot *z, const char *dir, uint32_t nparts, char **ret, char *msg,
                   size_t n)
{
    struct stat sst = { .st_gid = (gid_t)-1 };   /* shared: no group to give */
    int r, shared = strcmp(zk_ledger_backend(z->l), "sqlite") != 0;
    *ret = NULL;
    if (!dir || !dir[0])
        return 0;
    if (!shared && stat(z->cfg.state_dir, &sst) != 0)
        return zkslot_say(msg, n, -errno, "%s: %s", z->cfg.state_dir, strerror(errno));
    if ((r = submit_mkdir_shared(dir, sst.st_gid, msg, n)) < 0)
        return r;
    if (!(*ret = realpath(dir, NULL)))
        return zkslot_say(msg, n, -errno, "%s: %s", dir, strerror(errno));
    if ((r = submit_out_dir_check(*ret, nparts, msg, n)) < 0) {
        free(*ret);
        *ret = NULL;
    }
    return r;
}

/* A whole file into a malloc'd NUL-terminated buffer (at most `max` bytes). */
static int read_file(const char *path, size_t max, char **ret, size_t *ret_len, char *msg,
                     size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = -errno;
        if (fd >= 0)
            close(fd);
        return zkslot_say(msg, n, e, "%s: %s", path, strerror(-e));
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        return zkslot_say(msg, n, -EFBIG, "%s: %lld bytes; at most %zu", path,
                          (long long)st.st_size, max);
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    if (!buf || got != (size_t)st.st_size) {
        free(buf);
        return zkslot_say(msg, n, buf ? -EIO : -ENOMEM, "%s: cannot read it", path);
    }
    buf[got] = 0;
    *ret = buf;
    *ret_len = got;
    return 0;
}

/* File i of a submit checked against key k: a .wtns of its n_vars and
 * curve, or a circuit input; its text into text (inputs, and witnesses on
 * a shared ledger) and its absolute path into abs. */
static int check_file(const struct zk_ledger_key *k, const char *file, int input, int store,
                      char **abs, char **text, size_t *len, char *msg, size_t n)
{
    struct zk_diag d = { "" };
    int r;
    if (!input) {
        struct zk_wtns w = { 0 };
        struct zk_zkey_header zh = { 0 };
        zh.curve = !strcmp(k->curve, "bls12381") ? ZK_CURVE_BLS12_381 : ZK_CURVE_BN254;
        zh.n_vars = (uint32_t)k->n_vars;
        r = zk_wtns_open(&w, file, &d);
        if (r == 0)
            r = zk_wtns_check_against_zkey(&w.hdr, &zh, file, &d);
        zk_wtns_done(&w);
        if (r < 0)
            return zkslot_say(msg, n, r, "%s (key '%s'); nothing submitted", d.msg, k->name);
    }
    if ((input || store) && (r = read_file(file, ZK_LEDGER_INPUT_MAX, text, len, msg, n)) < 0)
        return r;
    if (input && (r = submit_input_check(k, *text, *len, file, &d)) < 0)
        return zkslot_say(msg, n, r, "%s (key '%s'); nothing submitted", d.msg, k->name);
    if (!(*abs = realpath(file, NULL)))
        return zkslot_say(msg, n, -errno, "%s: %s", file, strerror(errno));
    return 0;
}

int zkslot_admit(zkslot *z, const struct zkslot_submit_opts *o, const struct zk_ledger_key *k,
                 uint32_t nparts, char *msg, size_t n)
{
    if (!o)
        return 0;
    if (o->flags & ~ZKSLOT_SUBMIT_FORCE)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "unknown submit flags %#x", o->flags);
    if (!o->deadline_ns || (o->flags & ZKSLOT_SUBMIT_FORCE))
        return 0;
    char why[SUBMIT_MSG_MAX];
    int r = submit_admit(z->l, k, o->priority, nparts, o->deadline_ns, why, sizeof why);
    if (r == ZK_EDEADLINE)
        return zkslot_say(msg, n, r, "key '%s': %s; ZKSLOT_SUBMIT_FORCE queues it anyway; "
                          "nothing submitted", k->name, why);
    return r < 0 ? zkslot_say(msg, n, r, "%s", why) : 0;
}

ZKSLOT_EXPORT int zkslot_submit(zkslot *z, const char *key, const char *const *files,
                                unsigned nfiles, int inputs, const struct zkslot_submit_opts *o,
                                int64_t *ret_job, int *ret_existing, char *msg, size_t n)
{
    struct zk_ledger_key k;
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    char **abs = NULL, **text = NULL, *out = NULL;
    size_t *len = NULL;
    int64_t id = 0;
    int r;
    if (!z || !files || !nfiles || nfiles > 1u << 20 || !ret_job)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_submit: no handle, files or job id");
    for (unsigned i = 0; i < nfiles; i++)
        if (!files[i] || !files[i][0])
            return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_submit: file %u has no name", i);
    if ((r = zkslot_key_for_job(z, key, inputs, &k, msg, n)) < 0 ||
        (r = zkslot_admit(z, o, &k, nfiles, msg, n)) < 0)
        return r;
    int shared = strcmp(zk_ledger_backend(z->l), "sqlite") != 0;
    int stored = inputs || shared;
    abs = calloc(nfiles, sizeof *abs);
    text = calloc(nfiles, sizeof *text);
    len = calloc(nfiles, sizeof *len);
    r = abs && text && len ? 0 : zkslot_say(msg, n, -ENOMEM, "zkslot_submit: out of memory");
    for (unsigned i = 0; i < nfiles && !r; i++)
        r = check_file(&k, files[i], inputs, stored, &abs[i], &text[i], &len[i], msg, n);
    if (r)
        goto out;
    if (o && (r = zkslot_out_dir(z, o->out_dir, nfiles, &out, msg, n)) < 0)
        goto out;
    struct zk_ledger_submit_opts so = { o ? o->priority : -1, o ? o->deadline_ns : 0,
                                        o ? o->request_id : NULL, 0, NULL, 0,
                                        o && (o->flags & ZKSLOT_SUBMIT_FORCE) };
    r = zk_ledger_job_submit_opts(z->l, k.id, out, &so, (const char *const *)abs,
                                  stored ? (const char *const *)text : NULL,
                                  stored ? len : NULL, nfiles, &id, &d);
    if (r < 0 || (r = zk_ledger_job_get(z->l, id, &j, &d)) < 0 ||
        (r = zk_ledger_job_resolve_out(&j, z->cfg.state_dir)) < 0) {
        r = zkslot_say(msg, n, r, "%s", d.msg[0] ? d.msg : zk_strerror(r));
        goto out;
    }
    if (!so.existing &&
        (r = submit_job_dirs(z->l, &j, z->cfg.state_dir, out != NULL, msg, n)) < 0)
        goto out;
    *ret_job = id;
    if (ret_existing)
        *ret_existing = so.existing;
    zkslot_say(msg, n, 0, "%s", "");
out:
    submit_files_free(abs, text, len, nfiles);
    free(out);
    return r;
}

ZKSLOT_EXPORT int zkslot_status(zkslot *z, int64_t job, struct zkslot_job_status *ret,
                                char *msg, size_t n)
{
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    if (!z || !ret)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_status: no handle or status");
    int r = zk_ledger_job_get(z->l, job, &j, &d);
    if (r == -ENOENT)
        return zkslot_say(msg, n, r, "no job %lld", (long long)job);
    if (r == 0 && (r = zk_ledger_job_resolve_out(&j, z->cfg.state_dir)) < 0)
        zk_diag_set(&d, z->cfg.state_dir, r, "output directory name too long");
    if (r < 0)
        return zkslot_say(msg, n, r, "%s", d.msg);
    memset(ret, 0, sizeof *ret);
    ret->id = j.id;
    ret->state = j.state;
    ret->nparts = j.nparts;
    ret->queued = j.count[ZK_PART_QUEUED];
    ret->synthesizing = j.count[ZK_PART_SYNTHESIZING];
    ret->ready = j.count[ZK_PART_READY];
    ret->proving = j.count[ZK_PART_PROVING];
    ret->done = j.count[ZK_PART_DONE];
    ret->failed = j.count[ZK_PART_FAILED];
    ret->canceled = j.count[ZK_PART_CANCELED];
    ret->priority = j.priority;
    ret->deadline_ns = j.deadline_ns;
    ret->submitted_ns = j.submitted_ns;
    ret->finished_ns = j.finished_ns;
    snprintf(ret->key, sizeof ret->key, "%s", j.key_name);
    snprintf(ret->error, sizeof ret->error, "%s", j.error);
    snprintf(ret->out_dir, sizeof ret->out_dir, "%s", j.out_dir);
    return zkslot_say(msg, n, 0, "%s", "");
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

ZKSLOT_EXPORT int zkslot_wait(zkslot *z, int64_t job, int timeout_ms,
                              struct zkslot_job_status *ret, char *msg, size_t n)
{
    struct zkslot_job_status st;
    int64_t t0 = now_ms();
    unsigned poll_ms = z && z->cfg.poll_ms ? z->cfg.poll_ms : 100;
    for (;;) {
        int r = zkslot_status(z, job, &st, msg, n);
        if (r < 0)
            return r;
        if (ret)
            *ret = st;
        if (st.state == ZK_JOB_DONE)
            return 0;
        if (st.state == ZK_JOB_FAILED || st.state == ZK_JOB_CANCELED)
            return zkslot_say(msg, n, ZKSLOT_EJOBFAILED, "job %lld %s: %s", (long long)job,
                              zk_job_state_name(st.state), st.error[0] ? st.error : "(no message)");
        int64_t waited = now_ms() - t0;
        if (timeout_ms >= 0 && waited >= timeout_ms)
            return zkslot_say(msg, n, ZK_ETIMEOUT, "timed out after %d ms: job %lld is %s "
                              "(%u/%u done)", timeout_ms, (long long)job,
                              zk_job_state_name(st.state), st.done, st.nparts);
        int64_t ms = poll_ms;
        if (timeout_ms >= 0 && timeout_ms - waited < ms)
            ms = timeout_ms - waited;
        struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
    }
}

struct find_part {
    uint32_t index;
    struct zk_ledger_part p;
    int found;
};

static int find_part(void *ctx, const struct zk_ledger_part *p)
{
    struct find_part *f = ctx;
    if (p->index != f->index)
        return 0;
    f->p = *p;
    f->found = 1;
    return 1;
}

ZKSLOT_EXPORT int zkslot_result(zkslot *z, int64_t job, uint32_t index, char **ret_proof,
                                char **ret_public, char *msg, size_t n)
{
    struct find_part f = { .index = index };
    struct zk_ledger_result res;
    struct zk_diag d = { "" };
    if (!z || !ret_proof || !ret_public)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_result: no handle or result pointers");
    int r = zk_ledger_part_list(z->l, job, find_part, &f, &d);
    if (r < 0)
        return zkslot_say(msg, n, r, "%s", d.msg);
    if (!f.found)
        return zkslot_say(msg, n, -ENOENT, "job %lld has no partition %u", (long long)job,
                          index);
    if (f.p.state != ZK_PART_DONE)
        return zkslot_say(msg, n, ZK_ESTATE, "job %lld partition %u is %s, not done",
                          (long long)job, index, zk_part_state_name(f.p.state));
    if ((r = zk_ledger_part_result(z->l, f.p.id, &res, &d)) == -ENOENT)
        return zkslot_say(msg, n, r, "job %lld partition %u: no result in the ledger",
                          (long long)job, index);
    if (r < 0)
        return zkslot_say(msg, n, r, "%s", d.msg);
    /* handed out only as the proof of the partition's statement */
    struct zk_ledger_key k;
    struct zk_groth16_vk vk;
    int have_vk = 0;
    if ((r = zk_ledger_key_get_id(z->l, f.p.key_id, &k, &d)) == 0 &&
        k.format == ZK_KEY_BELLPERSON) {   /* its vk from the key's store, else its file */
        zk_bp_key *bk = NULL;
        struct zk_diag dv = { "" };
        zk_result_key_bp(&k, z->cfg.pool, &bk, &dv);
        r = zk_result_check_bp(&k, &f.p, bk ? zk_bp_key_vk(bk) : NULL, res.proof, res.pub, &d);
        zk_bp_key_close(bk);
    } else if (r == 0) {
        struct zk_diag dv = { "" };
        have_vk = zk_result_vk(&k, &vk, &dv) == 0;
        r = zk_result_check(&k, &f.p, have_vk ? &vk : NULL, res.proof, res.pub, &d);
        if (have_vk)
            zk_groth16_vk_done(&vk);
    }
    if (r < 0) {
        zk_ledger_result_free(&res);
        return zkslot_say(msg, n, r, "%s", d.msg);
    }
    *ret_proof = res.proof;
    *ret_public = res.pub;
    return zkslot_say(msg, n, 0, "%s", "");
}

ZKSLOT_EXPORT void zkslot_free(void *p)
{
    free(p);
}

ZKSLOT_EXPORT int zkslot_cancel(zkslot *z, int64_t job, char *msg, size_t n)
{
    struct zk_diag d = { "" };
    if (!z)
        return zkslot_say(msg, n, ZK_EBADPARAMS, "zkslot_cancel: no handle");
    int r = zk_ledger_job_cancel(z->l, job, &d);
    if (r == -ENOENT)
        return zkslot_say(msg, n, r, "no job %lld", (long long)job);
    if (r == ZK_ESTATE)
        return zkslot_say(msg, n, r, "job %lld has ended already", (long long)job);
    return zkslot_say(msg, n, r, "%s", r ? d.msg : "");
}
