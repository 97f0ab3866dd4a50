#!/usr/bin/env bash
# test_witness_released.sh -- the pool does not keep a witness after its
# partition: the pool's slot data file is scanned (scan_witness.py: up to 48 private
# witness values of at least 2^64) while a partition's slot is READY
# (control: the scan finds them), after its job is done (release: none
# left), and for a slot whose producer was killed mid-fill (synthd held
# by ZKSLOT_TEST_FILL_DELAY_MS, kill -9: the reaper of gpud's next tick
# frees it; control: found while FILLING, none once reaped).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init witness_released || exit 77

pl_circuit bn128 600 2
npub=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nPublic"])' "$PL_VK")
found() {   # found WTNS: how many of its values the pool file holds
    python3 "$ZK_SOURCE_DIR/tests/pipeline/scan_witness.py" "$1" "$npub" "$ZKSLOT_POOL.data" |
        awk -v f="$ZKSLOT_POOL.data" '$1 == f { print $2 }'
}
wait_found() {   # wait_found WTNS: 0 once the pool holds its values (20 s)
    for _ in $(seq 100); do [ "$(found "$1")" -gt 0 ] && return 0; sleep 0.2; done
    return 1
}

pl_pool 2
pl_start_synthd --workers 1
j=$(pl_submit 1)
wait_found "${PL_WTNS[0]}" || pl_bad "control: the READY slot never held the witness (the scan cannot fail)"
pl_log "READY slot: $(found "${PL_WTNS[0]}") witness values in the pool file"
pl_start_gpud --threads 2
pl_wait "$j" 60
n=$(found "${PL_WTNS[0]}")
[ "$n" = 0 ] || pl_bad "job $j done: the pool file still holds $n of its witness values (slot released, not cleared)"

# a producer killed mid-fill: the reaper clears what it wrote
pl_stop "$PL_SYNTHD"
ZKSLOT_TEST_FILL_DELAY_MS=60000 pl_start_synthd --workers 1
j2=$(pl_submit_wtns "${PL_WTNS[1]}")
wait_found "${PL_WTNS[1]}" || pl_bad "control: the FILLING slot never held the witness"
kill -9 "$PL_SYNTHD"
wait "$PL_SYNTHD" 2>/dev/null || true
"$ZKSLOT" cancel "$j2" >/dev/null
for _ in $(seq 100); do
    "$ZKSLOT" pool status >"$PL_W/pool.status" 2>&1 || true
    grep -Eq '^ +[0-9]+ +FILLING' "$PL_W/pool.status" || break
    sleep 0.2
done
grep -Eq '^ +[0-9]+ +FILLING' "$PL_W/pool.status" && pl_bad "the dead synthd's FILLING slot was not reaped in 20 s"
n=$(found "${PL_WTNS[1]}")
[ "$n" = 0 ] || pl_bad "a dead producer's slot, reaped: the pool file still holds $n of its witness values"
[ "$(pl_failures)" != 0 ] || echo "ok: no witness value left in the pool after release and after the reaper"
pl_stop "$PL_GPUD"
pl_pool_clean
pl_done
