/*
 * finisher.c -- gpud's finisher thread: wait for the backend's part of
 * prove_start, prove_finalize (B2's G2 MSM unless the backend did it,
 * blinding), self-verify when asked, write the outputs, record `done`
 * (retried while the ledger is unwritable: a failed attempt was rolled
 * back, so it is recorded once), and release the slot (policy
 * after-proof).  Partition N is finalized here while the starter runs
 * partition N+1's prove_start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "daemon/ledgerretry.h"
#include "gpud.h"
#include "util/testhook.h"
#include "zk/error.h"

struct done_op {
    zk_ledger *l;
    int64_t id;
    const struct zk_ledger_timings *t;
    const struct zk_ledger_result *res;
    int dup;
    unsigned calls;
};

/* A repeat follows a failure that may have committed unseen (a lost
 * connection): ZK_LEDGER_DONE_RETRY, so our own done is not counted twice. */
static int done_op(void *ctx, struct zk_diag *diag)
{
    struct done_op *o = ctx;
    unsigned flags = (o->dup ? ZK_LEDGER_DONE_DUPLICATE : 0) |
                     (o->calls++ ? ZK_LEDGER_DONE_RETRY : 0);
    return zk_ledger_part_done(o->l, o->id, &gpud.me, o->t, o->res, flags, diag);
}

struct job_op {
    zk_ledger *l;
    int64_t id;
    struct zk_ledger_job *job;
};

static int job_op(void *ctx, struct zk_diag *diag)
{
    struct job_op *o = ctx;
    return zk_ledger_job_get(o->l, o->id, o->job, diag);
}

void *finisher_main(void *arg)
{
    zk_ledger *l = NULL;
    struct zk_diag d;
    int r;

    (void)arg;
    if ((r = zkd_open_ledger_wait(&gpud.cfg, &l, "the finisher's connection", &gpud.stop_flag,
                                  &gpud.hb_finisher_ms, &d))) {
        if (!atomic_load(&gpud.stop_flag))
            zkd_log(ZKD_ERR, "finisher: %s", d.msg);
        atomic_store(&gpud.stop_flag, 1);
    }
    for (;;) {
        struct item *it;
        pthread_mutex_lock(&gpud.q.lock);
        while (!gpud.q.item && !gpud.q.closed) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 1;
            pthread_cond_timedwait(&gpud.q.cond, &gpud.q.lock, &ts);
            atomic_store(&gpud.hb_finisher_ms, now_ms());
        }
        it = gpud.q.item;
        gpud.q.item = NULL;
        pthread_cond_broadcast(&gpud.q.cond);
        pthread_mutex_unlock(&gpud.q.lock);
        if (!it)
            break;   /* closed and drained */
        atomic_store(&gpud.busy_finisher, 1);
        atomic_store(&gpud.hb_finisher_ms, now_ms());
        if (!l || atomic_load(&gpud.abort_flag)) {
            if (l)
                zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &gpud.me,
                                 "gpud stopped before finishing it", &gpud.abort_flag);
            goto next;
        }
        struct zk_groth16_proof proof;
        struct zk_ledger_job job;
        struct zk_ledger_result res = { 0 };
        /* the device's part of prove_start (the CUDA backend queued it)
         * counts as start, not finalize */
        double t0 = zkd_now();
        if (it->bp) {   /* proved in the starter: self-verify, the texts */
            if ((r = gpud_bp_finish(it, &res, &d))) {
                part_failed(l, &it->p, d.msg);
                goto next;
            }
            goto written;
        }
        r = gpud.backend->prove_wait(gpud.backend, it->job, &it->pending, &d);
        it->job = NULL;
        it->start_s += zkd_now() - t0;
        t0 = zkd_now();
        if (r) {
            if (GPUD_DEVICE_ERROR(r)) {
                device_lost(it, d.msg);
                zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &gpud.me,
                                 "gpud's device failed", &gpud.abort_flag);
            } else {
                part_failed(l, &it->p, d.msg);
            }
            goto next;
        }
        if ((r = zk_groth16_prove_finalize(it->pending, gpud.nthreads, &proof))) {
            snprintf(d.msg, sizeof d.msg, "prove_finalize failed: %s", zk_strerror(r));
            part_failed(l, &it->p, d.msg);
            goto next;
        }
        if (gpud.cfg.gpud_self_verify) {
            int valid = 0;
            const zk_scalar *pub = it->pub;
            const struct key_ext *kx = it->key->ext;
            r = zk_groth16_verify(&kx->vk, pub, kx->vk.n_public, &proof, &valid);
            if (r || !valid) {
                part_failed(l, &it->p, r ? "self-verify could not run" :
                            "self-verify rejected the proof (bad witness or key?)");
                goto next;
            }
        }
        if ((r = proof_texts(it, &proof, &res))) {
            part_failed(l, &it->p, "out of memory for the proof's JSON");
            goto next;
        }
written:;
        /* a read, retried while the ledger cannot be reached (a connection
         * the server or a cut ended is made again): the ledger's failure is
         * not the partition's, so no error is charged for it; given up only
         * on a hand-back, which leaves the partition to be handed back */
        struct job_op jo = { l, it->p.job_id, &job };
        r = zkd_ledger_retry(job_op, &jo, "reading a partition's job", &gpud.abort_flag, &d);
        if (zkd_ledger_transient(r)) {
            zkd_part_requeue(l, it->p.id, ZK_PART_PROVING, &gpud.me,
                             "gpud stopped before finishing it", &gpud.abort_flag);
            zk_ledger_result_free(&res);
            goto next;
        }
        if (r || (r = zk_ledger_job_resolve_out(&job, gpud.cfg.state_dir))) {
            part_failed(l, &it->p, r == -ENAMETOOLONG ? "output directory name too long"
                                                      : d.msg);
            zk_ledger_result_free(&res);
            goto next;
        }
        /* synthd vetted the row before synthesis; a slot from before
         * (an older synthd, a producer) is vetted here, before its
         * directory is written (issue 46) */
        char why[512];
        if ((r = zk_ledger_part_vet(l, it->p.id, why, sizeof why, &d)) != 0) {
            part_failed(l, &it->p, r > 0 ? why : d.msg);
            zk_ledger_result_free(&res);
            goto next;
        }
        int dup = 0;
        if ((r = write_proof(&job, it, &res, &dup, &d))) {
            zk_ledger_result_free(&res);
            part_failed(l, &it->p, d.msg);
            goto next;
        }
        /* Test hook: ZKSLOT_TEST_RECORD_HOLD_MS holds a written proof that
         * long before the ledger records it, so a test can kill -9 there. */
        const char *hold = zk_test_hook("ZKSLOT_TEST_RECORD_HOLD_MS");
        if (hold) {
            zkd_log(ZKD_WARN, "test hook: partition %lld: proof written, not yet recorded",
                    (long long)it->p.id);
            usleep((useconds_t)atoi(hold) * 1000u);
        }
        struct zk_ledger_timings t = { it->synth_s, it->wait_s, it->start_s, zkd_now() - t0,
                                       it->witness_s };
        /* retried while the ledger is unwritable (the proof is written;
         * with --release after-proof the slot stays held meanwhile): a
         * failed attempt was rolled back, so `done` is recorded once */
        struct done_op dop = { l, it->p.id, &t, &res, dup, 0 };
        r = zkd_ledger_retry(done_op, &dop, "marking a partition done", &gpud.abort_flag, &d);
        if (r == -EFBIG) {   /* done all the same: the files are written here */
            zkd_log(ZKD_WARN, "partition %lld: result not kept in the ledger: %s",
                    (long long)it->p.id, d.msg);
            dop.res = NULL;
            dop.calls = 0;   /* refused whole: nothing committed */
            r = zkd_ledger_retry(done_op, &dop, "marking a partition done", &gpud.abort_flag,
                                 &d);
        }
        zk_ledger_result_free(&res);
        if (r == ZK_ESTATE)
            zkd_log(ZKD_INFO, "partition %lld: proof written but the job was canceled",
                    (long long)it->p.id);
        else if (r)
            zkd_log(ZKD_ERR, "partition %lld: marking done: %s", (long long)it->p.id, d.msg);
        atomic_fetch_add(&gpud.n_proved, 1);
        if (dup)
            atomic_fetch_add(&gpud.n_duplicates, 1);
        zkd_log(ZKD_INFO, "partition %lld (job %lld #%u) proved%s: wait %.3f s, start %.3f s, "
                "finalize %.3f s -> %s/%u/%s", (long long)it->p.id,
                (long long)it->p.job_id, it->p.index, dup ? " again (duplicate)" : "",
                it->wait_s, it->start_s, t.finalize_s, job.out_dir, it->p.index,
                it->bp ? "proof.bin" : "proof.json");
next:
        item_settle(it);
        item_release_slot(it);
        atomic_store(&gpud.inflight[1], 0);
        item_free(it);
        atomic_store(&gpud.busy_finisher, 0);
    }
    zk_ledger_close(l);
    return NULL;
}
