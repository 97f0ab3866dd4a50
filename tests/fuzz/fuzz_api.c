/*
 * fuzz_api.c -- libFuzzer target for zkslot-apid's request handling
 * before any ledger: the route table (paths, methods, {param} segments),
 * the bearer header against a token table, a query value as an id, and
 * the body of POST /v1/jobs (apid_submit_parse: JSON, fields, inputs,
 * base64 witnesses, a Filecoin input's kind and object).
 *
 * The input: line 1 "METHOD PATH[?QUERY]", line 2 the Authorization
 * header, the rest the body.  Every refusal is one error object {"error":
 * {"code", "message"}} with a one-line message and a 4xx/5xx status; a
 * routed request has its params; an accepted submit has a key and at
 * least one input, each of which parses back as a JSON object, or at
 * least one witness, each a .wtns, or a Filecoin input (a known kind, an
 * object) and no other.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apid.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* r is an error reply of the one shape, or abort. */
static void check_error(struct apid_reply *r)
{
    json_error_t je;
    json_t *o = r->body ? json_loadb(r->body, r->len, 0, &je) : NULL;
    json_t *e = json_object_get(o, "error");
    const char *msg = json_string_value(json_object_get(e, "message"));
    if (r->status < 400 || r->status > 599 || !json_is_string(json_object_get(e, "code")) ||
        !msg || strchr(msg, '\n'))
        abort();
    json_decref(o);
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* 1 if target, its escapes decoded, holds a control byte (the oracle of
 * apid_target_check, written apart from it). */
static int decodes_to_control(const char *target)
{
    for (const char *p = target; *p; p++) {
        unsigned v = (unsigned char)*p;
        char hex[3] = { 0 };
        if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
            memcpy(hex, p + 1, 2);
            v = (unsigned)strtoul(hex, NULL, 16);
        }
        if (v < 0x20 || v == 0x7f)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct apid a;
    static struct api_token tok = { "fuzz", "", "k1,k2", 0 };
    char *s = fuzz_text(data, size);
    if (!s)
        return 0;
    if (!a.tokens.n) {
        zk_sha256_hex("zks_secret", 10, tok.hash);
        a.tokens.t = &tok;
        a.tokens.n = 1;
        a.tokens_path = "fuzz";
        pthread_rwlock_init(&a.tokens_lock, NULL);
    }
    char *line2 = strchr(s, '\n'), *body = NULL;
    if (line2) {
        *line2++ = 0;
        if ((body = strchr(line2, '\n')))
            *body++ = 0;
    }
    struct apid_req q;
    struct apid_reply r = { 0 };
    memset(&q, 0, sizeof q);
    char *sp = strchr(s, ' ');
    q.method = s;
    q.path = "/";
    if (sp) {
        *sp = 0;
        q.path = sp + 1;
        if (apid_target_check(q.path, strlen(q.path), &r) < 0) {
            if (r.status != 400 || !decodes_to_control(q.path))
                abort();
            check_error(&r);
        } else if (decodes_to_control(q.path)) {
            abort();   /* a control byte let through */
        }
        char *qs = strchr(sp + 1, '?');
        if (qs) {
            *qs++ = 0;
            for (char *kv = strtok(qs, "&"); kv && q.nquery < APID_QUERY_MAX;
                 kv = strtok(NULL, "&")) {
                char *eq = strchr(kv, '=');
                if (eq)
                    *eq++ = 0;
                q.query[q.nquery].key = kv;
                q.query[q.nquery++].value = eq;
            }
        }
    }
    const struct apid_route *rt = apid_route(&q, &r);
    if (!rt) {
        check_error(&r);
    } else {
        for (const char *p = rt->pattern; (p = strchr(p, '{')); p++)
            if (!q.params[0] || !*q.params[0])
                abort();
    }
    if (apid_auth(&a, line2, &q, &r) < 0)
        check_error(&r);
    else if (!q.who || strcmp(q.who->name, "fuzz"))
        abort();
    int64_t id;
    for (unsigned i = 0; i < q.nquery; i++)
        if (q.query[i].value && apid_parse_id(q.query[i].value, &id) == 0 && id <= 0)
            abort();
    struct apid_submit sub;
    size_t blen = body ? strlen(body) : 0;
    if (apid_submit_parse(body, blen, 1764644400LL * 1000000000, &sub, &r) < 0) {
        check_error(&r);
    } else {
        if (!sub.key || !*sub.key || (!sub.ninputs && !sub.fil_kind) ||
            (sub.fil_kind && sub.ninputs))
            abort();
        if (sub.fil_kind) {   /* a Filecoin input: a known kind, an object's text */
            json_error_t je;
            json_t *o = json_loadb(sub.fil_input, sub.fil_input_len, 0, &je);
            if (!json_is_object(o) || (strcmp(sub.fil_kind, "porep") && strcmp(sub.fil_kind,
                "winning") && strcmp(sub.fil_kind, "window") && strcmp(sub.fil_kind, "snap")))
                abort();
            json_decref(o);
        }
        for (size_t i = 0; i < sub.ninputs && sub.witnesses; i++)
            if (sub.lens[i] < 4 || memcmp(sub.inputs[i], "wtns", 4))
                abort();   /* a witness passed its format check */
        for (size_t i = 0; i < sub.ninputs && !sub.witnesses; i++) {
            json_error_t je;
            json_t *o = json_loadb(sub.inputs[i], sub.lens[i], 0, &je);
            if (!json_is_object(o))
                abort();
            json_decref(o);
        }
        if (sub.out_dir && sub.out_dir[0] != '/')
            abort();   /* a relative out_dir let through */
        (void)token_may_submit(&tok, sub.key);
    }
    apid_submit_free(&sub);
    free(s);
    return 0;
}
