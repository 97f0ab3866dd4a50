# prove_checks.sh -- the Groth16 interop checks shared by test_prove_*.sh
# (sourced after prove_lib.sh).  g16_case CURVE CIRCUIT PTAU_POWER INPUT_JSON
# runs, for one circuit with a snarkjs-made key (one contribution):
#   our proof -> snarkjs groth16 verify accepts, zkslot verify accepts;
#   our proof with MSM tables (--precompute all) -> snarkjs accepts;
#   snarkjs's proof -> zkslot verify accepts; same public.json;
#   tampered public input / proof -> both reject;
#   zkslot export-vk == snarkjs zkey export verificationkey (as JSON).
# Failures are counted in G16_FAILS.

G16_FAILS=0
g16_fail() { echo "FAIL: $*"; G16_FAILS=$((G16_FAILS + 1)); }

# g16_expect RC WHAT CMD...: run CMD, check its exit status.
g16_expect() {
    local want=$1 what=$2
    shift 2
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        g16_fail "$what: exit $rc, want $want: $(printf '%s' "$out" | tail -3)"
    else
        echo "ok: $what"
    fi
}

# g16_expect_invalid WHAT CMD...: CMD (snarkjs groth16 verify) must reject
# the proof as invalid: exit 1 and its "Invalid proof" line.  snarkjs exits
# non-zero on its own errors too (a file it cannot parse, a crash), and
# that is no rejection.
g16_expect_invalid() {
    local what=$1
    shift
    local out rc=0
    out=$("$@" 2>&1) || rc=$?
    if [ "$rc" -ne 1 ] || ! printf '%s\n' "$out" | grep -q "Invalid proof"; then
        g16_fail "$what: exit $rc, want 1 with 'Invalid proof': $(printf '%s' "$out" | tail -3)"
    else
        echo "ok: $what"
    fi
}

g16_case() {
    local curve=$1 name=$2 power=$3 input=$4
    local d t
    d=$(g16_circuit "$curve" "$name" "$power") || { g16_fail "$curve/$name: setup failed"; return; }
    t=$(mktemp -d)
    if ! g16_witness "$d" "$name" "$input" "$t/w.wtns"; then
        g16_fail "$curve/$name: witness failed"
        rm -rf "$t"
        return
    fi
    local tag="$curve/$name"
    g16_expect 0 "$tag: zkslot prove" \
        "$ZKSLOT" prove "$d/key.zkey" "$t/w.wtns" "$t/proof.json" "$t/public.json" --threads 2
    g16_expect 0 "$tag: snarkjs verifies our proof" \
        snarkjs groth16 verify "$d/vk.json" "$t/public.json" "$t/proof.json"
    g16_expect 0 "$tag: zkslot verifies our proof" \
        "$ZKSLOT" verify "$d/vk.json" "$t/public.json" "$t/proof.json"
    g16_expect 0 "$tag: zkslot prove --precompute all (MSM tables)" \
        "$ZKSLOT" prove "$d/key.zkey" "$t/w.wtns" "$t/tproof.json" "$t/tpublic.json" \
        --threads 2 --precompute all --table-factor 3
    g16_expect 0 "$tag: snarkjs verifies our proof made with MSM tables" \
        snarkjs groth16 verify "$d/vk.json" "$t/tpublic.json" "$t/tproof.json"

    snarkjs groth16 prove "$d/key.zkey" "$t/w.wtns" "$t/sproof.json" "$t/spublic.json" >/dev/null ||
        g16_fail "$tag: snarkjs prove failed"
    g16_expect 0 "$tag: zkslot verifies snarkjs's proof" \
        "$ZKSLOT" verify "$d/vk.json" "$t/spublic.json" "$t/sproof.json"
    g16_expect 0 "$tag: same public.json as snarkjs" g16_json_equal "$t/public.json" "$t/spublic.json"

    # tampered public input (first entry + 1)
    g16_json_edit "$t/public.json" "$t/public_bad.json" 'j[0] = (BigInt(j[0]) + 1n).toString()'
    g16_expect_invalid "$tag: snarkjs rejects a tampered public input" \
        snarkjs groth16 verify "$d/vk.json" "$t/public_bad.json" "$t/proof.json"
    g16_expect 1 "$tag: zkslot rejects a tampered public input" \
        "$ZKSLOT" verify "$d/vk.json" "$t/public_bad.json" "$t/proof.json"
    # tampered proof: pi_a of snarkjs's proof with our pi_b, pi_c (valid points)
    node -e '
const fs = require("fs"); const a = JSON.parse(fs.readFileSync(process.argv[1])), b = JSON.parse(fs.readFileSync(process.argv[2]));
a.pi_a = b.pi_a; fs.writeFileSync(process.argv[3], JSON.stringify(a, null, 1));' \
        "$t/proof.json" "$t/sproof.json" "$t/proof_bad.json"
    g16_expect_invalid "$tag: snarkjs rejects a tampered proof" \
        snarkjs groth16 verify "$d/vk.json" "$t/public.json" "$t/proof_bad.json"
    g16_expect 1 "$tag: zkslot rejects a tampered proof" \
        "$ZKSLOT" verify "$d/vk.json" "$t/public.json" "$t/proof_bad.json"
    # swapped pi_a / pi_c of snarkjs's proof
    g16_json_edit "$t/sproof.json" "$t/sproof_bad.json" 'const x = j.pi_a; j.pi_a = j.pi_c; j.pi_c = x'
    g16_expect_invalid "$tag: snarkjs rejects a swapped proof" \
        snarkjs groth16 verify "$d/vk.json" "$t/spublic.json" "$t/sproof_bad.json"
    g16_expect 1 "$tag: zkslot rejects a swapped proof" \
        "$ZKSLOT" verify "$d/vk.json" "$t/spublic.json" "$t/sproof_bad.json"

    # export-vk
    g16_expect 0 "$tag: zkslot export-vk" "$ZKSLOT" export-vk "$d/key.zkey" "$t/vk.json"
    g16_expect 0 "$tag: export-vk equals snarkjs's export" g16_json_equal "$t/vk.json" "$d/vk.json"
    g16_expect 0 "$tag: snarkjs verifies with our vk.json" \
        snarkjs groth16 verify "$t/vk.json" "$t/public.json" "$t/proof.json"
    rm -rf "$t"
}
