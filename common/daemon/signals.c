/*
 * signals.c -- signals arrive through a signalfd read by the main loop;
 * no handler ever runs.
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
