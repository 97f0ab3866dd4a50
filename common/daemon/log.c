/*
 * log.c -- one line per event on stderr (journald or a terminal).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/zkd.h"

static const char *log_name = "zkslot";
static int log_level = ZKD_INFO;
static int log_journal;

void zkd_log_init(const char *name)
{
    static const char *const levels[] = { [ZKD_ERR] = "err", [ZKD_WARN] = "warning",
                                           [ZKD_NOTICE] = "notice", [ZKD_INFO] = "info",
                                           [ZKD_DEBUG] = "debug" };
    const char *v = getenv("ZKSLOT_LOG_LEVEL");
    log_name = name;
    log_journal = getenv("JOURNAL_STREAM") != NULL;
    if (v) {
        for (int i = ZKD_ERR; i <= ZKD_DEBUG; i++) {
            if (!strcmp(v, levels[i]))
                log_level = i;
        }
    }
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
