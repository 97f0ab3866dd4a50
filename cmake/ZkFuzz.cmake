# ZkFuzz.cmake -- what clang builds and the libFuzzer tree need.
#
# zk_clang_flags()   clang-only warning choices, for every clang tree.
# zk_fuzz_setup()    with ZK_FUZZ=ON: checks that the compiler is clang,
#                    turns ASan + UBSan on (ZK_SANITIZE, unless given) and
#                    instruments every C/C++ object for coverage
#                    (-fsanitize=fuzzer-no-link), so libFuzzer sees the
#                    branches of the library code the targets reach, not
#                    only those of the target files.  Call it before the
#                    ZK_SANITIZE flags are added.
# zk_fuzz_target(NAME SRC)  a libFuzzer binary (links libFuzzer's main).
#
# Binaries other than the fuzz targets link without libFuzzer: the
# coverage callbacks have default definitions in the sanitizer runtime.

macro(zk_clang_flags)
  if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
    # clang's heuristic flags an array of strings in which one element is
    # built from several adjacent literals (a migration of several SQL
    # statements, a long message): that is how the code writes them.
    add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-Wno-string-concatenation>)
  endif()
endmacro()

macro(zk_fuzz_setup)
  if(ZK_FUZZ)
    if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
      message(FATAL_ERROR "ZK_FUZZ=ON needs clang (libFuzzer): configure with "
                          "CC=clang CXX=clang++ in a fresh build directory; "
                          "this one uses ${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER}")
    endif()
    if(NOT ZK_SANITIZE)
      set(ZK_SANITIZE "address,undefined" CACHE STRING "Sanitizers, e.g. address,undefined" FORCE)
    endif()
    add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>)
  endif()
endmacro()

function(zk_fuzz_target name)
  add_executable(${name} ${ARGN})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
endfunction()
