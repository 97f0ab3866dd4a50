/*
 * notify.c -- sd_notify(3), or nothing when built without libsystemd.
 *
 * A daemon that drains says STOPPING=1 at once (zkd_notify_stopping),
 * whatever started the stop: systemd 252 disarms the watchdog of a unit
 * that is stopping, but SIGABRTs one that stopped by itself without saying
 * so and went quiet while it finished a long proof.  WATCHDOG=1 goes on
 * while it drains, for managers that keep the watchdog armed then.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/zkd.h"

#if ZK_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

int zkd_notify(const char *fmt, ...)
{
#if ZK_HAVE_SYSTEMD
    /* The last STATUS= sent: an unchanged one is not sent again (the
     * daemons call this every tick; the manager only needs changes).
     * Guarded: gpud's starter thread also reports lazy key loads. */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char last_status[512];
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!strncmp(msg, "STATUS=", 7)) {
        pthread_mutex_lock(&lock);
        int same = !strcmp(msg, last_status);
        if (!same)
            memcpy(last_status, msg, sizeof msg);
        pthread_mutex_unlock(&lock);
        if (same)
            return 0;
    }
    return sd_notify(0, msg);
#else
    (void)fmt;
    return 0;
#endif
}

uint64_t zkd_watchdog_usec(void)
{
#if ZK_HAVE_SYSTEMD
    uint64_t usec = 0;
    return sd_watchdog_enabled(0, &usec) > 0 ? usec : 0;
#else
    return 0;
#endif
}

void zkd_notify_stopping(int healthy, const char *status)
{
    /* main thread only; STOPPING=1 first so that the manager knows the
     * unit is deactivating before any later line */
    static int sent;
    if (!sent) {
        zkd_notify("STOPPING=1");
        sent = 1;
    }
    zkd_notify("STATUS=%s", status);
    if (healthy && zkd_watchdog_usec())
        zkd_notify("WATCHDOG=1");
}
