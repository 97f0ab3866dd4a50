# plan_run.sh -- sourced by tests/plan/test_plan.sh and test_plan_filecoin.sh:
# a work directory $tmp (removed on exit), the fail/ok counters and
# run NAME WANT_RC ARGS... (`zkslot plan ARGS`, stdout in $tmp/out, stderr
# in $tmp/err, the exit status checked against WANT_RC).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

run() {
    local name=$1 want=$2
    shift 2
    "$ZKSLOT" plan "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" = "$want" ]; then ok "$name: exit $rc"; else
        fail "$name: exit $rc, want $want"; cat "$tmp/out" "$tmp/err"; fi
}
