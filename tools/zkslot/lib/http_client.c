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

/* "http://HOST[:PORT][/]" -> host, port; 0 or -1. */
static int parse_url(const char *url, char *host, size_t hn, char *port, size_t pn)
{
    const char *p, *end;
    if (strncmp(url, "http://", 7))
        return -1;
    p = url + 7;
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
    snprintf(port, pn, "80");
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

static int send_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
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

int http_call(const char *base_url, const char *method, const char *path, const char *body,
              const char *token, double timeout_s, struct http_resp *ret, char *err, size_t n)
{
    char host[256], port[16], *req = NULL, *raw = NULL;
    size_t len = 0, cap = 0;
    int rc = -1, fd;
    memset(ret, 0, sizeof *ret);
    if (!strncmp(base_url, "unix:/", 6)) {   /* the Host header names no host */
        snprintf(host, sizeof host, "localhost");
        snprintf(port, sizeof port, "80");
        fd = connect_unix(base_url + 5, timeout_s, err, n);
    } else if (parse_url(base_url, host, sizeof host, port, sizeof port) < 0) {
        snprintf(err, n, "'%s' is not http://HOST[:PORT] or unix:/PATH%s", base_url,
                 strncmp(base_url, "https:", 6) ? "" : " (no TLS here: use a tunnel or proxy)");
        return -1;
    } else {
        fd = connect_to(host, port, timeout_s, err, n);
    }
    if (fd < 0)
        return -1;
    int rl = asprintf(&req, "%s %s HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n"
                      "Accept: application/json\r\n%s%s%s%s%s%zu\r\n\r\n%s",
                      method, path, host, port, token ? "Authorization: Bearer " : "",
                      token ? token : "", token ? "\r\n" : "",
                      body ? "Content-Type: application/json\r\n" : "", "Content-Length: ",
                      body ? strlen(body) : 0, body ? body : "");
    if (rl < 0 || send_all(fd, req, (size_t)rl) < 0) {
        snprintf(err, n, "%s:%s: cannot send the request: %s", host, port, strerror(errno));
        goto out;
    }
    for (;;) {
        if (len + 65536 > cap) {
            if (cap > HTTP_BODY_MAX) {
                snprintf(err, n, "%s:%s: an answer over %u bytes", host, port, HTTP_BODY_MAX);
                goto out;
            }
            cap = cap ? 2 * cap : 65536 * 2;
            char *nr = realloc(raw, cap);
            if (!nr)
                goto out;
            raw = nr;
        }
        ssize_t r = recv(fd, raw + len, cap - len - 1, 0);
        if (r < 0) {
            snprintf(err, n, "%s:%s: %s", host, port,
                     errno == EAGAIN ? "no answer in time" : strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (raw)
        raw[len] = 0;
    rc = raw ? parse_answer(raw, len, ret, err, n) : (snprintf(err, n, "no answer"), -1);
out:
    free(req);
    free(raw);
    close(fd);
    return rc;
}
