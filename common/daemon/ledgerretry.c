/*
 * ledgerretry.c -- retries of a daemon's conditional ledger transitions
 * and the ledger's health, logged once per change (ledgerretry.h).
 *
 * Why: a part_done, part_proving or part_ready that fails (SQLITE_BUSY
 * past the busy timeout, a full disk, an I/O error) was only logged, and
 * reconcile leaves a live owner's partitions alone: the job never finished
 * until the daemon restarted.  The transitions are conditional on the state
 * the daemon saw, so retrying them is safe; the state here is only what the
 * log and STATUS say, one state per process so that five threads failing at
 * once log one line.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/ledgerretry.h"
#include "daemon/zkd.h"
#include "zk/error.h"
#include "zk/ledger.h"

static pthread_mutex_t h_lock = PTHREAD_MUTEX_INITIALIZER;
static int h_bad;                     /* the ledger is unwritable */
static double h_since;                /* zkd_now() of the first failure */
static unsigned long h_failures;      /* failed attempts while unwritable */
static char h_what[96], h_why[sizeof ((struct zk_diag *)0)->msg];

int zkd_ledger_transient(int r)
{
    return r == ZK_ELEDGER;
}

unsigned zkd_ledger_backoff_ms(unsigned *ms)
{
    *ms = *ms ? (*ms >= 1000 ? 2000 : *ms * 2) : 50;
    return *ms;
}

void zkd_ledger_unwritable(const char *what, const struct zk_diag *diag)
{
    pthread_mutex_lock(&h_lock);
    h_failures++;
    if (!h_bad) {
        h_bad = 1;
        h_since = zkd_now();
        snprintf(h_what, sizeof h_what, "%s", what ? what : "a write");
        snprintf(h_why, sizeof h_why, "%s", diag && diag->msg[0] ? diag->msg : "?");
        /* once per change: the threads retrying say nothing more */
        zkd_log(ZKD_ERR, "ledger unwritable: %s: %s; retrying, the partitions in hand kept "
                "in their slots until it can be recorded", h_what, h_why);
    }
    pthread_mutex_unlock(&h_lock);
}

void zkd_ledger_writable(void)
{
    pthread_mutex_lock(&h_lock);
    if (h_bad) {
        h_bad = 0;
        zkd_log(ZKD_NOTICE, "ledger writable again after %.1f s (%lu failed attempt(s))",
                zkd_now() - h_since, h_failures);
        h_failures = 0;
    }
    pthread_mutex_unlock(&h_lock);
}

int zkd_ledger_is_unwritable(void)
{
    pthread_mutex_lock(&h_lock);
    int bad = h_bad;
    pthread_mutex_unlock(&h_lock);
    return bad;
}

double zkd_ledger_unwritable_since(void)
{
    pthread_mutex_lock(&h_lock);
    double t = h_bad ? h_since : 0;
    pthread_mutex_unlock(&h_lock);
    return t;
}

void zkd_ledger_health_status(char *buf, size_t n)
{
    pthread_mutex_lock(&h_lock);
    if (h_bad)
        snprintf(buf, n, "ledger unwritable for %.0f s (%s: %.80s); ", zkd_now() - h_since,
                 h_what, h_why);
    else if (n)
        buf[0] = 0;
    pthread_mutex_unlock(&h_lock);
}

int zkd_ledger_retry(zkd_ledger_op op, void *ctx, const char *what, const zk_cancel_flag *stop,
                     struct zk_diag *diag)
{
    unsigned ms = 0;
    for (;;) {
        int r = op(ctx, diag);
        if (!zkd_ledger_transient(r)) {
            zkd_ledger_writable();   /* an answer: the write lock was taken */
            return r;
        }
        zkd_ledger_unwritable(what, diag);
        /* the pause looks at *stop every 0.1 s: a hand-back is not held
         * back by it */
        for (unsigned left = zkd_ledger_backoff_ms(&ms);; left -= left < 100 ? left : 100) {
            if (stop && atomic_load(stop))
                return r;
            if (!left)
                break;
            usleep((left < 100 ? left : 100) * 1000u);
        }
    }
}

struct error_op {
    zk_ledger *l;
    const struct zk_ledger_part *p;
    const struct zk_proc_id *me;
    const char *msg;
    uint32_t max_errors, max_attempts;
    int failed;
};

static int error_op(void *ctx, struct zk_diag *diag)
{
    struct error_op *o = ctx;
    return zk_ledger_part_error(o->l, o->p->id, o->me, o->msg, o->max_errors, o->max_attempts,
                                &o->failed, diag);
}

int zkd_part_error(zk_ledger *l, const struct zk_ledger_part *p, const struct zk_proc_id *me,
                   const char *msg, uint32_t max_errors, uint32_t max_attempts,
                   const zk_cancel_flag *stop)
{
    struct zk_diag d;
    struct error_op o = { l, p, me, msg, max_errors, max_attempts, 0 };
    if (zkd_ledger_retry(error_op, &o, "recording a partition's error", stop, &d)) {
        zkd_log(ZKD_WARN, "partition %lld: recording the error: %s", (long long)p->id, d.msg);
        return 0;
    }
    if (o.failed)
        zkd_log(ZKD_ERR, "partition %lld failed for good; its job fails", (long long)p->id);
    return o.failed;
}

struct requeue_op {
    zk_ledger *l;
    int64_t id;
    int expect;
    const struct zk_proc_id *owner;
    const char *note;
};

static int requeue_op(void *ctx, struct zk_diag *diag)
{
    struct requeue_op *o = ctx;
    return zk_ledger_part_requeue(o->l, o->id, (enum zk_part_state)o->expect, o->owner, o->note,
                                  diag);
}

int zkd_part_requeue(zk_ledger *l, int64_t id, int expect, const struct zk_proc_id *owner,
                     const char *note, const zk_cancel_flag *stop)
{
    struct zk_diag d;
    struct requeue_op o = { l, id, expect, owner, note };
    return zkd_ledger_retry(requeue_op, &o, "re-queuing a partition", stop, &d);
}
