#!/usr/bin/env python3
"""mancheck.py -- the man pages say what the programs and the docs say.
Run by tests/docs/test_man.sh.

  mancheck.py ROOT MANDIR ZKSLOT ZKSLOT-SYNTHD ZKSLOT-GPUD [ZKSLOT-APID]
                                        exit 0 all agree, 1 some differ

Checked, each against the others:
  - the configuration keys: common/config/config.c's option table (what the
    parser accepts), the options table of docs/configuration.md, the
    zkslot.conf(5) page, and every `([section] key)` a daemon's --help names
  - the commands: tools/zkslot/main.c's command table, `zkslot --help`, the
    zkslot(1) page (one COMMANDS subsection each)
  - the flags: every --flag of `zkslot COMMAND --help` is on zkslot(1), every
    --flag of a daemon's --help on its page (zkslot-apid's usage line on
    zkslot-apid(8)), and every --flag a page shows is in the matching --help
"""
import os
import re
import subprocess
import sys

ROOT, MANDIR, ZKSLOT, SYNTHD, GPUD = sys.argv[1:6]
APID = sys.argv[6] if len(sys.argv) > 6 else None
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def help_of(argv):
    return subprocess.run(argv + ["--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=60).stdout


def roff_text(path):
    """A page's text with roff's escapes undone (\\- to -, \\e to \\)."""
    t = read(path)
    t = re.sub(r"\\f[BIRP]", "", t).replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
    return t


def flags(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))


def same(what, a_name, a, b_name, b):
    for x in sorted(a - b):
        fail("%s %s: in %s, not in %s" % (what, x, a_name, b_name))
    for x in sorted(b - a):
        fail("%s %s: in %s, not in %s" % (what, x, b_name, a_name))


# ---- configuration keys -------------------------------------------------
code = set(re.findall(r'^\s*O\("(\w+)", "(\w+)",', read(os.path.join(ROOT, "common/config/config.c")),
                      re.M))
if len(code) < 10:
    fail("common/config/config.c: its option table was not found (%d keys)" % len(code))
doc, section = set(), None
for l in read(os.path.join(ROOT, "docs/configuration.md")).split("\n"):
    m = re.match(r"^\| (`\[(\w+)\]`)? *\| `(\w+)` \|", l)
    if m:
        section = m.group(2) or section
        doc.add((section, m.group(3)))
page, section = set(), None
for l in read(os.path.join(MANDIR, "zkslot.conf.5")).split("\n"):
    m = re.match(r'^\.SS "\[(\w+)\]"$', l)
    if m:
        section = m.group(1)
    m = re.match(r"^\.B (\w+)$", l)
    if m and section:
        page.add((section, m.group(1)))
    if l.startswith(".SH ENVIRONMENT"):
        break
fmt = lambda s: {"[%s] %s" % k for k in s}
same("configuration key", "config.c", fmt(code), "docs/configuration.md", fmt(doc))
same("configuration key", "config.c", fmt(code), "zkslot.conf(5)", fmt(page))
for prog in (SYNTHD, GPUD):
    for k in re.findall(r"\(\[(\w+)\] (\w+)\)", help_of([prog])):
        if tuple(k) not in code:
            fail("%s --help names [%s] %s, which config.c does not accept" %
                 (os.path.basename(prog), k[0], k[1]))

# ---- commands -----------------------------------------------------------
table = re.findall(r'^\s*\{ "([a-z-]+)", cmd_\w+,', read(os.path.join(ROOT, "tools/zkslot/main.c")),
                   re.M)
listed = re.findall(r"(?m)^  ([a-z][a-z-]*) ",
                    help_of([ZKSLOT]).split("commands:\n", 1)[-1].split("\n\n")[0])
man1 = read(os.path.join(MANDIR, "zkslot.1"))
sections = re.findall(r'(?m)^\.SS "zkslot ([a-z\\-]+)"$', man1)
sections = [s.replace("\\-", "-") for s in sections]
same("command", "main.c's table", set(table), "zkslot --help", set(listed))
same("command", "main.c's table", set(table), "zkslot(1)", set(sections))

# ---- flags --------------------------------------------------------------
text1 = roff_text(os.path.join(MANDIR, "zkslot.1"))
cli = set()
for c in table:
    cli |= flags(help_of([ZKSLOT, c]))
    if c == "bench":
        for what in re.findall(r"WHAT: (.*)", help_of([ZKSLOT, "bench"]))[0].split():
            cli |= flags(help_of([ZKSLOT, "bench", what]))
cli |= flags(help_of([ZKSLOT]))
same("flag", "zkslot COMMAND --help", cli, "zkslot(1)", flags(text1))
for prog, name in ((SYNTHD, "zkslot-synthd.8"), (GPUD, "zkslot-gpud.8")):
    options = roff_text(os.path.join(MANDIR, name)).split(".SH OPTIONS", 1)[-1].split(".SH", 1)[0]
    same("flag", os.path.basename(prog) + " --help", flags(help_of([prog])), name + " OPTIONS",
         flags(options))

if APID:
    usage = "\n".join(l for l in help_of([APID]).split("\n") if l.startswith("usage: "))
    synopsis = roff_text(os.path.join(MANDIR, "zkslot-apid.8")).split(".SH SYNOPSIS", 1)[-1]
    same("flag", "zkslot-apid's usage", flags(usage), "zkslot-apid.8",
         flags(synopsis.split(".SH", 1)[0]))

print("mancheck: %d configuration keys, %d commands, %d CLI flags; %d failure(s)" %
      (len(code), len(table), len(cli), len(failures)))
sys.exit(1 if failures else 0)
