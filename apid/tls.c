/*
 * tls.c -- zkslot-apid's TLS (--tls-cert FILE --tls-key FILE): HTTPS on
 * every listener through libmicrohttpd's GnuTLS support (docs/api.md,
 * "Listeners").
 *
 * Both files are PEM, read once at start (a new certificate takes a
 * restart).  The key file must be this user's or root's, and neither its
 * group nor others may read it (0600 or 0400).  TLS does not change who
 * may call: a non-loopback listener still needs --tokens.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apid.h"

#define APID_PEM_MAX (1u << 20)

/* File `path` whole, NUL-terminated, malloc'd; NULL with msg set.  `secret`:
 * refused when group or others may read it or another user owns it. */
static char *read_pem(const char *opt, const char *path, int secret, char *msg, size_t n)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    char *b = NULL;
    if (fd < 0 || fstat(fd, &st)) {
        snprintf(msg, n, "%s %s: %s", opt, path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > APID_PEM_MAX) {
        snprintf(msg, n, "%s %s: not a PEM file (a regular file of 1 byte to 1 MiB)", opt, path);
        goto out;
    }
    if (secret && ((st.st_mode & 077) || (st.st_uid != geteuid() && st.st_uid != 0))) {
        snprintf(msg, n, "%s %s: mode %03o, owner uid %u: a private key must be this user's "
                 "or root's and readable by no one else (chmod 600)", opt, path,
                 (unsigned)(st.st_mode & 0777), (unsigned)st.st_uid);
        goto out;
    }
    if (!(b = malloc((size_t)st.st_size + 1)) ||
        read(fd, b, (size_t)st.st_size) != st.st_size) {
        snprintf(msg, n, "%s %s: cannot read it", opt, path);
        free(b);
        b = NULL;
        goto out;
    }
    b[st.st_size] = 0;
    if (!strstr(b, "-----BEGIN ")) {
        snprintf(msg, n, "%s %s: not PEM (no -----BEGIN line)", opt, path);
        free(b);
        b = NULL;
    }
out:
    if (fd >= 0)
        close(fd);
    return b;
}

int apid_tls_load(struct apid *a, const char *cert, const char *key, char *msg, size_t n)
{
    if (!cert != !key) {
        snprintf(msg, n, "--tls-cert and --tls-key go together (a certificate and its key)");
        return -1;
    }
    if (!cert)
        return 0;
    if (!(a->tls_cert = read_pem("--tls-cert", cert, 0, msg, n)) ||
        !(a->tls_key = read_pem("--tls-key", key, 1, msg, n)))
        return -1;
    return 0;
}
