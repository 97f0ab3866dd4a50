#!/usr/bin/env bash
# test_pg_start_down.sh -- the daemons started while the ledger's
# PostgreSQL server is down (a farm's machines rebooting with their
# database): they wait for it instead of exiting (which, every 2 s under
# systemd's Restart=, ran into the units' start limit of 10 in 10 min and
# left the machine's units failed), say so once in the log and in STATUS=
# (with EXTEND_TIMEOUT_USEC, so the start does not time out either), and
# prove a job once the server is up.  A synthd sent SIGTERM while it waits
# exits 0 at once.  Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init pg_start_down || exit 77
SRV=
pl_pg_init '[ -z "$SRV" ] || kill "$SRV" 2>/dev/null'
pl_circuit bn128 600 2 || exit 1
pl_pool 2 || exit 1

have_notify=1
pl_notify_listen "$PL_W/notify.sock" "$PL_W/notify.log" ||
    { have_notify=0; pl_log "built without libsystemd: STATUS= is not checked"; }
SRV=$PL_NOTIFY

pg_server_stop
pl_log "PostgreSQL stopped before the daemons start"
NOTIFY_SOCKET=$PL_W/notify.sock pl_start_synthd
pl_start_gpud --threads 1
pl_wait_log synthd "$PL_SYNTHD" "ledger unreachable at start: .*waiting for it" 20 || pl_done
pl_wait_log gpud "$PL_GPUD" "ledger unreachable at start: .*waiting for it" 20 || pl_done
if [ $have_notify = 1 ]; then
    for _ in $(seq 50); do grep -q '^STATUS=waiting for the ledger' "$PL_W/notify.log" && break; sleep 0.1; done
    grep -q "^STATUS=waiting for the ledger's database for [0-9]* s: " "$PL_W/notify.log" ||
        pl_bad "synthd's STATUS did not say it waits for the ledger: $(tail -n 2 "$PL_W/notify.log")"
    grep -q '^EXTEND_TIMEOUT_USEC=[0-9]' "$PL_W/notify.log" ||
        pl_bad "synthd did not extend its start timeout while waiting"
fi

# a third daemon asked to stop while it waits
"$ZKSLOT_SYNTHD" >>"$PL_W/synthd.log" 2>&1 &
extra=$!
pl_wait_log synthd "$extra" "waiting for it" 20 || pl_done
kill -TERM "$extra"
pl_wait_pid "$extra" 5 && { [ "$PL_RC" = 0 ] || pl_bad "a synthd stopped while waiting exited $PL_RC, not 0"; }

sleep 3
for p in "$PL_SYNTHD" "$PL_GPUD"; do
    kill -0 "$p" 2>/dev/null || pl_bad "daemon $p exited while the server was down"
done
[ "$(grep -c "synthd\[$PL_SYNTHD\]: .*ledger unreachable at start" "$PL_W/synthd.log")" = 1 ] ||
    pl_bad "synthd said more than once that the ledger is unreachable"

pg_server_start
pl_log "PostgreSQL started"
pl_wait_log synthd "$PL_SYNTHD" "ledger reachable after" 20 || true
pl_wait_log gpud "$PL_GPUD" "ledger reachable after" 20 || true
job=$(pl_submit 2)
pl_wait "$job" 60 && pl_check_job "$job"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_pool_clean
pl_done
