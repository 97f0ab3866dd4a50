#!/usr/bin/env bash
# test_fil_synth.sh BUILD_DIR -- Filecoin's four Groth16 circuits at 2 KiB,
# synthesized by zkslot-fil-synth (the upstream crates' own circuits, from
# real inputs made with filecoin-proofs' API), proved partition by partition
# with `zkslot bp prove`, and checked by filecoin-proofs' own verifier:
# every kind is accepted, one flipped bit is rejected, a corrupted or
# truncated C1 file and another sector's vanilla proofs are refused with
# one line naming the input (exit 2) or give a proof that is rejected,
# never accepted.  For one partition `zkslot bp verify` must agree.  Every
# step is timed.
#
# Binaries and the parameter cache: fil_common.sh.  Exit 77 when the Rust
# binary is not built.
set -euo pipefail

. "$(dirname "$0")/fil_common.sh"

step "params (2 KiB: porep, winning, window, snap)" 6000 "$fs" params --cache "$cache" --sector-size 2048 \
    || { fail "params"; exit 1; }
cat "$work/out"
step "sectors (6 sealed 2 KiB sectors, C1, PoSt and update inputs)" 900 \
    "$fs" sectors --cache "$cache" --out "$work/in" --seed 7 || { fail "sectors"; exit 1; }
cat "$work/out"

declare -A input=([porep]=$work/in/porep-c1.json [winning]=$work/in/winning.json
                  [window]=$work/in/window.json [snap]=$work/in/snap.json)
declare -A want_parts=([porep]=1 [winning]=1 [window]=3 [snap]=1)

# prove_all KIND INPUT OUT: synthesizes and proves every partition into OUT.
prove_all() {
    local kind=$1 in=$2 out=$3 n params k
    step "$kind: partitions" 300 "$fs" partitions --kind "$kind" --input "$in" --cache "$cache" || return 1
    n=$(sed -n 's/^partitions //p' "$work/out")
    params=$(sed -n 's/^params //p' "$work/out")
    echo "$kind: $n partition(s), parameters $params"
    [ -f "$params" ] || { echo "no parameter file $params"; return 1; }
    : >"$out"
    for ((k = 0; k < n; k++)); do
        step "$kind: synth partition $k" 600 "$fs" synth --kind "$kind" --input "$in" --partition "$k" \
            --out "$work/$kind-$k.bpa" || return 1
        cat "$work/out"
        step "$kind: zkslot bp prove partition $k" 900 "$zk" bp prove "$params" "$work/$kind-$k.bpa" \
            "$work/$kind-$k.proof" || return 1
        cat "$work/$kind-$k.proof" >>"$out"
    done
    echo "$n" >"$work/$kind.n"
    echo "$params" >"$work/$kind.params"
}

# verify_is KIND INPUT PROOF WANT(accepted|rejected) [WHOSE]
verify_is() {
    local rc=0 whose=${5:-the zkslot proof}
    step "$1: verify ($4 expected)" 300 "$fs" verify --kind "$1" --input "$2" --proof "$3" --cache "$cache" || rc=$?
    cat "$work/out"
    case "$4:$rc" in
        accepted:0) ok "$1: filecoin-proofs accepts $whose" ;;
        rejected:1) ok "$1: filecoin-proofs rejects $whose" ;;
        *) fail "$1: verify exit $rc, wanted $4" ;;
    esac
}

# refused KIND INPUT WHAT: synth of a bad input exits 2 with one line naming
# INPUT, or its proof is rejected; never accepted.
refused() {
    local kind=$1 in=$2 what=$3 rc=0 lines
    step "$kind: synth of $what" 600 "$fs" synth --kind "$kind" --input "$in" --partition 0 \
        --out "$work/bad.bpa" || rc=$?
    lines=$(wc -l <"$work/err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF "$in" "$work/err"; then
        ok "$kind: $what refused: $(cat "$work/err")"
        return
    fi
    if [ $rc -eq 0 ]; then
        local params n rc2=0
        params=$(cat "$work/$kind.params")
        n=$(cat "$work/$kind.n")
        if [ "$n" = 1 ] && "$zk" bp prove "$params" "$work/bad.bpa" "$work/bad.proof" >/dev/null 2>&1; then
            "$fs" verify --kind "$kind" --input "$in" --proof "$work/bad.proof" --cache "$cache" >"$work/out" 2>&1 || rc2=$?
            [ $rc2 -ne 0 ] && { ok "$kind: $what gives a rejected proof (exit $rc2)"; return; }
            fail "$kind: $what: proof ACCEPTED"
            return
        fi
        ok "$kind: $what: synthesized but not provable"
        return
    fi
    fail "$kind: $what: exit $rc, $lines line(s): $(head -c 300 "$work/err")"
}

# A sanitizer tree (ZK_SANITIZE) proves the small circuits only (WinningPoSt
# 2^17, WindowPoSt 2^15) and leaves filecoin-proofs' own prover out: PoRep
# (2^22) and SnapDeals (2^21) are the release tree's, which runs this too.
kinds="porep winning window snap" ref=1
if [ -n "${ZK_SANITIZE:-}" ]; then
    kinds="winning window" ref=0
    echo "note: sanitizer tree ($ZK_SANITIZE): PoRep, SnapDeals and filecoin-proofs' own prover run in the release tree only"
fi
for kind in $kinds; do
    in=${input[$kind]}
    t0=$(now)
    if ! prove_all "$kind" "$in" "$work/$kind.proof"; then
        fail "$kind: synth/prove"
        continue
    fi
    n=$(cat "$work/$kind.n")
    [ "$n" = "${want_parts[$kind]}" ] && ok "$kind: $n partition(s)" \
        || fail "$kind: $n partitions, expected ${want_parts[$kind]}"
    verify_is "$kind" "$in" "$work/$kind.proof" accepted
    echo "time: $kind: all partitions synthesized, proved and verified: $(secs "$t0") s"
    cp "$work/$kind.proof" "$work/$kind.flip"
    flip "$work/$kind.flip" $((192 * n - 7))
    verify_is "$kind" "$in" "$work/$kind.flip" rejected "the zkslot proof with one bit flipped"
    # filecoin-proofs' own CPU prover on the same input, for comparison
    [ "$ref" = 1 ] || continue
    if step "$kind: filecoin-proofs prove-ref" 900 "$fs" prove-ref --kind "$kind" --input "$in" \
        --out "$work/$kind.ref" --cache "$cache"; then
        cat "$work/out"
        verify_is "$kind" "$in" "$work/$kind.ref" accepted "the proof of its own prover"
    else
        fail "$kind: prove-ref"
    fi
done

# zkslot's own verifier agrees on one partition (PoRep's, and Window's last)
for kp in porep:0 window:2; do
    kind=${kp%%:*}; k=${kp##*:}
    [ -f "$work/$kind-$k.proof" ] || continue
    vk=$(sed 's/\.params$/.vk/' "$work/$kind.params")
    if step "$kind: zkslot bp verify partition $k" 300 "$zk" bp verify "$vk" "$work/$kind-$k.bpa" "$work/$kind-$k.proof"; then
        ok "$kind: zkslot bp verify accepts partition $k"
    else
        fail "$kind: zkslot bp verify partition $k"
    fi
    cp "$work/$kind-$k.proof" "$work/one.flip"
    flip "$work/one.flip" 185
    if "$zk" bp verify "$vk" "$work/$kind-$k.bpa" "$work/one.flip" >/dev/null 2>&1; then
        fail "$kind: zkslot bp verify accepts a flipped bit"
    else
        ok "$kind: zkslot bp verify rejects a flipped bit"
    fi
done

# Bad inputs.
c1=${input[porep]}
head -c 1000 "$c1" >"$work/c1-truncated.json"
refused porep "$work/c1-truncated.json" "a truncated C1 file"
jq -c '.Phase1Out |= (.[0:200] + "!" + .[201:])' "$c1" >"$work/c1-corrupt.json"
refused porep "$work/c1-corrupt.json" "a C1 file with corrupted base64"
jq -r .Phase1Out "$c1" | base64 -d | jq -c '.comm_d = (.comm_d | .[0:5] + [(.[5] + 1) % 256] + .[6:])' \
    | base64 -w0 >"$work/p1"
jq -c --rawfile p "$work/p1" '.Phase1Out = $p' "$c1" >"$work/c1-commd.json"
refused porep "$work/c1-commd.json" "a C1 file whose comm_d was changed"
jq -r .Phase1Out "$work/in/porep-c1-sector2.json" | base64 -d >"$work/p1-s2.json"
jq -r .Phase1Out "$c1" | base64 -d | jq -c --slurpfile o "$work/p1-s2.json" '.vanilla_proofs = $o[0].vanilla_proofs' \
    | base64 -w0 >"$work/p1"
jq -c --rawfile p "$work/p1" '.Phase1Out = $p' "$c1" >"$work/c1-other.json"
refused porep "$work/c1-other.json" "a C1 file with sector 2's vanilla proofs"
jq -c --slurpfile w "${input[window]}" '.vanilla_proofs[0] = $w[0].vanilla_proofs[1]' "${input[winning]}" >"$work/winning-other.json"
refused winning "$work/winning-other.json" "sector 2's vanilla proof"
jq -c '.vanilla_proofs[1] = .vanilla_proofs[0]' "${input[window]}" >"$work/window-other.json"
refused window "$work/window-other.json" "sector 1's vanilla proof in sector 2's place"
jq -c --slurpfile w "${input[window]}" '.comm_r_old = $w[0].sectors[0].comm_r' "${input[snap]}" >"$work/snap-other.json"
refused snap "$work/snap-other.json" "another sector's comm_r_old"
head -c 300 "${input[snap]}" >"$work/snap-truncated.json"
refused snap "$work/snap-truncated.json" "a truncated input"

if [ $fails -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all checks passed"
