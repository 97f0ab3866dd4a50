/*
 * fuzz_library.c -- libFuzzer target for what a libzkslot caller hands the
 * library (zkslot.h): the bytes a producer writes as a partition's witness,
 * and a client's key name, request id, class and deadline.  A real ledger
 * (SQLite) and pool of one slot are made once per process in a private
 * tmpfs directory, with the bundled BN254 example key registered.
 *
 * Input: byte 0 chooses.  Even: a producer takes a partition of a one-
 * partition job, the rest of the input is its witness (repeated to fill
 * n_vars values), and publishes it: refused with ZKSLOT_ERANGE (a value
 * not below r) or published; either way the slot must be free or READY
 * (never left FILLING) -- a READY slot is claimed and released here, as
 * gpud would.  Odd: the rest is "KEY\0REQUEST_ID\0" then a class byte and
 * 8 deadline bytes; a submit of the example witness with them must either
 * queue a job or refuse with a one-line message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "zk/error.h"
#include "zk/keyfile.h"
#include "zk/ledger.h"
#include "zk/pool.h"
#include "zk/util.h"
#include "zk/zkey.h"
#include "zkslot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define EXAMPLES ZK_FUZZ_KEY_DIR "/../../../../examples/groth16/bn128"

static char state[128];
static zkslot *z;
static zkslot_producer *prod;
static zk_pool *consumer;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    return remove(p);
}

static void remove_state(void)
{
    zkslot_close(z);
    zk_pool_detach(consumer);
    nftw(state, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The example key as `zkslot key add` records it. */
static int add_key(const char *ledger)
{
    const char *path = EXAMPLES "/key.zkey";
    struct zk_ledger_key k;
    struct zk_zkey zf;
    zk_ledger *l = NULL;
    int r;
    memset(&k, 0, sizeof k);
    memset(&zf, 0, sizeof zf);
    if ((r = zk_zkey_open(&zf, path, NULL)))
        return r;
    snprintf(k.name, sizeof k.name, "ex");
    if (!realpath(path, k.path))
        return -errno;
    snprintf(k.curve, sizeof k.curve, "%s", zk_curve_name(zf.hdr.curve));
    k.n_vars = zf.hdr.n_vars;
    k.n_public = zf.hdr.n_public;
    k.domain_size = zf.hdr.domain_size;
    zk_zkey_done(&zf);
    const char *p = k.path;
    if ((r = zk_hash128_files(NULL, 0, &p, 1, k.hash, &k.file_size, NULL, NULL, NULL)) ||
        (r = zk_keyfile_stat(k.path, &k)) ||
        (r = zk_ledger_open(ledger, ZK_LEDGER_CREATE, 0, &l, NULL)))
        return r;
    r = zk_ledger_key_add(l, &k, NULL);
    zk_ledger_close(l);
    return r;
}

static void setup(void)
{
    const char *dir = fuzz_private_dir();
    char ledger[256], pool[256], conf[256], msg[256];
    if (!dir)
        abort();
    snprintf(state, sizeof state, "%s/state", dir);
    snprintf(ledger, sizeof ledger, "%s/ledger.db", state);
    snprintf(pool, sizeof pool, "%s/lib.pool", dir);
    snprintf(conf, sizeof conf, "%s/none.conf", dir);
    fclose(fopen(conf, "w"));
    setenv("ZKSLOT_CONFIG", conf, 1);
    setenv("ZKSLOT_STATE_DIR", state, 1);
    setenv("ZKSLOT_POOL", pool, 1);
    struct zk_pool_params pp = { .nslots = 1, .slot_size = 1u << 20, .dir = dir,
                                 .flags = ZK_POOL_CREATE_TMPFS };
    struct zk_pool_attach_opts ao = { .name = "fuzz-gpud" };
    int r = mkdir(state, 0700) ? -errno : add_key(ledger);
    if (!r)
        r = zk_pool_create(pool, &pp, NULL);
    if (!r && !(consumer = calloc(1, zk_pool_sizeof())))
        r = -ENOMEM;
    if (!r)
        r = zk_pool_attach(consumer, pool, &ao);
    atexit(remove_state);
    if (r || zkslot_open(NULL, NULL, &z, msg, sizeof msg) ||
        zkslot_producer_open(z, NULL, &prod, msg, sizeof msg)) {
        fprintf(stderr, "fuzz_library: setup in %s: %s %s\n", dir, zk_strerror(r), msg);
        abort();
    }
}

static int one_line(const char *msg)
{
    return msg[0] && !strchr(msg, '\n');
}

static void produce(const uint8_t *w, size_t len)
{
    char msg[512];
    int64_t job;
    struct zkslot_part *part;
    if (zkslot_job_create(prod, "ex", 1, NULL, &job, msg, sizeof msg) ||
        zkslot_part_take(prod, job, 1000, &part, msg, sizeof msg)) {
        fprintf(stderr, "fuzz_library: %s\n", msg);
        abort();
    }
    unsigned char *dst = part->witness;
    for (uint64_t i = 0; i < part->n_vars * 32; i++)
        dst[i] = len ? w[i % len] : 0;
    int r = zkslot_part_publish(prod, part, 0, msg, sizeof msg);
    if (r != 0 && !(r == ZKSLOT_ERANGE && one_line(msg)))
        abort();
    struct zk_pool_info pi;
    zk_pool_info(consumer, &pi);
    if (pi.count[ZK_SLOT_FILLING] != 0 || pi.count[ZK_SLOT_READY] != (r == 0))
        abort();
    struct zk_slot s;
    if (r == 0 && (zk_pool_claim(consumer, ZK_POOL_ANY_NODE, 0, 0, NULL, &s) ||
                   zk_pool_release(consumer, &s)))
        abort();
    zkslot_cancel(z, job, msg, sizeof msg);
}

static void submit(const uint8_t *data, size_t size)
{
    char *t = fuzz_text(data, size), msg[512] = "";
    if (!t)
        return;
    size_t klen = strlen(t), used = klen + 1;
    const char *key = t, *req = "";
    if (used < size) {                 /* fuzz_text ends the copy with a NUL */
        req = t + used;
        used += strlen(req) + 1;
    }
    struct zkslot_submit_opts o = { -1, 0, req, NULL, 0 };
    if (used < size)
        o.priority = (int)(int8_t)data[used];
    if (used + 9 <= size)
        memcpy(&o.deadline_ns, data + used + 1, 8);
    const char *files[1] = { EXAMPLES "/witness.wtns" };
    int64_t job = 0;
    int r = zkslot_submit(z, key, files, 1, 0, &o, &job, NULL, msg, sizeof msg);
    if (r == 0 ? job <= 0 : !one_line(msg))
        abort();
    if (r == 0)
        zkslot_cancel(z, job, msg, sizeof msg);
    free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!z)
        setup();
    if (size < 1)
        return 0;
    if (data[0] & 1)
        submit(data + 1, size - 1);
    else
        produce(data + 1, size - 1);
    return 0;
}
