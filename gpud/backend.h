/*
 * backend.h -- what a gpud backend does: keep proving keys where its
 * compute can reach them, and run prove_start on a partition in a slot.
 *
 * The CPU backend (backend_cpu.c) runs prove_start on the slot's memory in
 * place (the slot's a, b, c are its scratch space).  The CUDA backend
 * (backend_cuda.c) copies the slot to the device and runs prove_start
 * there (gpud/cuda/zkcuda.h).  prove_finalize (G2 MSM, blinding, assembly)
 * is the same for every backend and runs on CPU threads in gpud itself.
 */
#ifndef ZK_GPUD_BACKEND_H
#define ZK_GPUD_BACKEND_H

#include "zk/binfile.h"
#include "zk/groth16.h"
#include "zk/error.h"
#include "zk/pool.h"

struct gpud_backend {
    const char *name;
    /* what zk_groth16_key_load_opts must load for this backend */
    unsigned key_parts;
    /*
     * Starts H and the MSMs of the partition in slot s (layout zk/slotfmt.h,
     * already checked against k): the G1 ones, and for the CUDA backend
     * B2's on G2 as well (finalize then skips it); *job is what prove_wait
     * turns into the pending proof.  The CPU backend computes it all before
     * returning; the CUDA backend queues it on the GPU and returns.
     * done_with_slot(ctx) is called exactly once after a successful
     * prove_start, as soon as the backend no longer reads the slot: before
     * prove_start returns or later, from any thread (the CUDA runtime's).
     * On error it has already been called or never will be.  0 or a
     * negative code with diag set.
     */
    int (*prove_start)(const struct gpud_backend *b, const struct zk_groth16_key *k,
                       const struct zk_slot *s, unsigned nthreads,
                       void (*done_with_slot)(void *ctx), void *ctx, void **job,
                       struct zk_diag *diag);
    /* Waits for a started job and gives its pending proof; job is consumed
     * whatever the result.  0, or a negative code with diag set (device
     * errors as GPUD_DEVICE_ERROR). */
    int (*prove_wait)(const struct gpud_backend *b, void *job, struct zk_groth16_pending **ret,
                      struct zk_diag *diag);
    /* Optional (NULL: nothing to do): called once at start, before READY=1,
     * with the pool's whole mapping (CUDA page-locks it).  0 or an error
     * with diag set; gpud exits on an error. */
    int (*attach_pool)(const struct gpud_backend *b, void *mem, size_t len,
                       struct zk_diag *diag);
    /* Optional: called after a key's points are loaded (the CUDA backend
     * uploads them to the device).  0 or an error with diag set. */
    int (*key_loaded)(const struct gpud_backend *b, const struct zk_groth16_key *k,
                      struct zk_diag *diag);
    /* Optional: called once at exit, after the last prove_start, before the
     * pool is unmapped and the keys freed: frees what the backend holds
     * (device memory) and undoes attach_pool (mem NULL if it was not
     * called).  Cannot fail (errors of a dead device are ignored). */
    void (*detach)(const struct gpud_backend *b, void *mem, size_t len);
};

/*
 * prove_start and prove_wait errors that are the device's, not the partition's: the
 * partition is handed back and gpud exits non-zero so that systemd restarts
 * it (a GPU that has failed stays failed within a process).
 */
#define GPUD_DEVICE_ERROR(rc) ((rc) == ZK_EGPU || (rc) == ZK_ENODEV)

/*
 * The backend called `name` ("cpu", "cuda"), or NULL with a reason in diag.
 * "cuda" on a machine where no GPU can be used (or a build without CUDA)
 * gives the CPU backend, with the reason in diag for gpud to log.
 */
const struct gpud_backend *gpud_backend_get(const char *name, int device, struct zk_diag *diag);

/* The CUDA backend for device `device`, or NULL with the reason in diag
 * (backend_cuda.c). */
const struct gpud_backend *gpud_backend_cuda(int device, struct zk_diag *diag);

#endif /* ZK_GPUD_BACKEND_H */
