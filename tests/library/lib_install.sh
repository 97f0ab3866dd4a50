# lib_install.sh -- libzkslot installed to a staging prefix and the example
# producer built against it through pkg-config alone.  Source it after
# pl_init (tests/pipeline/lib.sh):
#
#   lib_install || exit 1   # -> LIB_PREFIX, LIB_DIR (libzkslot.so there), LIB_EXAMPLE
#   lib_example_key bn128   # the bundled example key registered, its 4 witnesses
#
# The example is copied out of the tree and built with its own Makefile,
# PKG_CONFIG_PATH naming only the staging prefix.  A sanitizer tree's
# library needs the sanitizer's runtime in the program: the example is then
# built with the tree's compiler and -fsanitize (ZK_SANITIZE, ZK_CC).

lib_install() {
    : "${ZK_BUILD_DIR:?}" "${ZK_SOURCE_DIR:?}"
    LIB_PREFIX=$PL_W/prefix
    cmake --install "$ZK_BUILD_DIR" --prefix "$LIB_PREFIX" >"$PL_W/install.log" 2>&1 ||
        { pl_bad "cmake --install: $(tail -n 3 "$PL_W/install.log")"; return 1; }
    local pc
    pc=$(find "$LIB_PREFIX" -name zkslot.pc | head -n 1)
    [ -n "$pc" ] || { pl_bad "no zkslot.pc under $LIB_PREFIX"; return 1; }
    LIB_DIR=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_LIBDIR= \
              pkg-config --variable=libdir zkslot)
    [ -e "$LIB_DIR/libzkslot.so.0" ] && [ -f "$LIB_PREFIX/include/zkslot.h" ] ||
        { pl_bad "the installed library or header is missing"; return 1; }
    cp -r "$ZK_SOURCE_DIR/examples/external-synth" "$PL_W/example"
    rm -f "$PL_W/example/external-synth"
    local make_args=()
    if [ -n "${ZK_SANITIZE:-}" ]; then
        make_args=(CC="${ZK_CC:-cc}" CFLAGS="-O1 -g -fsanitize=$ZK_SANITIZE"
                   LDFLAGS="-fsanitize=$ZK_SANITIZE")
    fi
    PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_LIBDIR= \
        make -C "$PL_W/example" "${make_args[@]}" >"$PL_W/make.log" 2>&1 ||
        { pl_bad "make of examples/external-synth: $(tail -n 5 "$PL_W/make.log")"; return 1; }
    LIB_EXAMPLE=$PL_W/example/external-synth
    export LD_LIBRARY_PATH=$LIB_DIR
}

# lib_example_key CURVE: examples/groth16/CURVE's key registered as
# "CURVE-multi", with PL_KEY, PL_VK, PL_KEYNAME, PL_CURVE and its four
# witnesses in PL_WTNS (for pl_check_job).
lib_example_key() {
    local ex=$ZK_SOURCE_DIR/examples/groth16/$1
    PL_CURVE=$1
    PL_KEY=$ex/key.zkey
    PL_VK=$ex/vk.json
    PL_WTNS=("$ex"/witness-{1,2,3,4}.wtns)
    PL_KEYNAME=$1-multi
    "$ZKSLOT" key add "$PL_KEYNAME" "$PL_KEY" >/dev/null || { pl_bad "key add"; return 1; }
}
