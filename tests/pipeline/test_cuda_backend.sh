#!/usr/bin/env bash
# test_cuda_backend.sh -- gpud --backend cuda through the real pipeline on
# both curves (a pool of 3 slots, synthd with 2 workers, one job of 4
# partitions per curve), every proof accepted by snarkjs and `zkslot verify`.
#   With a usable GPU: the proofs are the GPU's (gpud logs "backend cuda"
#   and page-locks the pool before it is ready).
#   Without one (or in a build without CUDA): gpud says why in one log line
#   and proves on the CPU backend; a GPU that nvidia-smi lists but gpud
#   cannot use is a failure.
#   With ZK_CUDA_EMU=1 (test_cuda_backend_emu.sh): the gpud built against
#   tests/cuemu, whose kernels run on the CPU: the CUDA backend's whole
#   path, which must not fall back.
# Partition k's public.json is checked against witness k (pl_check_job).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
if [ "${ZK_CUDA_EMU:-0}" = 1 ]; then
    ZKSLOT_GPUD=${ZKSLOT_GPUD_EMU:?}
    export CUEMU_STRICT=1                   # no device memory left at exit
    pl_init cuda_backend_emu || exit 77
else
    pl_init cuda_backend || exit 77
fi

pl_pool 3 || exit 1
pl_start_synthd --workers 2
pl_start_gpud --backend cuda --self-verify yes
for curve in bn128 bls12381; do
    pl_circuit "$curve" 600 4 || { pl_bad "circuit $curve"; continue; }
    j=$(pl_submit 4) || { pl_bad "submit $curve"; continue; }
    pl_wait "$j" 300 || continue
    pl_check_job "$j" 4 || continue
    echo "ok: $curve job $j: $PL_NPROOFS proofs accepted"
done
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
if [ "${ZK_CUDA_EMU:-0}" = 1 ] && ! grep -q 'backend cuda,' "$PL_W/gpud.log"; then
    pl_bad "the emulated device was not used"
elif grep -q 'backend cuda,' "$PL_W/gpud.log"; then
    grep -q 'pool page-locked for the GPU' "$PL_W/gpud.log" || pl_bad "cuda: pool not page-locked"
    grep -q 'GPU 0: key points A B1 C H B2 in ' "$PL_W/gpud.log" || pl_bad "cuda: no key placement line"
    if [ "${ZK_CUDA_EMU:-0}" = 1 ]; then
        echo "ok: the proofs above were made by the CUDA backend, its kernels run by cuemu"
    else
        echo "ok: the proofs above were made on the GPU"
    fi
else
    grep -q 'no usable GPU.*using the CPU backend' "$PL_W/gpud.log" ||
        pl_bad "no 'backend cuda' and no fallback line in gpud.log"
    grep -q 'backend cpu,' "$PL_W/gpud.log" || pl_bad "fallback: gpud did not run the CPU backend"
    if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep '^GPU' >/dev/null; then
        pl_bad "nvidia-smi lists a GPU but gpud fell back to the CPU"
    fi
    echo "ok: no usable GPU here: gpud fell back to the CPU backend and said so"
fi
pl_pool_clean
exit $PL_FAIL
