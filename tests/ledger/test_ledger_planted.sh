#!/usr/bin/env bash
# test_ledger_planted.sh -- issue 46, "Files in shared directories": the
# state directory is its group's to write (3770), so before the ledger is
# made an operator can put another file at its name.  A symlink or a FIFO
# at <state_dir>/ledger.db is refused in one line naming it, within the
# `timeout` (124: it hung), by the CLI and by zkslot-synthd, and the
# link's target is left as it was (before the fix the ledger followed the
# link and made its schema in the target).
set -u
[ -x "${ZKSLOT:-}" ] && [ -x "${ZKSLOT_SYNTHD:-}" ] || { echo "ZKSLOT/ZKSLOT_SYNTHD not set"; exit 1; }
tmp=$(mktemp -d)
shm=$(mktemp -d /dev/shm/zkslot-ledger-planted.XXXXXX)
trap '"$ZKSLOT" pool destroy --force >/dev/null 2>&1; rm -rf "$tmp" "$shm"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export ZKSLOT_CONFIG=$tmp/none.conf ZKSLOT_STATE_DIR=$tmp/state
export ZKSLOT_POOL=$shm/p
: >"$ZKSLOT_CONFIG"
"$ZKSLOT" pool create --slots 1 --slot-size 2M --tmpfs >/dev/null 2>&1 || fail "pool create"
mkdir -m 3770 "$ZKSLOT_STATE_DIR"
ledger=$ZKSLOT_STATE_DIR/ledger.db

# refused NAME PATTERN CMD...: ends within 10 s, non-zero, one line with
# "ledger.db: PATTERN"
refused() {
    local name=$1 pat=$2 rc=0
    shift 2
    timeout 10 "$@" >"$tmp/out" 2>&1 </dev/null || rc=$?
    if [ "$rc" = 124 ]; then
        fail "$name: still running after 10 s (killed)"
    elif [ "$rc" = 0 ] || [ "$(grep -c -F "$ledger: $pat" "$tmp/out")" != 1 ]; then
        fail "$name: exit $rc, want one line '$ledger: $pat': $(head -c 600 "$tmp/out")"
    else
        echo "ok: $name: $(grep -F "$ledger:" "$tmp/out")"
    fi
}

: >"$tmp/target"
ln -s "$tmp/target" "$ledger"
refused "zkslot key list, ledger.db a symlink" "a symlink (refused)" "$ZKSLOT" key list
refused "zkslot-synthd, ledger.db a symlink" "a symlink (refused)" "$ZKSLOT_SYNTHD"
[ ! -s "$tmp/target" ] || fail "the symlink's target was written ($(stat -c %s "$tmp/target") bytes)"
rm -f "$ledger"

mkfifo "$ledger"
refused "zkslot key list, ledger.db a FIFO" "not a zkslot ledger" "$ZKSLOT" key list
refused "zkslot-synthd, ledger.db a FIFO" "not a zkslot ledger" "$ZKSLOT_SYNTHD"
rm -f "$ledger"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all planted-ledger checks passed"
