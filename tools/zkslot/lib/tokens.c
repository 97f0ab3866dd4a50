/*
 * tokens.c -- the API token file (contract and format in tokens.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tokens.h"
#include "zk/error.h"
#include "zk/util.h"

int token_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > TOKEN_NAME_MAX)
        return 0;
    for (; *s; s++)
        if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
              ('0' <= *s && *s <= '9') || *s == '_' || *s == '.' || *s == '-'))
            return 0;
    return 1;
}

/* One line "NAME sha256:HEX keys=... cancel=..." into *t; 0 or -EINVAL. */
static int parse_line(char *line, struct api_token *t)
{
    char *save = NULL, *f[4];
    int nf = 0;
    for (char *w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (nf == 4)
            return -EINVAL;
        f[nf++] = w;
    }
    memset(t, 0, sizeof *t);
    if (nf != 4 || !token_name_ok(f[0]) || strncmp(f[1], "sha256:", 7) ||
        strlen(f[1] + 7) != 2 * ZK_SHA256_LEN || strncmp(f[2], "keys=", 5) ||
        !f[2][5] || strlen(f[2] + 5) >= sizeof t->keys)
        return -EINVAL;
    for (const char *h = f[1] + 7; *h; h++)
        if (!strchr("0123456789abcdef", *h))
            return -EINVAL;
    if (!strcmp(f[3], "cancel=any"))
        t->cancel_any = 1;
    else if (strcmp(f[3], "cancel=own"))
        return -EINVAL;
    snprintf(t->name, sizeof t->name, "%s", f[0]);
    snprintf(t->hash, sizeof t->hash, "%s", f[1] + 7);
    snprintf(t->keys, sizeof t->keys, "%s", f[2] + 5);
    return 0;
}

int tokens_load(const char *path, int strict, struct api_tokens *ret, char *msg, size_t n)
{
    struct stat st;
    char line[2048];
    unsigned lineno = 0;
    int rc = 0;
    memset(ret, 0, sizeof *ret);
    FILE *f = fopen(path, "re");
    if (!f) {
        rc = -errno;
        snprintf(msg, n, "%s: %s", path, strerror(-rc));
        return rc;
    }
    if (fstat(fileno(f), &st)) {
        rc = -errno;
        snprintf(msg, n, "%s: %s", path, strerror(-rc));
    } else if (strict && (st.st_mode & 077)) {
        snprintf(msg, n, "%s: mode %04o lets others than its owner read or change the tokens "
                 "(chmod 600 it)", path, (unsigned)(st.st_mode & 07777));
        rc = -EPERM;
    } else if (strict && st.st_uid != geteuid()) {
        snprintf(msg, n, "%s: owned by uid %u, not by this daemon's user (uid %u)", path,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        rc = -EACCES;
    }
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        char *p = line + strspn(line, " \t");
        if (!*p || *p == '#')
            continue;
        struct api_token t;
        if (parse_line(p, &t) < 0) {
            snprintf(msg, n, "%s:%u: not 'NAME sha256:HEX keys=KEYS|* cancel=own|any'", path,
                     lineno);
            rc = -EINVAL;
        } else if ((rc = tokens_add(ret, &t)) == -EEXIST) {
            snprintf(msg, n, "%s:%u: token '%s' named twice", path, lineno, t.name);
            rc = -EINVAL;
        } else if (rc < 0) {
            snprintf(msg, n, "%s: out of memory", path);
        }
    }
    fclose(f);
    if (rc)
        tokens_free(ret);
    return rc;
}

int tokens_save(const char *path, const struct api_tokens *t, char *msg, size_t n)
{
    struct stat st;
    struct zk_atomic_file af;
    int had = stat(path, &st) == 0;
    int r = zk_atomic_begin(&af, path, 0600);
    if (r < 0) {
        snprintf(msg, n, "%s: %s", path, zk_strerror(r));
        return r;
    }
    FILE *f = fdopen(dup(af.fd), "w");
    if (!f) {
        zk_atomic_abort(&af);
        snprintf(msg, n, "%s: %s", path, strerror(errno));
        return -ENOMEM;
    }
    fprintf(f, "# zkslot API tokens: NAME sha256:HEX keys=KEYS|* cancel=own|any\n"
               "# edited by `zkslot token add|list|revoke`; read by zkslot-apid\n");
    for (unsigned i = 0; i < t->n; i++)
        fprintf(f, "%s sha256:%s keys=%s cancel=%s\n", t->t[i].name, t->t[i].hash,
                t->t[i].keys, t->t[i].cancel_any ? "any" : "own");
    r = fclose(f) ? -errno : 0;
    if (!r && fchmod(af.fd, 0600))
        r = -errno;
    if (!r && had && fchown(af.fd, st.st_uid, st.st_gid))
        r = -errno;
    if (r) {
        zk_atomic_abort(&af);
    } else {
        r = zk_atomic_commit(&af);
    }
    if (r < 0)
        snprintf(msg, n, "%s: %s", path, zk_strerror(r));
    return r;
}

int tokens_add(struct api_tokens *t, const struct api_token *tok)
{
    for (unsigned i = 0; i < t->n; i++)
        if (!strcmp(t->t[i].name, tok->name))
            return -EEXIST;
    struct api_token *nt = realloc(t->t, (t->n + 1) * sizeof *nt);
    if (!nt)
        return -ENOMEM;
    nt[t->n++] = *tok;
    t->t = nt;
    return 0;
}

int tokens_remove(struct api_tokens *t, const char *name)
{
    for (unsigned i = 0; i < t->n; i++) {
        if (strcmp(t->t[i].name, name))
            continue;
        memmove(t->t + i, t->t + i + 1, (t->n - i - 1) * sizeof *t->t);
        t->n--;
        return 0;
    }
    return -ENOENT;
}

void tokens_free(struct api_tokens *t)
{
    free(t->t);
    t->t = NULL;
    t->n = 0;
}

const struct api_token *tokens_find(const struct api_tokens *t, const char *secret)
{
    char hex[2 * ZK_SHA256_LEN + 1];
    const struct api_token *found = NULL;
    zk_sha256_hex(secret, strlen(secret), hex);
    for (unsigned i = 0; i < t->n; i++) {
        unsigned diff = 0;   /* every byte of every entry: no early exit to time */
        for (size_t b = 0; b < sizeof hex; b++)
            diff |= (unsigned)(hex[b] ^ t->t[i].hash[b]);
        if (!diff)
            found = &t->t[i];
    }
    return found;
}

int token_may_submit(const struct api_token *tok, const char *name)
{
    if (!strcmp(tok->keys, "*"))
        return 1;
    size_t len = strlen(name);
    for (const char *p = tok->keys; *p;) {
        size_t w = strcspn(p, ",");
        if (w == len && !strncmp(p, name, len))
            return 1;
        p += w + (p[w] == ',');
    }
    return 0;
}
