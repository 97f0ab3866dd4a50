/*
 * test_pool_check.c -- zk_pool_check_notes tells a slot that a consumer
 * wrote into apart from a damaged one.  gpud's CPU backend proves in place
 * (the slot's a, b, c are its scratch), so a slot reaped from a gpud that
 * died in prove_start comes back READY failing its checksum, by design: a
 * note ("after a consumer held it"), not a violation.  A READY slot that no
 * consumer held since its publish and fails its checksum is still a
 * violation, and a new publish clears the mark.  The consumer here is a
 * real process that claims, writes into the slot and exits without
 * releasing; the reaper hands the slot back, the next claim drops it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pool/layout.h"
#include "zk/error.h"
#include "zk/pool.h"
#include "zktest.h"

static char path[256];

struct seen {
    int violations, notes;
    char last_note[400];
};

static void on_violation(void *ctx, const char *msg)
{
    ((struct seen *)ctx)->violations++;
    printf("  violation: %s\n", msg);
}

static void on_note(void *ctx, const char *msg)
{
    struct seen *s = ctx;
    s->notes++;
    snprintf(s->last_note, sizeof s->last_note, "%s", msg);
    printf("  note: %s\n", msg);
}

/* zk_pool_check_notes with counting callbacks; its return in *ret. */
static struct seen check(zk_pool *h, int *ret)
{
    struct seen s = { 0, 0, "" };
    *ret = zk_pool_check_notes(h, on_violation, on_note, &s);
    return s;
}

/* Acquire, fill with a pattern, publish partition `part`: its index. */
static uint32_t publish(zk_pool *h, uint64_t part)
{
    struct zk_slot s;
    struct zk_slot_desc d = { .nregions = 1, .region_bytes = { 8192 } };
    int r = zk_pool_acquire(h, part, 1, 0, NULL, &s);
    ZT_REQUIRE(r == 0, UINT32_MAX, "acquire: %s", zk_strerror(r));
    for (size_t i = 0; i < 8192; i++)
        s.data[i] = (unsigned char)(i * 7 + part);
    r = zk_pool_publish(h, &s, &d);
    ZT_CHECK(r == 0, "publish: %s", zk_strerror(r));
    return s.index;
}

/* A child claims the oldest READY slot, overwrites its data as the CPU
 * backend's NTTs do, and dies holding it.  The slot's index, or -1. */
static int consumer_dies_in_place(void)
{
    int pfd[2], idx = -1;
    ZT_REQUIRE(pipe(pfd) == 0, -1, "pipe");
    pid_t pid = fork();
    if (pid == 0) {
        struct zk_pool_attach_opts o = { .name = "gpud-like", .tick_ms = 10 };
        zk_pool *h = calloc(1, zk_pool_sizeof());
        struct zk_slot c;
        if (h && zk_pool_attach(h, path, &o) == 0 &&
            zk_pool_claim(h, ZK_POOL_ANY_NODE, 0, 0, NULL, &c) == 0) {
            memset(c.data + 100, 0x5a, 4000);   /* scratch */
            idx = (int)c.index;
        }
        if (write(pfd[1], &idx, sizeof idx) != sizeof idx)
            _exit(3);
        _exit(0);   /* dies holding the slot CLAIMED */
    }
    close(pfd[1]);
    ZT_CHECK(read(pfd[0], &idx, sizeof idx) == sizeof idx);
    close(pfd[0]);
    waitpid(pid, NULL, 0);
    return idx;
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    snprintf(path, sizeof path, "/dev/shm/zkslot-test-check-%d.pool", (int)getpid());
    unlink(path);
    struct zk_pool_params p = { .nslots = 2, .slot_size = 1 << 20, .flags = ZK_POOL_CREATE_TMPFS };
    int r = zk_pool_create(path, &p, NULL);
    ZT_REQUIRE(r == 0, zt_finish(), "create: %s", zk_strerror(r));
    struct zk_pool_attach_opts o = { .name = "test", .tick_ms = 10 };
    zk_pool *h = calloc(1, zk_pool_sizeof());
    r = zk_pool_attach(h, path, &o);
    ZT_REQUIRE(r == 0, zt_finish(), "attach: %s", zk_strerror(r));
    struct zk_slot c;
    int ret;

    /* 1. a consumer that proved in place died: a note, not a violation */
    uint32_t a = publish(h, 11);
    int idx = consumer_dies_in_place();
    ZT_REQUIRE(idx == (int)a, zt_finish(), "the child claimed slot %d, not %u", idx, a);
    struct zk_pool_reap_stats st;
    ZT_CHECK(zk_pool_reap(h, 0, NULL, NULL, &st) == 0 && st.claimed_requeued == 1);
    struct seen s = check(h, &ret);
    ZT_CHECK(ret == 0 && s.violations == 0, "a reaped in-place slot is no violation (%d)", ret);
    ZT_CHECK(s.notes == 1 && strstr(s.last_note, "partition 11 fails its checksum after a consumer held it"),
             "one note naming partition 11: '%s'", s.last_note);
    ZT_CHECK(zk_pool_check(h, NULL, NULL) == 0, "zk_pool_check agrees");

    /* 2. the control: a slot no consumer held, damaged, is a violation */
    uint32_t b = publish(h, 12);
    pool_slot_data(h, b)[50] ^= 1;
    s = check(h, &ret);
    ZT_CHECK(ret == 1 && s.violations == 1 && s.notes == 1,
             "never claimed and damaged: a violation (%d violations, %d notes)", ret, s.notes);
    pool_slot_data(h, b)[50] ^= 1;

    /* 3. the next claim drops the in-place slot (as gpud does); a new
     * publish into it clears the mark: damage is a violation again */
    r = zk_pool_claim(h, ZK_POOL_ANY_NODE, 0, 0, NULL, &c);
    ZT_CHECK(r == ZK_ECHECKSUM && c.partition_id == 11, "claim drops it: %s", zk_strerror(r));
    ZT_CHECK(zk_pool_release(h, &c) == 0);
    ZT_CHECK(zk_pool_claim(h, ZK_POOL_ANY_NODE, 0, 0, NULL, &c) == 0 && c.partition_id == 12);
    ZT_CHECK(zk_pool_release(h, &c) == 0);
    uint32_t a2 = publish(h, 13);
    s = check(h, &ret);
    ZT_CHECK(ret == 0 && s.notes == 0, "republished intact: clean (%d, %d notes)", ret, s.notes);
    pool_slot_data(h, a2)[7] ^= 1;
    s = check(h, &ret);
    ZT_CHECK(ret == 1 && s.notes == 0, "republished, never claimed, damaged: a violation");

    zk_pool_detach(h);
    free(h);
    ZT_CHECK(zk_pool_destroy(path, 0, NULL) == 0);
    unlink(path);
    return zt_finish();
}
