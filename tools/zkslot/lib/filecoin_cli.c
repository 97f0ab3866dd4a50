/*
 * filecoin_cli.c -- the CLI's calls of the Filecoin synthesizer
 * (filecoin_cli.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filecoin_cli.h"
#include "zk/error.h"
#include "zk/priority.h"
#include "zk/witgen.h"

extern char **environ;

#define OUT_MAX (1u << 20)   /* a program's standard output, at most */
#define ERR_KEEP 512         /* of its standard error, the end kept */

static const char *const kinds[] = { "porep", "winning", "window", "snap" };

int fil_kind_valid(const char *kind)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kind, kinds[i]))
            return 1;
    return 0;
}

int fil_kind_priority(const char *kind)
{
    return !strcmp(kind, "winning") ? ZK_PRIO_CRITICAL
           : !strcmp(kind, "window") ? ZK_PRIO_HIGH
                                     : ZK_PRIO_NORMAL;
}

int fil_key_name(const char *kind, uint64_t size, char *dst, size_t n)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
    int u = -1;
    if (!size || size % 1024)
        return -EINVAL;
    while (size % 1024 == 0 && u < 3) {
        size /= 1024;
        u++;
    }
    return snprintf(dst, n, "fil-%s-%" PRIu64 "%s", kind, size, units[u]) < (int)n
               ? 0 : -ENAMETOOLONG;
}

int fil_synth_find(const char *given, char *dst, size_t n, char *msg, size_t msg_n)
{
    const char *env = getenv("ZKSLOT_FIL_SYNTH");
    const char *name = given ? given : env && *env ? env : FIL_SYNTH_NAME;
    int r = zk_witgen_find_program(name, dst, n);
    if (r)
        snprintf(msg, msg_n, "the Filecoin synthesizer %s: %s (install it, or name it with "
                 "%s)", name, strchr(name, '/') ? strerror(-r) : "not found on " ZK_WITGEN_PATH,
                 given ? "--synth PATH" : "--synth PATH or ZKSLOT_FIL_SYNTH");
    return r;
}

/* The last non-empty line of text (len bytes) into dst. */
static void last_line(const char *text, size_t len, char *dst, size_t n)
{
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    size_t b = len;
    while (b && text[b - 1] != '\n')
        b--;
    snprintf(dst, n, "%.*s", (int)(len - b), text + b);
}

/*
 * Runs argv (argv[0] a path) with the caller's environment, standard input
 * /dev/null; its standard output into *out (malloc'd, NUL-terminated, at
 * most OUT_MAX bytes: more is an error), the last line of its standard
 * error into err.  Its exit status (0..255), or -errno.
 */
static int run(char *const argv[], char **out, char *err, size_t err_n)
{
    int po[2], pe[2], st = 0, r;
    posix_spawn_file_actions_t fa;
    pid_t pid;
    *out = NULL;
    err[0] = 0;
    if (pipe2(po, O_CLOEXEC) < 0)
        return -errno;
    if (pipe2(pe, O_CLOEXEC) < 0) {
        r = -errno;
        close(po[0]), close(po[1]);
        return r;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    r = -posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    int spawned = r == 0;
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    size_t olen = 0, elen = 0;
    char *o = malloc(OUT_MAX + 1), ebuf[4096];
    if (!o)
        r = r ? r : -ENOMEM;
    struct pollfd p[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
    while (spawned && !r && (p[0].fd >= 0 || p[1].fd >= 0)) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            r = -errno;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            char buf[8192];
            ssize_t k = read(p[i].fd, buf, sizeof buf);
            if (k <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
            } else if (i == 0 && olen + (size_t)k <= OUT_MAX) {
                memcpy(o + olen, buf, (size_t)k);
                olen += (size_t)k;
            } else if (i == 0) {
                r = -EFBIG;   /* killed below */
            } else {          /* keep the end of standard error */
                size_t take = (size_t)k;
                const char *src = buf;
                if (take > sizeof ebuf) {
                    src += take - sizeof ebuf;
                    take = sizeof ebuf;
                }
                if (elen + take > sizeof ebuf) {
                    size_t drop = elen + take - sizeof ebuf;
                    memmove(ebuf, ebuf + drop, elen - drop);
                    elen -= drop;
                }
                memcpy(ebuf + elen, src, take);
                elen += take;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    if (spawned) {
        if (r)
            kill(pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    if (!r && !o)
        r = -ENOMEM;
    last_line(ebuf, elen, err, err_n < ERR_KEEP ? err_n : ERR_KEEP);
    if (r) {
        free(o);
        return r;
    }
    o[olen] = 0;
    *out = o;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs argv and says what went wrong in msg: 0 with *out, ZK_EREJECTED
 * when it exited 2 (its input, its one line), another error else. */
static int run_said(char *const argv[], char **out, char *msg, size_t msg_n)
{
    char err[ERR_KEEP];
    int st = run(argv, out, err, sizeof err);
    if (st == 0)
        return 0;
    free(*out);
    *out = NULL;
    if (st < 0)
        snprintf(msg, msg_n, "%s %s: %s", argv[0], argv[1],
                 st == -EFBIG ? "printed more than expected" : strerror(-st));
    else if (err[0])
        snprintf(msg, msg_n, "%s", err);
    else
        snprintf(msg, msg_n, "%s %s: exit %d", argv[0], argv[1], st);
    return st == 2 ? ZK_EREJECTED : st < 0 ? st : -EIO;
}

int fil_keys(const char *prog, const char *dir, uint64_t size,
             int (*cb)(void *ctx, const struct fil_circuit *c), void *ctx, char *msg,
             size_t msg_n)
{
    char ss[32], *out = NULL;
    snprintf(ss, sizeof ss, "%" PRIu64, size);
    char *argv[] = { (char *)prog, "keys", "--cache", (char *)dir, size ? "--sector-size" : NULL,
                     ss, NULL };
    int r = run_said(argv, &out, msg, msg_n);
    if (r)
        return r;
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line && !r;
         line = strtok_r(NULL, "\n", &save)) {
        struct fil_circuit c;
        char *f[4], *s2 = NULL;
        int nf = 0;
        for (char *t = strtok_r(line, "\t", &s2); t && nf < 4; t = strtok_r(NULL, "\t", &s2))
            f[nf++] = t;
        char *end = NULL;
        memset(&c, 0, sizeof c);
        if (nf == 4)
            c.sector_size = strtoull(f[1], &end, 10);
        if (nf != 4 || !fil_kind_valid(f[0]) || !end || *end ||
            strlen(f[2]) >= sizeof c.params || strlen(f[3]) >= sizeof c.vk) {
            snprintf(msg, msg_n, "%s keys: an unexpected line: %.200s", prog, line);
            r = -EPROTO;
            break;
        }
        snprintf(c.kind, sizeof c.kind, "%s", f[0]);
        memcpy(c.params, f[2], strlen(f[2]) + 1);
        memcpy(c.vk, f[3], strlen(f[3]) + 1);
        r = cb(ctx, &c);
    }
    free(out);
    return r;
}

int fil_split_private(const char *prog, const char *kind, const char *file, char *dir,
                      size_t dir_n, char ***parts, int *n, char *key, size_t key_n, char *msg,
                      size_t msg_n)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    *parts = NULL;
    *n = 0;
    if ((size_t)snprintf(dir, dir_n, "%s/zkslot-fil-XXXXXX", tmp) >= dir_n || !mkdtemp(dir)) {
        int e = errno;
        snprintf(msg, msg_n, "a directory for the parts in %s: %s", tmp, strerror(e));
        dir[0] = 0;
        return -e;
    }
    return fil_split(prog, kind, file, dir, parts, n, key, key_n, msg, msg_n);
}

void fil_split_remove(const char *dir, char **parts, int n)
{
    for (int i = 0; i < n; i++)
        unlink(parts[i]);
    if (dir[0])
        rmdir(dir);
    fil_parts_free(parts, n);
}

void fil_parts_free(char **parts, int n)
{
    for (int i = 0; parts && i < n; i++)
        free(parts[i]);
    free(parts);
}

/* The sector size label a registered proof's name carries
 * ("StackedDrgWindow2KiBV1_2" -> "2KiB"), from part file `path`. */
static int part_label(const char *path, char *dst, size_t n, char *msg, size_t msg_n)
{
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    const char *rp = root ? json_string_value(json_object_get(root, "registered_proof")) : NULL;
    int r = -EPROTO;
    for (const char *s = rp; s && *s; s++) {
        size_t d = strspn(s, "0123456789");
        if (d && (!strncmp(s + d, "KiB", 3) || !strncmp(s + d, "MiB", 3) ||
                  !strncmp(s + d, "GiB", 3)) && (s == rp || !isdigit((unsigned char)s[-1]))) {
            r = snprintf(dst, n, "%.*s", (int)d + 3, s) < (int)n ? 0 : -ENAMETOOLONG;
            break;
        }
    }
    if (r)
        snprintf(msg, msg_n, "%s: no sector size in its registered_proof (%s)", path,
                 rp ? rp : root ? "absent" : e.text);
    json_decref(root);
    return r;
}

int fil_input_key(const char *kind, const char *path, char *key, size_t key_n, char *msg,
                  size_t msg_n)
{
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    if (!root) {
        snprintf(msg, msg_n, "%s:%d:%d: %s", path, e.line, e.column, e.text);
        return -EPROTO;
    }
    json_t *size = json_object_get(root, "SectorSize");
    int r;
    if (json_is_integer(size) && json_integer_value(size) > 0) {   /* a C1 output */
        r = fil_key_name(kind, (uint64_t)json_integer_value(size), key, key_n);
        if (r)
            snprintf(msg, msg_n, "%s: SectorSize %lld is not a sector size", path,
                     (long long)json_integer_value(size));
    } else {
        r = fil_part_key(kind, path, key, key_n, msg, msg_n);
    }
    json_decref(root);
    return r;
}

int fil_part_key(const char *kind, const char *path, char *key, size_t key_n, char *msg,
                 size_t msg_n)
{
    char label[32];
    int r = part_label(path, label, sizeof label, msg, msg_n);
    if (!r && snprintf(key, key_n, "fil-%s-%s", kind, label) >= (int)key_n)
        r = -ENAMETOOLONG;
    return r;
}

int fil_split(const char *prog, const char *kind, const char *file, const char *dir,
              char ***parts, int *n, char *key, size_t key_n, char *msg, size_t msg_n)
{
    char *out = NULL;
    char *argv[] = { (char *)prog, "split", "--kind", (char *)kind, "--input", (char *)file,
                     "--out-dir", (char *)dir, NULL };
    *parts = NULL;
    *n = 0;
    int r = run_said(argv, &out, msg, msg_n);
    if (r)
        return r;
    int cap = 0;
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = realloc(*parts, (size_t)cap * sizeof *p);
            if (!p) {
                r = -ENOMEM;
                break;
            }
            *parts = p;
        }
        if (!((*parts)[*n] = strdup(line))) {
            r = -ENOMEM;
            break;
        }
        (*n)++;
    }
    free(out);
    if (!r && *n == 0) {
        snprintf(msg, msg_n, "%s split: no part written for %s", prog, file);
        r = -EPROTO;
    }
    if (!r)
        r = fil_part_key(kind, (*parts)[0], key, key_n, msg, msg_n);
    if (r == -ENOMEM)
        snprintf(msg, msg_n, "out of memory");
    if (r) {
        fil_parts_free(*parts, *n);
        *parts = NULL;
        *n = 0;
    }
    return r;
}
