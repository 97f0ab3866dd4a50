#!/usr/bin/env python3
"""doccheck.py -- the shell commands of README.md and docs/*.md, checked
against the programs they name.  Run by tests/docs/test_docs.sh, which sets
up the private state directory, config, pool and daemons; see there and
docs/README.md ("Docs that are tested") for how a doc marks its blocks.

  doccheck.py ROOT WORK BIN     exit 0 every check passed, 1 some failed

Every code block must say what it is, by its fence's info string:
  ```sh       commands, run in order (one bash -e process per block)
  ```console  a transcript: `$ CMD` lines are run, the lines after each are
              its expected output (stdout, then stderr); `...` on a line of
              its own stands for any lines, and <N> (a number), <PATH> (a
              word) and <ANY> (anything) for parts of a line
  ```text     not commands (diagrams, formulas, synopses)
  any other info string (ini, json, c, ...) is a file's content
A `<!-- not-run: REASON -->` line just before a sh or console fence keeps
it from running here (systemd, a GPU, root-only machine setup, long jobs).
A fence without an info string, or an indented code block, is an error.
Whatever the kind, every `zkslot ...`, `zkslot-synthd ...` and
`zkslot-gpud ...` command in a block or in an inline `code span` is checked
statically: its subcommands must exist and every --flag on the line must
be in that command's usage (`PROGRAM WORDS --help`).
Commands that are run see /srv/, /data/ and /etc/zkslot/ under WORK/root
(the test puts its fixtures there), zkslot's binaries first on PATH and
the test's ZKSLOT_* environment.
"""
import glob
import os
import re
import subprocess
import sys

ROOT, WORK, BIN = sys.argv[1:4]
PROGRAMS = ("zkslot", "zkslot-synthd", "zkslot-gpud")
NESTED = ("pool", "key", "bench")        # zkslot commands with subcommands
TIMEOUT = int(os.environ.get("ZK_DOCCHECK_TIMEOUT", "180"))
failures = []
counts = {"run": 0, "not-run": 0, "console": 0, "static": 0}


def fail(where, msg):
    failures.append("%s: %s" % (where, msg))
    print("FAIL: %s: %s" % (where, msg), file=sys.stderr)


# ---- reading the docs ---------------------------------------------------

def blocks(path):
    """Yield (line, info, not_run_reason, lines) per fenced block; report
    fences without an info string and indented code blocks."""
    text = open(path, encoding="utf-8").read().split("\n")
    i, prev = 0, ""
    while i < len(text):
        m = re.match(r"^(\s*)```(.*)$", text[i])
        if m:
            start, info, body = i + 1, m.group(2).strip(), []
            i += 1
            while i < len(text) and not re.match(r"^\s*```\s*$", text[i]):
                body.append(text[i][len(m.group(1)):])
                i += 1
            nr = re.match(r"^<!--\s*not-run:\s*(.*?)\s*-->$", prev.strip())
            yield start, info, nr.group(1) if nr else None, body
            prev = ""
            i += 1
            continue
        if (text[i].startswith("    ") and text[i].strip() and i > 0 and not text[i - 1].strip()
                and prev and not re.match(r"^(\s|[-*+] |\d+\. |\|)", prev)):
            fail("%s:%d" % (os.path.relpath(path, ROOT), i + 1), "an indented code block: use a fence "
                 "(```sh, ```console or ```text, with <!-- not-run: REASON --> before "
                 "it when it cannot run here; docs/README.md)")
        if text[i].strip():
            prev = text[i]
        i += 1


def inline_spans(path):
    """Yield (line, span) for inline code spans outside fences."""
    infence = False
    for n, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if re.match(r"^\s*```", l):
            infence = not infence
            continue
        if not infence:
            for m in re.finditer(r"(`+)(.+?)\1", l):
                yield n, m.group(2).strip()


# ---- the static check ---------------------------------------------------

usage_cache = {}


def usage(words):
    """The usage text of PROGRAM WORDS (--help), and whether it is known."""
    key = tuple(words)
    if key not in usage_cache:
        try:
            out = subprocess.run([os.path.join(BIN, words[0])] + list(words[1:]) + ["--help"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 timeout=30, env=ENV).stdout
        except (OSError, subprocess.TimeoutExpired) as e:
            sys.exit("doccheck.py: cannot run %s: %s" % (os.path.join(BIN, words[0]), e))
        known = not re.search(r"unknown (command|subcommand|argument|benchmark|action)|"
                              r"unrecognized (command|subcommand)", out)
        usage_cache[key] = (out, known)
    return usage_cache[key]


def command_words(toks):
    """zkslot's command words at the start of toks: ["pool", "create"] etc;
    an alternative list (create|status) is a list of choices."""
    words = []
    for t in toks[:2]:
        if not re.match(r"^[a-z][a-z-]*(\|[a-z][a-z-]*)*$", t):
            break
        words.append(t.split("|"))
        if len(words) == 1 and not set(words[0]) & set(NESTED):
            break
    return words


def check_command(where, prog, toks):
    """One command line of PROGRAM: subcommands exist, flags in usage."""
    counts["static"] += 1
    words = command_words(toks) if prog == "zkslot" else []
    if prog == "zkslot" and not words:
        return
    choices = [[prog]]
    for alts in words:
        choices = [c + [a] for c in choices for a in alts]
    texts = []
    for c in choices:
        out, known = usage(c)
        if not known and len(c) > 2:
            # `zkslot pool status --help` is an error; `zkslot pool --help` lists it
            known = bool(re.search(r"\b%s %s\b" % (c[1], c[2]), usage(c[:2])[0]))
        if not known:
            fail(where, "'%s' is not a command: %s" % (" ".join(c), out.strip().split("\n")[0]))
        elif len(c) > 2 and not re.search(r"(?m)^\s+%s\s.*(?<![\w-])%s(?![\w-])" % (c[1], c[2]),
                                         usage([prog, "--help"])[0]):
            fail(where, "'%s' is missing from zkslot's own usage (zkslot --help)" % " ".join(c))
        texts.append(out)
        if len(c) > 2:
            texts.append(usage(c[:2])[0])
    for f in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", " ".join(toks)):
        if not any(re.search(re.escape(f) + r"(?![a-z0-9-])", t) for t in texts):
            fail(where, "%s: %s is not in '%s --help'" % (" ".join(choices[0]), f,
                                                        " ".join(choices[0])))


def check_line(where, line, last, shell=False):
    """Statically check the commands on one line; returns the last command
    seen (a continuation line's flags belong to it).  In a shell line the
    commands are looked for before its comment, whose --flags count too."""
    line = re.sub(r"^\s*\$\s", "", line)
    if shell and re.search(r"(^|\s)#", line):
        code, comment = re.split(r"(?:^|\s)#", line, maxsplit=1)
        line = code + " " + " ".join(re.findall(r"--[a-z][a-z0-9-]*", comment))
    found = False
    for seg in re.split(r"\s(?:\|\||&&|;|\|)\s", line):
        toks = seg.replace("$(", " ").replace("`", " ").split()
        for k, t in enumerate(toks):
            if t in PROGRAMS:
                last = (t, toks[k + 1:])
                check_command(where, t, toks[k + 1:])
                found = True
                break
        else:
            # "zkslot status ... | wait JOB ...": a synopsis's next subcommand
            if found and last and last[0] == "zkslot" and toks and command_words(toks):
                if usage(["zkslot", toks[0].split("|")[0]])[1]:
                    check_command(where, "zkslot", toks)
    if not found and last and re.match(r"^\s+--", line):
        check_command(where, last[0], last[1] + line.split())
        return last
    return last if found or (last and re.match(r"^\s", line)) else None


# ---- running ------------------------------------------------------------

def localize(cmd):
    """The docs' machine paths under WORK/root."""
    return re.sub(r"(?<![\w.$/-])/(srv|data|etc/zkslot)(?=/)", WORK + r"/root/\1", cmd)


def run_sh(where, body):
    counts["run"] += 1
    script = "set -euo pipefail\n" + localize("\n".join(body)) + "\n"
    try:
        p = subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT,
                           cwd=os.path.join(WORK, "cwd"), env=ENV)
    except subprocess.TimeoutExpired:
        fail(where, "did not finish in %d s" % TIMEOUT)
        return
    if p.returncode:
        fail(where, "exit %d:\n%s" % (p.returncode, p.stdout.rstrip()))


def expect_re(line):
    s = re.escape(line.rstrip())
    for ph, rx in (("<N>", r"[0-9][0-9.]*"), ("<PATH>", r"\S+"), ("<ANY>", r".*")):
        s = s.replace(re.escape(ph), rx)
    return re.compile(s + r"\s*$")


def matches(expect, got):
    """Does got (lines) match expect (lines, with `...`)?"""
    if not expect:
        return not got
    if expect[0].strip() == "...":
        return any(matches(expect[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and bool(expect_re(expect[0]).match(got[0])) and matches(expect[1:], got[1:])


def run_console(where, start, body):
    """Run a transcript's commands in one bash, compare each one's output."""
    counts["console"] += 1
    cmds = []                       # (line, command, expected lines)
    i = 0
    while i < len(body):
        if body[i].startswith("$ "):
            n, cmd = start + i + 1, body[i][2:]
            while cmd.endswith("\\") and i + 1 < len(body):
                i += 1
                cmd = cmd[:-1] + " " + body[i].strip()
            cmds.append((n, cmd, []))
        elif cmds:
            cmds[-1][2].append(body[i])
        i += 1
    d = os.path.join(WORK, "console")
    os.makedirs(d, exist_ok=True)
    script = ["__rc=0"]
    for k, (_, cmd, _) in enumerate(cmds):
        script += ["(exit $__rc)", "{ " + localize(cmd),
                   "} >%s/%d.out 2>%s/%d.err" % (d, k, d, k), "__rc=$?"]
    try:
        subprocess.run(["bash", "-c", "\n".join(script)], timeout=TIMEOUT,
                       cwd=os.path.join(WORK, "cwd"), env=ENV)
    except subprocess.TimeoutExpired:
        fail(where, "did not finish in %d s" % TIMEOUT)
        return
    for k, (n, cmd, expect) in enumerate(cmds):
        got = []
        for ext in ("out", "err"):
            with open("%s/%d.%s" % (d, k, ext), encoding="utf-8", errors="replace") as f:
                got += f.read().rstrip("\n").split("\n") if os.path.getsize(f.name) else []
        while expect and not expect[-1].strip():
            expect = expect[:-1]
        if not matches(expect, got):
            fail("%s:%d" % (where.rsplit(":", 1)[0], n),
                 "'%s': the output differs from the docs:\n--- docs\n%s\n--- got\n%s" %
                 (cmd, "\n".join(expect), "\n".join(got)))


ENV = dict(os.environ)
ENV["PATH"] = BIN + ":" + ENV["PATH"]


def main():
    docs = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    for path in docs:
        rel = os.path.relpath(path, ROOT)
        for n, span in inline_spans(path):
            if span.split() and span.split()[0] in PROGRAMS:
                check_line("%s:%d" % (rel, n), span, None)
        for start, info, not_run, body in blocks(path):
            where = "%s:%d" % (rel, start)
            if not info:
                fail(where, "a fence without an info string: say ```sh, ```console or ```text "
                     "(docs/README.md, \"Docs that are tested\")")
                continue
            kind = info.split()[0]
            last = None
            for k, l in enumerate(body):
                if kind != "console" or l.startswith("$ ") or (last and l.startswith("  ")):
                    last = check_line("%s:%d" % (rel, start + k + 1), l, last,
                                      kind in ("sh", "bash"))
            if kind not in ("sh", "bash", "console"):
                continue
            if not_run is not None:
                if not not_run:
                    fail(where, "not-run needs a reason")
                counts["not-run"] += 1
                print("--- %s: not run here: %s" % (where, not_run))
                continue
            print("--- %s: %s" % (where, "running" if kind != "console" else "transcript"))
            if kind == "console":
                run_console(where, start, body)
            else:
                run_sh(where, body)
    print("doccheck: %d sh blocks run, %d transcripts compared, %d blocks not run here, "
          "%d command lines checked statically, %d failure(s)" %
          (counts["run"], counts["console"], counts["not-run"], counts["static"], len(failures)))
    return 1 if failures else 0


sys.exit(main())
