#!/usr/bin/env bash
# test_hooks.sh -- every test hook is documented (issue 46): each
# ZKSLOT_TEST_* (and ZK_*TEST*) name the programs' sources read (common/,
# synthd/, gpud/, apid/, lib/, tools/zkslot/) has its row in
# docs/configuration.md's "Test hooks" table and is in the hooks' table of
# common/util/testhook.c (zk_test_hook reads no other), and every row names
# a hook the sources still read.  The switches themselves (ZK_TEST_HOOKS,
# the CMake option; ZKSLOT_TEST_HOOKS, the environment's) must be in the
# page too.
set -u
: "${ZK_SOURCE_DIR:?}"
cd "$ZK_SOURCE_DIR" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
doc=docs/configuration.md
switches='^(ZK_TEST_HOOKS|ZKSLOT_TEST_HOOKS)$|_H$'   # and header guards
src=$(grep -rhoE 'ZKSLOT_TEST_[A-Z0-9_]+|ZK_[A-Z0-9_]*TEST[A-Z0-9_]*' \
          common synthd gpud apid lib tools/zkslot | sort -u)
hooks=$(grep -vE "$switches" <<<"$src")
[ "$(grep -c . <<<"$hooks")" -ge 10 ] || { bad "found only '$hooks' in the sources"; exit 1; }
rows=$(sed -n '/^### Test hooks/,/^#/p' "$doc" | grep -E '^\| `' | sed -E 's/^\| `([^`]+)`.*/\1/' | sort -u)
[ -n "$rows" ] || bad "$doc has no \"Test hooks\" table"
table=$(sed -n '/^static const char \*const hooks\[\]/,/^};/p' common/util/testhook.c |
        grep -oE '"[A-Z0-9_]+"' | tr -d '"' | sort -u)
for h in $hooks; do
    grep -qx "$h" <<<"$rows" || bad "$h (read in $(grep -rlE "$h\\b" common synthd gpud apid lib tools/zkslot | grep -v testhook | head -1)) has no row in $doc's \"Test hooks\" table"
    grep -qx "$h" <<<"$table" || bad "$h is not in common/util/testhook.c's table (zk_test_hook ignores it)"
done
for r in $rows; do
    grep -qx "$r" <<<"$hooks" || bad "$doc's \"Test hooks\" table has $r, which no source reads"
done
for s in ZK_TEST_HOOKS ZKSLOT_TEST_HOOKS; do
    grep -q "$s" "$doc" || bad "$doc does not say what $s does"
done
# the hooks are read through zk_test_hook only (cpucheck.c applies the rule itself)
raw=$(grep -rnE 'getenv\("(ZKSLOT_TEST_|ZK_[A-Z_]*TEST)' common synthd gpud apid lib tools/zkslot |
      grep -vE '^common/util/(testhook|cpucheck)\.c:')
[ -z "$raw" ] || bad "hooks read with getenv, not zk_test_hook: $raw"
[ "$fail" = 0 ] && echo "test hooks: $(grep -c . <<<"$hooks") in the sources, all in $doc and testhook.c's table"
exit $fail
