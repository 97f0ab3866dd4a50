#!/usr/bin/env bash
# test_notify.sh -- the sd_notify protocol of zkslot-synthd and zkslot-gpud,
# with a stand-in for systemd: a datagram socket of this test's own
# ($NOTIFY_SOCKET, served by python3) that records every line it receives.
# Each daemon runs on a private pool and state directory and must send
#   READY=1   only once it can work: never when its pool is missing (control),
#             after the pool is attached (it is in the pool's attach table),
#             for gpud after its keys are loaded (EXTEND_TIMEOUT_USEC= and
#             STATUS=loading key lines first, READY with "1 key(s) loaded");
#   STATUS=   lines with the slot counts (sent when they change: at least
#             one after READY, never the same line twice in a row);
#   WATCHDOG=1 pings with WATCHDOG_USEC=2000000 and WATCHDOG_PID = its pid,
#             none when WATCHDOG_PID names another process (control);
#   STOPPING=1 after SIGTERM, then exit 0;
#   while draining (after SIGTERM, twice in a row, or after the pool was
#             destroyed under it), STOPPING=1, then WATCHDOG=1 and
#             STATUS=stopping lines until the work in hand is done; SIGHUP
#             neither stops it nor sends STOPPING=1.
# Skips (77) when the daemons were built without libsystemd.
set -u
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_SOURCE_DIR:?}"
have=$(sed -n 's/^ZK_HAVE_SYSTEMD:INTERNAL=//p' "${ZK_BUILD_DIR:-/nonexistent}/CMakeCache.txt" 2>/dev/null)
if [ -z "$have" ]; then   # no cache entry: look at the binary
    ldd "$ZKSLOT_SYNTHD" 2>/dev/null | grep -q libsystemd && have=ON || have=OFF
fi
case $have in ON | 1 | TRUE | YES) ;; *) echo "SKIP: daemons built without libsystemd"; exit 77 ;; esac
command -v python3 >/dev/null || { echo "SKIP: no python3 for the stand-in socket"; exit 77; }

slow=1; [ -n "${ZK_SANITIZE:-}" ] && slow=3
fail=0
bad() { echo "FAIL: $*"; fail=1; }
W=$(mktemp -d /tmp/zk-notify.XXXXXX)
export ZKSLOT_POOL=/dev/shm/zkslot-notify-$$.pool
export ZKSLOT_STATE_DIR=$W/state
export ZKSLOT_CONFIG=$W/empty.conf
: >"$ZKSLOT_CONFIG"
SRV=
DPID=
cleanup() {
    [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
    [ -n "$SRV" ] && kill "$SRV" 2>/dev/null
    wait 2>/dev/null
    "$ZKSLOT" pool destroy --force >/dev/null 2>&1
    rm -f "$ZKSLOT_POOL" "$ZKSLOT_POOL".data
    if [ $fail = 0 ]; then rm -rf "$W"; else echo "(kept $W)"; fi
}
trap cleanup EXIT

# the stand-in: one line per notify line, "SEQ TIME LINE" (SEQ = datagram)
start_server() {   # start_server NAME -> $SOCK, $NLOG
    SOCK=$W/$1.sock NLOG=$W/$1.notify
    rm -f "$SOCK" "$NLOG"
    python3 -u -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
out = open(sys.argv[2], "a", buffering=1)
out.write("0 %.3f LISTENING\n" % time.monotonic())
seq = 0
while True:
    data = s.recv(65536)
    seq += 1
    t = time.monotonic()
    for line in data.decode("utf-8", "replace").split("\n"):
        if line:
            out.write("%d %.3f %s\n" % (seq, t, line))
' "$SOCK" "$NLOG" &
    SRV=$!
    for _ in $(seq 100); do grep -q LISTENING "$NLOG" 2>/dev/null && return 0; sleep 0.05; done
    bad "the stand-in socket did not start"; return 1
}
stop_server() { kill "$SRV" 2>/dev/null; wait "$SRV" 2>/dev/null; SRV=; }

# start_daemon BIN LOG WDPID ARGS...: in a subshell that execs the daemon, so
# its pid is known before it runs ($BASHPID); WDPID "self" = that pid.
start_daemon() {
    local bin=$1 log=$2 wd=$3; shift 3
    (
        export NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=2000000
        if [ "$wd" = self ]; then export WATCHDOG_PID=$BASHPID; else export WATCHDOG_PID=$wd; fi
        exec "$bin" "$@"
    ) >"$log" 2>&1 &
    DPID=$!
}

wait_for() {   # wait_for PATTERN SECONDS: a notify line matching PATTERN
    local i n=$(($2 * 10))
    for ((i = 0; i < n; i++)); do
        grep -qE "^[0-9]+ [0-9.]+ ($1)\$" "$NLOG" && return 0
        kill -0 "$DPID" 2>/dev/null || { grep -qE "^[0-9]+ [0-9.]+ ($1)\$" "$NLOG"; return; }
        sleep 0.1
    done
    return 1
}
count() { grep -cE "^[0-9]+ [0-9.]+ ($1)\$" "$NLOG"; }
seq_of() { awk -v p="^($1)\$" '{ l = $0; sub(/^[0-9]+ [0-9.]+ /, "", l) } l ~ p { print $1; exit }' "$NLOG"; }

stop_daemon() {   # stop_daemon NAME: SIGTERM, exit 0, STOPPING=1 after READY=1
    local name=$1 i rc
    local before; before=$(awk 'END { print $1 }' "$NLOG")
    kill -TERM "$DPID"
    for ((i = 0; i < 200 * slow; i++)); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$DPID" 2>/dev/null; then
        bad "$name: still running $((20 * slow)) s after SIGTERM"; kill -9 "$DPID"
    fi
    wait "$DPID"; rc=$?
    DPID=
    [ $rc = 0 ] || bad "$name: exit status $rc after SIGTERM, expected 0"
    local st; st=$(seq_of 'STOPPING=1')
    if [ -z "$st" ]; then bad "$name: no STOPPING=1 after SIGTERM"
    elif [ "$st" -le "$before" ]; then bad "$name: STOPPING=1 came before SIGTERM"
    fi
}

# check_running NAME READY-PATTERN: READY=1, the pool lists the daemon,
# STATUS= lines, WATCHDOG=1 pings
check_running() {
    local name=$1 ready=$2
    if ! wait_for 'READY=1' $((30 * slow)); then
        bad "$name: no READY=1"; cat "$W/$name.log"; return 1
    fi
    # ready means attached: the pool's attach table holds the daemon
    "$ZKSLOT" pool status --json >"$W/status.json" 2>&1
    python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
sys.exit(0 if any(p["pid"] == int(sys.argv[2]) and p["alive"] for p in o["attached"]) else 1)
' "$W/status.json" "$DPID" || bad "$name: READY=1 sent but the daemon is not attached to the pool"
    local rs; rs=$(seq_of 'READY=1')
    awk -v s="$rs" '$1 == s' "$NLOG" | grep -qE "$ready" ||
        bad "$name: the READY=1 datagram lacks '$ready': $(awk -v s="$rs" '$1 == s' "$NLOG")"
    # let it run: STATUS on its first tick (then on changes), WATCHDOG every
    # second while healthy
    local t0=$SECONDS
    while [ $((SECONDS - t0)) -lt $((4 * slow)) ]; do
        [ "$(count 'WATCHDOG=1')" -ge 3 ] && [ "$(count 'STATUS=slots .*')" -ge 1 ] && break
        sleep 0.2
    done
    [ "$(count 'STATUS=slots free [0-9]+ filling [0-9]+ ready [0-9]+ claimed [0-9]+;.*')" -ge 1 ] ||
        bad "$name: no STATUS=slots free N filling N ready N claimed N; ... line"
    local dup; dup=$(sed -E 's/^[0-9]+ [0-9.]+ //' "$NLOG" | grep '^STATUS=' | uniq -d | head -1)
    [ -z "$dup" ] || bad "$name: the same STATUS sent twice in a row: $dup"
    [ "$(count 'WATCHDOG=1')" -ge 2 ] || bad "$name: fewer than 2 WATCHDOG=1 pings ($(count 'WATCHDOG=1'))"
    local w1; w1=$(seq_of 'WATCHDOG=1')
    [ -n "$w1" ] && [ "$w1" -lt "$rs" ] && bad "$name: WATCHDOG=1 before READY=1"
    return 0
}

"$ZKSLOT" pool create --slots 2 --slot-size 2M --tmpfs >/dev/null 2>&1 || { bad "pool create"; exit 1; }

# ---- synthd ------------------------------------------------------------------------
start_server synthd || exit 1
start_daemon "$ZKSLOT_SYNTHD" "$W/synthd.log" self --workers 1
if check_running synthd 'STATUS=synthesizing with 1 worker'; then
    stop_daemon synthd
fi
[ "$(count 'READY=1')" = 1 ] || bad "synthd: READY=1 sent $(count 'READY=1') times"
stop_server
echo "synthd: $(count 'STATUS=.*') STATUS, $(count 'WATCHDOG=1') WATCHDOG, READY and STOPPING in order"

# control: WATCHDOG_PID of another process -> the watchdog is not ours, no pings
start_server synthd-otherpid || exit 1
start_daemon "$ZKSLOT_SYNTHD" "$W/synthd-otherpid.log" 1 --workers 1
if wait_for 'READY=1' $((30 * slow)); then
    sleep $((3 * slow))
    [ "$(count 'WATCHDOG=1')" = 0 ] || bad "synthd: WATCHDOG=1 sent though WATCHDOG_PID is another process"
    [ "$(count 'STATUS=slots .*')" -ge 1 ] || bad "synthd (other WATCHDOG_PID): no STATUS lines"
    stop_daemon synthd-otherpid
else
    bad "synthd (other WATCHDOG_PID): no READY=1"; cat "$W/synthd-otherpid.log"
fi
stop_server

# ---- gpud: a key to load first -----------------------------------------------------------
"$ZKSLOT" key add notifykey "$ZK_SOURCE_DIR/examples/groth16/bn128/key.zkey" >"$W/key.log" 2>&1 ||
    { bad "zkslot key add"; cat "$W/key.log"; }
start_server gpud || exit 1
start_daemon "$ZKSLOT_GPUD" "$W/gpud.log" self --backend cpu --threads 1
if check_running gpud 'STATUS=proving with 1 key\(s\) loaded'; then
    rs=$(seq_of 'READY=1')
    ext=$(seq_of 'EXTEND_TIMEOUT_USEC=[0-9]+')
    ld=$(seq_of 'STATUS=loading key notifykey: .*')
    if [ -z "$ext" ] || [ -z "$ld" ]; then
        bad "gpud: no EXTEND_TIMEOUT_USEC= / STATUS=loading key lines while loading"
    elif [ "$ext" -ge "$rs" ] || [ "$ld" -ge "$rs" ]; then
        bad "gpud: key loading reported after READY=1"
    fi
    stop_daemon gpud
fi
[ "$(count 'READY=1')" = 1 ] || bad "gpud: READY=1 sent $(count 'READY=1') times"
echo "gpud: $(count 'EXTEND_TIMEOUT_USEC=.*') EXTEND_TIMEOUT_USEC and $(count 'STATUS=loading.*') loading lines before READY, $(count 'STATUS=slots.*') STATUS, $(count 'WATCHDOG=1') WATCHDOG"
stop_server

# ---- draining: STOPPING=1, then WATCHDOG=1 until the work in hand is done ---------------
# Each daemon holds its partition (synthd: the fill, gpud: a written proof
# not yet recorded, by their test hooks) while it is stopped: it must say STOPPING=1 and keep
# pinging the watchdog (test_systemd.sh shows why under a real systemd),
# also for a stop of its own (the pool
# destroyed under it).  SIGHUP must not stop it; one SIGTERM delivered twice
# (GNU timeout signals the child and then its process group) must not turn
# the finish into a hand-back.
hold=$((4000 * slow))
pstate() {   # pstate JOB: the state of its partition 0
    "$ZKSLOT" status "$1" --json 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["partitions"][0]["state"])' 2>/dev/null
}
wait_state() {   # wait_state JOB STATE SECONDS
    local i
    for ((i = 0; i < $3 * 10; i++)); do [ "$(pstate "$1")" = "$2" ] && return 0; sleep 0.1; done
    return 1
}
after() { awk -v s="$1" -v p="^($2)\$" '{ l = $0; sub(/^[0-9]+ [0-9.]+ /, "", l) } $1 > s && l ~ p' "$NLOG" | wc -l; }
# drain_check NAME RC: exit status RC, STOPPING=1, >= 2 WATCHDOG=1 and a
# STATUS=stopping line after it
drain_check() {
    local name=$1 want=$2 rc i f0=$fail
    for ((i = 0; i < 300 * slow; i++)); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$DPID" 2>/dev/null && { bad "$name: still running 30 s into its drain"; kill -9 "$DPID"; }
    wait "$DPID"; rc=$?; DPID=
    [ $rc = "$want" ] || bad "$name: exit status $rc, expected $want"
    local st; st=$(seq_of 'STOPPING=1')
    if [ -z "$st" ]; then bad "$name: no STOPPING=1 while draining"; return; fi
    local nw; nw=$(after "$st" 'WATCHDOG=1')
    [ "$nw" -ge 2 ] || bad "$name: $nw WATCHDOG=1 after STOPPING=1 during a ${hold} ms drain, expected >= 2"
    [ "$(after "$st" 'STATUS=stopping: .*')" -ge 1 ] || bad "$name: no STATUS=stopping line while draining"
    [ $fail = "$f0" ] && echo "$name: drained with $nw WATCHDOG=1 after STOPPING=1"
}
w1=$ZK_SOURCE_DIR/examples/groth16/bn128/witness-1.wtns
j1=$("$ZKSLOT" submit --key notifykey "$w1" 2>"$W/submit.err") || bad "submit: $(cat "$W/submit.err")"

# synthd: SIGHUP while it fills (ignored), then SIGTERM twice
start_server synthd-drain || exit 1
ZKSLOT_TEST_FILL_DELAY_MS=$hold start_daemon "$ZKSLOT_SYNTHD" "$W/synthd-drain.log" self --workers 1
if wait_for 'READY=1' $((30 * slow)) && wait_state "$j1" synthesizing $((10 * slow)); then
    kill -HUP "$DPID"; sleep 1
    if kill -0 "$DPID" 2>/dev/null; then
        grep -q 'SIGHUP: ignored' "$W/synthd-drain.log" || bad "synthd: SIGHUP not logged as ignored"
        [ -z "$(seq_of 'STOPPING=1')" ] || bad "synthd: STOPPING=1 after SIGHUP"
    else
        bad "synthd: SIGHUP stopped it"
    fi
    kill -TERM "$DPID"; sleep 0.05; kill -TERM "$DPID"
    drain_check synthd 0
    [ "$(pstate "$j1")" = ready ] ||
        bad "synthd: after a double SIGTERM the partition is $(pstate "$j1"), expected ready (finished, not handed back)"
    grep -q 'handing the partitions in hand back' "$W/synthd-drain.log" && bad "synthd: a repeated SIGTERM handed the work back"
else
    bad "synthd (drain): no READY=1 or the partition was never synthesizing"; cat "$W/synthd-drain.log"
    kill -9 "$DPID"; wait "$DPID"; DPID=
fi
stop_server

# gpud: SIGTERM twice while it holds a proof; the proof is written
start_server gpud-drain || exit 1
ZKSLOT_TEST_RECORD_HOLD_MS=$hold start_daemon "$ZKSLOT_GPUD" "$W/gpud-drain.log" self --backend cpu --threads 1
if wait_for 'READY=1' $((30 * slow)) && wait_state "$j1" proving $((10 * slow)); then
    sleep 0.5
    kill -TERM "$DPID"; sleep 0.05; kill -TERM "$DPID"
    drain_check gpud 0
    [ "$(pstate "$j1")" = done ] || bad "gpud: after a double SIGTERM the partition is $(pstate "$j1"), expected done"
else
    bad "gpud (drain): no READY=1 or the partition was never proving"; cat "$W/gpud-drain.log"
    kill -9 "$DPID"; wait "$DPID"; DPID=
fi
stop_server

# gpud stops by itself: the pool destroyed while it holds a proof -> exit 75
j2=$("$ZKSLOT" submit --key notifykey "$w1" 2>"$W/submit.err") || bad "submit: $(cat "$W/submit.err")"
"$ZKSLOT_SYNTHD" --workers 1 >"$W/synthd-fill.log" 2>&1 &
fpid=$!
wait_state "$j2" ready $((20 * slow)) || bad "synthd did not make job $j2 ready"
kill -TERM "$fpid"; wait "$fpid"
start_server gpud-poolgone || exit 1
ZKSLOT_TEST_RECORD_HOLD_MS=$hold start_daemon "$ZKSLOT_GPUD" "$W/gpud-poolgone.log" self --backend cpu --threads 1
if wait_for 'READY=1' $((30 * slow)) && wait_state "$j2" proving $((10 * slow)); then
    "$ZKSLOT" pool destroy --force >/dev/null 2>&1
    drain_check gpud-poolgone 75
    grep -q 'destroyed or replaced' "$W/gpud-poolgone.log" || bad "gpud: the lost pool not logged"
else
    bad "gpud (pool gone): no READY=1 or the partition was never proving"; cat "$W/gpud-poolgone.log"
    kill -9 "$DPID"; wait "$DPID"; DPID=
fi
stop_server

# ---- control: no pool, no READY=1 -------------------------------------------------------
"$ZKSLOT" pool destroy >/dev/null 2>&1
for d in synthd gpud; do
    bin=$ZKSLOT_SYNTHD; [ $d = gpud ] && bin=$ZKSLOT_GPUD
    start_server "$d-nopool" || exit 1
    start_daemon "$bin" "$W/$d-nopool.log" self
    for ((i = 0; i < 100 * slow; i++)); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$DPID" 2>/dev/null; then
        bad "$d without a pool: still running"; kill -9 "$DPID"
    fi
    wait "$DPID"; rc=$?; DPID=
    [ $rc != 0 ] || bad "$d without a pool: exit 0"
    [ "$(count 'READY=1')" = 0 ] || bad "$d without a pool: sent READY=1"
    stop_server
done

[ $fail = 0 ] && echo "notify: ok"
exit $fail
