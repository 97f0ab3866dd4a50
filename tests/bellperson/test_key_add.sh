#!/usr/bin/env bash
# test_key_add.sh -- bellperson parameter files as keys (docs/keystore.md,
# "Bellperson keys"):
#   1. `zkslot key add NAME FILE.params --vk FILE.vk` (the format told by
#      the content) registers the key with format bellperson and decodes its
#      points into a store beside the pool; `key show` prints the format,
#      each query's count and the domain, the counts `zkslot bp inspect`
#      reads from the file; `key status` says resident;
#   2. truncated, reordered (h and l swapped), wrong-curve files, a .vk of
#      another key: exit 2, one line naming the file and the problem,
#      nothing registered, no store made;
#   3. `key unload` then `key load` builds the store again from the file;
#      `--precompute all` is refused for a bellperson key.
set -euo pipefail
: "${ZKSLOT:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/bellperson/lib_bad_params.sh"
cache=${ZK_BP_CACHE:-/var/cache/zkslot/bp-params}
p=$cache/chain-10-seed7.params
p16=$cache/chain-16-seed7.params
if [ ! -s "$p" ] || [ ! -s "${p%.params}.vk" ] || [ ! -s "$p16" ]; then
  echo "SKIP: no cached parameter files in $cache (bellperson_test_oracle makes them)"
  exit 77
fi
work=$(mktemp -d)
export ZKSLOT_POOL=/dev/shm/zkslot-keyadd-$$.pool
trap 'rm -rf "$work"; rm -f "$ZKSLOT_POOL".key-*' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
z() { "$ZKSLOT" "$@" --state-dir "$work/state"; }
stores() { ls "$ZKSLOT_POOL".key-* 2>/dev/null | wc -l; }
mkdir -p "$work/state"

# ---- 1. a good key -----------------------------------------------------------
if out=$(z key add c10 "$p" --vk "${p%.params}.vk" 2>&1); then
  ok "key add: $out"
else
  bad "key add of a good parameter file: $out"
fi
show=$(z key show c10)
insp=$("$ZKSLOT" bp inspect "$p")
want=$(printf '%s\n' "$insp" | awk '
  /^ic:/ { ic = $2 } /^h:/ { h = $2 } /^l:/ { l = $2 } /^a:/ { a = $2 }
  /^b_g1, b_g2:/ { sub(",", "", $3); b1 = $3; b2 = $4 } /^domain:/ { sub("2\\^", "", $2); d = $2 }
  END { printf "%s %s %s %s %s %s %s", ic, h, l, a, b1, b2, d }')
got=$(printf '%s\n' "$show" | python3 -c '
import json, sys
k = json.load(sys.stdin)
q = k.get("queries", {})
print(k["format"], " ".join(str(q.get(n)) for n in ("ic", "h", "l", "a", "b_g1", "b_g2")),
      k.get("log2_domain"), k.get("counts_from"))')
if [ "$got" = "bellperson $want store" ]; then
  ok "key show: format bellperson, ic h l a b_g1 b_g2 log2-domain = $want (bp inspect's), from the store"
else
  bad "key show: '$got', want 'bellperson $want store'"
fi
if z key list | awk '$1 == "c10" && $3 == "bellperson" { f = 1 } END { exit !f }'; then
  ok "key list: c10's FORMAT column says bellperson"
else
  bad "key list does not say c10 is a bellperson key: $(z key list | head -n 3)"
fi
hash=$(printf '%s\n' "$show" | python3 -c 'import json, sys; print(json.load(sys.stdin)["hash"])')
if [ -f "$ZKSLOT_POOL.key-$hash" ] && grep -q "^c10 *yes" <<<"$(z key status)"; then
  ok "the decoded points are resident: $ZKSLOT_POOL.key-$hash"
else
  bad "no store at $ZKSLOT_POOL.key-$hash: $(z key status)"
fi

# ---- 2. bad files: exit 2, one line naming the file, nothing registered -------
bad_params "$p" "$work"
refuse() {   # refuse WHAT NAMED ARGS...
  local what=$1 named=$2 rc=0 err n0 s0
  shift 2
  n0=$(z key list | wc -l); s0=$(stores)
  err=$(z key add bad "$@" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == *"$named"* ]] &&
     [ "$(z key list | wc -l)" = "$n0" ] && [ "$(stores)" = "$s0" ]; then
    ok "$what: exit 2, nothing registered, one line: $err"
  else
    bad "$what: exit $rc, $(z key list | wc -l) rows (was $n0), $(stores) stores (was $s0): $err"
  fi
}
refuse "a truncated parameter file" "$work/trunc.params" "$work/trunc.params"
refuse "h and l swapped" "$work/swap.params" "$work/swap.params"
refuse "a point of another curve" "$work/curve.params" "$work/curve.params"
refuse "the .vk of another key" "${p%.params}.vk" "$p16" --vk "${p%.params}.vk"
head -c 500 "${p%.params}.vk" > "$work/trunc.vk"
refuse "a truncated .vk" "$work/trunc.vk" "$p" --vk "$work/trunc.vk"

# ---- 3. unload, load ----------------------------------------------------------
z key unload c10 >/dev/null
if [ "$(stores)" = 0 ] && out=$(z key load c10) && [ -f "$ZKSLOT_POOL.key-$hash" ] &&
   [ "$(z key show c10 | python3 -c 'import json, sys; print(json.load(sys.stdin)["counts_from"])')" = store ]; then
  ok "key unload, key load: the store built again from the file ($out)"
else
  bad "key load after unload: $(stores) stores: ${out:-}"
fi
rc=0; err=$(z key load c10 --precompute all 2>&1) || rc=$?
if [ "$rc" = 2 ] && [[ $err == *bellperson* ]]; then
  ok "key load --precompute all of a bellperson key: refused: $err"
else
  bad "key load --precompute all: exit $rc: $err"
fi

if [ "$fails" -gt 0 ]; then
  echo "FAIL: $fails check(s)" >&2
  exit 1
fi
echo "PASS"
