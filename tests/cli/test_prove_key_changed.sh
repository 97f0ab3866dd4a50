#!/usr/bin/env bash
# test_prove_key_changed.sh -- `zkslot prove` from a .zkey reads the key's
# point sections during the proof (the one-shot key,
# common/groth16/key_oneshot.c), so the file may change under it.  The
# witness command runs after the key is loaded and before the proof: here
# it changes the key file, then writes the witness.
#   - unchanged: the proof is written (exit 0);
#   - truncated, or rewritten in place (same bytes, another mtime): exit 2
#     with one line naming the key file and "changed", no proof written, and
#     no signal (a mapped file would have been a SIGBUS);
#   - replaced by a rename: the proof is written (the open file is the old
#     one, whole).
set -u
: "${ZKSLOT:?}" "${ZK_SOURCE_DIR:?}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export ZKSLOT_CONFIG=$W/none.conf ZKSLOT_STATE_DIR=$W/state ZKSLOT_POOL=$W/no.pool
: >"$ZKSLOT_CONFIG"
ex=$ZK_SOURCE_DIR/examples/groth16/bn128
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# the witness command: change the key as $1 says, then the witness
cat >"$W/gen.sh" <<'EOF'
key=$1 how=$2 wtns=$3 out=$5
case "$how" in
truncate) truncate -s -64 "$key" ;;
inplace) cat "$key" >"$key.copy" && cat "$key.copy" 1<>"$key" && touch -d '2001-01-01' "$key" ;;
rename) cp "$key" "$key.new" && mv "$key.new" "$key" ;;
esac
cp "$wtns" "$out"
EOF
for how in none truncate inplace rename; do
    cp "$ex/key.zkey" "$W/key.zkey"
    rm -f "$W/proof.json" "$W/public.json"
    rc=0
    "$ZKSLOT" prove "$W/key.zkey" --input "$ex/input-1.json" \
        --witness-cmd "bash $W/gen.sh $W/key.zkey $how $ex/witness-1.wtns {input} {output}" \
        "$W/proof.json" "$W/public.json" 2>"$W/err" || rc=$?
    case "$how" in
    none | rename)
        [ "$rc" = 0 ] && [ -s "$W/proof.json" ] ||
            bad "$how: exit $rc, proof $(test -s "$W/proof.json" && echo written || echo missing): $(cat "$W/err")" ;;
    *)
        [ "$rc" = 2 ] && [ "$(wc -l <"$W/err")" = 1 ] && grep -q "$W/key.zkey: changed" "$W/err" &&
            [ ! -e "$W/proof.json" ] ||
            bad "$how: exit $rc (2 and one line wanted), proof $(test -e "$W/proof.json" && echo written || echo none): $(cat "$W/err")" ;;
    esac
done
[ "$fail" = 0 ] && echo "prove_key_changed: ok"
exit "$fail"
