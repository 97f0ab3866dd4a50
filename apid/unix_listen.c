/*
 * unix_listen.c -- `zkslot-apid --listen unix:PATH`: the API on a unix
 * socket, for clients on this machine only (docs/api.md, "Listeners").
 *
 * The socket is made with mode 0660: its owner and group are the daemon's
 * (under zkslot-apid.service, zkslot:zkslot), so the daemon's user and the
 * members of its group (the operators) may connect, and no other user.
 * Like a loopback address it needs no token file; with one, tokens are
 * asked for as on any listener.  A socket left at PATH by an apid that
 * died is replaced; a live one (something accepts a connection), or a
 * file that is not a socket, is refused.  The path is removed at exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "apid.h"

#define APID_UNIX_MODE 0660

int apid_unix_addr(const char *spec, struct sockaddr_storage *ss)
{
    struct sockaddr_un *sun = (struct sockaddr_un *)ss;
    const char *path = spec + strlen(APID_UNIX_PREFIX);
    if (strncmp(spec, APID_UNIX_PREFIX, strlen(APID_UNIX_PREFIX)) || path[0] != '/' ||
        strlen(path) >= sizeof sun->sun_path)
        return -1;
    memset(ss, 0, sizeof *ss);
    sun->sun_family = AF_UNIX;
    memcpy(sun->sun_path, path, strlen(path) + 1);
    return 0;
}

int apid_unix_listen(const struct sockaddr_storage *ss, char *msg, size_t n)
{
    const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;
    const char *path = sun->sun_path;
    struct stat st;
    int fd;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            snprintf(msg, n, "%s: exists and is not a socket", path);
            return -EEXIST;
        }
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (const struct sockaddr *)sun, sizeof *sun) == 0) {
            close(fd);
            snprintf(msg, n, "%s: another server listens there", path);
            return -EADDRINUSE;
        }
        if (fd >= 0)
            close(fd);
        unlink(path);   /* an earlier apid's, dead */
    }
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
        snprintf(msg, n, "socket: %s", strerror(errno));
        return -errno;
    }
    /* the mode from the start (no moment at the default), then made sure of */
    mode_t old = umask(0777 & ~APID_UNIX_MODE);
    int r = bind(fd, (const struct sockaddr *)sun, sizeof *sun);
    umask(old);
    if (r == 0 && chmod(path, APID_UNIX_MODE) == 0 && listen(fd, 64) == 0)
        return fd;
    r = -errno;
    snprintf(msg, n, "%s: %s", path, strerror(errno));
    close(fd);
    return r;
}
