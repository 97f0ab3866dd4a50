#!/usr/bin/env bash
# bench-fil-urgency.sh -- a WinningPoSt behind a queue of PoRep C2 jobs
# (issue 45's bar: at most 2 x its idle latency + 1 s), through the running
# daemons, with Filecoin's 2 KiB circuits and the test parameters cached in
# /var/cache/zkslot/fil-params (tests/filecoin).
#
#   tools/bench-fil-urgency.sh [BUILD_DIR] [--rounds K] [--queue N]
#
# The service: a private tmpfs pool of N + 2 slots of 512 MiB, one synthd
# (2 workers), one gpud (CPU backend), keys from `zkslot key add --filecoin`
# (WinningPoSt critical, PoRep normal).  Each of K rounds (default 3):
#   idle     a WinningPoSt alone: submit to done (the K idle rounds first);
#   behind   with N PoRep jobs queued (default 3, topped up each round),
#            once one is on the prover and 0-5 s more (random): a
#            WinningPoSt, submit to done.
# Printed: each round, the medians, behind / idle and the bar.  Every
# WinningPoSt proof is checked with filecoin-proofs' verifier.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build/dev
rounds=3 queue=3
while [ $# -gt 0 ]; do
  case "$1" in
  --rounds) rounds=$2; shift 2 ;;
  --queue) queue=$2; shift 2 ;;
  -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "bench-fil-urgency: unknown option $1" >&2; exit 2 ;;
  *) build=$1; shift ;;
  esac
done
zk=$build/zkslot
tgt=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target/release}
fs=$tgt/zkslot-fil-synth
[ -x "$fs" ] || fs=$tgt/release/zkslot-fil-synth
cache=${ZK_FIL_CACHE:-/var/cache/zkslot/fil-params}
[ -x "$zk" ] || { echo "bench-fil-urgency: no $zk (build first)" >&2; exit 2; }
[ -x "$fs" ] || { echo "bench-fil-urgency: no $fs (tools/cargo-build.sh)" >&2; exit 2; }

w=$(mktemp -d /tmp/zk-fil-urgency.XXXXXX)
export ZKSLOT_POOL=/dev/shm/zkslot-bench-fil-urgency-$$.pool
export ZKSLOT_STATE_DIR=$w/state ZKSLOT_CONFIG=$w/zkslot.conf ZKSLOT_FIL_SYNTH=$w/gen/zkslot-fil-synth
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "$zk" pool destroy >/dev/null 2>&1 || rm -f "$ZKSLOT_POOL" "$ZKSLOT_POOL".*
  rm -rf "$w"
}
trap cleanup EXIT
mkdir -p "$w/state" "$w/gen"
install -m 0755 "$fs" "$w/gen/zkslot-fil-synth"
printf '[synthd]\ngenerators = %s\n' "$w/gen" >"$ZKSLOT_CONFIG"
"$fs" params --cache "$cache" --sector-size 2048 --kinds porep,winning >/dev/null
"$fs" sectors --cache "$cache" --out "$w/in" --seed 41 >/dev/null
"$zk" pool create --slots $((queue + 2)) --slot-size 512M --tmpfs >/dev/null 2>&1
"$zk" key add --filecoin "$cache" --synth "$w/gen/zkslot-fil-synth" >/dev/null
"$build/synthd/zkslot-synthd" --workers 2 >>"$w/synthd.log" 2>&1 & pids+=($!)
"$build/gpud/zkslot-gpud" --backend cpu >>"$w/gpud.log" 2>&1 & pids+=($!)

now() { date +%s.%N; }
# winning: submit a WinningPoSt, wait, check its proof; its latency on stdout
winning() {
  local t0 j
  t0=$(now)
  j=$("$zk" submit --filecoin winning "$w/in/winning.json")
  "$zk" wait "$j" --timeout 600 >/dev/null
  awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f\n", b - a }'
  "$zk" result "$j" --out "$w/p.bin" >/dev/null
  "$fs" verify --kind winning --input "$w/in/winning.json" --proof "$w/p.bin" --cache "$cache" \
    >/dev/null || { echo "bench-fil-urgency: job $j's proof rejected" >&2; exit 1; }
}
idle=() behind=()
# idle first (nothing else queued), then behind a queue kept at N PoRep jobs
for ((r = 1; r <= rounds; r++)); do idle+=("$(winning)"); done
longs=()
proving() {   # 0 when one of the queued PoRep jobs has its partition on the prover
  local j
  for j in "${longs[@]}"; do
    "$zk" status "$j" --json 2>/dev/null | grep -q '"state": "proving"' && return 0
  done
  return 1
}
unfinished() {
  local j n=0
  for j in "${longs[@]}"; do
    "$zk" status "$j" --json 2>/dev/null | grep -Eq '"state": "(queued|running)"' && n=$((n + 1))
  done
  echo $n
}
echo "round idle_s behind_s (a queue of $queue PoRep C2 jobs)"
for ((r = 1; r <= rounds; r++)); do
  for ((q = $(unfinished); q < queue; q++)); do
    longs+=("$("$zk" submit --filecoin porep "$w/in/porep-c1.json")")
  done
  for ((k = 0; k < 1200; k++)); do proving && break; sleep 0.1; done
  sleep "$(awk -v s="$SRANDOM" 'BEGIN { printf "%.1f", (s % 50) / 10 }')"   # anywhere in the proof
  behind+=("$(winning)")
  echo "$r ${idle[$((r - 1))]} ${behind[$((r - 1))]}"
done
for j in "${longs[@]}"; do "$zk" cancel "$j" >/dev/null 2>&1 || true; done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mi=$(median "${idle[@]}") mb=$(median "${behind[@]}")
echo "median: idle $mi s, behind $mb s, behind/idle $(awk -v a="$mb" -v b="$mi" 'BEGIN { printf "%.2f", a / b }'), bar 2 x idle + 1 s = $(awk -v a="$mi" 'BEGIN { printf "%.2f", 2 * a + 1 }') s: $(awk -v a="$mb" -v b="$mi" 'BEGIN { print (a <= 2 * b + 1) ? "met" : "NOT met" }')"
echo "nested starts in gpud's log: $(grep -c 'started between the steps' "$w/gpud.log" || true)"
