#!/usr/bin/env bash
# test_keystore.sh -- gpud and the CLI with a key's store beside the pool
# (docs/keystore.md), real processes, every proof checked by snarkjs and
# zkslot (pl_check_job):
#   1. the first gpud finds no store, builds it and proves from it;
#   2. a gpud restarted after kill -9 maps the store ("from its store") and
#      proves; `zkslot key status` shows the key resident;
#   3. the one-shot `zkslot prove` finds the store by the file's content
#      hash and its proof verifies;
#   4. a store of another format version at the key's path: gpud logs the
#      one-line refusal naming the file and proves from the key's file;
#      `key load` refuses it the same way, `key status` says refused,
#      `key unload` removes it and `key load` builds it again, which
#      `zkslot plan` adds to its bound in place of the gpuds' points;
#   5. `key load --precompute all` over a store without tables is refused
#      (unload first); after unload it builds the store with every MSM's
#      table, which a restarted gpud and `zkslot prove` use;
#   6. a gpud with [keys] precompute = h, table_factor = 2 that finds no
#      store builds it with H's table of factor 2 (`key status`: tables h;
#      `key load` with another factor is refused naming factor 2), proves;
#   7. `zkslot pool destroy` removes the stores beside the pool.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_keystore.sh"
pl_init keystore || exit 77
ks_setup || exit 1
store=$KS_STORE
# status_of: the RESIDENT column of the key's row in `zkslot key status`
status_of() { "$ZKSLOT" key status | awk -v k="$PL_KEYNAME" '$1 == k { print $2 }'; }
[ "$(status_of)" = no ] || pl_bad "key status before any load: '$(status_of)', expected no"
pl_start_synthd

pl_log "1. the first gpud builds the store"
pl_start_gpud
pl_wait_log gpud "$PL_GPUD" "key $PL_KEYNAME: ready in .*store $store built" 60 || exit 1
job=$(pl_submit 2)
pl_wait "$job" 120 && pl_check_job "$job" 2
[ "$(status_of)" = yes ] || pl_bad "key status after gpud's load: '$(status_of)', expected yes"
[ "$(stat -c %a "$store")" = 644 ] || pl_bad "store mode $(stat -c %a "$store"), expected 644"

pl_log "2. a restarted gpud maps it"
kill -9 "$PL_GPUD"; wait "$PL_GPUD" 2>/dev/null || true
pl_start_gpud
pl_wait_log gpud "$PL_GPUD" "key $PL_KEYNAME: ready in .*from its store $store\)" 30 || exit 1
job=$(pl_submit 2)
pl_wait "$job" 120 && pl_check_job "$job" 2

pl_log "3. the one-shot prove uses it"
ks_prove "${PL_WTNS[0]}" "its store $store"

pl_log "4. a store of another format version is refused"
pl_stop "$PL_GPUD"
python3 -c 'import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(8); f.write(struct.pack("<I", 99))' "$store"
pl_start_gpud
pl_wait_log gpud "$PL_GPUD" "$store: key store format version 99, this build reads version 1.*: loading it from its file" 30 || exit 1
pl_wait_log gpud "$PL_GPUD" "key $PL_KEYNAME: ready in .*from its file\)" 30 || exit 1
job=$(pl_submit 1)
pl_wait "$job" 120 && pl_check_job "$job" 1
rc=0; "$ZKSLOT" key load "$PL_KEYNAME" >/dev/null 2>"$PL_W/load.err" || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$PL_W/load.err")" = 1 ] && grep -q "$store: key store format version 99" "$PL_W/load.err" ||
    pl_bad "key load over a version-99 store: exit $rc, $(cat "$PL_W/load.err")"
[ "$(status_of)" = refused ] || pl_bad "key status of a version-99 store: '$(status_of)'"
"$ZKSLOT" key unload "$PL_KEYNAME" >/dev/null || pl_bad "key unload"
[ ! -e "$store" ] && [ "$(status_of)" = no ] || pl_bad "the store is still there after unload"
rc=0; "$ZKSLOT" key unload "$PL_KEYNAME" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || pl_bad "a second unload: exit $rc, expected 2"
# plan_keys FIELD: a term of `zkslot plan`'s bound for this key
plan_keys() { { "$ZKSLOT" plan --key "$PL_KEY" --json || true; } | python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
k0=$(plan_keys keys)
gpud_points=$(( $(plan_keys gpud) * $(plan_keys key_memory_gpud) ))
"$ZKSLOT" key load "$PL_KEYNAME" | grep -q "key $PL_KEYNAME: loaded into $store" || pl_bad "key load"
k1=$(plan_keys keys)
# (the store counted once; the gpuds' points no longer, they map the store)
[ "$((k1 - k0))" = "$(( $(stat -c %s "$store") - gpud_points ))" ] ||
    pl_bad "zkslot plan's keys: $k0 without the store, $k1 with it: not the store's $(stat -c %s "$store") bytes less the gpuds' $gpud_points of points"
"$ZKSLOT" key load "$PL_KEYNAME" | grep -q "already resident in $store" || pl_bad "key load again"

pl_log "5. a store with every MSM's precomputed table"
rc=0; "$ZKSLOT" key load "$PL_KEYNAME" --precompute h 2>"$PL_W/load.err" || rc=$?
[ "$rc" = 2 ] && grep -q "is resident with tables none (factor 0) in $store: unload it first" "$PL_W/load.err" ||
    pl_bad "key load --precompute h over a store without tables: exit $rc, $(cat "$PL_W/load.err")"
"$ZKSLOT" key unload "$PL_KEYNAME" >/dev/null
"$ZKSLOT" key load "$PL_KEYNAME" --precompute all --table-factor 2 |
    grep -q "key $PL_KEYNAME: loaded into $store (.*, tables all, factor 2)" || pl_bad "key load --precompute all"
tables=$("$ZKSLOT" key status | awk -v k="$PL_KEYNAME" '$1 == k { print $5 }')
[ "$tables" = all ] || pl_bad "key status: tables '$tables', expected all"
pl_stop "$PL_GPUD"
pl_start_gpud
pl_wait_log gpud "$PL_GPUD" "key $PL_KEYNAME: ready in .*from its store $store\)" 30 || exit 1
job=$(pl_submit 2)
pl_wait "$job" 120 && pl_check_job "$job" 2
ks_prove "${PL_WTNS[1]}" "its store $store"
# the second one-shot prove of the unchanged key file needs not read it
ks_prove "${PL_WTNS[1]}" "its store $store" identity

pl_log "6. gpud builds the store with the tables of [keys] precompute and table_factor"
pl_stop "$PL_GPUD"
"$ZKSLOT" key unload "$PL_KEYNAME" >/dev/null
printf '[keys]\nprecompute = h\ntable_factor = 2\n' >"$ZKSLOT_CONFIG"
pl_start_gpud
pl_wait_log gpud "$PL_GPUD" "key $PL_KEYNAME: ready in .*store $store built" 60 || exit 1
: >"$ZKSLOT_CONFIG"
tables=$("$ZKSLOT" key status | awk -v k="$PL_KEYNAME" '$1 == k { print $5 }')
[ "$tables" = h ] || pl_bad "key status after gpud built the store with [keys] precompute = h: tables '$tables'"
rc=0; "$ZKSLOT" key load "$PL_KEYNAME" --precompute h --table-factor 3 2>"$PL_W/load.err" || rc=$?
[ "$rc" = 2 ] && grep -q "is resident with tables h (factor 2) in $store" "$PL_W/load.err" ||
    pl_bad "key load --table-factor 3 over gpud's store: exit $rc, $(cat "$PL_W/load.err")"
job=$(pl_submit 2)
pl_wait "$job" 120 && pl_check_job "$job" 2

pl_log "7. pool destroy removes the stores beside the pool"
pl_stop "$PL_GPUD"
pl_stop "$PL_SYNTHD"
"$ZKSLOT" pool destroy | grep -q "removed 1 key store beside the pool" || pl_bad "pool destroy"
[ ! -e "$store" ] || pl_bad "the store outlived its pool"
pl_done
