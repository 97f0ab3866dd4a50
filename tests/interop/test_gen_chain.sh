#!/usr/bin/env bash
# test_gen_chain.sh -- tools/gen-chain.py writes the chain circuit's files
# as circom2 and snarkjs do: at N = 300 its .r1cs equals circom2's
# (both curves) and its .wtns equals `snarkjs wtns calculate`'s for two
# inputs; at sizes circom2 did not compile (1 and 1000) snarkjs checks the
# witness against the constraints, and at 1000 a key from `zkslot setup`
# proves it, the proof accepted by snarkjs.  A wrong witness is refused by
# that check (so the check is not vacuous).  Bad arguments: exit 2, one
# line naming the problem, no file left.
set -u
. "$ZK_SOURCE_DIR/tests/interop/lib.sh"
zk_interop_init || { echo "SKIP: $ZK_INTEROP_SKIP"; exit 77; }
: "${ZKSLOT:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
gen=$ZK_SOURCE_DIR/tools/gen-chain.py
fail=0
bad() { echo "FAIL: $*"; fail=1; }
t=$(mktemp -d /tmp/zkslot-gen-chain.XXXXXX)
trap 'rm -rf "$t"' EXIT

# 1. the same bytes as circom2 and snarkjs
in1=$ZK_INTEROP_DIR/circuits/chain.input.json
printf '{"x": "123456789", "y": "21888242871839275222246405745257275088548364400416034343698204186575808495616"}\n' >"$t/in2.json"
for curve in bn128 bls12381; do
    d=$(zk_compile chain_300 "$curve") || { bad "compile chain_300 $curve"; continue; }
    mkdir -p "$t/$curve"
    python3 "$gen" 300 "$t/$curve" --curve "$curve" --input "$in1" || { bad "gen-chain.py 300 $curve"; continue; }
    cmp -s "$t/$curve/chain_300.r1cs" "$d/chain_300.r1cs" || bad "chain_300.r1cs ($curve) differs from circom2's"
    w=$(zk_witness "$d/chain_300_js/chain_300.wasm" "$in1" "$t/$curve/sj1.wtns") || { bad "snarkjs witness $curve"; continue; }
    cmp -s "$t/$curve/chain_300.wtns" "$w" || bad "chain_300.wtns ($curve, chain.input.json) differs from snarkjs's"
    if [ "$curve" = bn128 ]; then   # in2's y is -1 mod BN254's r
        python3 "$gen" 300 "$t/$curve" --input "$t/in2.json" || bad "gen-chain.py 300 in2"
        w=$(zk_witness "$d/chain_300_js/chain_300.wasm" "$t/in2.json" "$t/$curve/sj2.wtns") &&
            cmp -s "$t/$curve/chain_300.wtns" "$w" ||
            bad "chain_300.wtns (x = 123456789, y = -1) differs from snarkjs's"
    fi
    echo "ok: chain_300 $curve as circom2 and snarkjs write it"
done

# 2. sizes circom2 did not make: snarkjs checks the witness; one proof
for n in 1 1000; do
    python3 "$gen" "$n" "$t" || { bad "gen-chain.py $n"; continue; }
    zk__run zk_snarkjs wtns check "$t/chain_$n.r1cs" "$t/chain_$n.wtns" ||
        bad "snarkjs wtns check rejects chain_$n"
done
"$ZKSLOT" setup "$t/chain_1000.r1cs" "$t/key.zkey" --curve bn128 2>/dev/null || bad "zkslot setup chain_1000"
zk__run zk_snarkjs zkey export verificationkey "$t/key.zkey" "$t/vk.json" || bad "snarkjs export vk"
"$ZKSLOT" prove "$t/key.zkey" "$t/chain_1000.wtns" "$t/proof.json" "$t/public.json" || bad "zkslot prove chain_1000"
zk__run zk_snarkjs groth16 verify "$t/vk.json" "$t/public.json" "$t/proof.json" ||
    bad "snarkjs rejects the proof of the generated chain_1000"
# the check is not vacuous: one value changed (t[5]: wire 9) is refused
python3 - "$t/chain_1000.wtns" "$t/bad.wtns" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[12 + 12 + 40 + 12 + 9 * 32] ^= 1   # header, section 1, section 2's header
open(sys.argv[2], "wb").write(b)
PY
if zk_snarkjs wtns check "$t/chain_1000.r1cs" "$t/bad.wtns" >/dev/null 2>&1; then
    bad "snarkjs accepts a changed witness: the check above proves nothing"
fi
echo "ok: generated chain_1, chain_1000 check; chain_1000 proves"

# 3. bad arguments
for args in "0 $t" "x $t" "5 $t/nonexistent" "5 $t --curve bn254" "5 $t --input $t/nonexistent.json"; do
    # shellcheck disable=SC2086
    out=$(python3 "$gen" $args 2>&1); rc=$?
    [ $rc -eq 2 ] || bad "gen-chain.py $args: exit $rc, want 2"
    [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && case $out in gen-chain:*) true ;; *) false ;; esac ||
        bad "gen-chain.py $args: not one 'gen-chain:' line: $out"
done
[ ! -e "$t/chain_5.r1cs" ] || bad "a file was left behind after a failure"
echo "ok: bad arguments"
exit $fail
