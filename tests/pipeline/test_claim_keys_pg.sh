#!/usr/bin/env bash
# test_claim_keys_pg.sh -- on a shared PostgreSQL ledger a machine claims
# a key's partitions only when it serves the key and has a file with the
# registered content (common/daemon/keylocal.h): the registered path, else
# [keys] dir + the file's basename.  Two machines on this host, one server:
#   - key `mine` is registered at $REG, then $REG is replaced by another
#     file of the same size (the last byte changed), and machine a gets a
#     copy of the right file under its [keys] dir;
#   - machine b (the registered path only) hashes $REG once, logs once that
#     it does not claim `mine` (hash differs) and says so in its STATUS
#     (sd_notify, a stand-in socket of this test's); the job stays queued,
#     not failed, nothing synthesized;
#   - machine a ([gpud] keys = mine) logs once that pl_circuit's key is not in
#     its [gpud] keys, claims `mine` from its [keys] dir copy, its gpud
#     loads that same copy, and it proves the job (snarkjs accepts);
#   - a's copy replaced by the wrong file while a runs: a hashes it again
#     (a new identity) and stops claiming; b's file, hashed once, is not
#     hashed again by its refreshes every 2 s;
#   - b's $REG replaced by the right content while b runs: b hashes it
#     again, claims `mine` again, and proves a second job.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init claim_keys_pg || exit 77
POOL_B=/dev/shm/zkslot-test-claim_keys_pg-b-$$.pool
SRV=
pl_pg_init '[ -z "$SRV" ] || kill "$SRV" 2>/dev/null; ZKSLOT_POOL=$POOL_B "$ZKSLOT" pool destroy --force >/dev/null 2>&1; rm -f "$POOL_B" "$POOL_B".data'

pl_circuit bn128 600 3 || exit 1
mkdir -p "$PL_W/reg" "$PL_W/keys-a" "$PL_W/b"
REG=$PL_W/reg/chain.zkey
KA=$PL_W/keys-a/chain.zkey
cp "$PL_KEY" "$REG"
"$ZKSLOT" key add mine "$REG" >/dev/null
OTHER=$PL_KEYNAME   # pl_circuit's key, its file unchanged; not in a's [gpud] keys
# with --out: the proving machine writes there, where pl_check_job reads
submit() {
    local id
    id=$("$ZKSLOT" submit --key mine --out "$PL_W/out$1" "${PL_WTNS[@]}")
    pl_expect "$id" "${PL_WTNS[@]}"
    echo "$id"
}
job=$(submit 1)

# put FILE in place through a temporary name (a new identity), right or
# wrong (the last byte changed: same size, same header, another content)
put_key() {
    python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read())
if sys.argv[3] == "wrong":
    d[-1] ^= 0x5a
open(sys.argv[2] + ".tmp", "wb").write(d)' "$PL_KEY" "$1" "$2"
    mv "$1.tmp" "$1"
}
put_key "$KA" right
put_key "$REG" wrong

# b's STATUS lines: a datagram socket standing in for systemd's
SOCK=$PL_W/b/notify.sock
have_notify=1
pl_notify_listen "$SOCK" "$PL_W/b/notify.log" ||
    { have_notify=0; pl_log "synthd built without libsystemd: b's STATUS is not checked"; }
SRV=$PL_NOTIFY
# b_status_has REGEX SECONDS: b's last STATUS line matches REGEX in time
b_status_has() {
    local i
    [ $have_notify = 1 ] || return 0
    for ((i = 0; i <= $2 * 10; i++)); do
        grep '^STATUS=' "$PL_W/b/notify.log" 2>/dev/null | tail -n 1 | grep -qE "$1" && return 0
        sleep 0.1
    done
    pl_bad "b's STATUS never matched /$1/ in $2 s: $(grep '^STATUS=' "$PL_W/b/notify.log" | tail -n 1)"
}
# count DAEMON PID TEXT: lines of that process with TEXT (fixed string)
count() { grep -F "$1[$2]: " "$PL_W/$1.log" | grep -cF -- "$3" || true; }

pl_log "machine b: the registered path holds another file of the same size"
ZKSLOT_POOL=$POOL_B "$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >/dev/null
NOTIFY_SOCKET=$SOCK ZKSLOT_POOL=$POOL_B ZKSLOT_STATE_DIR=$PL_W/b pl_start_synthd --machine b
SB=$PL_SYNTHD
pl_wait_log synthd "$SB" "key mine: its partitions are not claimed on this machine: $REG is another file of the same size" 20
b_status_has "not claiming keys: mine \(hash differs\)" 10
sleep 2   # a claims refresh (2 s) and many claim polls later: still nothing claimed
state=$(pg_psql zk "SELECT state FROM jobs WHERE id = $job")
[ "$state" = queued ] || pl_bad "job $job is $state while only machine b (another file) runs"
n=$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $job AND (attempts > 0 OR state <> 'queued')")
[ "$n" = 0 ] || pl_bad "$n partition(s) of job $job were claimed by machine b"

pl_log "machine a: the right file under its [keys] dir"
printf '[gpud]\nkeys = mine\n[keys]\ndir = %s\n' "$PL_W/keys-a" >"$PL_W/a.conf"
pl_pool 2
ZKSLOT_CONFIG=$PL_W/a.conf pl_start_synthd --machine a
SA=$PL_SYNTHD
ZKSLOT_CONFIG=$PL_W/a.conf pl_start_gpud --machine a
GA=$PL_GPUD
pl_wait_log synthd "$SA" "key $OTHER: its partitions are not claimed on this machine: not in \[gpud\] keys" 20
pl_wait "$job" 120 && pl_check_job "$job"
n=$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $job AND machine = 'a' AND attempts = 1 AND errors = 0")
[ "$n" = 3 ] || pl_bad "$n of 3 partitions synthesized once by machine a without an error"
[ "$(count gpud "$GA" "key mine: loading $KA ")" = 1 ] || pl_bad "a's gpud did not load $KA"
[ "$(count synthd "$SA" "key $OTHER: its partitions are not claimed")" = 1 ] ||
    pl_bad "machine a did not log its refusal of key $OTHER exactly once"

pl_log "a's file replaced by another content while a runs"
put_key "$KA" wrong
pl_wait_log synthd "$SA" "key mine: its partitions are not claimed on this machine: .*$KA is another file of the same size" 20
[ "$(count synthd "$SA" "key mine: hashing $KA ")" = 2 ] ||
    pl_bad "machine a hashed $KA $(count synthd "$SA" "key mine: hashing $KA ") times, not once per file"
[ "$(count synthd "$SB" "key mine: hashing $REG ")" = 1 ] ||
    pl_bad "machine b hashed its unchanged $REG $(count synthd "$SB" "key mine: hashing $REG ") times"
[ "$(count synthd "$SB" "key mine: its partitions are not claimed")" = 1 ] ||
    pl_bad "machine b did not log its refusal exactly once"
pl_stop "$GA"
pl_stop "$SA"

pl_log "b's registered path replaced by the right content while b runs"
put_key "$REG" right
pl_wait_log synthd "$SB" "key mine: its partitions are claimed on this machine again \($REG\)" 20
[ "$(count synthd "$SB" "key mine: hashing $REG ")" = 2 ] || pl_bad "machine b did not hash its new $REG"
b_status_has "^STATUS=slots [^;]*; synthesized [0-9]+, errors [0-9]+$" 10   # none left out
job2=$(submit 2)
ZKSLOT_POOL=$POOL_B ZKSLOT_STATE_DIR=$PL_W/b pl_start_gpud --machine b
pl_wait "$job2" 120 && pl_check_job "$job2"
n=$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $job2 AND machine = 'b' AND attempts = 1 AND errors = 0")
[ "$n" = 3 ] || pl_bad "$n of 3 partitions of job $job2 synthesized once by machine b without an error"
pl_done
