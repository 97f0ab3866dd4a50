/*
 * http_client.c -- one HTTP/1.1 exchange over TCP or a unix socket (contract in
 * http_client.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "http_client.h"
#include "tls_client.h"

/* "http://HOST[:PORT][/]" or "https://..." -> host, port (80 or 443 by
 * default), *tls (1 for https); 0 or -1. */
static int parse_url(const char *url, char *host, size_t hn, char *port, size_t pn, int *tls)
{
    const char *p, *end;
    *tls = !strncmp(url, "https://", 8);
    if (strncmp(url, "http://", 7) && !*tls)
        return -1;
    p = url + 7 + *tls;
    if (*p == '[') {
        if (!(end = strchr(p, ']')) || (size_t)(end - p - 1) >= hn)
            return -1;
        memcpy(host, p + 1, (size_t)(end - p - 1));
        host[end - p - 1] = 0;
        p = end + 1;
    } else {
        size_t l = strcspn(p, ":/");
        if (!l || l >= hn)
            return -1;
        memcpy(host, p, l);
        host[l] = 0;
        p += l;
    }
    snprintf(port, pn, *tls ? "443" : "80");
    if (*p == ':') {
        size_t l = strcspn(p + 1, "/");
        if (!l || l >= pn)
            return -1;
        memcpy(port, p + 1, l);
        port[l] = 0;
        p += 1 + l;
    }
    return (*p == 0 || !strcmp(p, "/")) ? 0 : -1;
}

static void set_timeouts(int fd, double timeout_s)
{
    struct timeval tv = { (time_t)timeout_s, (long)((timeout_s - (double)(time_t)timeout_s) * 1e6) };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* "unix:/PATH": zkslot-apid --listen unix:/PATH on this machine. */
static int connect_unix(const char *path, double timeout_s, char *err, size_t n)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = -1;
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, n, "%s: a socket path is at most %zu bytes", path, sizeof sa.sun_path - 1);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0) {
        set_timeouts(fd, timeout_s);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
            return fd;
    }
    snprintf(err, n, "cannot connect to %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

static int connect_to(const char *host, const char *port, double timeout_s, char *err, size_t n)
{
    struct addrinfo hints = { 0 }, *res, *ai;
    hints.ai_socktype = SOCK_STREAM;
    int r = getaddrinfo(host, port, &hints, &res), fd = -1;
    if (r) {
        snprintf(err, n, "%s: %s", host, gai_strerror(r));
        return -1;
    }
    int e = 0;
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        set_timeouts(fd, timeout_s);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        snprintf(err, n, "cannot connect to %s:%s: %s", host, port, strerror(e));
    return fd;
}

/* One connection: a socket, and over it a verified TLS session for https://. */
struct link {
    int fd;
    struct tls_client *tls;           /* NULL: plain HTTP */
    char host[256], port[16];
};

/* All of buf[0..len): 0, or -1 with err filled. */
static int link_send(struct link *l, const char *buf, size_t len, char *err, size_t n)
{
    if (l->tls)
        return tls_client_send_all(l->tls, buf, len, err, n);
    while (len) {
        ssize_t w = send(l->fd, buf, len, MSG_NOSIGNAL);
        if (w <= 0) {
            snprintf(err, n, "%s:%s: cannot send the request: %s", l->host, l->port,
                     strerror(errno));
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Up to len bytes: their count, 0 at the end, -1 with err filled. */
static ssize_t link_recv(struct link *l, char *buf, size_t len, char *err, size_t n)
{
    if (l->tls)
        return tls_client_recv(l->tls, buf, len, err, n);
    ssize_t r = recv(l->fd, buf, len, 0);
    if (r < 0)
        snprintf(err, n, "%s:%s: %s", l->host, l->port,
                 errno == EAGAIN ? "no answer in time" : strerror(errno));
    return r;
}

/* base_url's connection into *l (for https://, the server verified: no
 * byte of the request is sent before); 0 or -1 (err). */
static int link_open(struct link *l, const char *base_url, const char *ca_file,
                     double timeout_s, char *err, size_t n)
{
    int tls = 0;
    l->tls = NULL;
    if (!strncmp(base_url, "unix:/", 6)) {   /* the Host header names no host */
        snprintf(l->host, sizeof l->host, "localhost");
        snprintf(l->port, sizeof l->port, "80");
        l->fd = connect_unix(base_url + 5, timeout_s, err, n);
    } else if (parse_url(base_url, l->host, sizeof l->host, l->port, sizeof l->port, &tls) < 0) {
        snprintf(err, n, "'%s' is not http://HOST[:PORT], https://HOST[:PORT] or unix:/PATH",
                 base_url);
        return -1;
    } else {
        l->fd = connect_to(l->host, l->port, timeout_s, err, n);
    }
    if (l->fd < 0)
        return -1;
    if (tls && tls_client_open(l->fd, l->host, l->port, ca_file, timeout_s, &l->tls, err, n) < 0) {
        close(l->fd);
        return -1;
    }
    return 0;
}

static void link_close(struct link *l)
{
    l->tls = tls_client_free(l->tls);
    close(l->fd);
}

/* The answer in raw[0..len) into *ret; 0 or -1 (err). */
static int parse_answer(char *raw, size_t len, struct http_resp *ret, char *err, size_t n)
{
    char *hdr_end = memmem(raw, len, "\r\n\r\n", 4);
    int major, minor, status;
    if (!hdr_end || sscanf(raw, "HTTP/%d.%d %d", &major, &minor, &status) != 3) {
        snprintf(err, n, "not an HTTP answer");
        return -1;
    }
    *hdr_end = 0;
    size_t body_len = len - (size_t)(hdr_end + 4 - raw);
    for (char *l = strstr(raw, "\r\n"); l; l = strstr(l + 2, "\r\n")) {
        if (!strncasecmp(l + 2, "Content-Length:", 15)) {
            size_t cl = strtoull(l + 17, NULL, 10);
            if (cl > body_len) {
                snprintf(err, n, "the answer ended after %zu of %zu bytes", body_len, cl);
                return -1;
            }
            body_len = cl;
        } else if (!strncasecmp(l + 2, "Transfer-Encoding:", 18)) {
            snprintf(err, n, "a chunked answer (not from zkslot-apid?)");
            return -1;
        }
    }
    if (!(ret->body = malloc(body_len + 1))) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    memcpy(ret->body, hdr_end + 4, body_len);
    ret->body[body_len] = 0;
    ret->len = body_len;
    ret->status = status;
    return 0;
}

/* The whole answer on l, up to its end, into *ret; 0 or -1 (err). */
static int read_answer(struct link *l, struct http_resp *ret, char *err, size_t n)
{
    char *raw = NULL;
    size_t len = 0, cap = 0;
    int rc = -1;
    for (;;) {
        if (len + 65536 > cap) {
            if (cap > HTTP_BODY_MAX) {
                snprintf(err, n, "%s:%s: an answer over %u bytes", l->host, l->port,
                         HTTP_BODY_MAX);
                goto out;
            }
            cap = cap ? 2 * cap : 65536 * 2;
            char *nr = realloc(raw, cap);
            if (!nr) {
                snprintf(err, n, "out of memory");
                goto out;
            }
            raw = nr;
        }
        ssize_t r = link_recv(l, raw + len, cap - len - 1, err, n);
        if (r < 0)
            goto out;
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (!len)   /* as an HTTPS listener (apid's) does with plain HTTP */
        snprintf(err, n, "%s:%s: the server closed the connection without an answer%s",
                 l->host, l->port, l->tls ? "" : " (an HTTPS port? https:// speaks TLS)");
    else
        raw[len] = 0;
    rc = len ? parse_answer(raw, len, ret, err, n) : -1;
out:
    free(raw);
    return rc;
}

int http_call(const char *base_url, const char *method, const char *path, const char *body,
              const char *token, const char *ca_file, double timeout_s, struct http_resp *ret,
              char *err, size_t n)
{
    struct link l;
    char *req = NULL;
    int rc = -1;
    memset(ret, 0, sizeof *ret);
    if (link_open(&l, base_url, ca_file, timeout_s, err, n) < 0)
        return -1;
    /* the token is written only here, after link_open verified an https:// server */
    int rl = asprintf(&req, "%s %s HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n"
                      "Accept: application/json\r\n%s%s%s%s%s%zu\r\n\r\n%s",
                      method, path, l.host, l.port, token ? "Authorization: Bearer " : "",
                      token ? token : "", token ? "\r\n" : "",
                      body ? "Content-Type: application/json\r\n" : "", "Content-Length: ",
                      body ? strlen(body) : 0, body ? body : "");
    if (rl < 0)
        snprintf(err, n, "out of memory");
    else if (link_send(&l, req, (size_t)rl, err, n) == 0)
        rc = read_answer(&l, ret, err, n);
    free(req);
    link_close(&l);
    return rc;
}
