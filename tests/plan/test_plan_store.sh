#!/usr/bin/env bash
# test_plan_store.sh -- `zkslot plan` with a key resident in its store beside
# the pool (issue 17, docs/plan.md): the store's bytes count once, and the
# gpuds no longer count the points a second time (each maps the store).
#   1. plan --key K --gpus 2 with no store, then after `zkslot key load` of
#      K: the keys term changes by the store's bytes minus 2 x K's points,
#      exactly (before the fix: by the store's bytes, each gpud's points
#      counted again); --json says which store holds them, and the text
#      output says so on one line; with --key-memory 1M each gpud counts 1M
#      less the points;
#   2. plan --key of another key while K's store is resident: that key's
#      points are counted per gpud as before, K's store once.
# The bundled example keys, the CLI only (no daemon, no node): a few seconds.
set -u
[ -x "${ZKSLOT:-}" ] || { echo "ZKSLOT is not set to the zkslot binary"; exit 1; }
SRC=${ZK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
KEY=$SRC/examples/groth16/bn128/key.zkey
OTHER=$SRC/examples/groth16/bls12381/key.zkey
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to parse --json"; exit 77; }
[ -d /dev/shm ] && [ -w /dev/shm ] || { echo "SKIP: no writable /dev/shm for the store"; exit 77; }

tmp=$(mktemp -d)
export ZKSLOT_POOL=/dev/shm/zkslot-test-plan-store-$$.pool
export ZKSLOT_STATE_DIR=$tmp/state
export ZKSLOT_CONFIG=$tmp/none.conf
mkdir -p "$ZKSLOT_STATE_DIR"
: >"$ZKSLOT_CONFIG"
trap '"$ZKSLOT" key unload plankey >/dev/null 2>&1; rm -f "$ZKSLOT_POOL".key*; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# plan_json OUT KEY: zkslot plan --key KEY --gpus 2 --json into OUT (RAM
# detected: this machine's stores count)
plan_json() {
    local rc=0
    "$ZKSLOT" plan --key "$2" --gpus 2 --json >"$1" 2>"$tmp/err" || rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "plan --key $2: exit $rc: $(cat "$tmp/err")"
}
# field FILE NAME: a number or string of a --json answer
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

plan_json "$tmp/before.json" "$KEY"
[ "$(field "$tmp/before.json" key_stores_resident)" = 0 ] ||
    fail "a store beside $ZKSLOT_POOL before any key load"
"$ZKSLOT" key add plankey "$KEY" >/dev/null || fail "key add"
"$ZKSLOT" key load plankey >"$tmp/load.out" || fail "key load: $(cat "$tmp/load.out")"
store=$(ls "$ZKSLOT_POOL".key-* 2>/dev/null | head -n 1)
[ -f "$store" ] || { fail "no store beside $ZKSLOT_POOL after key load"; exit 1; }
size=$(stat -c %s "$store")

echo "1. the key's own store"
plan_json "$tmp/after.json" "$KEY"
k0=$(field "$tmp/before.json" keys)
k1=$(field "$tmp/after.json" keys)
points=$(field "$tmp/before.json" key_memory_gpud)
want=$((size - 2 * points))
[ "$((k1 - k0))" = "$want" ] && ok "keys $k0 -> $k1: + store $size - 2 gpud x points $points" ||
    fail "keys $k0 -> $k1 with the store resident: changed by $((k1 - k0)), want store $size - 2 x points $points = $want"
[ "$(field "$tmp/after.json" key_points_in_store)" = "$points" ] &&
    [ "$(field "$tmp/after.json" key_memory_gpud)" = 0 ] &&
    [ "$(field "$tmp/after.json" key_store)" = "$store" ] &&
    [ "$(field "$tmp/after.json" key_stores_resident)" = "$size" ] &&
    ok "--json: the points in $store, 0 per gpud" ||
    fail "--json with the store: $(grep -E '"key_(memory_gpud|points_in_store|store|stores_resident)"' "$tmp/after.json" | tr -d '\n')"
"$ZKSLOT" plan --key "$KEY" --gpus 2 >"$tmp/after.txt" 2>&1
n=$(grep -c "^  key store    $KEY resident in $store: its points (.*) counted once, in the store" "$tmp/after.txt")
[ "$n" = 1 ] && grep -q "keys     = gpud x points outside the store + .* + resident key stores" "$tmp/after.txt" &&
    ok "text: one line names the key counted through its store" ||
    { fail "text output with the store ($n lines):"; cat "$tmp/after.txt"; }

rc=0; "$ZKSLOT" plan --key "$KEY" --gpus 2 --key-memory 1M --json >"$tmp/given.json" 2>"$tmp/err" || rc=$?
[ "$rc" -le 1 ] && [ "$(field "$tmp/given.json" key_points_in_store)" = "$points" ] &&
    [ "$(field "$tmp/given.json" key_memory_gpud)" = "$((1048576 - points))" ] &&
    ok "--key-memory 1M: each gpud 1M less the store's points" ||
    fail "--key-memory 1M with the store: exit $rc, $(grep -E '"key_(memory_gpud|points_in_store)"' "$tmp/given.json" | tr -d '\n')"

echo "2. another key while that store is resident"
plan_json "$tmp/other0.json" "$OTHER"
python3 - "$tmp/other0.json" "$size" <<'PY' && ok "another key: its points per gpud, the store once" || fail "another key's plan: $(cat "$tmp/other0.json")"
import json, sys
j = json.load(open(sys.argv[1]))
size = int(sys.argv[2])
assert j["key_points_in_store"] == 0 and j["key_store"] == "", "no store of its own"
assert j["key_memory_gpud"] > 0, "its points per gpud"
assert j["key_stores_resident"] == size, "the resident store"
assert j["keys"] == j["gpud"] * j["key_memory_gpud"] + j["synthd"] * j["key_memory_synthd"] + size
PY

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
