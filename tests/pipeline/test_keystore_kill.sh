#!/usr/bin/env bash
# test_keystore_kill.sh -- kill -9 during a key store's creation leaves no
# usable half store (docs/keystore.md): `zkslot key load` is held with half
# the points written (test hook ZK_KEYSTORE_TEST_PAUSE: the file it names
# appears then) and killed.  Then: only the temporary file is there, the
# key is not resident, the one-shot prove uses the key's file, and the
# next loader (gpud) builds the store again, removes the dead creator's
# temporary file, and proves from the store (snarkjs checks the proofs).
# Last, the hook with a symlink planted at its file's name: not followed.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_keystore.sh"
pl_init keystore_kill || exit 77
ks_setup || exit 1
store=$KS_STORE

ZK_KEYSTORE_TEST_PAUSE=$PL_W/paused "$ZKSLOT" key load "$PL_KEYNAME" >"$PL_W/load.log" 2>&1 &
loader=$!
for ((i = 0; i < 300; i++)); do [ -e "$PL_W/paused" ] && break; sleep 0.1; done
[ -e "$PL_W/paused" ] || { pl_bad "key load never reached the pause"; exit 1; }
tmp=$store.tmp.$loader
[ -f "$tmp" ] && [ ! -e "$store" ] || pl_bad "while held: temporary file or store not as expected"
kill -9 "$loader"; wait "$loader" 2>/dev/null || true
[ -f "$tmp" ] && [ ! -e "$store" ] || pl_bad "after kill -9: a store at $store, or no temporary file"
"$ZKSLOT" key status | awk -v k="$PL_KEYNAME" '$1 == k { print $2 }' | grep -qx no ||
    pl_bad "key status counts the half-written store"
ks_prove "${PL_WTNS[0]}" "its file"

pl_start_synthd
pl_start_gpud
pl_wait_log gpud "$PL_GPUD" "key $PL_KEYNAME: ready in .*store $store built" 60 || exit 1
[ ! -e "$tmp" ] || pl_bad "the dead creator's temporary file is still there"
job=$(pl_submit 2)
pl_wait "$job" 120 && pl_check_job "$job" 2

# The hook's marker is made O_EXCL|O_NOFOLLOW (issue 46): a symlink planted
# at its name is not followed (its target is not created) and, with no
# marker made, the loader does not pause.
"$ZKSLOT" key unload "$PL_KEYNAME" >/dev/null
ln -s "$PL_W/hook-target" "$PL_W/paused-link"
rc=0
ZK_KEYSTORE_TEST_PAUSE=$PL_W/paused-link timeout 60 "$ZKSLOT" key load "$PL_KEYNAME" \
    >"$PL_W/load.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || pl_bad "key load with a symlink at the hook's name: exit $rc (124: it paused): $(tail -n 2 "$PL_W/load.log")"
[ ! -e "$PL_W/hook-target" ] || pl_bad "the test hook followed the symlink planted at its name"
pl_done
