#!/usr/bin/env bash
# cuda-sass.sh -- what the device runs, counted without a GPU: compiles
# gpud/cuda/sass/cu_sass_probe.cu for sm_90 (nvcc -cubin, -Xptxas -v) twice,
# with the 64-bit-limb Montgomery multiplication (ZK_FF_MONT32=0: unsigned
# __int128) and with the 32-bit-word one (common/ff/mont32.h, ZK_FF_MONT32=1),
# and prints per field (BN254 Fp, Fr, BLS12-381 Fp, Fr) the SASS instructions
# of one multiplication and one squaring kernel (the .text section of the
# kernel in the cubin / 16 bytes, Hopper's fixed instruction width; the
# kernel's loads, stores and exit included, the same in both columns; every
# loop unrolled, ZK_FF_UNROLL=1, so the static count is the count executed
# per operation), and
# the stack frame of the MSM's accumulation kernel k_msm_chunks0 on G1
# (ptxas -v; 0 = the conditional negation is done in registers).
#
#   tools/cuda-sass.sh [--check] [--json FILE]
# --check: exit 1 unless k_msm_chunks0's stack frame is 0 on both curves
# (the counts are printed, not judged: which path is faster is for a GPU to
# time).  Exit 77 without nvcc.
# Needs nvcc and readelf (binutils); about a minute on 2 cores.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
check=0 json=
while [ $# -gt 0 ]; do
    case $1 in
    --check) check=1 ;;
    --json) json=$2; shift ;;
    *) echo "usage: tools/cuda-sass.sh [--check] [--json FILE]" >&2; exit 2 ;;
    esac
    shift
done
nvcc=${NVCC:-$(command -v nvcc || echo "${ZK_CUDA_PREFIX:-/opt/zkslot/cuda}/bin/nvcc")}
if [ ! -x "$nvcc" ]; then
    echo "cuda-sass: skip: no nvcc (set NVCC)" >&2
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
probe=$src/gpud/cuda/sass/cu_sass_probe.cu
# passes: fields with the 64-bit path, fields with the 32-bit path (loops
# unrolled), and the MSM kernel as the build compiles it (64-bit, nvcc's own
# unrolling)
for pass in "64 1 0" "32 1 0" "msm 0 1"; do
    set -- $pass
    if ! "$nvcc" -cubin -arch=sm_90 -O3 -std=c++17 -DZK_FF_MONT32=$([ "$1" = 32 ] && echo 1 || echo 0) \
        -DZK_FF_UNROLL="$2" -DCU_SASS_MSM="$3" -I"$src/gpud/cuda" -I"$src/common/include" \
        -I"$src/common" -Xptxas -v "$probe" -o "$tmp/probe$1.cubin" 2> "$tmp/ptxas$1.log"; then
        echo "cuda-sass: nvcc failed on $probe (pass $1):" >&2
        tail -20 "$tmp/ptxas$1.log" >&2
        exit 1
    fi
    readelf -S -W "$tmp/probe$1.cubin" 2>/dev/null > "$tmp/sections$1.txt"
done
python3 - "$tmp" "$check" "$json" <<'PY'
import json, re, sys
tmp, check, out = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
def sizes(mont):
    r = {}
    for line in open("%s/sections%s.txt" % (tmp, mont)):
        m = re.search(r"\.text\.(\S+)\s+PROGBITS\s+\S+\s+\S+\s+([0-9a-f]+)", line)
        if m:
            r[m.group(1)] = int(m.group(2), 16) // 16
    return r
def stacks(mont):
    r, fn = {}, None
    for line in open("%s/ptxas%s.log" % (tmp, mont)):
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            fn = m.group(1)
        m = re.search(r"(\d+) bytes stack frame", line)
        if m and fn:
            r[fn] = int(m.group(1))
    return r
s64, s32, st = sizes(64), sizes(32), stacks("msm")
rows, bad = [], []
print("SASS instructions per kernel, sm_90 (nvcc -cubin; .text bytes / 16)")
print("%-10s %-4s %8s %8s %7s" % ("field", "op", "64-bit", "32-bit", "32/64"))
for f in ("bn254_fp", "bn254_fr", "bls381_fp", "bls381_fr"):
    for op in ("mul", "sqr"):
        name = next(k for k in s64 if re.match(r"_Z\d+probe_%s_%sP" % (op, f), k))
        a, b = s64[name], s32[name]
        rows.append({"field": f, "op": op, "sass_64": a, "sass_32": b})
        print("%-10s %-4s %8d %8d %7.2f" % (f, op, a, b, b / a))
msm = {}
for g in ("bn254_g1", "bls381_g1"):
    k = next(k for k in st if "k_msm_chunks0" in k and g in k)
    msm[g] = st[k]
    print("k_msm_chunks0<%s>: %d bytes stack frame (ptxas -v)" % (g, st[k]))
    if st[k] != 0:
        bad.append("k_msm_chunks0<%s> has a %d-byte stack frame (want 0)" % (g, st[k]))
if out:
    json.dump({"arch": "sm_90", "fields": rows, "msm_chunks0_stack_bytes": msm}, open(out, "w"),
              indent=1)
if check and bad:
    for b in bad:
        print("cuda-sass: FAIL: " + b, file=sys.stderr)
    sys.exit(1)
PY
