#!/usr/bin/env bash
# test_inspect.sh -- `zkslot inspect` on real circom/snarkjs files of both
# curves (made by lib.sh: circom2 r1cs, snarkjs ceremony zkey, snarkjs
# witness).  The sizes it prints must agree with each other and with
# `snarkjs r1cs info`; truncated and foreign files must give exit 2 and
# one line naming the file.  Exit 77 when node or the npm modules are missing.
set -u
. "$(dirname "$0")/lib.sh"
zk_interop_init || { echo "SKIP: $ZK_INTEROP_SKIP"; exit 77; }
[ -x "${ZKSLOT:-}" ] || { echo "ZKSLOT is not set to the zkslot binary"; exit 1; }

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# field FILE NAME: the first word after "NAME:" in `zkslot inspect FILE`.
field() { "$ZKSLOT" inspect "$1" 2>/dev/null | sed -n "s/^$2: *\([^ ]*\).*/\1/p" | head -n 1; }

# info R1CS WHAT: a number from `snarkjs r1cs info` (run once per file).
info() {
    [ -f "$1.info" ] && [ "$1.info" -nt "$1" ] || zk_snarkjs r1cs info "$1" >"$1.info" 2>/dev/null
    sed -n "s/.*# of $2: *\([0-9]*\).*/\1/p" "$1.info"
}

eq() {   # eq WHAT GOT WANT
    if [ "$2" = "$3" ] && [ -n "$2" ]; then ok "$1 = $2"; else fail "$1: got '$2', want '$3'"; fi
}

check_circuit() {   # check_circuit NAME CURVE [NCONTRIB]
    local name=$1 curve=$2 n=${3:-1} d key
    d=$(zk_build "$name" "$curve" "$n") || { fail "$curve/$name: build failed"; return; }
    key="$d/$name.zkey"
    [ "$n" = 1 ] || key="$d/$name.c$n.zkey"
    local r1cs="$d/$name.r1cs" wtns="$d/$name.wtns" t="$curve/$name/c$n"
    for f in "$r1cs" "$key" "$wtns"; do
        if "$ZKSLOT" inspect "$f" >/dev/null 2>"$d/inspect.err"; then
            ok "$t: inspect $(basename "$f")"
        else
            fail "$t: inspect $(basename "$f"): $(cat "$d/inspect.err")"
        fi
    done
    eq "$t curve(r1cs)" "$(field "$r1cs" curve)" "$curve"
    eq "$t curve(zkey)" "$(field "$key" curve)" "$curve"
    eq "$t curve(wtns)" "$(field "$wtns" curve)" "$curve"
    eq "$t kind(zkey)" "$(field "$key" kind)" zkey
    local nw nc npub
    nw=$(field "$r1cs" nWires)
    nc=$(info "$r1cs" Constraints)
    npub=$(($(info "$r1cs" "Public Inputs") + $(info "$r1cs" Outputs)))
    eq "$t nConstraints vs snarkjs" "$(field "$r1cs" nConstraints)" "$nc"
    eq "$t nWires vs snarkjs" "$nw" "$(info "$r1cs" Wires)"
    eq "$t nPublic(r1cs) vs snarkjs" "$(field "$r1cs" nPublic)" "$npub"
    eq "$t zkey nVars = r1cs nWires" "$(field "$key" nVars)" "$nw"
    eq "$t wtns nWitness = nWires" "$(field "$wtns" nWitness)" "$nw"
    eq "$t zkey nPublic" "$(field "$key" nPublic)" "$npub"
    eq "$t zkey domainSize" "$(field "$key" domainSize)" "$(field "$r1cs" domainSize)"
    eq "$t zkey version" "$(field "$key" version)" 1
    eq "$t wtns version" "$(field "$wtns" version)" 2
    eq "$t zkey sections" "$(field "$key" sections)" 10
    # coefficient count: A+B terms of the r1cs plus one row per public signal
    local coef
    coef=$("$ZKSLOT" inspect "$r1cs" 2>/dev/null |
           sed -n 's/^nCoef: .*(A \([0-9]*\), B \([0-9]*\), C.*/\1 \2/p')
    set -- $coef
    eq "$t zkey nCoef = A + B + nPublic + 1" "$(field "$key" nCoef)" \
        "$(( ${1:-0} + ${2:-0} + npub + 1 ))"
}

bad_input() {   # bad_input FILE WHAT
    local out rc
    out=$("$ZKSLOT" inspect "$1" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
       printf '%s' "$out" | grep -qF "$1"; then
        ok "$2: exit 2: $out"
    else
        fail "$2: exit $rc, output: $out"
    fi
}

check_circuit multi bn128
check_circuit multi bls12381
check_circuit multi bn128 2
check_circuit poseidon bn128
check_circuit chain_20 bls12381

# bad input: truncated key, a JSON file, an empty file, a missing file
d=$(zk_compile multi bn128) && tmp=$(mktemp -d) || { fail "setup for bad input"; exit 1; }
head -c 700 "$d/multi.zkey" >"$tmp/cut.zkey"
bad_input "$tmp/cut.zkey" "truncated zkey"
bad_input "$ZK_INTEROP_DIR/package.json" "not a binfile"
: >"$tmp/empty.wtns"
bad_input "$tmp/empty.wtns" "empty file"
bad_input "$tmp/missing.r1cs" "missing file"
rm -rf "$tmp"

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
