/*
 * tls_client.c -- a verified TLS session over a connected socket, with
 * GnuTLS (contract in tls_client.h).  The verification is GnuTLS's own,
 * run inside the handshake (gnutls_session_set_verify_cert: chain and
 * name), so a server that fails it ends the handshake with an error and
 * http_client.c never gets a session to write the request into.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tls_client.h"
#include "zk/util.h"

/*
 * GnuTLS is loaded when the first session opens (tls_load_gnutls), not linked:
 * linked, it and what it pulls in (p11-kit, nettle, libunistring, ...)
 * were mapped and relocated at every zkslot command's start, 2.2 MiB of
 * resident memory that `zkslot prove` carried to its peak.  The functions
 * used, called through gt.
 */
#define GT_SONAME "libgnutls.so.30"
#define GT_FUNCTIONS(X)                                                                  \
    X(gnutls_alert_get) X(gnutls_alert_get_name) X(gnutls_certificate_allocate_credentials) \
    X(gnutls_certificate_free_credentials) X(gnutls_certificate_set_x509_system_trust)   \
    X(gnutls_certificate_set_x509_trust_file) X(gnutls_credentials_set) X(gnutls_deinit) \
    X(gnutls_error_is_fatal) X(gnutls_handshake) X(gnutls_handshake_set_timeout)         \
    X(gnutls_init) X(gnutls_record_recv) X(gnutls_record_send) X(gnutls_server_name_set) \
    X(gnutls_session_get_verify_cert_status) X(gnutls_session_set_verify_cert)           \
    X(gnutls_set_default_priority) X(gnutls_strerror) X(gnutls_transport_set_int2)

static struct {
#define GT_FIELD(f) __typeof__(f) *f;
    GT_FUNCTIONS(GT_FIELD)
#undef GT_FIELD
    int loaded;
} gt;

/* 0, or -1 with one line in err naming the library and its package. */
static int tls_load_gnutls(char *err, size_t n)
{
    char why[512] = "";
    if (gt.loaded)
        return 0;
    void *h = zk_dl_open(GT_SONAME, why, sizeof why);
#define GT_RESOLVE(f)                                                                  \
    if (h && !why[0])                                                                  \
        *(void **)&gt.f = zk_dl_sym(h, GT_SONAME, #f, why, sizeof why);
    GT_FUNCTIONS(GT_RESOLVE)
#undef GT_RESOLVE
    if (!why[0]) {
        gt.loaded = 1;
        return 0;
    }
    snprintf(err, n, "cannot load the TLS library (Debian package libgnutls30): %s", why);
    return -1;
}

struct tls_client {
    gnutls_certificate_credentials_t cred;
    gnutls_session_t s;
    double timeout_s;                 /* the socket's SO_RCVTIMEO/SO_SNDTIMEO */
    int store_empty;                  /* the system's trust store gave no CA */
    char where[300];                  /* "HOST:PORT", for messages */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Should a read or write that began at t0 and got r be tried again?
 * GNUTLS_E_AGAIN on a blocking socket is the socket's timeout, or (TLS
 * 1.3) a post-handshake message handled, a session ticket: again until
 * the timeout has passed. */
static int again(const struct tls_client *t, ssize_t r, double t0)
{
    return r == GNUTLS_E_INTERRUPTED || (r == GNUTLS_E_AGAIN && now_s() - t0 < t->timeout_s);
}

/* buf (n bytes, NUL-terminated) += "; " (unless empty) and s. */
static void append(char *buf, size_t n, const char *s)
{
    size_t l = strlen(buf);
    if (l + 1 < n)
        snprintf(buf + l, n - l, "%s%s", l ? "; " : "", s);
}

/* Why the verification refused the server (its status bits), in words. */
static void cert_problem(unsigned st, const char *host, const char *ca_file, int store_empty,
                         char *buf, size_t n)
{
    char s[400];
    buf[0] = 0;
    if (st & (GNUTLS_CERT_SIGNER_NOT_FOUND | GNUTLS_CERT_SIGNER_NOT_CA |
              GNUTLS_CERT_SIGNATURE_FAILURE)) {
        if (!ca_file && store_empty)
            snprintf(s, sizeof s, "the server's certificate is not trusted: the system's trust "
                     "store has no CA (install ca-certificates, or give the server's CA with "
                     "ZKSLOT_CA_FILE or --ca-file)");
        else
            snprintf(s, sizeof s, "the server's certificate is not trusted: no CA in %s "
                     "signed it", ca_file ? ca_file : "the system's trust store");
        append(buf, n, s);
    }
    if (st & GNUTLS_CERT_UNEXPECTED_OWNER) {
        snprintf(s, sizeof s, "name mismatch: the server's certificate is not for %s", host);
        append(buf, n, s);
    }
    if (st & GNUTLS_CERT_EXPIRED)
        append(buf, n, "the server's certificate has expired");
    if (st & GNUTLS_CERT_NOT_ACTIVATED)
        append(buf, n, "the server's certificate is not valid yet");
    if (st & GNUTLS_CERT_REVOKED)
        append(buf, n, "the server's certificate is revoked");
    if (st & GNUTLS_CERT_INSECURE_ALGORITHM)
        append(buf, n, "the server's certificate is signed with an insecure algorithm");
    if (!buf[0]) {
        snprintf(s, sizeof s, "the server's certificate is not trusted (GnuTLS status 0x%x)", st);
        append(buf, n, s);
    }
}

/* The handshake's failure r as one line into err. */
static void handshake_error(struct tls_client *t, int r, const char *host, const char *ca_file,
                            char *err, size_t n)
{
    char why[1024];
    if (r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR)
        cert_problem(gt.gnutls_session_get_verify_cert_status(t->s), host, ca_file, t->store_empty,
                     why, sizeof why);
    else if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_TIMEDOUT)
        snprintf(why, sizeof why, "the TLS handshake failed: no answer in time");
    else if (r == GNUTLS_E_FATAL_ALERT_RECEIVED)
        snprintf(why, sizeof why, "the TLS handshake failed: the server refused it (%s)",
                 gt.gnutls_alert_get_name(gt.gnutls_alert_get(t->s)));
    else   /* a plain HTTP server answers the ClientHello with text, or hangs up */
        snprintf(why, sizeof why, "the TLS handshake failed: %s%s", gt.gnutls_strerror(r),
                 r == GNUTLS_E_UNEXPECTED_PACKET_LENGTH || r == GNUTLS_E_PREMATURE_TERMINATION ||
                 r == GNUTLS_E_UNSUPPORTED_VERSION_PACKET || r == GNUTLS_E_UNEXPECTED_PACKET
                     ? " (not a TLS server? http:// speaks plain HTTP)" : "");
    snprintf(err, n, "%s: %s", t->where, why);
}

/* The credentials: ca_file's CAs, or the system's (none read: every
 * server's certificate is refused, as not trusted); 0 or -1 (err). */
static int load_trust(struct tls_client *t, const char *ca_file, char *err, size_t n)
{
    int r = gt.gnutls_certificate_allocate_credentials(&t->cred);
    if (r < 0) {
        snprintf(err, n, "%s: %s", t->where, gt.gnutls_strerror(r));
        return -1;
    }
    if (ca_file && access(ca_file, R_OK) < 0) {   /* GnuTLS would not say why */
        snprintf(err, n, "%s (the CA file): %s", ca_file, strerror(errno));
        return -1;
    }
    r = ca_file ? gt.gnutls_certificate_set_x509_trust_file(t->cred, ca_file, GNUTLS_X509_FMT_PEM)
                : gt.gnutls_certificate_set_x509_system_trust(t->cred);
    if (r > 0)
        return 0;
    if (!ca_file) {   /* then no server is trusted: the handshake says so */
        t->store_empty = 1;
        return 0;
    }
    snprintf(err, n, "%s (the CA file): %s", ca_file,
             r < 0 ? gt.gnutls_strerror(r) : "no PEM certificate in it");
    return -1;
}

int tls_client_open(int fd, const char *host, const char *port, const char *ca_file,
                    double timeout_s, struct tls_client **ret, char *err, size_t n)
{
    struct tls_client *t = calloc(1, sizeof *t);
    unsigned char addr[16];
    int r;
    if (!t) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    if (tls_load_gnutls(err, n) < 0) {
        free(t);
        return -1;
    }
    ca_file = ca_file && *ca_file ? ca_file : NULL;
    snprintf(t->where, sizeof t->where, "%s:%s", host, port);
    t->timeout_s = timeout_s;
    if (load_trust(t, ca_file, err, n) < 0)
        goto fail;
    if ((r = gt.gnutls_init(&t->s, GNUTLS_CLIENT | GNUTLS_NO_SIGNAL)) < 0 ||
        (r = gt.gnutls_set_default_priority(t->s)) < 0 ||
        (r = gt.gnutls_credentials_set(t->s, GNUTLS_CRD_CERTIFICATE, t->cred)) < 0)
        goto tls_fail;
    /* server name indication carries DNS names only, never an address (RFC 6066) */
    if (inet_pton(AF_INET, host, addr) != 1 && inet_pton(AF_INET6, host, addr) != 1 &&
        (r = gt.gnutls_server_name_set(t->s, GNUTLS_NAME_DNS, host, strlen(host))) < 0)
        goto tls_fail;
    gt.gnutls_session_set_verify_cert(t->s, host, 0);   /* chain and name, in the handshake */
    gt.gnutls_transport_set_int2(t->s, fd, fd);
    gt.gnutls_handshake_set_timeout(t->s, (unsigned)(timeout_s * 1000));
    do
        r = gt.gnutls_handshake(t->s);
    while (r < 0 && r != GNUTLS_E_AGAIN && !gt.gnutls_error_is_fatal(r));
    if (r < 0) {
        handshake_error(t, r, host, ca_file, err, n);
        goto fail;
    }
    *ret = t;
    return 0;
tls_fail:
    snprintf(err, n, "%s: %s", t->where, gt.gnutls_strerror(r));
fail:
    tls_client_free(t);
    return -1;
}

int tls_client_send_all(struct tls_client *t, const char *buf, size_t len, char *err, size_t n)
{
    while (len) {
        double t0 = now_s();
        ssize_t w;
        do
            w = gt.gnutls_record_send(t->s, buf, len);
        while (again(t, w, t0));
        if (w < 0) {
            snprintf(err, n, "%s: cannot send the request: %s", t->where,
                     w == GNUTLS_E_AGAIN ? "timed out" : gt.gnutls_strerror((int)w));
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

ssize_t tls_client_recv(struct tls_client *t, char *buf, size_t len, char *err, size_t n)
{
    double t0 = now_s();
    ssize_t r;
    do
        r = gt.gnutls_record_recv(t->s, buf, len);
    while (again(t, r, t0));
    if (r >= 0)
        return r;
    if (r == GNUTLS_E_PREMATURE_TERMINATION)   /* closed without close_notify */
        return 0;
    snprintf(err, n, "%s: %s", t->where,
             r == GNUTLS_E_AGAIN ? "no answer in time" : gt.gnutls_strerror((int)r));
    return -1;
}

struct tls_client *tls_client_free(struct tls_client *t)
{
    if (!t)
        return NULL;
    if (t->s)
        gt.gnutls_deinit(t->s);
    if (t->cred)
        gt.gnutls_certificate_free_credentials(t->cred);
    free(t);
    return NULL;
}
