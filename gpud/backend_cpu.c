/*
 * backend_cpu.c -- the CPU backend of gpud: prove_start on the slot's own
 * memory with the multithreaded NTT and Pippenger MSM of common/.
 */
#include <string.h>

#include "backend.h"
#include "zk/error.h"
#include "zk/slotfmt.h"

static int cpu_prove_start(const struct gpud_backend *b, const struct zk_groth16_key *k,
                           const struct zk_slot *s, unsigned nthreads,
                           struct zk_groth16_pending **ret, struct zk_diag *diag)
{
    (void)b;
    int r = zk_groth16_prove_start(k, (const zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_W]),
                                   (zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_A]),
                                   (zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_B]),
                                   (zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_C]),
                                   nthreads, ret);
    if (r)
        return zk_diag_set(diag, "cpu backend", r, "prove_start failed: %s", zk_strerror(r));
    return 0;
}

static const struct gpud_backend cpu_backend = {
    "cpu",
    ZK_G16_LOAD_POINTS,
    cpu_prove_start,
};

const struct gpud_backend *gpud_backend_get(const char *name, int device, struct zk_diag *diag)
{
    (void)device;
    if (!strcmp(name, "cpu"))
        return &cpu_backend;
    if (!strcmp(name, "cuda")) {
        zk_diag_set(diag, "--backend cuda", ZK_EBADPARAMS,
                    "the CUDA backend is not built into this gpud yet (it is issue 7); "
                    "use --backend cpu");
        return NULL;
    }
    zk_diag_set(diag, "--backend", ZK_EBADPARAMS, "unknown backend '%s' (cpu or cuda)", name);
    return NULL;
}
