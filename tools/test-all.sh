#!/usr/bin/env bash
# test-all.sh -- the README's test command: installs what the tests need,
# builds zkslot twice (release with -Werror, and ASan+UBSan), and runs the
# whole suite of each through ctest.  Idempotent; safe to rerun.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
jobs=$(nproc)

"$here/tools/deps.sh"

# Circuits, keys and witnesses made with snarkjs/circom for the interop and
# pipeline tests are data, the same for both trees: make them once.
export ZK_INTEROP_WORK="${ZK_INTEROP_WORK:-$here/build/interop-work}"

run_suite() {   # run_suite NAME CMAKE-ARGS...
  local name=$1; shift
  echo "=== $name build ==="
  cmake -S . -B "build/$name" -DZK_WERROR=ON "$@" >/dev/null
  cmake --build "build/$name" -j "$jobs"
  echo "=== $name tests ==="
  (cd "build/$name" && ctest --output-on-failure -j "$jobs" --timeout 900)
}

# CUDA (when nvcc is installed) is built in the release tree only: for this
# machine's GPU when there is one, else for Hopper (sm_90) alone, as a
# compile-only lane (every major architecture takes ~10 min here; the
# default build without CMAKE_CUDA_ARCHITECTURES does that).  nvcc objects
# are not instrumented, so the sanitizer tree leaves CUDA out.
if [ -z "${ZK_CUDA_ARCHS:-}" ]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    ZK_CUDA_ARCHS=native
  else
    ZK_CUDA_ARCHS=90
  fi
fi
run_suite release -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$ZK_CUDA_ARCHS"
run_suite asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZK_SANITIZE=address,undefined
