#!/usr/bin/env bash
# test_help.sh -- every command and daemon answers help: `zkslot help`,
# `zkslot help CMD`, `zkslot CMD --help` and `-h` for every command that
# `zkslot help` lists, `zkslot-gpud --help`, `zkslot-synthd --help`, and
# `--version` on all three: exit 0, the usage (or version) on stdout,
# nothing on stderr, and the usage names the command.
set -u
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}"
fail=0 n=0
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export ZKSLOT_CONFIG=$W/none.conf ZKSLOT_STATE_DIR=$W/state ZKSLOT_POOL=/dev/shm/zkslot-help-$$.pool
: >"$ZKSLOT_CONFIG"
# check WANT CMD...: exit 0, stdout non-empty and containing WANT, stderr empty
check() {
    local want=$1 rc=0; shift
    n=$((n + 1))
    "$@" >"$W/out" 2>"$W/err" </dev/null || rc=$?
    if [ $rc != 0 ] || [ -s "$W/err" ] || ! grep -qF -- "$want" "$W/out"; then
        echo "FAIL: '$*': exit $rc, stdout '$(head -n 1 "$W/out")', stderr '$(head -n 1 "$W/err")'"
        fail=1
    fi
}
check "usage: zkslot COMMAND" "$ZKSLOT" help
check "usage: zkslot COMMAND" "$ZKSLOT" --help
check "usage: zkslot COMMAND" "$ZKSLOT" -h
cmds=$("$ZKSLOT" help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ "$(echo "$cmds" | wc -w)" -ge 15 ] || { echo "FAIL: zkslot help lists: $cmds"; fail=1; }
for c in $cmds; do
    check "zkslot $c" "$ZKSLOT" help "$c"
    check "zkslot $c" "$ZKSLOT" "$c" --help
    check "zkslot $c" "$ZKSLOT" "$c" -h
done
check "usage: zkslot-gpud" "$ZKSLOT_GPUD" --help
check "usage: zkslot-gpud" "$ZKSLOT_GPUD" -h
check "usage: zkslot-synthd" "$ZKSLOT_SYNTHD" --help
check "zkslot " "$ZKSLOT" --version
check "zkslot-gpud " "$ZKSLOT_GPUD" --version
check "zkslot-synthd " "$ZKSLOT_SYNTHD" --version
# an unknown command is still an error, on stderr
"$ZKSLOT" no-such-command >/dev/null 2>&1 && { echo "FAIL: an unknown command exits 0"; fail=1; }
"$ZKSLOT" help no-such-command >/dev/null 2>&1 && { echo "FAIL: help of an unknown command exits 0"; fail=1; }
[ $fail = 0 ] && echo "help: $n invocations answered"
exit $fail
