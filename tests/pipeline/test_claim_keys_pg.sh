#!/usr/bin/env bash
# test_claim_keys_pg.sh -- on a shared PostgreSQL ledger a machine claims
# only the keys it serves: machine a's [gpud] keys names another key, so
# its synthd logs once that it does not claim this key's partitions, and
# the job waits, queued and not failed, until machine b (every key, the
# file present) starts and proves it; snarkjs accepts every proof.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init claim_keys_pg || exit 77
POOL_B=/dev/shm/zkslot-test-claim_keys_pg-b-$$.pool
pl_pg_init 'ZKSLOT_POOL=$POOL_B "$ZKSLOT" pool destroy --force >/dev/null 2>&1; rm -f "$POOL_B"'

pl_circuit bn128 600 3 || exit 1
pl_pool 2 || exit 1
printf '[gpud]\nkeys = some-other-key\n' >"$PL_W/a.conf"
ZKSLOT_CONFIG=$PL_W/a.conf pl_start_synthd --machine a
SA=$PL_SYNTHD
job=$("$ZKSLOT" submit --key "$PL_KEYNAME" --out "$PL_W/out" "${PL_WTNS[@]}")
pl_expect "$job" "${PL_WTNS[@]}"
pl_wait_log synthd "$SA" "key $PL_KEYNAME: its partitions are not claimed on this machine: not in \[gpud\] keys" 20
sleep 3
state=$(pg_psql zk "SELECT state FROM jobs WHERE id = $job")
[ "$state" = queued ] || pl_bad "job $job is $state while only machine a (not serving its key) runs"
[ "$(grep -c "synthd\[$SA\]: key $PL_KEYNAME: its partitions are not claimed" "$PL_W/synthd.log")" = 1 ] ||
    pl_bad "machine a logged its refusal more than once"

ZKSLOT_POOL=$POOL_B "$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >/dev/null
mkdir -p "$PL_W/b"
ZKSLOT_POOL=$POOL_B ZKSLOT_STATE_DIR=$PL_W/b pl_start_synthd --machine b
ZKSLOT_POOL=$POOL_B ZKSLOT_STATE_DIR=$PL_W/b pl_start_gpud --machine b
pl_wait "$job" 120 && pl_check_job "$job"
n=$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $job AND attempts = 1 AND errors = 0")
[ "$n" = 3 ] || pl_bad "$n of 3 partitions synthesized once without an error"
pl_done
