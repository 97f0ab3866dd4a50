/*
 * keylocal.c -- the local file of a registered key (keylocal.h): the two
 * candidates, the verdicts cached by file identity, and the one background
 * thread that hashes for zkd_key_local_find.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/keylocal.h"
#include "daemon/zkd.h"
#include "zk/error.h"
#include "zk/keyfile.h"
#include "zk/util.h"

/* A hash that failed (a file not readable) is tried again this much later. */
#define KEYLOCAL_RETRY_S 30.0

struct ident {
    uint64_t dev, ino, size;
    int64_t mtime_ns;
};

enum { H_PENDING, H_HASHING, H_DONE, H_FAILED };

/* One candidate path's verdict.  Entries are never freed nor moved (the
 * hasher reads path without the lock); path never changes. */
struct hentry {
    char *path;
    struct ident id;        /* the identity the state is about */
    unsigned gen;           /* bumped with id: a hash of an older identity is dropped */
    int state;
    char hex[33];           /* H_DONE: the content's XXH3-128 */
    char err[256];          /* H_FAILED: why */
    double failed_s;        /* H_FAILED: when */
};

static pthread_mutex_t h_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t h_cond = PTHREAD_COND_INITIALIZER;   /* signalled: an entry PENDING */
static struct hentry **h_v;
static size_t h_n, h_cap;
static int h_started;                                      /* the hasher thread runs */

static void ident_of(const struct stat *st, struct ident *id)
{
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static int ident_eq(const struct ident *a, const struct ident *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns;
}

/* The very file `zkslot key add` registered (its content taken as unchanged,
 * as zk_keyfile_check does). */
static int registered_file(const struct zk_ledger_key *lk, const struct ident *id)
{
    return lk->file_mtime_ns && id->dev == lk->file_dev && id->ino == lk->file_ino &&
           id->mtime_ns == lk->file_mtime_ns && id->size == lk->file_size;
}

/* The candidates: the registered path, then keys_dir + its basename (when
 * set, different and not too long).  How many. */
static unsigned candidates(const char *keys_dir, const struct zk_ledger_key *lk,
                           char c[2][4096])
{
    snprintf(c[0], sizeof c[0], "%s", lk->path);
    if (!keys_dir || !*keys_dir)
        return 1;
    const char *base = strrchr(lk->path, '/');
    base = base ? base + 1 : lk->path;
    size_t dl = strlen(keys_dir);
    while (dl && keys_dir[dl - 1] == '/')
        dl--;
    int w = snprintf(c[1], sizeof c[1], "%.*s/%s", (int)dl, keys_dir, base);
    return w < 0 || (size_t)w >= sizeof c[1] || !strcmp(c[0], c[1]) ? 1 : 2;
}

/* Caller holds h_lock.  path's entry, made when absent; NULL out of memory. */
static struct hentry *entry_of(const char *path)
{
    for (size_t i = 0; i < h_n; i++)
        if (!strcmp(h_v[i]->path, path))
            return h_v[i];
    if (h_n == h_cap) {
        size_t cap = h_cap ? 2 * h_cap : 16;
        struct hentry **v = realloc(h_v, cap * sizeof *v);
        if (!v)
            return NULL;
        h_v = v;
        h_cap = cap;
    }
    struct hentry *e = calloc(1, sizeof *e);
    if (!e || !(e->path = strdup(path))) {
        free(e);
        return NULL;
    }
    e->state = -1;
    h_v[h_n++] = e;
    return e;
}

/* Caller holds h_lock.  The entry of (path, id) when it has a state for
 * that identity, else NULL. */
static struct hentry *verdict(const char *path, const struct ident *id)
{
    for (size_t i = 0; i < h_n; i++)
        if (!strcmp(h_v[i]->path, path))
            return ident_eq(&h_v[i]->id, id) && h_v[i]->state >= 0 ? h_v[i] : NULL;
    return NULL;
}

/* The hasher: one PENDING entry at a time, hashed without the lock; the
 * verdict kept only when the file kept its identity meanwhile (else it is
 * hashed again under its new one). */
static void *hasher_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&h_lock);
    for (;;) {
        struct hentry *e = NULL;
        for (size_t i = 0; i < h_n && !e; i++)
            if (h_v[i]->state == H_PENDING)
                e = h_v[i];
        if (!e) {
            pthread_cond_wait(&h_cond, &h_lock);
            continue;
        }
        e->state = H_HASHING;
        unsigned gen = e->gen;
        struct ident id = e->id, now;
        pthread_mutex_unlock(&h_lock);

        char hex[33];
        struct zk_diag d = { "" };
        struct stat st;
        const char *p = e->path;
        int r = zk_hash128_file(p, hex, NULL, NULL, &d);
        int gone = stat(p, &st) != 0;
        if (!gone)
            ident_of(&st, &now);

        pthread_mutex_lock(&h_lock);
        if (e->gen != gen)
            continue;                /* re-requested for another identity */
        if (!gone && !ident_eq(&now, &id)) {
            e->id = now;             /* changed while hashed: again */
            e->gen++;
            e->state = H_PENDING;
        } else if (!r && !gone) {
            memcpy(e->hex, hex, sizeof hex);
            e->state = H_DONE;
        } else {
            snprintf(e->err, sizeof e->err, "%s", gone ? "removed while it was hashed" : d.msg);
            e->failed_s = zkd_now();
            e->state = H_FAILED;
        }
    }
    return NULL;
}

/* Caller holds h_lock.  Hands (path, id) to the hasher (started on first
 * use, detached: it lives as long as the process).  0, or -errno. */
static int request(const char *path, const struct ident *id)
{
    struct hentry *e = entry_of(path);
    if (!e)
        return -ENOMEM;
    if (!h_started) {
        pthread_t t;
        int r = pthread_create(&t, NULL, hasher_main, NULL);
        if (r)
            return -r;
        pthread_detach(t);
        h_started = 1;
    }
    e->id = *id;
    e->gen++;
    e->state = H_PENDING;
    pthread_cond_signal(&h_cond);
    return 0;
}

static void log_hashing(const struct zk_ledger_key *lk, const char *path, uint64_t size)
{
    zkd_log(ZKD_INFO, "key %s: hashing %s (%llu MiB) to check it is the registered key",
            lk->name, path, (unsigned long long)(size >> 20));
}

/* One candidate for zkd_key_local_find: FOUND, HASHING, or NONE with
 * *reason and why (a clause for the log). */
static int judge(const struct zk_ledger_key *lk, const char *path, const char **reason,
                 char *why, size_t wn)
{
    struct stat st;
    struct ident id;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        *reason = "no file";
        snprintf(why, wn, "no key file at %.900s", path);
        return ZKD_KEY_LOCAL_NONE;
    }
    ident_of(&st, &id);
    if (registered_file(lk, &id))
        return ZKD_KEY_LOCAL_FOUND;
    if (id.size != lk->file_size) {   /* another content, no need to hash it */
        *reason = "size differs";
        snprintf(why, wn, "%.900s has %llu bytes, the registered key %llu", path,
                 (unsigned long long)id.size, (unsigned long long)lk->file_size);
        return ZKD_KEY_LOCAL_NONE;
    }
    int v = ZKD_KEY_LOCAL_HASHING, asked = 0;
    pthread_mutex_lock(&h_lock);
    struct hentry *e = verdict(path, &id);
    if (!e || (e->state == H_FAILED && zkd_now() - e->failed_s >= KEYLOCAL_RETRY_S))
        asked = request(path, &id) == 0;
    else if (e->state == H_DONE && !strcmp(e->hex, lk->hash))
        v = ZKD_KEY_LOCAL_FOUND;
    else if (e->state == H_DONE) {
        *reason = "hash differs";
        snprintf(why, wn, "%.900s is another file of the same size (xxh3-128 %s, registered %s)",
                 path, e->hex, lk->hash);
        v = ZKD_KEY_LOCAL_NONE;
    } else if (e->state == H_FAILED) {
        *reason = "unreadable";
        snprintf(why, wn, "%s", e->err);
        v = ZKD_KEY_LOCAL_NONE;
    }
    pthread_mutex_unlock(&h_lock);
    if (asked)
        log_hashing(lk, path, id.size);
    if (v == ZKD_KEY_LOCAL_HASHING) {
        *reason = "hashing";
        snprintf(why, wn, "%.900s is being hashed", path);
    }
    return v;
}

/* Which reason zkd_key_local_find reports of several. */
static int reason_rank(const char *reason)
{
    return !reason ? 0 : !strcmp(reason, "hashing") ? 3 : strcmp(reason, "no file") ? 2 : 1;
}

int zkd_key_local_find(const char *keys_dir, const struct zk_ledger_key *lk,
                       struct zkd_key_local *ret)
{
    char c[2][4096];
    unsigned n = candidates(keys_dir, lk, c);
    int v = ZKD_KEY_LOCAL_NONE;
    size_t len = 0;
    ret->reason = NULL;
    ret->detail[0] = 0;
    for (unsigned i = 0; i < n; i++) {
        const char *reason = NULL;
        char why[1024];
        int j = judge(lk, c[i], &reason, why, sizeof why);
        if (j == ZKD_KEY_LOCAL_FOUND) {
            memcpy(ret->path, c[i], sizeof ret->path);
            return j;
        }
        /* the reason: hashing wins (it may yet match), else the first
         * candidate that exists, else "no file" */
        if (reason_rank(reason) > reason_rank(ret->reason))
            ret->reason = reason;
        v = j > v ? j : v;
        int w = snprintf(ret->detail + len, sizeof ret->detail - len, "%s%s", len ? "; " : "",
                         why);
        if (w > 0)
            len = len + (size_t)w < sizeof ret->detail ? len + (size_t)w : sizeof ret->detail - 1;
    }
    return v;
}

int zkd_key_local_check(const char *keys_dir, struct zk_ledger_key *lk, struct zk_diag *diag)
{
    char c[2][4096];
    unsigned n = candidates(keys_dir, lk, c);
    struct zk_diag first = { "" };
    int first_r = 0, existed = 0;
    for (unsigned i = 0; i < n; i++) {
        struct zk_ledger_key k = *lk;
        struct zk_diag d = { "" };
        struct stat st;
        struct ident id;
        int r, hashed = 0;
        memcpy(k.path, c[i], sizeof k.path);
        if (stat(k.path, &st) != 0) {
            if (!i)
                first_r = zk_diag_set(&first, k.path, -errno, "key %s: %s", k.name,
                                      strerror(errno));
            continue;
        }
        ident_of(&st, &id);
        if (!k.file_mtime_ns)
            k.file_mtime_ns = -1;    /* no identity registered: check the content */
        pthread_mutex_lock(&h_lock);
        const struct hentry *e = verdict(k.path, &id);
        int done = e && e->state == H_DONE, match = done && !strcmp(e->hex, k.hash);
        pthread_mutex_unlock(&h_lock);
        if (match) {                 /* hashed already: the cheap path below */
            k.file_dev = id.dev;
            k.file_ino = id.ino;
            k.file_mtime_ns = id.mtime_ns;
        } else if (!done && !registered_file(lk, &id))
            log_hashing(lk, k.path, id.size);
        if (done && !match)
            r = zk_diag_set(&d, k.path, ZK_ECHECKSUM,
                            "key %s: %s is not the registered key (its content differs)",
                            k.name, k.path);
        else
            r = zk_keyfile_check(&k, &hashed, &d);
        if (!r) {
            if (hashed && stat(k.path, &st) == 0) {
                struct ident now;
                ident_of(&st, &now);
                pthread_mutex_lock(&h_lock);
                struct hentry *h = ident_eq(&now, &id) ? entry_of(k.path) : NULL;
                if (h && h->state != H_HASHING) {
                    h->id = id;
                    h->gen++;
                    memcpy(h->hex, k.hash, sizeof h->hex);
                    h->state = H_DONE;
                }
                pthread_mutex_unlock(&h_lock);
            }
            memcpy(lk->path, k.path, sizeof lk->path);
            lk->file_dev = id.dev;
            lk->file_ino = id.ino;
            lk->file_mtime_ns = id.mtime_ns;
            return 0;
        }
        if (!existed) {             /* the first candidate that exists */
            existed = 1;
            first_r = r;
            first = d;
        }
    }
    if (diag)
        *diag = first;
    return first_r;
}
