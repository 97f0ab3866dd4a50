#!/usr/bin/env bash
# fuzz.sh [SECONDS] -- builds the libFuzzer tree (clang, -DZK_FUZZ=ON: the
# library instrumented for coverage, ASan + UBSan) and runs every target of
# tests/fuzz/ for SECONDS each (default 60), ZK_FUZZ_JOBS at a time
# (default 2), each from its corpus (tests/fuzz/corpus/<parser>/) and with
# its dictionary (tests/fuzz/<parser>.dict) when there is one.  Then, unless
# ZK_FUZZ_MERGE=0, the inputs that reached new coverage are merged into the
# corpora (libFuzzer -merge=1: only what adds features, inputs of at most
# ZK_FUZZ_MAX_LEN bytes, default 8192; of those the ZK_FUZZ_MERGE_MAX
# smallest per target, default 16), named fuzz-<sha1 prefix>.
#
# Prints one line per target: executions, coverage reached (libFuzzer's
# "cov", edges of instrumented code), inputs merged, and any crash with its
# reproducer and the command that replays it.  Exit 0 when no target
# crashed, 1 otherwise.  A crash is fixed, then kept as a regression:
# copied into tests/fuzz/corpus/<parser>/.repro/ under the bug's name (the
# replay tests run it in every build).
#
# Environment: ZK_FUZZ_BUILD (build directory, default build/fuzz),
# ZK_FUZZ_TARGETS (names without fuzz_, default all), ZK_FUZZ_JOBS,
# ZK_FUZZ_MERGE, ZK_FUZZ_MERGE_MAX, ZK_FUZZ_MAX_LEN.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
secs=${1:-60}
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || { echo "usage: tools/fuzz.sh [SECONDS]" >&2; exit 2; }
build=${ZK_FUZZ_BUILD:-build/fuzz}
jobs=${ZK_FUZZ_JOBS:-2}
merge=${ZK_FUZZ_MERGE:-1}
max_len=${ZK_FUZZ_MAX_LEN:-8192}
merge_max=${ZK_FUZZ_MERGE_MAX:-16}
command -v clang >/dev/null || { echo "fuzz.sh: clang is not installed (tools/deps.sh installs it)" >&2; exit 2; }

if [ -n "${ZK_FUZZ_TARGETS:-}" ]; then
  read -r -a targets <<<"$ZK_FUZZ_TARGETS"
else
  targets=()
  for f in tests/fuzz/fuzz_*.c; do t=${f##*/fuzz_}; targets+=("${t%.c}"); done
fi
for t in "${targets[@]}"; do
  [ -f "tests/fuzz/fuzz_$t.c" ] || { echo "fuzz.sh: no target tests/fuzz/fuzz_$t.c" >&2; exit 2; }
done

echo "=== fuzz build ($build) ==="
CC=clang CXX=clang++ cmake -S . -B "$build" -DZK_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DZK_ENABLE_CUDA=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}" >/dev/null

work="$here/$build/fuzz-work"
# run_one T: fuzz target T for $secs into $work/T/ (log, new inputs, crashes)
run_one() {
  local t=$1 w="$work/$1" dict=() rc=0
  rm -rf "$w" && mkdir -p "$w/new" "$w/crashes"
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  # exit status: libFuzzer's own (nonzero on a crash, leak or timeout);
  # timeout(1) only stops a target that hangs past its time
  timeout -k 10 $((secs + 120)) "$build/tests/fuzz_$t" -max_total_time="$secs" \
    -max_len="$max_len" -timeout=20 -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$w/crashes/" "$w/new" "tests/fuzz/corpus/$t" >"$w/log" 2>&1 || rc=$?
  echo "$rc" >"$w/rc"
}

echo "=== fuzzing ${#targets[@]} target(s), ${secs} s each, $jobs at a time ==="
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true

crashed=0
printf '%-10s %12s %8s %8s  %s\n' target executions cov merged result
for t in "${targets[@]}"; do
  w="$work/$t" rc=$(cat "$work/$t/rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log" | tail -1)
  cov=$({ grep -o 'cov: [0-9]*' "$w/log" || true; } | tail -1 | cut -d' ' -f2)
  merged=0
  if [ "$rc" = 0 ] && [ "$merge" = 1 ]; then
    before=$(ls "tests/fuzz/corpus/$t" | wc -l)
    "$build/tests/fuzz_$t" -merge=1 -max_len="$max_len" "tests/fuzz/corpus/$t" "$w/new" \
      >"$w/merge.log" 2>&1 || { echo "fuzz.sh: $t: merge failed ($w/merge.log)" >&2; rc=1; }
    # libFuzzer names what it added by sha1: keep the smallest
    # $merge_max, named fuzz-<sha1 prefix>, and drop the others
    n=0
    while read -r _ f; do
      b=${f##*/}
      n=$((n + 1))
      if [ "$n" -le "$merge_max" ]; then mv "$f" "tests/fuzz/corpus/$t/fuzz-${b:0:12}"; else rm -f "$f"; fi
    done < <(find "tests/fuzz/corpus/$t" -maxdepth 1 -type f -regextype egrep \
               -regex '.*/[0-9a-f]{40}' -printf '%s %p\n' | sort -n)
    merged=$(( $(ls "tests/fuzz/corpus/$t" | wc -l) - before ))
  fi
  result=ok
  if [ "$rc" != 0 ]; then
    crashed=1
    result="CRASH (exit $rc), log $w/log"
  fi
  printf '%-10s %12s %8s %8s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "$merged" "$result"
  for a in "$w"/crashes/*; do
    [ -e "$a" ] || continue
    echo "    reproducer: $a"
    echo "    replay:     $build/tests/fuzz_$t $a"
    grep -m1 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$w/log" | sed 's/^/    /' || true
  done
done
[ "$crashed" = 0 ] || { echo "FAIL: a fuzz target crashed (see above)" >&2; exit 1; }
echo "=== fuzz: no crash ==="
