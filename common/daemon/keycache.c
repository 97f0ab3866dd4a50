/*
 * keycache.c -- the daemons' key cache (keycache.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/keycache.h"
#include "zk/error.h"

void zkd_keycache_init(struct zkd_keycache *c, zkd_key_load_fn load, zkd_key_free_fn free,
                       void *ctx)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    c->load = load;
    c->free = free;
    c->ctx = ctx;
}

/* Caller holds c->lock. */
static struct zkd_key *find(struct zkd_keycache *c, int64_t id)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i]->id == id)
            return c->v[i];
    return NULL;
}

/* Loads lk into a new entry and publishes it.  Caller holds c->lock. */
static int load_locked(struct zkd_keycache *c, const struct zk_ledger_key *lk,
                       struct zkd_key **ret, struct zk_diag *diag)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        struct zkd_key **v = realloc(c->v, cap * sizeof *v);   /* the pointers move, */
        if (!v)                                                 /* never the entries */
            return zk_diag_set(diag, lk->name, -ENOMEM, "out of memory");
        c->v = v;
        c->cap = cap;
    }
    struct zkd_key *e = calloc(1, sizeof *e);
    if (!e)
        return zk_diag_set(diag, lk->name, -ENOMEM, "out of memory");
    e->id = lk->id;
    e->lk = *lk;
    int r = c->load(c->ctx, e, diag);
    if (r) {
        free(e);
        return r;
    }
    c->v[c->n++] = e;
    *ret = e;
    return 0;
}

int zkd_keycache_get(struct zkd_keycache *c, zk_ledger *l, int64_t id, struct zkd_key **ret,
                     struct zk_diag *diag)
{
    struct zk_ledger_key lk;
    int r = 0;
    pthread_mutex_lock(&c->lock);
    struct zkd_key *e = find(c, id);
    if (e)
        *ret = e;
    else if (!(r = zk_ledger_key_get_id(l, id, &lk, diag)))
        r = load_locked(c, &lk, ret, diag);
    pthread_mutex_unlock(&c->lock);
    return r;
}

int zkd_keycache_load(struct zkd_keycache *c, const struct zk_ledger_key *lk,
                      struct zkd_key **ret, struct zk_diag *diag)
{
    int r = 0;
    pthread_mutex_lock(&c->lock);
    struct zkd_key *e = find(c, lk->id);
    if (e)
        *ret = e;
    else
        r = load_locked(c, lk, ret, diag);
    pthread_mutex_unlock(&c->lock);
    return r;
}

size_t zkd_keycache_count(struct zkd_keycache *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->n;
    pthread_mutex_unlock(&c->lock);
    return n;
}

void zkd_keycache_done(struct zkd_keycache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->free)
            c->free(c->ctx, c->v[i]);
        free(c->v[i]);
    }
    free(c->v);
    c->v = NULL;
    c->n = c->cap = 0;
    pthread_mutex_destroy(&c->lock);
}
