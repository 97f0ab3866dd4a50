/*
 * jobs.c -- GET /v1/jobs/{id} (?wait=SECONDS: a long poll), GET /v1/jobs
 * (filters and paging), DELETE /v1/jobs/{id} (docs/api.yaml).
 *
 * A job is shown as `zkslot status JOB --json` shows it (job_json.h), its
 * partitions under "partitions", its request id as the client gave it.
 * A long poll looks at the ledger every poll_ms, without holding a ledger
 * handle in between, in its connection's own thread, until the job is
 * done, failed or canceled or the wait is over (at most APID_WAIT_MAX_S):
 * then it answers the job as it is (200 either way; "state" says which).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apid.h"
#include "job_json.h"
#include "zk/error.h"

static int add_part(void *ctx, const struct zk_ledger_part *p)
{
    json_t *o = part_json(p);
    if (o)   /* where the input came from on the server: nothing for a client */
        json_object_del(o, "witness");
    return o ? json_array_append_new(ctx, o) : -ENOMEM;
}

json_t *apid_job_obj(const struct apid_req *q, const struct zk_ledger_job *j)
{
    char p[ZK_LEDGER_PRINCIPAL_MAX + 1];
    const char *me = apid_principal(q, p, sizeof p);   /* NULL: the machine's own */
    json_t *o = job_json(j);
    if (o && !q->peer[0])   /* the server's path: nothing for a client elsewhere; a local
                             * user's own (`zkslot result` prints the files' paths) */
        json_object_del(o, "out_dir");
    if (o && me && strcmp(me, j->principal))
        json_object_del(o, "request_id");
    return o;
}

int apid_job_reply(struct apid *a, zk_ledger *l, const struct apid_req *q, int64_t id,
                   unsigned status, struct apid_reply *r)
{
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    int rc = zk_ledger_job_get(l, id, &j, &d);
    if (rc == -ENOENT)
        return apid_error(r, 404, "no_job", "job %lld: no such job", (long long)id), 0;
    if (rc < 0)
        return apid_ledger_error(r, rc, d.msg), rc == ZK_ELEDGER;
    if (!apid_may_see(q, &j, r))
        return 0;
    if ((rc = zk_ledger_job_resolve_out(&j, a->c.cfg.state_dir)) < 0)
        return apid_error(r, 500, "internal", "job %lld: output directory name too long",
                          (long long)id), 0;
    json_t *o = apid_job_obj(q, &j), *parts = json_array();
    if (!o || !parts || json_object_set_new(o, "partitions", parts) < 0) {
        json_decref(o);
        return apid_error(r, 500, "internal", "out of memory"), 0;
    }
    if ((rc = zk_ledger_part_list(l, id, add_part, parts, &d)) < 0) {
        json_decref(o);
        return apid_ledger_error(r, rc, d.msg), rc == ZK_ELEDGER;
    }
    apid_json(r, status, o);
    return 0;
}

static int finished(int state)
{
    return state == ZK_JOB_DONE || state == ZK_JOB_FAILED || state == ZK_JOB_CANCELED;
}

int apid_job_get(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    int64_t id;
    double wait = 0;
    const char *w = apid_query(q, "wait");
    if (apid_parse_id(q->params[0], &id) < 0)
        return apid_error(r, 404, "no_job", "'%.32s' is not a job id", q->params[0]);
    if (w) {
        char *end;
        wait = strtod(w, &end);
        if (end == w || *end || !(wait >= 0) || wait > APID_WAIT_MAX_S)
            return apid_error(r, 400, "bad_query", "wait: '%.32s' is not 0 to %d seconds", w,
                              APID_WAIT_MAX_S);
    }
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned round = 0;; round++) {
        struct zk_ledger_job j;
        struct zk_diag d = { "" };
        zk_ledger *l = apid_ledger_get(a, r);
        if (!l)
            return -1;
        int rc = zk_ledger_job_get(l, id, &j, &d);
        clock_gettime(CLOCK_MONOTONIC, &now);
        double waited = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) * 1e-9;
        if (rc < 0 || finished(j.state) || waited >= wait || atomic_load(&a->stopping)) {
            int broken = rc == 0 ? apid_job_reply(a, l, q, id, 200, r)
                         : rc == -ENOENT ? (apid_error(r, 404, "no_job", "job %lld: no such "
                                                       "job", (long long)id), 0)
                                         : (apid_ledger_error(r, rc, d.msg), rc == ZK_ELEDGER);
            apid_ledger_put(a, l, broken);
            return 0;
        }
        apid_ledger_put(a, l, 0);
        double ms = a->poll_ms, left = (wait - waited) * 1e3;
        if (left < ms)
            ms = left;
        struct timespec ts = { (time_t)(ms / 1e3), (long)((ms - (double)(time_t)(ms / 1e3) * 1e3) * 1e6) };
        nanosleep(&ts, NULL);
        (void)round;
    }
}

struct list_ctx {
    const struct apid_req *q;
    json_t *arr;
    const char *key;
    int state;                        /* -1: any */
    int64_t after;                    /* ids above only */
    unsigned limit, n;
    int64_t last;
    int more;
};

static int add_job(void *ctx, const struct zk_ledger_job *j)
{
    struct list_ctx *c = ctx;
    if (j->id <= c->after || (c->key && strcmp(c->key, j->key_name)) ||
        (c->state >= 0 && j->state != c->state) || (c->q->peer[0] && !apid_owns(c->q, j)))
        return 0;   /* a unix socket's user lists its own jobs only */
    if (c->n == c->limit) {
        c->more = 1;
        return 0;
    }
    json_t *o = apid_job_obj(c->q, j);
    if (!o || json_array_append_new(c->arr, o))
        return -ENOMEM;
    c->n++;
    c->last = j->id;
    return 0;
}

int apid_job_list(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    struct list_ctx c = { q, NULL, apid_query(q, "key"), -1, 0, 100, 0, 0, 0 };
    struct zk_diag d = { "" };
    const char *s = apid_query(q, "state"), *lim = apid_query(q, "limit"),
               *after = apid_query(q, "after");
    int64_t v;
    if (s && (c.state = zk_job_state_parse(s)) < 0)
        return apid_error(r, 400, "bad_query", "state: '%.32s' is not queued, running, done, "
                          "failed or canceled", s);
    if (lim) {
        if (apid_parse_id(lim, &v) < 0 || v > 1000)
            return apid_error(r, 400, "bad_query", "limit: '%.32s' is not 1 to 1000", lim);
        c.limit = (unsigned)v;
    }
    if (after && apid_parse_id(after, &c.after) < 0)
        return apid_error(r, 400, "bad_query", "after: '%.32s' is not a job id", after);
    zk_ledger *l = apid_ledger_get(a, r);
    if (!l)
        return -1;
    c.arr = json_array();
    int rc = c.arr ? zk_ledger_job_list(l, add_job, &c, &d) : -ENOMEM;
    apid_ledger_put(a, l, rc == ZK_ELEDGER);
    if (rc < 0) {
        json_decref(c.arr);
        return apid_ledger_error(r, rc, rc == -ENOMEM ? "out of memory" : d.msg);
    }
    apid_json(r, 200, json_pack("{s:o, s:o}", "jobs", c.arr, "next",
                                c.more ? json_integer(c.last) : json_null()));
    return 0;
}

int apid_job_cancel(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    int64_t id;
    if (apid_parse_id(q->params[0], &id) < 0)
        return apid_error(r, 404, "no_job", "'%.32s' is not a job id", q->params[0]);
    zk_ledger *l = apid_ledger_get(a, r);
    if (!l)
        return -1;
    int rc = zk_ledger_job_get(l, id, &j, &d), broken = 0;
    if (rc == -ENOENT) {
        apid_error(r, 404, "no_job", "job %lld: no such job", (long long)id);
    } else if (rc < 0) {
        broken = rc == ZK_ELEDGER;
        apid_ledger_error(r, rc, d.msg);
    } else if (!apid_may_see(q, &j, r)) {
        ;   /* a unix socket's user: 403 in r */
    } else if (!apid_owns(q, &j)) {
        apid_error(r, 403, "forbidden", "job %lld: token '%s' may cancel only its own jobs",
                   (long long)id, q->who->name);
    } else if ((rc = zk_ledger_job_cancel(l, id, &d)) == ZK_ESTATE) {
        apid_error(r, 409, "finished", "job %lld has finished already (%s)", (long long)id,
                   zk_job_state_name(j.state));
    } else if (rc < 0) {
        broken = rc == ZK_ELEDGER;
        apid_ledger_error(r, rc, d.msg);
    } else {
        broken = apid_job_reply(a, l, q, id, 200, r);
    }
    apid_ledger_put(a, l, broken);
    return 0;
}
