#!/usr/bin/env bash
# test_cpucheck.sh -- common/util/cpucheck.c, the refusal of a build that
# needs BMI2 and ADX (ZK_X86_ADX, the Debian package) on a CPU without them:
#   - every program and libzkslot.so carries its constructor (the object
#     CMake adds to whatever links zkcommon; a new program that missed it
#     would die of SIGILL there instead of saying why);
#   - this tree's programs, built without ZK_X86_ADX, do not need ADX: the
#     test hook ZKSLOT_TEST_CPU_NO_ADX=1 leaves them running;
#   - the file compiled as such a build compiles it (ZK_NEEDS_ADX=1) into a
#     small program: with the hook it prints the one line and exits 2
#     before main; without it, it runs on this CPU when /proc/cpuinfo has
#     bmi2 and adx, and refuses the same way when not;
#   - compiled as the package compiles it (ZK_TEST_HOOKS=0 too: the test
#     hooks off), it ignores the hook unless ZKSLOT_TEST_HOOKS=1.
# The package's own programs are checked by deploy_test_package.
set -u
: "${ZK_SOURCE_DIR:?}" "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZKSLOT_APID:?}" "${ZKSLOT_LIB:?}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
for f in "$ZKSLOT" "$ZKSLOT_SYNTHD" "$ZKSLOT_GPUD" "$ZKSLOT_APID" "$ZKSLOT_LIB"; do
    nm "$f" 2>/dev/null | grep -qE ' t zk_cpucheck$' || bad "$(basename "$f") has no CPU check"
done
for f in "$ZKSLOT" "$ZKSLOT_SYNTHD" "$ZKSLOT_GPUD" "$ZKSLOT_APID"; do
    ZKSLOT_TEST_CPU_NO_ADX=1 "$f" --version >/dev/null 2>&1 ||
        bad "$(basename "$f") (no ZK_X86_ADX) refused under the hook"
done

t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
printf 'int main(void) { return 7; }\n' >"$t/main.c"
"${ZK_CC:-cc}" -O2 -mno-bmi2 -mno-adx -DZK_NEEDS_ADX=1 -DZK_TEST_HOOKS=1 -o "$t/needs" \
    "$ZK_SOURCE_DIR/common/util/cpucheck.c" "$t/main.c" 2>"$t/cc.err" ||
    { bad "cpucheck.c does not compile: $(cat "$t/cc.err")"; exit 1; }
out=$(ZKSLOT_TEST_CPU_NO_ADX=1 "$t/needs" 2>&1); rc=$?
[ "$rc" = 2 ] || bad "under the hook: exit $rc, not 2 (main ran: 7)"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && grep -q '^zkslot: this build needs an x86-64 CPU with BMI2 and ADX' <<<"$out" ||
    bad "under the hook it said: '$out'"
out=$("$t/needs" 2>&1); rc=$?
if grep -qw bmi2 /proc/cpuinfo && grep -qw adx /proc/cpuinfo; then
    [ "$rc" = 7 ] && [ -z "$out" ] || bad "on this CPU (bmi2 adx): exit $rc, '$out'"
else
    [ "$rc" = 2 ] || bad "on this CPU (no bmi2 or adx): exit $rc, not 2"
fi
if grep -qw bmi2 /proc/cpuinfo && grep -qw adx /proc/cpuinfo; then
    "${ZK_CC:-cc}" -O2 -mno-bmi2 -mno-adx -DZK_NEEDS_ADX=1 -DZK_TEST_HOOKS=0 -o "$t/pkg" \
        "$ZK_SOURCE_DIR/common/util/cpucheck.c" "$t/main.c" 2>"$t/cc.err" ||
        { bad "cpucheck.c with ZK_TEST_HOOKS=0 does not compile: $(cat "$t/cc.err")"; exit 1; }
    out=$(ZKSLOT_TEST_CPU_NO_ADX=1 "$t/pkg" 2>&1); rc=$?
    [ "$rc" = 7 ] && [ -z "$out" ] || bad "without test hooks, the hook alone: exit $rc, '$out' (not ignored)"
    out=$(ZKSLOT_TEST_HOOKS=1 ZKSLOT_TEST_CPU_NO_ADX=1 "$t/pkg" 2>&1); rc=$?
    [ "$rc" = 2 ] || bad "without test hooks, the hook and ZKSLOT_TEST_HOOKS=1: exit $rc, '$out' (not 2)"
fi
[ "$fail" = 0 ] && echo "the CPU check: in 5 binaries, refuses under the hook, runs on this CPU"
exit $fail
