/*
 * reply.c -- JSON replies, the one error shape {"error": {"code",
 * "message"}}, and the small parsers of paths and queries (apid.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apid.h"

void apid_json(struct apid_reply *r, unsigned status, json_t *o)
{
    free(r->body);
    r->body = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    r->status = r->body ? status : 500;
    r->len = r->body ? strlen(r->body) : 0;
    r->content_type = NULL;
}

int apid_error(struct apid_reply *r, unsigned status, const char *code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)   /* one line */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    json_t *o = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg);
    if (!o) {   /* not UTF-8 (a client's bytes quoted): those bytes as '?' */
        for (char *p = msg; *p; p++)
            if ((unsigned char)*p >= 0x80)
                *p = '?';
        o = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg);
    }
    apid_json(r, status, o);
    return -1;
}

const char *apid_query(const struct apid_req *q, const char *key)
{
    for (unsigned i = 0; i < q->nquery; i++)
        if (!strcmp(q->query[i].key, key))
            return q->query[i].value ? q->query[i].value : "";
    return NULL;
}

int apid_parse_id(const char *s, int64_t *ret)
{
    char *end;
    if (!s || *s < '1' || *s > '9')
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v <= 0)
        return -1;
    *ret = v;
    return 0;
}
