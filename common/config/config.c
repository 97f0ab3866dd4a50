/*
 * config.c -- zkslot.conf (zk/config.h), parsed with inih.
 */
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "zk/config.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/ledger.h"
#include "zk/msm.h"
#include "zk/pool.h"

void zk_config_defaults(struct zk_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->state_dir, sizeof c->state_dir, "%s", ZK_STATE_DIR_DEFAULT);
    snprintf(c->pool, sizeof c->pool, "%s", zk_pool_default_path());
    c->pool_hugepages = ZK_HUGEPAGES_AUTO;
    c->max_attempts = 10;
    c->max_errors = 3;
    c->poll_ms = 100;
    c->ledger_lease = 30;
    c->synthd_workers = 1;
    c->synthd_gpud_absent = 60;
    c->synthd_threads = 0;
    c->synthd_numa_node = -1;
    c->witness_memory = 0;
    c->witness_timeout = 600;
    c->witness_output = 1u << 20;
    snprintf(c->witness_dir, sizeof c->witness_dir, "%s", "/dev/shm");
    snprintf(c->gpud_backend, sizeof c->gpud_backend, "cpu");
    c->gpud_device = 0;
    c->gpud_threads = 0;
    c->gpud_release = ZK_RELEASE_AFTER_START;
    c->gpud_self_verify = 0;
    c->keys_precompute = ZK_G16_PRECOMPUTE_NONE;
    c->keys_table_factor = ZK_G16_TABLE_FACTOR_DEFAULT;
    c->ledger_aging = 600;
    c->pool_reserve_class = ZK_PRIO_HIGH;
}

enum kind { K_STR, K_UINT, K_INT, K_BOOL, K_RELEASE, K_BACKEND, K_SIZE, K_NODES, K_HUGEPAGES,
            K_PRECOMPUTE, K_PRIO };

struct option {
    const char *section, *name;
    enum kind kind;
    size_t off, size;
    long long min, max;
};

#define O(sec, nm, k, field, lo, hi) \
    { sec, nm, k, offsetof(struct zk_config, field), sizeof(((struct zk_config *)0)->field), lo, hi }

static const struct option options[] = {
    O("zkslot", "state_dir", K_STR, state_dir, 0, 0),
    O("pool", "path", K_STR, pool, 0, 0),
    O("pool", "slots", K_UINT, pool_slots, 1, ZK_POOL_MAX_SLOTS),
    O("pool", "slot_size", K_SIZE, pool_slot_size, 0, 0),
    O("pool", "dir", K_STR, pool_dir, 0, 0),
    O("pool", "numa_nodes", K_NODES, pool_numa_nodes, 0, 0),
    O("pool", "hugepages", K_HUGEPAGES, pool_hugepages, 0, 0),
    O("zkslot", "max_attempts", K_UINT, max_attempts, 1, 1000),
    O("zkslot", "max_errors", K_UINT, max_errors, 1, 1000),
    O("zkslot", "poll_ms", K_UINT, poll_ms, 1, 60000),
    O("zkslot", "machine", K_STR, machine, 0, 0),
    O("ledger", "url", K_STR, ledger_url, 0, 0),
    O("ledger", "lease", K_UINT, ledger_lease, 2, 3600),
    O("ledger", "aging", K_UINT, ledger_aging, 0, 86400 * 30),
    O("pool", "reserve", K_UINT, pool_reserve, 0, ZK_POOL_MAX_SLOTS),
    O("pool", "reserve_class", K_PRIO, pool_reserve_class, 0, 0),
    O("synthd", "reserve_workers", K_UINT, synthd_reserve_workers, 0, 1024),
    O("synthd", "gpud_absent", K_UINT, synthd_gpud_absent, 0, 86400),
    O("ledger", "keep_inputs", K_UINT, ledger_keep_inputs, 0, 86400 * 366),
    O("synthd", "workers", K_UINT, synthd_workers, 1, 1024),
    O("synthd", "threads", K_UINT, synthd_threads, 0, 4096),
    O("synthd", "numa_node", K_INT, synthd_numa_node, -1, 1023),
    O("synthd", "witness_memory", K_SIZE, witness_memory, 0, 1),   /* 0 allowed */
    O("synthd", "witness_timeout", K_UINT, witness_timeout, 0, 86400 * 7),
    O("synthd", "witness_output", K_SIZE, witness_output, 0, 0),
    O("synthd", "witness_dir", K_STR, witness_dir, 0, 0),
    O("synthd", "generators", K_STR, synthd_generators, 0, 0),
    O("gpud", "backend", K_BACKEND, gpud_backend, 0, 0),
    O("gpud", "device", K_INT, gpud_device, 0, 1023),
    O("gpud", "threads", K_UINT, gpud_threads, 0, 4096),
    O("gpud", "release", K_RELEASE, gpud_release, 0, 0),
    O("gpud", "self_verify", K_BOOL, gpud_self_verify, 0, 1),
    O("gpud", "keys", K_STR, gpud_keys, 0, 0),
    O("keys", "precompute", K_PRECOMPUTE, keys_precompute, 0, 0),
    O("keys", "table_factor", K_UINT, keys_table_factor, 1, ZK_MSM_MAX_FACTOR),
    O("keys", "dir", K_STR, keys_dir, 0, 0),
};

int zk_config_parse_nodes(const char *s, int *nodes, unsigned max, unsigned *ret_n)
{
    unsigned n = 0;
    while (*s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || end == s || v < 0 || v > 1023 || n >= max || (*end && *end != ','))
            return -EINVAL;
        nodes[n++] = (int)v;
        s = *end ? end + 1 : end;
        if (*end && !*s)            /* trailing comma */
            return -EINVAL;
    }
    if (!n)
        return -EINVAL;
    *ret_n = n;
    return 0;
}

static int parse_ll(const char *v, long long lo, long long hi, long long *ret)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return -EINVAL;
    *ret = x;
    return 0;
}

int zk_config_set(struct zk_config *c, const char *section, const char *name,
                  const char *value, struct zk_diag *diag)
{
    const char *src = c->source[0] ? c->source : NULL;
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        const struct option *o = &options[i];
        if (strcmp(o->section, section) || strcmp(o->name, name))
            continue;
        void *p = (char *)c + o->off;
        long long x;
        switch (o->kind) {
        case K_STR:
            if (strlen(value) >= o->size)
                return zk_diag_set(diag, src, -EINVAL, "[%s] %s: value longer than %zu bytes",
                                   section, name, o->size - 1);
            memcpy(p, value, strlen(value) + 1);
            return 0;
        case K_UINT:
        case K_INT:
            if (parse_ll(value, o->min, o->max, &x))
                return zk_diag_set(diag, src, -EINVAL,
                                   "[%s] %s: '%s' is not an integer in %lld..%lld", section,
                                   name, value, o->min, o->max);
            if (o->kind == K_UINT)
                *(unsigned *)p = (unsigned)x;
            else
                *(int *)p = (int)x;
            return 0;
        case K_BOOL:
            if (!strcasecmp(value, "yes") || !strcasecmp(value, "true") || !strcmp(value, "1") ||
                !strcasecmp(value, "on"))
                *(int *)p = 1;
            else if (!strcasecmp(value, "no") || !strcasecmp(value, "false") ||
                     !strcmp(value, "0") || !strcasecmp(value, "off"))
                *(int *)p = 0;
            else
                return zk_diag_set(diag, src, -EINVAL, "[%s] %s: '%s' is not yes or no",
                                   section, name, value);
            return 0;
        case K_RELEASE:
            if (!strcmp(value, "after-start"))
                *(int *)p = ZK_RELEASE_AFTER_START;
            else if (!strcmp(value, "after-proof"))
                *(int *)p = ZK_RELEASE_AFTER_PROOF;
            else
                return zk_diag_set(diag, src, -EINVAL,
                                   "[%s] %s: '%s' is not after-start or after-proof", section,
                                   name, value);
            return 0;
        case K_SIZE: {
            uint64_t b;
            if (o->max == 1 && !strcmp(value, "0")) {   /* a size where 0 means "none" */
                *(uint64_t *)p = 0;
                return 0;
            }
            if (zk_pool_parse_size(value, &b) < 0 || b == 0)
                return zk_diag_set(diag, src, -EINVAL,
                                   "[%s] %s: '%s' is not a size (e.g. 16G, 512M)", section, name,
                                   value);
            *(uint64_t *)p = b;
            return 0;
        }
        case K_NODES: {
            int nodes[64];
            unsigned n;
            if (!*value) {              /* empty: no placement */
                *(char *)p = 0;
                return 0;
            }
            if (strlen(value) >= o->size || zk_config_parse_nodes(value, nodes, 64, &n))
                return zk_diag_set(diag, src, -EINVAL,
                                   "[%s] %s: '%s' is not a list of NUMA nodes (e.g. 0,1)",
                                   section, name, value);
            memcpy(p, value, strlen(value) + 1);
            return 0;
        }
        case K_HUGEPAGES:
            if (!strcmp(value, "auto"))
                *(int *)p = ZK_HUGEPAGES_AUTO;
            else if (!strcmp(value, "yes"))
                *(int *)p = ZK_HUGEPAGES_YES;
            else if (!strcmp(value, "no"))
                *(int *)p = ZK_HUGEPAGES_NO;
            else
                return zk_diag_set(diag, src, -EINVAL, "[%s] %s: '%s' is not auto, yes or no",
                                   section, name, value);
            return 0;
        case K_PRECOMPUTE: {
            enum zk_groth16_precompute w;
            if (zk_groth16_precompute_parse(value, &w))
                return zk_diag_set(diag, src, -EINVAL, "[%s] %s: '%s' is not none, h or all",
                                   section, name, value);
            *(int *)p = (int)w;
            return 0;
        }
        case K_PRIO:
            if ((x = zk_priority_parse(value)) < 0)
                return zk_diag_set(diag, src, -EINVAL,
                                   "[%s] %s: '%s' is not low, normal, high or critical", section,
                                   name, value);
            *(int *)p = (int)x;
            return 0;
        case K_BACKEND:
            if (strcmp(value, "cpu") && strcmp(value, "cuda"))
                return zk_diag_set(diag, src, -EINVAL, "[%s] %s: '%s' is not cpu or cuda",
                                   section, name, value);
            snprintf(p, o->size, "%s", value);
            return 0;
        }
    }
    return zk_diag_set(diag, src, -ENOENT, "unknown option [%s] %s", section, name);
}

struct load_ctx {
    struct zk_config *c;
    struct zk_diag *diag;
    FILE *f;
    int lineno;                     /* lines handed to inih so far */
    int err;
};

/* inih's line reader (fgets-like); counts lines, since the Debian build of
 * inih does not pass line numbers to the handler.  A line longer than
 * inih's buffer, or with a NUL byte, is an error naming it (inih would
 * read the rest as another line and report a syntax error there, past the
 * file's end). */
static char *read_line(char *str, int num, void *stream)
{
    struct load_ctx *lc = stream;
    int n = 0, ch = 0;
    while (n < num - 1 && (ch = getc(lc->f)) != EOF) {
        str[n++] = (char)ch;
        if (ch == '\n')
            break;
    }
    if (n == 0)
        return NULL;
    str[n] = 0;
    lc->lineno++;
    if (lc->err)
        return NULL;
    if (memchr(str, 0, (size_t)n)) {
        lc->err = zk_diag_set(lc->diag, lc->c->source, -EINVAL, "line %d: a NUL byte",
                              lc->lineno);
        return NULL;
    }
    if (str[n - 1] != '\n' && n == num - 1 && (ch = getc(lc->f)) != EOF) {
        lc->err = zk_diag_set(lc->diag, lc->c->source, -EINVAL, "line %d: longer than %d bytes",
                              lc->lineno, num - 2);
        return NULL;
    }
    return str;
}

static int on_value(void *user, const char *section, const char *name, const char *value)
{
    struct load_ctx *lc = user;
    struct zk_diag d;
    int r;

    if (lc->err)
        return 0;
    if (!name) /* a section header alone */
        return 1;
    r = zk_config_set(lc->c, section, name, value, &d);
    if (r) {
        /* re-prefix with the line number */
        const char *msg = strstr(d.msg, ": ");
        lc->err = zk_diag_set(lc->diag, lc->c->source, r, "line %d: %s", lc->lineno,
                              msg ? msg + 2 : d.msg);
        return 0;
    }
    return 1;
}

int zk_config_load(struct zk_config *c, const char *path, int optional, struct zk_diag *diag)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        int err = -errno;
        if (err == -ENOENT && optional)
            return 0;
        return zk_diag_set(diag, path, err, "cannot open the configuration: %s",
                           zk_strerror(err));
    }
    snprintf(c->source, sizeof c->source, "%s", path);
    struct load_ctx lc = { c, diag, f, 0, 0 };
    int r = ini_parse_stream(read_line, &lc, on_value, &lc);
    fclose(f);
    if (lc.err)
        return lc.err;
    if (r > 0)
        return zk_diag_set(diag, path, -EINVAL, "line %d: syntax error", r);
    if (r < 0)
        return zk_diag_set(diag, path, -EIO, "cannot read the configuration");
    return 0;
}

void zk_config_env(struct zk_config *c)
{
    const char *v;
    if ((v = getenv("ZKSLOT_STATE_DIR")) && *v && strlen(v) < sizeof c->state_dir)
        snprintf(c->state_dir, sizeof c->state_dir, "%s", v);
    if ((v = getenv("ZKSLOT_POOL")) && *v && strlen(v) < sizeof c->pool)
        snprintf(c->pool, sizeof c->pool, "%s", v);
    if ((v = getenv("ZKSLOT_LEDGER")) && *v && strlen(v) < sizeof c->ledger_url)
        snprintf(c->ledger_url, sizeof c->ledger_url, "%s", v);
    if ((v = getenv("ZKSLOT_MACHINE")) && *v && strlen(v) < sizeof c->machine)
        snprintf(c->machine, sizeof c->machine, "%s", v);
}

int zk_config_ledger_path(const struct zk_config *c, char *buf, size_t n)
{
    int k = c->ledger_url[0] ? snprintf(buf, n, "%s", c->ledger_url)
                             : snprintf(buf, n, "%s/%s", c->state_dir, ZK_LEDGER_FILE);
    return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

int zk_config_resolve(struct zk_config *c, const char *flag, struct zk_diag *diag)
{
    const char *env = getenv("ZKSLOT_CONFIG");
    int optional = !flag && !(env && *env);
    const char *path = flag ? flag : !optional ? env : ZK_CONFIG_DEFAULT_PATH;
    zk_config_defaults(c);
    int r = zk_config_load(c, path, optional, diag);
    if (r < 0)
        return r;
    zk_config_env(c);
    return 0;
}
