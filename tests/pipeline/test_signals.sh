#!/usr/bin/env bash
# test_signals.sh -- clean stops lose nothing: SIGTERM to gpud and SIGINT to
# synthd while a job is in flight -> both exit 0 after finishing what they
# hold; a second SIGTERM hands in-flight work back at once; restarted
# daemons finish the job, every proof accepted.
set -u
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
j=$("$ZKSLOT" submit --key "$PL_KEYNAME" "${PL_WTNS[@]}" "${PL_WTNS[@]}")   # 12 partitions
count() { "$ZKSLOT" status "$j" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); p=s.get("partitions") or s["job"]["partitions"]; print(sum(x["state"]==sys.argv[1] for x in p))' "$1"; }
done_count() { count done; }
for _ in $(seq 300); do [ "$(done_count)" -ge 1 ] && break; sleep 0.1; done
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
grep -q "finishing the partitions in hand" "$PL_W/gpud.log" || pl_bad "gpud did not log the stop"
kill -INT "$PL_SYNTHD"; wait "$PL_SYNTHD"; rc=$?
[ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGINT"
n1=$(done_count)
[ "$(count proving)" = 0 ] || pl_bad "a clean stop left partitions proving"
[ "$n1" -lt 12 ] || pl_bad "the job finished before the stop: the test stopped nothing in flight"
echo "stopped cleanly with $n1 of 12 done"
# a double SIGTERM: work handed back, exit at once (fills held again, so
# that work is still in flight)
ZKSLOT_TEST_FILL_DELAY_MS=$hold pl_start_synthd --workers 1
pl_start_gpud --threads 1
for _ in $(seq 300); do [ "$(done_count)" -gt "$n1" ] && break; sleep 0.1; done
kill -TERM "$PL_GPUD"; sleep 0.05; kill -TERM "$PL_GPUD"; wait "$PL_GPUD"; rc=$?
[ "$rc" = 0 ] || pl_bad "gpud exit $rc after two SIGTERMs"
[ "$(count proving)" = 0 ] || pl_bad "a double SIGTERM left partitions proving"
n2=$(done_count)
[ "$n2" -lt 12 ] || pl_bad "the job finished before the double SIGTERM: nothing was in flight"
echo "double SIGTERM: $n2 of 12 done, the rest handed back"
# the rest at full speed: a synthd without the hold
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
pl_start_synthd --workers 1
pl_start_gpud --threads 1
pl_wait "$j" 300 && n=$(pl_check_job "$j") && echo "ok: $n proofs accepted after clean restarts"
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc"
pl_pool_clean
exit $PL_FAIL
