#!/usr/bin/env bash
# test_symbols.sh -- libzkslot exports exactly the symbols docs/library.md
# lists ("Exported symbols"), every one zkslot_*, under the versioned
# soname libzkslot.so.0; debian/libzkslot0.symbols (the Debian package's
# symbols file, which the package build holds the library to) lists the
# same symbols, each in the version node ZKSLOT_0 of lib/zkslot.map.
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
sym=$ZK_SOURCE_DIR/debian/libzkslot0.symbols
deb=$(grep -E '^ zkslot_' "$sym" | sed 's/^ \([^@ ]*\)@.*/\1/' | sort)
if [ "$doc" != "$deb" ]; then
    echo "FAIL: debian/libzkslot0.symbols differs from docs/library.md (< doc, > symbols file):"
    diff <(echo "$doc") <(echo "$deb") || true
    fail=1
fi
other=$(grep -E '^ ' "$sym" | grep -Ev '^ [A-Za-z0-9_]+@ZKSLOT_0 [0-9.]+$' || true)
[ -z "$other" ] || { echo "FAIL: debian/libzkslot0.symbols: not NAME@ZKSLOT_0 VERSION: $other"; fail=1; }
grep -q '^libzkslot.so.0 libzkslot0 ' "$sym" || { echo "FAIL: debian/libzkslot0.symbols: no 'libzkslot.so.0 libzkslot0' line"; fail=1; }
soname=$(readelf -d "$ZKSLOT_LIB" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libzkslot.so.0 ] || { echo "FAIL: soname '$soname'"; fail=1; }
[ "$fail" = 0 ] && echo "ok: $(echo "$lib" | wc -l) symbols, all documented and in debian/libzkslot0.symbols, soname $soname"
exit $fail
