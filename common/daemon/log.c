/*
 * log.c -- one line per event on stderr (journald or a terminal).
 *
 * ZKSLOT_LOG_LEVEL is one of err, warning, notice, info (default), debug;
 * another value is kept by zkd_log_init and refused by zkd_parse_args
 * (zkd_log_level_bad), so both daemons and their --check-config exit 2
 * naming it instead of logging at a level nobody asked for.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/zkd.h"
#include "util/testhook.h"

static const char *log_name = "zkslot";
static int log_level = ZKD_INFO;
static int log_journal;
static const char *log_level_bad;      /* an unknown ZKSLOT_LOG_LEVEL, or NULL */

void zkd_log_init(const char *name)
{
    static const char *const levels[] = { [ZKD_ERR] = "err", [ZKD_WARN] = "warning",
                                           [ZKD_NOTICE] = "notice", [ZKD_INFO] = "info",
                                           [ZKD_DEBUG] = "debug" };
    const char *v = getenv("ZKSLOT_LOG_LEVEL");
    log_name = name;
    log_journal = getenv("JOURNAL_STREAM") != NULL;
    log_level_bad = NULL;
    if (v) {
        int found = 0;
        for (int i = ZKD_ERR; i <= ZKD_DEBUG; i++) {
            if (!strcmp(v, levels[i])) {
                log_level = i;
                found = 1;
            }
        }
        if (!found)
            log_level_bad = v;
    }
}

const char *zkd_log_level_bad(void)
{
    return log_level_bad;
}

void zkd_log(int prio, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (prio > log_level)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (log_journal) {
        fprintf(stderr, "<%d>%s\n", prio, msg);
    } else {
        struct timespec ts;
        struct tm tm;
        char when[32];
        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        strftime(when, sizeof when, "%H:%M:%S", &tm);
        fprintf(stderr, "%s.%03ld %s[%d]: %s%s\n", when, ts.tv_nsec / 1000000, log_name,
                (int)getpid(), prio <= ZKD_ERR ? "error: " : prio == ZKD_WARN ? "warning: " : "",
                msg);
    }
}

void zkd_test_hooks_log(void)
{
    char set[512];
    if (!zk_test_hooks_set(set, sizeof set))
        return;
    if (zk_test_hooks_enabled())
        zkd_log(ZKD_WARN, "test hooks active: %s (a build for tests or ZKSLOT_TEST_HOOKS=1; "
                "never in production)", set);
    else
        zkd_log(ZKD_WARN, "test hooks ignored: %s (this build honours them only with "
                "ZKSLOT_TEST_HOOKS=1)", set);
}
