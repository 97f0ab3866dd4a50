#!/usr/bin/env bash
# gpu-bundle.sh -- builds here what a first run on a bare GPU machine needs
# and packs it into one folder (at most 64 MiB) with its run.sh
# (tools/gpu-bundle-run.sh): copy the folder there, run `./run.sh BUDGET_S
# OUT`, bring OUT back.  That machine needs the NVIDIA driver (libcuda) and
# nothing else: no package registry, no compiler, none of zkslot's libraries.
#
#   tools/gpu-bundle.sh [--emu] [--build-dir DIR] [--no-build] [--baseline | --baseline-file F] OUTDIR
#   tools/gpu-bundle.sh --check-results OUT     (here, after the GPU run)
#
# Build (unless --no-build): DIR (default build/gpu-bundle) configured for
# sm_90 only, without -march=native (the GPU machine's CPU is not this
# one), without systemd, io_uring and libnuma, and only the targets the run
# needs: test_cuda, zkslot (benchmarks, the pipeline's CLI), zkslot-gpud,
# zkslot-synthd.  nvcc on 2 cores: about 10 minutes the first time.
# --emu: the cuemu build of the same programs instead (test_cuda_emu,
# zkslot-emu, zkslot-gpud-emu; default DIR build/gpu-bundle-emu, no nvcc):
# run.sh then runs them on the CPU at small sizes, the dry run CI does
# (tests/pipeline/test_cuda_backend_bundle.sh).
#
# Packing: bin/ (stripped), lib/ (every shared library the programs load
# that is outside the minimal set a bare machine has: libc, libm, libdl,
# libpthread, librt, ld-linux, libstdc++, libgcc_s, and the driver's libcuda,
# which the static CUDA runtime loads itself), data/ (the example keys, vks
# and 4 witnesses per curve), run.sh, bundle.txt (commit, build, sizes).
# `ldd` with lib/ on LD_LIBRARY_PATH must then resolve every library of
# bin/ and lib/ inside the folder or the minimal set, and the folder must be
# at most 64 MiB: otherwise this fails, naming the library or the size.
# --baseline: also the CPU baselines for run.sh's sizes, measured here
# (cpu-baseline.tsv, slow: the sizes that fit are measured, see below), with
# $ZK_BASELINE_ZKSLOT (default the bundle's zkslot; a -march=native build's
# is the fairer CPU); --baseline-file FILE: a cpu-baseline.tsv measured
# before, copied in.
# --check-results OUT: snarkjs (tests/interop's pinned copy) checks the
# proofs run.sh kept in OUT/pipeline.
set -euo pipefail
# the r and s of the bellperson check (the same in run.sh)
ZK_BUNDLE_BP_R=0b0a090807060504030201000f0e0d0c0b0a090807060504030201000f0e0d0c
ZK_BUNDLE_BP_S=1c1b1a191817161514131211101f1e1d1c1b1a191817161514131211101f1e0d
src=$(cd "$(dirname "$0")/.." && pwd)
emu=0 build= nobuild=0 baseline=0 check= basefile=
usage() {
    echo "usage: tools/gpu-bundle.sh [--emu] [--build-dir DIR] [--no-build] [--baseline | --baseline-file F] OUTDIR" >&2
    echo "       tools/gpu-bundle.sh --check-results OUT" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --emu) emu=1 ;;
    --build-dir) [ $# -ge 2 ] || usage; build=$2; shift ;;
    --no-build) nobuild=1 ;;
    --baseline) baseline=1 ;;
    --baseline-file) [ $# -ge 2 ] || usage; basefile=$2; shift ;;
    --check-results) [ $# -ge 2 ] || usage; check=$2; shift ;;
    -*) usage ;;
    *) break ;;
    esac
    shift
done

# ---- --check-results: snarkjs on the proofs of a GPU run --------------------
if [ -n "$check" ]; then
    snarkjs=$src/tests/interop/node_modules/.bin/snarkjs
    [ -x "$snarkjs" ] || { echo "gpu-bundle: no $snarkjs (npm ci in tests/interop, as tools/deps.sh does)" >&2; exit 2; }
    n=0 bad=0
    for d in "$check"/pipeline/*/; do
        for p in "$d"proof-*.json; do
            [ -f "$p" ] || continue
            pub=${p/proof-/public-}
            n=$((n + 1))
            if "$snarkjs" groth16 verify "$d/vk.json" "$pub" "$p" >/dev/null 2>&1; then
                echo "snarkjs: ok: $p"
            else
                echo "snarkjs: REJECTED: $p"; bad=$((bad + 1))
            fi
        done
    done
    [ "$n" -gt 0 ] || { echo "gpu-bundle: no proofs in $check/pipeline" >&2; exit 1; }
    echo "snarkjs: $((n - bad)) of $n proofs accepted"
    [ "$bad" = 0 ]
    exit
fi
[ $# -eq 1 ] || usage
out=$1

if [ "$emu" = 1 ]; then
    build=${build:-$src/build/gpu-bundle-emu}
    targets=(test_cuda_emu zkslot-emu zkslot-gpud-emu zkslot-synthd)
    cmake_args=(-DCMAKE_BUILD_TYPE=Release -DZK_ENABLE_CUDA=OFF)
else
    build=${build:-$src/build/gpu-bundle}
    targets=(test_cuda zkslot zkslot-gpud zkslot-synthd)
    # (no -Werror: a shipping build; some of gcc's -O3 warnings appear only
    # without -march=native)
    # (90-real: sm_90 machine code only, no PTX; the machine code itself is
    # ~19 MB in each of the three programs that hold the kernels: the bundle
    # is 61.5 MiB of its 64, 2026-12-01)
    cmake_args=(-DCMAKE_BUILD_TYPE=Release -DZK_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-real
                -DZK_NATIVE=OFF -DZK_WERROR=OFF -DZK_ENABLE_SYSTEMD=OFF -DZK_ENABLE_URING=OFF
                -DZK_ENABLE_NUMA=OFF)
fi
# more cmake options, e.g. ZK_BUNDLE_CMAKE_ARGS=-DZK_CUDA_MONT=32 (the 32-bit
# device arithmetic, docs/cuda.md)
read -r -a extra <<<"${ZK_BUNDLE_CMAKE_ARGS:-}"
cmake_args+=("${extra[@]}")
if [ "$nobuild" = 0 ]; then
    t0=$(date +%s)
    cmake -S "$src" -B "$build" "${cmake_args[@]}" >/dev/null
    cmake --build "$build" -j "${ZK_BUNDLE_JOBS:-2}" --target "${targets[@]}"
    echo "gpu-bundle: built ${targets[*]} in $(($(date +%s) - t0)) s"
fi
# where a target's binary is: the top of the tree, gpud/, synthd/ or tests/
find_bin() {
    local f
    for f in "$build/$1" "$build/gpud/$1" "$build/synthd/$1" "$build/tests/$1"; do
        [ -x "$f" ] && { echo "$f"; return 0; }
    done
    echo "gpu-bundle: $1 not built in $build (build it, or drop --no-build)" >&2
    return 1
}

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/data"
names=(test_cuda zkslot zkslot-gpud zkslot-synthd)
for i in "${!targets[@]}"; do
    f=$(find_bin "${targets[$i]}")
    cp "$f" "$out/bin/${names[$i]}"
    strip --strip-debug "$out/bin/${names[$i]}" 2>/dev/null || true
done

# the minimal set: present on any machine that runs a GPU (or loaded by the
# CUDA runtime itself)
minimal='^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libcuda\.so\.1)$'
# ldd FILE -> "NAME PATH" per library ("NAME not-found" when unresolved)
ldd_libs() {
    ldd "$1" 2>/dev/null | awk '
        /=> not found/ { print $1, "not-found"; next }
        /=>/ { print $1, $3; next }
        /^\t\/.*ld-linux/ { n = $1; sub(/.*\//, "", n); print n, $1 }'
}
for b in "$out"/bin/*; do
    while read -r name path; do
        [[ $name =~ $minimal ]] && continue
        [ "$path" != not-found ] || { echo "gpu-bundle: $b needs $name, which is not found here" >&2; exit 1; }
        [ -f "$out/lib/$name" ] || cp -L "$path" "$out/lib/$name"
    done < <(ldd_libs "$b")
done
# the check a bare machine would make: everything inside the folder or minimal
bad=0
for f in "$out"/bin/* "$out"/lib/*; do
    [ -f "$f" ] || continue
    while read -r name path; do
        [[ $name =~ $minimal ]] && continue
        case $path in
        "$out"/lib/*) ;;
        *) echo "gpu-bundle: $(basename "$f") loads $name from $path, outside the bundle" >&2; bad=1 ;;
        esac
    done < <(LD_LIBRARY_PATH="$out/lib" ldd_libs "$f")
done
[ "$bad" = 0 ] || exit 1

# (laid out as in the source tree: test_cuda finds the keys through ZK_SOURCE_DIR)
for c in bn128 bls12381; do
    mkdir -p "$out/data/examples/groth16/$c"
    cp "$src/examples/groth16/$c/key.zkey" "$src/examples/groth16/$c/vk.json" \
       "$src/examples/groth16/$c"/witness*.wtns "$out/data/examples/groth16/$c/"
done
# bellperson's (Filecoin's) keys: the corpus's smallest key and assignments,
# and, when the Rust oracle is built here, bellperson's own proofs of them
# for run.sh's fixed r and s (run.sh compares the GPU's bytes with them)
mkdir -p "$out/data/bellperson"
for c in chain16 chain32; do
    cp "$src/tests/fuzz/corpus/bellperson/$c.params" "$src/tests/fuzz/corpus/bellperson/$c.bpa" \
       "$out/data/bellperson/"
done
oracle=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target}/release/zkslot-bp-oracle
if [ -x "$oracle" ]; then
    for c in 16:4:3 32:5:2; do      # constraints : log2 : witness seed of the corpus file
        IFS=: read -r n l w <<<"$c"
        "$oracle" prove --circuit chain --log2 "$l" --witness "$w" \
            --params "$out/data/bellperson/chain$n.params" --r "$ZK_BUNDLE_BP_R" --s "$ZK_BUNDLE_BP_S" \
            --out "$out/data/bellperson/chain$n.bellperson.proof" ||
            { echo "gpu-bundle: bellperson's proof of chain$n failed" >&2; exit 1; }
    done
fi
cp "$src/tools/gpu-bundle-run.sh" "$out/run.sh"
chmod +x "$out/run.sh"
[ "$emu" = 1 ] && echo "cuemu build: kernels run on the CPU (dry run)" >"$out/EMULATED"
{
    echo "zkslot $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$src" diff --quiet 2>/dev/null || echo +changes) $([ "$emu" = 1 ] && echo emulated || echo sm_90) built $(date -u +%FT%TZ) on $(uname -m)"
    echo "cmake: ${cmake_args[*]}"
    echo "libraries packed: $(cd "$out/lib" && ls | tr '\n' ' ')"
    du -b "$out"/bin/* "$out"/lib/* 2>/dev/null | awk '{ sub(/.*\//, "", $2); printf "  %-28s %9d bytes\n", $2, $1 }'
} >"$out/bundle.txt"

# ---- CPU baselines, here ----------------------------------------------------------
# The same benchmarks on this machine's CPU (all its cores): NTT at every size,
# MSM where one run takes minutes at most on 2 cores (G1 up to 2^22, G2 2^20
# BN254 only); cpu-baseline.tsv: op group log_n median_ms (run.sh's columns).
if [ "$baseline" = 1 ]; then
    z=${ZK_BASELINE_ZKSLOT:-$out/bin/zkslot} T=$(nproc)
    {
        echo "# CPU baselines: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $T threads, $(date -u +%F)"
        for c in bls12-381 bn254; do
            g=$([ "$c" = bn254 ] && echo bn254 || echo bls381)
            for L in 20 22 24; do
                LD_LIBRARY_PATH=$out/lib "$z" bench ntt --curve "$c" --log-n "$L" --threads "$T" \
                    --repeats 1 --no-baseline --json | tail -n 1 |
                    awk -v g="${g}_fr" -v L="$L" '{ s = $0
                        while (match(s, /\{"op":"[^"]*","median_s":[0-9.eE+-]+/)) {
                            e = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
                            split(e, f, /[:,"]+/); printf "ntt-%s\t%s\t%d\t%.3f\n", f[3], g, L, 1e3 * f[5] } }'
            done
            for spec in "g1 20" "g1 22" "g2 20"; do
                set -- $spec
                [ "$1" = g2 ] && [ "$c" != bn254 ] && continue
                LD_LIBRARY_PATH=$out/lib "$z" bench msm --curve "$c" --log-n "$2" --threads "$T" \
                    --repeats 1 --json $([ "$1" = g2 ] && echo --g2) | tail -n 1 |
                    awk -v L="$2" '{ match($0, /"group":"[^"]*"/); g = substr($0, RSTART + 9, RLENGTH - 10)
                        match($0, /"median_s":[0-9.eE+-]+/); m = substr($0, RSTART + 11, RLENGTH - 11)
                        printf "msm\t%s\t%d\t%.3f\n", g, L, 1e3 * m }'
            done
        done
    } >"$out/cpu-baseline.tsv"
    cat "$out/cpu-baseline.tsv"
elif [ -n "$basefile" ]; then
    cp "$basefile" "$out/cpu-baseline.tsv"
fi

size=$(du -sb "$out" | cut -f1)
limit=$((64 << 20))
if [ "$size" -gt "$limit" ]; then
    echo "gpu-bundle: $out is $size bytes, over the 64 MiB limit:" >&2
    du -b "$out"/bin/* "$out"/lib/* | sort -rn | head -5 >&2
    exit 1
fi
echo "gpu-bundle: $out: $((size >> 10)) KiB (limit 64 MiB), libraries packed: $(ls "$out/lib" | tr '\n' ' ')"
