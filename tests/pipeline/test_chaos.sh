#!/usr/bin/env bash
# test_chaos.sh -- random kill -9 of both daemons while they work, as a new
# user would run them: the daemons start on an empty ledger, the keys (one
# BN254, one BLS12-381) are registered with `zkslot key add` after that, and
# jobs of both keys are submitted while the kills go on.
#
#   - ZK_CHAOS_KILLS kills (default 40), 0.2-1.5 s apart (random), each of
#     synthd or of gpud (random, at least a quarter of each); every killed
#     daemon is restarted at once;
#   - before each kill both daemons must still run: one that exited by
#     itself (any status: a crash, an ASan report, an exit) fails the test;
#   - jobs of 24 partitions (each key's 6 witnesses, 4 times); whenever
#     no job is left running, another is submitted (curves in turn), so that
#     the kills land on daemons at work;
#   - at the end every partition is done, every proof is accepted by
#     snarkjs and by `zkslot verify` and proves its own witness
#     (pl_check_job), both daemons stop with status 0 on SIGTERM, `pool
#     check` is clean, and no process of the test's daemons is left.
# Classes mixed (docs/scheduling.md): [pool] reserve = 1 for high and above,
# every job of a random class; before each kill no slot of the reserve holds
# a partition published below high, whichever daemon was killed last.
# Fills are held 1.2 s (ZKSLOT_TEST_FILL_DELAY_MS) so that a kill of synthd
# often lands mid-fill and the work of a few jobs spans the kills; proofs are
# small (Chain(600)).  Randomness from $SRANDOM (bash's getrandom).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init chaos || exit 77

kills=${ZK_CHAOS_KILLS:-40}
pl_pool 4 || exit 1
printf '[pool]\nreserve = 1\nreserve_class = high\n' >"$ZKSLOT_CONFIG"
start_synthd() { ZKSLOT_TEST_FILL_DELAY_MS=1200 pl_start_synthd --workers 2; }
start_gpud() { pl_start_gpud --threads 1; }
start_synthd
start_gpud

# keys registered after the daemons started
declare -A KEY VK WTNS
for c in bn128 bls12381; do
    pl_circuit "$c" 600 6 || { pl_bad "circuit $c"; exit 1; }
    KEY[$c]=$PL_KEYNAME VK[$c]=$PL_VK WTNS[$c]="${PL_WTNS[*]}"
done
echo "keys registered after the daemons started: ${KEY[bn128]} ${KEY[bls12381]}"

jobs=() jobcurve=() curves=(bn128 bls12381) next=0
submit_one() {
    local c=${curves[$((next % 2))]} j
    next=$((next + 1))
    PL_KEYNAME=${KEY[$c]}
    # shellcheck disable=SC2206
    PL_WTNS=(${WTNS[$c]} ${WTNS[$c]} ${WTNS[$c]} ${WTNS[$c]})
    local classes=(low normal high critical)
    PL_SUBMIT_ARGS=(--priority "${classes[$((SRANDOM % 4))]}")
    j=$(pl_submit) || { pl_bad "submit ($c)"; return 1; }
    PL_SUBMIT_ARGS=()
    jobs+=("$j") jobcurve+=("$c")
}
reserve_ok() {   # no READY/CLAIMED slot of the reserve holds work below high
    "$ZKSLOT" pool status --json | python3 -c '
import json, sys
bad = [s for s in json.load(sys.stdin)["slot_table"]
       if s["reserved"] and s["class"] in ("low", "normal")]
assert not bad, bad' || pl_bad "the reserve holds low work: $("$ZKSLOT" pool status | tail -n 6)"
}
reserve_checks=0
running() {   # running: how many submitted jobs are not finished
    local j n=0
    for j in "${jobs[@]}"; do
        "$ZKSLOT" status "$j" --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin); j = s.get("job") or s
sys.exit(0 if j["state"] in ("queued", "running") else 1)' && n=$((n + 1))
    done
    echo "$n"
}
# alive ROLE PID: 0 while PID runs; else its exit status is a failure
alive() {
    kill -0 "$2" 2>/dev/null && return 0
    local rc=0
    wait "$2" 2>/dev/null || rc=$?
    pl_bad "$1 (pid $2) exited by itself, status $rc: $(grep "$1\[$2\]" "$PL_W/$1.log" | tail -n 2 | tr '\n' ' ')"
    return 1
}

submit_one
submit_one
n_synthd=0 n_gpud=0
for ((k = 1; k <= kills; k++)); do
    ms=$((200 + SRANDOM % 1301))          # 0.2-1.5 s
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
    alive synthd "$PL_SYNTHD" || start_synthd
    alive gpud "$PL_GPUD" || start_gpud
    reserve_ok; reserve_checks=$((reserve_checks + 1))
    [ "$(running)" -gt 0 ] || submit_one
    if [ $((SRANDOM % 2)) = 0 ]; then
        kill -9 "$PL_SYNTHD"; wait "$PL_SYNTHD" 2>/dev/null || true
        n_synthd=$((n_synthd + 1))
        start_synthd
    else
        kill -9 "$PL_GPUD"; wait "$PL_GPUD" 2>/dev/null || true
        n_gpud=$((n_gpud + 1))
        start_gpud
    fi
done
echo "$kills kills: synthd $n_synthd, gpud $n_gpud; ${#jobs[@]} jobs submitted"
[ "$n_synthd" -ge $((kills / 4)) ] && [ "$n_gpud" -ge $((kills / 4)) ] ||
    pl_bad "kills not spread over both daemons: synthd $n_synthd, gpud $n_gpud"

for i in "${!jobs[@]}"; do
    j=${jobs[$i]}
    PL_VK=${VK[${jobcurve[$i]}]}
    pl_wait "$j" 180 && pl_check_job "$j" 24 && echo "job $j (${jobcurve[$i]}): $PL_NPROOFS proofs accepted"
done
alive synthd "$PL_SYNTHD" || true
alive gpud "$PL_GPUD" || true
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_pool_clean || true
# no process of this test's daemons is left (a witness generator, a stray
# daemon): any process whose environment names this test's pool and whose
# program is a daemon
left=$(for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}; p=${p%/environ}
    [ "$p" != $$ ] || continue
    tr '\0' '\n' <"$e" 2>/dev/null | grep -x "ZKSLOT_POOL=$ZKSLOT_POOL" >/dev/null || continue
    x=$(readlink "/proc/$p/exe" 2>/dev/null) || continue
    case $x in "$ZKSLOT_SYNTHD" | "$ZKSLOT_GPUD") echo "$p" ;; esac
done)
[ -z "$left" ] || pl_bad "processes left after the stop: $left"
pl_done
