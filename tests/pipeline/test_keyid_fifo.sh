#!/usr/bin/env bash
# test_keyid_fifo.sh -- issue 46, "Files in shared directories": a FIFO
# planted at a key file's identity record (`<pool>.keyid-<dev>-<ino>`
# beside the stores, docs/keystore.md; the device and inode of a key file
# are anyone's to stat) never blocks the one-shot `zkslot prove`.  Before
# the fix the record was opened O_RDONLY, which waits for a writer on a
# FIFO, before its type was looked at.  Now a record that is not a regular
# file is ignored like any untrusted record: prove ends within its timeout,
# hashes the file and takes the points from the store (snarkjs checks the
# proof).  The same for a symlink planted there (to a real record).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_keystore.sh"
pl_init keyid_fifo || exit 77
ks_setup || exit 1
"$ZKSLOT" key load "$PL_KEYNAME" >/dev/null || { pl_bad "key load"; exit 1; }
record=$ZKSLOT_POOL.keyid-$(stat -c '%d %i' "$PL_KEY" | awk '{ printf "%x-%x", $1, $2 }')

# prove_within WHAT: the one-shot prove ends within 60 s, its points from
# the store found by hashing the file, the proof accepted by snarkjs
prove_within() {
    local rc=0
    timeout 60 "$ZKSLOT" prove "$PL_KEY" "${PL_WTNS[0]}" "$PL_W/proof.json" "$PL_W/public.json" \
        --verbose 2>"$PL_W/prove.err" || rc=$?
    [ "$rc" != 124 ] || { pl_bad "$1: zkslot prove still waiting after 60 s (killed)"; return 1; }
    [ "$rc" = 0 ] || { pl_bad "$1: zkslot prove exit $rc: $(tail -n 3 "$PL_W/prove.err")"; return 1; }
    grep -q "the key's points from its store $KS_STORE\$" "$PL_W/prove.err" ||
        pl_bad "$1: points not from the store found by hashing: $(grep "points from" "$PL_W/prove.err")"
    zk_snarkjs groth16 verify "$PL_VK" "$PL_W/public.json" "$PL_W/proof.json" 2>&1 | grep -q "OK!" ||
        pl_bad "$1: snarkjs refused the proof"
}

pl_log "1. a FIFO at the key file's identity record"
rm -f "$record"
mkfifo -m 0644 "$record"
prove_within "a FIFO at $record"

pl_log "2. a symlink at the identity record, to a real record"
[ -f "$record" ] || ks_prove "${PL_WTNS[0]}" "its store $KS_STORE" hash   # writes one
[ -f "$record" ] || { pl_bad "no identity record at $record after a prove"; pl_done; }
mv "$record" "$PL_W/real-record"
ln -s "$PL_W/real-record" "$record"
prove_within "a symlink at $record"
pl_done
