#!/usr/bin/env bash
# test_cuda_required.sh -- a build that asks for CUDA never passes without
# it: configured with -DZK_ENABLE_CUDA=ON (what tools/test-all.sh asks of
# the release tree) where there is no nvcc (none on PATH, ZK_CUDA_PREFIX
# pointing at an empty directory), cmake stops with one line that names the
# missing compiler and tools/deps.sh; configured with ZK_ENABLE_CUDA=AUTO
# there, it goes on and says cuda=OFF.  And when this tree was built with
# CUDA (the release tree of test-all), its gpud carries the kernels' code.
set -u
: "${ZK_SOURCE_DIR:?}" "${ZK_BUILD_DIR:?}" "${ZKSLOT_GPUD:?}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/empty" "$t/bin"
# (the system's cc and c++: what CC and CXX name, e.g. the sanitizer tree's
# clang, is left out with the rest of PATH: this is about nvcc only)
for tool in cmake cc gcc g++ c++ make pkg-config ld as ar ranlib nm strip; do
    p=$(command -v "$tool") && ln -s "$p" "$t/bin/$tool"
done
out=$(env -u CC -u CXX PATH="$t/bin" cmake -S "$ZK_SOURCE_DIR" -B "$t/on" -DZK_ENABLE_CUDA=ON \
      -DZK_CUDA_PREFIX="$t/empty" 2>&1); rc=$?
[ "$rc" != 0 ] || bad "ZK_ENABLE_CUDA=ON without nvcc configured (exit 0)"
msg=$(printf '%s\n' "$out" | tr '\n' ' ' | grep -o 'ZK_ENABLE_CUDA=ON but no CUDA compiler was found[^)]*)')
if [ -n "$msg" ] && [[ $msg == *tools/deps.sh* ]]; then
    echo "ok: ZK_ENABLE_CUDA=ON without nvcc stops: $msg"
else
    bad "no one-line reason naming tools/deps.sh: $(printf '%s\n' "$out" | tail -n 5)"
fi
out=$(env -u CC -u CXX PATH="$t/bin" cmake -S "$ZK_SOURCE_DIR" -B "$t/auto" -DZK_ENABLE_CUDA=AUTO \
      -DZK_CUDA_PREFIX="$t/empty" 2>&1) || bad "ZK_ENABLE_CUDA=AUTO without nvcc failed to configure"
printf '%s\n' "$out" | grep -q 'cuda=OFF' && echo "ok: AUTO without nvcc says cuda=OFF" ||
    bad "AUTO without nvcc did not say cuda=OFF"
if grep -q '^CMAKE_CUDA_COMPILER:[A-Z]*=/' "$ZK_BUILD_DIR/CMakeCache.txt" 2>/dev/null &&
   grep -q '^ZK_ENABLE_CUDA:.*=ON' "$ZK_BUILD_DIR/CMakeCache.txt"; then
    if nm -C "$ZKSLOT_GPUD" 2>/dev/null | grep -q 'cudaLaunchKernel\|__cudaRegisterFatBinary'; then
        echo "ok: this tree asked for CUDA and its gpud holds the kernels"
    else
        bad "this tree asked for CUDA but zkslot-gpud has no CUDA kernels"
    fi
else
    echo "note: this tree was configured without ZK_ENABLE_CUDA=ON (the release tree of tools/test-all.sh is)"
fi
[ "$fail" = 0 ] && echo PASS
exit "$fail"
