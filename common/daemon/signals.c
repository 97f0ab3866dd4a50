/*
 * signals.c -- signals arrive through a signalfd read by the main loop;
 * no handler ever runs.
 *
 * Which signal asks for what (zkd_signals_poll), as PostgreSQL tells its
 * shutdown modes apart by signal rather than by count:
 *   SIGTERM          finish: take no new work, finish what is in hand, exit 0.
 *                    Idempotent: systemd, GNU `timeout` (which signals the
 *                    child and then its whole process group) and other
 *                    supervisors may deliver one stop twice, and a repeat
 *                    must not turn a clean stop into a hand-back.
 *   SIGINT, SIGQUIT  hand back: what is in hand goes back to the queue at
 *                    once (nothing is lost, it is redone), then exit 0.
 *                    Also after a SIGTERM, to cut a long drain short.
 *   SIGHUP           ignored and logged: there is nothing to reopen (logs go
 *                    to stderr) and the configuration is not re-read (restart
 *                    the daemon to apply it, which loses nothing).  It must
 *                    not stop a daemon whose terminal or session went away.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "daemon/zkd.h"

int zkd_signals_open(void)
{
    sigset_t block, fdset;
    sigemptyset(&fdset);
    sigaddset(&fdset, SIGTERM);
    sigaddset(&fdset, SIGINT);
    sigaddset(&fdset, SIGQUIT);
    sigaddset(&fdset, SIGHUP);
    block = fdset;
    sigaddset(&block, SIGPIPE);
    if (pthread_sigmask(SIG_BLOCK, &block, NULL))
        return -EINVAL;
    int fd = signalfd(-1, &fdset, SFD_CLOEXEC | SFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

int zkd_signals_read(int fd)
{
    struct signalfd_siginfo si;
    ssize_t n = read(fd, &si, sizeof si);
    return n == (ssize_t)sizeof si ? (int)si.ssi_signo : 0;
}

int zkd_signals_poll(int fd, int *stop)
{
    int sig, was = *stop;
    while ((sig = zkd_signals_read(fd))) {
        switch (sig) {
        case SIGHUP:
            zkd_log(ZKD_NOTICE, "SIGHUP: ignored (nothing to reopen; restart the daemon to "
                    "apply configuration changes)");
            break;
        case SIGTERM:
            if (*stop == ZKD_RUN) {
                zkd_log(ZKD_INFO, "SIGTERM: finishing the partitions in hand, then exiting "
                        "(SIGINT or SIGQUIT hands them back at once)");
                *stop = ZKD_FINISH;
            } else {
                zkd_log(ZKD_DEBUG, "SIGTERM again: already stopping");
            }
            break;
        default:   /* SIGINT, SIGQUIT */
            if (*stop != ZKD_HANDBACK)
                zkd_log(ZKD_INFO, "%s: handing the partitions in hand back",
                        sig == SIGINT ? "SIGINT" : "SIGQUIT");
            *stop = ZKD_HANDBACK;
            break;
        }
    }
    return *stop != was;
}
