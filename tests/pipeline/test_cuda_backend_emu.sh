#!/usr/bin/env bash
# test_cuda_backend_emu.sh -- test_cuda_backend.sh with the gpud built
# against tests/cuemu: gpud's CUDA backend (pool page-locking, key upload,
# early slot release, the kernels, finalize on the CPU) through the real
# pipeline on both curves, every proof accepted by snarkjs, on machines
# without a GPU.
ZK_CUDA_EMU=1 exec bash "$ZK_SOURCE_DIR/tests/pipeline/test_cuda_backend.sh"
