#!/usr/bin/env bash
# test_headers.sh -- every public header in common/include/zk/ compiles on its
# own, as C17 and as C++17, with the project's warnings and only
# common/include on the include path, so that none includes a private header
# (docs/testing.md, "Public headers").
set -u
src=${ZK_SOURCE_DIR:?}
cc=${CC:-cc}; cxx=${CXX:-c++}
fail=0; n=0
for h in "$src"/common/include/zk/*.h; do
  n=$((n + 1))
  for lang in c c++; do
    if [ "$lang" = c ]; then comp=$cc; std=-std=gnu17; else comp=$cxx; std=-std=gnu++17; fi
    if ! echo "#include \"$h\"" | $comp -x $lang $std -fsyntax-only -Wall -Wextra -Werror \
        -I"$src/common/include" - 2>/tmp/zk_hdr_err.$$; then
      echo "FAIL: $(basename "$h") does not compile alone as $lang:"
      cat /tmp/zk_hdr_err.$$
      fail=1
    fi
  done
done
rm -f /tmp/zk_hdr_err.$$
echo "checked $n public headers as C and C++"
[ "$n" -gt 0 ] || { echo "no headers found"; exit 1; }
exit $fail
