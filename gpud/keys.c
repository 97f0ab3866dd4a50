/*
 * keys.c -- gpud's side of the key cache (daemon/keycache.h): what a key's
 * load makes (its points for the backend, from this machine's file of the
 * key (daemon/keylocal.h: the registered path, else [keys] dir, the file
 * synthd's claims matched) checked against the ledger's record and the
 * file's content hash, and its verification key for
 * self-verify; the points come from the key's resident store, built by
 * the first daemon that loads the key with the MSM tables of [keys]
 * precompute and table_factor: docs/keystore.md), and the keys
 * loaded at start ([gpud] keys, default all
 * registered; a key registered later is loaded when its first partition
 * arrives).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/keylocal.h"
#include "gpud.h"
#include "zk/error.h"
#include "zk/keystore.h"
#include "zk/zkey.h"


static void load_progress(void *ctx, const char *part, uint64_t done, uint64_t total)
{
    const char *name = ctx;
    zkd_log(ZKD_INFO, "key %s: %s loaded (%llu of %llu MiB, %.0f%%)", name, part,
            (unsigned long long)(done >> 20), (unsigned long long)(total >> 20),
            total ? 100.0 * (double)done / (double)total : 100.0);
    /* loading a big key may outlast TimeoutStartSec: ask for more time */
    zkd_notify("EXTEND_TIMEOUT_USEC=120000000\nSTATUS=loading key %s: %.0f%%", name,
               total ? 100.0 * (double)done / (double)total : 100.0);
}

/* The key's points (and whatever else the backend needs) read from its
 * registered file, checked against the ledger's record. */
static int key_from_file(const struct zk_ledger_key *lk, struct zk_groth16_key **ret,
                         struct zk_diag *diag)
{
    struct zk_zkey z;
    struct zk_groth16_load_opts o = { gpud.backend->key_parts, load_progress, (void *)lk->name, 0 };
    int r;
    memset(&z, 0, sizeof z);
    if ((r = zk_zkey_open(&z, lk->path, diag)))
        return r;
    if (strcmp(zk_curve_name(z.hdr.curve), lk->curve) || z.hdr.n_vars != lk->n_vars ||
        z.hdr.domain_size != lk->domain_size || z.hdr.n_public != lk->n_public) {
        zk_zkey_done(&z);   /* replaced between the check and the open */
        return zk_diag_set(diag, lk->path, ZK_ELENGTH,
                           "key %s: the file changed while it was being loaded", lk->name);
    }
    r = zk_groth16_key_load_opts(&z, &o, diag, ret);
    zk_zkey_done(&z);
    return r;
}

/* A key over the store at path (0), or the store's error with sd set. */
static int key_from_store(const char *path, const char *hash, unsigned flags,
                          struct zk_groth16_key **ret, struct zk_diag *sd)
{
    zk_keystore *s = NULL;
    int r = zk_keystore_open(path, hash, flags, &s, sd);
    if (!r && (r = zk_keystore_key(s, NULL, ret, sd)))
        zk_keystore_close(s);
    return r;
}

/*
 * The tables of [keys] precompute (factor [keys] table_factor) built into
 * k for the store about to be made from it: what the store is to hold.  A
 * build that fails is logged and the store made without tables.
 */
static unsigned key_tables(const struct zk_ledger_key *lk, struct zk_groth16_key *k)
{
    unsigned tables = (unsigned)gpud.cfg.keys_precompute;
    int r;
    if (tables == ZK_KEYSTORE_TABLES_NONE)
        return tables;
    zkd_log(ZKD_INFO, "key %s: building its MSM tables (%s, factor %u) for its store", lk->name,
            zk_keystore_tables_name(tables), gpud.cfg.keys_table_factor);
    r = zk_groth16_key_precompute(k, (enum zk_groth16_precompute)tables,
                                  gpud.cfg.keys_table_factor, gpud.nthreads);
    if (r == 0)
        return tables;
    zkd_log(ZKD_WARN, "key %s: MSM tables (%s, factor %u): %s: its store has none", lk->name,
            zk_keystore_tables_name(tables), gpud.cfg.keys_table_factor, zk_strerror(r));
    return ZK_KEYSTORE_TABLES_NONE;
}

/*
 * The key with its points: over its resident store when there is one
 * (docs/keystore.md), else from its file; a daemon that finds no store
 * builds it and then uses it (a store refused, or one that cannot be
 * built, is logged and the file's key used).  What was done into how.
 */
static int key_points(const struct zk_ledger_key *lk, struct zk_groth16_key **ret, char *how,
                      size_t hn, struct zk_diag *diag)
{
    char path[4096];
    struct zk_diag sd = { "" };
    struct zk_groth16_key *sk = NULL;
    int r, sr = ZK_EBADPARAMS;
    if (gpud.backend->key_parts == ZK_G16_LOAD_POINTS &&
        !(sr = zk_keystore_path(gpud.cfg.pool, lk->hash, path, sizeof path)) &&
        !(sr = key_from_store(path, lk->hash, ZK_KEYSTORE_POPULATE, ret, &sd))) {
        snprintf(how, hn, "from its store %s", path);
        return 0;
    }
    if (sr != -ENOENT && sd.msg[0])
        zkd_log(ZKD_WARN, "key %s: %s: loading it from its file", lk->name, sd.msg);
    if ((r = key_from_file(lk, ret, diag)))
        return r;
    snprintf(how, hn, "from its file");
    if (sr != -ENOENT)
        return 0;
    r = zk_keystore_create(path, lk->hash, *ret, key_tables(lk, *ret), &sd);
    if ((r && r != -EEXIST) || key_from_store(path, lk->hash, 0, &sk, &sd)) {
        zkd_log(ZKD_WARN, "key %s: no key store: %s", lk->name, sd.msg);
        return 0;
    }
    zk_groth16_key_free(*ret);
    *ret = sk;
    snprintf(how, hn, "from its file, store %s %s", path, r ? "found" : "built");
    return 0;
}

/* The keycache's load: the key's points for the backend, checked against
 * the ledger's record of it, and its verification key. */
static int key_load(void *ctx, struct zkd_key *e, struct zk_diag *diag)
{
    const struct zk_ledger_key *lk = &e->lk;
    struct zk_groth16_key *k = NULL;
    struct key_ext *x;
    char how[4200];
    double t0 = zkd_now();
    int r;

    (void)ctx;
    if (lk->format == ZK_KEY_BELLPERSON)
        return gpud_bp_key_load(e, diag);
    /* this machine's file of the key, the one synthd's claims matched */
    if ((r = zkd_key_local_check(gpud.cfg.keys_dir, &e->lk, diag)))
        return r;
    zkd_log(ZKD_INFO, "key %s: loading %s (%llu MiB)", lk->name, lk->path,
            (unsigned long long)(lk->file_size >> 20));
    if ((r = key_points(lk, &k, how, sizeof how, diag)))
        return r;
    if (!(x = calloc(1, sizeof *x))) {
        zk_groth16_key_free(k);
        return zk_diag_set(diag, lk->path, -ENOMEM, "out of memory");
    }
    if ((r = zk_groth16_vk_from_key(k, &x->vk))) {
        free(x);
        zk_groth16_key_free(k);
        return zk_diag_set(diag, lk->path, r, "verification key: %s", zk_strerror(r));
    }
    if (gpud.backend->key_loaded && (r = gpud.backend->key_loaded(gpud.backend, k, diag))) {
        char why[sizeof diag->msg];
        snprintf(why, sizeof why, "%s", diag ? diag->msg : "");
        zk_diag_set(diag, lk->name, r, "%s", why);   /* the backend knows no key name */
        zk_groth16_vk_done(&x->vk);
        free(x);
        zk_groth16_key_free(k);
        return r;
    }
    e->k = k;
    e->ext = x;
    zkd_log(ZKD_INFO, "key %s: ready in %.3f s (%s, 2^%u domain, %llu variables; %s)", lk->name,
            zkd_now() - t0, zk_curve_name(zk_groth16_key_header(k)->curve),
            (unsigned)__builtin_ctzll(lk->domain_size), (unsigned long long)lk->n_vars, how);
    return 0;
}

static void key_free(void *ctx, struct zkd_key *e)
{
    struct key_ext *x = e->ext;
    (void)ctx;
    if (x && x->bp)
        zk_bp_key_close(x->bp);
    else if (x)
        zk_groth16_vk_done(&x->vk);
    free(x);
    zk_groth16_key_free(e->k);
}

struct preload_ctx {
    int err;
    unsigned loaded;
    struct zk_diag diag;
};

static int preload_one(void *ctx, const struct zk_ledger_key *lk)
{
    struct preload_ctx *pc = ctx;
    struct zkd_key *e;
    if (!zkd_key_served(gpud.cfg.gpud_keys, lk->name) || atomic_load(&gpud.stop_flag))
        return 0;
    int r = zkd_keycache_load(&gpud.keys, lk, &e, &pc->diag);
    if (r)
        zkd_log(ZKD_ERR, "key %s: %s (its partitions will fail)", lk->name, pc->diag.msg);
    else
        pc->loaded++;
    return 0;
}

void gpud_keys_init(void)
{
    zkd_keycache_init(&gpud.keys, key_load, key_free, NULL);
}

int gpud_keys_preload(zk_ledger *l, struct zk_diag *diag)
{
    struct preload_ctx pc;
    memset(&pc, 0, sizeof pc);
    int r = zk_ledger_key_list(l, preload_one, &pc, diag);
    if (r)
        return r < 0 ? r : -1;   /* ZK_ELEDGER: the database, not the keys */
    return (int)pc.loaded;
}
