/*
 * proofs.c -- GET /v1/jobs/{id}/proofs and /proofs/{k}: each done
 * partition's proof.json and public.json as gpud wrote them (snarkjs's
 * shapes), from the ledger (zk_ledger_part_result), so any apid of a farm
 * serves them whichever machine proved.
 *
 *   /proofs      {"proofs": [{"index": K, "proof": {...}, "public": [...]}, ...]}
 *                (the done partitions, in index order)
 *   /proofs/{k}  {"proof": {...}, "public": [...]}; 409 "not_done" before
 *
 * A bellperson key's partition (a Filecoin proof: docs/filecoin.md) has
 * "proof": its 192 bytes as 384 hex digits, and "format": "bellperson";
 * a job's proof is its partitions' bytes concatenated in index order.
 *
 * A result is served only as the proof of its partition's statement
 * (zk_result_check: the signals synthd recorded, the proof verified with
 * the key's file where it is on this machine); otherwise 500
 * "result_mismatch" naming the partition, and nothing of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apid.h"
#include "zk/bellperson.h"
#include "zk/error.h"
#include "zk/statement.h"

struct proofs_ctx {
    zk_ledger *l;
    json_t *arr;                      /* NULL: one partition, `want` */
    int64_t want;
    json_t *one;
    int state;                        /* of `want` */
    int found;
    struct zk_diag d;
    struct zk_ledger_key key;         /* the job's */
    struct zk_groth16_vk vk;          /* where its file is here */
    int have_vk;
    zk_bp_key *bp_key;                /* a bellperson key's (its vk), when here */
};

/* The result of partition p as {"proof", "public"}, only as the proof of
 * p's statement (zk/statement.h); NULL with rc set (ZK_ESTATEMENT: not). */
static json_t *result_obj(struct proofs_ctx *c, const struct zk_ledger_part *p, int *rc)
{
    struct zk_ledger_result res;
    json_error_t je;
    struct zk_diag *d = &c->d;
    int64_t id = p->id;
    if ((*rc = zk_ledger_part_result(c->l, id, &res, d)) < 0)
        return NULL;
    int bp = c->key.format == ZK_KEY_BELLPERSON;
    *rc = bp ? zk_result_check_bp(&c->key, p, c->bp_key ? zk_bp_key_vk(c->bp_key) : NULL,
                                  res.proof, res.pub, d)
             : zk_result_check(&c->key, p, c->have_vk ? &c->vk : NULL, res.proof, res.pub, d);
    if (*rc < 0) {
        zk_ledger_result_free(&res);
        return NULL;
    }
    /* a bellperson proof's hex digits (checked above), its newline dropped */
    json_t *proof = !bp ? json_loadb(res.proof, res.proof_len, 0, &je)
                    : res.proof_len >= 2 * ZK_BP_PROOF_BYTES
                        ? json_stringn(res.proof, 2 * ZK_BP_PROOF_BYTES) : NULL;
    json_t *pub = json_loadb(res.pub, res.pub_len, 0, &je);
    zk_ledger_result_free(&res);
    if (!proof || !pub) {
        json_decref(proof);
        json_decref(pub);
        *rc = ZK_EFORMAT;
        zk_diag_set(d, "result", ZK_EFORMAT, "partition %lld: the stored proof is unreadable "
                    "(%s)", (long long)id, bp ? "not 384 hex digits" : "not JSON");
        return NULL;
    }
    return bp ? json_pack("{s:o, s:o, s:s}", "proof", proof, "public", pub, "format",
                          "bellperson")
              : json_pack("{s:o, s:o}", "proof", proof, "public", pub);
}

static int each_part(void *ctx, const struct zk_ledger_part *p)
{
    struct proofs_ctx *c = ctx;
    int rc;
    if (!c->arr) {
        if (p->index != c->want)
            return 0;
        c->found = 1;
        c->state = p->state;
        if (p->state == ZK_PART_DONE && !(c->one = result_obj(c, p, &rc)))
            return rc;
        return 0;
    }
    if (p->state != ZK_PART_DONE)
        return 0;
    json_t *o = result_obj(c, p, &rc);
    if (!o)
        return rc == -ENOENT ? 0 : rc;   /* done by a zkslot that kept none */
    json_object_set_new(o, "index", json_integer(p->index));
    return json_array_append_new(c->arr, o) ? -ENOMEM : 0;
}

static int serve(struct apid *a, struct apid_req *q, struct apid_reply *r, int one)
{
    struct proofs_ctx c;
    struct zk_ledger_job j;
    int64_t id, k = 0;
    memset(&c, 0, sizeof c);
    if (apid_parse_id(q->params[0], &id) < 0)
        return apid_error(r, 404, "no_job", "'%.32s' is not a job id", q->params[0]);
    if (one && (!strcmp(q->params[1], "0") ? 0 : apid_parse_id(q->params[1], &k)) < 0)
        return apid_error(r, 404, "no_partition", "'%.32s' is not a partition index",
                          q->params[1]);
    if (!(c.l = apid_ledger_get(a, r)))
        return -1;
    c.want = k;
    c.arr = one ? NULL : json_array();
    int rc = zk_ledger_job_get(c.l, id, &j, &c.d), nojob = rc == -ENOENT;
    if (rc == 0 && !apid_may_see(q, &j, r)) {   /* a unix socket's user: 403 in r */
        apid_ledger_put(a, c.l, 0);
        json_decref(c.arr);
        return -1;
    }
    if (rc == 0)
        rc = zk_ledger_key_get_id(c.l, j.key_id, &c.key, &c.d);
    if (rc == 0) {
        struct zk_diag dv = { "" };   /* no file here: signals checked alone */
        if (c.key.format == ZK_KEY_BELLPERSON)
            zk_result_key_bp(&c.key, a->c.cfg.pool, &c.bp_key, &dv);
        else
            c.have_vk = zk_result_vk(&c.key, &c.vk, &dv) == 0;
        rc = zk_ledger_part_list(c.l, id, each_part, &c, &c.d);
        if (c.have_vk)
            zk_groth16_vk_done(&c.vk);
        zk_bp_key_close(c.bp_key);
    }
    apid_ledger_put(a, c.l, rc == ZK_ELEDGER);
    if (nojob) {
        json_decref(c.arr);
        return apid_error(r, 404, "no_job", "job %lld: no such job", (long long)id);
    }
    if (rc < 0) {
        json_decref(c.arr);
        json_decref(c.one);
        if (rc == ZK_ESTATEMENT)
            return apid_error(r, 500, "result_mismatch", "%s", c.d.msg);
        if (rc == -ENOENT)
            return apid_error(r, 404, "no_proof", "job %lld partition %lld: no result kept "
                              "(proved by a zkslot that kept none)", (long long)id,
                              (long long)k);
        return apid_ledger_error(r, rc, c.d.msg);
    }
    if (!one) {
        apid_json(r, 200, json_pack("{s:I, s:s, s:o}", "id", (json_int_t)id, "state",
                                    zk_job_state_name(j.state), "proofs", c.arr));
        return 0;
    }
    if (!c.found)
        return apid_error(r, 404, "no_partition", "job %lld has %u partitions; no index %lld",
                          (long long)id, j.nparts, (long long)k);
    if (!c.one)
        return apid_error(r, 409, "not_done", "job %lld partition %lld is %s, not done",
                          (long long)id, (long long)k, zk_part_state_name(c.state));
    apid_json(r, 200, c.one);
    return 0;
}

int apid_proofs(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    return serve(a, q, r, 0);
}

int apid_proof(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    return serve(a, q, r, 1);
}
