#!/usr/bin/env bash
# test_hooks.sh -- the test hooks (common/util/testhook.h, docs/configuration.md
# "Test hooks") act only in a build for tests or with ZKSLOT_TEST_HOOKS=1,
# and a daemon with one set says so at start (issue 46):
#   - this tree's synthd (ZK_TEST_HOOKS=ON, the build tree's default) with
#     ZKSLOT_TEST_FILL_DELAY_MS set logs one "test hooks active:" warning
#     naming it; with none set, no such line;
#   - the CLI and synthd configured and built with -DZK_TEST_HOOKS=OFF (as
#     the Debian package is) in $ZK_BUILD_DIR/hooks-off, with this tree's
#     compiler and flags (ccache makes it cheap after the first time):
#     ZKSLOT_TEST_LEDGER_EIO (a trigger file: every ledger write fails)
#     leaves `zkslot key add` working, unless ZKSLOT_TEST_HOOKS=1 is set
#     too, when it fails with the I/O error; that synthd logs "test hooks
#     ignored:" naming the hook, and "active" with ZKSLOT_TEST_HOOKS=1.
set -u
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZK_SOURCE_DIR:?}" "${ZK_BUILD_DIR:?}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v cmake >/dev/null || { echo "SKIP: no cmake"; exit 77; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
export ZKSLOT_CONFIG=/dev/null ZKSLOT_STATE_DIR=$t/state
unset ZKSLOT_TEST_HOOKS
key=$ZK_SOURCE_DIR/examples/groth16/bn128/key.zkey

# hooks_line PROG [VAR=VALUE...]: the start-up lines on test hooks of
# PROG --check-config (it reads the environment, logs, prints the
# configuration and exits)
hooks_line() {
    local p=$1; shift
    env "$@" "$p" --check-config 2>&1 >/dev/null | grep -E 'test hooks (active|ignored)'
}

# ---- this tree: hooks on, and said ------------------------------------------
out=$(hooks_line "$ZKSLOT_SYNTHD" ZKSLOT_TEST_FILL_DELAY_MS=5)
[ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] &&
    grep -q 'warning: test hooks active: ZKSLOT_TEST_FILL_DELAY_MS=5' <<<"$out" ||
    bad "synthd (ZK_TEST_HOOKS=ON) with a hook set: '$out', not one 'test hooks active' line naming it"
out=$(hooks_line "$ZKSLOT_SYNTHD")
[ -z "$out" ] || bad "synthd with no hook set said: '$out'"

# ---- a build without test hooks ------------------------------------------------
cache=$ZK_BUILD_DIR/CMakeCache.txt
val() { sed -n "s/^$1:[A-Z]*=//p" "$cache"; }
O=$ZK_BUILD_DIR/hooks-off
args=(-DZK_TEST_HOOKS=OFF -DBUILD_TESTING=OFF -DZK_ENABLE_CUDA=OFF
      "-DCMAKE_BUILD_TYPE=$(val CMAKE_BUILD_TYPE)" "-DCMAKE_C_COMPILER=$(val CMAKE_C_COMPILER)"
      "-DCMAKE_CXX_COMPILER=$(val CMAKE_CXX_COMPILER)" "-DZK_SANITIZE=$(val ZK_SANITIZE)"
      "-DZK_NATIVE=$(val ZK_NATIVE)" "-DZK_WERROR=$(val ZK_WERROR)")
l=$(val CMAKE_C_COMPILER_LAUNCHER)
[ -z "$l" ] || args+=("-DCMAKE_C_COMPILER_LAUNCHER=$l" "-DCMAKE_CXX_COMPILER_LAUNCHER=$l")
t0=$SECONDS
cmake -S "$ZK_SOURCE_DIR" -B "$O" "${args[@]}" >"$t/cmake.log" 2>&1 &&
    cmake --build "$O" -j"$(nproc)" --target zkslot zkslot-synthd >>"$t/cmake.log" 2>&1 ||
    { bad "the build with -DZK_TEST_HOOKS=OFF: $(tail -n 20 "$t/cmake.log")"; exit 1; }
echo "built zkslot and zkslot-synthd with -DZK_TEST_HOOKS=OFF in $((SECONDS - t0)) s"
cli=$O/zkslot synthd=$O/synthd/zkslot-synthd

: >"$t/eio"                      # the hook's trigger: every ledger write fails
mkdir "$t/state" && out=$(ZKSLOT_TEST_LEDGER_EIO=$t/eio "$cli" key add k "$key" 2>&1) ||
    bad "the OFF build obeyed ZKSLOT_TEST_LEDGER_EIO without ZKSLOT_TEST_HOOKS=1: '$out'"
rm -rf "$t/state" && mkdir "$t/state"
out=$(ZKSLOT_TEST_HOOKS=1 ZKSLOT_TEST_LEDGER_EIO=$t/eio "$cli" key add k "$key" 2>&1) &&
    bad "the OFF build ignored ZKSLOT_TEST_LEDGER_EIO under ZKSLOT_TEST_HOOKS=1: '$out'"
grep -q 'disk I/O error' <<<"$out" ||
    bad "the OFF build under ZKSLOT_TEST_HOOKS=1 and the hook: '$out', not the I/O error"
rm -rf "$t/state" && mkdir "$t/state"
out=$(ZKSLOT_TEST_HOOKS=2 ZKSLOT_TEST_LEDGER_EIO=$t/eio "$cli" key add k "$key" 2>&1) ||
    bad "the OFF build took ZKSLOT_TEST_HOOKS=2 for 1: '$out'"

out=$(hooks_line "$synthd" ZKSLOT_TEST_FILL_DELAY_MS=5)
[ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] &&
    grep -q 'warning: test hooks ignored: ZKSLOT_TEST_FILL_DELAY_MS=5' <<<"$out" ||
    bad "the OFF synthd with a hook set: '$out', not one 'test hooks ignored' line naming it"
out=$(hooks_line "$synthd" ZKSLOT_TEST_HOOKS=1 ZKSLOT_TEST_FILL_DELAY_MS=5)
grep -q 'warning: test hooks active: ZKSLOT_TEST_FILL_DELAY_MS=5' <<<"$out" ||
    bad "the OFF synthd under ZKSLOT_TEST_HOOKS=1 with a hook set: '$out'"
[ "$fail" = 0 ] && echo "test hooks: act and are said in a build for tests; ignored by one without unless ZKSLOT_TEST_HOOKS=1"
exit $fail
