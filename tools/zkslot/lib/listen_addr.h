/*
 * listen_addr.h -- the --listen ADDR:PORT of `zkslot metrics` and
 * zkslot-apid, parsed into socket addresses, and their listening sockets.
 *
 * Addresses (metrics_parse_listen):
 *   HOST:PORT       an IPv4 address ("127.0.0.1:9464", "0.0.0.0:9464")
 *   [ADDR]:PORT     an IPv6 address ("[::1]:9464"; "[::]:9464" is every
 *                   address, IPv6 and IPv4 on one dual-stack socket)
 *   :PORT           (or localhost:PORT) both loopbacks, 127.0.0.1 and ::1
 *                   (::1 left out, silently, where IPv6 is off)
 * PORT 0 takes a free port (the same one for both loopbacks).  An address
 * is loopback when it is in 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104.
 */
#ifndef ZK_TOOLS_LISTEN_ADDR_H
#define ZK_TOOLS_LISTEN_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define METRICS_LISTEN_MAX 2

struct metrics_listen {
    int n;                          /* addresses, 1 or 2 */
    int implicit_v6;                /* the second is the implicit ::1 of ":PORT" */
    int loopback;                   /* every address is loopback */
    struct sockaddr_storage sa[METRICS_LISTEN_MAX];
};

/* 0, or -1 when s is not one of the forms above. */
int metrics_parse_listen(const char *s, struct metrics_listen *ret);

/* A listening socket (close-on-exec, backlog 64) on *ss, its port filled
 * in when it was 0; the fd or -errno. */
int metrics_listen_on(struct sockaddr_storage *ss);

uint16_t metrics_port_of(const struct sockaddr_storage *ss);
void metrics_set_port(struct sockaddr_storage *ss, uint16_t port);

/* "http://127.0.0.1:9464PATH" or "http://[::1]:9464PATH" into buf. */
void metrics_url_of(const struct sockaddr_storage *ss, const char *path, char *buf,
                    size_t len);

#endif /* ZK_TOOLS_LISTEN_ADDR_H */
