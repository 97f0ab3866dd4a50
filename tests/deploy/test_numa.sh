#!/usr/bin/env bash
# test_numa.sh -- zkslot-synthd --numa-node N (what zkslot-synthd@N.service
# runs): the daemon binds itself and says so in a log line starting "numa:";
# with libnuma and node 0 present, every thread's CPU affinity is node 0's
# CPUs; a node that does not exist is reported and not bound; SIGTERM then
# ends it with exit 0.
set -u
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}"
slow=1; [ -n "${ZK_SANITIZE:-}" ] && slow=3
fail=0
bad() { echo "FAIL: $*"; fail=1; }
W=$(mktemp -d /tmp/zk-numa.XXXXXX)
export ZKSLOT_POOL=/dev/shm/zkslot-numa-$$.pool
export ZKSLOT_STATE_DIR=$W/state
export ZKSLOT_CONFIG=$W/empty.conf
: >"$ZKSLOT_CONFIG"
unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID JOURNAL_STREAM
DPID=
cleanup() {
    [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
    wait 2>/dev/null
    "$ZKSLOT" pool destroy --force >/dev/null 2>&1
    rm -f "$ZKSLOT_POOL" "$ZKSLOT_POOL".data
    if [ $fail = 0 ]; then rm -rf "$W"; else echo "(kept $W)"; fi
}
trap cleanup EXIT
have_numa=$(sed -n 's/^ZK_HAVE_NUMA:INTERNAL=//p' "${ZK_BUILD_DIR:-/nonexistent}/CMakeCache.txt" 2>/dev/null)
[ -z "$have_numa" ] && { ldd "$ZKSLOT_SYNTHD" 2>/dev/null | grep -q libnuma && have_numa=ON || have_numa=OFF; }
"$ZKSLOT" pool create --slots 2 --slot-size 2M --tmpfs >/dev/null 2>&1 || { bad "pool create"; exit 1; }

# run NODE: start synthd --numa-node NODE, wait until ready, leave $DPID, $LOG
run() {
    LOG=$W/synthd-$1.log
    "$ZKSLOT_SYNTHD" --numa-node "$1" --workers 2 >"$LOG" 2>&1 &
    DPID=$!
    local i
    for ((i = 0; i < 200 * slow; i++)); do
        grep -q ': ready: ' "$LOG" && return 0
        kill -0 "$DPID" 2>/dev/null || break
        sleep 0.1
    done
    bad "synthd --numa-node $1 did not get ready"; cat "$LOG"; return 1
}
stop() {
    local i rc
    kill -TERM "$DPID"
    for ((i = 0; i < 200 * slow; i++)); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$DPID" 2>/dev/null && { bad "still running after SIGTERM"; kill -9 "$DPID"; }
    wait "$DPID"; rc=$?; DPID=
    [ $rc = 0 ] || { bad "exit status $rc after SIGTERM, expected 0"; cat "$LOG"; }
}

if run 0; then
    line=$(grep -m1 -E '(^|\]: |^<[0-9]>)numa: ' "$LOG" | sed -E 's/^.*(numa: )/\1/')
    echo "synthd --numa-node 0: $line"
    [ -n "$line" ] || bad "no 'numa:' line in the log"
    if [ "$have_numa" = ON ] && [ -r /sys/devices/system/node/node0/cpulist ]; then
        [[ $line == "numa: bound to node 0 ("*"memory from node 0 only)" ]] ||
            bad "expected 'numa: bound to node 0 (...)', got '$line'"
        want=$(cat /sys/devices/system/node/node0/cpulist)
        n=0
        for st in /proc/"$DPID"/task/*/status; do
            got=$(awk '/^Cpus_allowed_list:/ { print $2 }' "$st" 2>/dev/null) || continue
            [ -z "$got" ] && continue
            n=$((n + 1))
            [ "$got" = "$want" ] || bad "thread ${st%/status}: CPUs $got, node 0 has $want"
        done
        [ $n -ge 3 ] || bad "only $n threads seen (main + 2 workers expected)"
        echo "  $n threads on CPUs $want (node 0)"
    fi
    stop
fi

# a node that does not exist: reported, not bound, still runs
if [ "$have_numa" = ON ] && [ ! -e /sys/devices/system/node/node1000 ]; then
    if run 1000; then
        grep -q 'numa: node 1000 does not exist' "$LOG" || { bad "node 1000 not reported as missing"; cat "$LOG"; }
        stop
    fi
fi
[ $fail = 0 ] && echo "numa: ok"
exit $fail
