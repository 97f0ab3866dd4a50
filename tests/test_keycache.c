/* test_keycache.c -- the daemons' key cache (common/daemon/keycache.h):
 * each key loaded once although several threads ask for it at once, a
 * failed load not cached, and entries that stay where they are while many
 * more keys are loaded: a thread reads its entry throughout (under ASan a
 * moved entry is a use after free; gpud's finisher did exactly that). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/keycache.h"
#include "zk/error.h"
#include "zk/ledger.h"
#include "zktest.h"

#define NKEYS 200

static atomic_int loads[NKEYS + 1];
static atomic_int fail_id;

static int load(void *ctx, struct zkd_key *e, struct zk_diag *diag)
{
    (void)ctx;
    if (e->id == atomic_load(&fail_id))
        return zk_diag_set(diag, e->lk.name, -EIO, "refused by the test");
    atomic_fetch_add(&loads[e->id], 1);
    int64_t *x = malloc(sizeof *x);
    if (!x)
        return -ENOMEM;
    *x = e->id * 7;
    e->ext = x;
    usleep(200);                       /* a load takes a while: let the others pile up */
    return 0;
}

static void unload(void *ctx, struct zkd_key *e)
{
    (void)ctx;
    free(e->ext);
}

static struct zkd_keycache cache;
static char path[256];
static atomic_int done;

/* Holds key 1's entry and reads it while the others are loaded. */
static void *reader(void *arg)
{
    struct zkd_key *e = arg;
    long reads = 0;
    while (!atomic_load(&done)) {
        ZT_CHECK(e->id == 1 && *(int64_t *)e->ext == 7 && !strcmp(e->lk.name, "k1"));
        reads++;
    }
    return (void *)reads;
}

/* Asks for every key, in an order of its own. */
static void *asker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    zk_ledger *l = NULL;
    struct zk_diag d;
    ZT_REQUIRE(zk_ledger_open(path, 0, 0, &l, &d) == 0, NULL, "%s", d.msg);
    for (int n = 0; n < NKEYS; n++) {
        int64_t id = 1 + (int64_t)((n * 37u + seed * 11u) % NKEYS);
        struct zkd_key *e = NULL;
        int r = zkd_keycache_get(&cache, l, id, &e, &d);
        if (id == 5)
            ZT_CHECK(r == -EIO, "the failing key: %d", r);
        else
            ZT_CHECK(r == 0 && e && e->id == id && *(int64_t *)e->ext == id * 7, "key %lld",
                     (long long)id);
    }
    zk_ledger_close(l);
    return NULL;
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    char dir[] = "/tmp/zk-test-keycache-XXXXXX";
    ZT_REQUIRE(mkdtemp(dir) != NULL, 1);
    snprintf(path, sizeof path, "%s/ledger.db", dir);
    zk_ledger *l = NULL;
    struct zk_diag d;
    ZT_REQUIRE(zk_ledger_open(path, ZK_LEDGER_CREATE, 0, &l, &d) == 0, 1, "%s", d.msg);
    for (int i = 1; i <= NKEYS; i++) {
        struct zk_ledger_key k;
        memset(&k, 0, sizeof k);
        snprintf(k.name, sizeof k.name, "k%d", i);
        snprintf(k.path, sizeof k.path, "/keys/k%d.zkey", i);
        snprintf(k.curve, sizeof k.curve, "bn128");
        ZT_REQUIRE(zk_ledger_key_add(l, &k, &d) == 0 && k.id == i, 1, "%s", d.msg);
    }
    zkd_keycache_init(&cache, load, unload, NULL);
    atomic_store(&fail_id, 5);
    struct zkd_key *first = NULL;
    ZT_REQUIRE(zkd_keycache_get(&cache, l, 1, &first, &d) == 0, 1, "%s", d.msg);

    pthread_t rd, ask[4];
    pthread_create(&rd, NULL, reader, first);
    for (int t = 0; t < 4; t++)
        pthread_create(&ask[t], NULL, asker, (void *)(uintptr_t)t);
    for (int t = 0; t < 4; t++)
        pthread_join(ask[t], NULL);
    atomic_store(&done, 1);
    void *reads;
    pthread_join(rd, &reads);
    ZT_CHECK((long)reads > 0);

    for (int i = 1; i <= NKEYS; i++)
        ZT_CHECK(atomic_load(&loads[i]) == (i == 5 ? 0 : 1), "key %d loaded %d times", i,
                 atomic_load(&loads[i]));
    ZT_CHECK(zkd_keycache_count(&cache) == NKEYS - 1);
    struct zkd_key *again = NULL;
    ZT_CHECK(zkd_keycache_get(&cache, l, 1, &again, &d) == 0 && again == first,
             "the entry of key 1 did not move");
    /* a failed load is not cached: once the cause is gone it loads */
    atomic_store(&fail_id, 0);
    struct zkd_key *five = NULL;
    ZT_CHECK(zkd_keycache_get(&cache, l, 5, &five, &d) == 0 && five && five->id == 5);
    ZT_CHECK(zkd_keycache_get(&cache, l, NKEYS + 1, &five, &d) == -ENOENT, "unknown key");
    zkd_keycache_done(&cache);
    zk_ledger_close(l);
    zt_rmtree(dir);
    return zt_finish();
}
