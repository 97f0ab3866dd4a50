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
    pc=$(find "$LIB_PREFIX" -name zkslot.pc -print -quit)
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
    "$ZKSLOT" key list 2>/dev/null | grep -w -- "$PL_KEYNAME" >/dev/null ||
        "$ZKSLOT" key add "$PL_KEYNAME" "$PL_KEY" >/dev/null || { pl_bad "key add"; return 1; }
}

# lib_external_synth CURVE: the example producer (lib_install) feeds the
# running pool and gpud: a job of CURVE's 4 example witnesses, every proof
# accepted (pl_check_job); the installed library exports nothing outside
# zkslot_*.  0, or 1 with the failures recorded.
lib_external_synth() {
    local other job
    lib_install || return 1
    other=$(nm -D --defined-only "$LIB_DIR/libzkslot.so.0" |
            awk '$2 ~ /^[TDBRVW]$/ && $3 !~ /^zkslot_/ { print $3 }')
    [ -z "$other" ] || pl_bad "the installed library exports: $other"
    lib_example_key "$1" || return 1
    "$LIB_EXAMPLE" "$PL_KEYNAME" "${PL_WTNS[@]}" >"$PL_W/example.out" 2>"$PL_W/example.log" ||
        { pl_bad "external-synth exit $?: $(tail -n 3 "$PL_W/example.log")"; return 1; }
    job=$(tail -n 1 "$PL_W/example.out")
    [[ $job =~ ^[0-9]+$ ]] || { pl_bad "external-synth's last line is not a job id: '$job'"; return 1; }
    [ "$(grep -c 'published$' "$PL_W/example.log")" = 4 ] ||
        pl_bad "external-synth did not publish 4 partitions: $(cat "$PL_W/example.log")"
    pl_expect "$job" "${PL_WTNS[@]}"
    pl_wait "$job" 120 && pl_check_job "$job" 4 &&
        echo "ok: $PL_NPROOFS proofs of external-synth accepted"
}

# lib_finish: the daemons stopped (each must exit 0 on SIGTERM), `zkslot
# pool check` clean, the pool destroyed; ends the test (pl_done).
lib_finish() {
    local p
    for p in "${PL_SYNTHD_PIDS[@]}" "${PL_GPUD_PIDS[@]}"; do
        pl_stop "$p"
        [ "$PL_RC" = 0 ] || pl_bad "daemon $p exit $PL_RC after SIGTERM"
    done
    "$ZKSLOT" pool check >"$PL_W/check.out" 2>&1 || pl_bad "pool check: $(cat "$PL_W/check.out")"
    pl_pool_clean
    pl_done
}
