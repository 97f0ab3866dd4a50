#!/usr/bin/env bash
# test_lease_pg.sh -- two machines share one queue on PostgreSQL, and one
# that stops loses its partitions to the other ([ledger] lease = 3 s).
# Machines a and b on this host: separate pools, state directories and
# machine names, one PostgreSQL server (tests/lib/pg.sh).  Machine a
# proves alone until it holds partitions (a proof written but not yet
# recorded: ZKSLOT_TEST_RECORD_HOLD_MS, others ready in its slots); then
# its daemons are SIGSTOPped and b starts.  b expires a's lease, takes
# its partitions and finishes the job.  After SIGCONT, a logs that it lost
# its lease, drops the slots it held (its pool ends clean), and its late
# proof is a counted duplicate, never a second done: every partition done
# once, every proof accepted by snarkjs.  Skips without PostgreSQL.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init lease_pg || exit 77
pl_pg_init
printf '[ledger]\nlease = 3\n' >"$ZKSLOT_CONFIG"

pl_circuit bn128 600 6 || exit 1
pl_pool 2 || exit 1
pl_start_synthd --machine a
SA=$PL_SYNTHD
ZKSLOT_TEST_RECORD_HOLD_MS=2500 pl_start_gpud --machine a --threads 1
GA=$PL_GPUD
job=$("$ZKSLOT" submit --key "$PL_KEYNAME" --out "$PL_W/out" "${PL_WTNS[@]}")
pl_expect "$job" "${PL_WTNS[@]}"
pl_wait_log gpud "$GA" "proof written, not yet recorded" 60
kill -STOP "$SA" "$GA"
held=$(pg_psql zk "SELECT count(*) FROM partitions WHERE machine = 'a' AND state IN
                   ('synthesizing', 'ready', 'proving')")
[ "$held" -ge 1 ] || pl_bad "machine a held no partition when stopped"
pl_log "machine a stopped holding $held partition(s)"

pl_pg_machine b 2
pl_pg_on b pl_start_synthd --machine b
SB=$PL_SYNTHD
pl_pg_on b pl_start_gpud --machine b --threads 1
GB=$PL_GPUD
pl_wait "$job" 120 || true
a_done=$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $job AND machine = 'a'")
[ "$a_done" = 0 ] || pl_bad "$a_done partition(s) recorded by stopped machine a"
grep -qE "(synthd|gpud)\[($SB|$GB)\]: re-queued [1-9][0-9]* partition\(s\) of machine\(s\) whose lease expired" \
    "$PL_W/synthd.log" "$PL_W/gpud.log" || pl_bad "machine b never expired a's lease"

kill -CONT "$SA" "$GA"
pl_wait_log gpud "$GA" "machine a lost its lease" 20
pl_wait_log synthd "$SA" "machine a lost its lease" 20
sleep 2   # a's held proof recorded, its stale slots dropped
pl_check_job "$job"
read -r ndone nproofs < <(pg_psql zk "SELECT count(*) FILTER (WHERE state = 'done'),
                                         sum(proofs) FROM partitions WHERE job_id = $job" | tr '|' ' ')
[ "$ndone" = 6 ] || pl_bad "$ndone of 6 partitions done"
[ "$nproofs" -ge 6 ] || pl_bad "$nproofs proofs for 6 partitions"
[ "$(pg_psql zk "SELECT state FROM jobs WHERE id = $job")" = done ] || pl_bad "job $job not done"
pl_log "6 partitions done once, $((nproofs - 6)) late proof(s) of machine a counted as duplicates"
pl_pool_clean
pl_pg_on b pl_pool_clean
for p in "$GA" "$SA" "$GB" "$SB"; do
    pl_stop "$p"; [ "$PL_RC" = 0 ] || pl_bad "daemon $p exit $PL_RC after SIGTERM"
done
pl_done
