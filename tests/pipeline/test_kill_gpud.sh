#!/usr/bin/env bash
# test_kill_gpud.sh -- kill -9 of gpud at random moments, several times,
# with restarts, while jobs are in flight.  Afterwards: every partition is
# done, each has exactly one proof file (no temporary files left), every
# proof is accepted by snarkjs and zkslot, no slot is stuck and
# `zkslot pool check` is clean.  ZK_TEST_SEED replays the kill times.
set -u
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init kill_gpud || exit 77
seed=${ZK_TEST_SEED:-$(( $(date +%s%N) % 1000000 ))}
echo "seed $seed (ZK_TEST_SEED=$seed replays the kill times)"
RANDOM=$seed

pl_pool 3 || exit 1
pl_circuit bn128 6000 6 || { pl_bad circuit; exit 1; }
pl_start_synthd --workers 2
pl_start_gpud --threads 1
jobs=()
for i in 1 2 3; do jobs+=("$(pl_submit 6)"); done

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
    kill -9 "$PL_GPUD"; wait "$PL_GPUD" 2>/dev/null
    kills=$((kills + 1))
    [ "$st" != 0 ] && hits=$((hits + 1))
    echo "kill $kills: gpud $PL_GPUD killed (slots claimed at the kill: $st)"
    pl_start_gpud --threads 1
done
[ "$hits" -ge 1 ] || pl_bad "no kill landed while a slot was claimed"
echo "$kills kills, $hits with a slot claimed, ${#jobs[@]} jobs"

total=0
for j in "${jobs[@]}"; do
    pl_wait "$j" 300 || continue
    n=$(pl_check_job "$j"); total=$((total + n))
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
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
free=$("$ZKSLOT" pool status --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["FREE"])')
[ "$free" = 3 ] || pl_bad "$free of 3 slots free at the end"
pl_pool_clean
exit $PL_FAIL
