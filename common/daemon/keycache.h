/*
 * keycache.h -- the keys a daemon has loaded, by ledger id (both daemons).
 *
 * A key is loaded on first use, under the cache's lock, so two threads
 * never load the same key twice; what to load is the daemon's (synthd:
 * coefficients; gpud: points, verification key, the backend's copy),
 * through the load callback.  Entries are allocated one by one and never
 * move or go away until zkd_keycache_done: a thread keeps the pointer it
 * was given after the lock is released, while other keys are loaded (a
 * gpud finalizing a partition of one key while the starter loads the next
 * one).  The entry's fields are written once, before it is published, and
 * only read afterwards; a daemon's own mutable per-key state needs its own
 * lock (synthd's generator check has one).
 */
#ifndef ZK_DAEMON_KEYCACHE_H
#define ZK_DAEMON_KEYCACHE_H

#include <pthread.h>
#include <stdint.h>

#include "zk/groth16.h"
#include "zk/ledger.h"

struct zkd_key {
    int64_t id;
    struct zk_ledger_key lk;          /* the ledger's row when it was loaded */
    struct zk_groth16_key *k;         /* set by the load callback */
    void *ext;                        /* the daemon's own state for the key */
};

/* Fills e->k (and e->ext) for e->lk; 0 or an error with diag (e is then
 * discarded: the callback frees what it made). */
typedef int (*zkd_key_load_fn)(void *ctx, struct zkd_key *e, struct zk_diag *diag);
/* Frees what load made (at zkd_keycache_done). */
typedef void (*zkd_key_free_fn)(void *ctx, struct zkd_key *e);

struct zkd_keycache {
    pthread_mutex_t lock;
    struct zkd_key **v;               /* n entries, each its own allocation */
    size_t n, cap;
    zkd_key_load_fn load;
    zkd_key_free_fn free;
    void *ctx;
};

void zkd_keycache_init(struct zkd_keycache *c, zkd_key_load_fn load, zkd_key_free_fn free,
                       void *ctx);
/* The entry for key id: cached, or its ledger row read with l and loaded. */
int zkd_keycache_get(struct zkd_keycache *c, zk_ledger *l, int64_t id, struct zkd_key **ret,
                     struct zk_diag *diag);
/* The entry for ledger row lk: cached, or loaded (preloading at start). */
int zkd_keycache_load(struct zkd_keycache *c, const struct zk_ledger_key *lk,
                      struct zkd_key **ret, struct zk_diag *diag);
/* Entries loaded so far. */
size_t zkd_keycache_count(struct zkd_keycache *c);
/* Frees every entry (no other thread may use the cache any more). */
void zkd_keycache_done(struct zkd_keycache *c);

#endif /* ZK_DAEMON_KEYCACHE_H */
