/*
 * peer_uid.c -- which local user is at the other end of a loopback TCP
 * connection (apid_loopback_uid, apid.h).
 *
 * Without a token file apid serves loopback addresses only, and every
 * local user can connect there.  The kernel knows whose socket the
 * client's end is: /proc/net/tcp (tcp6) lists each socket of this network
 * namespace with its addresses and its owner's uid, as identd reads it.
 * The client's entry is the one whose local address is the peer's and
 * whose remote address is this connection's own, in state ESTABLISHED.
 * auth.c then holds that user to its own jobs, as on the unix socket
 * (docs/api.md, "Local users"): a loopback port is no way around the
 * socket's rule.  When no entry is found the caller is an unknown user
 * ("uid:-1"), never the machine's own.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "apid.h"

#define TCP_ESTABLISHED_HEX "01"

/* a:port as /proc/net/tcp(6) prints it: each 32-bit word of the address
 * in host order, %08X, then the port %04X. */
static void proc_addr(const struct sockaddr_storage *ss, char *buf, size_t n)
{
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        uint32_t w;
        memcpy(&w, &s4->sin_addr, 4);
        snprintf(buf, n, "%08X:%04X", w, ntohs(s4->sin_port));
    } else {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
        uint32_t w[4];
        memcpy(w, &s6->sin6_addr, 16);
        snprintf(buf, n, "%08X%08X%08X%08X:%04X", w[0], w[1], w[2], w[3],
                 ntohs(s6->sin6_port));
    }
}

int apid_loopback_uid(int fd, const struct sockaddr_storage *peer, uid_t *ret)
{
    struct sockaddr_storage me;
    socklen_t len = sizeof me;
    char want_local[64], want_remote[64], line[512];
    if (getsockname(fd, (struct sockaddr *)&me, &len) != 0 || me.ss_family != peer->ss_family)
        return -1;
    proc_addr(peer, want_local, sizeof want_local);
    proc_addr(&me, want_remote, sizeof want_remote);
    FILE *f = fopen(peer->ss_family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6", "re");
    if (!f)
        return -1;
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        char local[64], remote[64], st[8];
        unsigned long uid;
        if (sscanf(line, " %*[0-9]: %63s %63s %7s %*s %*s %*s %lu", local, remote, st,
                   &uid) == 4 &&
            !strcmp(local, want_local) && !strcmp(remote, want_remote) &&
            !strcmp(st, TCP_ESTABLISHED_HEX)) {
            *ret = (uid_t)uid;
            found = 0;
        }
    }
    fclose(f);
    return found;
}
