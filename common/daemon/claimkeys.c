/*
 * claimkeys.c -- zkd_claim_keys (zkd.h): on a ledger shared by several
 * machines, the keys this machine's synthd claims partitions of: those
 * named by [gpud] keys (every key when empty) whose .zkey file is here
 * with the size registered.  A key left out is logged once, with why, and
 * its partitions wait for a machine that has it (they are not failed).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/zkd.h"

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

struct collect {
    const struct zk_config *cfg;
    struct zkd_claim_keys *st;
    int64_t ids[ZKD_CLAIM_KEYS_MAX];
    unsigned n;
};

/* Whether this machine claims key k; why not (logged once per key). */
static int collect_key(void *ctx, const struct zk_ledger_key *k)
{
    struct collect *c = ctx;
    struct stat sb;
    char why[4400] = "";
    if (!zkd_key_served(c->cfg->gpud_keys, k->name))
        snprintf(why, sizeof why, "not in [gpud] keys");
    else if (stat(k->path, &sb) != 0)
        snprintf(why, sizeof why, "no key file at %s here", k->path);
    else if ((uint64_t)sb.st_size != k->file_size)
        snprintf(why, sizeof why, "%s has %lld bytes, the registered key %llu (another file)",
                 k->path, (long long)sb.st_size, (unsigned long long)k->file_size);
    unsigned i;
    for (i = 0; i < c->st->nskipped && c->st->skipped[i] != k->id; i++)
        ;
    int was_skipped = i < c->st->nskipped;
    if (why[0] && !was_skipped && c->st->nskipped < ZKD_CLAIM_KEYS_MAX) {
        c->st->skipped[c->st->nskipped++] = k->id;
        zkd_log(ZKD_NOTICE, "key %s: its partitions are not claimed on this machine: %s "
                "(another machine can take them)", k->name, why);
    } else if (!why[0] && was_skipped) {
        c->st->skipped[i] = c->st->skipped[--c->st->nskipped];
        zkd_log(ZKD_NOTICE, "key %s: its partitions are claimed on this machine again",
                k->name);
    }
    if (!why[0] && c->n < ZKD_CLAIM_KEYS_MAX)
        c->ids[c->n++] = k->id;
    return 0;
}

void zkd_claim_keys(zk_ledger *l, const struct zk_config *cfg, struct zkd_claim_keys *st)
{
    if (!strcmp(zk_ledger_backend(l), "sqlite"))
        return;   /* one machine: every key, as before */
    double now = zkd_now();
    if (st->refreshed_s && now - st->refreshed_s < 2.0)
        return;
    st->refreshed_s = now;
    struct collect *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->cfg = cfg;
    c->st = st;
    /* a key list that cannot be read keeps the last choice */
    if (zk_ledger_key_list(l, collect_key, c, NULL) == 0)
        zk_ledger_set_claim_keys(l, c->ids, c->n);
    free(c);
}
