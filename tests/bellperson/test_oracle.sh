#!/usr/bin/env bash
# test_oracle.sh -- zkslot's prover of bellperson (Filecoin-format) keys
# against bellperson itself (rust/bp-oracle, built by tools/cargo-build.sh):
# for each circuit, a parameter file made by bellperson's generator, the
# assignment bellperson's prover builds (.bpa), and for fixed r and s:
#   zkslot bp prove == bellperson's create_proof, byte for byte;
#   bellperson's verify_proof and zkslot bp verify accept it;
#   one flipped bit: both reject.
# Then bad parameter files (truncated, two queries swapped, a point of
# another curve, a .zkey): `zkslot bp inspect` exits 2 with one line that
# names the file.
# Parameters are cached outside the build (ZK_BP_CACHE, default
# /var/cache/zkslot/bp-params; the build directory when that is not
# writable): bellperson's generator takes minutes at 2^20.  The circuit of
# 2^20 constraints runs in the release tree; a sanitizer tree (ZK_SANITIZE)
# proves the ones of 2^10 and 2^16 only, and says so.
set -euo pipefail
: "${ZKSLOT:?}" "${ZK_BUILD_DIR:?}"
. "$ZK_SOURCE_DIR/tests/bellperson/lib_bad_params.sh"
target=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target}
oracle=$target/release/zkslot-bp-oracle
if [ ! -x "$oracle" ]; then
  echo "FAIL: no $oracle: build the Rust workspace first (tools/cargo-build.sh; tools/test-all.sh does)" >&2
  exit 1
fi
cache=${ZK_BP_CACHE:-/var/cache/zkslot/bp-params}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
  cache=$ZK_BUILD_DIR/bp-params
  mkdir -p "$cache"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# a uniform scalar below r, as 64 hex digits (little-endian bytes)
rand_fr() {
  python3 -c '
import secrets
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
print(secrets.randbelow(r).to_bytes(32, "little").hex())'
}

# params CIRCUIT LOG2: the cached parameter file's path (made once)
params() {
  local f=$cache/$1-$2-seed7.params tmp=$cache/$1-$2-seed7.tmp$$.params
  if [ ! -s "$f" ] || [ ! -s "${f%.params}.vk" ]; then
    local t0=$SECONDS
    "$oracle" params --circuit "$1" --log2 "$2" --seed 7 --out "$tmp" >&2
    mv "${tmp%.params}.vk" "${f%.params}.vk"
    mv "$tmp" "$f"
    echo "made $f in $((SECONDS - t0)) s" >&2
  fi
  echo "$f"
}

flip() {   # flip IN OUT BYTE BIT
  python3 - "$@" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[3])] ^= 1 << int(sys.argv[4])
open(sys.argv[2], "wb").write(b)
PY
}

check_circuit() {   # check_circuit CIRCUIT LOG2 WITNESS
  local c=$1 k=$2 w=$3 p vk r s t0 tz tb
  p=$(params "$c" "$k")
  vk=${p%.params}.vk
  "$oracle" assign --circuit "$c" --log2 "$k" --witness "$w" --out "$work/a.bpa" 2>/dev/null
  r=$(rand_fr); s=$(rand_fr)
  t0=$(date +%s.%N)
  "$oracle" prove --circuit "$c" --log2 "$k" --witness "$w" --params "$p" --r "$r" --s "$s" \
    --out "$work/bell.proof"
  tb=$(python3 -c "import sys; print('%.2f' % ($(date +%s.%N) - $t0))")
  t0=$(date +%s.%N)
  "$ZKSLOT" bp prove "$p" "$work/a.bpa" "$work/zk.proof" --r "$r" --s "$s"
  tz=$(python3 -c "import sys; print('%.2f' % ($(date +%s.%N) - $t0))")
  if cmp -s "$work/bell.proof" "$work/zk.proof"; then
    ok "$c 2^$k witness $w: zkslot's proof = bellperson's create_proof, byte for byte (zkslot bp prove ${tz} s with the key's read, bellperson ${tb} s with synthesis)"
  else
    bad "$c 2^$k witness $w: the proofs differ (r $r s $s)"
  fi
  if "$oracle" verify --circuit "$c" --log2 "$k" --witness "$w" --vk "$vk" --proof "$work/zk.proof" >/dev/null; then
    ok "$c 2^$k: bellperson's verify_proof accepts zkslot's proof"
  else
    bad "$c 2^$k: bellperson's verify_proof rejects zkslot's proof"
  fi
  if [ "$("$ZKSLOT" bp verify "$vk" "$work/a.bpa" "$work/zk.proof")" = OK ] &&
     [ "$("$ZKSLOT" bp verify "$p" "$work/a.bpa" "$work/zk.proof")" = OK ]; then
    ok "$c 2^$k: zkslot bp verify accepts it (the .vk and the .params)"
  else
    bad "$c 2^$k: zkslot bp verify does not accept it"
  fi
  local byte bit rc1 rc2
  for byte in 0 47 48 100 143 144 191; do
    bit=$((RANDOM % 8))
    flip "$work/zk.proof" "$work/flip.proof" "$byte" "$bit"
    rc1=0; "$ZKSLOT" bp verify "$vk" "$work/a.bpa" "$work/flip.proof" >/dev/null 2>&1 || rc1=$?
    rc2=0; "$oracle" verify --circuit "$c" --log2 "$k" --witness "$w" --vk "$vk" \
      --proof "$work/flip.proof" >/dev/null 2>&1 || rc2=$?
    if [ "$rc1" = 1 ] && [ "$rc2" = 1 ]; then
      ok "$c 2^$k: byte $byte bit $bit flipped: both verifiers reject"
    else
      bad "$c 2^$k: byte $byte bit $bit flipped: zkslot exit $rc1, bellperson exit $rc2 (want 1, 1)"
    fi
  done
}

check_circuit chain 10 3
check_circuit chain 10 4
check_circuit gadgets 16 11
check_circuit chain 16 5
if [ -z "${ZK_SANITIZE:-}" ]; then
  check_circuit chain 20 6
else
  echo "note: sanitizer tree ($ZK_SANITIZE): the 2^20 circuit is proved by the release tree only"
fi

# ---- bad parameter files: exit 2, one line naming the file ----------------
p=$(params chain 10)
refuse() {   # refuse FILE WHAT
  local rc=0 err
  err=$("$ZKSLOT" bp inspect "$1" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == *"$1"* ]]; then
    ok "$2: exit 2, one line: $err"
  else
    bad "$2: exit $rc, message: $err"
  fi
}
bad_params "$p" "$work"
refuse "$work/trunc.params" "a truncated parameter file"
refuse "$work/swap.params" "h and l swapped"
refuse "$work/curve.params" "a point of another curve (BN254's generator as alpha_g1)"
zkey=$(ls "$ZK_SOURCE_DIR"/tests/fuzz/corpus/zkey/* | head -n 1)
cp "$zkey" "$work/snarkjs.params"
refuse "$work/snarkjs.params" "a snarkjs .zkey named .params"
printf 'ZKBPASN1\001\000\000\000' > "$work/short.bpa"
rc=0; err=$("$ZKSLOT" bp prove "$p" "$work/short.bpa" "$work/x.proof" 2>&1) || rc=$?
if [ "$rc" = 2 ] && [[ $err == *short.bpa* ]] && [ ! -e "$work/x.proof" ]; then
  ok "a truncated .bpa: exit 2, no proof: $err"
else
  bad "a truncated .bpa: exit $rc: $err"
fi
"$oracle" assign --circuit chain --log2 10 --witness 3 --out "$work/a.bpa" 2>/dev/null
p16=$(params chain 16)
rc=0; err=$("$ZKSLOT" bp prove "$p16" "$work/a.bpa" "$work/x.proof" 2>&1) || rc=$?
if [ "$rc" = 2 ] && [[ $err == *"inputs"* || $err == *"aux"* || $err == *domain* ]] && [ ! -e "$work/x.proof" ]; then
  ok "an assignment of another circuit: exit 2, no proof: $err"
else
  bad "an assignment of another circuit: exit $rc: $err"
fi

if [ "$fails" -gt 0 ]; then
  echo "FAIL: $fails check(s)" >&2
  exit 1
fi
echo "PASS"
