/*
 * health.c -- GET /healthz (served without a token: a load balancer's
 * probe) and GET /metrics (the families of `zkslot metrics`,
 * tools/zkslot/lib/observe.c).
 *
 * /healthz: 200 {"status": "ok", "ledger": {...}, "pool": {...}} when the
 * ledger answers and the pool can be attached (as an observer), else 503
 * {"status": "unavailable", ...} with the cause under the part that failed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apid.h"
#include "observe.h"
#include "zk/error.h"

static json_t *pool_health(struct apid *a)
{
    struct zk_pool_attach_opts ao = { "apid", ZK_POOL_OBSERVER, 0, NULL };
    zk_pool *h = calloc(1, zk_pool_sizeof());
    if (!h)
        return json_pack("{s:b, s:s}", "ok", 0, "error", "out of memory");
    int rc = zk_pool_attach(h, a->c.cfg.pool, &ao);
    json_t *o = rc ? json_pack("{s:b, s:s, s:s}", "ok", 0, "path", a->c.cfg.pool, "error",
                               zk_strerror(rc))
                   : json_pack("{s:b, s:s}", "ok", 1, "path", a->c.cfg.pool);
    if (!rc)
        zk_pool_detach(h);
    free(h);
    return o;
}

int apid_healthz(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    uint64_t count[ZK_PART_STATE_COUNT];
    struct zk_diag d = { "" };
    struct apid_reply lr = { 0 };
    json_t *ledger;
    (void)q;
    zk_ledger *l = apid_ledger_get(a, &lr);
    int rc = l ? zk_ledger_counts(l, count, &d) : -1;
    if (l) {
        apid_ledger_put(a, l, rc < 0);
        ledger = rc < 0 ? json_pack("{s:b, s:s}", "ok", 0, "error", d.msg)
                        : json_pack("{s:b, s:s}", "ok", 1, "backend", zk_ledger_backend(l));
    } else {
        json_error_t je;
        json_t *e = json_loads(lr.body ? lr.body : "{}", 0, &je);
        ledger = json_pack("{s:b, s:O?}", "ok", 0, "error",
                           json_object_get(json_object_get(e, "error"), "message"));
        json_decref(e);
    }
    free(lr.body);
    json_t *pool = pool_health(a);
    int ok = json_is_true(json_object_get(ledger, "ok")) &&
             json_is_true(json_object_get(pool, "ok"));
    apid_json(r, ok ? 200 : 503, json_pack("{s:s, s:o, s:o}", "status",
                                           ok ? "ok" : "unavailable", "ledger", ledger,
                                           "pool", pool));
    return 0;
}

int apid_metrics(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    struct lcli c = a->c;
    struct obs o;
    char *buf = NULL;
    size_t len = 0;
    (void)q;
    if (!(c.l = apid_ledger_get(a, r)))
        return -1;
    c.cmd = "apid";
    int rc = obs_collect(&c, &o);
    apid_ledger_put(a, c.l, rc < 0);
    if (rc < 0)
        return apid_error(r, 503, "ledger_unavailable", "the metrics could not be collected "
                          "(the daemon's log says why)");
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        obs_write_prometheus(&o, f);
        fclose(f);
    }
    obs_free(&o);
    if (!buf)
        return apid_error(r, 500, "internal", "out of memory");
    free(r->body);
    r->status = 200;
    r->body = buf;
    r->len = len;
    r->content_type = "text/plain; version=0.0.4";
    return 0;
}
