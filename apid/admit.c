/*
 * admit.c -- which connections zkslot-apid takes, and for how long a
 * connection may take to send a request (docs/api.md, "Connections").
 *
 * apid accepts its connections itself (server.c) and asks here first:
 *
 *   - at most `max_conns` connections at once, and at most `max_per_peer`
 *     of one peer: an IPv4 address, an IPv6 /64 (one host's usual share),
 *     or on the unix socket one user (SO_PEERCRED);
 *   - a connection over either limit is answered 503 too_many_connections
 *     at once (a short fixed reply, then closed; on TLS only closed: no
 *     plain-text answer before a handshake) instead of waiting unseen in
 *     the listen backlog;
 *   - every connection has a deadline: `timeout_s` from its opening, or
 *     from the previous reply, to send a whole request (headers and body),
 *     and as long to read the reply.  A connection past it is shut down,
 *     whatever it trickles; a request being handled (a long poll) has none.
 *
 * The table of connections is under one mutex: the accept loop adds,
 * libmicrohttpd's start notification (in its own thread, later) finds the
 * entry by fd, its connection threads move deadlines, its close
 * notification removes, the accept loop's reaper shuts down.  An entry
 * leaves the table before libmicrohttpd closes its fd (NOTIFY_CLOSED comes
 * first), and only started entries are shut down, so a shutdown() here
 * never reaches a reused descriptor.  An entry libmicrohttpd never started
 * (it closed the fd without a notification: out of memory) is dropped
 * when accept() hands out its fd number again.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "apid.h"
#include "zk/util.h"

void apid_admit_init(struct apid_admit *ad, unsigned max_conns, unsigned max_per_peer,
                     unsigned timeout_s)
{
    memset(ad, 0, sizeof *ad);
    pthread_mutex_init(&ad->lock, NULL);
    ad->max_conns = max_conns;
    ad->max_per_peer = max_per_peer;
    ad->timeout_s = timeout_s;
}

void apid_peer_of(int fd, const struct sockaddr_storage *ss, struct apid_peer *ret)
{
    memset(ret, 0, sizeof *ret);
    ret->family = ss->ss_family;
    ret->uid = (uid_t)-1;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        memcpy(ret->key, &s4->sin_addr, 4);
        inet_ntop(AF_INET, &s4->sin_addr, ret->text, sizeof ret->text);
        if ((ret->local = ret->key[0] == 127))   /* a user of this machine: which */
            apid_loopback_uid(fd, ss, &ret->uid);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
        if ((ret->local = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
                          (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) && s6->sin6_addr.s6_addr[12] == 127)))
            apid_loopback_uid(fd, ss, &ret->uid);
        if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {   /* ::ffff:a.b.c.d is a.b.c.d */
            ret->family = AF_INET;
            memcpy(ret->key, s6->sin6_addr.s6_addr + 12, 4);
            inet_ntop(AF_INET, ret->key, ret->text, sizeof ret->text);
            return;
        }
        struct in6_addr net = s6->sin6_addr;   /* the /64 */
        memset(net.s6_addr + 8, 0, 8);
        memcpy(ret->key, net.s6_addr, 8);
        inet_ntop(AF_INET6, &net, ret->text, sizeof ret->text - 3);
        strcat(ret->text, "/64");
    } else {   /* AF_UNIX: the peer's user */
        struct ucred cr = { 0, (uid_t)-1, (gid_t)-1 };
        socklen_t n = sizeof cr;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &n) < 0)
            cr.uid = (uid_t)-1;
        memcpy(ret->key, &cr.uid, sizeof cr.uid);
        snprintf(ret->text, sizeof ret->text, "uid %ld", (long)(int)cr.uid);
        ret->local = 1;
        ret->uid = cr.uid;
    }
}

/* c out of the table and freed; under ad->lock. */
static void unlink_conn(struct apid_admit *ad, struct apid_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        ad->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    ad->n--;
    free(c);
}

static int same_peer(const struct apid_peer *x, const struct apid_peer *y)
{
    return x->family == y->family && !memcmp(x->key, y->key, sizeof x->key);
}

int apid_admit_take(struct apid_admit *ad, int fd, const struct apid_peer *p,
                    struct apid_conn **ret)
{
    unsigned same = 0;
    int rc = 0;
    pthread_mutex_lock(&ad->lock);
    for (struct apid_conn *c = ad->head, *next; c; c = next) {
        next = c->next;
        if (c->fd == fd && !c->mc) {   /* never started, its fd closed: reused */
            unlink_conn(ad, c);
            continue;
        }
        same += same_peer(&c->peer, p);
    }
    if (ad->n >= ad->max_conns) {
        ad->refused_all++;
        rc = APID_ADMIT_FULL;
    } else if (same >= ad->max_per_peer) {
        ad->refused_peer++;
        rc = APID_ADMIT_PEER_FULL;
    } else {
        struct apid_conn *c = calloc(1, sizeof *c);
        if (!c) {
            rc = -ENOMEM;
        } else {
            c->fd = fd;
            c->peer = *p;
            c->deadline = zk_now_s() + ad->timeout_s;
            c->next = ad->head;
            if (ad->head)
                ad->head->prev = c;
            ad->head = c;
            ad->n++;
            *ret = c;
        }
    }
    pthread_mutex_unlock(&ad->lock);
    return rc;
}

struct apid_conn *apid_admit_started(struct apid_admit *ad, int fd, void *mc)
{
    struct apid_conn *c;
    pthread_mutex_lock(&ad->lock);
    for (c = ad->head; c && (c->fd != fd || c->mc); c = c->next)
        ;
    if (c)
        c->mc = mc;
    pthread_mutex_unlock(&ad->lock);
    return c;
}

void apid_admit_drop(struct apid_admit *ad, struct apid_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&ad->lock);
    unlink_conn(ad, c);
    pthread_mutex_unlock(&ad->lock);
}

void apid_admit_handling(struct apid_admit *ad, struct apid_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&ad->lock);
    c->deadline = 0;
    pthread_mutex_unlock(&ad->lock);
}

void apid_admit_rearm(struct apid_admit *ad, struct apid_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&ad->lock);
    c->deadline = zk_now_s() + ad->timeout_s;
    pthread_mutex_unlock(&ad->lock);
}

unsigned apid_admit_reap(struct apid_admit *ad)
{
    double now = zk_now_s(), next = now + 1.0;
    pthread_mutex_lock(&ad->lock);
    for (struct apid_conn *c = ad->head; c; c = c->next) {
        if (c->deadline <= 0 || c->cut || !c->mc)
            continue;
        if (c->deadline <= now) {
            shutdown(c->fd, SHUT_RDWR);   /* its thread sees the end and closes it */
            c->cut = 1;
            ad->cut++;
        } else if (c->deadline < next) {
            next = c->deadline;
        }
    }
    pthread_mutex_unlock(&ad->lock);
    return (unsigned)((next - now) * 1000) + 1;
}

void apid_admit_refuse(struct apid_admit *ad, int fd, int rc, const struct apid_peer *p,
                       int tls)
{
    struct apid_reply r = { 0 };
    char head[256], sink[4096];
    if (rc == APID_ADMIT_PEER_FULL)
        apid_error(&r, 503, "too_many_connections", "%u connections from %s, the limit per "
                   "client; retry", ad->max_per_peer, p->text);
    else
        apid_error(&r, 503, "too_many_connections", "%u connections open, this server's "
                   "limit; retry", ad->max_conns);
    int n = snprintf(head, sizeof head, "HTTP/1.1 503 Service Unavailable\r\n"
                     "Content-Type: application/json\r\nCache-Control: no-store\r\n"
                     "Retry-After: 1\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n",
                     r.len);
    if (!tls && r.body) {   /* a few hundred bytes: the socket's buffer takes them */
        struct iovec iov[2] = { { head, (size_t)n }, { r.body, r.len } };
        struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
        if (sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) > 0)
            shutdown(fd, SHUT_WR);
        /* what the client sent already, read, so that the close is a FIN
         * after the reply and not a reset that could discard it */
        while (recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0)
            ;
    }
    free(r.body);
    close(fd);
}
