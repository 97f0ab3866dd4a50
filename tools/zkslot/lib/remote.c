/*
 * remote.c -- the job commands against zkslot-apid (contract in remote.h;
 * the API in docs/api.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16_cli.h"
#include "http_client.h"
#include "ledger_cli.h"
#include "remote.h"
#include "zk/bellperson.h"
#include "zk/priority.h"
#include "zk/util.h"

#define REMOTE_TIMEOUT_S 60.0

const char *remote_server(void)
{
    const char *s = getenv("ZKSLOT_SERVER");
    return s && *s ? s : NULL;
}

/*
 * One call; the answer's JSON into *ret (NULL allowed when not wanted).
 * Returns the HTTP status, or -1 after "zkslot CMD: problem" on stderr
 * (a transport failure, or any status not in `ok`, a bitmask of 2xx/4xx
 * the caller handles: 1 = 200, 2 = 201, 4 = 409, 8 = 404).
 */
static int call(const char *cmd, const char *method, const char *path, json_t *body,
                double timeout_s, unsigned ok, json_t **ret)
{
    struct http_resp r;
    char err[512], *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_error_t je;
    int rc = http_call(remote_server(), method, path, text, getenv("ZKSLOT_TOKEN"),
                       getenv("ZKSLOT_CA_FILE"), timeout_s, &r, err, sizeof err);
    free(text);
    if (rc < 0) {
        fprintf(stderr, "zkslot %s: %s: %s\n", cmd, remote_server(), err);
        return -1;
    }
    json_t *o = json_loadb(r.body, r.len, 0, &je);
    free(r.body);
    unsigned bit = r.status == 200 ? 1 : r.status == 201 ? 2 : r.status == 409 ? 4
                 : r.status == 404 ? 8 : 0;
    if (!(bit & ok) || !o) {
        const char *m = json_string_value(json_object_get(json_object_get(o, "error"),
                                                          "message"));
        fprintf(stderr, "zkslot %s: %s: %d %s%s\n", cmd, remote_server(), r.status,
                m ? m : "(not a JSON answer)",
                !strcmp(cmd, "submit") ? "; nothing submitted" : "");
        json_decref(o);
        return -1;
    }
    if (ret)
        *ret = o;
    else
        json_decref(o);
    return r.status;
}

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

json_t *remote_base64_file(const char *path)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    unsigned char *b = (unsigned char *)g16_cli_read_file("submit", path, ZK_LEDGER_INPUT_MAX, &n);
    char *t = b ? malloc((n + 2) / 3 * 4 + 1) : NULL;
    size_t o = 0;
    json_t *s = NULL;
    for (size_t i = 0; t && i < n; i += 3) {
        uint32_t v = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) |
                     (i + 2 < n ? b[i + 2] : 0);
        t[o++] = abc[v >> 18];
        t[o++] = abc[v >> 12 & 63];
        t[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        t[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    if (t)
        s = json_stringn(t, o);
    free(t);
    free(b);
    return s;
}

static int post_job(json_t *body, const char *key, int priority, int64_t deadline_ns,
                    int force, const char *request_id, const char *out_dir);

int remote_submit(const char *key, char **files, int n, int input, int priority,
                  int64_t deadline_ns, int force, const char *request_id, const char *out_dir)
{
    json_t *body = json_object(), *inputs = json_array();
    int rc = 2;
    for (int i = 0; i < n; i++) {
        json_error_t je;
        /* a witness travels as base64 in "witnesses" (docs/api.yaml) */
        json_t *in = input ? json_load_file(files[i], 0, &je) : remote_base64_file(files[i]);
        if (!in && !input)
            goto out;
        if (!in) {
            fprintf(stderr, "zkslot submit: %s:%d:%d: %s; nothing submitted\n", files[i],
                    je.line, je.column, je.text);
            goto out;
        }
        json_array_append_new(inputs, in);
    }
    json_object_set(body, input ? "inputs" : "witnesses", inputs);
    rc = post_job(body, key, priority, deadline_ns, force, request_id, out_dir);
out:
    json_decref(inputs);
    json_decref(body);
    return rc;
}

int remote_submit_filecoin(const char *key, const char *kind, const char *file, int priority,
                           int64_t deadline_ns, int force, const char *request_id)
{
    json_error_t je;
    json_t *in = json_load_file(file, 0, &je);
    if (!in) {
        fprintf(stderr, "zkslot submit: %s:%d:%d: %s; nothing submitted\n", file, je.line,
                je.column, je.text);
        return 2;
    }
    json_t *body = json_pack("{s:{s:s, s:o}}", "filecoin", "kind", kind, "input", in);
    int rc = body ? post_job(body, key, priority, deadline_ns, force, request_id, NULL) : 2;
    json_decref(body);
    return rc;
}

/* body (the job's inputs, witnesses or Filecoin input) with the rest of
 * a job's fields, POSTed; its id printed.  The exit status. */
static int post_job(json_t *body, const char *key, int priority, int64_t deadline_ns,
                    int force, const char *request_id, const char *out_dir)
{
    json_t *o = NULL;
    int rc = 2;
    json_object_set_new(body, "key", json_string(key));
    if (priority >= 0)
        json_object_set_new(body, "priority", json_string(zk_priority_name(priority)));
    if (deadline_ns) {   /* whole seconds, rounded up: never earlier than asked */
        char d[32];
        snprintf(d, sizeof d, "@%lld", (long long)((deadline_ns + 999999999) / 1000000000));
        json_object_set_new(body, "deadline", json_string(d));
        if (force)
            json_object_set_new(body, "force", json_true());
    }
    if (request_id)
        json_object_set_new(body, "request_id", json_string(request_id));
    if (out_dir)
        json_object_set_new(body, "out_dir", json_string(out_dir));
    int st = call("submit", "POST", "/v1/jobs", body, REMOTE_TIMEOUT_S, 1 | 2 | 4, &o);
    if (st < 0)
        goto out;
    if (st == 409) {   /* deadline_unmeetable: exit 3 as without --server;
                          request_id_reused: 2, as the ledger's refusal is */
        json_t *e = json_object_get(o, "error");
        const char *m = json_string_value(json_object_get(e, "message"));
        const char *code = json_string_value(json_object_get(e, "code"));
        fprintf(stderr, "zkslot submit: %s: %s; nothing submitted\n", remote_server(),
                m ? m : "409");
        rc = code && !strcmp(code, "request_id_reused") ? 2 : 3;
        goto out;
    }
    long long id = (long long)json_integer_value(json_object_get(o, "id"));
    if (st == 200)
        fprintf(stderr, "zkslot submit: request id '%s' is job %lld (%s), submitted before; "
                "nothing queued\n", request_id ? request_id : "", id, str(o, "state"));
    printf("%lld\n", id);
    rc = 0;
out:
    json_decref(o);
    return rc;
}

int remote_status(int64_t id, int json)
{
    char path[64];
    json_t *o = NULL;
    if (id)
        snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)id);
    else
        snprintf(path, sizeof path, "/v1/jobs?limit=1000");
    if (call("status", "GET", path, NULL, REMOTE_TIMEOUT_S, 1, &o) < 0)
        return 2;
    if (json) {
        char *s = json_dumps(o, JSON_INDENT(2));
        if (s)
            printf("%s\n", s);
        free(s);
    } else if (id) {
        json_t *c = json_object_get(o, "counts");
        printf("job %lld: key %s, %s, %lld/%lld done\n  class: %s\n", (long long)id,
               str(o, "key"), str(o, "state"),
               (long long)json_integer_value(json_object_get(c, "done")),
               (long long)json_integer_value(json_object_get(o, "nparts")), str(o, "priority"));
        if (*str(o, "error"))
            printf("  error: %s\n", str(o, "error"));
    } else {
        size_t i;
        json_t *j;
        printf("%-8s %-20s %-9s %-8s %13s\n", "JOB", "KEY", "STATE", "CLASS", "DONE/TOTAL");
        json_array_foreach(json_object_get(o, "jobs"), i, j)
            printf("%-8lld %-20s %-9s %-8s %6lld/%-6lld\n",
                   (long long)json_integer_value(json_object_get(j, "id")), str(j, "key"),
                   str(j, "state"), str(j, "priority"),
                   (long long)json_integer_value(json_object_get(json_object_get(j, "counts"),
                                                                 "done")),
                   (long long)json_integer_value(json_object_get(j, "nparts")));
    }
    json_decref(o);
    return 0;
}

int remote_wait(int64_t id, double timeout)
{
    int64_t t0 = lcli_now_ns();
    for (;;) {   /* long polls of at most 60 s, until the end or the timeout */
        double waited = (double)(lcli_now_ns() - t0) / 1e9;
        double w = timeout < 0 ? 60 : timeout - waited;
        char path[64];
        json_t *o;
        snprintf(path, sizeof path, "/v1/jobs/%lld?wait=%.3f", (long long)id,
                 w < 0 ? 0 : w > 60 ? 60 : w);
        if (call("wait", "GET", path, NULL, (w > 60 ? 60 : w) + REMOTE_TIMEOUT_S, 1, &o) < 0)
            return 2;
        const char *st = str(o, "state");
        int rc = !strcmp(st, "done") ? 0 : !strcmp(st, "failed") || !strcmp(st, "canceled") ? 1
                                                                                             : -1;
        if (rc == 1)
            fprintf(stderr, "zkslot wait: job %lld %s: %s\n", (long long)id, st,
                    *str(o, "error") ? str(o, "error") : "(no message)");
        waited = (double)(lcli_now_ns() - t0) / 1e9;
        if (rc < 0 && timeout >= 0 && waited >= timeout) {
            json_t *c = json_object_get(o, "counts");
            fprintf(stderr, "zkslot wait: timed out after %g s: job %lld is %s (%lld/%lld "
                    "done)\n", timeout, (long long)id, st,
                    (long long)json_integer_value(json_object_get(c, "done")),
                    (long long)json_integer_value(json_object_get(o, "nparts")));
            rc = 3;
        }
        json_decref(o);
        if (rc >= 0)
            return rc;
    }
}

/* 1 if the JSON file f holds v; else 0 with why on stderr. */
static int same_json(const char *f, json_t *v, unsigned k)
{
    json_error_t je;
    json_t *o = json_load_file(f, 0, &je);
    int same = o && json_equal(o, v);
    if (!same)
        fprintf(stderr, "zkslot result: partition %u: %s: %s; `zkslot result JOB --out DIR` "
                "writes it again from the ledger\n", k, f,
                !o ? je.text : "not the result the ledger holds (refused)");
    json_decref(o);
    return same;
}

/* `zkslot result JOB` through apid's unix socket: the paths of the job's
 * files on this machine (its out_dir), each checked against the result
 * the server read from the ledger, as the local command checks them. */
static int local_paths(int64_t id)
{
    char path[64], pf[4300], uf[4300];
    json_t *j = NULL, *o = NULL, *p;
    size_t i;
    int rc = 2, missing = 0;
    snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)id);
    if (call("result", "GET", path, NULL, REMOTE_TIMEOUT_S, 1, &j) < 0)
        return 2;
    snprintf(path, sizeof path, "/v1/jobs/%lld/proofs", (long long)id);
    if (call("result", "GET", path, NULL, REMOTE_TIMEOUT_S, 1, &o) < 0)
        goto out;
    json_array_foreach(json_object_get(o, "proofs"), i, p) {
        unsigned k = (unsigned)json_integer_value(json_object_get(p, "index"));
        snprintf(pf, sizeof pf, "%s/%u/proof.json", str(j, "out_dir"), k);
        snprintf(uf, sizeof uf, "%s/%u/public.json", str(j, "out_dir"), k);
        if (same_json(pf, json_object_get(p, "proof"), k) &&
            same_json(uf, json_object_get(p, "public"), k))
            printf("%s %s\n", pf, uf);
        else
            missing++;
    }
    rc = missing ? 1 : 0;
    if (strcmp(str(j, "state"), "done")) {
        json_t *c = json_object_get(j, "counts");
        long long done = (long long)json_integer_value(json_object_get(c, "done"));
        fprintf(stderr, "zkslot result: job %lld is %s (%lld/%lld done): %s%s%s\n",
                (long long)id, str(j, "state"), done,
                (long long)json_integer_value(json_object_get(j, "nparts")),
                done ? "only the done partitions are listed" : "no result",
                *str(j, "error") ? ": " : "", str(j, "error"));
        rc = 1;
    }
out:
    json_decref(j);
    json_decref(o);
    return rc;
}

/*
 * A bellperson job's proofs (o: GET /proofs, each "proof" 384 hex digits)
 * into file `out`: the partitions' 192 bytes concatenated in index order,
 * what filecoin-proofs returns, written only when the job is done and
 * every partition is there.  The exit status.
 */
static int bp_proofs_out(int64_t id, json_t *o, const char *out)
{
    json_t *arr = json_object_get(o, "proofs"), *p;
    size_t n = json_array_size(arr), i;
    if (strcmp(str(o, "state"), "done")) {
        fprintf(stderr, "zkslot result: job %lld is %s: its proof is whole only when it is "
                "done; nothing written\n", (long long)id, str(o, "state"));
        return 1;
    }
    uint8_t *buf = calloc(n ? n : 1, ZK_BP_PROOF_BYTES);
    if (!buf)
        return 2;
    json_array_foreach(arr, i, p) {
        const char *hex = json_string_value(json_object_get(p, "proof"));
        json_int_t k = json_integer_value(json_object_get(p, "index"));
        int ok = hex && strlen(hex) == 2 * ZK_BP_PROOF_BYTES && k == (json_int_t)i;
        for (size_t j = 0; ok && j < ZK_BP_PROOF_BYTES / 32; j++) {
            char h[65];
            memcpy(h, hex + 64 * j, 64);
            h[64] = 0;
            ok = zk_bp_hex32(h, buf + (size_t)i * ZK_BP_PROOF_BYTES + 32 * j) == 0;
        }
        if (!ok) {
            fprintf(stderr, "zkslot result: job %lld: the server's proof %zu is not 384 hex "
                    "digits in order; nothing written\n", (long long)id, i);
            free(buf);
            return 2;
        }
    }
    int r = zk_write_atomic(out, buf, n * ZK_BP_PROOF_BYTES, 0644);
    free(buf);
    if (r < 0) {
        fprintf(stderr, "zkslot result: cannot write %s: %s\n", out, strerror(-r));
        return 2;
    }
    printf("%s\n", out);
    return 0;
}

int remote_result(int64_t id, const char *out)
{
    char path[64], dir[4200], pf[4300], uf[4300];
    json_t *o = NULL, *p;
    size_t i;
    int rc = 0;
    if (!out && !strncmp(remote_server(), "unix:", 5))
        return local_paths(id);   /* this machine's: the files are here */
    if (!out) {
        fprintf(stderr, "zkslot result: --server: the proofs are on the server; --out DIR "
                "writes them here\n");
        return 2;
    }
    snprintf(path, sizeof path, "/v1/jobs/%lld/proofs", (long long)id);
    if (call("result", "GET", path, NULL, REMOTE_TIMEOUT_S, 1, &o) < 0)
        return 2;
    p = json_array_get(json_object_get(o, "proofs"), 0);
    if (p && !strcmp(str(p, "format"), "bellperson")) {
        rc = bp_proofs_out(id, o, out);
        json_decref(o);
        return rc;
    }
    json_array_foreach(json_object_get(o, "proofs"), i, p) {
        long long k = (long long)json_integer_value(json_object_get(p, "index"));
        char *proof = json_dumps(json_object_get(p, "proof"), JSON_INDENT(1));
        char *pub = json_dumps(json_object_get(p, "public"), JSON_INDENT(1));
        snprintf(dir, sizeof dir, "%s/%lld", out, k);
        snprintf(pf, sizeof pf, "%s/proof.json", dir);
        snprintf(uf, sizeof uf, "%s/public.json", dir);
        int r = !proof || !pub ? -ENOMEM : lcli_mkdirs(dir);
        if (!r && !(r = zk_write_atomic(uf, pub, strlen(pub), 0644)))
            r = zk_write_atomic(pf, proof, strlen(proof), 0644);
        free(proof);
        free(pub);
        if (r < 0) {
            fprintf(stderr, "zkslot result: cannot write %s: %s\n", dir, strerror(-r));
            rc = 2;
            break;
        }
        printf("%s %s\n", pf, uf);
    }
    if (!rc && strcmp(str(o, "state"), "done")) {
        fprintf(stderr, "zkslot result: job %lld is %s: only the done partitions are "
                "listed\n", (long long)id, str(o, "state"));
        rc = 1;
    }
    json_decref(o);
    return rc;
}

int remote_cancel(int64_t id)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)id);
    json_t *o = NULL;
    int st = call("cancel", "DELETE", path, NULL, REMOTE_TIMEOUT_S, 1 | 4 | 8, &o);
    int rc = 2;
    if (st == 200) {
        fprintf(stderr, "job %lld canceled\n", (long long)id);
        rc = 0;
    } else if (st == 409) {
        fprintf(stderr, "zkslot cancel: %s\n", str(json_object_get(o, "error"), "message"));
        rc = 1;
    } else if (st == 404) {
        fprintf(stderr, "zkslot cancel: no job %lld\n", (long long)id);
    }
    json_decref(o);
    return rc;
}

int remote_keys(const char *name, int json)
{
    char path[300];
    json_t *o = NULL;
    if (name && (!*name || strcspn(name, "/?#% ") != strlen(name) || strlen(name) > 200)) {
        fprintf(stderr, "zkslot key show: '%s' is not a key name\n", name);
        return 2;
    }
    snprintf(path, sizeof path, name ? "/v1/keys/%s" : "/v1/keys", name ? name : "");
    int st = call(name ? "key show" : "key list", "GET", path, NULL, REMOTE_TIMEOUT_S, 1 | 8, &o);
    if (st < 0)
        return 2;
    if (st == 404) {   /* the server's message: "no key named 'NAME'" */
        fprintf(stderr, "zkslot key show: %s\n",
                str(json_object_get(o, "error"), "message"));
        json_decref(o);
        return 1;
    }
    if (json || name) {
        char *s = json_dumps(name ? o : json_object_get(o, "keys"), JSON_INDENT(2));
        if (s)
            printf("%s\n", s);
        free(s);
    } else {
        size_t i;
        json_t *k;
        printf("%-20s %-8s %-10s %10s %8s %10s %-32s %-6s %s\n", "NAME", "CURVE", "FORMAT",
               "NVARS", "NPUBLIC", "DOMAIN", "XXH3-128", "INPUTS", "CLASS");
        json_array_foreach(json_object_get(o, "keys"), i, k)
            printf("%-20s %-8s %-10s %10lld %8lld %10lld %-32s %-6s %s\n", str(k, "name"),
                   str(k, "curve"), str(k, "format"),
                   (long long)json_integer_value(json_object_get(k, "n_vars")),
                   (long long)json_integer_value(json_object_get(k, "n_public")),
                   (long long)json_integer_value(json_object_get(k, "domain_size")),
                   str(k, "hash"), json_is_true(json_object_get(k, "inputs")) ? "yes" : "no",
                   str(k, "priority"));
    }
    json_decref(o);
    return 0;
}
