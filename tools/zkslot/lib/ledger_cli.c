/*
 * ledger_cli.c -- shared plumbing of the ledger subcommands (ledger_cli.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ledger_cli.h"
#include "zk/error.h"

int lcli_option(struct lcli *c, int opt, const char *arg)
{
    if (opt == 'C') {
        c->config_flag = arg;
        return 1;
    }
    if (opt == 'S') {
        c->state_dir_flag = arg;
        return 1;
    }
    if (opt == 'L') {
        c->ledger_flag = arg;
        return 1;
    }
    return 0;
}

int lcli_mkdirs_ex(const char *path, mode_t mode, gid_t gid, int sync, char *failed,
                   size_t n)
{
    char buf[PATH_MAX];
    struct stat st;
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -ENAMETOOLONG;
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != 0)
            continue;
        char saved = *p;
        *p = 0;
        int r = 0;
        if (mkdir(buf, mode & 0777) == 0) {
            /* the group first: changing it may clear the setgid bit */
            if (gid != (gid_t)-1 &&
                (stat(buf, &st) || (st.st_gid != gid && chown(buf, (uid_t)-1, gid)) ||
                 chmod(buf, mode))) {
                r = -errno;
            } else if (sync) {
                /* the parent: "." for the first part of a relative path */
                char *slash = strrchr(buf, '/');
                if (slash)
                    *slash = 0;
                int dfd = open(!slash ? "." : slash == buf ? "/" : buf,
                               O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                r = dfd < 0 || fsync(dfd) ? -errno : 0;
                if (dfd >= 0)
                    close(dfd);
                if (slash)
                    *slash = '/';
            }
        } else if (errno != EEXIST) {
            r = -errno;
        } else if (stat(buf, &st)) {
            r = -errno;
        } else if (!S_ISDIR(st.st_mode)) {
            r = -ENOTDIR;
        }
        if (r) {
            if (failed)
                snprintf(failed, n, "%s", buf);
            return r;
        }
        if (!saved)
            return 0;
        *p = saved;
    }
}

int lcli_mkdirs(const char *path)
{
    return lcli_mkdirs_ex(path, 0755, (gid_t)-1, 0, NULL, 0);
}

int lcli_resolve(struct lcli *c, int create)
{
    struct zk_diag d = { "" };
    if (zk_config_resolve(&c->cfg, c->config_flag, &d) < 0) {
        fprintf(stderr, "zkslot %s: %s\n", c->cmd, d.msg);
        return -1;
    }
    if (c->state_dir_flag && zk_config_set(&c->cfg, "zkslot", "state_dir", c->state_dir_flag,
                                           &d) < 0) {
        fprintf(stderr, "zkslot %s: --state-dir: %s\n", c->cmd, d.msg);
        return -1;
    }
    if (c->ledger_flag && zk_config_set(&c->cfg, "ledger", "url", c->ledger_flag, &d) < 0) {
        fprintf(stderr, "zkslot %s: --ledger: %s\n", c->cmd, d.msg);
        return -1;
    }
    if (!c->cfg.state_dir[0]) {
        fprintf(stderr, "zkslot %s: the state directory is empty\n", c->cmd);
        return -1;
    }
    int r;
    char url[sizeof c->ledger_path];   /* where the ledger is, before the directory */
    int shared = zk_config_ledger_path(&c->cfg, url, sizeof url) == 0 &&
                 !zk_ledger_sqlite_path(url);
    /* a client of a shared ledger needs no state directory of its own */
    if (create && !shared && (r = lcli_mkdirs(c->cfg.state_dir)) < 0) {
        fprintf(stderr, "zkslot %s: cannot create the state directory %s: %s\n", c->cmd,
                c->cfg.state_dir, zk_strerror(r));
        return -1;
    }
    char abs[PATH_MAX];
    if (realpath(c->cfg.state_dir, abs) && strlen(abs) < sizeof c->cfg.state_dir)
        memcpy(c->cfg.state_dir, abs, strlen(abs) + 1);
    if (zk_config_ledger_path(&c->cfg, c->ledger_path, sizeof c->ledger_path) < 0) {
        fprintf(stderr, "zkslot %s: state directory name too long\n", c->cmd);
        return -1;
    }
    return 0;
}

int lcli_open(struct lcli *c, int create)
{
    struct zk_diag d = { "" };
    int r;
    if (lcli_resolve(c, create) < 0)
        return -1;
    const char *file = zk_ledger_sqlite_path(c->ledger_path);
    if (!create && file && access(file, F_OK) != 0 && errno == ENOENT) {
        fprintf(stderr, "zkslot: no ledger at %s (nothing submitted yet?)\n", file);
        return -1;
    }
    r = zk_ledger_open(c->ledger_path, create ? ZK_LEDGER_CREATE : 0, 0, &c->l, &d);
    if (r == ZK_ELEDGER && !file) {
        fprintf(stderr, "zkslot %s: the ledger's database is unreachable: %s\n", c->cmd, d.msg);
        exit(LCLI_EXIT_UNREACHABLE);
    }
    char why[200];
    const char *what;
    if (r < 0 && file &&
        (what = zk_ledger_sqlite_access(file, c->cfg.state_dir, "this user", why, sizeof why))) {
        /* SQLite says "unable to open database file": say whose it is */
        fprintf(stderr, "zkslot %s: %s: %s (the ledger is the daemons' alone: others "
                "submit and watch through zkslot-apid's socket, docs/operations.md)\n",
                c->cmd, what, why);
        return -1;
    }
    if (r < 0) {
        fprintf(stderr, "zkslot %s: %s\n", c->cmd, d.msg);
        return -1;
    }
    lcli_clock_from(c->l);   /* ages and deadlines on the ledger's clock */
    if (zk_ledger_set_machine(c->l, c->cfg.machine) < 0) {
        fprintf(stderr, "zkslot %s: machine name '%s' longer than 63 bytes\n", c->cmd,
                c->cfg.machine);
        lcli_close(c);
        return -1;
    }
    return 0;
}

void lcli_close(struct lcli *c)
{
    zk_ledger_close(c->l);
    c->l = NULL;
}

int lcli_job_id(const char *cmd, const char *s, int64_t *ret)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v <= 0) {
        fprintf(stderr, "zkslot %s: '%s' is not a job id\n", cmd, s);
        return -1;
    }
    *ret = v;
    return 0;
}

const char *lcli_duration(int64_t ns, char *buf, unsigned n)
{
    long long s = ns > 0 ? ns / 1000000000 : 0;
    if (s < 60)
        snprintf(buf, n, "%llds", s);
    else if (s < 3600)
        snprintf(buf, n, "%lldm%02llds", s / 60, s % 60);
    else if (s < 86400)
        snprintf(buf, n, "%lldh%02lldm", s / 3600, s / 60 % 60);
    else
        snprintf(buf, n, "%lldd%02lldh", s / 86400, s / 3600 % 24);
    return buf;
}

/* the ledger's clock - CLOCK_REALTIME, from the last ledger opened */
static _Atomic int64_t clock_off_ns;

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void lcli_clock_from(const zk_ledger *l)
{
    atomic_store(&clock_off_ns, zk_ledger_now_ns(l) - realtime_ns());
}

int64_t lcli_now_ns(void)
{
    return realtime_ns() + atomic_load(&clock_off_ns);
}
