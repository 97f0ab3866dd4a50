#!/usr/bin/env bash
# bench-api.sh -- `zkslot bench api` against a private farm on this
# machine: a tmpfs pool, a synthd, a gpud (CPU backend) and a zkslot-apid
# on a free loopback port, all in a temporary state directory and stopped
# at the end; the key and witness are examples/groth16/bn128's (a tiny
# circuit: the load is on apid and the ledger, not the prover).
#
#   tools/bench-api.sh [BUILD_DIR] [--max-requests N] [--slots N]
#                      [-- BENCH OPTIONS...]
#
# apid gets --max-requests N (default 512: the 200 clients' long polls and
# the status threads fit, past it the documented 429s), the pool N slots
# (default 8).  BENCH OPTIONS go to `zkslot bench api` (--clients,
# --rate, --duration, --json; its defaults: 200 clients, 2000/s, 30 s).
# Exit status: the bench's (0: no error but 429s, nothing lost or
# duplicated, every job done).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
max_requests=512 slots=8
while [ $# -gt 0 ]; do
    case "$1" in
    --max-requests) max_requests=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench-api: unknown option $1" >&2; exit 2 ;;
    *) build=$(cd "$1" && pwd); shift ;;
    esac
done
Z=$build/zkslot
for b in "$Z" "$build/synthd/zkslot-synthd" "$build/gpud/zkslot-gpud" "$build/apid/zkslot-apid"; do
    [ -x "$b" ] || { echo "bench-api: no $b (build first)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/zk-bench-api.XXXXXX)
export ZKSLOT_STATE_DIR=$work/state ZKSLOT_POOL=/dev/shm/zkslot-bench-api-$$.pool
export ZKSLOT_CONFIG=$work/zkslot.conf
: >"$ZKSLOT_CONFIG"
mkdir -p "$ZKSLOT_STATE_DIR"
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    "$Z" pool destroy --force >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
ex=$src/examples/groth16/bn128
"$Z" key add k "$ex/key.zkey" >/dev/null
"$Z" pool create --slots "$slots" --slot-size 4M --tmpfs >/dev/null 2>&1
"$build/synthd/zkslot-synthd" --workers 2 >>"$work/synthd.log" 2>&1 &
pids+=($!)
"$build/gpud/zkslot-gpud" --backend cpu --threads 2 >>"$work/gpud.log" 2>&1 &
pids+=($!)
"$build/apid/zkslot-apid" --listen 127.0.0.1:0 --max-requests "$max_requests" >>"$work/apid.log" 2>&1 &
apid=$!
pids+=("$apid")
url=
for _ in $(seq 100); do
    url=$(sed -n 's|.*serving \(http://127.0.0.1:[0-9]*\).*|\1|p' "$work/apid.log" | head -n 1)
    [ -z "$url" ] || break
    sleep 0.1
done
[ -n "$url" ] || { echo "bench-api: apid did not start: $(tail -n 2 "$work/apid.log")" >&2; exit 2; }
echo "bench-api: $(nproc) CPUs, apid --max-requests $max_requests, pool $slots slots, synthd 2 workers, gpud 2 threads (cpu)" >&2
rc=0
"$Z" bench api --server "$url" --key k --witness "$ex/witness-1.wtns" --pid "$apid" "$@" || rc=$?
exit $rc
