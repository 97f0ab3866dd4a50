/*
 * backend.h -- what a gpud backend does: keep proving keys where its
 * compute can reach them, and run prove_start on a partition in a slot.
 *
 * The CPU backend (backend_cpu.c) runs prove_start on the slot's memory in
 * place (the slot's a, b, c are its scratch space).  The CUDA backend
 * (issue 7) will copy the slot to the device and hand the slot back as soon
 * as the copy is done.  prove_finalize (G2 MSM, blinding, assembly) is the
 * same for every backend and runs on CPU threads in gpud itself.
 */
#ifndef ZK_GPUD_BACKEND_H
#define ZK_GPUD_BACKEND_H

#include "zk/binfile.h"
#include "zk/groth16.h"
#include "zk/pool.h"

struct gpud_backend {
    const char *name;
    /* what zk_groth16_key_load_opts must load for this backend */
    unsigned key_parts;
    /*
     * H and the G1 MSMs of the partition in slot s (layout zk/slotfmt.h,
     * already checked against k).  On return the slot's memory is no longer
     * needed by this backend.  0 or a negative code with diag set.
     */
    int (*prove_start)(const struct gpud_backend *b, const struct zk_groth16_key *k,
                       const struct zk_slot *s, unsigned nthreads,
                       struct zk_groth16_pending **ret, struct zk_diag *diag);
};

/* The backend called `name` ("cpu", "cuda"), or NULL with a reason in diag. */
const struct gpud_backend *gpud_backend_get(const char *name, int device, struct zk_diag *diag);

#endif /* ZK_GPUD_BACKEND_H */
