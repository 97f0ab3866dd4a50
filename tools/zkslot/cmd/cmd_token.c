/*
 * cmd_token.c -- the bearer tokens of zkslot-apid (tokens.h):
 *
 *   zkslot token add NAME --keys KEY[,KEY...]|* [--cancel-any]
 *                       prints the new secret once on stdout (only its
 *                       SHA-256 is kept); --cancel-any: it may cancel
 *                       jobs others submitted
 *   zkslot token list   NAME, keys, cancel rights (never a secret)
 *   zkslot token revoke NAME
 *
 * All take --file FILE (else $ZKSLOT_TOKENS, else /etc/zkslot/api-tokens).
 * The file is rewritten atomically, mode 0600, keeping its owner (create
 * it as the daemons' user, or chown it after the first add); a running
 * zkslot-apid reads it again on SIGHUP (`systemctl kill -s HUP zkslot-apid`).
 * Exit 0, 1 (revoke: no such token), 2 an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cmd.h"
#include "tokens.h"

static int usage(void)
{
    fprintf(stderr, "usage: zkslot token add NAME --keys KEY[,KEY...]|* [--cancel-any] "
                    "[--file FILE]\n"
                    "       zkslot token list [--file FILE]\n"
                    "       zkslot token revoke NAME [--file FILE]\n");
    return 2;
}

/* A new secret: "zks_" and 64 hex digits (256 random bits). */
static int new_secret(char *buf, size_t n)
{
    unsigned char rnd[32];
    if (n < sizeof TOKEN_SECRET_PREFIX + 64 ||
        getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return -1;
    size_t o = (size_t)snprintf(buf, n, "%s", TOKEN_SECRET_PREFIX);
    for (size_t i = 0; i < sizeof rnd; i++)
        o += (size_t)snprintf(buf + o, n - o, "%02x", rnd[i]);
    return 0;
}

static int keys_ok(const char *k)
{
    if (!strcmp(k, "*"))
        return 1;
    return *k && !strchr(k, ' ') && !strchr(k, '\t') && !strstr(k, ",,") &&
           k[0] != ',' && k[strlen(k) - 1] != ',' && strlen(k) < sizeof(((struct api_token *)0)->keys);
}

int cmd_token(int argc, char **argv)
{
    static const struct option opts[] = { { "file", required_argument, 0, 'f' },
                                          { "keys", required_argument, 0, 'k' },
                                          { "cancel-any", no_argument, 0, 'c' },
                                          { 0, 0, 0, 0 } };
    const char *file = getenv("ZKSLOT_TOKENS"), *keys = NULL;
    struct api_tokens t;
    char msg[1024];
    int cancel_any = 0, o, rc = 2, r;
    if (!file || !*file)
        file = TOKENS_DEFAULT_PATH;
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (o == 'f')
            file = optarg;
        else if (o == 'k')
            keys = optarg;
        else if (o == 'c')
            cancel_any = 1;
        else
            return usage();
    }
    int npos = argc - optind;
    char **pos = argv + optind;
    const char *sub = npos ? pos[0] : "";
    if (!strcmp(sub, "list") && npos == 1 && !keys && !cancel_any) {
        if ((r = tokens_load(file, 0, &t, msg, sizeof msg)) < 0) {
            fprintf(stderr, "zkslot token list: %s\n", msg);
            return 2;
        }
        printf("%-32s %-6s %s\n", "NAME", "CANCEL", "KEYS");
        for (unsigned i = 0; i < t.n; i++)
            printf("%-32s %-6s %s\n", t.t[i].name, t.t[i].cancel_any ? "any" : "own",
                   t.t[i].keys);
        tokens_free(&t);
        return 0;
    }
    int add = !strcmp(sub, "add");
    if ((!add && strcmp(sub, "revoke")) || npos != 2 || (add && !keys) ||
        (!add && (keys || cancel_any)))
        return usage();
    if (!token_name_ok(pos[1])) {
        fprintf(stderr, "zkslot token %s: '%s' is not a token name (1 to %d of A-Z a-z 0-9 _ . "
                "-)\n", sub, pos[1], TOKEN_NAME_MAX);
        return 2;
    }
    if (add && !keys_ok(keys)) {
        fprintf(stderr, "zkslot token add: --keys: '%s' is not '*' or key names separated by "
                "commas\n", keys);
        return 2;
    }
    if ((r = tokens_load(file, 0, &t, msg, sizeof msg)) == -ENOENT && add) {
        memset(&t, 0, sizeof t);
    } else if (r < 0) {
        fprintf(stderr, "zkslot token %s: %s\n", sub, msg);
        return 2;
    }
    char secret[128];
    if (add) {
        struct api_token tok;
        memset(&tok, 0, sizeof tok);
        snprintf(tok.name, sizeof tok.name, "%s", pos[1]);
        snprintf(tok.keys, sizeof tok.keys, "%s", keys);
        tok.cancel_any = cancel_any;
        if (new_secret(secret, sizeof secret) < 0) {
            fprintf(stderr, "zkslot token add: getrandom failed\n");
            goto out;
        }
        zk_sha256_hex(secret, strlen(secret), tok.hash);
        if ((r = tokens_add(&t, &tok)) < 0) {
            fprintf(stderr, "zkslot token add: %s\n", r == -EEXIST
                    ? "a token of that name exists (revoke it first)" : "out of memory");
            goto out;
        }
    } else if (tokens_remove(&t, pos[1]) < 0) {
        fprintf(stderr, "zkslot token revoke: no token named '%s' in %s\n", pos[1], file);
        rc = 1;
        goto out;
    }
    if (tokens_save(file, &t, msg, sizeof msg) < 0) {
        fprintf(stderr, "zkslot token %s: %s\n", sub, msg);
        goto out;
    }
    if (add)
        printf("%s\n", secret);
    else
        fprintf(stderr, "token '%s' revoked (a running zkslot-apid forgets it on SIGHUP: "
                "systemctl kill -s HUP zkslot-apid)\n", pos[1]);
    rc = 0;
out:
    tokens_free(&t);
    return rc;
}
