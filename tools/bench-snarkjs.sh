#!/usr/bin/env bash
# bench-snarkjs.sh -- one Groth16 proof by `zkslot prove` against
# `snarkjs groth16 prove` (and rapidsnark's `prover` when RAPIDSNARK names
# it) on the same key and witness, in the same run.
#
#   tools/bench-snarkjs.sh [BUILD_DIR] [--curves "bn128 bls12381"]
#                          [--repeats K] [--threads T] [--circuit NAME]
#
# The circuit is tests/interop/circuits/g16_bench_chain.circom (265 circomlib
# Poseidon hashes, domain 2^16), compiled with the pinned circom2 --O2; the key
# comes from `zkslot setup` (snarkjs accepts such keys; a snarkjs ceremony
# of 2^16 takes many minutes here) and the witness from snarkjs.  Each tool
# runs K times (default 3) as a whole command, file reading and writing
# included; the medians of the wall times and their ratio are printed.  Both
# proofs are checked with `snarkjs groth16 verify` before timing.  zkslot and
# rapidsnark are given T threads (default: all CPUs); snarkjs uses its own
# worker threads, one per CPU.  Files are cached under
# BUILD_DIR/interop-work (ZK_INTEROP_WORK).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
curves="bn128 bls12381"
repeats=3
threads=$(nproc)
circuit=g16_bench_chain
while [ $# -gt 0 ]; do
    case "$1" in
    --curves) curves=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --circuit) circuit=$2; shift 2 ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench-snarkjs: unknown option $1" >&2; exit 2 ;;
    *) build=$(cd "$1" && pwd); shift ;;
    esac
done
zkslot=$build/zkslot
[ -x "$zkslot" ] || { echo "bench-snarkjs: no $zkslot (build first)" >&2; exit 2; }
: "${ZK_INTEROP_WORK:=$build/interop-work}"
export ZK_INTEROP_WORK
export ZK_CIRCOM_OPT=--O2    # circom2's default --O1 keeps the linear constraints: 2^18
# shellcheck source=../tests/interop/lib.sh
. "$src/tests/interop/lib.sh"
zk_interop_init || { echo "bench-snarkjs: $ZK_INTEROP_SKIP" >&2; exit 2; }

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# wall seconds of one run of a command (its output discarded unless it fails)
wall() {
    local t0 t1 out
    t0=$(date +%s.%N)
    if ! out=$("$@" 2>&1); then
        echo "bench-snarkjs: failed: $*" >&2
        printf '%s\n' "$out" | tail -5 >&2
        return 1
    fi
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}
times() { local i; for ((i = 0; i < repeats; i++)); do wall "$@"; done | median; }

echo "bench-snarkjs: $repeats runs per tool, medians of wall time; zkslot with $threads threads; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %8s %10s %10s %10s %9s %9s\n' curve domain snarkjs zkslot rapidsnark "x snarkjs" "x rapid"
for curve in $curves; do
    d=$(zk_compile "$circuit" "$curve")
    w=$ZK_INTEROP_WORK/bench/$curve
    mkdir -p "$w"
    key=$w/$circuit-O2.zkey
    if [ ! -f "$key" ] || [ "$key" -ot "$d/$circuit.r1cs" ]; then
        echo "bench-snarkjs: $curve: zkslot setup (insecure test key)" >&2
        "$zkslot" setup "$d/$circuit.r1cs" "$key.tmp" --curve "$curve" >/dev/null 2>&1
        mv "$key.tmp" "$key"
    fi
    printf '{"x": ["5", "77"]}\n' >"$w/input.json"
    wtns=$(zk_witness "$d/${circuit}_js/$circuit.wasm" "$w/input.json" "$w/$circuit-O2.wtns")
    [ -f "$w/vk.json" ] && [ "$w/vk.json" -nt "$key" ] ||
        zk_snarkjs zkey export verificationkey "$key" "$w/vk.json" >/dev/null
    # correctness first: both proofs verify
    "$zkslot" prove "$key" "$wtns" "$w/z.json" "$w/zpub.json" --threads "$threads"
    zk_snarkjs groth16 prove "$key" "$wtns" "$w/s.json" "$w/spub.json"
    for p in z s; do
        pub=$w/${p}pub.json
        zk_snarkjs groth16 verify "$w/vk.json" "$pub" "$w/$p.json" | grep -q 'OK' ||
            { echo "bench-snarkjs: $curve: snarkjs rejects the $p proof" >&2; exit 1; }
    done
    power=$(zk_r1cs_domain_power "$d/$circuit.r1cs")
    ts=$(times node "$ZK_INTEROP_NM/snarkjs/cli.js" groth16 prove "$key" "$wtns" "$w/s.json" "$w/spub.json")
    tz=$(times "$zkslot" prove "$key" "$wtns" "$w/z.json" "$w/zpub.json" --threads "$threads")
    tr=- xr=-
    if [ -n "${RAPIDSNARK:-}" ] && [ "$curve" = bn128 ]; then
        tr=$(times env OMP_NUM_THREADS="$threads" "$RAPIDSNARK" "$key" "$wtns" "$w/r.json" "$w/rpub.json")
        xr=$(awk -v a="$tr" -v b="$tz" 'BEGIN { printf "%.2f", a / b }')
        tr=$(printf '%.3f' "$tr")
    fi
    printf '%-9s %8s %10.3f %10.3f %10s %9.2f %9s\n' "$curve" "2^$power" "$ts" "$tz" "$tr" \
        "$(awk -v a="$ts" -v b="$tz" 'BEGIN { print a / b }')" "$xr"
done
