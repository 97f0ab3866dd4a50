/*
 * claimkeys.c -- zkd_claim_keys (zkd.h): the keys this machine's synthd
 * claims partitions of.  On every ledger, only keys without a witness
 * generator or whose generator this machine allows ([synthd] generators,
 * zk_witgen_allowed).  On a ledger shared by several machines, of those,
 * the ones named by [gpud] keys (every key when empty) whose file is here
 * with the registered content (keylocal.h: the registered path or [keys]
 * dir, its hash checked once per file identity, in the background).  A
 * key left out is logged once per reason, listed in STATUS
 * (zkd_claim_keys_status), and its partitions wait for a machine that
 * claims it (they are not failed).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/keylocal.h"
#include "daemon/zkd.h"
#include "zk/witgen.h"

int zkd_key_served(const char *list, const char *name)
{
    size_t n = strlen(name);
    if (!*list)
        return 1;
    for (const char *p = list; *p;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, ",");
        size_t t = len;
        while (t && p[t - 1] == ' ')
            t--;
        if (t == n && !memcmp(p, name, n))
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* The keys left out, process-wide (synthd's workers each refresh their own
 * handle's claims; what they log and STATUS shows is the process's). */
struct skipped {
    int64_t id;
    char name[64];
    const char *reason;           /* short, keylocal.h's or "not in [gpud] keys" */
    int logged;                   /* its refusal was logged (so its return is too) */
};
static pthread_mutex_t skip_lock = PTHREAD_MUTEX_INITIALIZER;
static struct skipped skip[ZKD_CLAIM_KEYS_MAX];
static unsigned nskip;

struct collect {
    const struct zk_config *cfg;
    int64_t ids[ZKD_CLAIM_KEYS_MAX];
    unsigned n;
    struct skipped now[ZKD_CLAIM_KEYS_MAX];
    unsigned nnow;
    int hashing;                  /* a key waits for its file's hash */
    int one_machine;              /* SQLite: only the generator is judged */
};

/* Caller holds skip_lock.  The entry of key id in the last refresh, or NULL. */
static struct skipped *skipped_before(int64_t id)
{
    for (unsigned i = 0; i < nskip; i++)
        if (skip[i].id == id)
            return &skip[i];
    return NULL;
}

/* Records key k as left out now; logs the refusal when it is new or its
 * reason changed (a key being hashed is not logged: keylocal logs that). */
static void left_out(struct collect *c, const struct zk_ledger_key *k, const char *reason,
                     const char *detail)
{
    if (c->nnow == ZKD_CLAIM_KEYS_MAX)
        return;
    struct skipped *s = &c->now[c->nnow++];
    s->id = k->id;
    snprintf(s->name, sizeof s->name, "%s", k->name);
    s->reason = reason;
    pthread_mutex_lock(&skip_lock);
    const struct skipped *b = skipped_before(k->id);
    s->logged = b && b->logged;
    int tell = strcmp(reason, "hashing") && (!b || strcmp(b->reason, reason) || !b->logged);
    pthread_mutex_unlock(&skip_lock);
    if (tell) {
        s->logged = 1;
        zkd_log(ZKD_NOTICE, "key %s: its partitions are not claimed on this machine: %s "
                "(%s)", k->name, detail, c->one_machine ? "they stay queued"
                                                         : "another machine can take them");
    }
}

/* Records key k as claimed now; logs it when it was left out before. */
static void claimed(struct collect *c, const struct zk_ledger_key *k, const char *path)
{
    pthread_mutex_lock(&skip_lock);
    const struct skipped *b = skipped_before(k->id);
    int logged = b && b->logged, hashed = b && !strcmp(b->reason, "hashing");
    pthread_mutex_unlock(&skip_lock);
    if (logged)
        zkd_log(ZKD_NOTICE, "key %s: its partitions are claimed on this machine again (%s)",
                k->name, path);
    else if (hashed)
        zkd_log(ZKD_INFO, "key %s: %s has the registered content; its partitions are claimed "
                "on this machine", k->name, path);
    if (c->n < ZKD_CLAIM_KEYS_MAX)
        c->ids[c->n++] = k->id;
}

/* Whether this machine runs k's witness generator ([synthd] generators,
 * zk_witgen_allowed); a key without one needs none.  Else why, into d. */
static int generator_allowed(const struct zk_config *cfg, const struct zk_ledger_key *k,
                             struct zk_diag *d)
{
    struct zk_witgen g;
    if (!k->witgen_kind)
        return 1;
    memset(&g, 0, sizeof g);
    g.kind = k->witgen_kind;
    snprintf(g.spec, sizeof g.spec, "%s", k->witgen);
    return zk_witgen_allowed(&g, cfg->synthd_generators, d) == 0;
}

/* Whether this machine claims key k (zk_ledger_key_list's callback). */
static int collect_key(void *ctx, const struct zk_ledger_key *k)
{
    struct collect *c = ctx;
    struct zkd_key_local loc;
    struct zk_diag d = { "" };
    if (!generator_allowed(c->cfg, k, &d))
        left_out(c, k, "generator not allowed", d.msg);
    else if (c->one_machine)
        claimed(c, k, k->path);     /* SQLite: the key's file is judged when it loads */
    else if (!zkd_key_served(c->cfg->gpud_keys, k->name))
        left_out(c, k, "not in [gpud] keys", "not in [gpud] keys");
    else if (zkd_key_local_find(c->cfg->keys_dir, k, &loc) == ZKD_KEY_LOCAL_FOUND)
        claimed(c, k, loc.path);
    else {
        c->hashing |= !strcmp(loc.reason, "hashing");
        left_out(c, k, loc.reason, loc.detail);
    }
    return 0;
}

void zkd_claim_keys(zk_ledger *l, const struct zk_config *cfg, struct zkd_claim_keys *st)
{
    double now = zkd_now();
    /* every 2 s; while a file is being hashed, soon after its hash is done */
    if (st->refreshed_s && now - st->refreshed_s < (st->hashing ? 0.25 : 2.0))
        return;
    st->refreshed_s = now;
    struct collect *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->cfg = cfg;
    c->one_machine = !strcmp(zk_ledger_backend(l), "sqlite");
    /* a key list that cannot be read keeps the last choice */
    if (zk_ledger_key_list(l, collect_key, c, NULL) == 0) {
        /* one machine that leaves nothing out claims every key, as before */
        zk_ledger_set_claim_keys(l, c->one_machine && !c->nnow ? NULL : c->ids, c->n);
        st->hashing = c->hashing;
        st->judged = 1;
        pthread_mutex_lock(&skip_lock);
        memcpy(skip, c->now, c->nnow * sizeof *skip);
        nskip = c->nnow;
        pthread_mutex_unlock(&skip_lock);
    } else if (!c->one_machine && !st->judged) {
        /* no choice yet on a shared ledger: none, not the handle's default
         * (every key), which would claim partitions of keys this machine
         * does not serve while the list cannot be read (a slow link);
         * asked again soon */
        zk_ledger_set_claim_keys(l, c->ids, 0);
        st->hashing = 1;
    }
    free(c);
}

void zkd_claim_keys_status(char *buf, size_t n)
{
    const size_t more_room = sizeof ", +999 more";
    size_t len = 0;
    if (!n)
        return;
    buf[0] = 0;
    pthread_mutex_lock(&skip_lock);
    for (unsigned i = 0; i < nskip; i++) {
        const char *sep = i ? ", " : "not claiming keys: ";
        char item[160];
        int w = snprintf(item, sizeof item, "%s%s (%s)", sep, skip[i].name, skip[i].reason);
        if (w < 0 || len + (size_t)w + (i + 1 < nskip ? more_room : 0) >= n) {
            /* what does not fit is counted, never cut in the middle */
            snprintf(buf + len, n - len, "%s+%u more", sep, nskip - i);
            break;
        }
        memcpy(buf + len, item, (size_t)w + 1);
        len += (size_t)w;
    }
    pthread_mutex_unlock(&skip_lock);
}
