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

run_suite release -DCMAKE_BUILD_TYPE=Release
run_suite asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZK_SANITIZE=address,undefined
