#!/usr/bin/env bash
# bench-urgency.sh -- urgency under backpressure (docs/scheduling.md): how
# long a critical job waits when the pool is full of normal work, against
# the same job on the idle service, and what the interruption costs the
# normal job, measured in the same run.
#
#   tools/bench-urgency.sh [BUILD_DIR] [--repeats K] [--parts N] [--chain C]
#                          [--reserve R] [--fifo] [--pg]
#
# The service: a pool of 3 slots (tmpfs), one synthd worker, one gpud thread
# (CPU backend), [pool] reserve = R (default 1) for high and above; keys from
# Chain(C) (default 30000 constraints, a domain of 2^15) made by `zkslot
# setup`, registered twice (the normal work's key and the critical job's),
# witnesses by snarkjs, cached under BUILD_DIR/interop-work.  Each of K
# rounds (default 3):
#   idle         a 1-partition critical job alone: submit-to-done;
#   alone        an N-partition normal job (default 24) alone: partitions/s;
#   interrupted  the same normal job, and once 3 of its partitions are done
#                (the pool full, synthesis far ahead of the one prover) the
#                critical job: its submit-to-done, the normal job's rate.
# Printed: the medians, critical latency behind the backlog / idle, and the
# normal job's rate interrupted / alone, against the bars (critical at most
# 2 x idle + 1 s; the rate within 5 %).  --fifo gives every job class normal
# and no reserve: the order before classes, for comparison.  --pg: the
# ledger on a private PostgreSQL server (tests/lib/pg.sh) and two machines
# on this host, each with such a pool, worker and prover, claiming at once.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
repeats=3 parts=24 chain=30000 reserve=1 fifo=0 pg=0
while [ $# -gt 0 ]; do
    case "$1" in
    --repeats) repeats=$2; shift 2 ;;
    --parts) parts=$2; shift 2 ;;
    --chain) chain=$2; shift 2 ;;
    --reserve) reserve=$2; shift 2 ;;
    --fifo) fifo=1; shift ;;
    --pg) pg=1; shift ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench-urgency: unknown option $1" >&2; exit 2 ;;
    *) build=$(cd "$1" && pwd); shift ;;
    esac
done
Z=$build/zkslot
for b in "$Z" "$build/synthd/zkslot-synthd" "$build/gpud/zkslot-gpud"; do
    [ -x "$b" ] || { echo "bench-urgency: no $b (build first)" >&2; exit 2; }
done
: "${ZK_INTEROP_WORK:=$build/interop-work}"
export ZK_INTEROP_WORK
# shellcheck source=../tests/interop/lib.sh
. "$src/tests/interop/lib.sh"
zk_interop_init || { echo "bench-urgency: $ZK_INTEROP_SKIP" >&2; exit 2; }

name=chain_$chain
d=$(zk_compile "$name" bn128)
key=$ZK_INTEROP_WORK/urgency-$name.zkey
[ -f "$key" ] || { "$Z" setup "$d/$name.r1cs" "$key.tmp.$$" --curve bn254 >/dev/null && mv "$key.tmp.$$" "$key"; }
W=()
for ((i = 0; i < parts; i++)); do
    in=$ZK_INTEROP_WORK/urgency-in-$i.json w=$ZK_INTEROP_WORK/urgency-$name-$i.wtns
    [ -f "$in" ] || printf '{"x":"%d","y":"%d"}\n' $((i + 2)) $((i + 1000003)) >"$in"
    zk_witness "$d/${name}_js/$name.wasm" "$in" "$w" >/dev/null
    W+=("$w")
done

work=$(mktemp -d /tmp/zkslot-bench-urgency.XXXXXX)
export ZKSLOT_STATE_DIR=$work/state ZKSLOT_POOL=/dev/shm/zkslot-bench-urgency-$$.pool
export ZKSLOT_CONFIG=$work/zkslot.conf
mkdir -p "$ZKSLOT_STATE_DIR"
if [ "$fifo" = 1 ]; then : >"$ZKSLOT_CONFIG"; else
    printf '[pool]\nreserve = %s\nreserve_class = high\n' "$reserve" >"$ZKSLOT_CONFIG"; fi
pids=() pools=("$ZKSLOT_POOL")
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for p in "${pools[@]}"; do ZKSLOT_POOL=$p "$Z" pool destroy --force >/dev/null 2>&1 || true; done
    [ "$pg" = 0 ] || pg_stop
    rm -rf "$work"
}
trap cleanup EXIT
machines=(a)
if [ "$pg" = 1 ]; then
    . "$src/tests/lib/pg.sh"
    pg_start >/dev/null || { echo "bench-urgency: no PostgreSQL server" >&2; exit 2; }
    trap cleanup EXIT
    pg_createdb zk
    export ZKSLOT_LEDGER="host=$PG_DIR user=zkslot dbname=zk"
    machines=(a b)
fi
# machine M: its own pool and state directory (a: the defaults above)
on() {
    local m=$1; shift
    if [ "$m" = a ]; then "$@"; else
        ZKSLOT_POOL=/dev/shm/zkslot-bench-urgency-$$-$m.pool ZKSLOT_STATE_DIR=$work/state-$m "$@"; fi
}
for m in "${machines[@]}"; do
    [ "$m" = a ] || { mkdir -p "$work/state-$m"; pools+=("/dev/shm/zkslot-bench-urgency-$$-$m.pool"); }
    on "$m" "$Z" pool create --slots 3 --slot-size 8M --tmpfs >/dev/null 2>&1
done
"$Z" key add normal "$key" >/dev/null
"$Z" key add urgent "$key" >/dev/null
for m in "${machines[@]}"; do
    on "$m" "$build/synthd/zkslot-synthd" --workers 1 --machine "$m" >>"$work/synthd-$m.log" 2>&1 &
    pids+=($!)
    on "$m" "$build/gpud/zkslot-gpud" --backend cpu --threads 1 --machine "$m" >>"$work/gpud-$m.log" 2>&1 &
    pids+=($!)
done
crit=critical; [ "$fifo" = 1 ] && crit=normal

# job_secs JOB: submit-to-done seconds of a done job
job_secs() {
    "$Z" status "$1" --json | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["state"] == "done", j["state"]; print((j["finished_ns"] - j["submitted_ns"]) / 1e9)'
}
ndone() { "$Z" status "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["done"])'; }
median() { python3 -c 'import statistics,sys; print("%.3f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

j=$("$Z" submit --key normal "${W[0]}"); "$Z" wait "$j" --timeout 300 >/dev/null   # warm-up
idle=() alone=() behind=() inter=()
for ((r = 1; r <= repeats; r++)); do
    j=$("$Z" submit --key urgent --priority "$crit" "${W[0]}"); "$Z" wait "$j" --timeout 300 >/dev/null
    idle+=("$(job_secs "$j")")
    j=$("$Z" submit --key normal --priority normal "${W[@]}"); "$Z" wait "$j" --timeout 900 >/dev/null
    alone+=("$(python3 -c "print($parts / $(job_secs "$j"))")")
    j=$("$Z" submit --key normal --priority normal "${W[@]}")
    until [ "$(ndone "$j")" -ge 3 ]; do sleep 0.05; done
    c=$("$Z" submit --key urgent --priority "$crit" "${W[1]}")
    "$Z" wait "$c" --timeout 900 >/dev/null; "$Z" wait "$j" --timeout 900 >/dev/null
    behind+=("$(job_secs "$c")")
    inter+=("$(python3 -c "print($parts / $(job_secs "$j"))")")
    echo "round $r: critical idle ${idle[-1]} s, behind the backlog ${behind[-1]} s; normal alone ${alone[-1]}/s, interrupted ${inter[-1]}/s"
done
mi=$(median "${idle[@]}") mb=$(median "${behind[@]}") ma=$(median "${alone[@]}") mn=$(median "${inter[@]}")
echo "medians of $repeats: critical job submit-to-done idle $mi s, behind $parts normal partitions $mb s ($(python3 -c "print('%.2f' % ($mb / $mi))")x idle)"
echo "  normal job: alone $ma partitions/s, interrupted $mn/s ($(python3 -c "print('%+.1f' % (100 * ($mn / $ma - 1)))") %)"
python3 - "$mi" "$mb" "$ma" "$mn" <<'PY'
import sys
mi, mb, ma, mn = map(float, sys.argv[1:])
lat = mb <= 2 * mi + 1
thr = abs(mn / ma - 1) <= 0.05
print("  bar: critical <= 2 x idle + 1 s (%.3f s): %s; normal rate within 5 %%: %s"
      % (2 * mi + 1, "met" if lat else "NOT met", "met" if thr else "NOT met"))
PY
