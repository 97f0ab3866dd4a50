#!/usr/bin/env bash
# test_pg_recover_start.sh -- PostgreSQL gone between a daemon's ledger
# connection and its recovery pass at start: the daemons wait for the
# server as they do at the connection, live on, and prove a job once it is
# back.  A gpud whose start recovery lost its connection on a lossy link
# ("recovery: ... server closed the connection unexpectedly") used to exit
# 1 (CI: pipeline_test_farm_faults_pg, machine c's gpud behind the relay).
# The test hook ZKSLOT_TEST_RECOVER_DELAY_MS holds each start 3 s before
# its pass; the server is stopped meanwhile and started again 4 s later.
# A third daemon, stopped while it waits, exits 0.  Then a fourth, a
# gpud whose key list at start goes unanswered (the hook
# ZKSLOT_TEST_PRELOAD_DELAY_MS, the server stopped meanwhile), starts
# without a preload and proves the next job alone.  Skips without
# PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init pg_recover_start || exit 77
pl_pg_init

pl_circuit bn128 600 2 || exit 1
pl_pool 2 || exit 1
ZKSLOT_TEST_RECOVER_DELAY_MS=3000 pl_start_synthd
ZKSLOT_TEST_RECOVER_DELAY_MS=3000 pl_start_gpud --threads 1
# the third daemon: a second gpud (instance 1), stopped while it waits
gpud2_log=$PL_W/gpud2.log
ZKSLOT_TEST_RECOVER_DELAY_MS=3000 "$ZKSLOT_GPUD" --backend cpu --threads 1 --device 1 \
    >"$gpud2_log" 2>&1 &
g2=$!
pl_wait_log synthd "$PL_SYNTHD" "recovery at start waits 3000 ms" 30 || pl_done
pl_wait_log gpud "$PL_GPUD" "recovery at start waits 3000 ms" 30 || pl_done
pg_server_stop
pl_log "PostgreSQL stopped before the recovery pass"
pl_wait_log gpud "$PL_GPUD" "recovery at start: .*waiting for the ledger" 30 || pl_done
pl_wait_log synthd "$PL_SYNTHD" "recovery at start: .*waiting for the ledger" 30 || pl_done
sleep 2
for p in "$PL_SYNTHD" "$PL_GPUD"; do
    kill -0 "$p" 2>/dev/null || pl_bad "daemon $p exited while the server was down"
done
# a stop while the start waits: exit 0, said
for ((i = 0; i < 300; i++)); do
    grep -q "recovery at start: .*waiting for the ledger" "$gpud2_log" && break
    sleep 0.1
done
kill -TERM "$g2"
rc=0; wait "$g2" || rc=$?
[ "$rc" = 0 ] || pl_bad "a gpud stopped while its start waited exited $rc: $(tail -n 2 "$gpud2_log")"
grep -q "stopped while waiting for the ledger" "$gpud2_log" ||
    pl_bad "the stopped gpud did not say it stopped while waiting: $(tail -n 2 "$gpud2_log")"
pg_server_start
pl_log "PostgreSQL started again"
pl_wait_log gpud "$PL_GPUD" "recovery done after" 30 || pl_done
pl_wait_log synthd "$PL_SYNTHD" "recovery done after" 30 || pl_done
job=$(pl_submit 2)
pl_wait "$job" 60 && pl_check_job "$job"

# the key list at gpud's start unanswered (the server stopped after the
# recovery pass): gpud starts with none preloaded and loads each key at
# its first partition; it used to exit 1 ("listing keys: ...", machine c
# of pipeline_test_farm_faults_pg behind its lossy relay)
gpud3_log=$PL_W/gpud3.log
ZKSLOT_TEST_PRELOAD_DELAY_MS=3000 "$ZKSLOT_GPUD" --backend cpu --threads 1 --device 2 \
    >"$gpud3_log" 2>&1 &
g3=$!
for ((i = 0; i < 300; i++)); do
    grep -q "the key list is read in 3000 ms" "$gpud3_log" && break
    sleep 0.1
done
pg_server_stop
pl_log "PostgreSQL stopped before gpud reads its key list"
for ((i = 0; i < 300; i++)); do
    grep -q "none preloaded" "$gpud3_log" && break
    sleep 0.1
done
grep -q "listing keys: .*none preloaded, each loaded at its first partition" "$gpud3_log" ||
    pl_bad "gpud did not go on without its key list: $(tail -n 2 "$gpud3_log")"
pg_server_start
pl_log "PostgreSQL started again"
kill -0 "$g3" 2>/dev/null || pl_bad "gpud exited without its key list: $(tail -n 2 "$gpud3_log")"
# it proves: the first gpud stopped, this one alone takes the next job
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
job=$(pl_submit 2)
pl_wait "$job" 60 && pl_check_job "$job"
grep -q "key .*: ready in" "$gpud3_log" ||
    pl_bad "the gpud without a preload did not load the key at its first partition"
kill -TERM "$g3"
rc=0; wait "$g3" || rc=$?
[ "$rc" = 0 ] || pl_bad "the gpud without a preload exited $rc after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_pool_clean
pl_done
