/*
 * redact.c -- a ledger URL as it may be shown (zk_ledger_url_redact): the
 * one place that takes passwords out, used by every message, log line,
 * header and configuration dump that names the ledger.
 *
 * What is a password: in a URL (postgresql://, postgres://), the part of
 * the user info after ':' and any query parameter named password; in a
 * keyword string (host=... password=...), the value of the password
 * keyword, quoted ('a b', with \' and \\) or not.  An SQLite path has no
 * password and is shown as it is.
 */
#define _GNU_SOURCE             /* memrchr */
#include <stdio.h>
#include <string.h>

#include "zk/ledger.h"

/* Appends src[0..n) to dst (size cap, *len used so far), always terminated. */
static void put(char *dst, size_t cap, size_t *len, const char *src, size_t n)
{
    if (!cap)
        return;
    size_t room = cap - 1 - *len;
    if (n > room)
        n = room;
    memcpy(dst + *len, src, n);
    *len += n;
    dst[*len] = 0;
}

/* A URL: the user info's password and ?password= / &password= dropped. */
static void redact_url(const char *url, char *buf, size_t n, size_t *len)
{
    const char *scheme = strstr(url, "://") + 3;
    size_t auth = strcspn(scheme, "/?#");   /* user:pw@host:port */
    const char *at = memrchr(scheme, '@', auth), *colon = NULL;
    if (at)
        colon = memchr(scheme, ':', (size_t)(at - scheme));
    put(buf, n, len, url, (size_t)(scheme - url));
    if (colon) {
        put(buf, n, len, scheme, (size_t)(colon - scheme));
        put(buf, n, len, at, auth - (size_t)(at - scheme));
    } else {
        put(buf, n, len, scheme, auth);
    }
    const char *p = scheme + auth;
    size_t path = strcspn(p, "?");
    put(buf, n, len, p, path);
    if (!p[path])
        return;
    p += path + 1;   /* the query: "a=b&password=c&d=e" */
    int first = 1;
    while (*p) {
        size_t seg = strcspn(p, "&");
        if (strncmp(p, "password=", 9)) {
            put(buf, n, len, first ? "?" : "&", 1);
            put(buf, n, len, p, seg);
            first = 0;
        }
        p += seg + (p[seg] == '&');
    }
}

/* Keywords: "password = value" left out, the other pairs kept. */
static void redact_keywords(const char *s, char *buf, size_t n, size_t *len)
{
    const char *p = s;
    while (*p) {
        const char *start = p;
        while (*p == ' ' || *p == '\t')
            p++;
        const char *key = p;
        while (*p && *p != '=' && *p != ' ' && *p != '\t')
            p++;
        int secret = (size_t)(p - key) == 8 && !strncmp(key, "password", 8);
        while (*p == ' ' || *p == '\t' || *p == '=')
            p++;
        if (*p == '\'') {
            for (p++; *p && *p != '\''; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p)
                p++;
        } else {
            while (*p && *p != ' ' && *p != '\t')
                p++;
        }
        if (!secret)
            put(buf, n, len, start, (size_t)(p - start));
        if (p == start)   /* nothing consumed: never loop */
            p++;
    }
}

const char *zk_ledger_url_redact(const char *url, char *buf, size_t n)
{
    size_t len = 0;
    if (n)
        buf[0] = 0;
    if (!url)
        return buf;
    if (zk_ledger_sqlite_path(url))
        put(buf, n, &len, url, strlen(url));
    else if (strstr(url, "://"))
        redact_url(url, buf, n, &len);
    else
        redact_keywords(url, buf, n, &len);
    /* a keyword string that began with its password: no leading blank */
    if (n && buf[0] == ' ')
        memmove(buf, buf + 1, strlen(buf));
    return buf;
}
