/* test_witgen.c -- the witness generator runner (zk/witgen.h) with real
 * child processes: each outcome (success, rejection by exit status and by a
 * failed assert, crash, timeout, memory, output flood, cancel), the message
 * condensed from the output, the command template's word splitting, the
 * checks of resolve, hashing that follows the content, and no process left
 * behind (a generator that starts a child of its own, a sweep of a dead
 * owner's leftovers), and the output streamed through a pipe into
 * memory (zk_witgen_run_into). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zk/error.h"
#include "zk/witgen.h"
#include "zktest.h"

static char dir[256];

static void write_file(const char *name, const char *text, int exec)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    ZT_REQUIRE(f != NULL, , "%s", p);
    fputs(text, f);
    fclose(f);
    chmod(p, exec ? 0755 : 0644);
}

static int run_cmd(const char *cmd, const struct zk_witgen_limits *lim,
                   struct zk_witgen_result *res, struct zk_diag *d)
{
    struct zk_witgen g;
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/in.json", dir);
    snprintf(out, sizeof out, "%s/out.wtns", dir);
    int r = zk_witgen_resolve(cmd, 1, &g, d);
    if (r)
        return r;
    return zk_witgen_run(&g, in, out, lim, NULL, res, d);
}

/* 1 if a process whose command line matches the pattern runs (write one
 * letter as [x], or the shell running pgrep matches itself). */
static int process_running(const char *needle)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "pgrep -f -- '%s' >/dev/null", needle);
    return system(cmd) == 0;
}

static int owner_dead(void *ctx, const char *owner)
{
    (void)ctx;
    return strcmp(owner, "dead-owner") != 0;   /* only "dead-owner" is dead */
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    snprintf(dir, sizeof dir, "/tmp/zk-test-witgen-%d", (int)getpid());
    mkdir(dir, 0700);
    struct zk_diag d = { "" };
    struct zk_witgen_result res;
    struct zk_witgen_limits lim = { 0, 10000, 0, "test-owner", NULL };
    char cmd[1024];
    int r;

    write_file("in.json", "{\"x\": \"3\"}\n", 0);
    /* success: the command template's {input}/{output}, quotes kept as one word */
    write_file("ok.sh", "#!/bin/sh\n[ \"$1\" = 'a b' ] || exit 9\ncp \"$2\" \"$3\"\n"
               "echo \"owner=$ZKSLOT_WITGEN_OWNER\"\n", 1);
    snprintf(cmd, sizeof cmd, "%s/ok.sh 'a b' {input} {output}", dir);
    r = run_cmd(cmd, &lim, &res, &d);
    ZT_CHECK(r == 0, "%d %s | %s", r, d.msg, res.output);
    ZT_CHECK(res.exit_status == 0 && res.signal == 0);
    ZT_CHECK(strstr(res.output, "owner=test-owner") != NULL, "%s", res.output);
    char outp[512];
    snprintf(outp, sizeof outp, "%s/out.wtns", dir);
    ZT_CHECK(access(outp, R_OK) == 0, "the output was written");

    /* rejected: non-zero exit, the message is kept */
    write_file("reject.sh", "#!/bin/sh\necho 'Error: Too many values for input signal z' >&2\n"
               "exit 3\n", 1);
    snprintf(cmd, sizeof cmd, "%s/reject.sh {input} {output}", dir);
    r = run_cmd(cmd, &lim, &res, &d);
    ZT_CHECK(r == ZK_EREJECTED, "%d %s", r, d.msg);
    ZT_CHECK(res.exit_status == 3 && strstr(d.msg, "exit status 3"), "%s", d.msg);
    ZT_CHECK(!strcmp(res.output, "Error: Too many values for input signal z"), "'%s'",
             res.output);

    /* rejected: SIGABRT after glibc's assert message (circom's C++ generator) */
    write_file("assert.sh", "#!/bin/sh\necho 'Failed assert in template T line 7.'\n"
               "echo \"t: t.cpp:98: void T_0_run(): Assertion \\`x' failed.\" >&2\n"
               "kill -ABRT $$\n", 1);
    snprintf(cmd, sizeof cmd, "%s/assert.sh {input} {output}", dir);
    r = run_cmd(cmd, &lim, &res, &d);
    ZT_CHECK(r == ZK_EREJECTED, "%d %s", r, d.msg);
    ZT_CHECK(res.signal == SIGABRT && strstr(res.output, "Failed assert in template T line 7"),
             "%s", res.output);

    /* a crash is not the input's fault */
    write_file("segv.sh", "#!/bin/sh\necho starting\nkill -SEGV $$\n", 1);
    snprintf(cmd, sizeof cmd, "%s/segv.sh {input} {output}", dir);
    r = run_cmd(cmd, &lim, &res, &d);
    ZT_CHECK(r == ZK_EWITGEN && res.signal == SIGSEGV && strstr(d.msg, "SIGSEGV"), "%d %s", r,
             d.msg);

    /* a plain SIGABRT without the assert message: not a rejection */
    write_file("abrt.sh", "#!/bin/sh\nkill -ABRT $$\n", 1);
    snprintf(cmd, sizeof cmd, "%s/abrt.sh {input} {output}", dir);
    r = run_cmd(cmd, &lim, &res, &d);
    ZT_CHECK(r == ZK_EWITGEN && res.signal == SIGABRT, "%d %s", r, d.msg);

    /* timeout: the generator and the child it started are both gone */
    write_file("slow.sh", "#!/bin/sh\nsleep 31.5 &\nsleep 30.5\n", 1);
    snprintf(cmd, sizeof cmd, "%s/slow.sh {input} {output}", dir);
    struct zk_witgen_limits quick = { 0, 400, 0, "test-owner", NULL };
    r = run_cmd(cmd, &quick, &res, &d);
    ZT_CHECK(r == ZK_EWITGEN && strstr(d.msg, "timeout"), "%d %s", r, d.msg);
    ZT_CHECK(res.seconds < 5, "stopped at its timeout: %.1f s", res.seconds);
    usleep(100000);
    ZT_CHECK(!process_running("slee[p] 31.5"), "the generator's own child was killed");
    ZT_CHECK(!process_running("slee[p] 30.5"), "the generator was killed");

    /* output flood: 10 MB, bounded at 1 MiB */
    snprintf(cmd, sizeof cmd, "sh -c 'head -c 10000000 /dev/zero | tr \"\\\\0\" x; "
             ": {input} {output}'");
    r = run_cmd(cmd, &lim, &res, &d);
    ZT_CHECK(r == ZK_EWITGEN && strstr(d.msg, "flooding"), "%d %s", r, d.msg);
    ZT_CHECK(res.output_bytes < 4000000, "stopped early: %llu bytes",
             (unsigned long long)res.output_bytes);
    ZT_CHECK(strlen(res.output) < sizeof res.output, "the message is bounded");

    /* memory: 200 MiB touched against a 64 MiB bound */
    write_file("mem.py", "import sys, time\nb = bytearray(200 << 20)\n"
               "for i in range(0, len(b), 4096): b[i] = 1\ntime.sleep(20)\n", 0);
    snprintf(cmd, sizeof cmd, "python3 %s/mem.py {input} {output}", dir);
    struct zk_witgen_limits mem = { 64u << 20, 20000, 0, "test-owner", NULL };
    r = run_cmd(cmd, &mem, &res, &d);
    ZT_CHECK(r == ZK_EWITGEN && strstr(d.msg, "memory limit"), "%d %s", r, d.msg);
    ZT_CHECK(res.seconds < 10, "stopped early: %.1f s", res.seconds);
    ZT_CHECK(res.peak_rss > (64u << 20), "peak %llu", (unsigned long long)res.peak_rss);

    /* cancel */
    {
        struct zk_witgen g;
        zk_cancel_flag flag;
        atomic_init(&flag, 1);
        snprintf(cmd, sizeof cmd, "%s/slow.sh {input} {output}", dir);
        ZT_CHECK(zk_witgen_resolve(cmd, 1, &g, &d) == 0, "%s", d.msg);
        r = zk_witgen_run(&g, "/dev/null", "/dev/null", &lim, &flag, &res, &d);
        ZT_CHECK(r == ZK_ECANCELED, "%d %s", r, d.msg);
    }

    /* resolve: refusals name the thing */
    {
        struct zk_witgen g;
        ZT_CHECK(zk_witgen_resolve("/nonexistent/gen", 0, &g, &d) == -ENOENT &&
                 strstr(d.msg, "/nonexistent/gen"), "%s", d.msg);
        snprintf(cmd, sizeof cmd, "%s/in.json", dir);
        ZT_CHECK(zk_witgen_resolve(cmd, 0, &g, &d) == -EACCES && strstr(d.msg, "in.json") &&
                 strstr(d.msg, "executable"), "%s", d.msg);
        write_file("prog", "#!/bin/sh\n", 1);
        snprintf(cmd, sizeof cmd, "%s/prog", dir);
        ZT_CHECK(zk_witgen_resolve(cmd, 0, &g, &d) < 0 && strstr(d.msg, "prog.dat"), "%s",
                 d.msg);
        write_file("prog.dat", "data", 0);
        ZT_CHECK(zk_witgen_resolve(cmd, 0, &g, &d) == 0 && g.kind == ZK_WITGEN_CPP, "%s",
                 d.msg);
        char h1[33], h2[33];
        ZT_CHECK(zk_witgen_hash(&g, h1, &d) == 0, "%s", d.msg);
        write_file("prog.dat", "data changed", 0);
        ZT_CHECK(zk_witgen_hash(&g, h2, &d) == 0 && strcmp(h1, h2) != 0,
                 "the hash follows the .dat");
        ZT_CHECK(zk_witgen_resolve("cat {input}", 1, &g, &d) == -EINVAL &&
                 strstr(d.msg, "{output}"), "%s", d.msg);
        ZT_CHECK(zk_witgen_resolve("no-such-program-zk {input} {output}", 1, &g, &d) ==
                 -ENOENT && strstr(d.msg, "no-such-program-zk"), "%s", d.msg);
        ZT_CHECK(zk_witgen_resolve("sh -c 'x {input} {output}", 1, &g, &d) == -EINVAL,
                 "unbalanced quote: %s", d.msg);
        mkdir(strcat(strcpy(cmd, dir), "/c_cpp"), 0755);
        ZT_CHECK(zk_witgen_resolve(cmd, 0, &g, &d) == -ENOENT && strstr(d.msg, "run make"),
                 "an unbuilt NAME_cpp folder: %s", d.msg);
        write_file("c_cpp/c", "#!/bin/sh\n", 1);
        write_file("c_cpp/c.dat", "", 0);
        ZT_CHECK(zk_witgen_resolve(cmd, 0, &g, &d) == 0 && g.kind == ZK_WITGEN_CPP &&
                 strstr(g.spec, "/c_cpp/c"), "a built NAME_cpp folder is its program: %s", d.msg);
        mkdir(strcat(strcpy(cmd, dir), "/c_js"), 0755);
        ZT_CHECK(zk_witgen_resolve(cmd, 0, &g, &d) == -ENOENT && strstr(d.msg, "holds 0"),
                 "%s", d.msg);
        write_file("c_js/c.wasm", "\0asm", 0);
        ZT_CHECK(zk_witgen_resolve(cmd, 0, &g, &d) < 0 && strstr(d.msg, "generate_witness.js"),
                 "%s", d.msg);
        write_file("c_js/generate_witness.js", "", 0);
        write_file("c_js/witness_calculator.js", "", 0);
        r = zk_witgen_resolve(cmd, 0, &g, &d);
        if (system("command -v node >/dev/null") == 0)
            ZT_CHECK(r == 0 && g.kind == ZK_WITGEN_WASM && strstr(g.spec, "/c_js/c.wasm"),
                     "%d %s", r, d.msg);
        else
            ZT_CHECK(r == -ENOENT && strstr(d.msg, "node"), "%s", d.msg);
    }

    /* condensing Node's report */
    {
        static const char node_out[] =
            "/x/witness_calculator.js:168\n"
            "                    throw new Error(err);\n"
            "                          ^\n\n"
            "Error: Error: Assert Failed.\n"
            "Error in template T_0 line: 7\n\n"
            "    at /x/witness_calculator.js:168:27\n"
            "    at Array.forEach (<anonymous>)\n\n"
            "Node.js v20.20.2\n";
        char m[256];
        zk_witgen_condense(node_out, sizeof node_out - 1, m, sizeof m);
        ZT_CHECK(!strcmp(m, "Error: Error: Assert Failed. | Error in template T_0 line: 7"),
                 "'%s'", m);
        zk_witgen_condense("abcdefghij", 10, m, 5);
        ZT_CHECK(!strcmp(m, "ghij"), "the end is kept: '%s'", m);
    }

    /* sweep: a process left by a dead owner is killed, a live owner's is not */
    {
        pid_t a = fork(), b;
        if (a == 0) {
            setenv(ZK_WITGEN_OWNER_ENV, "dead-owner", 1);
            execlp("sleep", "sleep", "30", (char *)NULL);
            _exit(127);
        }
        b = fork();
        if (b == 0) {
            setenv(ZK_WITGEN_OWNER_ENV, "live-owner", 1);
            execlp("sleep", "sleep", "30", (char *)NULL);
            _exit(127);
        }
        usleep(200000);
        unsigned killed = 0;
        ZT_CHECK(zk_witgen_sweep(owner_dead, NULL, &killed) == 0);
        int st;
        ZT_CHECK(waitpid(a, &st, 0) == a && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                 "the dead owner's leftover was killed");
        ZT_CHECK(killed == 1, "killed %u", killed);
        ZT_CHECK(waitpid(b, &st, WNOHANG) == 0, "the live owner's process runs on");
        kill(b, SIGKILL);
        waitpid(b, &st, 0);
    }

    /* the environment is the fixed set, nothing of the caller's (a daemon's
     * ledger URL and password) */
    {
        char envf[600], text[4096] = "";
        setenv("ZKSLOT_LEDGER", "postgresql://secret", 1);
        setenv("PGPASSWORD", "secret", 1);
        write_file("env.sh", "#!/bin/sh\nenv > \"$HOME/env.txt\"\n", 1);
        snprintf(cmd, sizeof cmd, "%s/env.sh {input} {output}", dir);
        r = run_cmd(cmd, &lim, &res, &d);
        ZT_CHECK(r == 0, "%d %s", r, d.msg);
        snprintf(envf, sizeof envf, "%s/env.txt", dir);
        FILE *f = fopen(envf, "r");
        ZT_CHECK(f != NULL, "HOME is the output's directory");
        if (f) {
            text[fread(text, 1, sizeof text - 1, f)] = 0;
            fclose(f);
        }
        ZT_CHECK(!strstr(text, "secret"), "no daemon variable: %s", text);
        ZT_CHECK(strstr(text, "PATH=" ZK_WITGEN_PATH "\n") && strstr(text, "LANG=C\n") &&
                 strstr(text, "ZKSLOT_WITGEN_OWNER=test-owner\n"), "%s", text);
        unsetenv("ZKSLOT_LEDGER");
        unsetenv("PGPASSWORD");
    }

    /* the allow-list ([synthd] generators): only files beneath a trusted
     * entry run; a shell from the ledger runs only where the shell is listed */
    {
        struct zk_witgen g;
        char mark[600], sub[600];
        snprintf(mark, sizeof mark, "%s/ran", dir);
        struct zk_witgen_limits al = { 0, 10000, 0, "test-owner", dir };
        snprintf(cmd, sizeof cmd, "%s/ok.sh 'a b' {input} {output}", dir);
        r = run_cmd(cmd, &al, &res, &d);
        ZT_CHECK(r == 0, "a generator beneath the entry runs: %d %s", r, d.msg);
        snprintf(cmd, sizeof cmd, "sh -c 'touch %s' {input} {output}", mark);
        r = run_cmd(cmd, &al, &res, &d);
        ZT_CHECK(r == -EPERM && strstr(d.msg, "not allowed"), "%d %s", r, d.msg);
        ZT_CHECK(access(mark, F_OK) != 0, "the refused command did not run");
        al.allow = "";
        snprintf(cmd, sizeof cmd, "%s/ok.sh 'a b' {input} {output}", dir);
        r = run_cmd(cmd, &al, &res, &d);
        ZT_CHECK(r == -EPERM && strstr(d.msg, "empty"), "nothing by default: %d %s", r, d.msg);
        /* a directory others may write, on the way down from the entry */
        snprintf(sub, sizeof sub, "%s/open", dir);
        mkdir(sub, 0755);
        chmod(sub, 0777);
        write_file("open/gen.sh", "#!/bin/sh\ncp \"$1\" \"$2\"\n", 1);
        al.allow = dir;
        snprintf(cmd, sizeof cmd, "%s/open/gen.sh {input} {output}", dir);
        r = run_cmd(cmd, &al, &res, &d);
        ZT_CHECK(r == ZK_EUNTRUSTED && strstr(d.msg, "/open"), "%d %s", r, d.msg);
        chmod(sub, 0755);
        r = run_cmd(cmd, &al, &res, &d);
        ZT_CHECK(r == 0, "%d %s", r, d.msg);
        /* a link beneath the entry to a program outside it */
        snprintf(sub, sizeof sub, "%s/sh-link", dir);
        ZT_CHECK(symlink("/bin/sh", sub) == 0);
        snprintf(cmd, sizeof cmd, "%s/sh-link -c 'touch %s' {input} {output}", dir, mark);
        r = run_cmd(cmd, &al, &res, &d);
        ZT_CHECK(r == -EPERM && access(mark, F_OK) != 0, "%d %s", r, d.msg);
        /* an entry naming the file itself; a cpp generator's .dat counts too */
        snprintf(cmd, sizeof cmd, "%s/prog", dir);
        ZT_CHECK(zk_witgen_resolve(cmd, 0, &g, &d) == 0, "%s", d.msg);
        ZT_CHECK(zk_witgen_allowed(&g, cmd, &d) == -EPERM && strstr(d.msg, "prog.dat"),
                 "%s", d.msg);
        snprintf(sub, sizeof sub, " %s/prog , %s/prog.dat ", dir, dir);
        ZT_CHECK(zk_witgen_allowed(&g, sub, &d) == 0, "%s", d.msg);
    }

    /* the witness streamed into memory (zk_witgen_run_into): exactly the
     * bytes written, in order, no file made; a longer one refused with
     * the generator killed; a short one reported as it is; a writer the
     * generator left holding the pipe does not hold the run */
    {
        enum { N = 3000000 };
        static uint8_t want[N], got[N];
        char data[512], in[512];
        for (size_t i = 0; i < N; i++)
            want[i] = (uint8_t)(i * 2654435761u >> 13);
        snprintf(data, sizeof data, "%s/data.bin", dir);
        FILE *f = fopen(data, "wb");
        ZT_REQUIRE(f != NULL && fwrite(want, 1, N, f) == N, zt_rmtree(dir), "%s", data);
        fclose(f);
        snprintf(in, sizeof in, "%s/in.json", dir);
        write_file("stream.sh", "#!/bin/sh\necho \"out=$2\"\nhead -c \"$3\" \"$4\" >\"$2\"\n", 1);
        struct zk_witgen g;
        struct zk_witgen_sink sink = { got, N, 0 };
        snprintf(cmd, sizeof cmd, "%s/stream.sh {input} {output} %d %s", dir, N, data);
        ZT_REQUIRE(zk_witgen_resolve(cmd, 1, &g, &d) == 0, zt_rmtree(dir), "%s", d.msg);
        char stray[600];
        snprintf(stray, sizeof stray, "%s/out.wtns", dir);
        unlink(stray);
        r = zk_witgen_run_into(&g, in, &sink, &lim, NULL, &res, &d);
        ZT_CHECK(r == 0, "%d %s | %s", r, d.msg, res.output);
        ZT_CHECK(sink.len == N && !memcmp(got, want, N), "%llu bytes",
                 (unsigned long long)sink.len);
        ZT_CHECK(!strcmp(res.output, "out=" ZK_WITGEN_SINK_PATH), "%s", res.output);
        ZT_CHECK(access(stray, F_OK) != 0, "no output file beside the input");

        /* more than the destination holds: killed, refused */
        sink = (struct zk_witgen_sink){ got, N / 3, 0 };
        r = zk_witgen_run_into(&g, in, &sink, &lim, NULL, &res, &d);
        ZT_CHECK(r == ZK_ELENGTH && strstr(d.msg, "wrote more than"), "%d %s", r, d.msg);
        ZT_CHECK(sink.len == N / 3 && !memcmp(got, want, N / 3), "%llu",
                 (unsigned long long)sink.len);

        /* short: what came, the caller judges it */
        snprintf(cmd, sizeof cmd, "%s/stream.sh {input} {output} 1000 %s", dir, data);
        ZT_REQUIRE(zk_witgen_resolve(cmd, 1, &g, &d) == 0, zt_rmtree(dir), "%s", d.msg);
        sink = (struct zk_witgen_sink){ got, N, 0 };
        r = zk_witgen_run_into(&g, in, &sink, &lim, NULL, &res, &d);
        ZT_CHECK(r == 0 && sink.len == 1000, "%d %llu %s", r, (unsigned long long)sink.len,
                 d.msg);

        /* a child left behind with the pipe open: the group is killed */
        write_file("leave.sh", "#!/bin/sh\nhead -c 10 \"$3\" >\"$2\"\n"
                   "(exec sleep 32.5) >\"$2\" &\nexit 0\n", 1);
        snprintf(cmd, sizeof cmd, "%s/leave.sh {input} {output} %s", dir, data);
        ZT_REQUIRE(zk_witgen_resolve(cmd, 1, &g, &d) == 0, zt_rmtree(dir), "%s", d.msg);
        sink = (struct zk_witgen_sink){ got, N, 0 };
        r = zk_witgen_run_into(&g, in, &sink, &lim, NULL, &res, &d);
        ZT_CHECK(r == 0 && sink.len == 10 && res.seconds < 5, "%d %llu %.1f s %s", r,
                 (unsigned long long)sink.len, res.seconds, d.msg);
        usleep(100000);
        ZT_CHECK(!process_running("slee[p] 32.5"), "the leftover writer was killed");

        /* a generator that cannot write in order fails, said by it */
        write_file("seek.py", "import sys\nf = open(sys.argv[2], 'wb')\nf.seek(100)\n"
                   "f.write(b'x')\n", 0);
        snprintf(cmd, sizeof cmd, "python3 %s/seek.py {input} {output}", dir);
        ZT_REQUIRE(zk_witgen_resolve(cmd, 1, &g, &d) == 0, zt_rmtree(dir), "%s", d.msg);
        sink = (struct zk_witgen_sink){ got, N, 0 };
        r = zk_witgen_run_into(&g, in, &sink, &lim, NULL, &res, &d);
        ZT_CHECK(r == ZK_EREJECTED && strstr(res.output, "seek"), "%d %s | %s", r, d.msg,
                 res.output);
    }

    zt_rmtree(dir);
    return zt_finish();
}
