/*
 * witgen.h -- a circuit's witness generator, run as a child process.
 *
 * A key may name the program that turns a circuit input (circom's
 * input.json) into the circuit's witness (.wtns).  Three kinds:
 *
 *   cpp   circom's C++ generator (the executable built from `circom --c`
 *         output), run as `PROG INPUT OUTPUT`; it reads PROG.dat beside it.
 *   wasm  circom's wasm output (NAME.wasm with circom's generate_witness.js
 *         and witness_calculator.js beside it), run as
 *         `node generate_witness.js NAME.wasm INPUT OUTPUT`.  Node.js is a
 *         runtime dependency of this kind only.
 *   cmd   any other synthesizer: a command template whose words are split
 *         like a shell's (single and double quotes, backslash) but run
 *         without a shell; {input} and {output} in it are replaced by the
 *         two paths.  It must name both.
 *
 * A bare program name (the `node` of a wasm generator, a command's first
 * word without a slash) is looked up in ZK_WITGEN_PATH, never in the
 * caller's PATH: `key add`, synthd and `zkslot prove` find the same file.
 *
 * zk_witgen_run() starts the generator in its own process group with
 * PR_SET_PDEATHSIG(SIGKILL) (it dies with the thread that started it, so a
 * kill -9 of the daemon leaves no generator running), no core dumps,
 * standard input from /dev/null, standard output and error captured into
 * a bounded buffer, and a fixed environment, never the caller's (which
 * holds the daemon's ledger URL and passwords): PATH=ZK_WITGEN_PATH,
 * HOME and TMPDIR the directory of the output file, LANG=C, and
 * ZKSLOT_WITGEN_OWNER set to the daemon's identity, inherited by anything
 * the generator starts, so that zk_witgen_sweep() can find and kill what
 * a dead daemon's generators left behind.  With limits->allow set, the
 * generator runs only when zk_witgen_allowed says so, checked just before
 * it is started.  Limits: a wall-clock timeout, a memory bound on
 * the resident size of the whole process group (sampled every 50 ms, and
 * the peak at exit), and a bound on the output.
 *
 * Outcomes of zk_witgen_run():
 *   0              exited 0; the caller checks the witness it wrote.
 *   ZK_EREJECTED   the generator refused the input: it exited non-zero, or
 *                  aborted on a failed C assert (how circom's C++
 *                  generator reports an unknown signal, a missing input or
 *                  a constraint that does not hold).  Deterministic: a
 *                  retry gives the same answer.
 *   ZK_EWITGEN     it could not run, was killed by a signal, ran past its
 *                  timeout, over its memory bound, or flooded its output:
 *                  not the input's fault, worth a retry.
 *   ZK_ECANCELED   *cancel became nonzero; the generator was killed.
 * In each case diag holds the cause in one line and res->output the
 * generator's own message (the tail of what it printed, condensed).
 *
 * Every function returns 0 or a negative code (zk/error.h) and never
 * prints or exits.
 */
#ifndef ZK_COMMON_WITGEN_H
#define ZK_COMMON_WITGEN_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"
#include "zk/pool.h"       /* zk_cancel_flag */

#ifdef __cplusplus
extern "C" {
#endif

enum zk_witgen_kind {
    ZK_WITGEN_NONE = 0,
    ZK_WITGEN_CPP = 1,
    ZK_WITGEN_WASM = 2,
    ZK_WITGEN_CMD = 3,
};

#define ZK_WITGEN_SPEC_MAX 4096
#define ZK_WITGEN_OUTPUT_DEFAULT (1u << 20)   /* output bound when none is given */
#define ZK_WITGEN_OWNER_ENV "ZKSLOT_WITGEN_OWNER"
#define ZK_WITGEN_PATH "/usr/local/bin:/usr/bin:/bin"

struct zk_witgen {
    int kind;                          /* enum zk_witgen_kind */
    char spec[ZK_WITGEN_SPEC_MAX];     /* cpp: the program's absolute path;
                                          wasm: the .wasm's absolute path;
                                          cmd: the command template */
};

/* "cpp", "wasm", "cmd"; "" for NONE; "?" if unknown.  parse: -1 if unknown. */
const char *zk_witgen_kind_name(int kind);
int zk_witgen_kind_parse(const char *s);

/*
 * From what a user gave: with is_cmd = 0 a path to circom's C++ generator
 * (an executable file), to a .wasm, or to circom's NAME_js/ folder (which
 * must hold exactly one .wasm); with is_cmd = 1 a command template.  The
 * result is checked with zk_witgen_check.
 */
int zk_witgen_resolve(const char *arg, int is_cmd, struct zk_witgen *ret,
                      struct zk_diag *diag);

/*
 * Can g run now: its files exist and the program is executable (cpp: and
 * PROG.dat readable; wasm: generate_witness.js and witness_calculator.js
 * beside the .wasm, and `node` on PATH; cmd: {input} and {output} present
 * and the program found).  One line naming the missing piece otherwise.
 */
int zk_witgen_check(const struct zk_witgen *g, struct zk_diag *diag);

/*
 * The files whose content is g (cpp: the program and PROG.dat; wasm: the
 * .wasm and both .js files; cmd: the program file, when it is found on
 * PATH) into f[]; returns how many (0 to 3).
 */
#define ZK_WITGEN_FILE_MAX 4200
size_t zk_witgen_files(const struct zk_witgen *g, char f[3][ZK_WITGEN_FILE_MAX]);

/*
 * Does this machine run g: `allow` is `[synthd] generators`, comma-separated
 * absolute paths of directories (every file beneath them) or files; ""
 * allows nothing.  Every file of g (zk_witgen_files), its links resolved,
 * must be an entry or beneath a directory entry, and that file and each
 * directory from the entry down to it must belong to root or to this user
 * and be writable by no one else (a symlink met there is refused).  0, or
 * -EPERM (not under an entry) or ZK_EUNTRUSTED (a file or directory on the
 * way that others could change) with one line naming the file; -ENOENT
 * and the like when a file is missing.  Nothing the ledger says widens
 * this: a command's words are arguments of its program, never a shell's
 * text, so a command whose program is /bin/sh runs only where /bin/sh is
 * listed.
 */
int zk_witgen_allowed(const struct zk_witgen *g, const char *allow, struct zk_diag *diag);

/*
 * XXH3-128 of what g runs, as 32 lowercase hex digits: the kind and spec,
 * then the content of zk_witgen_files in order.
 */
int zk_witgen_hash(const struct zk_witgen *g, char hex[33], struct zk_diag *diag);

struct zk_witgen_limits {
    uint64_t memory;        /* bytes resident in the process group; 0 = no bound */
    unsigned timeout_ms;    /* 0 = no timeout */
    uint64_t output_max;    /* bytes of stdout + stderr; 0 = ZK_WITGEN_OUTPUT_DEFAULT */
    const char *owner;      /* value of ZKSLOT_WITGEN_OWNER (NULL = not set) */
    const char *allow;      /* NULL: run whatever g is (the user's own `zkslot prove`);
                               else zk_witgen_allowed(g, allow) first ([synthd] generators) */
};

struct zk_witgen_result {
    int exit_status;        /* when it exited: its status; else -1 */
    int signal;             /* when killed by a signal: its number; else 0 */
    double seconds;         /* wall time of the run */
    uint64_t peak_rss;      /* bytes: the largest resident size seen */
    uint64_t output_bytes;  /* bytes it printed */
    char output[1024];      /* its message, one line ("" if it printed nothing) */
};

/* Runs g: input from in_path, witness to out_path.  See the outcomes above.
 * cancel and res may be NULL. */
int zk_witgen_run(const struct zk_witgen *g, const char *in_path, const char *out_path,
                  const struct zk_witgen_limits *lim, const zk_cancel_flag *cancel,
                  struct zk_witgen_result *res, struct zk_diag *diag);

/*
 * A witness streamed into memory (zk_witgen_run_into): the generator is
 * told ZK_WITGEN_SINK_PATH as its output, a pipe it was given as fd 3,
 * and what it writes there lands in dst as it comes.  It must write its
 * output in order (no seek, no reopening elsewhere: a pipe cannot); a
 * circom generator or fil-synth does.
 */
#define ZK_WITGEN_SINK_PATH "/dev/fd/3"
struct zk_witgen_sink {
    uint8_t *dst;           /* where the witness goes */
    uint64_t cap;           /* at most this many bytes */
    uint64_t len;           /* out: how many came */
};

/* zk_witgen_run with the witness into sink rather than a file; TMPDIR and
 * HOME are in_path's directory.  An output longer than sink->cap kills
 * the generator: ZK_ELENGTH (its own fault, not worth a retry); a short
 * one is the caller's to find (sink->len). */
int zk_witgen_run_into(const struct zk_witgen *g, const char *in_path,
                       struct zk_witgen_sink *sink, const struct zk_witgen_limits *lim,
                       const zk_cancel_flag *cancel, struct zk_witgen_result *res,
                       struct zk_diag *diag);

/*
 * Kills (SIGKILL) every process of this user whose environment has
 * ZKSLOT_WITGEN_OWNER=<value> where alive(ctx, value) returns 0: what the
 * generators of a dead daemon left.  *ret_killed (may be NULL) = count.
 */
int zk_witgen_sweep(int (*alive)(void *ctx, const char *owner), void *ctx,
                    unsigned *ret_killed);

/*
 * A circuit input (circom's input.json, len bytes) checked as a witness
 * generator would read it: a JSON object whose values are integers,
 * strings of integers (decimal or 0x hex, optional minus), or arrays and
 * objects of those.  ZK_EJSON with one line: a syntax error as
 * "NAME:LINE:COLUMN: message", a bad value naming its signal.
 */
int zk_input_check(const char *buf, size_t len, const char *name, struct zk_diag *diag);

/* The program `name` as execvp would find it in ZK_WITGEN_PATH (a name
 * with a slash is taken as is): 0 with its path in dst (n bytes), -ENOENT
 * (or -errno) when it is not found or not executable. */
int zk_witgen_find_program(const char *name, char *dst, size_t n);

/*
 * The input of a bellperson key's generator (a Filecoin synthesizer's part
 * file, docs/filecoin.md): a JSON object, its content the generator's to
 * judge (it fails the partition in one line).  ZK_EJSON with one line.
 */
int zk_input_check_object(const char *buf, size_t len, const char *name, struct zk_diag *diag);

/* The one-line condensed message of a generator's output (what res->output
 * holds): lines of stack frames and blank lines dropped, the rest joined
 * with " | ", the last dst_n - 1 bytes kept.  Exposed for the tests. */
void zk_witgen_condense(const char *out, size_t n, char *dst, size_t dst_n);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_WITGEN_H */
