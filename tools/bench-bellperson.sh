#!/usr/bin/env bash
# bench-bellperson.sh -- zkslot's CPU prover of bellperson keys against
# bellperson's own CPU prover, side by side in one run, on the same circuit,
# key and assignment, proving only (synthesis excluded on both sides):
#   bellperson: create_proof, its own logged "prover time" (after its
#               synthesis, to the proof), in a process that holds the key
#   zkslot:     zkslot bp bench (the key decoded once, then zk_bp_prove)
# The two alternate, RUNS times each (default 5); each side's median, the
# ratio zkslot/bellperson, and each process's peak RSS (VmHWM) are printed.
#
#   tools/bench-bellperson.sh [BUILD_DIR] [LOG2] [RUNS] [CIRCUIT]
#
# BUILD_DIR holds the zkslot binary (default build/release); LOG2 the
# circuit's domain (default 20; the key is made once by bellperson's
# generator into ZK_BP_CACHE, default /var/cache/zkslot/bp-params:
# minutes at 2^20).  CIRCUIT: chain (default) or gadgets.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
log2=${2:-20}
runs=${3:-5}
circuit=${4:-chain}
zkslot=$build/zkslot
oracle=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target}/release/zkslot-bp-oracle
cache=${ZK_BP_CACHE:-/var/cache/zkslot/bp-params}
[ -x "$zkslot" ] || { echo "bench-bellperson: no $zkslot (build it first)" >&2; exit 2; }
[ -x "$oracle" ] || { echo "bench-bellperson: no $oracle (tools/cargo-build.sh)" >&2; exit 2; }
mkdir -p "$cache"
p=$cache/$circuit-$log2-seed7.params
if [ ! -s "$p" ] || [ ! -s "${p%.params}.vk" ]; then
  echo "making $p with bellperson's generator (once)..." >&2
  tmp=$cache/$circuit-$log2-seed7.tmp$$.params
  "$oracle" params --circuit "$circuit" --log2 "$log2" --seed 7 --out "$tmp"
  mv "${tmp%.params}.vk" "${p%.params}.vk"
  mv "$tmp" "$p"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$oracle" assign --circuit "$circuit" --log2 "$log2" --witness 1 --out "$work/a.bpa"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "circuit: $circuit 2^$log2, key $p ($(stat -c %s "$p") bytes)"
bell=() zk=() bell_rss=0 zk_rss=0
for i in $(seq 1 "$runs"); do
  out=$(RUST_LOG=bellperson=info "$oracle" bench --circuit "$circuit" --log2 "$log2" --witness 1 \
        --params "$p" --runs 1 2>&1)
  t=$(printf '%s\n' "$out" | sed -n 's/.*prover time: \([0-9.]*\)\(m\?s\).*/\1 \2/p' | tail -n 1)
  [ -n "$t" ] || { echo "bench-bellperson: no 'prover time' in bellperson's log:" >&2; echo "$out" >&2; exit 2; }
  case $t in *" ms") t=$(python3 -c "print(${t% ms} / 1000)");; *) t=${t% s};; esac
  r=$(printf '%s\n' "$out" | sed -n 's/.*peak rss \([0-9]*\) KiB.*/\1/p')
  bell+=("$t"); [ "$r" -gt "$bell_rss" ] && bell_rss=$r
  out=$("$zkslot" bp bench "$p" "$work/a.bpa" --runs 1)
  t=$(printf '%s\n' "$out" | sed -n 's/^run 0: prove \([0-9.]*\) s/\1/p')
  r=$(printf '%s\n' "$out" | sed -n 's/.*peak rss \([0-9]*\) KiB.*/\1/p')
  zk+=("$t"); [ "$r" -gt "$zk_rss" ] && zk_rss=$r
  echo "run $i: bellperson ${bell[-1]} s, zkslot ${zk[-1]} s"
done
python3 - "$bell_rss" "$zk_rss" "${bell[*]}" "${zk[*]}" <<'PY'
import statistics, sys
b = [float(x) for x in sys.argv[3].split()]
z = [float(x) for x in sys.argv[4].split()]
mb, mz = statistics.median(b), statistics.median(z)
print("median prove: bellperson %.3f s, zkslot %.3f s: ratio %.2f" % (mb, mz, mz / mb))
print("peak RSS: bellperson %d MiB, zkslot %d MiB: ratio %.2f" %
      (int(sys.argv[1]) // 1024, int(sys.argv[2]) // 1024, int(sys.argv[2]) / int(sys.argv[1])))
PY
