/*
 * g16_cli.c -- see g16_cli.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "g16_cli.h"
#include "zk/config.h"
#include "zk/error.h"
#include "zk/keystore.h"
#include "zk/util.h"
#include "zk/wtns.h"

static void report(const char *cmd, const char *path, int rc, const struct zk_diag *d)
{
    if (d && d->msg[0])
        fprintf(stderr, "zkslot %s: %s\n", cmd, d->msg);
    else
        fprintf(stderr, "zkslot %s: %s: %s\n", cmd, path, zk_strerror(rc));
}

/* The key at path from its file: whole, or for one proof (oneshot:
 * zk_groth16_key_load_oneshot).  0 or a negative code, reported. */
static int load_file(const char *cmd, const char *path, unsigned nthreads, int oneshot,
                     struct zk_groth16_key **ret)
{
    struct zk_zkey z;
    struct zk_diag d = { { 0 } };
    int rc;

    memset(&z, 0, sizeof z);
    if ((rc = zk_zkey_open(&z, path, &d)) == 0)
        rc = oneshot ? zk_groth16_key_load_oneshot(&z, nthreads, &d, ret)
                     : zk_groth16_key_load(&z, nthreads, &d, ret);
    if (rc)
        report(cmd, path, rc, &d);
    zk_zkey_done(&z);
    return rc;
}

int g16_cli_load_key(const char *cmd, const char *path, unsigned nthreads,
                     struct zk_groth16_key **ret)
{
    return load_file(cmd, path, nthreads, 0, ret);
}

int g16_cli_load_key_resident(const char *cmd, const char *path, unsigned nthreads,
                              int oneshot, struct zk_groth16_key **ret, char *from, size_t fn)
{
    struct zk_config cfg;
    struct zk_zkey z;
    struct zk_diag d = { { 0 } };
    struct zk_groth16_load_opts o = { .what = ZK_G16_LOAD_COEFS, .threads = nthreads };
    struct zk_groth16_key *k = NULL;
    zk_keystore *s = NULL;
    int rc;

    snprintf(from, fn, "its file");
    /* Not populated: one proof reads a fraction of the store (the 0/1
     * split leaves most tables unread), and faulting in only that is
     * cheaper than mapping every page at open and unmapping it at exit
     * (SHA-256 2^16, tables 'all', 377 MiB: 0.35 s a proof populated,
     * 0.27 s not) */
    if (zk_config_resolve(&cfg, NULL, &d) < 0 ||
        (rc = zk_keystore_find(cfg.pool, path, 0, &s, &d)) == -ENOENT)
        return load_file(cmd, path, nthreads, oneshot, ret);
    if (rc < 0) {   /* a store that is there but refused: say so, use the file */
        fprintf(stderr, "zkslot %s: warning: %s: loading the key from its file\n", cmd, d.msg);
        return load_file(cmd, path, nthreads, oneshot, ret);
    }
    memset(&z, 0, sizeof z);
    if ((rc = zk_zkey_open(&z, path, &d)) == 0)
        rc = zk_groth16_key_load_opts(&z, &o, &d, &k);
    zk_zkey_done(&z);
    if (rc == 0 && (rc = zk_keystore_key(s, k, ret, &d)) == 0)
        snprintf(from, fn, "its store %s%s", zk_keystore_info(s)->path,
                 zk_keystore_info(s)->found_by_identity ? " (found by the file's identity)"
                                                        : "");
    if (rc) {
        report(cmd, path, rc, &d);
        zk_keystore_close(s);
        zk_groth16_key_free(k);
    }
    return rc;
}

int g16_cli_load_witness(const char *cmd, const char *path, const struct zk_groth16_key *k,
                         zk_scalar **ret)
{
    const struct zk_zkey_header *h = zk_groth16_key_header(k);
    struct zk_wtns w;
    struct zk_diag d = { { 0 } };
    zk_scalar *v = NULL;
    int rc;

    memset(&w, 0, sizeof w);
    if ((rc = zk_wtns_open(&w, path, &d)) ||
        (rc = zk_wtns_check_against_zkey(&w.hdr, h, path, &d)))
        goto out;
    v = aligned_alloc(64, (((size_t)h->n_vars * sizeof *v) + 63) & ~(size_t)63);
    if (!v) {
        rc = -ENOMEM;
        goto out;
    }
    if ((rc = zk_wtns_read_values(&w, 0, h->n_vars, v, &d)))
        goto out;
    *ret = v;
    v = NULL;
out:
    if (rc)
        report(cmd, path, rc, &d);
    free(v);
    zk_wtns_done(&w);
    return rc;
}

char *g16_cli_read_file(const char *cmd, const char *path, size_t max, size_t *ret_len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;

    if (!f) {
        fprintf(stderr, "zkslot %s: %s: %s\n", cmd, path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (cap - len < 4096) {
            size_t ncap = cap ? 2 * cap : 65536;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                fprintf(stderr, "zkslot %s: %s: out of memory\n", cmd, path);
                goto fail;
            }
            buf = nb;
            cap = ncap;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len > max) {
            fprintf(stderr, "zkslot %s: %s: more than %zu bytes\n", cmd, path, max);
            goto fail;
        }
        if (n == 0) {
            if (ferror(f)) {
                fprintf(stderr, "zkslot %s: %s: read error\n", cmd, path);
                goto fail;
            }
            break;
        }
    }
    fclose(f);
    buf[len] = 0;
    *ret_len = len;
    return buf;
fail:
    fclose(f);
    free(buf);
    return NULL;
}

char *g16_cli_read_text(const char *cmd, const char *path)
{
    size_t len;
    char *buf = g16_cli_read_file(cmd, path, SIZE_MAX - 1, &len);
    if (buf && memchr(buf, 0, len)) {
        fprintf(stderr, "zkslot %s: %s: not a text file (NUL byte)\n", cmd, path);
        free(buf);
        return NULL;
    }
    return buf;
}

int g16_cli_write_text(const char *cmd, const char *path, const char *text)
{
    int rc = zk_write_atomic(path, text, strlen(text), 0644);
    if (rc)
        fprintf(stderr, "zkslot %s: %s: %s\n", cmd, path, strerror(-rc));
    return rc;
}

int g16_cli_parse_uint(const char *cmd, const char *opt, const char *s, unsigned *ret)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || !*s || *end || v == 0 || v > 4096) {
        fprintf(stderr, "zkslot %s: %s: expected a positive integer, got '%s'\n", cmd, opt, s);
        return -1;
    }
    *ret = (unsigned)v;
    return 0;
}
