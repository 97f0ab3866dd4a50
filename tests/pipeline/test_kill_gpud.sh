#!/usr/bin/env bash
# test_kill_gpud.sh -- kill -9 of gpud at random moments, several times,
# with restarts, while jobs are in flight.  Afterwards: every partition is
# done, each has exactly one proof file (no temporary files left), every
# proof is accepted by snarkjs and zkslot (partition k's public.json
# against witness k), no slot is stuck and `zkslot pool check` is clean.
# ZK_TEST_SEED replays the kill times.
#   Before the random kills, two kills tied to gpud's state (test hooks that
# hold gpud there and log it):
#   1. a slot CLAIMED with its a, b, c already prove_start's scratch
#      (ZKSLOT_TEST_START_HOLD_MS): the slot comes back READY with a
#      checksum that fails, the next gpud must drop it and re-queue the
#      partition (a gpud that proved it anyway would write an invalid proof);
#   2. a proof written but not yet recorded (ZKSLOT_TEST_RECORD_HOLD_MS):
#      the partition is proved again, exactly one duplicate.  The control:
#      recovery is off in every daemon (ZKSLOT_TEST_NO_RECOVERY, while the
#      file exists) for 3 s after this kill, and the partition must stay
#      proving under the dead gpud: the recovery checked below is real.
# Duplicates are bounded: at most one per kill.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init kill_gpud || exit 77
seed=${ZK_TEST_SEED:-$(( $(date +%s%N) % 1000000 ))}
echo "seed $seed (ZK_TEST_SEED=$seed replays the kill times)"
RANDOM=$seed

pl_pool 3 || exit 1
pl_circuit bn128 6000 6 || { pl_bad circuit; exit 1; }
noreco=$PL_W/no-recovery
export ZKSLOT_TEST_NO_RECOVERY=$noreco     # inherited by every daemon below
pl_start_synthd --workers 2
jobs=()
pstate() { "$ZKSLOT" pool status --json | python3 -c "import json,sys; s=json.load(sys.stdin); print(s['$1'])"; }
# parts JOB: the partitions of JOB, one "id:state:owner-pid:proofs" a line
# (read whole, not piped into grep -q: under pipefail its early exit would
# fail the pipeline)
parts() {
    "$ZKSLOT" status "$1" --json | python3 -c '
import json, sys
s = json.load(sys.stdin); parts = s.get("partitions") or s["job"]["partitions"]
for p in parts:
    print("%d:%s:%s:%d" % (p["id"], p["state"], (p["owner"] or {}).get("pid", "-"), p["proofs"]))'
}

# 1. killed with a slot CLAIMED, its a, b, c overwritten
ZKSLOT_TEST_START_HOLD_MS=60000 pl_start_gpud --threads 1
jobs+=("$(pl_submit 6)")
pl_wait_log gpud "$PL_GPUD" "test hook: slot [0-9]+ held CLAIMED after prove_start" 60 || exit 1
[ "$(pstate CLAIMED)" -ge 1 ] || pl_bad "no slot CLAIMED while gpud held one"
kill -9 "$PL_GPUD"; wait "$PL_GPUD" 2>/dev/null || true
echo "kill A: gpud $PL_GPUD killed holding a slot CLAIMED after prove_start"
# 2. the next gpud drops that slot (checksum), then is killed with a proof
# written but not recorded
ZKSLOT_TEST_RECORD_HOLD_MS=60000 pl_start_gpud --threads 1
# (what follows builds on each step: a step that fails ends the test)
pl_wait_log gpud "$PL_GPUD" "slot [0-9]+ failed its checksum: dropped, partition [0-9]+ re-queued" 30 ||
    { pl_bad "the slot whose a, b, c were scratch was not dropped on its checksum"; exit 1; }
pl_wait_log gpud "$PL_GPUD" "test hook: partition [0-9]+: proof written, not yet recorded" 30 || exit 1
written=$(grep -m 1 -E "gpud\[$PL_GPUD\]: .*test hook: partition [0-9]+: proof written" "$PL_W/gpud.log" |
          sed -n 's/.*partition \([0-9]*\): proof written.*/\1/p')
: >"$noreco"                              # the control: recovery off everywhere
kill -9 "$PL_GPUD"; wait "$PL_GPUD" 2>/dev/null || true
dead=$PL_GPUD
echo "kill B: gpud $dead killed with partition $written written, not recorded"
pl_start_gpud --threads 1
sleep 3
grep -qx "$written:proving:$dead:0" <<<"$(parts "${jobs[0]}")" ||
    { pl_bad "control: with recovery off partition $written left the dead gpud: $(parts "${jobs[0]}" | tr '\n' ' ')"; exit 1; }
echo "control: recovery off for 3 s: partition $written still proving under the dead gpud $dead"
rm -f "$noreco"
for _ in $(seq 100); do grep -q "^$written:proving:$dead:" <<<"$(parts "${jobs[0]}")" || break; sleep 0.1; done
grep -q "^$written:proving:$dead:" <<<"$(parts "${jobs[0]}")" &&
    { pl_bad "partition $written still held by the dead gpud 10 s after recovery came back"; exit 1; }
for i in 2 3; do jobs+=("$(pl_submit 6)"); done

# Six kills, each while work is in flight: when the jobs run out (the
# prover is fast), another job of 6 is submitted, so the count of kills
# never depends on the prover's speed.
kills=0 hits=0
while [ "$kills" -lt 6 ]; do
    sleep "0.$((RANDOM % 3))$((RANDOM % 10 + 1))"
    left=$("$ZKSLOT" status --json | python3 -c 'import json,sys; print(sum(j["state"] in ("queued","running") for j in json.load(sys.stdin)["jobs"]))')
    if [ "$left" = 0 ]; then
        jobs+=("$(pl_submit 6)")
        continue
    fi
    st=$("$ZKSLOT" pool status --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["CLAIMED"])')
    kill -9 "$PL_GPUD"; wait "$PL_GPUD" 2>/dev/null || true
    kills=$((kills + 1))
    [ "$st" != 0 ] && hits=$((hits + 1))
    echo "kill $kills: gpud $PL_GPUD killed (slots claimed at the kill: $st)"
    pl_start_gpud --threads 1
done
[ "$hits" -ge 1 ] || pl_bad "no kill landed while a slot was claimed"
echo "$kills random kills, $hits with a slot claimed, ${#jobs[@]} jobs"

total=0
for j in "${jobs[@]}"; do
    pl_wait "$j" 300 || continue
    pl_check_job "$j" 6 || continue
    total=$((total + PL_NPROOFS))
    out=$("$ZKSLOT" status "$j" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); j=s.get("job",s); print(j["out_dir"])')
    np=$(find "$out" -name proof.json | wc -l)
    [ "$np" = 6 ] || pl_bad "job $j: $np proof files, expected 6"
    left=$(find "$out" -name '*.tmp.*' | wc -l)
    [ "$left" = 0 ] || pl_bad "job $j: $left temporary file(s) left"
done
[ "$total" = $((6 * ${#jobs[@]})) ] || pl_bad "$total proofs accepted, expected $((6 * ${#jobs[@]}))"
"$ZKSLOT" status >"$PL_W/status.txt"
dups=$(for j in "${jobs[@]}"; do "$ZKSLOT" status "$j" --json; done |
       python3 -c 'import json,sys
d=0
for doc in sys.stdin.read().replace("}\n{","}\x00{").split("\x00"):
    s=json.loads(doc); parts=s.get("partitions") or s["job"]["partitions"]
    d+=sum(p["proofs"]-1 for p in parts)
print(d)')
echo "duplicate proofs (counted, harmless): $dups"
# kill B made exactly one; each kill can make at most one (the proof being
# recorded when it landed; the partition being started was not written)
grep -q "^$written:done:[^:]*:2$" <<<"$(parts "${jobs[0]}")" ||
    pl_bad "partition $written, written before kill B, not done with 2 proofs: $(parts "${jobs[0]}" | tr '\n' ' ')"
[ "$dups" -ge 1 ] && [ "$dups" -le $((kills + 1)) ] ||
    pl_bad "$dups duplicate proofs after $kills random kills and kill B (1 to $((kills + 1)) expected)"
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
free=$("$ZKSLOT" pool status --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["FREE"])')
[ "$free" = 3 ] || pl_bad "$free of 3 slots free at the end"
pl_pool_clean
exit $PL_FAIL
