/*
 * witness.c -- synthd's witness stage (witness.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/zkd.h"
#include "util/testhook.h"
#include "sealed.h"
#include "witness.h"
#include "zk/error.h"
#include "zk/wtns.h"

#include <xxhash.h>

#define DIR_PREFIX "zkslot-synthd-"

static const struct zk_config *wcfg;
static char wdir[PATH_MAX];           /* this process's directory; "" before setup */
static char owner[64];                /* ZKSLOT_WITGEN_OWNER of our generators */
static char pool_tag[17];             /* the pool's, in owners and directory names */
static atomic_uint seq;               /* file names in wdir */

void synthd_witness_error(struct synthd_witness_out *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->error, sizeof out->error, fmt, ap);
    va_end(ap);
}

/* "synthd:<pool tag>:<pid>:<start>", a synthd of our pool; 1 if s is one,
 * into *id.  Synthds judge only their own pool's dead (other pools have
 * synthds of their own, and a test's private pool is not the machine's). */
static int parse_owner(const char *s, struct zk_proc_id *id)
{
    int pid;
    uint64_t start;
    int n = 0;
    size_t tl = strlen(pool_tag);
    if (strncmp(s, "synthd:", 7) || strncmp(s + 7, pool_tag, tl) || s[7 + tl] != ':')
        return 0;
    s += 8 + tl;
    if (sscanf(s, "%d:%" SCNu64 "%n", &pid, &start, &n) != 2 || s[n] || pid <= 0)
        return 0;
    /* every field: a stray boot or PID namespace would judge a live synthd
     * dead ("a previous boot's process") and its generators be killed */
    *id = (struct zk_proc_id){ .pid = pid, .start = start };
    return 1;
}

static int owner_alive(void *ctx, const char *s)
{
    (void)ctx;
    struct zk_proc_id id;
    if (!parse_owner(s, &id))
        return 1;                     /* not ours to judge */
    return zk_proc_alive(&id, 64);
}

/* Removes directory `name` in dfd and the files in it; 0 or -errno of the
 * directory's own removal (what the caller may claim). */
static int rm_tree(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        DIR *d = fdopendir(fd);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlinkat(fd, e->d_name, 0);
        if (d)
            closedir(d);
        else
            close(fd);
    }
    return unlinkat(dfd, name, AT_REMOVEDIR) == 0 ? 0 : -errno;
}

/* 1 when st is a directory this process could have made as its own: owned
 * by our user, mode 0700 (mkdtemp's; setgid too when the parent is).
 * Anything else named like one was put there by someone else and is not
 * ours to remove or use. */
static int own_private_dir(const struct stat *st)
{
    return S_ISDIR(st->st_mode) && st->st_uid == geteuid() && (st->st_mode & 0777) == 0700;
}

/* Test hook: ZKSLOT_TEST_NO_WITGEN_SWEEP turns the sweep off, the control
 * of the test that checks it (tests/pipeline/test_inputs_kill.sh).
 * Returns the number of processes killed. */
unsigned synthd_witness_sweep(void)
{
    static int off = -1;
    if (off < 0 && (off = zk_test_hook("ZKSLOT_TEST_NO_WITGEN_SWEEP") != NULL))
        zkd_log(ZKD_WARN, "test hook: no sweep of dead synthds' generators "
                "(ZKSLOT_TEST_NO_WITGEN_SWEEP)");
    if (off)
        return 0;
    unsigned killed = 0;
    if (zk_witgen_sweep(owner_alive, NULL, &killed) == 0 && killed)
        zkd_log(ZKD_NOTICE, "witness: killed %u process(es) left by the generators of a dead "
                "synthd", killed);
    return killed;
}

/* 1 when name is DIR_PREFIX<pool tag>-<pid>-<start>[-<mkdtemp suffix>], the
 * directory of a synthd of our pool, with its pid and start in *id. */
static int parse_dir_name(const char *name, struct zk_proc_id *id)
{
    char o[96];
    int pid;
    uint64_t start;
    int n = 0;
    size_t pl = strlen(DIR_PREFIX), tl = strlen(pool_tag);
    if (strncmp(name, DIR_PREFIX, pl) || strncmp(name + pl, pool_tag, tl) ||
        name[pl + tl] != '-' ||
        sscanf(name + pl + tl + 1, "%d-%" SCNu64 "%n", &pid, &start, &n) != 2)
        return 0;
    const char *rest = name + pl + tl + 1 + n;
    if (*rest && (rest[0] != '-' || strlen(rest) != 7))
        return 0;
    snprintf(o, sizeof o, "synthd:%s:%d:%" PRIu64, pool_tag, pid, start);
    return parse_owner(o, id);
}

/* Removes the directories of our pool's dead synthds in witness_dir (dfd):
 * only those that are ours (own_private_dir); logs each one removed and, in
 * one line, how many look like ours but are not (left alone). */
static void sweep_dead_dirs(int dfd, const char *dir)
{
    DIR *d = fdopendir(dup(dfd));
    struct dirent *e;
    unsigned foreign = 0;
    char first[NAME_MAX + 1] = "";
    while (d && (e = readdir(d))) {
        struct zk_proc_id id;
        struct stat st;
        if (!parse_dir_name(e->d_name, &id) || zk_proc_alive(&id, 64))
            continue;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!own_private_dir(&st)) {
            if (!foreign++)
                snprintf(first, sizeof first, "%s", e->d_name);
            continue;
        }
        int r = rm_tree(dfd, e->d_name);
        if (r)
            zkd_log(ZKD_WARN, "witness: cannot remove %s/%s (its synthd is gone): %s", dir,
                    e->d_name, strerror(-r));
        else
            zkd_log(ZKD_NOTICE, "witness: removed %s/%s (its synthd is gone)", dir, e->d_name);
    }
    if (d)
        closedir(d);
    if (foreign)
        zkd_log(ZKD_WARN, "witness: %u entr%s in %s named like a synthd's directory (%s%s) "
                "not made by this user with mode 0700: left alone, never used", foreign,
                foreign == 1 ? "y" : "ies", dir, first, foreign > 1 ? ", ..." : "");
}

/* witness_dir may hold our private directory only if no one else can move
 * it away and put one of theirs at its name: owned by us or root, and
 * writable by no one else (group or others) unless sticky (like /dev/shm
 * and /tmp, where only a file's owner may rename it). */
static int check_parent(int dfd, const char *dir)
{
    struct stat st;
    if (fstat(dfd, &st) != 0)
        return -errno;
    const char *why = NULL;
    if (st.st_uid != geteuid() && st.st_uid != 0)
        why = "owned by another user";
    else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        why = "writable by its group or every user without the sticky bit";
    if (why) {
        zkd_log(ZKD_ERR, "witness: [synthd] witness_dir %s: %s (uid %u, mode %04o): another "
                "user could replace synthd's private directory there; use a directory of "
                "synthd's user or root, writable by no one else, or sticky (/dev/shm)",
                dir, why, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        return -EPERM;
    }
    return 0;
}

int synthd_witness_setup(const struct zk_config *cfg, const struct zk_proc_id *me)
{
    wcfg = cfg;
    snprintf(pool_tag, sizeof pool_tag, "%016llx",
             (unsigned long long)XXH3_64bits(cfg->pool, strlen(cfg->pool)));
    snprintf(owner, sizeof owner, "synthd:%s:%d:%" PRIu64, pool_tag, (int)me->pid, me->start);
    int dfd = open(cfg->witness_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        int e = errno;
        zkd_log(ZKD_ERR, "witness: [synthd] witness_dir %s: %s", cfg->witness_dir, strerror(e));
        return -e;
    }
    int r = check_parent(dfd, cfg->witness_dir);
    if (!r)
        sweep_dead_dirs(dfd, cfg->witness_dir);
    close(dfd);
    synthd_witness_sweep();               /* dead synthds' generators, in any case */
    if (r)
        return r;
    /* made here, exclusively, mode 0700, under a name no one can guess
     * (mkdtemp): a directory planted at a predictable name is never used */
    struct stat st;
    int err = 0;
    if (snprintf(wdir, sizeof wdir, "%s/" DIR_PREFIX "%s-%d-%" PRIu64 "-XXXXXX",
                 cfg->witness_dir, pool_tag, (int)me->pid, me->start) >= (int)sizeof wdir)
        err = ENAMETOOLONG;
    else if (!mkdtemp(wdir) || lstat(wdir, &st) != 0)
        err = errno;
    else if (!own_private_dir(&st)) {
        rmdir(wdir);                      /* a umask that took the owner's bits */
        err = EPERM;
    }
    if (err) {
        zkd_log(ZKD_ERR, "witness: cannot make a private directory %s: %s", wdir,
                strerror(err));
        wdir[0] = 0;
        return -err;
    }
    return 0;
}

void synthd_witness_teardown(void)
{
    if (!wdir[0])
        return;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", wdir);
    char *slash = strrchr(parent, '/');
    if (!slash)
        return;
    *slash = 0;
    int dfd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        rm_tree(dfd, slash + 1);
        close(dfd);
    }
    wdir[0] = 0;
}

/* 0 when g still has the content registered with the key; -ESTALE (with
 * out->error) when it changed, another error when it cannot be read. */
static int witgen_verify(const struct zk_ledger_key *lk, const struct zk_witgen *g,
                         struct synthd_witgen_seen *seen, struct synthd_witness_out *out)
{
    char f[3][ZK_WITGEN_FILE_MAX];
    size_t nf = zk_witgen_files(g, f);   /* what the registered hash covers */
    struct synthd_witgen_seen now = { 1, { { 0, 0, 0, 0 } } };
    int same = seen->checked && nf > 0;
    for (size_t i = 0; i < nf; i++) {
        struct stat st;
        if (stat(f[i], &st) != 0) {
            synthd_witness_error(out, "key %s: witness generator file %s: %s",
                     lk->name, f[i], strerror(errno));
            return -errno;
        }
        now.f[i].dev = st.st_dev;
        now.f[i].ino = st.st_ino;
        now.f[i].size = (uint64_t)st.st_size;
        now.f[i].mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        if (memcmp(&now.f[i], &seen->f[i], sizeof now.f[i]))
            same = 0;
    }
    if (same)
        return 0;
    char hex[33];
    struct zk_diag d = { "" };
    int r = zk_witgen_hash(g, hex, &d);
    if (r) {
        synthd_witness_error(out, "key %s: hashing its witness generator: %s",
                 lk->name, d.msg);
        return r;
    }
    if (strcmp(hex, lk->witgen_hash)) {
        /* the hash covers every file of the generator (a wasm's .js
         * beside it too): name them all, not only the spec */
        char files[3 * ZK_WITGEN_FILE_MAX + 8] = "";
        for (size_t i = 0; i < nf; i++)
            snprintf(files + strlen(files), sizeof files - strlen(files), "%s%s",
                     i ? ", " : "", f[i]);
        synthd_witness_error(out,
                 "key %s: its witness generator changed since `zkslot key add` (%s %s: "
                 "xxh3-128 %s, registered %s): register it again under a new key name",
                 lk->name, nf > 1 ? "one of" : "file", files, hex, lk->witgen_hash);
        return -ESTALE;
    }
    *seen = now;
    return 0;
}

/* The input of p as a file in wdir; its name in path. */
static int write_input(zk_ledger *l, const struct zk_ledger_part *p, char *path, size_t n,
                       struct synthd_witness_out *out)
{
    char *text = NULL;
    size_t len = 0;
    int r = synthd_part_input(l, p, "reading the input", &text, &len, out);
    if (r)
        return r;
    snprintf(path, n, "%s/p%lld-%u.json", wdir, (long long)p->id, atomic_fetch_add(&seq, 1));
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    r = fd < 0 ? -errno : 0;
    for (size_t o = 0; !r && o < len;) {
        ssize_t w = write(fd, text + o, len - o);
        if (w < 0 && errno != EINTR)
            r = -errno;
        else if (w > 0)
            o += (size_t)w;
    }
    if (fd >= 0)
        close(fd);
    free(text);
    if (r) {
        synthd_witness_error(out, "writing the input to %s: %s", path,
                 strerror(-r));
        unlink(path);
    }
    return r;
}

/* The witness file at path into dst, checked against kh; the error names
 * `what`.  A submitter's file (`users`: a job's own witness) is opened
 * following no link, so one swapped in after submit is refused. */
static int read_wtns(const char *path, const char *what, int users,
                     const struct zk_zkey_header *kh, void *dst,
                     struct synthd_witness_out *out)
{
    struct zk_wtns w;
    struct zk_diag d = { "" };
    memset(&w, 0, sizeof w);
    int r = users ? zk_wtns_open_nofollow(&w, path, &d) : zk_wtns_open(&w, path, &d);
    if (!r && !(r = zk_wtns_check_against_zkey(&w.hdr, kh, what, &d)))
        r = zk_wtns_read_values(&w, 0, kh->n_vars, dst, &d);
    zk_wtns_done(&w);
    if (r)
        synthd_witness_error(out, "%s", d.msg);
    return r;
}

/* synthd_witness_generate and synthd_witness_generate_into: with sink,
 * the output streamed there and path unused. */
static int generate(zk_ledger *l, const struct zk_ledger_part *p, const struct zk_ledger_key *lk,
                    struct synthd_witgen_seen *seen, const char *ext,
                    const zk_cancel_flag *cancel, char *path, size_t path_n,
                    struct zk_witgen_sink *sink, struct synthd_witness_out *out)
{
    if (lk->witgen_kind == ZK_WITGEN_NONE) {
        out->permanent = 1;
        synthd_witness_error(out,
                 "key %s has no witness generator (zkslot key add --witness-gen)", lk->name);
        return -EINVAL;
    }
    if (!wdir[0]) {
        synthd_witness_error(out, "no witness directory ([synthd] witness_dir %s "
                 "could not be set up)", wcfg ? wcfg->witness_dir : "?");
        return -ENOENT;
    }
    struct zk_witgen g;
    memset(&g, 0, sizeof g);
    g.kind = lk->witgen_kind;
    snprintf(g.spec, sizeof g.spec, "%s", lk->witgen);
    int r = witgen_verify(lk, &g, seen, out);
    if (r) {
        out->permanent = r == -ESTALE;
        return r;
    }
    char in[PATH_MAX + 64];
    if ((r = write_input(l, p, in, sizeof in, out)))
        return r;
    if (!sink && (size_t)snprintf(path, path_n, "%.*s%s", (int)(strlen(in) - 5), in, ext) >=
                     path_n) {
        unlink(in);
        synthd_witness_error(out, "%s: name too long", in);
        return -ENAMETOOLONG;
    }
    struct zk_witgen_limits lim = { wcfg->witness_memory, wcfg->witness_timeout * 1000u,
                                    wcfg->witness_output, owner, wcfg->synthd_generators };
    struct zk_witgen_result res;
    struct zk_diag d = { "" };
    r = sink ? zk_witgen_run_into(&g, in, sink, &lim, cancel, &res, &d)
             : zk_witgen_run(&g, in, path, &lim, cancel, &res, &d);
    unlink(in);
    out->witness_s = res.seconds;
    if (r) {
        if (!sink)
            unlink(path);
        /* an output past the slot is the generator's answer to this input:
         * the same every time */
        out->permanent = r == ZK_EREJECTED || r == ZK_ELENGTH;
        out->not_here = r == -EPERM || r == ZK_EUNTRUSTED;   /* zk_witgen_allowed: [synthd] generators */
        if (res.output[0])
            synthd_witness_error(out, "%s: %s", d.msg, res.output);
        else
            synthd_witness_error(out, "%s", d.msg);
        return r;
    }
    return 0;
}

int synthd_witness_generate(zk_ledger *l, const struct zk_ledger_part *p,
                            const struct zk_ledger_key *lk, struct synthd_witgen_seen *seen,
                            const char *ext, const zk_cancel_flag *cancel, char *path,
                            size_t path_n, struct synthd_witness_out *out)
{
    return generate(l, p, lk, seen, ext, cancel, path, path_n, NULL, out);
}

int synthd_witness_generate_into(zk_ledger *l, const struct zk_ledger_part *p,
                                 const struct zk_ledger_key *lk, struct synthd_witgen_seen *seen,
                                 const zk_cancel_flag *cancel, uint8_t *dst, uint64_t cap,
                                 uint64_t *len, struct synthd_witness_out *out)
{
    struct zk_witgen_sink sink = { dst, cap, 0 };
    int r = generate(l, p, lk, seen, NULL, cancel, NULL, 0, &sink, out);
    *len = sink.len;
    return r;
}

int synthd_witness_fill(zk_ledger *l, const struct zk_ledger_part *p,
                        const struct zk_ledger_key *lk, struct synthd_witgen_seen *seen,
                        const struct zk_zkey_header *kh, void *dst,
                        const zk_cancel_flag *cancel, struct synthd_witness_out *out)
{
    memset(out, 0, sizeof *out);
    out->witness_s = -1;
    if (!p->has_input)
        return read_wtns(p->witness, p->witness, 1, kh, dst, out);

    char wt[PATH_MAX + 64];
    int r = synthd_witness_generate(l, p, lk, seen, ".wtns", cancel, wt, sizeof wt, out);
    if (r)
        return r;
    char what[96];
    snprintf(what, sizeof what, "the witness of key %s's generator", lk->name);
    r = read_wtns(wt, what, 0, kh, dst, out);
    unlink(wt);
    if (r) {
        char msg[sizeof out->error];
        memcpy(msg, out->error, sizeof msg);
        synthd_witness_error(out, "witness generator exited 0 but its witness is unusable: %s",
                             msg);
        return r;
    }
    return 0;
}
