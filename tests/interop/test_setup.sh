#!/usr/bin/env bash
# test_setup.sh -- `zkslot setup` makes keys that snarkjs accepts: for both
# curves, snarkjs exports the verification key, proves with the key (its
# proof verifies), and our proofs with the key verify in snarkjs and in
# `zkslot verify`; `zkslot export-vk` equals snarkjs's export.  Bad input:
# a curve that does not match the circuit, a missing file -> exit 2 and one
# line naming the file.
set -u
. "$ZK_SOURCE_DIR/tests/interop/lib.sh"
zk_interop_init || { echo "SKIP: $ZK_INTEROP_SKIP"; exit 77; }
: "${ZKSLOT:?}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
jsoneq() { node -e 'const fs=require("fs");const a=JSON.parse(fs.readFileSync(process.argv[1]));const b=JSON.parse(fs.readFileSync(process.argv[2]));process.exit(JSON.stringify(a)===JSON.stringify(b)?0:1)' "$1" "$2"; }

for curve in bn128 bls12381; do
  for name in multi chain_300; do
    d=$(zk_compile "$name" "$curve") || { bad "compile $name $curve"; continue; }
    input="$ZK_INTEROP_DIR/circuits/$name.input.json"
    case $name in chain_*) input="$ZK_INTEROP_DIR/circuits/chain.input.json" ;; esac
    w=$(zk_witness "$d/${name}_js/$name.wasm" "$input" "$d/$name.wtns") || { bad "witness $name $curve"; continue; }
    t="$ZK_INTEROP_WORK/setup-$curve-$name"; rm -rf "$t"; mkdir -p "$t"
    if ! "$ZKSLOT" setup "$d/$name.r1cs" "$t/key.zkey" --curve "$curve" 2>"$t/setup.err"; then
      bad "zkslot setup $name $curve: $(tail -1 "$t/setup.err")"; continue
    fi
    grep -q INSECURE "$t/setup.err" || bad "setup did not warn that the key is insecure"
    zk__run zk_snarkjs zkey export verificationkey "$t/key.zkey" "$t/vk.json" || { bad "snarkjs cannot export vk of our key ($name $curve)"; continue; }
    "$ZKSLOT" export-vk "$t/key.zkey" "$t/our_vk.json" && jsoneq "$t/vk.json" "$t/our_vk.json" \
      || bad "export-vk differs from snarkjs ($name $curve)"
    # snarkjs proves with our key; both verifiers accept
    zk__run zk_snarkjs groth16 prove "$t/key.zkey" "$w" "$t/sj_proof.json" "$t/sj_public.json" || bad "snarkjs prove ($name $curve)"
    zk__run zk_snarkjs groth16 verify "$t/vk.json" "$t/sj_public.json" "$t/sj_proof.json" || bad "snarkjs rejects its own proof with our key ($name $curve)"
    "$ZKSLOT" verify "$t/vk.json" "$t/sj_public.json" "$t/sj_proof.json" >/dev/null || bad "zkslot verify rejects snarkjs proof ($name $curve)"
    # we prove with our key; both verifiers accept
    "$ZKSLOT" prove "$t/key.zkey" "$w" "$t/proof.json" "$t/public.json" || bad "zkslot prove ($name $curve)"
    zk__run zk_snarkjs groth16 verify "$t/vk.json" "$t/public.json" "$t/proof.json" || bad "snarkjs rejects our proof with our key ($name $curve)"
    "$ZKSLOT" verify "$t/vk.json" "$t/public.json" "$t/proof.json" >/dev/null || bad "zkslot verify rejects our proof ($name $curve)"
    echo "ok: setup $name $curve"
  done
done

# bad input
d=$(zk_compile multi bn128) && {
  out=$("$ZKSLOT" setup "$d/multi.r1cs" "$ZK_INTEROP_WORK/x.zkey" --curve bls12-381 2>&1); rc=$?
  [ $rc -eq 2 ] || bad "curve mismatch: exit $rc, want 2"
  echo "$out" | grep -q "multi.r1cs: circuit is over bn128" || bad "curve mismatch message: $out"
  [ ! -e "$ZK_INTEROP_WORK/x.zkey" ] || bad "a key file was left behind after a failure"
}
out=$("$ZKSLOT" setup /nonexistent.r1cs "$ZK_INTEROP_WORK/y.zkey" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "/nonexistent.r1cs" || bad "missing file: exit $rc: $out"
exit $fail
