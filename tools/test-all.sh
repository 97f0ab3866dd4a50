#!/usr/bin/env bash
# test-all.sh -- the README's test command: installs what the tests need,
# builds zkslot twice (release with gcc and -Werror, and ASan+UBSan with
# clang), and runs the
# whole suite of each through ctest; after the release suite, the mutation
# check of the tests (tools/mutants.sh); then the fuzz targets in a clang
# tree, a short run each (tools/fuzz.sh).  Idempotent; safe to rerun.
#
# Skips are seen: each suite's skipped tests are listed with their reason
# and counted, and the run fails if a test this machine can run was
# skipped.  Allowed skips (ZK_ALLOWED_SKIPS, a regex of ctest names,
# overrides): the real-GPU tests without a usable GPU (test_cuda;
# pipeline_test_cuda_backend falls back to the CPU and runs), and, when
# not run as root, the tests that need root to set the machine up
# (test_pool_hugetlb reserves huge pages, deploy_test_multiuser adds users,
# pipeline_test_ledger_faults mounts a small tmpfs);
# in the sanitizer suite only, deploy_test_systemd (its container has the
# release build's runtime libraries, not the sanitizers': the release suite
# runs it), deploy_test_package (it builds and installs the Debian
# package, not the tree: once is enough, in the release suite) and
# pipeline_test_core_dump (gcore of a sanitizer build writes its shadow
# memory, tens of GiB: the release suite runs it) and
# pipeline_test_clock_skew_pg (libfaketime's preload hangs a sanitizer
# build's start: the release suite runs it).
# ZK_SKIP_MUTANTS=1 leaves the mutation check out.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
jobs=$(nproc)

"$here/tools/deps.sh"

# ccache (tools/deps.sh installs it): the C, C++ and CUDA compilations of
# both trees are cached in the user's ccache directory, keyed on the
# preprocessed source and the flags, so a second CI run on the same machine
# recompiles only what changed.  ZK_CCACHE=0 leaves it out.
launcher=()
if [ "${ZK_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$here CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
            -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi

# The Rust side (rust/*: Filecoin's circuits, bellperson's oracle), built
# once before the suites that use it: crates by `cargo fetch` against the
# committed Cargo.lock, the target directory the machine's cache
# (tools/cargo-build.sh).  The tests find it through ZK_CARGO_TARGET.
if compgen -G "$here/rust/*/Cargo.toml" >/dev/null; then
  echo "=== rust (tools/cargo-build.sh) ==="
  ZK_CARGO_TARGET=$("$here/tools/cargo-build.sh" | tail -n 1) || { echo "FAIL: rust: tools/cargo-build.sh" >&2; exit 1; }
  export ZK_CARGO_TARGET
fi

# Circuits, keys and witnesses made with snarkjs/circom for the interop and
# pipeline tests are data, the same for both trees: make them once.
export ZK_INTEROP_WORK="${ZK_INTEROP_WORK:-$here/build/interop-work}"

have_gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep '^GPU' >/dev/null; then
  have_gpu=1
fi
if [ -z "${ZK_ALLOWED_SKIPS+x}" ]; then
  allowed=()
  [ "$have_gpu" = 1 ] || allowed+=(test_cuda pipeline_test_cuda_backend)
  [ "$(id -u)" = 0 ] || allowed+=(test_pool_hugetlb deploy_test_multiuser pipeline_test_ledger_faults pipeline_test_farm_faults_pg)
  ZK_ALLOWED_SKIPS="^($(IFS='|'; echo "${allowed[*]:-}"))\$"
  [ ${#allowed[@]} -gt 0 ] || ZK_ALLOWED_SKIPS='^$'
fi
skipped_total=0 skipped_bad=()

# count_skips NAME JUNIT.xml: list and count the suite's skipped tests
count_skips() {
  local name=$1 n=0
  [ -f "$2" ] || { echo "=== $name: no test results ($2)"; skipped_bad+=("$name:(no results)"); return; }
  while IFS=$'\t' read -r t why; do
    n=$((n + 1))
    if [[ $t =~ $ZK_ALLOWED_SKIPS ]] || { [ "$name" = asan ] && [[ $t =~ ^(deploy_test_(systemd|package)|pipeline_test_(core_dump|clock_skew_pg))$ ]]; }; then
      echo "  skipped (allowed here): $t: $why"
    else
      echo "  SKIPPED (this machine can run it): $t: $why"
      skipped_bad+=("$name:$t")
    fi
  done < <(python3 - "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if t.get("status") in ("run", "fail"):
        continue
    out = (t.findtext("system-out") or "").splitlines()
    why = next((l for l in out if "skip" in l.lower()), t.get("status"))
    print("%s\t%s" % (t.get("name"), why))
PY
  )
  echo "=== $name: $n test(s) skipped ==="
  skipped_total=$((skipped_total + n))
}

# (called as `run_suite ... || fail+=...`, where set -e does not apply:
# each step checks its own status)
run_suite() {   # run_suite NAME CMAKE-ARGS...: 0 when it built and every test passed
  local name=$1 rc=0; shift
  echo "=== $name build ==="
  cmake -S . -B "build/$name" -DZK_WERROR=ON "${launcher[@]}" "$@" >/dev/null || { echo "FAIL: $name: cmake" >&2; return 1; }
  cmake --build "build/$name" -j "$jobs" || { echo "FAIL: $name: build" >&2; return 1; }
  echo "=== $name tests ==="
  rm -f "$here/build/$name/ctest-junit.xml"
  (cd "build/$name" && ctest --output-on-failure -j "$jobs" --timeout 900 \
     --output-junit "$here/build/$name/ctest-junit.xml") || rc=$?
  count_skips "$name" "$here/build/$name/ctest-junit.xml"
  return $rc
}

# CUDA (tools/deps.sh installs the toolkit) is built in the release tree
# only, and required there (-DZK_ENABLE_CUDA=ON: a release tree without
# nvcc fails at configure, it never passes with the CUDA code left out):
# for this machine's GPU when there is one, else for Hopper (sm_90) alone,
# as a compile-only lane (every major architecture takes ~10 min here; the
# default build without CMAKE_CUDA_ARCHITECTURES does that).  nvcc objects
# are not instrumented, so the sanitizer tree leaves CUDA out.
# ZK_TEST_CUDA=AUTO|OFF overrides (said in the output).
if [ -z "${ZK_CUDA_ARCHS:-}" ]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep '^GPU' >/dev/null; then
    ZK_CUDA_ARCHS=native
  else
    ZK_CUDA_ARCHS=90
  fi
fi
fail=()
cuda=${ZK_TEST_CUDA:-ON}
[ "$cuda" = ON ] || echo "=== release: ZK_ENABLE_CUDA=$cuda (ZK_TEST_CUDA): the CUDA code may be left out of this run ==="
run_suite release -DCMAKE_BUILD_TYPE=Release -DZK_ENABLE_CUDA="$cuda" \
  -DCMAKE_CUDA_ARCHITECTURES="$ZK_CUDA_ARCHS" || fail+=(release)
if [ "${ZK_SKIP_MUTANTS:-0}" != 1 ]; then
  echo "=== mutants ==="
  "$here/tools/mutants.sh" || fail+=(mutants)
fi
# The sanitizer tree is the clang tree of the suite (the release tree is
# gcc's): a tree configured earlier with another compiler is made again.
if [ -f build/asan/CMakeCache.txt ] &&
   ! grep -q '^CMAKE_C_COMPILER:.*clang' build/asan/CMakeCache.txt; then
  rm -rf build/asan
fi
CC=clang CXX=clang++ run_suite asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DZK_SANITIZE=address,undefined || fail+=(asan)
# The clang tree (tools/fuzz.sh: clang 14, ASan+UBSan, coverage): every fuzz
# target runs ZK_FUZZ_SECONDS (default 20; 0 leaves it out) from its corpus,
# 2 at a time, the corpora left unchanged.
if [ "${ZK_FUZZ_SECONDS:-20}" != 0 ]; then
  echo "=== fuzz ==="
  ZK_FUZZ_MERGE=0 "$here/tools/fuzz.sh" "${ZK_FUZZ_SECONDS:-20}" || fail+=(fuzz)
fi

echo "=== skipped: $skipped_total test(s) in all; allowed here: $ZK_ALLOWED_SKIPS ==="
if [ ${#skipped_bad[@]} -gt 0 ]; then
  echo "FAIL: skipped, though this machine can run them: ${skipped_bad[*]}" >&2
  fail+=(skips)
fi
if [ ${#fail[@]} -gt 0 ]; then
  echo "FAIL: ${fail[*]}" >&2
  exit 1
fi
echo "=== all passed ==="
