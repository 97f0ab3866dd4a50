#!/usr/bin/env bash
# test_gen_mont.sh -- common/ff/mont_x86_64.h is what its generator,
# common/ff/gen_mont_x86_64.py, prints now: an edit of the generator that
# was not regenerated (or an edit of the generated header) fails here.
set -u
src=${ZK_SOURCE_DIR:?}
gen=$src/common/ff/gen_mont_x86_64.py
hdr=$src/common/ff/mont_x86_64.h
command -v python3 >/dev/null || { echo "test_gen_mont.sh: no python3, skipped"; exit 77; }
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
python3 "$gen" > "$out" || { echo "test_gen_mont.sh: $gen failed"; exit 1; }
if ! cmp -s "$out" "$hdr"; then
  echo "test_gen_mont.sh: $hdr differs from what $gen prints; regenerate it:"
  echo "  python3 common/ff/gen_mont_x86_64.py > common/ff/mont_x86_64.h"
  diff "$hdr" "$out" | head -20
  exit 1
fi
echo "mont_x86_64.h matches gen_mont_x86_64.py"
