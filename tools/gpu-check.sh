#!/usr/bin/env bash
# gpu-check.sh -- everything that needs an NVIDIA GPU, in one run (meant to
# take under 5 minutes on an H200):
#   1. build with CUDA for this machine's GPU (build/gpu, or BUILD_DIR);
#   2. the GPU suite: test_cuda (NTT at several sizes and on cosets, MSM with
#      the arithmetic's edge cases, prove_start, all against the CPU twins),
#      test_g16_backend, and pipeline_test_cuda_backend (gpud --backend cuda
#      through the pipeline, its proofs checked by snarkjs);
#   3. a benchmark table, GPU against the CPU backend on all cores of the same
#      machine, in the same run: Fr NTT 2^24 (data on the device), G1 MSM
#      2^24, and a whole proof of a 2^PROVE_LOG-constraint circuit (default
#      20; 0 skips it; the key comes from `zkslot setup`).
#
#   tools/gpu-check.sh [BUILD_DIR]     env: PROVE_LOG=20, SKIP_DEPS=1, LOG_N=24
#   tools/gpu-check.sh --dry-run       no GPU needed: which nvcc a build uses
#                                      (PATH, else tools/deps.sh's prefix),
#                                      its `nvcc --version`, the CUDA runtime
#                                      beside it, and whether a GPU is here
# Exit 0 when every test passed; the table is for people to read (issue 7's
# bars: MSM 2^24 BLS12-381 <= 100 ms, NTT 2^24 <= 10 ms, proof 2^20 >= 20x).
#
# Which script when: this one on a machine with a GPU *and* a package registry
# and time to build (it installs the dependencies and compiles with nvcc for
# the GPU there: minutes of nvcc, and the whole pipeline suite with node).  For
# a GPU machine lent for minutes, with the driver but no registry and none of
# zkslot's libraries, build a bundle here instead: `tools/gpu-bundle.sh
# --baseline OUT` (sm_90, its libraries packed, at most 64 MiB), copy OUT
# there and run `OUT/run.sh BUDGET_S RESULTS` (tests, a pipeline job, the
# benchmarks; every step under timeout), then `tools/gpu-bundle.sh
# --check-results RESULTS` here (snarkjs on its proofs).  docs/cuda.md.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --dry-run ]; then
    prefix=${ZK_CUDA_PREFIX:-/opt/zkslot/cuda}
    nvcc=$(command -v nvcc || echo "$prefix/bin/nvcc")
    [ -x "$nvcc" ] || { echo "gpu-check: no nvcc on PATH or in $prefix/bin (tools/deps.sh installs it)" >&2; exit 1; }
    echo "nvcc: $nvcc -> $(readlink -f "$nvcc")"
    "$nvcc" --version || exit 1
    top=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)
    rt=$(ls "$top"/lib/libcudart.so.* 2>/dev/null | head -n 1)
    echo "CUDA runtime: ${rt:-none found under $top/lib}"
    if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        nvidia-smi -L
        nvidia-smi --query-gpu=driver_version --format=csv,noheader | sed 's/^/driver: /'
    else
        echo "GPU: none here (nvidia-smi lists none): the build compiles the kernels, the emulated tests run them"
    fi
    exit 0
fi
build=${1:-$src/build/gpu}
log_n=${LOG_N:-24}
prove_log=${PROVE_LOG:-20}
cpus=$(nproc)
fail=0
say() { printf '\n=== %s\n' "$*"; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo "gpu-check: no NVIDIA GPU here (nvidia-smi lists none)" >&2
    exit 2
fi
nvidia-smi -L
[ -n "${SKIP_DEPS:-}" ] || "$src/tools/deps.sh"

say "build (CUDA for this GPU)"
t0=$(date +%s)
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DZK_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=native >/dev/null || exit 1
cmake --build "$build" -j "$cpus" >/dev/null || { cmake --build "$build" 2>&1 | tail -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
z=$build/zkslot
export ZK_INTEROP_WORK=${ZK_INTEROP_WORK:-$build/interop-work}

say "GPU tests"
# (the cuemu tests run in every build; here only the ones that use the GPU)
(cd "$build" && ctest -R '^(test_cuda|test_g16_backend|pipeline_test_cuda_backend)$' \
    --output-on-failure --timeout 600) || fail=1
# ctest counts a skip (77) as a pass: make sure the GPU was really used
"$z" bench msm --backend cuda --log-n 4 --repeats 1 >/dev/null ||
    { echo "gpu-check: the GPU cannot be used (the tests above skipped)"; fail=1; }

say "benchmarks (GPU: device time; CPU: $cpus threads, same machine, same run)"
row() { printf '%-34s %12s %12s %9s\n' "$@"; }
ms() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print("%.2f" % (1e3*eval(sys.argv[1])))' "$1"; }
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.1fx' % (a/b) if b > 0 else '-')" "$1" "$2"; }
row "operation" "cuda ms" "cpu ms" "speedup"
for c in bn254 bls12-381; do
    g=$("$z" bench ntt --backend cuda --curve "$c" --log-n "$log_n" --repeats 5 --json 2>&1) &&
    cpu=$("$z" bench ntt --curve "$c" --log-n "$log_n" --threads "$cpus" --repeats 3 --no-baseline --json 2>&1) || {
        echo "ntt $c failed: $g $cpu"; fail=1; continue; }
    a=$(echo "$g" | ms 'd["results"][0]["median_s"]'); b=$(echo "$cpu" | ms 'd["results"][0]["median_s"]')
    row "Fr NTT 2^$log_n $c" "$a" "$b" "$(ratio "$b" "$a")"
    g=$("$z" bench msm --backend cuda --curve "$c" --log-n "$log_n" --repeats 3 --json 2>&1) &&
    cpu=$("$z" bench msm --curve "$c" --log-n "$log_n" --threads "$cpus" --repeats 1 --json 2>&1) || {
        echo "msm $c failed: $g $cpu"; fail=1; continue; }
    a=$(echo "$g" | ms 'd["median_s"]'); b=$(echo "$cpu" | ms 'd["median_s"]')
    row "G1 MSM 2^$log_n $c" "$a" "$b" "$(ratio "$b" "$a")"
    l2=$((log_n - 2))                    # G2: B2 of the proof, ~3x G1's work per point
    g=$("$z" bench msm --backend cuda --g2 --curve "$c" --log-n "$l2" --repeats 3 --json 2>&1) &&
    cpu=$("$z" bench msm --g2 --curve "$c" --log-n "$l2" --threads "$cpus" --repeats 1 --json 2>&1) || {
        echo "msm g2 $c failed: $g $cpu"; fail=1; continue; }
    a=$(echo "$g" | ms 'd["median_s"]'); b=$(echo "$cpu" | ms 'd["median_s"]')
    row "G2 MSM 2^$l2 $c" "$a" "$b" "$(ratio "$b" "$a")"
done

if [ "$prove_log" -gt 0 ]; then
    # shellcheck source=../tests/interop/lib.sh
    . "$src/tests/interop/lib.sh"
    if zk_interop_init; then
        n=$(( (1 << prove_log) - 8 ))        # + public signals: domain 2^PROVE_LOG
        for curve in bn128 bls12381; do
            d=$(zk_compile "chain_$n" "$curve") || { fail=1; continue; }
            key=$d/chain_$n.setup.zkey
            [ -f "$key" ] || "$z" setup "$d/chain_$n.r1cs" "$key" --curve "$curve" >/dev/null ||
                { echo "setup failed"; fail=1; continue; }
            wt=$(zk_witness "$d/chain_${n}_js/chain_$n.wasm" \
                 "$src/tests/interop/circuits/chain.input.json" "$d/chain_$n.wtns") || { fail=1; continue; }
            g=$("$z" bench prove "$key" "$wt" --backend cuda --threads "$cpus" --repeats 3 --json 2>&1) &&
            cpu=$("$z" bench prove "$key" "$wt" --threads "$cpus" --repeats 1 --json 2>&1) || {
                echo "prove $curve failed: $g $cpu"; fail=1; continue; }
            a=$(echo "$g" | ms 'd["total_s"]'); b=$(echo "$cpu" | ms 'd["total_s"]')
            row "proof 2^$prove_log $curve (whole)" "$a" "$b" "$(ratio "$b" "$a")"
            # the GPU's stages: NTTs, H and the five MSMs (B2 included:
            # on the CPU backend it is part of finalize)
            a=$(echo "$g" | ms 'd["ntt_s"]+d["h_s"]+d["msm_a_s"]+d["msm_b1_s"]+d["msm_c_s"]+d["msm_h_s"]+d["msm_b2_s"]')
            b=$(echo "$cpu" | ms 'd["ntt_s"]+d["h_s"]+d["msm_a_s"]+d["msm_b1_s"]+d["msm_c_s"]+d["msm_h_s"]+d["msm_b2_s"]')
            row "  GPU stages 2^$prove_log $curve" "$a" "$b" "$(ratio "$b" "$a")"
        done
    else
        echo "proof benchmark skipped: $ZK_INTEROP_SKIP"
    fi
fi
say "gpu-check: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
