# fil_common.sh -- sourced by the tests in tests/filecoin/ (BUILD_DIR is
# their first argument): finds the binaries, makes the work directory and
# gives the step helpers.  After it: $zk (zkslot), $fs (zkslot-fil-synth),
# $cache (parameter cache), $work (removed on exit), $fails, and the
# functions fail, ok, now, secs, step, flip.
#
# Binaries: zkslot from $ZKSLOT_BIN, else BUILD_DIR/zkslot, else $ZKSLOT
# (ctest); zkslot-fil-synth from $ZK_CARGO_TARGET (the cargo target
# directory or its release/ folder), else /var/cache/zkslot/cargo-target/
# release.  Parameters (secret-less test parameters, generated once) are
# cached in ${ZK_FIL_CACHE:-/var/cache/zkslot/fil-params}.  Exits 77 when
# the Rust binary is not built.

build=${1:-}
zk=${ZKSLOT_BIN:-}
if [ -z "$zk" ] && [ -n "$build" ] && [ -x "$build/zkslot" ]; then zk=$build/zkslot; fi
[ -n "$zk" ] || zk=${ZKSLOT:-}
[ -x "$zk" ] || { echo "FAIL: no zkslot binary (pass the build directory, or set ZKSLOT_BIN)"; exit 1; }

tgt=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target/release}
fs=$tgt/zkslot-fil-synth
[ -x "$fs" ] || fs=$tgt/release/zkslot-fil-synth
if [ ! -x "$fs" ]; then
    echo "SKIP: zkslot-fil-synth is not built in $tgt (cargo build --release --locked)"
    exit 77
fi
cache=${ZK_FIL_CACHE:-/var/cache/zkslot/fil-params}
mkdir -p "$cache"

work=$(mktemp -d "${TMPDIR:-/tmp}/zk-fil.XXXXXX")
trap 'rm -rf "$work"' EXIT

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# step NAME LIMIT CMD...: runs CMD bounded by LIMIT seconds, prints its time
# and output on failure; the exit status is CMD's.
step() {
    local name=$1 limit=$2 t rc=0
    shift 2
    t=$(now)
    timeout "$limit" "$@" >"$work/out" 2>"$work/err" || rc=$?
    echo "time: $name: $(secs "$t") s (exit $rc)"
    if [ $rc -ne 0 ]; then sed 's/^/  | /' "$work/out" "$work/err" | tail -n 20; fi
    return $rc
}

# flip FILE OFFSET: flips the low bit of one byte in place.
flip() {
    local b
    b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

echo "zkslot: $zk"
echo "zkslot-fil-synth: $fs"
echo "parameter cache: $cache"
