/*
 * cmd_key.c -- `zkslot key add NAME FILE`, `zkslot key list [--json]`,
 * `zkslot key show NAME`: the proving keys registered in the ledger.
 * Under `zkslot --server URL` list and show ask a zkslot-apid instead
 * (remote.h; what it shows: no paths, no generators; show adds vk.json).
 *
 * `key add` validates the .zkey (zk_zkey_open), hashes the whole file with
 * XXH3-128 and records its absolute path, curve and sizes under NAME
 * ([A-Za-z0-9._-], 1 to 63 characters, unique).  With --witness-gen PATH
 * (circom's C++ generator, its .wasm or NAME_js/ folder) or --witness-cmd
 * 'COMMAND {input} {output}' the key also gets the witness generator that
 * makes jobs from circuit inputs (`zkslot submit --input`): checked that it
 * can run, hashed (zk/witgen.h), recorded.
 *
 * `key load NAME [--precompute none|h|all] [--table-factor F]` puts the
 * key's decoded points, and the precomputed MSM tables asked for (zk/msm.h;
 * refused, saying how much is missing, when building them would not fit in
 * MemAvailable), into its store beside the pool (zk/keystore.h,
 * docs/keystore.md), where
 * every gpud serving the key and the one-shot `zkslot prove` map them;
 * `key status` lists the registered keys with their stores (and stores
 * of no registered key); `key unload NAME` removes a key's store.
 * Exit codes: 0 ok, 2 error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "filecoin_cli.h"
#include "key_bp.h"
#include "ledger_cli.h"
#include "local_route.h"
#include "remote.h"
#include "zk/error.h"
#include "zk/keyfile.h"
#include "zk/keystore.h"
#include "zk/msm.h"
#include "zk/priority.h"
#include "zk/util.h"
#include "zk/witgen.h"
#include "zk/zkey.h"

#define HASH_PROGRESS_MIN (256ull << 20)

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-'))
            return 0;
    }
    return 1;
}

struct hash_progress {
    int shown;                    /* last percentage printed; -1 none */
};

static void hash_progress(void *ctx, const char *path, uint64_t done, uint64_t total)
{
    struct hash_progress *hp = ctx;
    int pct = total ? (int)(done * 100 / total) : 100;
    if (pct != hp->shown) {
        fprintf(stderr, "\rhashing %s: %3d%%%s", path, pct, pct == 100 ? "\n" : "");
        hp->shown = pct;
    }
}

/* XXH3-128 of the whole file as 32 lowercase hex digits; progress on a tty. */
static int hash_file(const char *path, char hex[33], uint64_t *ret_size)
{
    struct stat st;
    struct zk_diag d = { "" };
    struct hash_progress hp = { -1 };
    int progress = isatty(2) && stat(path, &st) == 0 && (uint64_t)st.st_size > HASH_PROGRESS_MIN;
    if (zk_hash128_files(NULL, 0, &path, 1, hex, ret_size, progress ? hash_progress : NULL, &hp,
                         &d) < 0) {
        fprintf(stderr, "zkslot key add: %s\n", d.msg);
        return -1;
    }
    return 0;
}

/*
 * On SQLite (one machine) a witness generator is code the daemons run as
 * their user, who owns the state directory (the units' tmpfiles.d makes
 * it theirs) or the ledger file: only that user or root registers one (an
 * operator in group zkslot submits and watches).  c resolved (lcli_
 * resolve), not yet opened.  1 when the caller may; else 0, the refusal
 * printed.  PostgreSQL: its roles decide.
 */
static int may_add_generator(const struct lcli *c)
{
    const char *path = zk_ledger_sqlite_path(c->ledger_path);
    char dir[PATH_MAX];
    struct stat st, ds;
    if (!path || getuid() == 0)
        return 1;
    int have_dir = zk_path_dir(path, dir, sizeof dir) == 0 && stat(dir, &ds) == 0;
    if ((stat(path, &st) == 0 && st.st_uid == getuid()) || (have_dir && ds.st_uid == getuid()))
        return 1;
    fprintf(stderr, "zkslot key add: %s: a key with a witness generator is registered only by "
            "root or the daemons' user (the owner of %s, uid %d): the daemons run it\n", path,
            have_dir ? dir : "the state directory", have_dir ? (int)ds.st_uid : -1);
    return 0;
}

/* The .zkey's curve and sizes into k: 0, or -1 with the reason printed. */
static int zkey_describe(const char *file, struct zk_ledger_key *k)
{
    struct zk_zkey z = { 0 };
    struct zk_diag d = { "" };
    if (zk_zkey_open(&z, file, &d) < 0) {
        fprintf(stderr, "zkslot key add: %s\n", d.msg);
        return -1;
    }
    snprintf(k->curve, sizeof k->curve, "%s", zk_curve_name(z.hdr.curve));
    k->n_vars = z.hdr.n_vars;
    k->n_public = z.hdr.n_public;
    k->domain_size = z.hdr.domain_size;
    zk_zkey_done(&z);
    return 0;
}

/* A key file, its format told by its content: a .zkey, or a bellperson
 * parameter file (its .vk, when given, checked against it). */
static int key_add(struct lcli *c, const char *name, const char *file, const char *vk,
                   const char *gen, int gen_is_cmd, int prio)
{
    struct zk_diag d = { "" };
    struct zk_ledger_key k, old;
    zk_bp_key *bp = NULL;
    char abs[PATH_MAX];
    int rc = 2, fmt;
    if (!valid_name(name)) {
        fprintf(stderr,
                "zkslot key add: bad key name '%s': use 1 to 63 of A-Z a-z 0-9 . _ -\n", name);
        return 2;
    }
    memset(&k, 0, sizeof k);
    k.priority = prio;
    snprintf(k.name, sizeof k.name, "%s", name);
    if ((fmt = key_bp_format(c->cmd, file)) < 0)
        return 2;
    if (fmt == ZK_KEY_ZKEY && vk) {
        fprintf(stderr, "zkslot key add: %s: a .zkey holds its verifying key: --vk is for a "
                "bellperson parameter file\n", file);
        return 2;
    }
    if (fmt == ZK_KEY_BELLPERSON && gen && !gen_is_cmd) {
        fprintf(stderr, "zkslot key add: %s: a bellperson key's jobs are assignments (.bpa), "
                "or inputs of a synthesizer that writes them (--witness-cmd): circom's "
                "generators write witnesses\n", file);
        return 2;
    }
    if (fmt == ZK_KEY_ZKEY ? zkey_describe(file, &k) < 0 : key_bp_open(file, vk, &k, &bp) < 0)
        return 2;
    if (!realpath(file, abs)) {
        fprintf(stderr, "zkslot key add: %s: %s\n", file, strerror(errno));
        return 2;
    }
    if (strlen(abs) >= sizeof k.path) {
        fprintf(stderr, "zkslot key add: %s: path too long\n", abs);
        goto out_key;
    }
    memcpy(k.path, abs, strlen(abs) + 1);
    if (gen) {
        struct zk_witgen g;
        if (zk_witgen_resolve(gen, gen_is_cmd, &g, &d) < 0 || zk_witgen_hash(&g, k.witgen_hash, &d) < 0) {
            fprintf(stderr, "zkslot key add: %s\n", d.msg);
            goto out_key;
        }
        k.witgen_kind = g.kind;
        snprintf(k.witgen, sizeof k.witgen, "%s", g.spec);
    }
    /* before the open: the ledger is the daemons' alone, and so is this rule */
    if (lcli_resolve(c, 1) < 0 || (gen && !may_add_generator(c)) || lcli_open(c, 1) < 0)
        goto out_key;
    int r = zk_ledger_key_get(c->l, name, &old, &d);
    if (r == 0) {
        fprintf(stderr, "zkslot key add: a key named '%s' is already registered (%s)\n", name,
                old.path);
        goto out;
    }
    if (r != -ENOENT) {
        fprintf(stderr, "zkslot key add: %s\n", d.msg);
        goto out;
    }
    if (hash_file(abs, k.hash, &k.file_size) < 0)
        goto out;
    if (zk_keyfile_stat(abs, &k) < 0) {
        fprintf(stderr, "zkslot key add: %s: %s\n", abs, strerror(errno));
        goto out;
    }
    r = zk_ledger_key_add(c->l, &k, &d);
    if (r == -EEXIST) {
        fprintf(stderr, "zkslot key add: a key named '%s' is already registered\n", name);
        goto out;
    }
    if (r < 0) {
        fprintf(stderr, "zkslot key add: %s\n", d.msg);
        goto out;
    }
    printf("key %s: %s %s, nVars %llu, nPublic %llu, domain %llu, %llu bytes, xxh3-128 %s\n",
           k.name, zk_key_format_name(k.format), k.curve, (unsigned long long)k.n_vars,
           (unsigned long long)k.n_public, (unsigned long long)k.domain_size,
           (unsigned long long)k.file_size, k.hash);
    if (bp)
        key_bp_store(c->cfg.pool, &k, bp);
    if (k.witgen_kind) {
        struct zk_witgen g = { .kind = k.witgen_kind };
        printf("key %s: witness generator (%s) %s, xxh3-128 %s\n", k.name,
               zk_witgen_kind_name(k.witgen_kind), k.witgen, k.witgen_hash);
        snprintf(g.spec, sizeof g.spec, "%s", k.witgen);
        if (zk_witgen_allowed(&g, c->cfg.synthd_generators, &d) < 0)
            fprintf(stderr, "zkslot key add: note: this machine's synthd does not run it (%s); "
                    "its jobs wait for a machine whose [synthd] generators allows it\n", d.msg);
    }
    rc = 0;
out:
    lcli_close(c);
out_key:
    zk_bp_key_close(bp);
    return rc;
}

/* ---- key add --filecoin DIR: Filecoin's circuits by proof type ------------ */

struct fil_add {
    struct lcli *c;
    const char *prog;
    int prio;            /* --priority, or < 0: by kind (fil_kind_priority) */
    int added, had, failed;
};

/* One circuit of the cache: registered as fil-KIND-SIZE with the
 * synthesizer as its generator, unless a key of that name is there. */
static int fil_add_one(void *ctx, const struct fil_circuit *fc)
{
    struct fil_add *fa = ctx;
    struct zk_ledger_key old;
    struct zk_diag d = { "" };
    char name[64], cmd[sizeof old.witgen];
    if (fil_key_name(fc->kind, fc->sector_size, name, sizeof name) < 0) {
        fprintf(stderr, "zkslot key add: --filecoin: %s sector size %llu: not a whole KiB\n",
                fc->kind, (unsigned long long)fc->sector_size);
        fa->failed++;
        return 0;
    }
    if (lcli_open(fa->c, 1) < 0)
        return -1;
    int r = zk_ledger_key_get(fa->c->l, name, &old, &d);
    lcli_close(fa->c);
    if (r == 0) {
        printf("key %s: registered already (%s): left as it is\n", name, old.path);
        fa->had++;
        return 0;
    }
    /* the synthesizer writes the partition's .bpa from its part file, and
     * refuses a part of another kind (`--expect`) */
    if ((size_t)snprintf(cmd, sizeof cmd, "'%s' synth --expect %s --input {input} --out {output}",
                         fa->prog, fc->kind) >= sizeof cmd) {
        fprintf(stderr, "zkslot key add: --filecoin: %s: path too long\n", fa->prog);
        return -1;
    }
    if (key_add(fa->c, name, fc->params, fc->vk, cmd, 1,
                fa->prio >= 0 ? fa->prio : fil_kind_priority(fc->kind)) != 0)
        fa->failed++;
    else
        fa->added++;
    return 0;
}

/* `zkslot key add --filecoin DIR [--synth PATH] [--sector-size N]`: every
 * circuit whose parameter file (and .vk) DIR holds, as the synthesizer
 * lists them.  0 when each is registered (now or before), else 2. */
static int key_add_filecoin(struct lcli *c, const char *dir, const char *synth,
                            uint64_t sector_size, int prio)
{
    char prog[4096], msg[FIL_MSG_MAX];
    struct fil_add fa = { c, prog, prio, 0, 0, 0 };
    /* every key has a generator: the rule before anything is opened */
    if (lcli_resolve(c, 1) < 0 || !may_add_generator(c))
        return 2;
    if (fil_synth_find(synth, prog, sizeof prog, msg, sizeof msg) < 0) {
        fprintf(stderr, "zkslot key add: --filecoin: %s\n", msg);
        return 2;
    }
    int r = fil_keys(prog, dir, sector_size, fil_add_one, &fa, msg, sizeof msg);
    if (r == -1)   /* the ledger did not open: said */
        return 2;
    if (r != 0) {
        fprintf(stderr, "zkslot key add: --filecoin %s: %s\n", dir, msg);
        return 2;
    }
    printf("filecoin: %d key%s registered, %d there already, %d refused (%s)\n", fa.added,
           fa.added == 1 ? "" : "s", fa.had, fa.failed, dir);
    return fa.failed == 0 ? 0 : 2;
}

static int print_key(void *ctx, const struct zk_ledger_key *k)
{
    json_t *arr = ctx;
    if (arr) {
        json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:s}",
                              "id", (json_int_t)k->id, "name", k->name, "path", k->path,
                              "curve", k->curve, "hash", k->hash, "file_size",
                              (json_int_t)k->file_size, "n_vars", (json_int_t)k->n_vars,
                              "n_public", (json_int_t)k->n_public, "domain_size",
                              (json_int_t)k->domain_size, "added_ns", (json_int_t)k->added_ns,
                              "witgen_kind", zk_witgen_kind_name(k->witgen_kind), "witgen",
                              k->witgen, "witgen_hash", k->witgen_hash);
        if (o && (json_object_set_new(o, "priority", json_string(zk_priority_name(k->priority))) ||
                  json_object_set_new(o, "format", json_string(zk_key_format_name(k->format)))))
            o = (json_decref(o), NULL);
        return o ? json_array_append_new(arr, o) : -ENOMEM;
    }
    printf("%-20s %-8s %-10s %10llu %8llu %10llu %12llu %s %-6s %s%s%s\n", k->name, k->curve,
           zk_key_format_name(k->format), (unsigned long long)k->n_vars, (unsigned long long)k->n_public,
           (unsigned long long)k->domain_size, (unsigned long long)k->file_size, k->hash,
           k->witgen_kind ? zk_witgen_kind_name(k->witgen_kind) : "-", k->path,
           k->witgen_kind ? " " : "", k->witgen);
    return 0;
}

static int key_list(struct lcli *c, int json)
{
    struct zk_diag d = { "" };
    json_t *arr = json ? json_array() : NULL;
    int rc = 2;
    if (lcli_open(c, 0) < 0)
        goto out;
    if (!json)
        printf("%-20s %-8s %-10s %10s %8s %10s %12s %-32s %-6s %s\n", "NAME", "CURVE", "FORMAT",
               "NVARS", "NPUBLIC", "DOMAIN", "BYTES", "XXH3-128", "WITGEN", "PATH [GENERATOR]");
    int r = zk_ledger_key_list(c->l, print_key, arr, &d);
    if (r < 0) {
        fprintf(stderr, "zkslot key list: %s\n", r == -ENOMEM ? "out of memory" : d.msg);
        goto out;
    }
    if (json) {
        char *s = json_dumps(arr, JSON_INDENT(2));
        if (!s)
            goto out;
        printf("%s\n", s);
        free(s);
    }
    rc = 0;
out:
    json_decref(arr);
    lcli_close(c);
    return rc;
}

/* `key show NAME`: the key as `key list --json` shows it, alone.  0, 1
 * (no such key) or 2. */
static int key_show(struct lcli *c, const char *name)
{
    struct zk_ledger_key k;
    struct zk_diag d = { "" };
    json_t *arr = json_array();
    int rc = 2;
    if (!arr || lcli_open(c, 0) < 0)
        goto out;
    int r = zk_ledger_key_get(c->l, name, &k, &d);
    if (r == -ENOENT) {
        fprintf(stderr, "zkslot key show: no key named '%s' (zkslot key list)\n", name);
        rc = 1;
    } else if (r < 0) {
        fprintf(stderr, "zkslot key show: %s\n", d.msg);
    } else if (print_key(arr, &k) == 0) {
        if (k.format == ZK_KEY_BELLPERSON)
            key_bp_show(c->cfg.pool, &k, json_array_get(arr, 0));
        char *s = json_dumps(json_array_get(arr, 0), JSON_INDENT(2));
        if (s)
            printf("%s\n", s), rc = 0;
        free(s);
    }
out:
    json_decref(arr);
    lcli_close(c);
    return rc;
}

/* The registered key `name` and the path of its store beside the pool
 * (the ledger opened).  0, or -1 with the message printed. */
static int key_store_of(struct lcli *c, const char *name, struct zk_ledger_key *k, char *path,
                        size_t n)
{
    struct zk_diag d = { "" };
    if (lcli_open(c, 0) < 0)
        return -1;
    int r = zk_ledger_key_get(c->l, name, k, &d);
    if (r == -ENOENT) {
        fprintf(stderr, "zkslot %s: no key named '%s' (zkslot key list)\n", c->cmd, name);
        return -1;
    }
    if (r < 0 || (r = zk_keystore_path(c->cfg.pool, k->hash, path, n)) < 0) {
        fprintf(stderr, "zkslot %s: %s\n", c->cmd, d.msg[0] ? d.msg : zk_strerror(r));
        return -1;
    }
    return 0;
}

/* MemAvailable of /proc/meminfo in bytes; 0 when unknown. */
static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    }
    if (f)
        fclose(f);
    return (uint64_t)kb << 10;
}

/* Building the store holds the points and tables twice (this process's
 * copy, then the store): refused, with how much is missing, when that is
 * more than MemAvailable.  0, or -ENOMEM with d set. */
static int fits(const struct zk_zkey *z, unsigned tables, unsigned factor, struct zk_diag *d)
{
    char a[32], b[32], c[32], e[32], m[32];
    uint64_t points = 0, avail = mem_available();
    static const enum zk_zkey_section secs[] = { ZK_ZKEY_SEC_IC, ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1,
                                                 ZK_ZKEY_SEC_B2, ZK_ZKEY_SEC_C, ZK_ZKEY_SEC_H };
    for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
        size_t pb = 0;
        points += zk_zkey_section_points(z, secs[i], &pb) * pb;
    }
    uint64_t tab = zk_groth16_tables_size(&z->hdr, (enum zk_groth16_precompute)tables, factor);
    uint64_t need = 2 * (points + tab);
    if (!avail || need <= avail)
        return 0;
    return zk_diag_set(d, z->bf.name, -ENOMEM,
                       "its store (points %s + tables %s, held twice while it is built) needs "
                       "%s, MemAvailable is %s: %s missing", zk_size_human(points, a, sizeof a),
                       zk_size_human(tab, b, sizeof b), zk_size_human(need, c, sizeof c),
                       zk_size_human(avail, e, sizeof e),
                       zk_size_human(need - avail, m, sizeof m));
}

/* Reads the key's points from its file, builds the tables `tables`
 * selects (factor multiples) and its store at path. */
static int build_store(const struct zk_ledger_key *k, const char *path, unsigned tables,
                       unsigned factor, struct zk_diag *d)
{
    struct zk_zkey z = { 0 };
    struct zk_groth16_key *gk = NULL;
    struct zk_groth16_load_opts o = { .what = ZK_G16_LOAD_POINTS };
    int r = zk_zkey_open(&z, k->path, d);
    if (r < 0)
        return r;
    if ((r = fits(&z, tables, factor, d)) == 0)
        r = zk_groth16_key_load_opts(&z, &o, d, &gk);
    zk_zkey_done(&z);
    if (r < 0)
        return r;
    if (tables != ZK_KEYSTORE_TABLES_NONE &&
        (r = zk_groth16_key_precompute(gk, (enum zk_groth16_precompute)tables, factor, 0)) < 0)
        zk_diag_set(d, k->path, r, "building the MSM tables (%s, factor %u): %s",
                    zk_keystore_tables_name(tables), factor, zk_strerror(r));
    if (r == 0)
        r = zk_keystore_create(path, k->hash, gk, tables, d);
    zk_groth16_key_free(gk);
    return r;
}

static int key_load(struct lcli *c, const char *name, unsigned tables, unsigned factor)
{
    struct zk_ledger_key k;
    struct zk_keystore_info in;
    struct zk_diag d = { "" };
    char path[4096], sz[32];
    struct timespec t0, t1;
    int rc = 2, r;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (key_store_of(c, name, &k, path, sizeof path) < 0)
        goto out;
    if (k.format == ZK_KEY_BELLPERSON && tables != ZK_KEYSTORE_TABLES_NONE) {
        fprintf(stderr, "zkslot key load: key %s is a bellperson key: its store holds points "
                "only (--precompute none)\n", name);
        goto out;
    }
    if ((r = zk_keyfile_check(&k, NULL, &d)) < 0 ||
        ((r = zk_keystore_stat(path, k.hash, &in, &d)) < 0 && r != -ENOENT)) {
        fprintf(stderr, "zkslot key load: %s\n", d.msg);
        goto out;
    }
    if (r == 0 && (in.tables != tables || (tables && in.table_factor != factor))) {
        fprintf(stderr, "zkslot key load: key %s is resident with tables %s (factor %u) in %s: "
                "unload it first (zkslot key unload %s) to load it with tables %s\n", name,
                zk_keystore_tables_name(in.tables), in.table_factor, path, name,
                zk_keystore_tables_name(tables));
        goto out;
    }
    if (r == 0) {
        printf("key %s: already resident in %s (%s, tables %s)\n", name, path,
               zk_size_human(in.file_size, sz, sizeof sz), zk_keystore_tables_name(in.tables));
        rc = 0;
        goto out;
    }
    if ((k.format == ZK_KEY_BELLPERSON ? key_bp_build(&k, path, &d)
                                       : build_store(&k, path, tables, factor, &d)) < 0 ||
        zk_keystore_stat(path, k.hash, &in, &d) < 0) {
        fprintf(stderr, "zkslot key load: %s\n", d.msg);
        goto out;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("key %s: loaded into %s (%s, tables %s, factor %u) in %.2f s\n", name, path,
           zk_size_human(in.file_size, sz, sizeof sz), zk_keystore_tables_name(in.tables),
           in.table_factor, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    rc = 0;
out:
    lcli_close(c);
    return rc;
}

static int key_unload(struct lcli *c, const char *name)
{
    struct zk_ledger_key k;
    struct zk_keystore_info in;
    struct zk_diag d = { "" };
    char path[4096], sz[32] = "?";
    int rc = 2;
    if (key_store_of(c, name, &k, path, sizeof path) < 0)
        goto out;
    if (zk_keystore_stat(path, NULL, &in, &d) == 0)
        zk_size_human(in.file_size, sz, sizeof sz);
    if (zk_keystore_remove(path, &d) < 0) {
        fprintf(stderr, "zkslot key unload: key %s is not resident: %s\n", name, d.msg);
        goto out;
    }
    printf("key %s: unloaded %s (%s, freed once no process maps it)\n", name, path, sz);
    rc = 0;
out:
    lcli_close(c);
    return rc;
}

/* `key status`: the hashes of the registered keys seen so far. */
struct status_ctx {
    const char *pool;
    char (*hash)[33];
    size_t n;
};

/* One row: NAME, RESIDENT (yes, no, refused), SIZE, TABLES, STORE [why refused]. */
static void status_row(const char *name, const char *path, const char *hash)
{
    struct zk_keystore_info in;
    struct zk_diag d = { "" };
    char sz[32];
    int r = zk_keystore_stat(path, hash, &in, &d);
    if (r == -ENOENT)
        printf("%-20s %-8s %10s %-6s %s\n", name, "no", "-", "-", "-");
    else if (r < 0)
        printf("%-20s %-8s %10s %-6s %s\n", name, "refused", "-", "-", d.msg);
    else
        printf("%-20s %-8s %10s %-6s %s\n", name, "yes", zk_size_human(in.file_size, sz, sizeof sz),
               zk_keystore_tables_name(in.tables), path);
}

static int status_key(void *ctx, const struct zk_ledger_key *k)
{
    struct status_ctx *sc = ctx;
    char path[4096];
    void *v = realloc(sc->hash, (sc->n + 1) * sizeof *sc->hash);
    if (!v)
        return -ENOMEM;
    sc->hash = v;
    memcpy(sc->hash[sc->n++], k->hash, 33);
    if (zk_keystore_path(sc->pool, k->hash, path, sizeof path) == 0)
        status_row(k->name, path, k->hash);
    return 0;
}

static int status_store(void *ctx, const char *path, const char *hash)
{
    struct status_ctx *sc = ctx;
    for (size_t i = 0; i < sc->n; i++) {
        if (!strcmp(sc->hash[i], hash))
            return 0;
    }
    status_row("(unregistered)", path, hash);
    return 0;
}

static int key_status(struct lcli *c)
{
    struct zk_diag d = { "" };
    struct status_ctx sc = { 0 };
    int rc = 2;
    if (lcli_open(c, 0) < 0)
        goto out;
    sc.pool = c->cfg.pool;
    printf("%-20s %-8s %10s %-6s %s\n", "NAME", "RESIDENT", "SIZE", "TABLES", "STORE");
    int r = zk_ledger_key_list(c->l, status_key, &sc, &d);
    if (r < 0) {
        fprintf(stderr, "zkslot key status: %s\n", r == -ENOMEM ? "out of memory" : d.msg);
        goto out;
    }
    zk_keystore_list(sc.pool, status_store, &sc);
    rc = 0;
out:
    free(sc.hash);
    lcli_close(c);
    return rc;
}

static int parse_tables(const char *s, unsigned *ret)
{
    for (unsigned t = ZK_KEYSTORE_TABLES_NONE; t <= ZK_KEYSTORE_TABLES_ALL; t++) {
        if (!strcmp(s, zk_keystore_tables_name(t))) {
            *ret = t;
            return 0;
        }
    }
    fprintf(stderr, "zkslot key load: --precompute: expected none, h or all, got '%s'\n", s);
    return -1;
}

enum { OPT_FIL_DIR = 0x100, OPT_FIL_SYNTH, OPT_FIL_SIZE };   /* past the letters */

static void usage(void)
{
    fprintf(stderr,
            "usage: zkslot key add NAME FILE.zkey [--witness-gen PATH | --witness-cmd CMD]\n"
            "       zkslot key add NAME FILE.params [--vk FILE.vk] [--witness-cmd CMD]\n"
            "                                                       (a bellperson key)\n"
            "       zkslot key add --filecoin DIR [--synth PATH] [--sector-size BYTES]\n"
            "                      (Filecoin's circuits whose parameters DIR holds, as\n"
            "                      fil-KIND-SIZE: fil-porep-32GiB, fil-window-2KiB...)\n"
            "                      [--priority low|normal|high|critical]\n"
            "                      [--config FILE] [--state-dir DIR] [--ledger URL]\n"
            "       zkslot key list [--json] [--config FILE] [--state-dir DIR] [--ledger URL]\n"
            "       zkslot key show NAME                            (its JSON; with --server\n"
            "                                                        also its vk.json)\n"
            "       zkslot key load NAME [--precompute none|h|all] [--table-factor F]\n"
            "                                                       (its store beside the pool)\n"
            "       zkslot key status                               (which keys are resident)\n"
            "       zkslot key unload NAME                          (remove its store)\n"
            "  --witness-gen PATH  circom's C++ witness generator (built from `circom --c`),\n"
            "                      or its --wasm output (NAME.wasm or the NAME_js/ folder;\n"
            "                      needs Node.js): jobs of this key may then be inputs\n"
            "  --witness-cmd CMD   any other generator: 'PROGRAM ... {input} ... {output}'\n"
            "  --priority CLASS    the class of its jobs when submit gives none (normal)\n");
}

int cmd_key(int argc, char **argv)
{
    static const struct option opts[] = { LCLI_OPTIONS, { "json", no_argument, 0, 'j' },
                                          { "witness-gen", required_argument, 0, 'g' },
                                          { "witness-cmd", required_argument, 0, 'x' },
                                          { "precompute", required_argument, 0, 'p' },
                                          { "table-factor", required_argument, 0, 'f' },
                                          { "priority", required_argument, 0, 'P' },
                                          { "vk", required_argument, 0, 'v' },
                                          { "filecoin", required_argument, 0, OPT_FIL_DIR },
                                          { "synth", required_argument, 0, OPT_FIL_SYNTH },
                                          { "sector-size", required_argument, 0, OPT_FIL_SIZE },
                                          { "help", no_argument, 0, 'h' },
                                          { 0, 0, 0, 0 } };
    const char *gen = NULL, *vk = NULL, *fil_dir = NULL, *fil_synth = NULL;
    uint64_t fil_size = 0;
    int gen_is_cmd = 0, prio = ZK_PRIO_DEFAULT, prio_given = 0;
    struct lcli c = { 0 };
    int json = 0, o;
    if (argc < 2) {
        usage();
        return 2;
    }
    const char *sub = argv[1];
    static const char *const cmds[][2] = { { "add", "key add" }, { "list", "key list" },
                                           { "show", "key show" },
                                           { "load", "key load" }, { "status", "key status" },
                                           { "unload", "key unload" } };
    unsigned tables = ZK_KEYSTORE_TABLES_NONE, factor = ZK_G16_TABLE_FACTOR_DEFAULT;
    c.cmd = "key list";
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (!strcmp(sub, cmds[i][0]))
            c.cmd = cmds[i][1];
    }
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
        if (lcli_option(&c, o, optarg))
            continue;
        if (o == 'j' && !strcmp(sub, "list")) {
            json = 1;
            continue;
        }
        if ((o == 'g' || o == 'x') && !strcmp(sub, "add")) {
            if (gen) {
                fprintf(stderr, "zkslot key add: one of --witness-gen and --witness-cmd\n");
                return 2;
            }
            gen = optarg;
            gen_is_cmd = o == 'x';
            continue;
        }
        if (o == 'v' && !strcmp(sub, "add")) {
            vk = optarg;
            continue;
        }
        if ((o == OPT_FIL_DIR || o == OPT_FIL_SYNTH) && !strcmp(sub, "add")) {
            *(o == OPT_FIL_DIR ? &fil_dir : &fil_synth) = optarg;
            continue;
        }
        if (o == OPT_FIL_SIZE && !strcmp(sub, "add")) {
            char *end;
            fil_size = strtoull(optarg, &end, 10);
            if (*end || !*optarg || !fil_size) {
                fprintf(stderr, "zkslot key add: --sector-size: '%s' is not a size in bytes\n",
                        optarg);
                return 2;
            }
            continue;
        }
        if (o == 'P' && !strcmp(sub, "add")) {
            if ((prio = zk_priority_parse(optarg)) < 0) {
                fprintf(stderr, "zkslot key add: --priority: '%s' is not low, normal, high or "
                        "critical\n", optarg);
                return 2;
            }
            prio_given = 1;
            continue;
        }
        if (o == 'f' && !strcmp(sub, "load")) {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end || !*optarg || v < 1 || v > ZK_MSM_MAX_FACTOR) {
                fprintf(stderr, "zkslot key load: --table-factor: expected 1 to %d, got '%s'\n",
                        ZK_MSM_MAX_FACTOR, optarg);
                return 2;
            }
            factor = (unsigned)v;
            continue;
        }
        if (o == 'p' && !strcmp(sub, "load")) {
            if (parse_tables(optarg, &tables) < 0)
                return 2;
            continue;
        }
        if (o == 'h') {
            usage();
            return 0;
        }
        fprintf(stderr, "zkslot %s: bad option '%s'\n", c.cmd, argv[optind]);
        usage();
        return 2;
    }
    int npos = argc - 1 - optind;
    char **pos = argv + 1 + optind;
    /* not the ledger's owner: list and show through apid's socket */
    if (((!strcmp(sub, "list") && npos == 0) || (!strcmp(sub, "show") && npos == 1)) &&
        local_route(&c) < 0)
        return 2;
    if (remote_server() && !strcmp(sub, "list") && npos == 0)   /* zkslot --server URL */
        return remote_keys(NULL, json);
    if (!strcmp(sub, "show") && npos == 1)
        return remote_server() ? remote_keys(pos[0], 1) : key_show(&c, pos[0]);
    if (!strcmp(sub, "add") && fil_dir && npos == 0 && !gen && !vk)
        return key_add_filecoin(&c, fil_dir, fil_synth, fil_size, prio_given ? prio : -1);
    if (!strcmp(sub, "add") && npos == 2 && !fil_dir && !fil_synth && !fil_size)
        return key_add(&c, pos[0], pos[1], vk, gen, gen_is_cmd, prio);
    if (!strcmp(sub, "list") && npos == 0)
        return key_list(&c, json);
    if (!strcmp(sub, "load") && npos == 1)
        return key_load(&c, pos[0], tables, factor);
    if (!strcmp(sub, "status") && npos == 0)
        return key_status(&c);
    if (!strcmp(sub, "unload") && npos == 1)
        return key_unload(&c, pos[0]);
    usage();
    return 2;
}
