/*
 * submit.c -- POST /v1/jobs (docs/api.yaml): a job from circuit inputs,
 * with the semantics of `zkslot submit --input` (tools/zkslot/lib/
 * submit_core.c holds the checks both make).
 *
 *   {"key": NAME, "inputs": [OBJECT, ...], "priority": CLASS,
 *    "deadline": DURATION|TIME, "force": BOOL, "request_id": STRING}
 *
 * or "witnesses": [BASE64, ...] instead of "inputs", or one .wtns as an
 * application/octet-stream body (witness.c), or "filecoin": {"kind",
 * "input"}, a storage provider's input split on the server (filecoin.c).
 *
 * 201 with the new job, 200 with the earlier job of the same request id
 * (per token: auth.c), 409 deadline_unmeetable when a deadline cannot be
 * met behind the queue (submit_admit, as `zkslot submit --deadline`;
 * "force": true queues it anyway).  Every refusal names the field and queues nothing:
 * the body is parsed and every input checked (submit_input_check, as the
 * key's generator would read it) before the one ledger
 * transaction that queues the job.  Unknown fields are refused, so a
 * misspelt "priorty" is not silently the default.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apid.h"
#include "submit_core.h"
#include "zk/error.h"
#include "zk/seal.h"
#include "zk/witgen.h"

void apid_submit_free(struct apid_submit *s)
{
    for (size_t i = 0; s->inputs && i < s->ninputs; i++)
        free(s->inputs[i]);
    free(s->inputs);
    free(s->lens);
    free(s->fil_input);
    json_decref(s->root);
    memset(s, 0, sizeof *s);
}

static int bad(struct apid_reply *r, const char *fmt, const char *field)
{
    return apid_error(r, 400, "bad_field", fmt, field);
}

/* The optional string field `name` of o into *ret (NULL when absent). */
static int opt_string(json_t *o, const char *name, const char **ret, struct apid_reply *r)
{
    json_t *v = json_object_get(o, name);
    *ret = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return bad(r, "%s: must be a string", name);
    *ret = json_string_value(v);
    return 0;
}

/* "inputs": a non-empty array of objects, each as compact JSON text. */
static int parse_inputs(json_t *arr, struct apid_submit *s, struct apid_reply *r)
{
    if (!json_is_array(arr) || !json_array_size(arr))
        return bad(r, "%s: must be a non-empty array of circuit input objects", "inputs");
    size_t n = json_array_size(arr);
    if (n > APID_INPUTS_MAX)
        return apid_error(r, 400, "bad_field", "inputs: %zu inputs; a job has at most %d", n,
                          APID_INPUTS_MAX);
    if (!(s->inputs = calloc(n, sizeof *s->inputs)) || !(s->lens = calloc(n, sizeof *s->lens)))
        return apid_error(r, 500, "internal", "out of memory");
    s->ninputs = n;
    for (size_t i = 0; i < n; i++) {
        json_t *in = json_array_get(arr, i);
        if (!json_is_object(in))
            return apid_error(r, 400, "bad_field", "inputs[%zu]: must be an object of "
                              "signal values", i);
        if (!(s->inputs[i] = json_dumps(in, JSON_COMPACT | JSON_ENCODE_ANY)))
            return apid_error(r, 500, "internal", "out of memory");
        s->lens[i] = strlen(s->inputs[i]);
        if (s->lens[i] > ZK_LEDGER_INPUT_MAX)
            return apid_error(r, 413, "too_large", "inputs[%zu]: %zu bytes; an input is at "
                              "most %u", i, s->lens[i], ZK_LEDGER_INPUT_MAX);
    }
    return 0;
}

int apid_submit_parse(const char *body, size_t len, int64_t now_ns, struct apid_submit *s,
                      struct apid_reply *r)
{
    static const char *const known[] = { "key", "inputs", "witnesses", "filecoin", "priority",
                                         "deadline", "force", "request_id", "out_dir" };
    json_error_t je;
    const char *key;
    json_t *val;
    memset(s, 0, sizeof *s);
    s->priority = -1;
    if (!body || !len)
        return apid_error(r, 400, "bad_json", "the body is empty: a JSON object is expected");
    if (!(s->root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je)))
        return apid_error(r, 400, "bad_json", "line %d, column %d: %s", je.line, je.column,
                          je.text);
    if (!json_is_object(s->root))
        return apid_error(r, 400, "bad_json", "the body must be a JSON object");
    json_object_foreach(s->root, key, val) {
        unsigned i = 0;
        while (i < sizeof known / sizeof *known && strcmp(key, known[i]))
            i++;
        if (i == sizeof known / sizeof *known)
            return apid_error(r, 400, "bad_field", "'%.64s': not a field of a job (key, "
                              "inputs, witnesses, filecoin, priority, deadline, force, "
                              "request_id, out_dir)", key);
    }
    if (apid_submit_fields(s, now_ns, r) < 0)
        return -1;
    json_t *inputs = json_object_get(s->root, "inputs"),
           *wits = json_object_get(s->root, "witnesses"),
           *fil = json_object_get(s->root, "filecoin");
    if (!!inputs + !!wits + !!fil > 1)
        return apid_error(r, 400, "bad_field", "inputs, witnesses, filecoin: a job is all "
                          "inputs, all witnesses or one Filecoin input, one of them");
    return wits ? apid_witnesses_parse(wits, s, r)
         : fil  ? apid_filecoin_parse(fil, s, r)
                : parse_inputs(inputs, s, r);
}

int apid_submit_fields(struct apid_submit *s, int64_t now_ns, struct apid_reply *r)
{
    const char *v;
    if (opt_string(s->root, "key", &s->key, r) < 0)
        return -1;
    if (!s->key || !*s->key)
        return bad(r, "%s: the name of a registered key is required", "key");
    if (opt_string(s->root, "priority", &v, r) < 0)
        return -1;
    if (v && (s->priority = zk_priority_parse(v)) < 0)
        return apid_error(r, 400, "bad_field", "priority: '%.32s' is not low, normal, high "
                          "or critical", v);
    if (opt_string(s->root, "deadline", &v, r) < 0)
        return -1;
    int rc = v ? zk_deadline_parse(v, now_ns, &s->deadline_ns) : 0;
    if (rc)
        return apid_error(r, 400, "bad_field", "deadline: '%.64s' %s", v,
                          rc == -ETIME    ? "is not in the future"
                          : rc == -ERANGE ? "is more than 366 days ahead"
                                          : "is not a duration (30s, 5m, 1h30m) or a time "
                                            "(2026-12-02T03:00:00Z, @UNIX_SECONDS)");
    json_t *f = json_object_get(s->root, "force");
    if (f && !json_is_boolean(f))
        return bad(r, "%s: true or false", "force");
    if ((s->force = json_is_true(f)) && !s->deadline_ns)
        return bad(r, "%s: only with a deadline", "force");
    if (opt_string(s->root, "request_id", &s->request_id, r) < 0)
        return -1;
    if (s->request_id && (!*s->request_id || strlen(s->request_id) > 96))
        return bad(r, "%s: 1 to 96 bytes", "request_id");
    if (opt_string(s->root, "out_dir", &s->out_dir, r) < 0)
        return -1;
    size_t max = sizeof ((struct zk_ledger_job *)0)->out_dir - 1;
    if (s->out_dir && (s->out_dir[0] != '/' || strlen(s->out_dir) > max))
        return apid_error(r, 400, "bad_field", "out_dir: an absolute path of at most %zu "
                          "bytes", max);
    return 0;
}

/* s's key into *k, checked for s's kind of job: 0, or -1 with r set and
 * *broke when the ledger failed. */
static int job_key(struct apid *a, zk_ledger *l, const struct apid_submit *s,
                   struct zk_ledger_key *k, struct apid_reply *r, int *broke)
{
    char msg[SUBMIT_MSG_MAX];
    int rc = submit_key_check(l, &a->c.cfg, s->key, !s->witnesses, k, msg, sizeof msg);
    *broke = rc == ZK_ELEDGER;
    if (rc == -ENOENT)
        return apid_error(r, 404, "unknown_key", "key: %s", msg);
    if (rc == ZK_ELEDGER)
        return apid_ledger_error(r, rc, msg), -1;
    if (rc < 0)
        return apid_error(r, 422, rc == -ENOEXEC ? "no_generator" : "key_unusable", "key: %s",
                          msg);
    return 0;
}

/* Queues the parsed job; the reply in r.  Returns whether the ledger broke. */
static int queue(struct apid *a, zk_ledger *l, struct apid_req *q, struct apid_submit *s,
                 struct apid_reply *r)
{
    struct zk_ledger_key k;
    struct zk_ledger_job j;
    struct zk_diag d = { "" };
    char msg[SUBMIT_MSG_MAX], who[ZK_LEDGER_PRINCIPAL_MAX + 1];
    int64_t id = 0;
    int broke, rc;
    if (job_key(a, l, s, &k, r, &broke) < 0)
        return broke;
    if (s->witnesses && apid_witnesses_check(&k, s, r) < 0)
        return 0;
    /* each input as the key's generator reads it (submit_input_check: a
     * circuit's signals, or a Filecoin synthesizer's part file) */
    for (size_t i = 0; !s->witnesses && i < s->ninputs; i++) {
        char name[32];
        snprintf(name, sizeof name, "inputs[%zu]", i);
        if (submit_input_check(&k, s->inputs[i], s->lens[i], name, &d) < 0)
            return apid_error(r, 422, "bad_input", "%s", d.msg), 0;
    }
    if (s->out_dir && apid_out_dir_check(q, s->out_dir, s->ninputs, r) < 0)
        return 0;
    if (s->deadline_ns && !s->force &&
        (rc = submit_admit(l, &k, s->priority, (uint32_t)s->ninputs, s->deadline_ns, msg,
                           sizeof msg)) < 0)
        return rc == ZK_EDEADLINE ? (apid_error(r, 409, "deadline_unmeetable", "deadline: %s; "
                                                "\"force\": true queues it anyway", msg), 0)
                                  : (apid_ledger_error(r, rc, msg), 1);
    const char **names = calloc(s->ninputs, sizeof *names);
    char(*nb)[48] = calloc(s->ninputs, sizeof *nb);
    if (!names || !nb) {
        free(names);
        free(nb);
        return apid_error(r, 500, "internal", "out of memory"), 0;
    }
    for (size_t i = 0; i < s->ninputs; i++) {
        snprintf(nb[i], sizeof nb[i], s->witnesses ? "(api) witnesses[%zu].wtns"
                                                   : "(api) inputs[%zu]", i);
        names[i] = nb[i];
    }
    /* the request id is the client's own, opaque, within its principal */
    struct zk_ledger_submit_opts so = { s->priority, s->deadline_ns, s->request_id, 0,
                                        apid_principal(q, who, sizeof who), 0, s->force };
    struct zk_seal_pub sk;   /* sealed like `zkslot submit --input`'s (zk/seal.h) */
    rc = zk_seal_for_submit(a->c.cfg.state_dir, strcmp(zk_ledger_backend(l), "sqlite") != 0,
                            &sk, &d);
    if (rc < 0) {
        free(names);
        free(nb);
        return apid_error(r, 500, "internal", "sealing the inputs: %s", d.msg), 0;
    }
    zk_ledger_set_seal(l, rc ? zk_seal_submit_cb : NULL, &sk);
    rc = zk_ledger_job_submit_opts(l, k.id, s->out_dir, &so, names,
                                   (const char *const *)s->inputs, s->lens,
                                   (uint32_t)s->ninputs, &id, &d);
    zk_ledger_set_seal(l, NULL, NULL);   /* a handle of apid's pool: no key left behind */
    free(names);
    free(nb);
    if (rc == 0 && !so.existing && (rc = zk_ledger_job_get(l, id, &j, &d)) == 0 &&
        (rc = zk_ledger_job_resolve_out(&j, a->c.cfg.state_dir)) == 0 &&
        submit_job_dirs(l, &j, a->c.cfg.state_dir, s->out_dir != NULL, msg, sizeof msg) < 0)
        return apid_error(r, 500, "output_dir", "%s", msg), 0;
    if (rc == -EINVAL)
        return apid_error(r, 400, "bad_field", "%s", d.msg), 0;
    if (rc == -EEXIST)   /* this caller's request id, another key or request */
        return apid_error(r, 409, "request_id_reused", "%s", d.msg), 0;
    if (rc < 0)
        return apid_ledger_error(r, rc, d.msg), rc == ZK_ELEDGER;
    return apid_job_reply(a, l, q, id, so.existing ? 200 : 201, r);
}

int apid_submit(struct apid *a, struct apid_req *q, struct apid_reply *r)
{
    struct apid_submit s;
    int rc = -1;
    int binary = q->content_type && !strncasecmp(q->content_type, "application/octet-stream",
                                                 strlen("application/octet-stream"));
    if ((binary ? apid_submit_parse_binary(q, lcli_now_ns(), &s, r)
                : apid_submit_parse(q->body, q->body_len, lcli_now_ns(), &s, r)) < 0)
        goto out;
    if (q->who && !token_may_submit(q->who, s.key)) {
        apid_error(r, 403, "forbidden", "key: token '%s' may not submit jobs to key '%.64s'",
                   q->who->name, s.key);
        goto out;
    }
    zk_ledger *l = apid_ledger_get(a, r);
    if (!l)
        goto out;
    if (s.fil_kind) {
        /* a provider's Filecoin input: split by the key's synthesizer
         * (filecoin.c), holding no ledger handle meanwhile (a PoRep's
         * split checks its vanilla proofs); its parts are then any job's
         * inputs, the key checked again as queue() checks it */
        struct zk_ledger_key k;
        int broke, bad = job_key(a, l, &s, &k, r, &broke) < 0;
        apid_ledger_put(a, l, broke);
        if (bad || apid_filecoin_split(a, &k, &s, r) < 0 || !(l = apid_ledger_get(a, r)))
            goto out;
    }
    apid_ledger_put(a, l, queue(a, l, q, &s, r));
    rc = 0;
out:
    apid_submit_free(&s);
    return rc;
}
