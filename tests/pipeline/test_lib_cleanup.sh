#!/usr/bin/env bash
# test_lib_cleanup.sh -- the pipeline tests' EXIT trap on a failing test:
# a child test (set -euo pipefail, lib.sh, lib_apid.sh, a pool, synthd,
# gpud and apid running) records a failure and ends; afterwards its
# daemons are dead, its pool and its synthd's witness directory are gone,
# and it said which failure and printed its logs.  Without that, a failing
# test left its daemons running and its pool in /dev/shm (the failed status
# restored in apid's trap tripped the ERR trap under errexit, which ended
# the trap before pl_cleanup).
: "${ZK_SOURCE_DIR:?}" "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZKSLOT_APID:?}"
t=$(mktemp -d /tmp/zk-lib-cleanup.XXXXXX)
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

cat >"$t/child.sh" <<'EOF'
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init lib_cleanup_child || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
pl_pool 2
pl_start_synthd --workers 1
pl_start_gpud --threads 1
apid_start
echo "$PL_SYNTHD $PL_GPUD $APID_PID" >"$CHILD_PIDS"
echo "$ZKSLOT_POOL" >"$CHILD_POOL"
for _ in $(seq 100); do   # synthd made its witness directory
    ls -d /dev/shm/zkslot-synthd-????????????????-"$PL_SYNTHD"-* >/dev/null 2>&1 && break
    sleep 0.1
done
pl_bad "deliberate failure"
pl_done
EOF
rc=0
CHILD_PIDS=$t/pids CHILD_POOL=$t/pool bash "$t/child.sh" >"$t/out" 2>&1 || rc=$?
if [ "$rc" = 77 ]; then
    cat "$t/out"; rm -rf "$t"; exit 77
fi
[ "$rc" = 1 ] || bad "the child exited $rc, want 1"
grep -q "lib_cleanup_child: 1 failure(s):" "$t/out" || bad "no failure summary"
grep -q "deliberate failure" "$t/out" || bad "the failure was not named"
grep -q "==> .*synthd.log (tail)" "$t/out" || bad "the logs were not printed"
read -r s g a <"$t/pids" || bad "the child wrote no pids"
for p in $s $g $a; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$p" 2>/dev/null; then
        bad "process $p ($(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null)) still runs"
        kill -9 "$p" 2>/dev/null
    fi
done
pool=$(cat "$t/pool")
for f in "$pool" "$pool.data"; do
    [ ! -e "$f" ] || { bad "$f left behind"; rm -f "$f"; }
done
if [ -n "${s:-}" ] && ls -d /dev/shm/zkslot-synthd-????????????????-"$s"-* >/dev/null 2>&1; then
    bad "synthd's witness directory left behind"
    rm -rf /dev/shm/zkslot-synthd-????????????????-"$s"-*
fi
[ "$fail" = 0 ] || { echo "--- the child's output:"; cat "$t/out"; }
rm -rf "$t" "${ZK_BUILD_DIR:-/tmp}/pipeline-work/lib_cleanup_child"
[ "$fail" = 0 ] && echo "ok: a failing test's daemons, pool and witness directory are gone"
exit "$fail"
