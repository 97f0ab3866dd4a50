/*
 * deadline.c -- zk_deadline_parse (zk/priority.h): `--deadline DURATION|TIME`.
 * Durations and RFC 3339 times are read by hand, character by character,
 * so that nothing depends on the locale or on strptime's leniency (it
 * accepts a day 31 of February).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "zk/priority.h"

#define NS 1000000000LL
#define MAX_AHEAD_NS (366LL * 86400 * NS)

/* n digits at *p into *v (advancing *p): 0, or -EINVAL. */
static int digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return -EINVAL;
        *v = *v * 10 + (**p - '0');
    }
    return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian, y >= 1970). */
static int64_t days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    int64_t era = y / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* "YYYY-MM-DDTHH:MM:SS[.fff](Z|+HH:MM|-HH:MM)" into *ret (Unix ns). */
static int parse_time(const char *p, int64_t *ret)
{
    static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y, mo, d, h, mi, se, oh = 0, om = 0, sign = 0;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
        digits(&p, 2, &d) || (*p != 'T' && *p != 't' && *p != ' ') || !*p++ ||
        digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) || *p++ != ':' ||
        digits(&p, 2, &se))
        return -EINVAL;
    if (*p == '.')   /* a fraction of a second: read, dropped */
        for (p++; *p >= '0' && *p <= '9'; p++)
            ;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p++ == '-' ? -1 : 1;
        if (digits(&p, 2, &oh) || *p++ != ':' || digits(&p, 2, &om) || oh > 23 || om > 59)
            return -EINVAL;
    } else {
        return -EINVAL;   /* a zone is required: local time is ambiguous */
    }
    if (*p || y < 1970 || mo < 1 || mo > 12 || d < 1 ||
        d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 || mi > 59 || se > 60)
        return -EINVAL;
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se -
                   sign * (oh * 3600 + om * 60);
    if (secs < 0 || secs > INT64_MAX / NS)
        return -ERANGE;
    *ret = secs * NS;
    return 0;
}

/* "1h30m", "30s", "250ms", "45" into *ret (ns > 0). */
static int parse_duration(const char *p, int64_t *ret)
{
    int64_t total = 0;
    if (!*p)
        return -EINVAL;
    while (*p) {
        int64_t v = 0, unit;
        if (*p < '0' || *p > '9')
            return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (v > MAX_AHEAD_NS)
                return -ERANGE;
            v = v * 10 + (*p - '0');
        }
        if (!strncmp(p, "ms", 2))
            unit = NS / 1000, p += 2;
        else if (*p == 's' || !*p)
            unit = NS, p += *p == 's';
        else if (*p == 'm')
            unit = 60 * NS, p++;
        else if (*p == 'h')
            unit = 3600 * NS, p++;
        else if (*p == 'd')
            unit = 86400 * NS, p++;
        else
            return -EINVAL;
        if (v > MAX_AHEAD_NS / unit)
            return -ERANGE;
        total += v * unit;
        if (total > MAX_AHEAD_NS)
            return -ERANGE;
    }
    if (total <= 0)
        return -EINVAL;
    *ret = total;
    return 0;
}

int zk_deadline_parse(const char *s, int64_t now_ns, int64_t *ret_ns)
{
    int64_t v;
    int r;
    if (!s || now_ns < 0)
        return -EINVAL;
    if (s[0] == '@') {
        int64_t secs = 0;
        const char *p = s + 1;
        if (!*p)
            return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (secs > INT64_MAX / NS / 10)
                return -ERANGE;
            secs = secs * 10 + (*p - '0');
        }
        if (*p)
            return -EINVAL;
        v = secs * NS;
    } else if (strlen(s) >= 10 && s[4] == '-') {
        if ((r = parse_time(s, &v)))
            return r;
    } else {
        if ((r = parse_duration(s, &v)))
            return r;
        *ret_ns = now_ns + v;
        return 0;
    }
    if (v <= now_ns)
        return -ETIME;
    if (v - now_ns > MAX_AHEAD_NS)
        return -ERANGE;
    *ret_ns = v;
    return 0;
}
