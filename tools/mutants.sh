#!/usr/bin/env bash
# mutants.sh -- a mutation check of the tests: build deliberate bugs into a
# copy of the tree, one at a time, and run the tests that must catch each.
# Every test named for a mutant must fail with it (a skip is not a catch);
# a mutant that one of its tests lets through fails the run, naming the
# tests that missed it.  tools/test-all.sh runs it after the release suite.
#
#   tools/mutants.sh [NAME...]      # default: every mutant below
#
# How, and why it is cheap enough for CI: the tree (git's tracked and
# untracked-but-not-ignored files, so the working tree as it is) is copied
# once into build/mutants/src and kept in step by content, so the one CPU
# tree build/mutants/build rebuilds only what a mutant touches (one object
# and the links).  Each mutant is a literal replacement in one source file
# (python3, which fails unless the text is there exactly once: a mutant
# that no longer applies is an error, not a pass); the file is restored
# (with a fresh mtime, so that make rebuilds it) before the next one.
# Before any mutant, the tests named below run once on the unmutated copy
# and must pass, so that a "catch" is the mutant's doing, not the
# machine's.  Only the binaries those tests use are built.  The interop
# tools and circuits are shared with the main trees (node_modules by a
# symlink, $ZK_INTEROP_WORK).
#
# Exit 0 when every mutant was caught by all of its tests; 1 otherwise;
# 2 when the check itself could not run (build, baseline, a mutant that
# does not apply).  ZK_MUTANTS_DIR moves build/mutants.  ZK_MUTANTS_EMU=0
# leaves out the gpud of tests/cuemu (its kernels as C++, ~15 s to build
# here) and the two pipeline tests that use it from pi_swap's.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${ZK_MUTANTS_DIR:-$here/build/mutants}
src=$work/src
bld=$work/build
jobs=$(nproc)
export ZK_INTEROP_WORK="${ZK_INTEROP_WORK:-$here/build/interop-work}"

# ---- the mutants --------------------------------------------------------
# mutant NAME TESTS-REGEX: the tests (ctest names, anchored) that must fail;
# then `sub FILE OLD NEW` lines in m_NAME apply it.
MUTANTS=(pi_swap wrong_index no_reaper no_checksum b2_not_negated fifo_claims fifo_slots)
# Every pipeline test that checks proofs (pipeline_test_cuda_backend runs
# gpud's CPU fallback in this CPU-only tree; _emu and device_error the
# CUDA backend on tests/cuemu).
PROOF_TESTS='pipeline_test_(e2e|bad_job|kill_synthd|kill_gpud|pool_recreate|signals|backpressure|metrics|cuda_backend|inputs|inputs_errors|inputs_kill'
if [ "${ZK_MUTANTS_EMU:-1}" = 1 ]; then
    PROOF_TESTS+='|cuda_backend_emu|device_error'
fi
PROOF_TESTS+=')'
declare -A TESTS=(
    # proof.json with pi_a and pi_c swapped (the in-memory proof, and so
    # --self-verify, stay right): only a check of the written file sees it
    [pi_swap]="^${PROOF_TESTS}\$"
    # partition k's proof and public.json written under partition k^1's index
    [wrong_index]='^pipeline_test_(e2e|pool_recreate)$'
    # the pool reaper frees nothing (FILLING or CLAIMED slots of dead owners stay)
    [no_reaper]='^(test_pool|pipeline_test_kill_synthd|pipeline_test_kill_gpud)$'
    # a claimed slot's checksum is not verified
    [no_checksum]='^(test_pool|pipeline_test_kill_gpud)$'
    # the G2 MSM (B2, the only one in the prover) adds |digit| * P for a
    # negative digit instead of -|digit| * P: pi_b wrong
    [b2_not_negated]='^(test_msm|pipeline_test_e2e)$'
    # synthd's claims ignore the class (FIFO within deadlines, as before
    # classes): docs/scheduling.md's order broken in the ledger
    [fifo_claims]='^(test_ledger|pipeline_test_priority)$'
    # gpud's claims ignore the class of READY slots
    [fifo_slots]='^(test_pool|pipeline_test_priority)$'
)
m_pi_swap() {
    sub common/groth16/json.c '"pi_a", g1_json(ops, proof->pi_a)' '"pi_a", g1_json(ops, proof->pi_c)'
    sub common/groth16/json.c '"pi_c", g1_json(ops, proof->pi_c)' '"pi_c", g1_json(ops, proof->pi_a)'
}
m_wrong_index() {
    sub gpud/output.c 'snprintf(dir, sizeof dir, "%s/%u", j->out_dir, it->p.index);' \
        'snprintf(dir, sizeof dir, "%s/%u", j->out_dir, it->p.index ^ 1u);'
}
m_no_reaper() {
    sub common/pool/proto.c 'int st = reap_slot(h, i, fn, ctx);' \
        'int st = 0; if (0) reap_slot(h, i, fn, ctx);'
}
m_no_checksum() {
    sub common/pool/proto.c '!(flags & ZK_POOL_CLAIM_NOVERIFY) && zk_pool_verify(h, ret) < 0' \
        '!(flags & ZK_POOL_CLAIM_NOVERIFY) && zk_pool_verify(h, ret) < 0 && 0'
}
m_fifo_claims() {
    sub common/ledger/ledger_internal.h '" - j.submitted_ns) / " aging " ELSE 0 END) DESC,' \
        '" - j.submitted_ns) / " aging " ELSE 0 END) * 0 DESC,'
}
m_fifo_slots() {
    sub common/pool/proto.c $'    if (prio != b_prio)\n        return prio > b_prio;\n' ''
}
m_b2_not_negated() {
    sub common/msm/msm_tmpl.h '(uint32_t)(d < 0) ^ (jb->neg ? jb->neg[t] : 0u) };' \
        '(uint32_t)(d < 0 && !MSM_IS_G2) ^ (jb->neg ? jb->neg[t] : 0u) };'
    sub common/msm/msm_tmpl.h $'        if ((d < 0) ^ (jb->neg ? jb->neg[t] : 0)) {\n            GROUP_FN(affine_neg)(&q, p);' \
        $'        if ((d < 0 && !MSM_IS_G2) ^ (jb->neg ? jb->neg[t] : 0)) {\n            GROUP_FN(affine_neg)(&q, p);'
}

# ---- machinery ----------------------------------------------------------
die() { echo "mutants: $*" >&2; exit 2; }
TOUCHED=()
sub() {   # sub FILE OLD NEW: in the copy, OLD (exactly once) -> NEW
    python3 - "$src/$1" "$2" "$3" <<'PY' || die "mutant does not apply to $1: ${2:0:60}"
import sys
path, old, new = sys.argv[1:4]
s = open(path).read()
if s.count(old) != 1:
    sys.exit("%s: %d matches for %r" % (path, s.count(old), old))
open(path, "w").write(s.replace(old, new))
PY
    TOUCHED+=("$1")
}
restore() {   # the touched files back to the tree's content, fresh mtime
    local f
    for f in "${TOUCHED[@]}"; do cp "$here/$f" "$src/$f"; done
    TOUCHED=()
}
sync_tree() {   # copy what differs (by content) from the tree into $src
    mkdir -p "$src"
    (cd "$here" && git ls-files -z --cached --others --exclude-standard) |
        python3 -c '
import os, shutil, sys
here, src = sys.argv[1:3]
n = 0
for f in sys.stdin.buffer.read().split(b"\0"):
    f = f.decode()
    a, b = os.path.join(here, f), os.path.join(src, f)
    if not f or not os.path.isfile(a) or os.path.islink(a):
        continue
    with open(a, "rb") as x:
        da = x.read()
    try:
        with open(b, "rb") as y:
            if y.read() == da:
                continue
    except FileNotFoundError:
        os.makedirs(os.path.dirname(b), exist_ok=True)
    with open(b, "wb") as y:
        y.write(da)
    shutil.copymode(a, b)
    n += 1
print("mutants: %d file(s) copied into %s" % (n, src))' "$here" "$src"
    ln -sfn "$here/tests/interop/node_modules" "$src/tests/interop/node_modules"
}
# run_tests REGEX LOG: ctest; prints "name status" lines (pass/fail/skip)
run_tests() {
    local xml=$work/junit.xml
    rm -f "$xml"
    (cd "$bld" && ctest -R "$1" -j "$jobs" --timeout 300 --output-on-failure --output-junit "$xml") >"$2" 2>&1 || true
    [ -f "$xml" ] || die "ctest wrote no results (see $2)"
    python3 - "$xml" <<'PY'
import sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    st = t.get("status")
    print(t.get("name"), {"run": "pass", "fail": "fail"}.get(st, "skip"))
PY
}

want=("${@:-${MUTANTS[@]}}")
for m in "${want[@]}"; do
    [ -n "${TESTS[$m]:-}" ] || die "no mutant named $m (${MUTANTS[*]})"
done
t_start=$(date +%s)
sync_tree
# every test of the chosen mutants, once, on the unmutated copy
all=$(for m in "${want[@]}"; do echo "${TESTS[$m]}"; done | paste -sd'|')
targets=(zkslot zkslot-synthd zkslot-gpud zkslot-apid zkslot_shared test_pool test_msm test_ledger)
[ "${ZK_MUTANTS_EMU:-1}" != 1 ] || targets+=(zkslot-gpud-emu)
echo "=== mutants: build (${targets[*]}) ==="
cmake -S "$src" -B "$bld" -DCMAKE_BUILD_TYPE=Release -DZK_ENABLE_CUDA=OFF -DZK_WERROR=OFF >"$work/cmake.log" 2>&1 ||
    die "cmake failed (see $work/cmake.log)"
build() { cmake --build "$bld" -j "$jobs" --target "${targets[@]}" >"$work/build.log" 2>&1; }
build || die "the unmutated copy does not build (see $work/build.log)"
echo "=== mutants: baseline (the tests pass unmutated) ==="
res=$(run_tests "$all" "$work/baseline.log")
echo "$res" | sed 's/^/  /'
if grep -qv ' pass$' <<<"$res"; then
    die "the baseline does not pass: $(echo "$res" | grep -v ' pass$' | tr '\n' ' ')(see $work/baseline.log)"
fi
[ -n "$res" ] || die "the baseline ran no tests"

survivors=()
declare -A KILLED
for m in "${want[@]}"; do
    t0=$(date +%s)
    "m_$m"
    if ! build; then
        restore
        die "mutant $m does not build (see $work/build.log): fix the mutant, a compile error is no catch"
    fi
    res=$(run_tests "${TESTS[$m]}" "$work/$m.log")
    restore
    missed=$(echo "$res" | awk '$2 != "fail" {print $1 "(" $2 ")"}' | paste -sd' ')
    caught=$(echo "$res" | awk '$2 == "fail" {print $1}' | paste -sd' ')
    [ -n "$res" ] || missed="(no tests ran)"
    KILLED[$m]=$caught
    if [ -n "$missed" ]; then
        survivors+=("$m")
        echo "SURVIVED: $m: missed by $missed; caught by ${caught:-none} ($(( $(date +%s) - t0 )) s, log $work/$m.log)"
    else
        echo "killed: $m: by $caught ($(( $(date +%s) - t0 )) s)"
    fi
done
build || die "the restored copy does not build"
echo "mutants: ${#want[@]} run, ${#survivors[@]} survived, $(( $(date +%s) - t_start )) s"
[ ${#survivors[@]} = 0 ] || { echo "mutants: FAIL: ${survivors[*]} survived" >&2; exit 1; }
