/*
 * args.c -- daemon command lines: config file, environment, flags.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/zkd.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/ledger.h"

static const struct zkd_flag common_flags[] = {
    { "--pool", "pool", "path", "PATH", "the slot pool" },
    { "--state-dir", "zkslot", "state_dir", "DIR", "directory of the ledger" },
    { "--ledger", "ledger", "url", "URL", "the ledger: an SQLite path or a postgresql:// URL" },
    { "--machine", "zkslot", "machine", "NAME", "this machine's name in a shared ledger" },
    { "--max-attempts", "zkslot", "max_attempts", "N", "syntheses of a partition before it fails" },
    { "--max-errors", "zkslot", "max_errors", "N", "errors of a partition before it fails" },
    { "--poll-ms", "zkslot", "poll_ms", "MS", "idle poll interval of the ledger" },
};

static void usage(FILE *out, const char *prog, const struct zkd_flag *flags, size_t nflags)
{
    fprintf(out, "usage: %s [--config FILE] [--check-config] [OPTIONS]\n\noptions:\n", prog);
    fprintf(out, "  %-26s %s\n", "--config FILE", "configuration file (default " ZK_CONFIG_DEFAULT_PATH ")");
    fprintf(out, "  %-26s %s\n", "--check-config", "print the effective configuration and exit");
    fprintf(out, "  %-26s %s\n", "--help, -h", "print this and exit");
    fprintf(out, "  %-26s %s\n", "--version", "print the version and exit");
    for (int pass = 0; pass < 2; pass++) {
        const struct zkd_flag *f = pass ? common_flags : flags;
        size_t n = pass ? sizeof common_flags / sizeof common_flags[0] : nflags;
        for (size_t i = 0; i < n; i++) {
            char both[64];
            snprintf(both, sizeof both, "%s %s", f[i].flag, f[i].arg);
            fprintf(out, "  %-26s %s ([%s] %s)\n", both, f[i].help, f[i].section, f[i].option);
        }
    }
}

static const struct zkd_flag *find(const char *a, const struct zkd_flag *flags, size_t nflags)
{
    for (size_t i = 0; i < nflags; i++) {
        if (!strcmp(a, flags[i].flag))
            return &flags[i];
    }
    for (size_t i = 0; i < sizeof common_flags / sizeof common_flags[0]; i++) {
        if (!strcmp(a, common_flags[i].flag))
            return &common_flags[i];
    }
    return NULL;
}

int zkd_parse_args(int argc, char **argv, const char *prog, const struct zkd_flag *flags,
                   size_t nflags, struct zk_config *cfg, int *ret_check)
{
    const char *cfg_path = NULL;
    struct zk_diag d;
    int r;

    *ret_check = 0;
    if (zkd_log_level_bad()) {
        fprintf(stderr, "%s: ZKSLOT_LOG_LEVEL '%s' is not one of err, warning, notice, info,"
                        " debug\n", prog, zkd_log_level_bad());
        return -EINVAL;
    }
    /* pass 1: --config, --help, and the shape of every argument */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, prog, flags, nflags);
            return 1;
        } else if (!strcmp(a, "--version")) {
            printf("%s %s\n", prog, ZK_VERSION);
            return 1;
        } else if (!strcmp(a, "--check-config")) {
            *ret_check = 1;
        } else if (!strcmp(a, "--config")) {
            if (++i >= argc)
                goto missing;
            cfg_path = argv[i];
        } else if (find(a, flags, nflags)) {
            if (++i >= argc)
                goto missing;
        } else {
            fprintf(stderr, "%s: unknown argument '%s' (see --help)\n", prog, a);
            return -EINVAL;
        }
    }
    if ((r = zk_config_resolve(cfg, cfg_path, &d))) {
        fprintf(stderr, "%s: %s\n", prog, d.msg);
        return r;
    }
    /* pass 2: flags override the file */
    for (int i = 1; i < argc; i++) {
        const struct zkd_flag *f = find(argv[i], flags, nflags);
        if (!f) {
            if (!strcmp(argv[i], "--config"))
                i++;
            continue;
        }
        char src[sizeof cfg->source];
        memcpy(src, cfg->source, sizeof src);
        cfg->source[0] = 0;
        r = zk_config_set(cfg, f->section, f->option, argv[i + 1], &d);
        memcpy(cfg->source, src, sizeof src);
        if (r) {
            const char *msg = strstr(d.msg, ": ");
            fprintf(stderr, "%s: %s: %s\n", prog, f->flag, msg ? msg + 2 : d.msg);
            return r;
        }
        i++;
    }
    return 0;
missing:
    fprintf(stderr, "%s: %s needs a value (see --help)\n", prog, argv[argc - 1]);
    return -EINVAL;
}

void zkd_print_config(const struct zk_config *c, FILE *out)
{
    fprintf(out, "# effective configuration%s%s\n", c->source[0] ? " from " : " (defaults, no file)",
            c->source);
    fprintf(out, "[zkslot]\nstate_dir = %s\nmax_attempts = %u\nmax_errors = %u\npoll_ms = %u\n",
            c->state_dir, c->max_attempts, c->max_errors, c->poll_ms);
    char url[sizeof c->ledger_url];   /* shown without its password */
    fprintf(out, "machine = %s\n[ledger]\nurl = %s\nlease = %u\nkeep_inputs = %u\n", c->machine,
            zk_ledger_url_redact(c->ledger_url, url, sizeof url), c->ledger_lease,
            c->ledger_keep_inputs);
    fprintf(out, "aging = %u\n", c->ledger_aging);
    fprintf(out, "[pool]\npath = %s\nslots = %u\nslot_size = %llu\ndir = %s\nnuma_nodes = %s\n"
                 "hugepages = %s\n",
            c->pool, c->pool_slots, (unsigned long long)c->pool_slot_size, c->pool_dir,
            c->pool_numa_nodes,
            c->pool_hugepages == ZK_HUGEPAGES_YES  ? "yes"
            : c->pool_hugepages == ZK_HUGEPAGES_NO ? "no"
                                                   : "auto");
    fprintf(out, "reserve = %u\nreserve_class = %s\n", c->pool_reserve,
            zk_priority_name(c->pool_reserve_class));
    fprintf(out, "[synthd]\nworkers = %u\nthreads = %u\nnuma_node = %d\n", c->synthd_workers,
            c->synthd_threads, c->synthd_numa_node);
    fprintf(out, "reserve_workers = %u\n", c->synthd_reserve_workers);
    fprintf(out, "witness_memory = %llu\nwitness_timeout = %u\nwitness_output = %llu\n"
                 "witness_dir = %s\n",
            (unsigned long long)c->witness_memory, c->witness_timeout,
            (unsigned long long)c->witness_output, c->witness_dir);
    fprintf(out, "[gpud]\nbackend = %s\ndevice = %d\nthreads = %u\nrelease = %s\n"
                 "self_verify = %s\nkeys = %s\n",
            c->gpud_backend, c->gpud_device, c->gpud_threads,
            c->gpud_release == ZK_RELEASE_AFTER_PROOF ? "after-proof" : "after-start",
            c->gpud_self_verify ? "yes" : "no", c->gpud_keys);
    fprintf(out, "[keys]\nprecompute = %s\ntable_factor = %u\ndir = %s\n",
            zk_groth16_precompute_name((enum zk_groth16_precompute)c->keys_precompute),
            c->keys_table_factor, c->keys_dir);
}
