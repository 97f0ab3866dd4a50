#!/usr/bin/env bash
# test_kill_synthd.sh -- kill -9 of synthd mid-fill: the slot it was filling
# is reclaimed (FILLING with a dead owner -> FREE by the reaper of the
# running gpud), the partition goes back to queued, a restarted synthd
# synthesizes it again (attempts = 2), and the job completes with proofs
# snarkjs accepts.  The fill is held open by the test hook
# ZKSLOT_TEST_FILL_DELAY_MS so the kill lands inside it: the slot FILLING,
# the partition synthesizing in the ledger.
#   The control: the gpud runs with its recovery pass off (test hook
# ZKSLOT_TEST_NO_RECOVERY, off while the file it names exists) for three
# of its 1 s ticks after the kill: the partition must stay synthesizing,
# else the checks below could not tell recovery from its absence.  (The
# slot itself is freed by the reaper that gpud's pool waits run on every
# tick, recovery pass or not.)  Then the file goes, and the same running
# gpud must re-queue the partition on a tick: the ledger state is waited
# for, not only the pool's, since the re-queue follows the reap.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init kill_synthd || exit 77

pl_pool 2 || exit 1
pl_circuit bn128 600 3 || { pl_bad circuit; exit 1; }
noreco=$PL_W/no-recovery
: >"$noreco"
ZKSLOT_TEST_NO_RECOVERY=$noreco pl_start_gpud
ZKSLOT_TEST_FILL_DELAY_MS=60000 pl_start_synthd --workers 1
j=$(pl_submit 3)
pstate() { "$ZKSLOT" pool status --json | python3 -c "import json,sys; s=json.load(sys.stdin); print(s['$1'])"; }
# the job's partitions as sorted "state:attempts" words
lstate() {
    "$ZKSLOT" status "$j" --json | python3 -c '
import json, sys
s = json.load(sys.stdin); parts = s.get("partitions") or s["job"]["partitions"]
print(" ".join(sorted("%s:%d" % (p["state"], p["attempts"]) for p in parts)))'
}
filling="queued:0 queued:0 synthesizing:1"
for _ in $(seq 100); do [ "$(pstate FILLING)" = 1 ] && [ "$(lstate)" = "$filling" ] && break; sleep 0.1; done
[ "$(pstate FILLING)" = 1 ] && [ "$(lstate)" = "$filling" ] ||
    { pl_bad "synthd never held a slot FILLING with its partition synthesizing: $(lstate)"; exit 1; }
kill -9 "$PL_SYNTHD"; wait "$PL_SYNTHD" 2>/dev/null || true
echo "synthd killed mid-fill (slot FILLING, partition synthesizing)"
sleep 3
[ "$(lstate)" = "$filling" ] ||
    pl_bad "control: with recovery off the dead synthd's partition moved: $(lstate)"
echo "control: recovery off for 3 s: the partition is still synthesizing"
rm -f "$noreco"
# the running gpud reaps the slot on its next tick and re-queues the partition
queued="queued:0 queued:0 queued:1"
for _ in $(seq 50); do [ "$(lstate)" = "$queued" ] && [ "$(pstate FREE)" = 2 ] && break; sleep 0.1; done
[ "$(pstate FREE)" = 2 ] || pl_bad "the slot of the killed synthd was not reclaimed"
"$ZKSLOT" status "$j" --json >"$PL_W/s1.json"
python3 - "$PL_W/s1.json" <<'PY' || pl_bad "partition not back to queued"
import json, sys
s = json.load(open(sys.argv[1])); parts = s.get("partitions") or s["job"]["partitions"]
assert [p["state"] for p in parts] == ["queued"] * 3, [p["state"] for p in parts]
assert sorted(p["attempts"] for p in parts) == [0, 0, 1], [p["attempts"] for p in parts]
PY
pl_start_synthd --workers 1
pl_wait "$j" 120 && pl_check_job "$j" 3 && echo "ok: $PL_NPROOFS proofs accepted"
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
