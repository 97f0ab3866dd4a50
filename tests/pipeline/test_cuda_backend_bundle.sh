#!/usr/bin/env bash
# test_cuda_backend_bundle.sh -- the GPU bundle's dry run (issue 21), so that
# a bundle is known to work before a GPU sees it: tools/gpu-bundle.sh --emu
# packs this build's cuemu programs (test_cuda_emu, zkslot-emu,
# zkslot-gpud-emu, zkslot-synthd; nothing is rebuilt), with the same checks
# as for a GPU bundle (every library inside the folder or the minimal set,
# at most 64 MiB), and its run.sh runs in a clean environment (no
# LD_LIBRARY_PATH, none of ctest's variables) with a budget of 280 s:
#   - every step passes (test_cuda --quick, the pipeline job on the CUDA
#     backend with zkslot verify on every proof, the benchmarks at small
#     sizes), results.json, results.txt and the kept proofs are there;
#   - a step that hangs (ZK_BUNDLE_HANG) is cut by `timeout`, the steps
#     after it skipped, and the run ends within its budget of 20 s, exit 1.
set -euo pipefail
w=${ZK_BUILD_DIR:?}/bundle-work
rm -rf "$w"
mkdir -p "$w"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

bash "$ZK_SOURCE_DIR/tools/gpu-bundle.sh" --emu --no-build --build-dir "$ZK_BUILD_DIR" \
    "$w/bundle" || { echo "FAIL: gpu-bundle.sh --emu"; exit 1; }
size=$(du -sb "$w/bundle" | cut -f1)
[ "$size" -le $((64 << 20)) ] || bad "bundle is $size bytes"

t0=$(date +%s)
rc=0
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$w" bash "$w/bundle/run.sh" 280 "$w/out" \
    >"$w/run.log" 2>&1 || rc=$?
el=$(($(date +%s) - t0))
tail -n 30 "$w/run.log"
[ "$rc" = 0 ] || bad "run.sh 280 exit $rc"
[ "$el" -le 300 ] || bad "run.sh took $el s on a 280 s budget"
for f in results.json results.txt steps.tsv bench.tsv; do
    [ -s "$w/out/$f" ] || bad "no $f"
done
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["passed"] and len(d["benches"]) == 10 else 1)' \
    "$w/out/results.json" || bad "results.json: not passed, or not 10 benchmarks"
while IFS=$'\t' read -r name st secs; do
    [ "$st" = 0 ] || bad "step $name: $st (logs: $w/out/logs/$name.log)"
done <"$w/out/steps.tsv"
for s in test_cuda pipeline bellperson ntt-bls12-381-10 msm-g1-bls12-381-10 msm-g2-bn254-6; do
    grep -q "^$s	0	" "$w/out/steps.tsv" || bad "step $s did not run and pass"
done
n=$(ls "$w/out/pipeline"/*/proof-*.json 2>/dev/null | wc -l)
[ "$n" = 8 ] || bad "$n proofs kept, want 8 (4 per curve)"
grep -q 'zkslot verify REJECTED' "$w/out/logs/pipeline.log" && bad "a pipeline proof was rejected"
grep -q 'ntt-forward *bls381_fr *10' "$w/out/results.txt" || bad "results.txt has no NTT row"
# bellperson's keys: the device's proofs are the CPU's and, where the
# bundle carries them (the oracle built here), bellperson's own bytes
grep -q "chain32: the GPU's proof = the CPU's" "$w/out/logs/bellperson.log" ||
    bad "bellperson step: no GPU = CPU line for chain32"
if [ -f "$w/bundle/data/bellperson/chain32.bellperson.proof" ]; then
    grep -q "chain32: the GPU's proof = bellperson's, byte for byte" "$w/out/logs/bellperson.log" ||
        bad "bellperson step: the GPU's proof is not bellperson's"
fi
echo "ok: dry run passed in $el s (bundle $((size >> 10)) KiB)"

# a step that hangs (test hook): cut by timeout, the rest skipped, the run
# over in its budget of 20 s, exit 1, results written
t0=$(date +%s)
rc=0
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$w" ZK_BUNDLE_HANG=test_cuda \
    bash "$w/bundle/run.sh" 20 "$w/out-hang" >"$w/run-hang.log" 2>&1 || rc=$?
el=$(($(date +%s) - t0))
[ "$rc" = 1 ] || bad "run.sh 20 with a hanging step: exit $rc, want 1"
[ "$el" -le 30 ] || bad "run.sh 20 with a hanging step took $el s"
grep -q '^test_cuda	timeout	' "$w/out-hang/steps.tsv" || bad "the hanging step was not cut by timeout"
grep -q '	skipped	' "$w/out-hang/steps.tsv" || bad "no step skipped after the budget was spent"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(1 if d["passed"] else 0)' \
    "$w/out-hang/results.json" || bad "run.sh 20 with a hanging step: results.json missing or passed"
echo "ok: a hanging step was cut and the run stopped after $el s of its 20 s budget"
[ "$fail" = 0 ] && rm -rf "$w"
exit $fail
