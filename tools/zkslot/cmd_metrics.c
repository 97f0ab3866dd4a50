/*
 * cmd_metrics.c -- `zkslot metrics`: the Prometheus text exposition of the
 * ledger and the pool (observe.h).
 *
 *   zkslot metrics                         print once on stdout
 *   zkslot metrics --textfile PATH [--interval S]
 *        rewrite PATH atomically every S seconds (default 15), for
 *        node_exporter's textfile collector; --once writes it once
 *   zkslot metrics --listen ADDR:PORT [--allow-remote]
 *        serve GET /metrics over HTTP/1.0 (one request at a time); there is
 *        no TLS or authentication, so ADDR must be a loopback address
 *        (127.0.0.0/8; empty = 127.0.0.1): another one (0.0.0.0 included) is
 *        refused (exit 2) unless --allow-remote, and served with a warning
 *
 * Common options: --config FILE, --state-dir DIR, --pool PATH.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "ledger_cli.h"
#include "observe.h"
#include "zk/util.h"

#define USAGE "usage: zkslot metrics [--textfile PATH [--interval S] [--once] |" \
              " --listen ADDR:PORT [--allow-remote]]" \
              " [--config FILE] [--state-dir DIR] [--pool PATH]\n"

/* The exposition as a malloc'd string (*len bytes); NULL on failure (printed). */
static char *render(struct lcli *c, size_t *len)
{
    struct obs o;
    char *buf = NULL;
    if (obs_collect(c, &o))
        return NULL;
    FILE *f = open_memstream(&buf, len);
    if (f) {
        obs_write_prometheus(&o, f);
        fclose(f);
    }
    obs_free(&o);
    return buf;
}

static int write_textfile(struct lcli *c, const char *path)
{
    size_t len;
    char *text = render(c, &len);
    if (!text)
        return -1;
    int r = zk_write_atomic(path, text, len, 0644);
    int ok = r == 0;
    if (!ok)
        fprintf(stderr, "zkslot metrics: cannot write %s: %s\n", path, strerror(-r));
    free(text);
    return ok ? 0 : -1;
}

static int parse_listen(const char *s, struct sockaddr_in *sa)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    if (!colon || (size_t)(colon - s) >= sizeof host)
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = 0;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535)
        return -1;
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, host[0] ? host : "127.0.0.1", &sa->sin_addr) == 1 ? 0 : -1;
}

static void serve_one(struct lcli *c, int fd)
{
    char req[2048];
    size_t n = 0;
    struct pollfd p = { fd, POLLIN, 0 };
    while (n < sizeof req - 1 && poll(&p, 1, 2000) > 0) {
        ssize_t k = read(fd, req + n, sizeof req - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
        req[n] = 0;
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
            break;
    }
    req[n] = 0;
    char hdr[256];
    size_t len = 0;
    char *body = NULL;
    const char *status = "404 Not Found";
    if (!strncmp(req, "GET /metrics ", 13) || !strncmp(req, "GET /metrics?", 13)) {
        body = render(c, &len);
        status = body ? "200 OK" : "500 Internal Server Error";
    }
    int h = snprintf(hdr, sizeof hdr,
                     "HTTP/1.0 %s\r\nContent-Type: text/plain; version=0.0.4\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                     status, body ? len : 0);
    if (write(fd, hdr, (size_t)h) == h && body) {
        size_t off = 0;
        while (off < len) {
            ssize_t k = write(fd, body + off, len - off);
            if (k <= 0)
                break;
            off += (size_t)k;
        }
    }
    free(body);
}

int cmd_metrics(int argc, char **argv)
{
    static const struct option opts[] = { LCLI_OPTIONS,
                                          { "pool", required_argument, 0, 'p' },
                                          { "textfile", required_argument, 0, 'f' },
                                          { "interval", required_argument, 0, 'i' },
                                          { "listen", required_argument, 0, 'l' },
                                          { "once", no_argument, 0, '1' },
                                          { "allow-remote", no_argument, 0, 'A' },
                                          { 0, 0, 0, 0 } };
    struct lcli c;
    const char *pool = NULL, *textfile = NULL, *listen_at = NULL;
    double interval = 15;
    int once = 0, allow_remote = 0, o, rc = 2;

    if (cmd_help) {   /* without arguments metrics would serve */
        fputs(USAGE, stderr);
        return 2;
    }
    memset(&c, 0, sizeof c);
    c.cmd = "metrics";
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (lcli_option(&c, o, optarg))
            continue;
        if (o == 'p') {
            pool = optarg;
        } else if (o == 'f') {
            textfile = optarg;
        } else if (o == 'l') {
            listen_at = optarg;
        } else if (o == '1') {
            once = 1;
        } else if (o == 'A') {
            allow_remote = 1;
        } else if (o == 'i') {
            if (obs_parse_interval("metrics", optarg, &interval))
                return 2;
        } else {
            fputs(USAGE, stderr);
            return 2;
        }
    }
    if (optind != argc || (textfile && listen_at)) {
        fputs(USAGE, stderr);
        return 2;
    }
    if (lcli_open(&c, 0))
        return 2;
    if (pool)
        snprintf(c.cfg.pool, sizeof c.cfg.pool, "%s", pool);
    if (textfile) {
        for (;;) {
            rc = write_textfile(&c, textfile) ? 2 : 0;
            if (once)
                break;
            obs_sleep(interval);
        }
    } else if (listen_at) {
        struct sockaddr_in sa;
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
        if (parse_listen(listen_at, &sa)) {
            fprintf(stderr, "zkslot metrics: --listen: '%s' is not ADDR:PORT (IPv4)\n", listen_at);
            goto out;
        }
        if ((ntohl(sa.sin_addr.s_addr) >> 24) != 127) {
            if (!allow_remote) {
                fprintf(stderr, "zkslot metrics: --listen %s: not a loopback address, and the"
                                " metrics have no TLS or authentication: use 127.0.0.1, or"
                                " add --allow-remote\n", listen_at);
                goto out;
            }
            fprintf(stderr, "zkslot metrics: warning: --listen %s --allow-remote: served to"
                            " the network without TLS or authentication\n", listen_at);
        }
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) || listen(s, 16)) {
            fprintf(stderr, "zkslot metrics: cannot listen on %s: %s\n", listen_at,
                    strerror(errno));
            goto out;
        }
        socklen_t sl = sizeof sa;
        getsockname(s, (struct sockaddr *)&sa, &sl);
        char addr[32];
        inet_ntop(AF_INET, &sa.sin_addr, addr, sizeof addr);
        fprintf(stderr, "zkslot metrics: serving http://%s:%u/metrics\n", addr,
                (unsigned)ntohs(sa.sin_port));
        signal(SIGPIPE, SIG_IGN);
        for (;;) {
            int fd = accept4(s, NULL, NULL, SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EINTR || errno == ECONNABORTED)
                    continue;
                break;
            }
            serve_one(&c, fd);
            close(fd);
        }
        close(s);
    } else {
        size_t len;
        char *text = render(&c, &len);
        if (text) {
            fwrite(text, 1, len, stdout);
            free(text);
            rc = 0;
        }
    }
out:
    lcli_close(&c);
    return rc;
}
