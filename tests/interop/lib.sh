# lib.sh -- shell functions that make snarkjs/circom test files for zkslot:
# compile a circuit for a curve, make a small powers of tau, Groth16 setup
# with contributions, compute a witness.  Source it from bash:
#
#   . "$ZK_SOURCE_DIR/tests/interop/lib.sh"
#   zk_interop_init || exit 77           # reason in $ZK_INTEROP_SKIP
#   d=$(zk_build poseidon bn128)         # -> $d/poseidon.{r1cs,zkey,wtns}
#
# Tools: the pinned npm packages of tests/interop/package-lock.json
# (snarkjs 0.7.6, circom2, circomlib), installed by `npm ci` there
# (tools/deps.sh).  Outputs are cached under $ZK_BUILD_DIR/interop-work
# (or $ZK_INTEROP_WORK), keyed by curve, circuit name and source hash, so
# reruns only redo what changed.  Each function prints the path(s) it made
# on stdout; tool chatter goes to $ZK_INTEROP_WORK/log.  Curves are named
# as snarkjs names them: bn128, bls12381.

ZK_INTEROP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ZK_INTEROP_NM="$ZK_INTEROP_DIR/node_modules"
: "${ZK_INTEROP_WORK:=${ZK_BUILD_DIR:-$ZK_INTEROP_DIR/../../build}/interop-work}"

# zk_interop_init: 0 when node and the pinned modules are there (and makes
# the work dir); else 1 with the reason in ZK_INTEROP_SKIP.
zk_interop_init() {
    ZK_INTEROP_SKIP=
    if ! command -v node >/dev/null 2>&1; then
        ZK_INTEROP_SKIP="node is not installed"
    elif [ ! -f "$ZK_INTEROP_NM/snarkjs/cli.js" ] || [ ! -f "$ZK_INTEROP_NM/circom2/cli.js" ] ||
         [ ! -d "$ZK_INTEROP_NM/circomlib/circuits" ]; then
        ZK_INTEROP_SKIP="npm modules missing: run 'npm ci' in tests/interop (tools/deps.sh)"
    fi
    [ -z "$ZK_INTEROP_SKIP" ] || return 1
    mkdir -p "$ZK_INTEROP_WORK"
}

zk_snarkjs() { node "$ZK_INTEROP_NM/snarkjs/cli.js" "$@"; }
# circom2 (WASI) reaches files only below its working directory: run it from /.
zk_circom() { (cd / && node "$ZK_INTEROP_NM/circom2/cli.js" "$@"); }

# Run a tool quietly, its output appended to the log; on failure show the tail.
zk__run() {
    local log="$ZK_INTEROP_WORK/log"
    echo "+ $*" >>"$log"
    if ! "$@" >>"$log" 2>&1; then
        echo "interop: failed: $*" >&2
        tail -n 15 "$log" >&2
        return 1
    fi
}

zk__hash() { cat "$@" | sha256sum | cut -c1-12; }

zk__check_curve() {
    case "$1" in
    bn128 | bls12381) return 0 ;;
    *) echo "interop: unknown curve '$1' (bn128 or bls12381)" >&2; return 1 ;;
    esac
}

# zk_chain_circuit N: a main file instantiating Chain(N) from
# circuits/chain.circom (N constraints); prints its path.
zk_chain_circuit() {
    local n=$1 d="$ZK_INTEROP_WORK/src"
    local f="$d/chain_$n.circom"
    mkdir -p "$d"
    if [ ! -f "$f" ]; then
        printf 'pragma circom 2.0.0;\ninclude "chain.circom";\ncomponent main {public [x]} = Chain(%s);\n' \
            "$n" >"$f.tmp.$$" && mv "$f.tmp.$$" "$f"
    fi
    echo "$f"
}

# zk_circuit_src NAME: the .circom file of NAME ("chain_N" -> zk_chain_circuit N).
zk_circuit_src() {
    case "$1" in
    chain_[0-9]*) zk_chain_circuit "${1#chain_}" ;;
    *) echo "$ZK_INTEROP_DIR/circuits/$1.circom" ;;
    esac
}

# zk_compile NAME CURVE: compile with circom2 --r1cs --wasm --prime CURVE
# (plus $ZK_CIRCOM_OPT when set, e.g. --O2: circom2's default is --O1);
# prints the output dir holding NAME.r1cs and NAME_js/NAME.wasm.
zk_compile() {
    local name=$1 curve=$2 src
    zk__check_curve "$curve" || return 1
    src=$(zk_circuit_src "$name") || return 1
    [ -f "$src" ] || { echo "interop: no circuit $src" >&2; return 1; }
    local h opt=${ZK_CIRCOM_OPT:-}
    h=$(zk__hash "$src" "$ZK_INTEROP_DIR/circuits/chain.circom")
    local d="$ZK_INTEROP_WORK/$curve/$name-$h${opt:+-${opt#--}}"
    if [ ! -f "$d/$name.r1cs" ] || [ ! -f "$d/${name}_js/$name.wasm" ]; then
        # a private temporary dir, renamed into place: tests running in
        # parallel (ctest -j) may compile the same circuit at once
        local t="$d.tmp.$$"
        rm -rf "$t" && mkdir -p "$t"
        zk__run zk_circom "$src" --r1cs --wasm --prime "$curve" $opt -l "$ZK_INTEROP_NM" \
            -l "$ZK_INTEROP_DIR/circuits" \
            -o "$t" || { rm -rf "$t"; return 1; }
        local base
        base=$(basename "$src" .circom)
        if [ "$base" != "$name" ]; then
            mv "$t/$base.r1cs" "$t/$name.r1cs" &&
            mv "$t/${base}_js" "$t/${name}_js" &&
            mv "$t/${name}_js/$base.wasm" "$t/${name}_js/$name.wasm" || { rm -rf "$t"; return 1; }
        fi
        rm -rf "$d"   # an incomplete one (no r1cs or wasm)
        mv -T "$t" "$d" 2>/dev/null || rm -rf "$t"   # lost the race: theirs is complete
    fi
    echo "$d"
}

# zk_r1cs_domain_power R1CS: log2 of the Groth16 domain snarkjs will use,
# i.e. the smallest p with 2^p >= nConstraints + nPublic + 1 (at least 1);
# cached in R1CS.power.
zk_r1cs_domain_power() {
    local info nc np no
    if [ -f "$1.power" ] && [ "$1.power" -nt "$1" ]; then
        cat "$1.power"
        return 0
    fi
    info=$(zk_snarkjs r1cs info "$1" 2>/dev/null) || return 1
    nc=$(printf '%s\n' "$info" | sed -n 's/.*# of Constraints: *\([0-9]*\).*/\1/p')
    np=$(printf '%s\n' "$info" | sed -n 's/.*# of Public Inputs: *\([0-9]*\).*/\1/p')
    no=$(printf '%s\n' "$info" | sed -n 's/.*# of Outputs: *\([0-9]*\).*/\1/p')
    [ -n "$nc" ] && [ -n "$np" ] && [ -n "$no" ] || return 1
    local need=$((nc + np + no + 1)) p=1
    while [ $((1 << p)) -lt "$need" ]; do p=$((p + 1)); done
    echo "$p" >"$1.power"
    echo "$p"
}

# zk_ptau CURVE POWER: a prepared (phase 2) powers of tau of 2^POWER with
# one contribution; prints its path.  Slow in snarkjs: use the smallest
# POWER that fits (zk_r1cs_domain_power).
zk_ptau() {
    local curve=$1 power=$2 d="$ZK_INTEROP_WORK/ptau"
    zk__check_curve "$curve" || return 1
    local out="$d/${curve}_$power.ptau"
    mkdir -p "$d"
    if [ ! -f "$out" ]; then
        local t="$d/tmp.$$"
        zk__run zk_snarkjs powersoftau new "$curve" "$power" "$t.0" &&
        zk__run zk_snarkjs powersoftau contribute "$t.0" "$t.1" --name=zkslot-test \
            -e="zkslot interop $curve $power" &&
        zk__run zk_snarkjs powersoftau prepare phase2 "$t.1" "$t.2" &&
        mv "$t.2" "$out" || { rm -f "$t".*; return 1; }
        rm -f "$t".*
    fi
    echo "$out"
}

# zk_setup R1CS PTAU OUT.zkey [NCONTRIB]: snarkjs groth16 setup, then
# NCONTRIB (default 1, 0..9) zkey contributions; writes OUT.zkey (cached:
# skipped when OUT.zkey is newer than R1CS and PTAU).
zk_setup() {
    local r1cs=$1 ptau=$2 out=$3 n=${4:-1}
    if [ -f "$out" ] && [ "$out" -nt "$r1cs" ] && [ "$out" -nt "$ptau" ]; then
        echo "$out"
        return 0
    fi
    local t="$out.tmp$$"
    zk__run zk_snarkjs groth16 setup "$r1cs" "$ptau" "$t.0" || { rm -f "$t".*; return 1; }
    local i=0
    while [ "$i" -lt "$n" ]; do
        zk__run zk_snarkjs zkey contribute "$t.$i" "$t.$((i + 1))" --name="c$((i + 1))" \
            -e="zkslot contribution $((i + 1))" || { rm -f "$t".*; return 1; }
        rm -f "$t.$i"
        i=$((i + 1))
    done
    mv "$t.$n" "$out" && echo "$out"
}

# zk_witness WASM INPUT.json OUT.wtns: snarkjs wtns calculate (cached).
zk_witness() {
    local wasm=$1 input=$2 out=$3
    if [ -f "$out" ] && [ "$out" -nt "$wasm" ] && [ "$out" -nt "$input" ]; then
        echo "$out"
        return 0
    fi
    zk__run zk_snarkjs wtns calculate "$wasm" "$input" "$out.tmp$$" &&
        mv "$out.tmp$$" "$out" && echo "$out"
}

# zk_build NAME CURVE [NCONTRIB] [INPUT.json]: everything for one circuit:
# compile, ptau of the smallest fitting power, key with NCONTRIB (default
# 1) contributions, witness from INPUT.json (default circuits/NAME.input.json,
# chain_N: circuits/chain.input.json).  Prints a dir holding NAME.r1cs,
# NAME_js/, NAME.zkey (or NAME.cK.zkey for NCONTRIB = K != 1), NAME.wtns.
zk_build() {
    local name=$1 curve=$2 n=${3:-1} input=${4:-}
    local d p ptau key
    if [ -z "$input" ]; then
        case "$name" in
        chain_[0-9]*) input="$ZK_INTEROP_DIR/circuits/chain.input.json" ;;
        *) input="$ZK_INTEROP_DIR/circuits/$name.input.json" ;;
        esac
    fi
    d=$(zk_compile "$name" "$curve") || return 1
    p=$(zk_r1cs_domain_power "$d/$name.r1cs") || { echo "interop: r1cs info failed" >&2; return 1; }
    ptau=$(zk_ptau "$curve" "$p") || return 1
    key="$d/$name.zkey"
    [ "$n" = 1 ] || key="$d/$name.c$n.zkey"
    zk_setup "$d/$name.r1cs" "$ptau" "$key" "$n" >/dev/null || return 1
    zk_witness "$d/${name}_js/$name.wasm" "$input" "$d/$name.wtns" >/dev/null || return 1
    echo "$d"
}
