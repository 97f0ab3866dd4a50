/*
 * config.h -- the one configuration of zkslot (/etc/zkslot/zkslot.conf).
 *
 * An INI file read with inih.  Sections and options (docs/configuration.md
 * documents each; flags of the daemons and the CLI override the file):
 *
 *   [zkslot]  state_dir, max_attempts, max_errors, poll_ms, machine
 *   [ledger]  url, lease, aging, keep_inputs
 *   [pool]    path, slots, slot_size, dir, numa_nodes, hugepages, reserve,
 *             reserve_class
 *   [synthd]  workers, threads, numa_node, witness_memory, witness_timeout,
 *             witness_output, witness_dir, generators, reserve_workers
 *   [gpud]    backend, device, threads, release, self_verify, keys
 *   [keys]    precompute, table_factor
 *
 * Order of precedence: defaults < file < environment (ZKSLOT_STATE_DIR,
 * ZKSLOT_POOL) < command-line flags (zk_config_set from the caller).
 */
#ifndef ZK_COMMON_CONFIG_H
#define ZK_COMMON_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZK_CONFIG_DEFAULT_PATH "/etc/zkslot/zkslot.conf"
#define ZK_STATE_DIR_DEFAULT "/var/lib/zkslot"

/* [pool] hugepages: what `zkslot pool create` may back the pool with. */
enum zk_hugepages_policy {
    ZK_HUGEPAGES_AUTO = 0,          /* hugetlbfs when pages are reserved, else tmpfs */
    ZK_HUGEPAGES_YES = 1,           /* hugetlbfs or fail */
    ZK_HUGEPAGES_NO = 2,            /* tmpfs only */
};

enum zk_release_policy {
    ZK_RELEASE_AFTER_START = 0,     /* free the slot once prove_start is done with it */
    ZK_RELEASE_AFTER_PROOF = 1,     /* hold it until the proof is written */
};

struct zk_config {
    /* [zkslot] */
    char state_dir[1024];           /* ledger.db and default job outputs */
    char machine[64];               /* this machine in a shared ledger; "" = the hostname */
    /* [ledger] */
    char ledger_url[1024];          /* "" = <state_dir>/ledger.db; a path, sqlite:PATH,
                                       postgresql://... or libpq keywords (zk/ledger.h) */
    unsigned ledger_lease;          /* seconds a machine's lease lasts unrenewed */
    unsigned ledger_aging;          /* seconds of waiting per class step; 0 = no aging */
    unsigned ledger_keep_inputs;    /* seconds an ended job's inputs are kept; 0 = none */
    char pool[1024];                /* [pool] path: the pool's path */
    /* [pool] geometry, for `zkslot pool create` (0 / "" = not set) */
    unsigned pool_slots;            /* slots, 1 .. ZK_POOL_MAX_SLOTS */
    uint64_t pool_slot_size;        /* bytes per slot ("16G", "512M", ...) */
    char pool_dir[1024];            /* backing directory; "" = automatic */
    char pool_numa_nodes[256];      /* "0,1": slots spread over these nodes; "" = none */
    int pool_hugepages;             /* enum zk_hugepages_policy */
    unsigned pool_reserve;          /* slots only pool_reserve_class and above take */
    int pool_reserve_class;         /* enum zk_priority */
    unsigned max_attempts;          /* syntheses of one partition before it fails */
    unsigned max_errors;            /* errors of one partition before it fails */
    unsigned poll_ms;               /* idle poll of the ledger */
    /* [synthd] */
    unsigned synthd_workers;        /* partitions synthesized at once */
    unsigned synthd_threads;        /* threads per worker; 0 = cores / workers */
    int synthd_numa_node;           /* -1 = no binding */
    uint64_t witness_memory;        /* bytes resident per witness generator; 0 = no bound */
    unsigned witness_timeout;       /* seconds per generator run; 0 = none */
    uint64_t witness_output;        /* bytes of generator output before it is stopped */
    char witness_dir[1024];         /* tmpfs directory for inputs and witnesses in flight */
    char synthd_generators[4096];   /* what synthd runs as witness generators: comma-
                                       separated paths (zk_witgen_allowed); "" = none */
    unsigned synthd_reserve_workers; /* of the workers, those that take only work of
                                        pool_reserve_class and above */
    unsigned synthd_gpud_absent;    /* seconds with no gpud on the pool before a shared
                                       ledger's synthd pauses and hands back; 0 = never */
    /* [gpud] */
    char gpud_backend[16];          /* "cpu" or "cuda" */
    int gpud_device;
    unsigned gpud_threads;          /* 0 = all cores */
    int gpud_release;               /* enum zk_release_policy */
    int gpud_self_verify;
    char gpud_keys[1024];           /* comma-separated key names; "" = all */
    /* [keys] */
    int keys_precompute;            /* enum zk_groth16_precompute: MSM tables of a key */
    unsigned keys_table_factor;     /* multiples per point in those tables */
    char keys_dir[1024];            /* a key's file here: its registered path, else this
                                       dir + its basename; "" = the registered path only */
    /* where the values came from, for messages */
    char source[1024];              /* the file read, or "" */
};

/* The built-in defaults. */
void zk_config_defaults(struct zk_config *c);

/*
 * Sets one option from its text (section "zkslot", "pool", "synthd" or "gpud").
 * Errors: -ENOENT unknown option, -EINVAL bad value; diag says which and why.
 */
int zk_config_set(struct zk_config *c, const char *section, const char *name,
                  const char *value, struct zk_diag *diag);

/*
 * The whole resolution every tool and daemon uses: defaults, then the file
 * (`flag` when given, else $ZKSLOT_CONFIG when set and not empty, else
 * ZK_CONFIG_DEFAULT_PATH when it exists), then the environment
 * (zk_config_env).  The caller applies its flags last.  Errors as
 * zk_config_load.
 */
int zk_config_resolve(struct zk_config *c, const char *flag, struct zk_diag *diag);

/*
 * Reads `path` over *c.  Unknown sections or options and bad values are
 * errors naming the file and line (-EINVAL / -ENOENT); a missing file is
 * -ENOENT unless `optional`, when it is silently skipped.
 */
int zk_config_load(struct zk_config *c, const char *path, int optional,
                   struct zk_diag *diag);

/* Applies ZKSLOT_STATE_DIR, ZKSLOT_POOL, ZKSLOT_LEDGER ([ledger] url) and
 * ZKSLOT_MACHINE ([zkslot] machine) when set. */
void zk_config_env(struct zk_config *c);

/*
 * Parses a NUMA node list "0,1,3" (each 0..1023, at most `max` entries)
 * into nodes[]; *ret_n = the count.  -EINVAL on garbage or an empty list.
 */
int zk_config_parse_nodes(const char *s, int *nodes, unsigned max, unsigned *ret_n);

/* The ledger's URL into buf (size n): [ledger] url, else "<state_dir>/ledger.db". */
int zk_config_ledger_path(const struct zk_config *c, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_CONFIG_H */
