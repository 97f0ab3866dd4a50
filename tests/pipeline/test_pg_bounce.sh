#!/usr/bin/env bash
# test_pg_bounce.sh -- a short database restart with the daemons up and
# idle (issue 36.3): `pg_ctl -m fast stop; sleep 2; pg_ctl start`, as an
# operator would, then one submit.  The server ends every connection; the
# daemons' next statements find theirs gone.  Checks:
#   - the job submitted after the restart is done, every proof accepted,
#     with no error and no extra attempt charged to any partition (a
#     statement on a connection the server ended is sent again on a new
#     one, not counted as the partition's failure);
#   - while the server is away each daemon logs at most one line saying the
#     ledger is unwritable, and then "writable again" once it is, without
#     waiting for work (its lease renewal is enough);
#   - no worker repeats a warning per poll while the server is away.
# Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init pg_bounce || exit 77
pl_pg_init

pl_circuit bn128 600 3 || exit 1
pl_pool 2 || exit 1
pl_start_synthd --workers 2
pl_start_gpud --threads 1
first=$(pl_submit 1)
pl_wait "$first" 60 || true
# the restart, with the daemons up and idle
pg_server_stop
pl_log "PostgreSQL stopped"
sleep 2
pg_server_start
pl_log "PostgreSQL started again"
# both daemons say it is back on their own (lease renewals), before any work
for d in synthd gpud; do
    pid=$PL_SYNTHD; [ $d = synthd ] || pid=$PL_GPUD
    pl_wait_log $d "$pid" "writable again" 10 || true
done
job=$(pl_submit 3)
pl_wait "$job" 60 && pl_check_job "$job"
charged=$(pg_psql zk "SELECT coalesce(sum(errors), -1) || ' ' || coalesce(max(attempts), -1)
                      FROM partitions WHERE job_id = $job")
[ "$charged" = "0 1" ] || pl_bad "the restart was charged to the job's partitions (errors, max attempts: $charged)"
for d in synthd gpud; do
    n=$(grep -c "ledger unwritable" "$PL_W/$d.log" || true)
    [ "$n" -le 1 ] || pl_bad "$d said 'ledger unwritable' $n times"
    w=$(grep -c "WARN\|warning\|terminating connection" "$PL_W/$d.log" || true)
    [ "$w" -le 2 ] || pl_bad "$d logged $w warnings about the restart: $(grep -m 3 "WARN\|warning\|terminating" "$PL_W/$d.log")"
done
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_done
