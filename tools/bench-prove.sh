#!/usr/bin/env bash
# bench-prove.sh -- whole `zkslot prove` commands against rapidsnark's
# `prover` (and against another zkslot, a baseline build) on one BN254 key
# and witness, interleaved in the same run.
#
#   tools/bench-prove.sh [BUILD_DIR] [--rapidsnark PATH] [--baseline ZKSLOT]
#                        [--repeats K] [--threads T] [--circuit NAME]
#                        [--store none|h|all] [--table-factor F] [--generate]
#                        [--no-stages]
#
# The circuit (default g16_bench_sha256: circomlib SHA-256 of 119 bytes,
# domain 2^16; others in tests/interop/circuits: g16_bench_sha256_pub, the
# same with its 256 digest bits public, g16_bench_mimc, 64 x MiMC7 with
# full-width values, 2^15, g16_bench_merkle, a Poseidon Merkle path of
# depth 20, 2^13; chain_N, N chained multiplications of full-width values
# (the scale: chain_250000 is 2^18, chain_1000000 2^20); input
# NAME.input.json beside it where there is one) is
# compiled with the pinned circom2 --O2, its key made by
# `zkslot setup`, its witness by snarkjs, all cached under
# BUILD_DIR/interop-work (ZK_INTEROP_WORK); the setup's wall, CPU and
# peak RSS are printed when it runs.  --generate (implied for chain_N with
# N >= 100000, where circom2 needs many minutes): the chain's .r1cs and
# .wtns are written by tools/gen-chain.py instead (the same bytes), cached
# with the key under ZK_INTEROP_WORK/gen-chain.  Every tool's proof is checked
# with `snarkjs groth16 verify` first.  Then K rounds (default 5): each
# round runs every tool once as a whole command (key and witness read,
# proof written), the order rotated from round to round, so a load that
# changes over time weighs on all of them alike.  Printed per tool: the
# medians of wall and CPU seconds (user + system of the process), then
# each one's ratio to rapidsnark (or, without it, to the baseline) on both.
# zkslot gets --threads T (default 2), rapidsnark OMP_NUM_THREADS=T.
# --store P: the key is resident in a key store beside a private pool
# (`zkslot key load --precompute P --table-factor F`), which every zkslot
# run finds by the key's content hash (docs/keystore.md); the store's
# build is not timed.  Printed too: each tool's peak RSS (the largest of its
# runs, from /usr/bin/time), and `zkslot bench prove`'s per-stage medians
# (--no-stages leaves them out: with --store that command builds the
# tables again in its own process, minutes at 2^20).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
rapid=${RAPIDSNARK:-}
baseline=
repeats=5
threads=2
circuit=g16_bench_sha256
store=
factor=
generate=
stages=1
while [ $# -gt 0 ]; do
    case "$1" in
    --rapidsnark) rapid=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --circuit) circuit=$2; shift 2 ;;
    --store) store=$2; shift 2 ;;
    --table-factor) factor=$2; shift 2 ;;
    --generate) generate=1; shift ;;
    --no-stages) stages=; shift ;;
    -h | --help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench-prove: unknown option $1" >&2; exit 2 ;;
    *) build=$(cd "$1" && pwd); shift ;;
    esac
done
zkslot=$build/zkslot
[ -x "$zkslot" ] || { echo "bench-prove: no $zkslot (build first)" >&2; exit 2; }
[ -z "$rapid" ] || [ -x "$rapid" ] || { echo "bench-prove: $rapid: not an executable" >&2; exit 2; }
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "bench-prove: $baseline: not an executable" >&2; exit 2; }
: "${ZK_INTEROP_WORK:=$build/interop-work}"
export ZK_INTEROP_WORK
export ZK_CIRCOM_OPT=--O2    # circom2's default --O1 keeps the linear constraints
# shellcheck source=../tests/interop/lib.sh
. "$src/tests/interop/lib.sh"
zk_interop_init || { echo "bench-prove: $ZK_INTEROP_SKIP" >&2; exit 2; }

# the circuit's input: circuits/NAME.input.json where there is one, else
# the two 64-bit x of the SHA-256 circuits
input=$ZK_INTEROP_DIR/circuits/$circuit.input.json
case "$circuit" in
chain_[0-9]*)
    input=$ZK_INTEROP_DIR/circuits/chain.input.json
    [ "${circuit#chain_}" -lt 100000 ] || generate=1 ;;
*) [ -z "$generate" ] || { echo "bench-prove: --generate makes only chain_N circuits" >&2; exit 2; } ;;
esac
if [ -n "$generate" ]; then
    # keyed by the generator's and the input's bytes, like zk_compile's dirs
    w=$ZK_INTEROP_WORK/gen-chain/bn128-$(zk__hash "$src/tools/gen-chain.py" "$input")
    d=$w
    mkdir -p "$w"
    if [ ! -f "$w/$circuit.r1cs" ] || [ ! -f "$w/$circuit.wtns" ]; then
        echo "bench-prove: tools/gen-chain.py ${circuit#chain_}" >&2
        python3 "$src/tools/gen-chain.py" "${circuit#chain_}" "$w" --input "$input"
    fi
    key=$w/$circuit.zkey
    wtns=$w/$circuit.wtns
else
    d=$(zk_compile "$circuit" bn128)
    w=$ZK_INTEROP_WORK/bench/bn128
    mkdir -p "$w"
    key=$w/$circuit-O2.zkey
    if [ ! -f "$input" ]; then
        input=$w/input.json
        printf '{"x": ["5", "77"]}\n' >"$input"
    fi
fi
if [ ! -f "$key" ] || [ "$key" -ot "$d/$circuit.r1cs" ]; then
    echo "bench-prove: zkslot setup (insecure test key)" >&2
    /usr/bin/time -f '%e s wall, %U + %S s CPU, %M KiB peak RSS' -o "$key.time" \
        "$zkslot" setup "$d/$circuit.r1cs" "$key.tmp" --curve bn128 >/dev/null 2>&1
    mv "$key.tmp" "$key"
    echo "bench-prove: zkslot setup took $(tail -n 1 "$key.time")" >&2
fi
[ -n "$generate" ] ||
    wtns=$(zk_witness "$d/${circuit}_js/$circuit.wasm" "$input" "$w/$circuit-O2.wtns")
vk=${key%.zkey}.vk.json
[ -f "$vk" ] && [ "$vk" -nt "$key" ] ||
    zk_snarkjs zkey export verificationkey "$key" "$vk" >/dev/null

tmp=$(mktemp -d /tmp/zkslot-bench-prove.XXXXXX)
cleanup() {
    if [ -n "$store" ]; then "$zkslot" pool destroy --force >/dev/null 2>&1 || true; fi
    rm -f "${ZKSLOT_POOL:-/nonexistent}".key-* 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
if [ -n "$store" ]; then
    export ZKSLOT_POOL=/dev/shm/zkslot-bench-prove-$$.pool ZKSLOT_STATE_DIR=$tmp/state
    export ZKSLOT_CONFIG=$tmp/none.conf
    : >"$ZKSLOT_CONFIG"
    "$zkslot" key add bench "$key" >/dev/null
    "$zkslot" key load bench --precompute "$store" ${factor:+--table-factor "$factor"} >&2
fi

# the tools: name and command line (PROOF and PUBLIC stand for its files)
names=(zkslot) cmds=("$zkslot prove $key $wtns PROOF PUBLIC --threads $threads")
if [ -n "$baseline" ]; then
    names+=(baseline) cmds+=("$baseline prove $key $wtns PROOF PUBLIC --threads $threads")
fi
if [ -n "$rapid" ]; then
    names+=(rapidsnark) cmds+=("env OMP_NUM_THREADS=$threads $rapid $key $wtns PROOF PUBLIC")
fi
# correctness first: every tool's proof verifies
for i in "${!names[@]}"; do
    c=${cmds[$i]//PROOF/$tmp/${names[$i]}.json}
    c=${c//PUBLIC/$tmp/${names[$i]}-pub.json}
    $c >/dev/null 2>&1 || { echo "bench-prove: ${names[$i]} failed: $c" >&2; exit 1; }
    zk_snarkjs groth16 verify "$vk" "$tmp/${names[$i]}-pub.json" "$tmp/${names[$i]}.json" |
        grep -q OK || { echo "bench-prove: snarkjs rejects the ${names[$i]} proof" >&2; exit 1; }
done
echo "bench-prove: $circuit, $repeats interleaved rounds, $threads threads, $(nproc) CPUs," \
     "load $(cut -d' ' -f1-3 /proc/loadavg)${store:+, key store with tables '$store'}"
printf '%s\n' "${names[@]}" >"$tmp/names"
printf '%s\n' "${cmds[@]}" >"$tmp/cmds"
python3 - "$tmp" "$repeats" <<'PY'
import os, resource, shlex, statistics, subprocess, sys, time
tmp, repeats = sys.argv[1], int(sys.argv[2])
names = open(f"{tmp}/names").read().split("\n")[:-1]
cmds = open(f"{tmp}/cmds").read().split("\n")[:-1]
wall = {n: [] for n in names}
cpu = {n: [] for n in names}
rss = {n: [] for n in names}
def run(i):
    n = names[i]
    argv = [a.replace("PROOF", f"{tmp}/{n}.json").replace("PUBLIC", f"{tmp}/{n}-pub.json")
            for a in shlex.split(cmds[i])]
    # GNU time forks the tool from its own small image and reports its
    # peak RSS; a child of this Python would inherit Python's as a floor
    argv = ["/usr/bin/time", "-f", "%M", "-o", f"{tmp}/rss", "--"] + argv
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)   # time's and the tool's rusage
    t1 = time.monotonic()
    p.returncode = 0   # reaped by wait4
    if status:
        sys.exit(f"bench-prove: {n} failed: {err.decode()[-300:]}")
    wall[n].append(t1 - t0)
    cpu[n].append(ru.ru_utime + ru.ru_stime)
    rss[n].append(int(open(f"{tmp}/rss").read().split()[-1]) / 1024)   # KiB -> MiB
for r in range(repeats):
    for j in range(len(names)):
        run((r + j) % len(names))
ref = "rapidsnark" if "rapidsnark" in names else ("baseline" if "baseline" in names else None)
med = lambda v: statistics.median(v)
print(f"{'tool':<11} {'wall s':>8} {'cpu s':>8} {'rss MiB':>8}" +
      (f" {'wall/' + ref:>16} {'cpu/' + ref:>15} {'rss/' + ref:>15}" if ref else ""))
for n in names:
    line = f"{n:<11} {med(wall[n]):8.3f} {med(cpu[n]):8.3f} {max(rss[n]):8.1f}"
    if ref:
        line += (f" {med(wall[n]) / med(wall[ref]):16.2f} {med(cpu[n]) / med(cpu[ref]):15.2f}"
                 f" {max(rss[n]) / max(rss[ref]):15.2f}")
    print(line)
print("runs (wall s): " + "; ".join(n + " " + " ".join(f"{x:.3f}" for x in wall[n]) for n in names))
PY
# per stage: the same key and witness proved in one process (key and
# witness loaded once, untimed; medians of the same number of proofs)
[ -z "$stages" ] || "$zkslot" bench prove "$key" "$wtns" --threads "$threads" --repeats "$repeats" \
    ${store:+--precompute "$store"} ${factor:+--table-factor "$factor"} | sed 's/^/stages: /'
