# prove_lib.sh -- helpers for the Groth16 interop tests (test_prove_*.sh):
# compile a circuit with circom2, run a snarkjs ceremony (powers of tau with
# one contribution, groth16 setup, one zkey contribution), compute a
# witness.  Everything is cached under $ZK_INTEROP_WORK/g16 (default
# $ZK_BUILD_DIR/interop-work/g16),
# keyed by curve and the circuit's source hash, so reruns are fast.
# Source with bash; needs ZK_SOURCE_DIR, ZK_BUILD_DIR, ZKSLOT.

G16_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
G16_NM="$G16_HERE/node_modules"
# (shared by both build trees when tools/test-all.sh sets ZK_INTEROP_WORK)
G16_WORK="${ZK_INTEROP_WORK:-${ZK_BUILD_DIR:-/tmp}/interop-work}/g16"

g16_skip() { echo "SKIP: $*"; exit 77; }

# Exit 77 unless node and the pinned node modules are present.
g16_require_tools() {
    command -v node >/dev/null 2>&1 || g16_skip "node is not installed"
    [ -f "$G16_NM/snarkjs/cli.js" ] || g16_skip "snarkjs missing: run npm ci in tests/interop"
    [ -f "$G16_NM/circom2/cli.js" ] || g16_skip "circom2 missing: run npm ci in tests/interop"
    [ -d "$G16_NM/circomlib/circuits" ] || g16_skip "circomlib missing: run npm ci in tests/interop"
    [ -x "${ZKSLOT:-}" ] || { echo "ZKSLOT is not set to the zkslot binary" >&2; exit 1; }
    mkdir -p "$G16_WORK"
}

snarkjs() { node "$G16_NM/snarkjs/cli.js" "$@"; }

# g16_ptau CURVE POWER -> prints the path of a prepared ptau (cached).
g16_ptau() {
    local curve=$1 power=$2 d="$G16_WORK/ptau"
    local out="$d/${curve}_$power.ptau"
    mkdir -p "$d"
    if [ ! -f "$out" ]; then
        snarkjs powersoftau new "$curve" "$power" "$d/$curve.$$.0" >/dev/null &&
        snarkjs powersoftau contribute "$d/$curve.$$.0" "$d/$curve.$$.1" \
            --name=zkslot-test -e="zkslot interop $curve" >/dev/null &&
        snarkjs powersoftau prepare phase2 "$d/$curve.$$.1" "$d/$curve.$$.2" >/dev/null &&
        mv "$d/$curve.$$.2" "$out" || { rm -f "$d/$curve.$$."*; return 1; }
        rm -f "$d/$curve.$$."*
    fi
    echo "$out"
}

# g16_circuit CURVE NAME POWER -> prints a directory holding NAME.r1cs,
# NAME_js/NAME.wasm, key.zkey (setup + one contribution) and vk.json
# (snarkjs's export), all cached.
g16_circuit() {
    local curve=$1 name=$2 power=$3 src="$G16_HERE/circuits/$name.circom"
    local h
    h=$(cat "$src" | sha256sum | cut -c1-12)
    local d="$G16_WORK/$curve/$name-$h"
    if [ ! -f "$d/vk.json" ]; then
        local ptau
        ptau=$(g16_ptau "$curve" "$power") || return 1
        local t="$d.tmp.$$"   # private: parallel tests may build the same circuit
        rm -rf "$t" && mkdir -p "$t"
        # circom2 (WASI) reaches files only below its working directory: run it from /
        (cd / && node "$G16_NM/circom2/cli.js" "$src" --r1cs --wasm --prime "$curve" -o "$t") \
            >/dev/null || { rm -rf "$t"; return 1; }
        snarkjs groth16 setup "$t/$name.r1cs" "$ptau" "$t/k0.zkey" >/dev/null &&
        snarkjs zkey contribute "$t/k0.zkey" "$t/key.zkey" --name=c1 \
            -e="zkslot contribution" >/dev/null &&
        snarkjs zkey export verificationkey "$t/key.zkey" "$t/vk.json" >/dev/null ||
            { rm -rf "$t"; return 1; }
        rm -f "$t/k0.zkey"
        rm -rf "$d"   # an incomplete one
        mv -T "$t" "$d" 2>/dev/null || rm -rf "$t"
    fi
    echo "$d"
}

# g16_witness DIR NAME INPUT_JSON_TEXT OUT.wtns
g16_witness() {
    local d=$1 name=$2 input=$3 out=$4
    printf '%s\n' "$input" > "$out.input.json"
    snarkjs wtns calculate "$d/${name}_js/$name.wasm" "$out.input.json" "$out" >/dev/null
}

# g16_json_equal A.json B.json: exit 0 when the documents are deeply equal.
g16_json_equal() {
    node -e '
const fs = require("fs"), assert = require("assert");
const a = JSON.parse(fs.readFileSync(process.argv[1])), b = JSON.parse(fs.readFileSync(process.argv[2]));
try { assert.deepStrictEqual(a, b); } catch (e) { console.error(e.message.slice(0, 2000)); process.exit(1); }
' "$1" "$2"
}

# g16_json_edit IN OUT JS: OUT = IN with the JS statement applied to `j`.
g16_json_edit() {
    node -e '
const fs = require("fs"); const j = JSON.parse(fs.readFileSync(process.argv[1]));
eval(process.argv[3]);
fs.writeFileSync(process.argv[2], JSON.stringify(j, null, 1));
' "$1" "$2" "$3"
}
