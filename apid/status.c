/*
 * status.c -- GET /v1/status (the farm at a glance, what the page at /
 * draws) and GET / (that page: apid/page.html, compiled in).
 *
 * /v1/status: {"at_ns", "machine", "daemons": [{"role", "instance", "pid",
 * "alive", "starts"}], "pool": {"ok", "slots": "..FRC", "counts": {free,
 * filling, ready, claimed}} | {"ok": false, "error"}, "queue": {CLASS:
 * {"queued", "inflight"}}, "proofs_total", "done_last_minute",
 * "jobs": [the 20 latest jobs, newest first]} -- the snapshot `zkslot top`
 * shows (tools/zkslot/lib/observe.c).  The page computes proofs/s itself
 * from proofs_total between its looks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apid.h"
#include "job_json.h"
#include "observe.h"
#include "zk/error.h"

#define STATUS_JOBS 20

extern const char apid_page_html[];
extern const unsigned apid_page_html_len;

static json_t *pool_obj(const struct obs *o)
{
    if (!o->have_pool)
        return json_pack("{s:b, s:s, s:s}", "ok", 0, "path", o->pool_path, "error",
                         o->pool_error);
    return json_pack("{s:b, s:s, s:s, s:{s:i, s:i, s:i, s:i}}", "ok", 1, "path", o->pool_path,
                     "slots", o->slots, "counts", "free", (int)o->pool.count[0], "filling",
                     (int)o->pool.count[1], "ready", (int)o->pool.count[2], "claimed",
                     (int)o->pool.count[3]);
}

struct recent {
    const struct apid_req *q;
    json_t *ring[STATUS_JOBS];
    unsigned n;
};

/* Keeps the latest STATUS_JOBS jobs (the list comes in id order). */
static int keep_job(void *ctx, const struct zk_ledger_job *j)
{
    struct recent *r = ctx;
    if (r->q->peer[0] && !apid_owns(r->q, j))
        return 0;   /* a unix socket's user: its own jobs only */
    json_t *o = apid_job_obj(r->q, j);
    if (!o)
        return -ENOMEM;
    json_decref(r->ring[r->n % STATUS_JOBS]);
    r->ring[r->n++ % STATUS_JOBS] = o;
    return 0;
}

int apid_status(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    struct lcli c = a->c;
    struct obs o;
    struct recent rec;
    struct zk_diag d = { "" };
    memset(&rec, 0, sizeof rec);
    rec.q = q;
    if (!(c.l = apid_ledger_get(a, r)))
        return -1;
    c.cmd = "apid";
    int rc = obs_collect(&c, &o);
    int rj = rc < 0 ? 0 : zk_ledger_job_list(c.l, keep_job, &rec, &d);
    apid_ledger_put(a, c.l, rc < 0 || rj == ZK_ELEDGER);
    if (rc < 0 || rj < 0) {
        if (rc == 0)
            obs_free(&o);
        for (unsigned i = 0; i < STATUS_JOBS; i++)
            json_decref(rec.ring[i]);
        return apid_error(r, 503, "ledger_unavailable", "the status could not be collected%s%s",
                          rj < 0 ? ": " : " (the daemon's log says why)", rj < 0 ? d.msg : "");
    }
    char host[64] = "";
    if (a->c.cfg.machine[0])
        snprintf(host, sizeof host, "%s", a->c.cfg.machine);
    else
        gethostname(host, sizeof host - 1);
    json_t *daemons = json_array(), *jobs = json_array(), *queue = json_object();
    for (unsigned i = 0; i < o.ndaemons; i++)
        json_array_append_new(daemons, json_pack("{s:s, s:s, s:i, s:b, s:I}", "role",
                                                 o.daemons[i].d.role, "instance",
                                                 o.daemons[i].d.instance, "pid",
                                                 (int)o.daemons[i].d.last_pid, "alive",
                                                 o.daemons[i].alive, "starts",
                                                 (json_int_t)o.daemons[i].d.starts));
    for (unsigned k = 0; k < rec.n && k < STATUS_JOBS; k++)   /* newest first */
        json_array_append_new(jobs, rec.ring[(rec.n - 1 - k) % STATUS_JOBS]);
    for (int p = 0; p < ZK_PRIO_COUNT; p++)
        json_object_set_new(queue, zk_priority_name(p),
                            json_pack("{s:I, s:I}", "queued",
                                      (json_int_t)o.totals.queued_class[p], "inflight",
                                      (json_int_t)o.totals.inflight_class[p]));
    apid_json(r, 200, json_pack("{s:I, s:s, s:o, s:o, s:o, s:I, s:i, s:o}", "at_ns",
                                (json_int_t)o.at_ns, "machine", host, "daemons",
                                daemons, "pool", pool_obj(&o), "queue", queue, "proofs_total",
                                (json_int_t)o.totals.proofs, "done_last_minute",
                                (int)o.recent, "jobs", jobs));
    obs_free(&o);
    return 0;
}

int apid_page(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    (void)a, (void)q;
    free(r->body);
    if (!(r->body = malloc(apid_page_html_len)))
        return apid_error(r, 500, "internal", "out of memory");
    memcpy(r->body, apid_page_html, apid_page_html_len);
    r->len = apid_page_html_len;
    r->status = 200;
    r->content_type = "text/html; charset=utf-8";
    return 0;
}
