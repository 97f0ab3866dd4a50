#!/usr/bin/env bash
# test_top_farm_pg.sh -- `zkslot top` and `zkslot metrics` show the whole
# farm on PostgreSQL (issue 36.6): machines a and b (each its own pool,
# synthd and gpud) share the ledger.  Checks:
#   - on a client (machine "client", no pool): top --once lists the four
#     daemons, each "on a" or "on b" with its machine's lease ok;
#     metrics has zkslot_daemon_up{machine=...,role=...,instance=...} 1
#     for each; with --local, top says none started here;
#   - on machine a: a's daemons by pid, "up" (its pool), b's "on b";
#   - b stopped (SIGSTOP, its lease runs out): b's daemons shown with the
#     lease expired, 0 in metrics, a's still up.
# Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init top_farm_pg || exit 77
pl_pg_init
printf '[ledger]\nlease = 2\n' >"$ZKSLOT_CONFIG"

pl_circuit bn128 600 1 || exit 1
pl_pool 2 || exit 1
pl_start_synthd --machine a
SA=$PL_SYNTHD
pl_start_gpud --machine a --threads 1
GA=$PL_GPUD
pl_pg_machine b 2
pl_pg_on b pl_start_synthd --machine b
SB=$PL_SYNTHD
pl_pg_on b pl_start_gpud --machine b --threads 1
GB=$PL_GPUD
for p in "$SA" "$GA"; do pl_wait_log "$([ "$p" = "$SA" ] && echo synthd || echo gpud)" "$p" "ready:" 30; done
for p in "$SB" "$GB"; do pl_wait_log "$([ "$p" = "$SB" ] && echo synthd || echo gpud)" "$p" "ready:" 30; done

client() { ZKSLOT_MACHINE=client ZKSLOT_POOL=/nonexistent/pool "$ZKSLOT" "$@"; }
client top --once >"$PL_W/top.client" 2>&1 || pl_bad "top on the client: $(cat "$PL_W/top.client")"
for d in synthd gpud; do
    for m in a b; do
        grep -q "$d@[^ ]* on $m lease ok" "$PL_W/top.client" ||
            pl_bad "top on the client: no '$d@... on $m lease ok': $(grep daemons "$PL_W/top.client")"
        client metrics >"$PL_W/metrics.client" 2>&1 || pl_bad "metrics on the client"
        grep -q "^zkslot_daemon_up{machine=\"$m\",role=\"$d\",instance=\"[^\"]*\"} 1$" "$PL_W/metrics.client" ||
            pl_bad "metrics on the client: $d of $m not up: $(grep daemon_up "$PL_W/metrics.client")"
    done
done
client top --once --local >"$PL_W/top.local" 2>&1 || pl_bad "top --local on the client"
grep -q "^daemons none started yet" "$PL_W/top.local" ||
    pl_bad "top --local on the client: $(grep daemons "$PL_W/top.local")"
# on machine a: its own by pid, b's by lease
ZKSLOT_MACHINE=a "$ZKSLOT" top --once >"$PL_W/top.a" 2>&1 || pl_bad "top on a"
grep -q "synthd@[^ ]* pid $SA up" "$PL_W/top.a" && grep -q "gpud@0 pid $GA up" "$PL_W/top.a" &&
    grep -q "synthd@[^ ]* on b lease ok" "$PL_W/top.a" ||
    pl_bad "top on a: $(grep daemons "$PL_W/top.a")"
# b stops: its lease runs out
kill -STOP "$SB" "$GB"
sleep 3.5
ZKSLOT_MACHINE=a "$ZKSLOT" top --once >"$PL_W/top.a2" 2>&1 || pl_bad "top on a"
grep -q "gpud@0 on b LEASE EXPIRED" "$PL_W/top.a2" && grep -q "gpud@0 pid $GA up" "$PL_W/top.a2" ||
    pl_bad "top on a with b stopped: $(grep daemons "$PL_W/top.a2")"
client metrics >"$PL_W/metrics.client2" 2>&1 || pl_bad "metrics on the client"
grep -q '^zkslot_daemon_up{machine="b",role="gpud",instance="0"} 0$' "$PL_W/metrics.client2" ||
    pl_bad "metrics with b stopped: $(grep daemon_up "$PL_W/metrics.client2")"
kill -CONT "$SB" "$GB"
for p in "$GA" "$SA" "$GB" "$SB"; do
    pl_stop "$p"; [ "$PL_RC" = 0 ] || pl_bad "daemon $p exit $PL_RC after SIGTERM"
done
pl_done
