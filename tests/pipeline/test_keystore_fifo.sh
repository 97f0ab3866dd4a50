#!/usr/bin/env bash
# test_keystore_fifo.sh -- issue 46, "Files in shared directories": a FIFO
# planted at a key store's name (`<pool>.key-<hash>`, the hash shown by
# `zkslot key list`) never blocks gpud or the CLI.  Before the fix gpud's
# starter, loading a key added while it ran, waited in open(2) of the
# FIFO (O_RDONLY waits for a writer) before it looked at the file's type:
# it stayed "busy", so its watchdog kept being fed, and a job of an
# unrelated key was never proved.  Now:
#   1. gpud runs with key B (its store built); key A is added and a FIFO
#      planted at A's store name; a job of A, then one of B, are submitted:
#      gpud logs one line refusing A's store (naming it, "not a regular
#      file"), loads A from its .zkey, and proves both jobs (snarkjs and
#      zkslot verify check every proof);
#   2. `zkslot key status`, `zkslot key load A` and the one-shot
#      `zkslot prove` of A's key end within their timeout; key load
#      refuses the FIFO in one line, prove uses A's file;
#   3. a symlink at A's store name (to B's store, a valid store): key load
#      refuses it in one line ("a symlink (refused)").
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init keystore_fifo || exit 77

store_of() {   # store_of KEYNAME: the path of its store beside the pool
    local h
    h=$("$ZKSLOT" key list --json | python3 -c '
import json, sys
print([k["hash"] for k in json.load(sys.stdin) if k["name"] == sys.argv[1]][0])' "$1")
    echo "$ZKSLOT_POOL.key-$h"
}

pl_pool 2
pl_circuit bn128 600 1 || { pl_bad "circuit B"; exit 1; }
KB=$PL_KEYNAME VKB=$PL_VK WB=("${PL_WTNS[@]}")
store_b=$(store_of "$KB")
pl_start_synthd
pl_start_gpud
pl_wait_log gpud "$PL_GPUD" "key $KB: ready in .*store $store_b built" 60 || exit 1

pl_log "1. a FIFO at the store name of a key added under a running gpud"
pl_circuit bn128 300 1 || { pl_bad "circuit A"; exit 1; }
KA=$PL_KEYNAME VKA=$PL_VK KEYA=$PL_KEY WA=("${PL_WTNS[@]}")
store_a=$(store_of "$KA")
mkfifo -m 0644 "$store_a"
ja=$(pl_submit 1)
PL_KEYNAME=$KB PL_VK=$VKB PL_WTNS=("${WB[@]}")
jb=$(pl_submit 1)
pl_wait "$jb" 120 && pl_check_job "$jb" 1 ||
    pl_bad "the job of key $KB was not proved while a FIFO sat at $KA's store name"
PL_KEYNAME=$KA PL_VK=$VKA PL_WTNS=("${WA[@]}")
pl_wait "$ja" 120 && pl_check_job "$ja" 1
n=$(grep -c -F "$store_a: not a regular file (a FIFO" "$PL_W/gpud.log" || true)
[ "$n" = 1 ] || pl_bad "gpud logged the FIFO's refusal $n time(s), expected once: $(grep -F "$store_a" "$PL_W/gpud.log" | head -3 || true)"
pl_wait_log gpud "$PL_GPUD" "key $KA: ready in .*from its file" 5 || true
[ -p "$store_a" ] || pl_bad "gpud replaced the FIFO it did not make"
kill -0 "$PL_GPUD" || pl_bad "gpud died on the FIFO"

pl_log "2. the CLI on the FIFO"
rc=0
timeout 20 "$ZKSLOT" key status >"$PL_W/status.out" 2>&1 || rc=$?
[ "$rc" != 124 ] || pl_bad "zkslot key status hung on the FIFO"
rc=0
timeout 20 "$ZKSLOT" key load "$KA" >"$PL_W/load.out" 2>&1 || rc=$?
[ "$rc" != 124 ] || pl_bad "zkslot key load hung on the FIFO"
[ "$rc" != 0 ] && [ "$(grep -c -F "$store_a: not a regular file (a FIFO" "$PL_W/load.out")" = 1 ] ||
    pl_bad "key load over a FIFO: exit $rc, want a one-line refusal: $(head -c 600 "$PL_W/load.out")"
rc=0
timeout 60 "$ZKSLOT" prove "$KEYA" "${WA[0]}" "$PL_W/proof.json" "$PL_W/public.json" --verbose \
    2>"$PL_W/prove.err" || rc=$?
[ "$rc" = 0 ] && grep -q "the key's points from its file" "$PL_W/prove.err" ||
    pl_bad "zkslot prove with a FIFO at the store name: exit $rc (124: it hung): $(tail -n 3 "$PL_W/prove.err")"

pl_log "3. a symlink at the store name"
rm -f "$store_a"
ln -s "$store_b" "$store_a"
rc=0
timeout 20 "$ZKSLOT" key load "$KA" >"$PL_W/load.out" 2>&1 || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$(grep -c -F "$store_a: a symlink (refused)" "$PL_W/load.out")" = 1 ] ||
    pl_bad "key load over a symlink: exit $rc, want a one-line refusal: $(head -c 600 "$PL_W/load.out")"
rm -f "$store_a"
pl_done
