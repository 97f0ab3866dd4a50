/*
 * cmd_metrics.c -- `zkslot metrics`: the Prometheus text exposition of the
 * ledger and the pool (observe.h).
 *
 *   zkslot metrics                         print once on stdout
 *   zkslot metrics --textfile PATH [--interval S]
 *        rewrite PATH atomically every S seconds (default 15), for
 *        node_exporter's textfile collector; --once writes it once
 *   zkslot metrics --listen ADDR:PORT [--allow-remote]
 *        serve GET /metrics over HTTP (libmicrohttpd: metrics_http.h for the
 *        address forms, IPv4 and IPv6; ":PORT" is both loopbacks); there is
 *        no TLS or authentication, so ADDR must be a loopback address
 *        (127.0.0.0/8, ::1): another one (0.0.0.0 and [::] included) is
 *        refused (exit 2) unless --allow-remote, and served with a warning;
 *        SIGTERM or SIGINT stops it (exit 0)
 *
 * Common options: --config FILE, --state-dir DIR, --pool PATH; --local:
 * on a shared ledger this machine's daemons only (default: the farm's,
 * labelled by machine).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "ledger_cli.h"
#include "local_route.h"
#include "metrics_http.h"
#include "observe.h"
#include "zk/util.h"

#define USAGE "usage: zkslot metrics [--textfile PATH [--interval S] [--once] |" \
              " --listen ADDR:PORT [--allow-remote]]" \
              " [--local] [--config FILE] [--state-dir DIR] [--pool PATH]\n"

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

static char *render_cb(void *ctx, size_t *len)
{
    return render(ctx, len);
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
                                          { "local", no_argument, 0, 'H' },
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
        } else if (o == 'H') {
            c.local = 1;
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
    if (local_view_open(&c))   /* another user's ledger: the pool's metrics only */
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
        struct metrics_listen l;
        if (metrics_parse_listen(listen_at, &l)) {
            fprintf(stderr, "zkslot metrics: --listen: '%s' is not ADDR:PORT, [IPv6]:PORT or"
                            " :PORT\n", listen_at);
            goto out;
        }
        if (!l.loopback) {
            if (!allow_remote) {
                fprintf(stderr, "zkslot metrics: --listen %s: not a loopback address, and the"
                                " metrics have no TLS or authentication: use 127.0.0.1, [::1]"
                                " or :PORT, or add --allow-remote\n", listen_at);
                goto out;
            }
            fprintf(stderr, "zkslot metrics: warning: --listen %s --allow-remote: served to"
                            " the network without TLS or authentication\n", listen_at);
        }
        if (metrics_serve(&l, listen_at, render_cb, &c) == 0)
            rc = 0;
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
