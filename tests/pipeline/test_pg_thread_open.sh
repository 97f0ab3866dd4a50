#!/usr/bin/env bash
# test_pg_thread_open.sh -- PostgreSQL stopped between a daemon's start and
# its threads' own connections (each thread opens its ledger handle once
# the daemon is up): the threads wait for the server, the daemons live on
# and prove the job once it is back.  A gpud whose starter found the server
# shutting down used to stop itself ("starter: ... the database system is
# shutting down"), leaving the partitions synthesized on its machine
# unproved (CI: pipeline_test_farm_walk_pg, 4 of 6 done).  The test hook
# ZKSLOT_TEST_OPEN_DELAY_MS holds every thread 3 s before it connects; the
# server is stopped once both daemons are ready and started again 4 s
# later.  Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init pg_thread_open || exit 77
pl_pg_init

pl_circuit bn128 600 2 || exit 1
pl_pool 2 || exit 1
ZKSLOT_TEST_OPEN_DELAY_MS=3000 pl_start_synthd
ZKSLOT_TEST_OPEN_DELAY_MS=3000 pl_start_gpud --threads 1
pl_wait_log synthd "$PL_SYNTHD" "waits 3000 ms before connecting" 30 || pl_done
pl_wait_log gpud "$PL_GPUD" "waits 3000 ms before connecting" 30 || pl_done
pg_server_stop
pl_log "PostgreSQL stopped before the threads connect"
sleep 4
for p in "$PL_SYNTHD" "$PL_GPUD"; do
    kill -0 "$p" 2>/dev/null || pl_bad "daemon $p stopped while the server was down"
done
pg_server_start
pl_log "PostgreSQL started again"
job=$(pl_submit 2)
pl_wait "$job" 60 && pl_check_job "$job"
# the threads' attempts fell in the outage: the process said so once
grep -q "gpud\[$PL_GPUD\]: .*writable again" "$PL_W/gpud.log" || pl_bad "gpud never waited for the server"
grep -q "synthd\[$PL_SYNTHD\]: .*writable again" "$PL_W/synthd.log" || pl_bad "synthd never waited for the server"
! grep -E "(starter|finisher|worker [0-9]+): " "$PL_W/gpud.log" "$PL_W/synthd.log" ||
    pl_bad "a thread gave up on its connection"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_pool_clean
pl_done
