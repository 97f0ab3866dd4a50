#!/usr/bin/env bash
# test_symbols.sh -- libzkslot exports exactly the symbols docs/library.md
# lists ("Exported symbols"), every one zkslot_*, under the versioned
# soname libzkslot.so.0.
set -euo pipefail
: "${ZKSLOT_LIB:?}" "${ZK_SOURCE_DIR:?}"
fail=0
doc=$(sed -n '/^## Exported symbols/,/^## /p' "$ZK_SOURCE_DIR/docs/library.md" |
      sed -n '/^```text/,/^```$/p' | grep -E '^zkslot_' | sort)
lib=$(nm -D --defined-only "$ZKSLOT_LIB" | awk '$2 ~ /^[TDBRVW]$/ { sub(/@.*/, "", $3); print $3 }' | sort)
[ "$(echo "$doc" | wc -l)" -ge 10 ] || { echo "FAIL: docs/library.md lists $(echo "$doc" | wc -l) symbols"; exit 1; }
if [ "$doc" != "$lib" ]; then
    echo "FAIL: exported symbols differ from docs/library.md (< doc, > library):"
    diff <(echo "$doc") <(echo "$lib") || true
    fail=1
fi
bad=$(echo "$lib" | grep -v '^zkslot_' || true)
[ -z "$bad" ] || { echo "FAIL: exported outside zkslot_*: $bad"; fail=1; }
soname=$(readelf -d "$ZKSLOT_LIB" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libzkslot.so.0 ] || { echo "FAIL: soname '$soname'"; fail=1; }
[ "$fail" = 0 ] && echo "ok: $(echo "$lib" | wc -l) symbols, all documented, soname $soname"
exit $fail
