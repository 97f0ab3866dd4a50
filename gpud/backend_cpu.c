/*
 * backend_cpu.c -- the CPU backend of gpud: prove_start on the slot's own
 * memory with the multithreaded NTT and Pippenger MSM of common/.  In
 * place by decision (docs/architecture.md, "Decisions"; `zkslot bench
 * inplace` measures the copy it saves): a slot reaped after this gpud's
 * death fails its checksum, and the partition is synthesized again.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "daemon/zkd.h"
#include "util/testhook.h"
#include "zkcuda.h"
#include "zk/error.h"
#include "zk/slotfmt.h"

/* The job is the pending proof itself, complete when prove_start returns;
 * the slot is the scratch space, in use to the end. */
static int cpu_prove_start(const struct gpud_backend *b, const struct zk_groth16_key *k,
                           const struct zk_slot *s, unsigned nthreads,
                           void (*done_with_slot)(void *ctx), void *ctx, void **job,
                           struct zk_diag *diag)
{
    struct zk_groth16_pending *pending = NULL;
    (void)b;
    int r = zk_groth16_prove_start(k, (const zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_W]),
                                   (zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_A]),
                                   (zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_B]),
                                   (zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_C]),
                                   nthreads, &pending);
    if (r)
        return zk_diag_set(diag, "cpu backend", r, "prove_start failed: %s", zk_strerror(r));
    *job = pending;
    /* Test hook: ZKSLOT_TEST_START_HOLD_MS keeps the slot CLAIMED that long
     * once its a, b, c are scratch (its checksum no longer holds), so that
     * a test can kill -9 gpud exactly there. */
    const char *hold = zk_test_hook("ZKSLOT_TEST_START_HOLD_MS");
    if (hold && atoi(hold) > 0) {
        zkd_log(ZKD_WARN, "test hook: slot %u held CLAIMED after prove_start", s->index);
        usleep((useconds_t)atoi(hold) * 1000u);
    }
    if (done_with_slot)
        done_with_slot(ctx);
    return 0;
}

static int cpu_prove_wait(const struct gpud_backend *b, void *job,
                          struct zk_groth16_pending **ret, struct zk_diag *diag)
{
    (void)b;
    (void)diag;
    *ret = job;
    return 0;
}

static const struct gpud_backend cpu_backend = {
    "cpu",
    ZK_G16_LOAD_POINTS,
    cpu_prove_start,
    cpu_prove_wait,
    NULL,
    NULL,
    NULL,
};

const struct gpud_backend *gpud_backend_get(const char *name, int device, struct zk_diag *diag)
{
    if (!strcmp(name, "cpu"))
        return &cpu_backend;
    if (!strcmp(name, "cuda")) {
        const struct gpud_backend *b = gpud_backend_cuda(device, diag);
        if (b)
            return b;
        /* no GPU at all: fall back (diag says why, gpud logs it); a GPU
         * that exists but cannot be used as asked is an error */
        return zk_cuda_available() ? NULL : &cpu_backend;
    }
    zk_diag_set(diag, "--backend", ZK_EBADPARAMS, "unknown backend '%s' (cpu or cuda)", name);
    return NULL;
}
