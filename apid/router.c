/*
 * router.c -- the route table of zkslot-apid and the dispatch every
 * request goes through: route (404/405), authenticate (401), run the
 * handler.  `zkslot-apid --routes` prints the table (the OpenAPI test
 * compares it with docs/api.yaml).  A request target with a control byte,
 * raw or percent-escaped (`/v1/keys/mimc%00x`, which a C string would cut
 * to `mimc`), is refused before any route: 400 bad_path or bad_query.
 */
#include <ctype.h>
#include <string.h>

#include "apid.h"

const struct apid_route apid_routes[] = {
    { "POST", "/v1/jobs", apid_submit, 0 },
    { "GET", "/v1/jobs", apid_job_list, 0 },
    { "GET", "/v1/jobs/{id}", apid_job_get, 0 },
    { "DELETE", "/v1/jobs/{id}", apid_job_cancel, 0 },
    { "GET", "/v1/jobs/{id}/proofs", apid_proofs, 0 },
    { "GET", "/v1/jobs/{id}/proofs/{k}", apid_proof, 0 },
    { "GET", "/v1/keys", apid_keys, 0 },
    { "GET", "/v1/keys/{name}", apid_key, 0 },
    { "GET", "/healthz", apid_healthz, 1 },
    { "GET", "/metrics", apid_metrics, 0 },
    { "GET", "/v1/status", apid_status, 0 },
    { "GET", "/", apid_page, 1 },
};
const unsigned apid_nroutes = sizeof apid_routes / sizeof apid_routes[0];

static int is_ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* The value of the escape %XY at s (s[0] == '%'), or -1 when it is none. */
static int escaped(const char *s)
{
    static const char hex[] = "0123456789abcdef";
    if (!s[1] || !s[2] || !isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
        return -1;
    return (int)((strchr(hex, tolower((unsigned char)s[1])) - hex) * 16 +
                 (strchr(hex, tolower((unsigned char)s[2])) - hex));
}

int apid_target_check(const char *raw, size_t len, struct apid_reply *r)
{
    size_t query = len;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)raw[i];
        if (c == '?' && query == len)
            query = i;
        if (c == '%' && i + 2 < len && escaped(raw + i) >= 0)
            c = escaped(raw + i);
        if (is_ctl((unsigned char)c))
            return apid_error(r, 400, i < query ? "bad_path" : "bad_query",
                              "byte %zu of the request target, in its %s, is the control "
                              "character 0x%02x%s", i, i < query ? "path" : "query", c,
                              raw[i] == '%' ? " (percent-escaped)" : "");
    }
    return 0;
}

/* Does path match pattern, segment by segment ({x} takes one non-empty
 * segment, stored into params)?  1 or 0. */
static int match(const char *pattern, const char *path, const char **params, char *store,
                 size_t n)
{
    unsigned np = 0;
    size_t used = 0;
    while (*pattern && *path) {
        if (*pattern != '/' || *path != '/')
            return 0;
        pattern++, path++;
        size_t pl = strcspn(pattern, "/"), sl = strcspn(path, "/");
        if (*pattern == '{') {
            if (!sl || np == APID_PARAMS_MAX || used + sl + 1 > n)
                return 0;
            memcpy(store + used, path, sl);
            store[used + sl] = 0;
            params[np++] = store + used;
            used += sl + 1;
        } else if (pl != sl || strncmp(pattern, path, pl)) {
            return 0;
        }
        pattern += pl, path += sl;
    }
    return !*pattern && !*path;
}

const struct apid_route *apid_route(struct apid_req *q, struct apid_reply *r)
{
    static __thread char store[1024];
    char allow[64] = "";
    const char *params[APID_PARAMS_MAX];
    const struct apid_route *found = NULL;
    for (const char *p = q->path; *p; p++)   /* decoded (server.c checked the escapes) */
        if (is_ctl((unsigned char)*p))
            return apid_error(r, 400, "bad_path", "byte %td of the path is the control "
                              "character 0x%02x", p - q->path, (unsigned char)*p), NULL;
    for (unsigned i = 0; i < apid_nroutes; i++) {
        const struct apid_route *rt = &apid_routes[i];
        if (!match(rt->pattern, q->path, params, store, sizeof store))
            continue;
        if (!strcmp(rt->method, q->method) ||
            (!strcmp(q->method, "HEAD") && !strcmp(rt->method, "GET"))) {
            found = rt;
            memcpy(q->params, params, sizeof params);
            break;
        }
        if (strlen(allow) + strlen(rt->method) + 3 < sizeof allow)
            strcat(strcat(allow, allow[0] ? ", " : ""), rt->method);
    }
    if (found)
        return found;
    if (allow[0]) {
        static __thread char allow_hdr[64];
        memcpy(allow_hdr, allow, sizeof allow);
        r->allow = allow_hdr;
        apid_error(r, 405, "method_not_allowed", "%s %s: this path takes %s", q->method,
                   q->path, allow);
    } else {
        apid_error(r, 404, "no_route", "%s: no such path (docs/api.yaml lists them)",
                   q->path);
    }
    return NULL;
}

void apid_dispatch(struct apid *a, struct apid_req *q, const char *authorization,
                   struct apid_reply *r)
{
    const struct apid_route *rt = apid_route(q, r);
    if (!rt)
        return;
    if (!rt->open && apid_auth(a, authorization, q, r) < 0)
        return;
    rt->fn(a, q, r);
}
