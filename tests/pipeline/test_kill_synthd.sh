#!/usr/bin/env bash
# test_kill_synthd.sh -- kill -9 of synthd mid-fill: the slot it was filling
# is reclaimed (FILLING with a dead owner -> FREE by the reaper of the
# running gpud), the partition goes back to queued, a restarted synthd
# synthesizes it again (attempts = 2), and the job completes with proofs
# snarkjs accepts.  The fill is held open by the test hook
# ZKSLOT_TEST_FILL_DELAY_MS so the kill lands inside it.
set -u
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init kill_synthd || exit 77

pl_pool 2 || exit 1
pl_circuit bn128 600 3 || { pl_bad circuit; exit 1; }
pl_start_gpud
ZKSLOT_TEST_FILL_DELAY_MS=60000 pl_start_synthd --workers 1
j=$(pl_submit 3)
pstate() { "$ZKSLOT" pool status --json | python3 -c "import json,sys; s=json.load(sys.stdin); print(s['$1'])"; }
for _ in $(seq 100); do [ "$(pstate FILLING)" = 1 ] && break; sleep 0.1; done
[ "$(pstate FILLING)" = 1 ] || { pl_bad "synthd never started filling a slot"; exit 1; }
kill -9 "$PL_SYNTHD"; wait "$PL_SYNTHD" 2>/dev/null
echo "synthd killed mid-fill"
# the running gpud reaps the slot on its next tick and re-queues the partition
for _ in $(seq 50); do [ "$(pstate FILLING)" = 0 ] && [ "$(pstate FREE)" = 2 ] && break; sleep 0.1; done
[ "$(pstate FREE)" = 2 ] || pl_bad "the slot of the killed synthd was not reclaimed"
"$ZKSLOT" status "$j" --json >"$PL_W/s1.json"
python3 - "$PL_W/s1.json" <<'PY' || pl_bad "partition not back to queued"
import json, sys
s = json.load(open(sys.argv[1])); parts = s.get("partitions") or s["job"]["partitions"]
assert [p["state"] for p in parts] == ["queued"] * 3, [p["state"] for p in parts]
assert sorted(p["attempts"] for p in parts) == [0, 0, 1], [p["attempts"] for p in parts]
PY
pl_start_synthd --workers 1
pl_wait "$j" 120 && n=$(pl_check_job "$j") && echo "ok: $n proofs accepted"
"$ZKSLOT" status "$j" --json >"$PL_W/s2.json"
python3 - "$PL_W/s2.json" <<'PY' || pl_bad "attempts after the re-synthesis"
import json, sys
s = json.load(open(sys.argv[1])); parts = s.get("partitions") or s["job"]["partitions"]
assert all(p["state"] == "done" for p in parts)
assert sorted(p["attempts"] for p in parts) == [1, 1, 2], [p["attempts"] for p in parts]
assert all(p["proofs"] == 1 for p in parts)
PY
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
pl_pool_clean
exit $PL_FAIL
