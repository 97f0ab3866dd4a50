/*
 * witness.c -- POST /v1/jobs with witnesses instead of circuit inputs
 * (docs/api.yaml), in either of two bodies:
 *
 *   application/json          {"key": NAME, "witnesses": [BASE64, ...], ...}
 *                             each a .wtns file in standard base64 (RFC 4648,
 *                             padding optional, no line breaks);
 *   application/octet-stream  one .wtns file as it is, the job's other
 *                             fields in the query: ?key=NAME[&priority=
 *                             CLASS][&deadline=...][&request_id=ID].
 *
 * A witness is checked like `zkslot submit WITNESS.wtns`: its format here
 * (zk_wtns_open_mem: 422 bad_witness naming it), then its curve and length
 * against the key's (apid_witnesses_check, once the key is read: 422).  It
 * is stored in the ledger under a name ending ".wtns", as a shared
 * ledger's witness job is (synthd/stored.c reads it back), so no file of
 * the caller's is ever opened.  Each is at most ZK_LEDGER_INPUT_MAX bytes
 * and the body at most --max-body (413).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apid.h"
#include "zk/error.h"
#include "zk/wtns.h"

/* The value of one base64 character, or -1. */
static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decodes n characters of src into *ret (malloc'd, *ret_len bytes); -1
 * (with the offset of the first bad character in *bad_at) otherwise. */
static int b64_decode(const char *src, size_t n, unsigned char **ret, size_t *ret_len,
                      size_t *bad_at)
{
    while (n && src[n - 1] == '=' && n % 4 != 1)
        n--;
    if (n % 4 == 1) {
        *bad_at = n;
        return -1;
    }
    unsigned char *out = malloc(n / 4 * 3 + 3);
    size_t o = 0;
    uint32_t acc = 0;
    if (!out) {
        *bad_at = 0;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int v = b64_value((unsigned char)src[i]);
        if (v < 0) {
            free(out);
            *bad_at = i;
            return -1;
        }
        acc = acc << 6 | (uint32_t)v;
        if (i % 4 == 3) {
            out[o++] = (unsigned char)(acc >> 16);
            out[o++] = (unsigned char)(acc >> 8);
            out[o++] = (unsigned char)acc;
            acc = 0;
        }
    }
    if (n % 4 == 2)
        out[o++] = (unsigned char)(acc >> 4);
    else if (n % 4 == 3) {
        out[o++] = (unsigned char)(acc >> 10);
        out[o++] = (unsigned char)(acc >> 2);
    }
    *ret = out;
    *ret_len = o;
    return 0;
}

/* The .wtns format of s's witness i (named `name`): 0, or 422 in r. */
static int format_check(struct apid_submit *s, size_t i, const char *name, struct apid_reply *r)
{
    struct zk_wtns w;
    struct zk_diag d = { "" };
    if (s->lens[i] > ZK_LEDGER_INPUT_MAX)
        return apid_error(r, 413, "too_large", "%s: %zu bytes; a witness is at most %u", name,
                          s->lens[i], ZK_LEDGER_INPUT_MAX);
    memset(&w, 0, sizeof w);
    int rc = zk_wtns_open_mem(&w, s->inputs[i], s->lens[i], name, &d);
    zk_wtns_done(&w);
    if (rc < 0)
        return apid_error(r, 422, "bad_witness", "%s", d.msg);
    return 0;
}

static int alloc_parts(struct apid_submit *s, size_t n, struct apid_reply *r)
{
    if (!(s->inputs = calloc(n, sizeof *s->inputs)) || !(s->lens = calloc(n, sizeof *s->lens)))
        return apid_error(r, 500, "internal", "out of memory");
    s->ninputs = n;
    s->witnesses = 1;
    return 0;
}

int apid_witnesses_parse(json_t *arr, struct apid_submit *s, struct apid_reply *r)
{
    if (!json_is_array(arr) || !json_array_size(arr))
        return apid_error(r, 400, "bad_field", "witnesses: must be a non-empty array of "
                          "base64 .wtns files");
    size_t n = json_array_size(arr);
    if (n > APID_INPUTS_MAX)
        return apid_error(r, 400, "bad_field", "witnesses: %zu witnesses; a job has at most %d",
                          n, APID_INPUTS_MAX);
    if (alloc_parts(s, n, r) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        char name[40];
        size_t bad_at;
        snprintf(name, sizeof name, "witnesses[%zu]", i);
        if (!json_is_string(v))
            return apid_error(r, 400, "bad_field", "%s: must be a base64 string", name);
        if (b64_decode(json_string_value(v), json_string_length(v),
                       (unsigned char **)&s->inputs[i], &s->lens[i], &bad_at) < 0)
            return apid_error(r, 400, "bad_field", "%s: not base64 (character %zu)", name,
                              bad_at);
        if (format_check(s, i, name, r) < 0)
            return -1;
    }
    return 0;
}

int apid_submit_parse_binary(const struct apid_req *q, int64_t now_ns, struct apid_submit *s,
                             struct apid_reply *r)
{
    memset(s, 0, sizeof *s);
    s->priority = -1;
    if (!(s->root = json_object()))
        return apid_error(r, 500, "internal", "out of memory");
    for (unsigned i = 0; i < q->nquery; i++) {
        const char *k = q->query[i].key;
        const char *v = q->query[i].value ? q->query[i].value : "";
        if (strcmp(k, "key") && strcmp(k, "priority") && strcmp(k, "deadline") &&
            strcmp(k, "force") && strcmp(k, "request_id"))
            return apid_error(r, 400, "bad_field", "'%.64s': not a query parameter of an "
                              "uploaded witness (key, priority, deadline, force, request_id)",
                              k);
        if (json_object_get(s->root, k))
            return apid_error(r, 400, "bad_field", "%s: given twice", k);
        if (!strcmp(k, "force") && strcmp(v, "true") && strcmp(v, "false"))
            return apid_error(r, 400, "bad_field", "force: true or false");
        json_object_set_new(s->root, k, !strcmp(k, "force") ? json_boolean(!strcmp(v, "true"))
                                                            : json_string(v));
    }
    if (apid_submit_fields(s, now_ns, r) < 0)
        return -1;
    if (!q->body_len)
        return apid_error(r, 400, "bad_field", "the body is empty: one .wtns file is expected");
    if (alloc_parts(s, 1, r) < 0)
        return -1;
    if (!(s->inputs[0] = malloc(q->body_len)))
        return apid_error(r, 500, "internal", "out of memory");
    memcpy(s->inputs[0], q->body, q->body_len);
    s->lens[0] = q->body_len;
    return format_check(s, 0, "the body", r);
}

int apid_witnesses_check(const struct zk_ledger_key *k, const struct apid_submit *s,
                         struct apid_reply *r)
{
    struct zk_zkey_header zh;
    memset(&zh, 0, sizeof zh);
    zh.curve = !strcmp(k->curve, "bls12381") ? ZK_CURVE_BLS12_381 : ZK_CURVE_BN254;
    zh.n_vars = (uint32_t)k->n_vars;
    for (size_t i = 0; i < s->ninputs; i++) {
        struct zk_wtns w;
        struct zk_diag d = { "" };
        char name[40];
        snprintf(name, sizeof name, "witnesses[%zu]", i);
        memset(&w, 0, sizeof w);
        int rc = zk_wtns_open_mem(&w, s->inputs[i], s->lens[i], name, &d);
        if (rc == 0)
            rc = zk_wtns_check_against_zkey(&w.hdr, &zh, name, &d);
        zk_wtns_done(&w);
        if (rc < 0)
            return apid_error(r, 422, "bad_witness", "%s (key '%s')", d.msg, k->name);
    }
    return 0;
}
