#!/usr/bin/env bash
# gpu-bundle-run.sh -- the GPU bundle's run.sh (tools/gpu-bundle.sh copies it
# there): everything a first GPU run measures, on a machine with the NVIDIA
# driver and nothing else of zkslot's (its libraries are in lib/):
#   run.sh BUDGET_S OUTDIR
# Steps, in this order, each under `timeout` (its own cap, and never past
# the total budget: a step that would start with under 10 s left is
# skipped), logs in OUTDIR/logs/STEP.log:
#   1. facts: nvidia-smi -q, the GPU's clocks, the CPU, the bundle's build;
#   2. test_cuda: every kernel against its CPU twin, prove_start (device 0);
#   3. pipeline: a pool, zkslot-synthd and zkslot-gpud --backend cuda, a job
#      of 4 witnesses per curve, every proof checked with `zkslot verify`;
#      proofs, publics and vks kept in OUTDIR/pipeline/ for snarkjs later
#      (tools/gpu-bundle.sh --check-results OUTDIR, on the build machine);
#   3b. bellperson's keys: the CUDA backend's proof for fixed r and s is the
#      CPU's and bellperson's own (carried in data/bellperson), and verifies;
#   4. benchmarks, device time, BLS12-381 first: Fr NTT 2^20, 2^22, 2^24, G1
#      MSM 2^20, 2^22, 2^24, G2 MSM 2^20, then BN254 the same; 3 repeats;
#   5. the clocks again, results.json and results.txt (with the CPU
#      baselines measured on the build machine, cpu-baseline.tsv, where the
#      bundle has them).
# In an emulated bundle (EMULATED beside this script: the cuemu build, for
# the dry run in CI) no nvidia-smi is needed and the sizes are small.
# Exit 0 when every step that ran passed and none was cut short, else 1.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bin=$here/bin

# ---- the GPU's clocks (run.sh --clocks: a step of its own; timeout runs
# programs, not shell functions) --------------------------------------------
if [ "${1:-}" = --clocks ]; then
    exec nvidia-smi --query-gpu=index,name,driver_version,pstate,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu,memory.used,memory.total \
        --format=csv
fi

# ---- bellperson's keys (run.sh --bellperson, a step of its own) ------------
# For each key and assignment of data/bellperson: the proof of the CUDA
# backend (zkslot bp prove --backend cuda) for fixed r and s must be the
# CPU backend's bytes and, where the bundle carries it, bellperson's own
# proof's (made on the build machine by its oracle), and must verify.
if [ "${1:-}" = --bellperson ]; then
    r=0b0a090807060504030201000f0e0d0c0b0a090807060504030201000f0e0d0c
    s=1c1b1a191817161514131211101f1e1d1c1b1a191817161514131211101f1e0d
    d=$here/data/bellperson fail=0
    t=$(mktemp -d /tmp/zkslot-bundle-bp.XXXXXX)
    for p in "$d"/*.params; do
        c=$(basename "$p" .params)
        "$bin/zkslot" bp prove "$p" "$d/$c.bpa" "$t/$c.gpu" --r "$r" --s "$s" --backend cuda || { fail=1; continue; }
        "$bin/zkslot" bp prove "$p" "$d/$c.bpa" "$t/$c.cpu" --r "$r" --s "$s" --backend cpu || { fail=1; continue; }
        if cmp -s "$t/$c.gpu" "$t/$c.cpu"; then echo "$c: the GPU's proof = the CPU's"; else echo "$c: the GPU's proof differs from the CPU's"; fail=1; fi
        if [ -f "$d/$c.bellperson.proof" ]; then
            if cmp -s "$t/$c.gpu" "$d/$c.bellperson.proof"; then echo "$c: the GPU's proof = bellperson's, byte for byte"
            else echo "$c: the GPU's proof differs from bellperson's"; fail=1; fi
        else
            echo "$c: no bellperson proof in this bundle (the build machine had no oracle)"
        fi
        [ "$("$bin/zkslot" bp verify "$p" "$d/$c.bpa" "$t/$c.gpu")" = OK ] || { echo "$c: not verified"; fail=1; }
    done
    rm -rf "$t"
    exit $fail
fi

# ---- the pipeline job (run.sh --pipeline DIR, a step of its own) ----------
if [ "${1:-}" = --pipeline ]; then
    out=$2 fail=0
    w=$(mktemp -d /tmp/zkslot-bundle.XXXXXX)
    export ZKSLOT_POOL=/dev/shm/zkslot-bundle-$$.pool ZKSLOT_STATE_DIR=$w/state
    export ZKSLOT_CONFIG=$w/none.conf
    mkdir -p "$w/state" "$out" && : >"$ZKSLOT_CONFIG"
    pids=()
    cleanup() {
        for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
        for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
        "$bin/zkslot" pool destroy --force >/dev/null 2>&1
        rm -f "$ZKSLOT_POOL"
        cp "$w"/*.log "$out/" 2>/dev/null
        rm -rf "$w"
    }
    trap cleanup EXIT
    "$bin/zkslot" pool create --slots 3 --slot-size 4M --tmpfs || exit 1
    "$bin/zkslot-synthd" --workers 2 >"$w/synthd.log" 2>&1 & pids+=($!)
    "$bin/zkslot-gpud" --backend cuda --self-verify yes >"$w/gpud.log" 2>&1 & pids+=($!)
    for curve in bls12381 bn128; do
        d=$here/data/examples/groth16/$curve o=$out/$curve
        mkdir -p "$o"
        cp "$d/vk.json" "$o/vk.json"
        "$bin/zkslot" key add "bundle-$curve" "$d/key.zkey" >/dev/null || { fail=1; continue; }
        id=$("$bin/zkslot" submit --key "bundle-$curve" --out "$w/out-$curve" \
             "$d"/witness-[1-4].wtns) || { fail=1; continue; }
        "$bin/zkslot" wait "$id" --timeout 120 >/dev/null ||
            { echo "$curve: job $id did not complete"; "$bin/zkslot" status "$id"; fail=1; continue; }
        n=0
        while read -r proof pub; do
            k=$n; n=$((n + 1))
            cp "$proof" "$o/proof-$k.json" && cp "$pub" "$o/public-$k.json" || fail=1
            if "$bin/zkslot" verify "$d/vk.json" "$pub" "$proof" >/dev/null; then
                echo "$curve: proof $k of job $id: zkslot verify ok"
            else
                echo "$curve: proof $k of job $id: zkslot verify REJECTED"; fail=1
            fi
        done < <("$bin/zkslot" result "$id")
        [ "$n" = 4 ] || { echo "$curve: $n proofs, want 4"; fail=1; }
    done
    grep -q 'backend cuda,' "$w/gpud.log" || { echo "gpud did not run the CUDA backend:"; tail -5 "$w/gpud.log"; fail=1; }
    exit $fail
fi

if [ $# -ne 2 ] || ! [ "$1" -gt 0 ] 2>/dev/null; then
    echo "usage: run.sh BUDGET_S OUTDIR" >&2
    exit 2
fi
budget=$1 out=$2
mkdir -p "$out/logs" || exit 2
out=$(cd "$out" && pwd)
t0=$(date +%s)
emu=0
[ -f "$here/EMULATED" ] && emu=1
fail=0
: >"$out/steps.tsv"

left() { echo $((budget - ($(date +%s) - t0))); }

# step NAME CAP CMD...: CMD under timeout (CAP s, at most what is left of
# the budget less 5 s), its output in logs/NAME.log; a line in steps.tsv
# (name, status, seconds; status: the exit code, "timeout", "skipped").
# Test hook: ZK_BUNDLE_HANG=NAME makes step NAME hang instead (the dry run
# checks that the budget still holds).
step() {
    local name=$1 cap=$2 l t rc s0 s1 st
    shift 2
    [ "${ZK_BUNDLE_HANG:-}" != "$name" ] || set -- sleep 100000
    l=$(left)
    if [ "$l" -lt 10 ]; then
        printf '%s\tskipped\t0\n' "$name" >>"$out/steps.tsv"
        echo "--- $name: skipped (${l} s of the budget left)"
        fail=1
        return 124
    fi
    t=$((cap < l - 5 ? cap : l - 5))
    s0=$(date +%s.%N)
    timeout -k 5 "$t" "$@" >"$out/logs/$name.log" 2>&1
    rc=$?
    s1=$(date +%s.%N)
    st=$rc
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && st=timeout
    awk -v n="$name" -v s="$st" -v a="$s0" -v b="$s1" 'BEGIN { printf "%s\t%s\t%.1f\n", n, s, b - a }' \
        >>"$out/steps.tsv"
    echo "--- $name: $st ($(tail -n 1 "$out/logs/$name.log" | cut -c1-100))"
    [ "$rc" = 0 ] || fail=1
    return $rc
}

# ---- 1. facts ------------------------------------------------------------------
cp "$here/bundle.txt" "$out/bundle.txt" 2>/dev/null
{ uname -a; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; } >"$out/host.txt" 2>&1
if [ "$emu" = 1 ]; then
    echo "emulated bundle (cuemu): no GPU, no nvidia-smi" | tee "$out/nvidia-smi.txt" >"$out/clocks-before.csv"
    quick=--quick
    ntt_logs="8 10" msm_logs="8 10" g2_logs="6"
else
    step nvidia-smi 30 nvidia-smi -q && cp "$out/logs/nvidia-smi.log" "$out/nvidia-smi.txt"
    step clocks-before 20 "$here/run.sh" --clocks && cp "$out/logs/clocks-before.log" "$out/clocks-before.csv"
    quick=
    ntt_logs="20 22 24" msm_logs="20 22 24" g2_logs="20"
fi

# ---- 2. tests, 3. pipeline ---------------------------------------------------------
export ZK_SOURCE_DIR=$here/data          # test_cuda: the example keys
step test_cuda 300 "$bin/test_cuda" $quick
step pipeline 240 "$here/run.sh" --pipeline "$out/pipeline"
step bellperson 120 "$here/run.sh" --bellperson

# ---- 4. benchmarks -------------------------------------------------------------
: >"$out/bench.jsonl"
for curve in bls12-381 bn254; do
    for L in $ntt_logs; do
        step "ntt-$curve-$L" 120 "$bin/zkslot" bench ntt --backend cuda --curve "$curve" \
            --log-n "$L" --repeats 3 --no-baseline --json &&
            tail -n 1 "$out/logs/ntt-$curve-$L.log" >>"$out/bench.jsonl"
    done
    for L in $msm_logs; do
        step "msm-g1-$curve-$L" 180 "$bin/zkslot" bench msm --backend cuda --curve "$curve" \
            --log-n "$L" --repeats 3 --json &&
            tail -n 1 "$out/logs/msm-g1-$curve-$L.log" >>"$out/bench.jsonl"
    done
    for L in $g2_logs; do
        step "msm-g2-$curve-$L" 180 "$bin/zkslot" bench msm --backend cuda --g2 --curve "$curve" \
            --log-n "$L" --repeats 3 --json &&
            tail -n 1 "$out/logs/msm-g2-$curve-$L.log" >>"$out/bench.jsonl"
    done
done

# ---- 5. summary -----------------------------------------------------------------
[ "$emu" = 1 ] || { step clocks-after 20 "$here/run.sh" --clocks && cp "$out/logs/clocks-after.log" "$out/clocks-after.csv"; }
# one row per result: op group log_n device_ms wall_ms (awk: no python needed)
awk '
function num(k,   m) { if (match($0, "\"" k "\":[0-9.eE+-]+")) { m = substr($0, RSTART, RLENGTH); sub(/^[^:]*:/, "", m); return m + 0 } return -1 }
function str(k,   m) { if (match($0, "\"" k "\":\"[^\"]*\"")) { m = substr($0, RSTART, RLENGTH); sub(/^[^:]*:"/, "", m); sub(/"$/, "", m); return m } return "" }
/"bench":"msm"/ { printf "msm\t%s\t%d\t%.3f\t%.3f\n", str("group"), num("log_n"), 1e3 * num("median_s"), 1e3 * num("cpu_median_s") }
/"bench":"ntt"/ {
    c = str("curve"); L = num("log_n"); s = $0
    while (match(s, /\{"op":"[^"]*","median_s":[0-9.eE+-]+,"median_cpu_s":[0-9.eE+-]+/)) {
        e = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
        split(e, f, /[:,"]+/)
        printf "ntt-%s\t%s_fr\t%d\t%.3f\t%.3f\n", f[3], c, L, 1e3 * f[5], 1e3 * f[7]
    }
}' "$out/bench.jsonl" | sed 's/bls12-381_fr/bls381_fr/' >"$out/bench.tsv"
{
    printf '%-18s %-10s %5s %12s %12s %12s %9s\n' op group log_n "device ms" "wall ms" "cpu ms" "cpu/dev"
    while IFS=$'\t' read -r op g L dev wall; do
        cpu=$(awk -F'\t' -v o="$op" -v g="$g" -v l="$L" '$1 == o && $2 == g && $3 == l { print $4 }' \
              "$here/cpu-baseline.tsv" 2>/dev/null | head -n 1)
        ratio=-
        [ -n "$cpu" ] && ratio=$(awk -v a="$cpu" -v b="$dev" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
        printf '%-18s %-10s %5s %12s %12s %12s %9s\n' "$op" "$g" "$L" "$dev" "$wall" "${cpu:--}" "$ratio"
    done <"$out/bench.tsv"
    echo
    echo "steps (name, status, seconds):"
    cat "$out/steps.tsv"
} >"$out/results.txt"
{
    printf '{"bundle":"%s","emulated":%d,"budget_s":%d,"elapsed_s":%d,"passed":%s,\n' \
        "$(head -n 1 "$here/bundle.txt" 2>/dev/null)" "$emu" "$budget" $(($(date +%s) - t0)) \
        "$([ "$fail" = 0 ] && echo true || echo false)"
    printf '"steps":['
    awk -F'\t' '{ printf "%s{\"name\":\"%s\",\"status\":\"%s\",\"seconds\":%s}", (NR > 1 ? "," : ""), $1, $2, $3 }' "$out/steps.tsv"
    printf '],\n"benches":['
    awk '{ printf "%s%s", (NR > 1 ? ",\n" : "\n"), $0 }' "$out/bench.jsonl"
    printf ']}\n'
} >"$out/results.json"
cat "$out/results.txt"
echo "run.sh: $([ "$fail" = 0 ] && echo PASS || echo FAIL) in $(($(date +%s) - t0)) s of $budget; results in $out"
exit $fail
