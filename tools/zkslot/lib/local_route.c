/*
 * local_route.c -- the CLI of a user who is not the ledger's goes through
 * zkslot-apid's socket (contract in local_route.h).
 *
 * The socket sits in the state directory, which the daemons' group may
 * write (3770, sticky): a member could leave a socket of his own there
 * for the others' CLIs to talk to.  So the socket must belong to the
 * ledger's owner (or root), checked with lstat before the first connect:
 * anything else is refused in one line, nothing sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "local_route.h"
#include "remote.h"

static int routed;

int local_routed(void)
{
    return routed;
}

static const char *user_name(uid_t uid, char *buf, size_t n)
{
    struct passwd *pw = getpwuid(uid);
    if (pw)
        snprintf(buf, n, "%s", pw->pw_name);
    else
        snprintf(buf, n, "uid %ld", (long)uid);
    return buf;
}

/* The owner of c's SQLite ledger (or of its state directory, no ledger
 * yet) into *owner when it is not this process's user and that is not
 * root: 1; else 0 (PostgreSQL: its roles decide). */
static int foreign_owner(const struct lcli *c, uid_t *owner)
{
    struct stat st;
    const char *file = zk_ledger_sqlite_path(c->ledger_path);
    uid_t me = geteuid();
    if (!file || me == 0)
        return 0;
    if (lstat(file, &st) != 0 && (errno != ENOENT || stat(c->cfg.state_dir, &st) != 0))
        return 0;   /* the open says what is wrong */
    *owner = st.st_uid;
    return st.st_uid != me;
}

int local_foreign(const struct lcli *c)
{
    uid_t owner;
    return foreign_owner(c, &owner);
}

int local_view_open(struct lcli *c)
{
    if (lcli_resolve(c, 0) < 0)
        return -1;
    return local_foreign(c) ? 0 : lcli_open(c, 0);
}

int local_route(struct lcli *c)
{
    struct stat st;
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    char sock[sizeof sun.sun_path + 8], who[64];
    uid_t owner;
    if (remote_server())
        return 0;   /* --server or $ZKSLOT_SERVER: told where */
    if (lcli_resolve(c, 0) < 0)
        return -1;
    if (!foreign_owner(c, &owner))
        return 0;   /* root, the daemons' user, or PostgreSQL */
    const char *file = zk_ledger_sqlite_path(c->ledger_path);
    if ((size_t)snprintf(sock, sizeof sock, "%s/" LOCAL_SOCKET_NAME, c->cfg.state_dir) >=
        sizeof sun.sun_path) {
        fprintf(stderr, "zkslot %s: %s/%s: too long a path for a socket\n", c->cmd,
                c->cfg.state_dir, LOCAL_SOCKET_NAME);
        return -1;
    }
    if (lstat(sock, &st) != 0) {
        fprintf(stderr, "zkslot %s: the ledger %s is the daemons' (%s) alone, and no "
                "zkslot-apid serves its socket %s: start it (systemctl start zkslot-apid)\n",
                c->cmd, file, user_name(owner, who, sizeof who), sock);
        return -1;
    }
    if (!S_ISSOCK(st.st_mode) || (st.st_uid != owner && st.st_uid != 0)) {
        char o[64];
        fprintf(stderr, "zkslot %s: %s: not zkslot-apid's socket (%s of %s, the ledger is "
                "%s's): refused, nothing sent\n", c->cmd, sock,
                S_ISSOCK(st.st_mode) ? "a socket" : "not a socket",
                user_name(st.st_uid, o, sizeof o), user_name(owner, who, sizeof who));
        return -1;
    }
    memcpy(sun.sun_path, sock, strlen(sock) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0;
    if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0)
        e = errno;
    if (fd >= 0)
        close(fd);
    if (e) {
        fprintf(stderr, "zkslot %s: the ledger %s is the daemons' (%s) alone; its socket "
                "%s: %s: %s\n", c->cmd, file, user_name(owner, who, sizeof who), sock,
                strerror(e), e == ECONNREFUSED ? "zkslot-apid is not running (systemctl start "
                "zkslot-apid)" : "only members of the daemons' group reach it");
        return -1;
    }
    char url[sizeof sock + 8];
    snprintf(url, sizeof url, "unix:%s", sock);
    setenv("ZKSLOT_SERVER", url, 1);
    routed = 1;
    return 1;
}
