/*
 * listen_addr.c -- the --listen addresses of `zkslot metrics` and
 * zkslot-apid, and their listening sockets (contract in listen_addr.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "listen_addr.h"

static int parse_port(const char *s, uint16_t *port)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0 || v > 65535)
        return -1;
    *port = (uint16_t)v;
    return 0;
}

static void set_v4(struct sockaddr_storage *ss, const struct in_addr *a, uint16_t port)
{
    struct sockaddr_in *sa = (struct sockaddr_in *)ss;
    memset(ss, 0, sizeof *ss);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(port);
    sa->sin_addr = *a;
}

static void set_v6(struct sockaddr_storage *ss, const struct in6_addr *a, uint16_t port)
{
    struct sockaddr_in6 *sa = (struct sockaddr_in6 *)ss;
    memset(ss, 0, sizeof *ss);
    sa->sin6_family = AF_INET6;
    sa->sin6_port = htons(port);
    sa->sin6_addr = *a;
}

static int is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

int metrics_parse_listen(const char *s, struct metrics_listen *ret)
{
    char host[INET6_ADDRSTRLEN + 2];
    const char *colon;
    uint16_t port;
    struct in_addr a4;
    struct in6_addr a6;

    memset(ret, 0, sizeof *ret);
    if (s[0] == '[') {                          /* [ADDR]:PORT */
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof host)
            return -1;
        memcpy(host, s + 1, (size_t)(close - s - 1));
        host[close - s - 1] = 0;
        if (parse_port(close + 2, &port) || inet_pton(AF_INET6, host, &a6) != 1)
            return -1;
        set_v6(&ret->sa[0], &a6, port);
        ret->n = 1;
    } else {
        if (!(colon = strrchr(s, ':')) || (size_t)(colon - s) >= sizeof host)
            return -1;
        memcpy(host, s, (size_t)(colon - s));
        host[colon - s] = 0;
        if (parse_port(colon + 1, &port))
            return -1;
        if (!host[0] || !strcmp(host, "localhost")) {   /* both loopbacks */
            inet_pton(AF_INET, "127.0.0.1", &a4);
            set_v4(&ret->sa[0], &a4, port);
            set_v6(&ret->sa[1], &in6addr_loopback, port);
            ret->n = 2;
            ret->implicit_v6 = 1;
        } else {
            if (inet_pton(AF_INET, host, &a4) != 1)
                return -1;
            set_v4(&ret->sa[0], &a4, port);
            ret->n = 1;
        }
    }
    ret->loopback = 1;
    for (int i = 0; i < ret->n; i++)
        ret->loopback &= is_loopback(&ret->sa[i]);
    return 0;
}

uint16_t metrics_port_of(const struct sockaddr_storage *ss)
{
    return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
                                          : ((const struct sockaddr_in6 *)ss)->sin6_port);
}

void metrics_set_port(struct sockaddr_storage *ss, uint16_t port)
{
    if (ss->ss_family == AF_INET)
        ((struct sockaddr_in *)ss)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

void metrics_url_of(const struct sockaddr_storage *ss, const char *path, char *buf,
                    size_t len)
{
    char a[INET6_ADDRSTRLEN];
    if (ss->ss_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, a, sizeof a);
        snprintf(buf, len, "http://%s:%u%s", a, (unsigned)metrics_port_of(ss), path);
    } else {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, a, sizeof a);
        snprintf(buf, len, "http://[%s]:%u%s", a, (unsigned)metrics_port_of(ss), path);
    }
}

int metrics_listen_on(struct sockaddr_storage *ss)
{
    int one = 1, fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    socklen_t len = ss->ss_family == AF_INET ? sizeof(struct sockaddr_in)
                                             : sizeof(struct sockaddr_in6);
    if (fd < 0)
        return -errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss->ss_family == AF_INET6) {
        /* [::] is the dual-stack "everything"; any other IPv6 address is itself only */
        int v6only = !IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)ss)->sin6_addr);
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    }
    if (bind(fd, (struct sockaddr *)ss, len) < 0 || listen(fd, 64) < 0 ||
        getsockname(fd, (struct sockaddr *)ss, &len) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

