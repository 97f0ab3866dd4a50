/*
 * input.c -- a circuit input (circom's input.json) checked before it is
 * queued (zk/witgen.h: zk_input_check); a bellperson key's generator input
 * (a Filecoin part file) only as a JSON object (zk_input_check_object).
 *
 * What circom's witness generators accept as a value: an integer, or a
 * string of one in decimal or 0x hex with an optional minus sign; arrays
 * (of any depth) and objects (buses) of values.  Anything else would only
 * fail later, inside a generator, after a slot was taken for it.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "zk/error.h"
#include "zk/witgen.h"

#define MAX_DEPTH 32

static int integer_text(const char *s)
{
    if (*s == '-')
        s++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        if (!*s)
            return 0;
        for (; *s; s++)
            if (!isxdigit((unsigned char)*s))
                return 0;
        return 1;
    }
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* path: "signal" / "signal[2]" / "bus.field", built as the walk descends */
static int check_value(const json_t *v, char *path, size_t plen, size_t cap, int depth,
                       const char *name, struct zk_diag *diag)
{
    if (depth > MAX_DEPTH)
        return zk_diag_set(diag, name, ZK_EJSON, "signal '%s': nested deeper than %d", path,
                           MAX_DEPTH);
    switch (json_typeof(v)) {
    case JSON_INTEGER:
        return 0;
    case JSON_STRING:
        if (integer_text(json_string_value(v)))
            return 0;
        return zk_diag_set(diag, name, ZK_EJSON, "signal '%s': \"%.40s\" is not an integer",
                           path, json_string_value(v));
    case JSON_ARRAY: {
        size_t i;
        const json_t *e;
        json_array_foreach(v, i, e) {
            int n = snprintf(path + plen, cap - plen, "[%zu]", i);
            size_t nl = n > 0 && (size_t)n < cap - plen ? plen + (size_t)n : plen;
            int r = check_value(e, path, nl, cap, depth + 1, name, diag);
            path[plen] = 0;
            if (r)
                return r;
        }
        return 0;
    }
    case JSON_OBJECT: {
        const char *k;
        const json_t *e;
        json_object_foreach((json_t *)v, k, e) {
            int n = snprintf(path + plen, cap - plen, "%s%s", plen ? "." : "", k);
            size_t nl = n > 0 && (size_t)n < cap - plen ? plen + (size_t)n : plen;
            int r = check_value(e, path, nl, cap, depth + 1, name, diag);
            path[plen] = 0;
            if (r)
                return r;
        }
        return 0;
    }
    case JSON_REAL:
        return zk_diag_set(diag, name, ZK_EJSON, "signal '%s': %g is not an integer", path,
                           json_real_value(v));
    default:
        return zk_diag_set(diag, name, ZK_EJSON,
                           "signal '%s': a value is an integer, a string of one, or an array",
                           path);
    }
}

/* The text parsed as one JSON object: 0 with *root, or ZK_EJSON with
 * one line ("NAME:LINE:COLUMN: message", or what it is instead). */
static int parse_object(const char *buf, size_t len, const char *name, const char *what,
                        json_t **root, struct zk_diag *diag)
{
    json_error_t e;
    *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
    if (!*root) {
        char loc[300];
        snprintf(loc, sizeof loc, "%.280s:%d:%d", name ? name : "<input>", e.line, e.column);
        return zk_diag_set(diag, loc, ZK_EJSON, "%s%s", e.text,
                           strstr(e.text, "too big") ? " (write large numbers as strings)" : "");
    }
    if (!json_is_object(*root)) {
        json_decref(*root);
        *root = NULL;
        return zk_diag_set(diag, name, ZK_EJSON, "%s", what);
    }
    return 0;
}

int zk_input_check(const char *buf, size_t len, const char *name, struct zk_diag *diag)
{
    json_t *root;
    int r = parse_object(buf, len, name, "a circuit input is a JSON object of signals", &root,
                         diag);
    if (r)
        return r;
    char path[512] = "";
    r = check_value(root, path, 0, sizeof path, 0, name, diag);
    json_decref(root);
    return r;
}

int zk_input_check_object(const char *buf, size_t len, const char *name, struct zk_diag *diag)
{
    json_t *root;
    int r = parse_object(buf, len, name, "a synthesizer's input is a JSON object", &root, diag);
    json_decref(root);
    return r;
}
