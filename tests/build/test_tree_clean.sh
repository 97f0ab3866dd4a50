#!/usr/bin/env bash
# test_tree_clean.sh -- an out-of-tree build leaves the source tree clean: no
# CMake or compiler outputs anywhere in the source tree outside the build
# directories (build/, build-*/) and node_modules.
set -u
src=${ZK_SOURCE_DIR:?}
found=$(find "$src" \( -path "$src/.git" -o -path "$src/build" -o -path "$src/build-*" \
          -o -name node_modules \) -prune -o \
        \( -name CMakeCache.txt -o -name CMakeFiles -o -name '*.o' -o -name '*.a' \
           -o -name cmake_install.cmake -o -name CTestTestfile.cmake \) -print)
if [ -n "$found" ]; then
  echo "build outputs inside the source tree:"; echo "$found"; exit 1
fi
echo "source tree clean of build outputs"
