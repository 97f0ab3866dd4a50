/*
 * main.c -- zkslot-apid: the HTTP/JSON API of a zkslot farm (apid.h,
 * docs/api.yaml, docs/api.md).
 *
 *   zkslot-apid [--listen ADDR:PORT] [--tokens FILE] [--config FILE]
 *               [--state-dir DIR] [--ledger URL] [--max-body BYTES]
 *               [--max-requests N] [--max-conns N] [--max-conns-per-client N]
 *               [--request-timeout S] [--tls-cert FILE --tls-key FILE]
 *               [--check-config] [--routes] [--version]
 *
 * --listen takes the spellings of `zkslot metrics --listen`
 * (listen_addr.h) or unix:/PATH (unix_listen.c: a socket of mode 0660);
 * the default is 127.0.0.1:8470.  On an SQLite ledger apid also serves
 * <state dir>/api.sock (server.c; not with a unix --listen or TLS): the
 * ledger is the daemons' alone, and this machine's other users reach it
 * there, each known by its uid (auth.c).  Before it opens the ledger, a
 * 0660 one of an older zkslot is made 0600 (zk_ledger_sqlite_private).
 * --tls-cert and --tls-key (PEM) serve
 * HTTPS instead of HTTP (tls.c).  Without --tokens only
 * loopback addresses are served (every local user may then submit, as
 * with the CLI and a group-writable ledger); with it every route but
 * /healthz needs a bearer token of that file, which must be mode 0600 and
 * this user's.  SIGHUP re-reads the token file; SIGTERM or SIGINT stops
 * (long polls answer at once).  --routes prints the route table and
 * exits; --check-config reads everything, opens the ledger and exits.
 * --max-conns (default --max-requests + 64), --max-conns-per-client
 * (default half of it) and --request-timeout (default 30 s) bound what
 * clients, tokens or not, can hold (admit.c).  Like the daemons, apid is
 * not dumpable (its memory holds the TLS key and the token hashes;
 * ZKSLOT_DUMPABLE=1 keeps it dumpable).  Exit 0, or 2 after one line on
 * stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apid.h"
#include "daemon/zkd.h"
#include "local_route.h"
#include "zk/error.h"

#define APID_LISTEN_DEFAULT "127.0.0.1:8470"

static void usage(FILE *out)
{
    fprintf(out, "usage: zkslot-apid [--listen ADDR:PORT] [--tokens FILE] [--config FILE] "
                    "[--state-dir DIR] [--ledger URL] [--max-body BYTES] [--max-requests N] "
                    "[--max-conns N] [--max-conns-per-client N] [--request-timeout S] "
                    "[--tls-cert FILE --tls-key FILE] [--check-config] [--routes] [--version]\n");
}

static int parse_uint(const char *opt, const char *s, unsigned long long lo,
                      unsigned long long hi, unsigned long long *ret)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || *s == '-' || v < lo || v > hi) {
        fprintf(stderr, "zkslot-apid: %s: '%s' is not %llu to %llu\n", opt, s, lo, hi);
        return -1;
    }
    *ret = v;
    return 0;
}

/* parse_uint into an unsigned flag's field: 0, or -1 (said). */
static int set_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *ret)
{
    unsigned long long v;
    if (parse_uint(opt, s, lo, hi, &v) < 0)
        return -1;
    *ret = (unsigned)v;
    return 0;
}

/* Flags into *a; 0, 1 (--routes, --help or --version printed: exit 0) or -1 (said). */
static int parse_args(int argc, char **argv, struct apid *a, const char **listen, int *check,
                      const char **tls)
{
    static const struct option opts[] = { LCLI_OPTIONS,
                                          { "listen", required_argument, 0, 'l' },
                                          { "tokens", required_argument, 0, 't' },
                                          { "max-body", required_argument, 0, 'b' },
                                          { "max-requests", required_argument, 0, 'm' },
                                          { "max-conns", required_argument, 0, 'n' },
                                          { "max-conns-per-client", required_argument, 0, 'P' },
                                          { "request-timeout", required_argument, 0, 'T' },
                                          { "tls-cert", required_argument, 0, 'c' },
                                          { "tls-key", required_argument, 0, 'K' },
                                          { "check-config", no_argument, 0, 'k' },
                                          { "routes", no_argument, 0, 'r' },
                                          { "help", no_argument, 0, 'h' },
                                          { "version", no_argument, 0, 'V' },
                                          { 0, 0, 0, 0 } };
    unsigned long long v;
    int o, bad = 0;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (lcli_option(&a->c, o, optarg))
            continue;
        switch (o) {
        case 'l': *listen = optarg; break;
        case 't': a->tokens_path = optarg; break;
        case 'c': tls[0] = optarg; break;
        case 'K': tls[1] = optarg; break;
        case 'k': *check = 1; break;
        case 'b':
            if (parse_uint("--max-body", optarg, 1024, 1ull << 30, &v) < 0)
                return -1;
            a->max_body = (size_t)v;
            break;
        case 'm': bad = set_uint("--max-requests", optarg, 1, 4096, &a->max_requests); break;
        case 'n': bad = set_uint("--max-conns", optarg, 1, 16384, &a->max_conns); break;
        case 'P':
            bad = set_uint("--max-conns-per-client", optarg, 1, 16384, &a->max_conns_per_peer);
            break;
        case 'T': bad = set_uint("--request-timeout", optarg, 1, 3600, &a->request_timeout); break;
        case 'h':
            usage(stdout);
            return 1;
        case 'V':
            printf("zkslot-apid %s\n", ZK_VERSION);
            return 1;
        case 'r':
            for (unsigned i = 0; i < apid_nroutes; i++)
                printf("%s %s\n", apid_routes[i].method, apid_routes[i].pattern);
            return 1;
        default:
            fprintf(stderr, "zkslot-apid: bad option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return -1;
        }
        if (bad)
            return -1;
    }
    if (optind != argc) {
        usage(stderr);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static struct apid a;
    struct metrics_listen l;
    const char *listen = APID_LISTEN_DEFAULT, *tls[2] = { NULL, NULL };
    char msg[512];
    int check = 0, r;

    a.max_body = APID_BODY_DEFAULT;
    a.max_requests = APID_REQUESTS_DEFAULT;
    a.request_timeout = APID_REQUEST_TIMEOUT_DEFAULT;
    a.c.cmd = "apid";
    pthread_mutex_init(&a.lock, NULL);
    pthread_rwlock_init(&a.tokens_lock, NULL);
    zkd_log_init("zkslot-apid");
    /* before the TLS key and the token hashes are read */
    if ((r = zkd_nodump(NULL)) < 0) {
        fprintf(stderr, "zkslot-apid: prctl(PR_SET_DUMPABLE, 0): %s\n", strerror(-r));
        return 2;
    }
    if ((r = parse_args(argc, argv, &a, &listen, &check, tls)) != 0)
        return r > 0 ? 0 : 2;
    zkd_test_hooks_log();
    if (!a.max_conns)   /* room to answer 429 past the request cap */
        a.max_conns = a.max_requests + APID_CONNS_EXTRA;
    if (!a.max_conns_per_peer)   /* one client never holds them all */
        a.max_conns_per_peer = a.max_conns > 1 ? a.max_conns / 2 : 1;
    if (a.max_conns_per_peer > a.max_conns)
        a.max_conns_per_peer = a.max_conns;
    memset(&l, 0, sizeof l);
    if (!strncmp(listen, APID_UNIX_PREFIX, strlen(APID_UNIX_PREFIX))) {
        l.n = l.loopback = 1;   /* this machine's users only, as loopback */
        if (apid_unix_addr(listen, &l.sa[0]) < 0) {
            fprintf(stderr, "zkslot-apid: --listen: '%s' is not unix:/ABSOLUTE/PATH (at most "
                    "107 bytes)\n", listen);
            return 2;
        }
    } else if (metrics_parse_listen(listen, &l) < 0) {
        fprintf(stderr, "zkslot-apid: --listen: '%s' is not HOST:PORT, [ADDR]:PORT, :PORT or "
                "unix:/PATH\n", listen);
        return 2;
    }
    if (apid_tls_load(&a, tls[0], tls[1], msg, sizeof msg) < 0) {
        fprintf(stderr, "zkslot-apid: %s\n", msg);
        return 2;
    }
    if (!l.loopback && !a.tokens_path) {
        fprintf(stderr, "zkslot-apid: --listen %s is not a loopback address: serving other "
                "machines needs bearer tokens (--tokens FILE; zkslot token add)\n", listen);
        return 2;
    }
    if (a.tokens_path && tokens_load(a.tokens_path, 1, &a.tokens, msg, sizeof msg) < 0) {
        fprintf(stderr, "zkslot-apid: --tokens: %s\n", msg);
        return 2;
    }
    /* the config, the state directory and the ledger as the CLI finds them
     * (created when absent, as the daemons do); an SQLite ledger made the
     * daemons' alone first (a 0660 one of an older zkslot: 0600) */
    if (lcli_resolve(&a.c, 1) < 0)
        return 2;
    const char *file = zk_ledger_sqlite_path(a.c.ledger_path);
    if (file && (r = zk_ledger_sqlite_private(file, msg, sizeof msg)) < 0) {
        fprintf(stderr, "zkslot-apid: %s\n", msg);
        return 2;
    }
    if (file && r > 0)
        zkd_log(ZKD_NOTICE, "%s", msg);
    if (lcli_open(&a.c, 1) < 0)
        return 2;
    /* this machine's users reach an SQLite ledger through the state
     * directory's socket (the CLI goes there without being told), unless
     * --listen is a unix socket already or TLS is on (the CLI speaks plain
     * HTTP to a socket) */
    if (file && strncmp(listen, APID_UNIX_PREFIX, strlen(APID_UNIX_PREFIX)) && !a.tls_cert &&
        (size_t)snprintf(a.local_sock, sizeof a.local_sock, "%s/%s", a.c.cfg.state_dir,
                         LOCAL_SOCKET_NAME) >= sizeof a.local_sock)
        a.local_sock[0] = 0;
    a.poll_ms = a.c.cfg.poll_ms ? a.c.cfg.poll_ms : 100;
    apid_ledger_put(&a, a.c.l, 0);   /* the first idle handle */
    a.c.l = NULL;
    if (check) {
        printf("zkslot-apid: configuration OK (ledger %s, %s%s; at most %u connections, %u "
               "per client, %u s a request)\n", a.c.ledger_path,
               a.tokens_path ? "bearer tokens" : "loopback only, no tokens",
               a.tls_cert ? ", TLS" : "", a.max_conns, a.max_conns_per_peer,
               a.request_timeout);
        apid_ledgers_close(&a);
        return 0;
    }
    /* signals blocked before libmicrohttpd's threads start: they inherit the mask */
    int sfd = zkd_signals_open();
    if (sfd < 0) {
        fprintf(stderr, "zkslot-apid: signalfd: %s\n", zk_strerror(sfd));
        return 2;
    }
    r = apid_serve(&a, &l, listen, sfd);
    apid_ledgers_close(&a);
    tokens_free(&a.tokens);
    free(a.tls_cert);
    free(a.tls_key);
    return r < 0 ? 2 : 0;
}
