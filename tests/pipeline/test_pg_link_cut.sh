#!/usr/bin/env bash
# test_pg_link_cut.sh -- issue 47: the TCP path to PostgreSQL goes dead
# (a relay between the daemons and the server stops reading and forwarding,
# tcp_relay.py: nothing comes back, nothing is refused), the daemons notice
# it, say so and carry on when it heals, and a stop during a cut is acted
# on at once.  [ledger] lease = 3 s.  One synthd and one gpud reach the
# server through the relay; the test itself through the server's socket.
#   1. a job proved through the relay;
#   2. the path cut: both daemons log `ledger unwritable` within 10 s (the
#      old code waited in libpq for the kernel: tens of seconds);
#   3. a job submitted during the cut; the path healed: both log `writable
#      again` and synthd claims the job within 5 s; the job is proved;
#   4. the path cut again: SIGTERM to synthd and SIGINT to gpud, each sent
#      while its threads wait on the dead link: each exits 0 within 3 s.
# The times measured are printed.  Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init pg_link_cut || exit 77
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export PGPORT=$PORT   # the server's socket and TCP port; psql and the URLs use it
PL_PG_OPTS="-c listen_addresses=127.0.0.1 -c port=$PORT"
RELAY=
pl_pg_init '[ -z "$RELAY" ] || kill "$RELAY" 2>/dev/null'
printf '[ledger]\nlease = 3\n' >"$ZKSLOT_CONFIG"

python3 "$ZK_SOURCE_DIR/tests/pipeline/tcp_relay.py" "$PORT" "$PL_W/relay.port" &
RELAY=$!
for ((i = 0; i < 100; i++)); do [ -s "$PL_W/relay.port" ] && break; sleep 0.1; done
[ -s "$PL_W/relay.port" ] || { pl_bad "the relay did not start"; pl_done; }
NET="host=127.0.0.1 port=$(cat "$PL_W/relay.port") user=zkslot dbname=zk"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# n_lines DAEMON PID REGEX: how many of DAEMON's log lines of PID match
n_lines() { grep -cE "$1\[$2\]: .*$3" "$PL_W/$1.log" 2>/dev/null || true; }
# wait_lines DAEMON PID REGEX N SECONDS: 0 once N lines match, else 1
wait_lines() {
    local i
    for ((i = 0; i < $5 * 20; i++)); do
        [ "$(n_lines "$1" "$2" "$3")" -ge "$4" ] && return 0
        sleep 0.05
    done
    return 1
}
# said_within REGEX N SECONDS T0 WHEN: both daemons have logged REGEX N
# times within SECONDS of T0 (the time of WHEN), each time printed
said_within() {
    local d name pid
    for d in "synthd $PL_SYNTHD" "gpud $PL_GPUD"; do
        read -r name pid <<<"$d"
        if wait_lines "$name" "$pid" "$1" "$2" "$3"; then
            pl_log "$name: '$1' $(since "$4") s after $5"
        else
            pl_bad "$name did not log '$1' ($2 times) within $3 s of $5"
        fi
    done
}

pl_circuit bn128 600 4 || exit 1
pl_pool 2 || exit 1
ZKSLOT_LEDGER=$NET pl_start_synthd
ZKSLOT_LEDGER=$NET pl_start_gpud --threads 1
job=$(pl_submit 2)
pl_wait "$job" 120 && pl_check_job "$job"
pl_log "job $job proved through the relay"

# 2. the cut
kill -USR1 "$RELAY"
t_cut=$(now)
pl_log "path to the server cut"
said_within "ledger unwritable" 1 10 "$t_cut" "the cut"
job2=$(pl_submit 2)   # through the server's socket: the client's path is fine
sleep 3

# 3. the heal
kill -USR2 "$RELAY"
t_heal=$(now)
pl_log "path healed"
for ((i = 0; i < 100; i++)); do
    [ "$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $job2 AND state <> 'queued'")" = 0 ] || break
    sleep 0.05
done
claimed=$(since "$t_heal")
[ "$i" -lt 100 ] || pl_bad "no partition of job $job2 claimed within 5 s of the heal"
pl_log "job $job2 claimed $claimed s after the heal"
said_within "writable again" 1 5 "$t_heal" "the heal"
pl_wait "$job2" 120 && pl_check_job "$job2"

# 4. cut again, then stop the daemons while they wait on the dead link
kill -USR1 "$RELAY"
pl_log "path cut again"
t_cut=$(now)
said_within "ledger unwritable" 2 10 "$t_cut" "the second cut"
sleep 1.5   # threads are in their next waits on the server
t_stop=$(now)
kill -TERM "$PL_SYNTHD"
kill -INT "$PL_GPUD"
pl_wait_pid "$PL_SYNTHD" 3 && pl_log "synthd exited $(since "$t_stop") s after SIGTERM, status $PL_RC"
[ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM during the cut"
pl_wait_pid "$PL_GPUD" 3 && pl_log "gpud exited $(since "$t_stop") s after SIGINT, status $PL_RC"
[ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGINT during the cut"
kill -USR2 "$RELAY"
# a hand-back exits at once and leaves its attach entry to the reaper
"$ZKSLOT" pool reap >"$PL_W/reap.out" 2>&1 || pl_bad "pool reap: $(cat "$PL_W/reap.out")"
pl_pool_clean
pl_done
