#!/usr/bin/env bash
# test_signals.sh -- clean stops lose nothing: SIGTERM to gpud and to
# synthd while a job is in flight -> both exit 0 after finishing what they
# hold; SIGINT (after a SIGTERM: a repeated SIGTERM is the same stop)
# hands in-flight work back at once (sent while gpud holds a partition's
# slot CLAIMED, its data intact, through the test hook
# ZKSLOT_TEST_CLAIM_HOLD_MS: gpud must not re-queue it, the reaper and
# reconcile hand it back ready from that slot, and it is proved from the
# slot without a second synthesis: attempts stays 1); restarted daemons
# finish the job, every proof checked by snarkjs and `zkslot verify`,
# partition k's public.json against its witness.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init signals || exit 77

pl_pool 2 || exit 1
pl_circuit bls12381 4000 6 || { pl_bad circuit; exit 1; }
# Each fill held 1.5 s (synthd's test hook): the 12 partitions take >= 18 s
# whatever the prover's speed and the machine's load, so both stops below
# land mid-job (the faster prover had finished the whole job before the
# stop in CI, and a 250 ms hold was not enough under CI's load).
hold=1500
ZKSLOT_TEST_FILL_DELAY_MS=$hold pl_start_synthd --workers 1
pl_start_gpud --threads 1
j=$(pl_submit_wtns "${PL_WTNS[@]}" "${PL_WTNS[@]}")   # 12 partitions
count() { "$ZKSLOT" status "$j" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); p=s.get("partitions") or s["job"]["partitions"]; print(sum(x["state"]==sys.argv[1] for x in p))' "$1"; }
done_count() { count done; }
for _ in $(seq 300); do [ "$(done_count)" -ge 1 ] && break; sleep 0.1; done
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
grep -q "finishing the partitions in hand" "$PL_W/gpud.log" || pl_bad "gpud did not log the stop"
kill -TERM "$PL_SYNTHD"; pl_wait_pid "$PL_SYNTHD" 60 || true; rc=$PL_RC
[ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
n1=$(done_count)
[ "$(count proving)" = 0 ] || pl_bad "a clean stop left partitions proving"
[ "$n1" -lt 12 ] || pl_bad "the job finished before the stop: the test stopped nothing in flight"
echo "stopped cleanly with $n1 of 12 done"
# SIGTERM then SIGINT: work handed back, exit at once (fills held again, so
# that work is still in flight, and the gpud holds its first partition's
# slot CLAIMED before prove_start for 60 s: the signals land while it is in
# hand, the slot's data intact)
ZKSLOT_TEST_FILL_DELAY_MS=$hold pl_start_synthd --workers 1
ZKSLOT_TEST_CLAIM_HOLD_MS=60000 pl_start_gpud --threads 1
for _ in $(seq 300); do
    grep -q "gpud\[$PL_GPUD\]: .*test hook: slot .* held CLAIMED" "$PL_W/gpud.log" && break
    sleep 0.1
done
grep -q "gpud\[$PL_GPUD\]: .*test hook: slot .* held CLAIMED" "$PL_W/gpud.log" ||
    pl_bad "gpud never held a partition's slot"
held=$("$ZKSLOT" status "$j" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); p=s.get("partitions") or s["job"]["partitions"]; print(" ".join(str(x["index"]) for x in p if x["state"]=="proving"))')
[ -n "$held" ] || pl_bad "no partition proving while gpud held one"
kill -TERM "$PL_GPUD"; sleep 0.05; kill -INT "$PL_GPUD"
pl_wait_pid "$PL_GPUD" 10 || true; rc=$PL_RC          # at once, not after the 60 s hold
[ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM and SIGINT"
grep -q "gpud\[$PL_GPUD\]: exiting with work handed back" "$PL_W/gpud.log" ||
    pl_bad "gpud did not log the hand-back"
# the held slot is the reaper's (CLAIMED by a dead gpud -> READY) and the
# partition reconcile's (proving by a dead owner, its slot held -> ready),
# both run by the live synthd's recovery tick; gpud must not have re-queued
# it (synthd would synthesize it again beside the slot that still holds it)
for _ in $(seq 100); do [ "$(count proving)" = 0 ] && break; sleep 0.1; done
[ "$(count proving)" = 0 ] || pl_bad "the hand-back left partitions proving"
"$ZKSLOT" status "$j" --json | python3 -c '
import json, sys
s = json.load(sys.stdin); parts = s.get("partitions") or s["job"]["partitions"]
held = [int(i) for i in sys.argv[1].split()]
for p in parts:
    if p["index"] in held:
        assert p["state"] in ("ready", "done"), p
        assert "gpud stopped before finishing it" not in (p["error"] or ""), p
        assert p["attempts"] == 1, p
' "$held" || pl_bad "the partition in hand ($held) was re-queued, not left in its CLAIMED slot"
n2=$(done_count)
[ "$n2" -lt 12 ] || pl_bad "the job finished before the hand-back: nothing was in flight"
echo "SIGTERM + SIGINT: $n2 of 12 done, the rest handed back"
# the rest at full speed: a synthd without the hold
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
pl_start_synthd --workers 1
pl_start_gpud --threads 1
pl_wait "$j" 300 && pl_check_job "$j" 12 && echo "ok: $PL_NPROOFS proofs accepted after clean restarts"
"$ZKSLOT" status "$j" --json | python3 -c '
import json, sys
s = json.load(sys.stdin); parts = s.get("partitions") or s["job"]["partitions"]
held = [int(i) for i in sys.argv[1].split()]
for p in parts:
    if p["index"] in held:
        assert p["state"] == "done" and p["attempts"] == 1, p
' "$held" || pl_bad "the partition handed back in its slot ($held) was synthesized again"
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc"
pl_pool_clean
exit $PL_FAIL
