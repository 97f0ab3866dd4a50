#!/usr/bin/env bash
# test_man.sh -- the man pages (man/CMakeLists.txt, tools/manpages.py) agree
# with the programs and the docs, and render cleanly:
#   - tests/docs/mancheck.py: config.c's option table = docs/configuration.md
#     = zkslot.conf(5); main.c's command table = zkslot --help = zkslot(1);
#     each program's --flags = its page's
#   - groff -ww -man -Tutf8 renders every page with no warning, and man -l
#     (man-db, as an operator reads it) the installed, compressed ones
#   - libzkslot(3) shows every call docs/library.md's "Exported symbols"
#     lists, in its synopsis (include/zkslot.h's prototypes)
#   - cmake --install puts the pages, compressed, under share/man/manN
set -u
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_SOURCE_DIR:?}" "${ZK_BUILD_DIR:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 77; }
command -v groff >/dev/null || { echo "SKIP: groff is needed (tools/deps.sh)"; exit 77; }
M=$ZK_BUILD_DIR/man
W=$ZK_BUILD_DIR/man-test
pages="zkslot.1 zkslot-synthd.8 zkslot-gpud.8 zkslot.conf.5 libzkslot.3"
apid=${ZKSLOT_APID:-}                   # apid/: its page too, when it is built
[ -n "$apid" ] && [ -x "$apid" ] && pages="$pages zkslot-apid.8" || apid=
for p in $pages; do
    [ -s "$M/$p" ] || { echo "FAIL: $M/$p was not built (target zkslot-man)"; exit 1; }
done
rm -rf "$W" && mkdir -p "$W" || exit 1
trap 'rm -rf "$W"' EXIT
rc=0

python3 "$ZK_SOURCE_DIR/tests/docs/mancheck.py" "$ZK_SOURCE_DIR" "$M" \
    "$ZKSLOT" "$ZKSLOT_SYNTHD" "$ZKSLOT_GPUD" $apid || rc=1

# libzkslot(3): each exported call declared in the synopsis
syms=$(sed -n '/^## Exported symbols/,/^## /p' "$ZK_SOURCE_DIR/docs/library.md" |
       sed -n '/^```text/,/^```$/p' | grep -E '^zkslot_')
syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$M/libzkslot.3")
[ "$(echo "$syms" | wc -l)" -ge 10 ] || { echo "FAIL: docs/library.md lists no exported symbols"; rc=1; }
for s in $syms; do
    grep -q "[ *]$s(" <<<"$syn" || { echo "FAIL: libzkslot.3's synopsis has no $s()"; rc=1; }
done

for p in $pages; do
    groff -ww -man -Tutf8 "$M/$p" >"$W/$p.txt" 2>"$W/$p.err"
    if [ -s "$W/$p.err" ]; then echo "FAIL: groff -ww $p:"; cat "$W/$p.err"; rc=1; fi
    [ "$(wc -l <"$W/$p.txt")" -gt 20 ] || { echo "FAIL: $p renders to almost nothing"; rc=1; }
done

# the installed pages, as man reads them
DESTDIR=$W/root cmake --install "$ZK_BUILD_DIR" --prefix /usr >"$W/install.log" 2>&1 ||
    { echo "FAIL: cmake --install:"; cat "$W/install.log"; exit 1; }
for p in $pages; do
    f=$W/root/usr/share/man/man${p##*.}/$p.gz
    [ -f "$f" ] || { echo "FAIL: $f was not installed"; rc=1; continue; }
    gzip -t "$f" || { echo "FAIL: $f is not gzip"; rc=1; }
    if command -v man >/dev/null; then
        MANWIDTH=80 man --warnings=w -l "$f" >"$W/$p.man" 2>"$W/$p.merr" || {
            echo "FAIL: man -l $f: exit $?"; rc=1; }
        if [ -s "$W/$p.merr" ]; then echo "FAIL: man -l $p:"; cat "$W/$p.merr"; rc=1; fi
        grep -q "zkslot" "$W/$p.man" || { echo "FAIL: man -l $p: no text"; rc=1; }
    fi
done
[ "$rc" = 0 ] && echo "PASS: $(echo $pages | wc -w) pages agree with --help and docs/configuration.md, render without warnings"
exit "$rc"
