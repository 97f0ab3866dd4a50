/*
 * item.c -- one partition in gpud from its claim to its `done`: the slot it
 * holds (released once: by the backend's done_with_slot with the
 * after-start policy, else when the item ends), the backend job it started
 * (waited for before the item is freed), and the ways it ends early
 * (an error recorded in the ledger, a device that failed).
 */
#include <stdlib.h>
#include <unistd.h>

#include "daemon/ledgerretry.h"
#include "gpud.h"

/* Does a slot still hold partition id CLAIMED by this gpud?  Then a
 * hand-back leaves it alone: re-queueing it would have it synthesized
 * again while the reaper hands the same slot back READY (defect 9). */
int slot_still_claimed(long long id)
{
    struct zk_pool_info pi;
    zk_pool_info(gpud.pool, &pi);
    for (uint32_t i = 0; i < pi.nslots; i++) {
        struct zk_pool_slot_info si;
        if (zk_pool_slot_info(gpud.pool, i, &si) == 0 && si.state == ZK_SLOT_CLAIMED &&
            si.partition_id == (uint64_t)id && si.owner_pid == (int32_t)getpid())
            return 1;
    }
    return 0;
}

/* Waits for a started job that will not be finalized (the backend may
 * still be reading the slot or writing its buffers). */
void item_settle(struct item *it)
{
    if (it->job) {
        struct zk_groth16_pending *pp = NULL;
        struct zk_diag d;
        gpud.backend->prove_wait(gpud.backend, it->job, &pp, &d);
        zk_groth16_pending_free(pp);
        it->job = NULL;
    }
}

/* The slot goes back to the pool unless it was already (early release). */
void item_release_slot(struct item *it)
{
    if (atomic_exchange(&it->slot_held, 0))
        zk_pool_release(gpud.pool, &it->slot);
}

void item_free(struct item *it)
{
    if (!it)
        return;
    item_settle(it);
    zk_groth16_pending_free(it->pending);
    free(it->pub);
    free(it);
}

void part_failed(zk_ledger *l, const struct zk_ledger_part *p, const char *msg)
{
    atomic_fetch_add(&gpud.n_errors, 1);
    zkd_log(ZKD_ERR, "partition %lld (job %lld #%u): %s", (long long)p->id,
            (long long)p->job_id, p->index, msg);
    zkd_part_error(l, p, &gpud.me, msg, gpud.cfg.max_errors, gpud.cfg.max_attempts, &gpud.abort_flag);
}

/* The backend no longer reads the slot of item ctx (it copied it to the
 * GPU): with the after-start policy the slot goes back to the pool now, not
 * when the proof is done.  The backend's done_with_slot: runs in the
 * starter or, for the CUDA backend, in a thread of the CUDA runtime. */
void slot_copied(void *ctx)
{
    struct item *it = ctx;
    if (gpud.cfg.gpud_release == ZK_RELEASE_AFTER_START)
        item_release_slot(it);
}

/* A device error (GPUD_DEVICE_ERROR) while proving it: the device, not the
 * partition, failed.  gpud stops and exits non-zero so that systemd
 * restarts it; the caller hands the partition back. */
void device_lost(const struct item *it, const char *msg)
{
    zkd_log(ZKD_ERR, "partition %lld: %s; handing it back and exiting", (long long)it->p.id, msg);
    atomic_store(&gpud.device_failed, 1);
    atomic_store(&gpud.stop_flag, 1);
}

void queue_close(void)
{
    pthread_mutex_lock(&gpud.q.lock);
    gpud.q.closed = 1;
    pthread_cond_broadcast(&gpud.q.cond);
    pthread_mutex_unlock(&gpud.q.lock);
}
