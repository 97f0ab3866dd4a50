#!/usr/bin/env bash
# test_pg_restart.sh -- PostgreSQL stopped for 10 s mid-run, then started
# again: the daemons keep what they hold, retry, say so once, and carry on
# when the server is back; nothing is lost and no partition is done twice.
# One synthd and one gpud (each proof held 300 ms before it is recorded, so
# that the job spans the outage) prove a job of 6 partitions; the server
# is stopped (pg_ctl -m fast: every connection cut) once the first
# partition is done.  Every proof accepted by snarkjs, each partition done
# with exactly one proof; `zkslot status` meanwhile says in one line that
# the ledger is unreachable and exits 4.  Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init pg_restart || exit 77
pl_pg_init

pl_circuit bn128 600 6 || exit 1
pl_pool 2 || exit 1
pl_start_synthd
ZKSLOT_TEST_RECORD_HOLD_MS=300 pl_start_gpud --threads 1
job=$(pl_submit 6)
for ((i = 0; i < 600; i++)); do
    [ "$(pg_psql zk "SELECT count(*) FROM partitions WHERE state = 'done'")" = 0 ] || break
    sleep 0.1
done
pg_server_stop
pl_log "PostgreSQL stopped"
sleep 10
rc=0
"$ZKSLOT" status "$job" >"$PL_W/down.out" 2>&1 || rc=$?
[ "$rc" = 4 ] || pl_bad "zkslot status without the server: exit $rc, not 4 (unreachable)"
grep -q "the ledger's database is unreachable: .*$PG_DIR" "$PL_W/down.out" ||
    pl_bad "zkslot status did not say the ledger is unreachable: $(cat "$PL_W/down.out")"
[ "$(wc -l <"$PL_W/down.out")" = 1 ] || pl_bad "zkslot status said more than one line"
pg_server_start
pl_log "PostgreSQL started again"
pl_wait "$job" 120 && pl_check_job "$job"
n=$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $job AND state = 'done' AND proofs = 1")
[ "$n" = 6 ] || pl_bad "$n of 6 partitions done with exactly one proof"
grep -q "gpud\[$PL_GPUD\]: .*ledger unwritable" "$PL_W/gpud.log" ||
    pl_bad "gpud never said the ledger was unwritable"
grep -q "gpud\[$PL_GPUD\]: .*writable again" "$PL_W/gpud.log" ||
    pl_bad "gpud never said the ledger was back"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_pool_clean
pl_done
