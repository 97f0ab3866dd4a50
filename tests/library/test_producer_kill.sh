#!/usr/bin/env bash
# test_producer_kill.sh -- a producer (examples/external-synth on the
# installed libzkslot) killed with kill -9 while it holds a slot FILLING:
# the running gpud's pool waits reap the slot (FREE: the pool knows the
# producer by pid and start time, as it knows a synthd), its recovery pass
# puts the partition back to queued, and a producer started again on the
# same job (--job) writes it and the rest: 4 proofs snarkjs accepts, the
# killed partition on its second attempt, nothing lost, `zkslot pool check`
# clean.  The kill lands mid-write: the example holds each written slot
# (--hold-ms) and says so, and the slot is seen FILLING with its partition
# synthesizing before the kill.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/library/lib_install.sh"
pl_init producer_kill || exit 77
lib_install || exit 1

lib_example_key bn128 || exit 1
pl_pool 2 1M
pl_start_gpud

pstate() { "$ZKSLOT" pool status --json | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
lstate() {   # the job's partitions as "state:attempts" words, by index
    "$ZKSLOT" status "$job" --json | python3 -c '
import json, sys
s = json.load(sys.stdin); parts = s.get("partitions") or s["job"]["partitions"]
print(" ".join("%s:%d" % (p["state"], p["attempts"]) for p in parts))'
}

"$LIB_EXAMPLE" --hold-ms 60000 "$PL_KEYNAME" "${PL_WTNS[@]}" >"$PL_W/first.out" 2>"$PL_W/first.log" &
prod=$!
for _ in $(seq 300); do grep -q 'holding$' "$PL_W/first.log" && break; sleep 0.1; done
grep -q 'holding$' "$PL_W/first.log" || { pl_bad "the producer never held a slot: $(cat "$PL_W/first.log")"; exit 1; }
job=$(sed -n 's/^external-synth: job \([0-9]*\),.*/\1/p' "$PL_W/first.log")
held="synthesizing:1 queued:0 queued:0 queued:0"
[ "$(pstate FILLING)" = 1 ] && [ "$(lstate)" = "$held" ] ||
    { pl_bad "not mid-write: FILLING $(pstate FILLING), partitions $(lstate)"; exit 1; }
kill -9 "$prod"; wait "$prod" 2>/dev/null || true
echo "producer killed mid-write (slot FILLING, partition 0 synthesizing)"

back="queued:1 queued:0 queued:0 queued:0"
for _ in $(seq 300); do [ "$(pstate FREE)" = 2 ] && [ "$(lstate)" = "$back" ] && break; sleep 0.1; done
[ "$(pstate FREE)" = 2 ] || pl_bad "the killed producer's slot was not reaped: $(pstate FILLING) FILLING"
[ "$(lstate)" = "$back" ] || pl_bad "the killed producer's partition was not re-queued: $(lstate)"

"$LIB_EXAMPLE" --job "$job" "$PL_KEYNAME" "${PL_WTNS[@]}" >"$PL_W/again.out" 2>"$PL_W/again.log" ||
    { pl_bad "external-synth --job: $(tail -n 3 "$PL_W/again.log")"; exit 1; }
[ "$(tail -n 1 "$PL_W/again.out")" = "$job" ] || pl_bad "the restarted producer printed another job"
pl_expect "$job" "${PL_WTNS[@]}"
pl_wait "$job" 60 && pl_check_job "$job" 4 && echo "ok: $PL_NPROOFS proofs accepted after the kill"
[ "$(lstate)" = "done:2 done:1 done:1 done:1" ] || pl_bad "attempts after the kill: $(lstate)"
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
"$ZKSLOT" pool check >"$PL_W/check.out" 2>&1 || pl_bad "pool check: $(cat "$PL_W/check.out")"
pl_pool_clean
pl_done
