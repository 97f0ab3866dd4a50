/*
 * witgen.c -- a circuit's witness generator as a child process (zk/witgen.h).
 *
 * The child is prepared before fork (argv, environment, paths resolved), so
 * that between fork and exec it only makes async-signal-safe calls: the
 * parent is a multithreaded daemon.  The parent then polls the output pipe
 * every 50 ms; at each wake it checks the cancel flag, the deadline, the
 * process group's resident size and the output size, and kills the whole
 * group (SIGKILL to -pgid) on the first limit crossed.  Whatever the
 * outcome, the group is killed once the child has exited, so nothing it
 * started outlives it.
 *
 * zk_witgen_run_into gives the generator a pipe for its output (fd 3,
 * named /dev/fd/3) and copies what comes through into the caller's memory
 * as it comes: the witness exists once, where it is used, never also as a
 * file (a Filecoin partition's assignment is gigabytes).  The pipe is read
 * in the same poll loop as the output; the limits are checked at most
 * every POLL_MS however fast the data comes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zk/error.h"
#include "zk/util.h"
#include "zk/witgen.h"

#define TAIL_MAX 4096         /* bytes of output kept for the message */
#define POLL_MS 50
#define MAX_WORDS 256         /* words of a command template */
#define SINK_FD 3             /* the generator's output pipe, in the child */
#define SINK_CHUNK (4u << 20) /* bytes read from it at once */
#define SINK_PIPE (1 << 20)   /* its capacity asked for (pipe-max-size by default) */

static const char *const kind_names[] = { "", "cpp", "wasm", "cmd" };

const char *zk_witgen_kind_name(int kind)
{
    return kind >= 0 && kind <= ZK_WITGEN_CMD ? kind_names[kind] : "?";
}

int zk_witgen_kind_parse(const char *s)
{
    for (int i = 0; i <= ZK_WITGEN_CMD; i++)
        if (!strcmp(s, kind_names[i]))
            return i;
    return -1;
}

/* ---- paths ------------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

int zk_witgen_find_program(const char *name, char *dst, size_t n)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) != 0)
            return -errno;
        snprintf(dst, n, "%s", name);
        return 0;
    }
    const char *path = ZK_WITGEN_PATH;
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        struct stat st;
        if (snprintf(dst, n, "%.*s/%s", (int)len, len ? path : ".", name) < (int)n &&
            stat(dst, &st) == 0 && S_ISREG(st.st_mode) && access(dst, X_OK) == 0)
            return 0;
        path += len + (colon != NULL);
    }
    return -ENOENT;
}

/* The .js files of a wasm generator: circom writes them beside the .wasm. */
static void wasm_js(const char *wasm, char *gen, char *calc, size_t n)
{
    char dir[PATH_MAX];
    zk_path_dir(wasm, dir, sizeof dir);   /* (a path that long fails to open below) */
    if (snprintf(gen, n, "%s/generate_witness.js", dir) >= (int)n)
        gen[0] = 0;
    if (snprintf(calc, n, "%s/witness_calculator.js", dir) >= (int)n)
        calc[0] = 0;
}

/* ---- command templates -------------------------------------------------------- */

/*
 * Splits template t into words like a POSIX shell would for a simple
 * command (quotes and backslashes, no expansions), replacing {input} and
 * {output} with in/out (NULL: left as they are).  The words go into buf
 * (NUL-separated), pointers into words[].  -EINVAL for an unterminated
 * quote, too many words or too long a result.
 */
static int split_words(const char *t, const char *in, const char *out, char *buf, size_t bufn,
                       char **words, size_t *ret_n)
{
    size_t n = 0, o = 0;
    const char *p = t;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        if (n + 1 >= MAX_WORDS)
            return -EINVAL;
        words[n++] = buf + o;
        char q = 0;
        while (*p && (q || (*p != ' ' && *p != '\t' && *p != '\n'))) {
            const char *rep = NULL;
            size_t skip = 1;
            if (!q && (*p == '\'' || *p == '"')) {
                q = *p++;
                continue;
            }
            if (q && *p == q) {
                q = 0;
                p++;
                continue;
            }
            if (*p == '\\' && q != '\'' && p[1]) {
                p++;
            } else if (in && !strncmp(p, "{input}", 7)) {
                rep = in;
                skip = 7;
            } else if (out && !strncmp(p, "{output}", 8)) {
                rep = out;
                skip = 8;
            }
            if (rep) {
                size_t len = strlen(rep);
                if (o + len + 1 >= bufn)
                    return -EINVAL;
                memcpy(buf + o, rep, len);
                o += len;
                p += skip;
                continue;
            }
            if (o + 2 >= bufn)
                return -EINVAL;
            buf[o++] = *p++;
        }
        if (q)
            return -EINVAL;
        buf[o++] = 0;
    }
    words[n] = NULL;
    *ret_n = n;
    return 0;
}

/* ---- resolve, check, hash ------------------------------------------------------- */

int zk_witgen_resolve(const char *arg, int is_cmd, struct zk_witgen *ret, struct zk_diag *diag)
{
    struct zk_witgen g;
    memset(&g, 0, sizeof g);
    if (strlen(arg) >= sizeof g.spec)
        return zk_diag_set(diag, "witness generator", -ENAMETOOLONG, "name too long");
    if (is_cmd) {
        g.kind = ZK_WITGEN_CMD;
        memcpy(g.spec, arg, strlen(arg) + 1);
    } else {
        char abs[PATH_MAX];
        struct stat st;
        if (!realpath(arg, abs) || stat(abs, &st) != 0)
            return zk_diag_set(diag, arg, -errno, "witness generator: %s", strerror(errno));
        char exe[PATH_MAX + NAME_MAX + 2];
        const char *base = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
        size_t bl = strlen(base);
        if (S_ISDIR(st.st_mode) && bl > 4 && !strcmp(base + bl - 4, "_cpp") &&
            snprintf(exe, sizeof exe, "%s/%.*s", abs, (int)(bl - 4), base) < (int)sizeof exe &&
            access(exe, X_OK) == 0) {
            /* circom's NAME_cpp/ folder after `make`: its program NAME */
            if (snprintf(g.spec, sizeof g.spec, "%s", exe) >= (int)sizeof g.spec)
                return zk_diag_set(diag, "witness generator", -ENAMETOOLONG, "name too long");
            g.kind = ZK_WITGEN_CPP;
        } else if (S_ISDIR(st.st_mode) && bl > 4 && !strcmp(base + bl - 4, "_cpp")) {
            return zk_diag_set(diag, abs, -ENOENT,
                               "witness generator: circom's C++ folder holds no program %.*s "
                               "yet: run make in it", (int)(bl - 4), base);
        } else if (S_ISDIR(st.st_mode)) {
            /* circom's NAME_js/ folder: its one .wasm */
            DIR *d = opendir(abs);
            struct dirent *e;
            char found[NAME_MAX + 1] = "";
            int count = 0;
            if (!d)
                return zk_diag_set(diag, abs, -errno, "witness generator: %s", strerror(errno));
            while ((e = readdir(d)))
                if (ends_with(e->d_name, ".wasm") && count++ == 0)
                    snprintf(found, sizeof found, "%s", e->d_name);
            closedir(d);
            if (count != 1)
                return zk_diag_set(diag, abs, -ENOENT,
                                   "witness generator: a circom NAME_js folder holds one .wasm; "
                                   "this one holds %d", count);
            if (snprintf(g.spec, sizeof g.spec, "%s/%s", abs, found) >= (int)sizeof g.spec)
                return zk_diag_set(diag, abs, -ENAMETOOLONG, "witness generator: name too long");
            g.kind = ZK_WITGEN_WASM;
        } else {
            snprintf(g.spec, sizeof g.spec, "%s", abs);
            g.kind = ends_with(abs, ".wasm") ? ZK_WITGEN_WASM : ZK_WITGEN_CPP;
        }
    }
    int r = zk_witgen_check(&g, diag);
    if (r == 0)
        *ret = g;
    return r;
}

int zk_witgen_check(const struct zk_witgen *g, struct zk_diag *diag)
{
    char a[PATH_MAX + 16], b[PATH_MAX + 32];
    struct stat st;
    switch (g->kind) {
    case ZK_WITGEN_CPP:
        if (stat(g->spec, &st) != 0)
            return zk_diag_set(diag, g->spec, -errno, "witness generator: %s", strerror(errno));
        if (!S_ISREG(st.st_mode) || access(g->spec, X_OK) != 0)
            return zk_diag_set(diag, g->spec, -EACCES,
                               "witness generator: not an executable file (circom's C++ "
                               "generator is built by `make` in its NAME_cpp folder)");
        snprintf(a, sizeof a, "%s.dat", g->spec);
        if (access(a, R_OK) != 0)
            return zk_diag_set(diag, a, -errno,
                               "witness generator: %s (circom's C++ generator reads it at run "
                               "time; it is in the NAME_cpp folder)", strerror(errno));
        return 0;
    case ZK_WITGEN_WASM:
        if (access(g->spec, R_OK) != 0)
            return zk_diag_set(diag, g->spec, -errno, "witness generator: %s", strerror(errno));
        wasm_js(g->spec, a, b, sizeof a);
        if (access(a, R_OK) != 0)
            return zk_diag_set(diag, a, -errno,
                               "witness generator: %s (circom's --wasm output has it beside "
                               "the .wasm)", strerror(errno));
        if (access(b, R_OK) != 0)
            return zk_diag_set(diag, b, -errno,
                               "witness generator: %s (circom's --wasm output has it beside "
                               "the .wasm)", strerror(errno));
        if (zk_witgen_find_program("node", a, sizeof a) != 0)
            return zk_diag_set(diag, g->spec, -ENOENT,
                               "witness generator: a .wasm generator runs under Node.js, and "
                               "`node` is not in " ZK_WITGEN_PATH " (install nodejs, or use "
                               "circom's --c generator)");
        return 0;
    case ZK_WITGEN_CMD: {
        char buf[ZK_WITGEN_SPEC_MAX + 64], *words[MAX_WORDS];
        size_t n;
        if (!strstr(g->spec, "{input}") || !strstr(g->spec, "{output}"))
            return zk_diag_set(diag, "witness command", -EINVAL,
                               "'%.120s' must name {input} and {output}", g->spec);
        if (split_words(g->spec, NULL, NULL, buf, sizeof buf, words, &n) || n == 0)
            return zk_diag_set(diag, "witness command", -EINVAL,
                               "'%.120s': unbalanced quotes or empty", g->spec);
        if (zk_witgen_find_program(words[0], a, sizeof a) != 0)
            return zk_diag_set(diag, words[0], -ENOENT,
                               "witness command: program not found or not executable");
        return 0;
    }
    default:
        return zk_diag_set(diag, "witness generator", -EINVAL, "none");
    }
}

size_t zk_witgen_files(const struct zk_witgen *g, char f[3][ZK_WITGEN_FILE_MAX])
{
    switch (g->kind) {
    case ZK_WITGEN_CPP:
        snprintf(f[0], ZK_WITGEN_FILE_MAX, "%s", g->spec);
        snprintf(f[1], ZK_WITGEN_FILE_MAX, "%s.dat", g->spec);
        return 2;
    case ZK_WITGEN_WASM:
        snprintf(f[0], ZK_WITGEN_FILE_MAX, "%s", g->spec);
        wasm_js(g->spec, f[1], f[2], ZK_WITGEN_FILE_MAX);
        return 3;
    case ZK_WITGEN_CMD: {
        char buf[ZK_WITGEN_SPEC_MAX + 64], *words[MAX_WORDS];
        size_t n;
        if (split_words(g->spec, NULL, NULL, buf, sizeof buf, words, &n) == 0 && n > 0 &&
            zk_witgen_find_program(words[0], f[0], ZK_WITGEN_FILE_MAX) == 0)
            return 1;
        return 0;
    }
    default:
        return 0;
    }
}

int zk_witgen_hash(const struct zk_witgen *g, char hex[33], struct zk_diag *diag)
{
    char f[3][ZK_WITGEN_FILE_MAX], prefix[ZK_WITGEN_SPEC_MAX + 16];
    if (g->kind <= ZK_WITGEN_NONE || g->kind > ZK_WITGEN_CMD)
        return zk_diag_set(diag, "witness generator", -EINVAL, "none");
    size_t nf = zk_witgen_files(g, f);
    const char *files[3] = { f[0], f[1], f[2] };
    int pl = snprintf(prefix, sizeof prefix, "%s:%s", zk_witgen_kind_name(g->kind), g->spec);
    return zk_hash128_files(prefix, (size_t)pl, files, nf, hex, NULL, NULL, NULL, diag);
}

/* ---- the output: a bounded tail ------------------------------------------------- */

struct tail {
    char buf[TAIL_MAX];
    size_t len;               /* bytes in buf (the last ones received) */
    uint64_t total;
};

static void tail_add(struct tail *t, const char *p, size_t n)
{
    t->total += n;
    if (n >= TAIL_MAX) {
        memcpy(t->buf, p + n - TAIL_MAX, TAIL_MAX);
        t->len = TAIL_MAX;
        return;
    }
    if (t->len + n > TAIL_MAX) {
        size_t drop = t->len + n - TAIL_MAX;
        memmove(t->buf, t->buf + drop, t->len - drop);
        t->len -= drop;
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
}

/* A line to leave out of the message: blank, a stack frame or Node's banner. */
static int noise_line(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    return !n || (n > 3 && !strncmp(s, "at ", 3)) || (n >= 8 && !strncmp(s, "Node.js ", 8));
}

/* Node's source excerpt ends with a line of spaces and carets under the
 * throw; that line and the two above it (FILE:LINE, the source) go. */
static int caret_line(const char *s, size_t n)
{
    int carets = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '^')
            carets = 1;
        else if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    }
    return carets;
}

void zk_witgen_condense(const char *out, size_t n, char *dst, size_t dst_n)
{
    enum { MAXL = 512 };
    const char *ls[MAXL];
    size_t ll[MAXL], nl = 0;
    const char *p = out, *end = out + n;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        size_t len = e ? (size_t)(e - p) : (size_t)(end - p);
        if (caret_line(p, len)) {
            nl = nl >= 2 ? nl - 2 : 0;
        } else if (!noise_line(p, len)) {
            if (nl == MAXL) {
                memmove(ls, ls + 1, (MAXL - 1) * sizeof ls[0]);
                memmove(ll, ll + 1, (MAXL - 1) * sizeof ll[0]);
                nl--;
            }
            while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
                len--;
            ls[nl] = p;
            ll[nl++] = len;
        }
        p = e ? e + 1 : end;
    }
    if (!dst_n)
        return;
    /* join from the last line backwards, so the end of the output is kept */
    size_t o = dst_n - 1;
    dst[o] = 0;
    for (size_t i = nl; i-- > 0 && o > 0;) {
        size_t take = ll[i] < o ? ll[i] : o;
        o -= take;
        for (size_t k = 0; k < take; k++) {
            char ch = ls[i][ll[i] - take + k];
            dst[o + k] = (unsigned char)ch < 0x20 ? ' ' : ch;
        }
        if (i > 0 && o >= 3) {
            o -= 3;
            memcpy(dst + o, " | ", 3);
        }
    }
    memmove(dst, dst + o, dst_n - o);
}

/* ---- process groups ----------------------------------------------------------------- */

/* Resident bytes of every process in group pgid (one pass over /proc). */
static uint64_t group_rss(pid_t pgid)
{
    static long page;
    if (!page)
        page = sysconf(_SC_PAGESIZE);
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct dirent *e;
    uint64_t sum = 0;
    char path[300], buf[1024];
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        snprintf(path, sizeof path, "/proc/%.200s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = 0;
        char *rp = strrchr(buf, ')');
        if (!rp)
            continue;
        /* after ") ": state ppid pgrp ... field 24 (rss) is the 22nd after state */
        long long v[22];
        char st;
        if (sscanf(rp + 2, "%c %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld "
                   "%lld %lld %lld %lld %lld %lld %lld %lld", &st, &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13],
                   &v[14], &v[15], &v[16], &v[17], &v[18], &v[19], &v[20]) != 22)
            continue;
        if (v[1] == pgid && v[20] > 0)
            sum += (uint64_t)v[20] * (uint64_t)page;
    }
    closedir(d);
    return sum;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *signame(int sig)
{
    static const char *const names[] = { [SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",
                                         [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
                                         [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",
                                         [SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",
                                         [SIGKILL] = "SIGKILL", [SIGSEGV] = "SIGSEGV",
                                         [SIGPIPE] = "SIGPIPE", [SIGTERM] = "SIGTERM",
                                         [SIGXCPU] = "SIGXCPU" };
    return sig > 0 && sig < (int)(sizeof names / sizeof names[0]) && names[sig] ? names[sig]
                                                                                : "a signal";
}


/* ---- run --------------------------------------------------------------------- */

enum stop_cause { STOP_NONE, STOP_TIMEOUT, STOP_MEMORY, STOP_FLOOD, STOP_CANCEL, STOP_FULL };

/* What came through the sink's pipe (fd) since the last call, into
 * sink->dst; 1 at its end (every writer gone), -1 when more came than
 * sink->cap (what is past it is read and dropped), else 0. */
static int sink_read(int fd, struct zk_witgen_sink *sink)
{
    char scratch[4096];               /* past the end: only dropped (per call: the
                                         workers of a daemon run at once) */
    for (int i = 0; i < 64; i++) {    /* bounded: the limits are checked between */
        uint64_t room = sink->cap - sink->len;
        ssize_t n = room ? read(fd, sink->dst + sink->len, room < SINK_CHUNK ? room : SINK_CHUNK)
                         : read(fd, scratch, sizeof scratch);
        if (n == 0)
            return 1;
        if (n < 0)
            return errno == EINTR || errno == EAGAIN ? 0 : 1;
        if (!room)
            return -1;
        sink->len += (uint64_t)n;
    }
    return 0;
}

/* The child, between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn))
child(pid_t parent, int devnull, int out_w, int sink_w, char *const *argv, char *const *envp)
{
    sigset_t all;
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)          /* the parent died before prctl */
        _exit(127);
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);   /* the daemon blocks signals for signalfd */
    for (int s = 1; s < 32; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    struct rlimit core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &core);
    if (dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(out_w, 2) < 0)
        _exit(127);
    /* sink_w is above SINK_FD (F_DUPFD_CLOEXEC): the dup2s above left it */
    if (sink_w >= 0 && dup2(sink_w, SINK_FD) < 0)
        _exit(127);
    syscall(SYS_close_range, sink_w >= 0 ? SINK_FD + 1u : 3u, ~0u, 0u);
    execve(argv[0], argv, envp);
    static const char msg[] = "witness generator: exec failed\n";
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* nothing left to report it with */
    }
    _exit(127);
}

/* zk_witgen_run and zk_witgen_run_into: out_path is what the generator is
 * told; with sink, it is ZK_WITGEN_SINK_PATH and the bytes go to sink. */
static int run(const struct zk_witgen *g, const char *in_path, const char *out_path,
               struct zk_witgen_sink *sink, const struct zk_witgen_limits *lim,
               const zk_cancel_flag *cancel, struct zk_witgen_result *res,
               struct zk_diag *diag)
{
    static const struct zk_witgen_limits none = { 0, 0, 0, NULL, NULL };
    struct zk_witgen_result rs;
    char prog[PATH_MAX + 32], node[PATH_MAX], gen[PATH_MAX + 32], calc[PATH_MAX + 32];
    char words_buf[ZK_WITGEN_SPEC_MAX + 2 * PATH_MAX];
    char *argv[MAX_WORDS];
    size_t nwords = 0;
    int r;

    if (!lim)
        lim = &none;
    if (!res)
        res = &rs;
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    uint64_t out_max = lim->output_max ? lim->output_max : ZK_WITGEN_OUTPUT_DEFAULT;

    switch (g->kind) {
    case ZK_WITGEN_CPP:
        argv[0] = (char *)g->spec;
        argv[1] = (char *)in_path;
        argv[2] = (char *)out_path;
        argv[3] = NULL;
        break;
    case ZK_WITGEN_WASM:
        if (zk_witgen_find_program("node", node, sizeof node) != 0)
            return zk_diag_set(diag, "witness generator", ZK_EWITGEN,
                               "`node` is not in " ZK_WITGEN_PATH
                               " (a .wasm generator runs under Node.js)");
        wasm_js(g->spec, gen, calc, sizeof gen);
        argv[0] = node;
        argv[1] = gen;
        argv[2] = (char *)g->spec;
        argv[3] = (char *)in_path;
        argv[4] = (char *)out_path;
        argv[5] = NULL;
        break;
    case ZK_WITGEN_CMD:
        if (split_words(g->spec, in_path, out_path, words_buf, sizeof words_buf, argv,
                        &nwords) || nwords == 0)
            return zk_diag_set(diag, "witness command", ZK_EWITGEN,
                               "'%.120s' cannot be split into words", g->spec);
        if (zk_witgen_find_program(argv[0], prog, sizeof prog) != 0)
            return zk_diag_set(diag, "witness command", ZK_EWITGEN,
                               "%.200s: program not found or not executable", argv[0]);
        argv[0] = prog;
        break;
    default:
        return zk_diag_set(diag, "witness generator", -EINVAL, "none");
    }

    if (lim->allow && (r = zk_witgen_allowed(g, lim->allow, diag)))
        return r;

    /* the environment: fixed (zk/witgen.h), nothing of ours */
    char dir[PATH_MAX], home_kv[PATH_MAX + 8], tmp_kv[PATH_MAX + 8], owner_kv[160];
    char *envp[6];
    size_t ne = 0;
    if (zk_path_dir(sink ? in_path : out_path, dir, sizeof dir) != 0)
        snprintf(dir, sizeof dir, "/");
    snprintf(home_kv, sizeof home_kv, "HOME=%s", dir);
    snprintf(tmp_kv, sizeof tmp_kv, "TMPDIR=%s", dir);
    envp[ne++] = (char *)"PATH=" ZK_WITGEN_PATH;
    envp[ne++] = home_kv;
    envp[ne++] = tmp_kv;
    envp[ne++] = (char *)"LANG=C";
    if (lim->owner) {
        snprintf(owner_kv, sizeof owner_kv, "%s=%s", ZK_WITGEN_OWNER_ENV, lim->owner);
        envp[ne++] = owner_kv;
    }
    envp[ne] = NULL;

    int pfd[2] = { -1, -1 }, sfd[2] = { -1, -1 };
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0 || pipe2(pfd, O_CLOEXEC) != 0) {
        r = zk_diag_set(diag, "witness generator", ZK_EWITGEN, "%s", strerror(errno));
        goto out_fds;
    }
    if (sink) {
        int tmp[2];
        sink->len = 0;
        if (pipe2(tmp, O_CLOEXEC) != 0) {
            r = zk_diag_set(diag, "witness generator", ZK_EWITGEN, "%s", strerror(errno));
            goto out_fds;
        }
        /* above SINK_FD, so that the child's dup2s cannot land on them */
        sfd[0] = fcntl(tmp[0], F_DUPFD_CLOEXEC, SINK_FD + 1);
        sfd[1] = fcntl(tmp[1], F_DUPFD_CLOEXEC, SINK_FD + 1);
        close(tmp[0]);
        close(tmp[1]);
        if (sfd[0] < 0 || sfd[1] < 0 || fcntl(sfd[0], F_SETFL, O_NONBLOCK) < 0) {
            r = zk_diag_set(diag, "witness generator", ZK_EWITGEN, "%s", strerror(errno));
            goto out_fds;
        }
        (void)fcntl(sfd[1], F_SETPIPE_SZ, SINK_PIPE);   /* a smaller pipe only costs wakeups */
    }
    double t0 = now_s();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        r = zk_diag_set(diag, "witness generator", ZK_EWITGEN, "fork: %s", strerror(errno));
        goto out_fds;
    }
    if (pid == 0)
        child(parent, devnull, pfd[1], sfd[1], argv, envp);
    setpgid(pid, pid);                /* also here: no window before the child's own call */
    close(pfd[1]);
    pfd[1] = -1;
    if (sfd[1] >= 0) {
        close(sfd[1]);                /* its end: the child's and its children's alone */
        sfd[1] = -1;
    }

    struct tail t = { .len = 0 };
    enum stop_cause cause = STOP_NONE;
    int status = 0, exited = 0, eof = 0, sink_end = !sink;
    struct rusage ru;
    double next_check = t0;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        struct pollfd p[2];
        int np = 0, po = -1, ps = -1;
        if (!eof) {
            p[np] = (struct pollfd){ pfd[0], POLLIN, 0 };
            po = np++;
        }
        if (!sink_end && cause == STOP_NONE) {
            p[np] = (struct pollfd){ sfd[0], POLLIN, 0 };
            ps = np++;
        }
        if (np && poll(p, (nfds_t)np, POLL_MS) > 0) {
            if (po >= 0 && p[po].revents) {
                char buf[65536];
                ssize_t n = read(pfd[0], buf, sizeof buf);
                if (n > 0)
                    tail_add(&t, buf, (size_t)n);
                else if (n == 0 || (errno != EINTR && errno != EAGAIN))
                    eof = 1;
            }
            if (ps >= 0 && p[ps].revents) {
                int e = sink_read(sfd[0], sink);
                if (e > 0)
                    sink_end = 1;
                else if (e < 0 && cause == STOP_NONE) {
                    cause = STOP_FULL;
                    kill(-pid, SIGKILL);
                }
            }
        } else if (!np) {
            struct timespec ts = { 0, POLL_MS * 1000000L / 5 };
            nanosleep(&ts, NULL);
        }
        /* the data may come faster than the checks need to be made */
        if (sink && now_s() < next_check)
            continue;
        next_check = now_s() + POLL_MS / 5e3;
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid) {
            exited = 1;
            break;
        }
        if (cause != STOP_NONE)
            continue;              /* killed: waiting for it to go */
        double el = now_s() - t0;
        if (cancel && atomic_load(cancel))
            cause = STOP_CANCEL;
        else if (lim->timeout_ms && el * 1e3 > lim->timeout_ms)
            cause = STOP_TIMEOUT;
        else if (t.total > out_max)
            cause = STOP_FLOOD;
        else if (lim->memory) {
            uint64_t rss = group_rss(pid);
            if (rss > res->peak_rss)
                res->peak_rss = rss;
            if (rss > lim->memory)
                cause = STOP_MEMORY;
        }
        if (cause != STOP_NONE)
            kill(-pid, SIGKILL);
    }
    (void)exited;
    kill(-pid, SIGKILL);              /* anything it started and left behind */
    /* drain what is left of its output (a leftover holding the pipe is dead now) */
    for (int i = 0; i < 20; i++) {
        struct pollfd p = { pfd[0], POLLIN, 0 };
        if (poll(&p, 1, 10) <= 0)
            break;
        char buf[65536];
        ssize_t n = read(pfd[0], buf, sizeof buf);
        if (n <= 0)
            break;
        tail_add(&t, buf, (size_t)n);
    }
    /* and what is left in the sink's pipe: the generator wrote it before it
     * exited (bounded: a leftover that left the group could hold it open) */
    for (int i = 0; !sink_end && cause == STOP_NONE && i < 50; i++) {
        struct pollfd p = { sfd[0], POLLIN, 0 };
        if (poll(&p, 1, 100) <= 0)
            break;
        int e = sink_read(sfd[0], sink);
        if (e > 0)
            sink_end = 1;
        else if (e < 0)
            cause = STOP_FULL;
    }
    res->seconds = now_s() - t0;
    res->output_bytes = t.total;
    if ((uint64_t)ru.ru_maxrss * 1024u > res->peak_rss)
        res->peak_rss = (uint64_t)ru.ru_maxrss * 1024u;
    zk_witgen_condense(t.buf, t.len, res->output, sizeof res->output);
    if (WIFEXITED(status))
        res->exit_status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        res->signal = WTERMSIG(status);

    char sz[32], sz2[32];
    const char *what = g->kind == ZK_WITGEN_CMD ? "witness command" : "witness generator";
    if (lim->memory && res->peak_rss > lim->memory && cause != STOP_CANCEL)
        cause = STOP_MEMORY;
    switch (cause) {
    case STOP_CANCEL:
        r = zk_diag_set(diag, what, ZK_ECANCELED, "stopped (the daemon is handing its work back)");
        goto out_fds;
    case STOP_TIMEOUT:
        r = zk_diag_set(diag, what, ZK_EWITGEN, "killed after its timeout of %.0f s",
                        lim->timeout_ms / 1e3);
        goto out_fds;
    case STOP_MEMORY:
        zk_size_human(lim->memory, sz, sizeof sz);
        zk_size_human(res->peak_rss, sz2, sizeof sz2);
        r = zk_diag_set(diag, what, ZK_EWITGEN, "over its memory limit of %s (%s resident); "
                        "raise [synthd] witness_memory", sz, sz2);
        goto out_fds;
    case STOP_FLOOD:
        zk_size_human(out_max, sz, sizeof sz);
        r = zk_diag_set(diag, what, ZK_EWITGEN, "killed for flooding its output (more than %s)",
                        sz);
        goto out_fds;
    case STOP_FULL:
        zk_size_human(sink->cap, sz, sizeof sz);
        r = zk_diag_set(diag, what, ZK_ELENGTH, "wrote more than the %s (%llu bytes) its "
                        "output may have", sz, (unsigned long long)sink->cap);
        goto out_fds;
    case STOP_NONE:
        break;
    }
    if (res->signal == SIGABRT && strstr(t.buf, "Assertion") && strstr(t.buf, "failed")) {
        /* glibc's assert message: circom's C++ generator rejecting the input */
        r = zk_diag_set(diag, what, ZK_EREJECTED, "rejected the input (a failed assert)");
    } else if (res->signal) {
        r = zk_diag_set(diag, what, ZK_EWITGEN, "killed by signal %d (%s)", res->signal,
                        signame(res->signal));
    } else if (res->exit_status == 127 && strstr(t.buf, "witness generator: exec failed")) {
        r = zk_diag_set(diag, what, ZK_EWITGEN, "could not be started");
    } else if (res->exit_status != 0) {
        r = zk_diag_set(diag, what, ZK_EREJECTED, "rejected the input (exit status %d)",
                        res->exit_status);
    } else {
        r = 0;
    }
out_fds:
    for (int i = 0; i < 2; i++)
        if (sfd[i] >= 0)
            close(sfd[i]);
    if (devnull >= 0)
        close(devnull);
    if (pfd[0] >= 0)
        close(pfd[0]);
    if (pfd[1] >= 0)
        close(pfd[1]);
    return r;
}

int zk_witgen_run(const struct zk_witgen *g, const char *in_path, const char *out_path,
                  const struct zk_witgen_limits *lim, const zk_cancel_flag *cancel,
                  struct zk_witgen_result *res, struct zk_diag *diag)
{
    return run(g, in_path, out_path, NULL, lim, cancel, res, diag);
}

int zk_witgen_run_into(const struct zk_witgen *g, const char *in_path,
                       struct zk_witgen_sink *sink, const struct zk_witgen_limits *lim,
                       const zk_cancel_flag *cancel, struct zk_witgen_result *res,
                       struct zk_diag *diag)
{
    return run(g, in_path, ZK_WITGEN_SINK_PATH, sink, lim, cancel, res, diag);
}

/* ---- sweep ------------------------------------------------------------------- */

int zk_witgen_sweep(int (*alive)(void *ctx, const char *owner), void *ctx,
                    unsigned *ret_killed)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -errno;
    struct dirent *e;
    unsigned killed = 0;
    size_t klen = strlen(ZK_WITGEN_OWNER_ENV);
    uid_t me = getuid();
    char path[64];
    char *buf = malloc(1u << 16);
    if (!buf) {
        closedir(d);
        return -ENOMEM;
    }
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pid_t pid = (pid_t)atoi(e->d_name);
        struct stat st;
        snprintf(path, sizeof path, "/proc/%d", (int)pid);
        if (stat(path, &st) != 0 || st.st_uid != me || pid == getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, (1u << 16) - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = 0;
        for (char *p = buf; p < buf + n; p += strlen(p) + 1) {
            if (strncmp(p, ZK_WITGEN_OWNER_ENV, klen) || p[klen] != '=')
                continue;
            if (!alive(ctx, p + klen + 1) && kill(pid, SIGKILL) == 0)
                killed++;
            break;
        }
    }
    free(buf);
    closedir(d);
    if (ret_killed)
        *ret_killed = killed;
    return 0;
}
