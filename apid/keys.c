/*
 * keys.c -- GET /v1/keys and GET /v1/keys/{name}: the registered keys a
 * client may submit to (name, curve, format, sizes, default class, whether jobs
 * from circuit inputs are possible; /v1/keys/{name} also its verification
 * key as snarkjs's vk.json, vk.c).  Read only: no route registers keys
 * or witness generators (docs/architecture.md, "Trust model"); the
 * server's paths and generator commands are not shown.
 */
#include <errno.h>
#include <string.h>

#include "apid.h"
#include "zk/error.h"

static json_t *key_obj(const struct zk_ledger_key *k)
{
    return json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:b, s:s}", "name", k->name,
                     "curve", k->curve, "format", zk_key_format_name(k->format), "n_vars",
                     (json_int_t)k->n_vars, "n_public", (json_int_t)k->n_public,
                     "domain_size", (json_int_t)k->domain_size, "priority",
                     zk_priority_name(k->priority), "inputs", k->witgen_kind != 0, "hash",
                     k->hash);
}

struct keys_ctx {
    json_t *arr;
    const struct apid_req *q;
};

static int add_key(void *ctx, const struct zk_ledger_key *k)
{
    struct keys_ctx *c = ctx;
    json_t *o = key_obj(k);
    if (o && c->q->who)
        json_object_set_new(o, "may_submit", json_boolean(token_may_submit(c->q->who, k->name)));
    return o ? json_array_append_new(c->arr, o) : -ENOMEM;
}

int apid_keys(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    struct zk_diag d = { "" };
    struct keys_ctx c = { json_array(), q };
    zk_ledger *l = apid_ledger_get(a, r);
    if (!l) {
        json_decref(c.arr);
        return -1;
    }
    int rc = c.arr ? zk_ledger_key_list(l, add_key, &c, &d) : -ENOMEM;
    apid_ledger_put(a, l, rc == ZK_ELEDGER);
    if (rc < 0) {
        json_decref(c.arr);
        return apid_ledger_error(r, rc, rc == -ENOMEM ? "out of memory" : d.msg);
    }
    apid_json(r, 200, json_pack("{s:o}", "keys", c.arr));
    return 0;
}

int apid_key(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    struct zk_ledger_key k;
    struct zk_diag d = { "" };
    zk_ledger *l = apid_ledger_get(a, r);
    if (!l)
        return -1;
    int rc = zk_ledger_key_get(l, q->params[0], &k, &d);
    apid_ledger_put(a, l, rc == ZK_ELEDGER);
    if (rc == -ENOENT)
        return apid_error(r, 404, "unknown_key", "no key named '%.64s'", q->params[0]);
    if (rc < 0)
        return apid_ledger_error(r, rc, d.msg);
    char why[512] = "";
    json_t *o = key_obj(&k), *vk = apid_key_vk(&k, why, sizeof why);
    if (o) {
        json_object_set_new(o, "vk", vk ? vk : json_null());
        if (!vk)
            json_object_set_new(o, "vk_error", json_string(why));
    } else {
        json_decref(vk);
    }
    apid_json(r, 200, o);
    return 0;
}
