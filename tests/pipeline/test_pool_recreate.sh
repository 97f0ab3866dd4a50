#!/usr/bin/env bash
# test_pool_recreate.sh -- the pool destroyed while jobs are queued (a
# reboot, an operator's mistake): synthd notices and exits 75; with a new
# pool and restarted daemons every partition is proved, partitions that
# were READY in the lost pool included, each partition's proof checked by
# snarkjs and `zkslot verify` against its own witness's public signals.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init pool_recreate || exit 77

pl_pool 2 || exit 1
pl_circuit bls12381 300 5 || { pl_bad circuit; exit 1; }
j=$(pl_submit 5)
pl_start_synthd --workers 1       # no gpud yet: both slots end up READY
pstate() { "$ZKSLOT" pool status --json | python3 -c "import json,sys; s=json.load(sys.stdin); print(s['$1'])"; }
for _ in $(seq 100); do [ "$(pstate READY)" = 2 ] && break; sleep 0.1; done
[ "$(pstate READY)" = 2 ] || pl_bad "slots not READY before the destroy"
"$ZKSLOT" pool destroy --force >/dev/null || pl_bad "pool destroy --force"
# at most 10 s (a bare wait would hang to ctest's timeout if it never exits)
pl_wait_pid "$PL_SYNTHD" 10 || true
[ "$PL_RC" = 75 ] || pl_bad "synthd exit $PL_RC after its pool vanished, expected 75"
grep -q "destroyed or replaced" "$PL_W/synthd.log" || pl_bad "synthd did not say why it exits"
pl_pool 2 || exit 1
pl_start_synthd --workers 1
pl_start_gpud
pl_wait "$j" 180 && pl_check_job "$j" 5 && echo "ok: $PL_NPROOFS proofs accepted after the pool was recreated"
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc"
pl_pool_clean
exit $PL_FAIL
