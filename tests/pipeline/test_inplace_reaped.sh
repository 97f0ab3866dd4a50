#!/usr/bin/env bash
# test_inplace_reaped.sh -- the CPU backend proves in place (its prove_start
# uses the slot's a, b, c as scratch; docs/architecture.md, "Decisions"),
# so a slot reaped from a gpud killed there comes back READY failing its
# checksum, by design.  With real processes and a real kill -9 of gpud
# while it proves (ZKSLOT_TEST_START_HOLD_MS holds it there):
#   - after the reap `zkslot pool check` exits 0 and reports that slot on a
#     "note:" line (expected, synthesized again), not as a violation;
#   - the control: a byte flipped in the other READY slot, which no
#     consumer held, is a violation (exit 1) in the same pool;
#   - the next gpud drops the slot and re-queues its partition, synthd
#     synthesizes it a second time (attempts 2; the other partition 1),
#     every proof verifies, and pool check ends clean with no note.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init inplace_reaped || exit 77

pl_pool 2 || exit 1
pl_circuit bn128 600 2 || { pl_bad circuit; exit 1; }
pl_start_synthd --workers 1
ZKSLOT_TEST_START_HOLD_MS=60000 pl_start_gpud --threads 1
job=$(pl_submit 2)
pl_wait_log gpud "$PL_GPUD" "test hook: slot [0-9]+ held CLAIMED after prove_start" 60 || exit 1
held=$(grep -m 1 -E "gpud\[$PL_GPUD\]: .*test hook: slot [0-9]+ held CLAIMED" "$PL_W/gpud.log" |
       sed -n 's/.*test hook: slot \([0-9]*\) held.*/\1/p')
# the other partition is READY in the other slot, never claimed
slots() { "$ZKSLOT" pool status --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["slot_table"]:
    print("%d:%s:%s" % (s["index"], s["state"], s["partition"]))'; }
for _ in $(seq 100); do
    [ "$(slots | grep -c ':READY:')" = 1 ] && break
    sleep 0.1
done
other=$(slots | sed -n 's/^\([0-9]*\):READY:.*/\1/p')
[ -n "$other" ] && [ "$other" != "$held" ] || { pl_bad "no second READY slot: $(slots | tr '\n' ' ')"; exit 1; }
kill -9 "$PL_GPUD"; wait "$PL_GPUD" 2>/dev/null || true
echo "gpud $PL_GPUD killed in prove_start holding slot $held (slot $other READY, never claimed)"
"$ZKSLOT" pool reap >/dev/null

rc=0; "$ZKSLOT" pool check >"$PL_W/check1.out" 2>&1 || rc=$?
cat "$PL_W/check1.out"
[ "$rc" = 0 ] || pl_bad "pool check exit $rc after the reap of an in-place slot (expected 0)"
grep -q "^note: slot $held: READY partition [0-9]* fails its checksum after a consumer held it" "$PL_W/check1.out" ||
    pl_bad "pool check has no note for slot $held"
! grep -q '^violation:' "$PL_W/check1.out" || pl_bad "pool check reports a violation"

# the control: damage the never-claimed slot's witness region
# flip_byte SLOT: flip the first byte of the slot's second region (the
# witness), offsets from common/pool/layout.h (pool_hdr, pool_slot; the
# slot data is the file beside the pool, POOL.data)
flip_byte() {
    python3 - "$ZKSLOT_POOL" "$1" <<'PY'
import mmap, struct, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
g = open(sys.argv[1] + ".data", "r+b")
d = mmap.mmap(g.fileno(), 0)
i = int(sys.argv[2])
slot_size, table_off = (struct.unpack_from("<Q", m, o)[0] for o in (48, 64))
region1 = struct.unpack_from("<Q", m, table_off + 256 * i + 128 + 8)[0]
d[i * slot_size + region1] ^= 1
PY
}
flip_byte "$other"
rc=0; "$ZKSLOT" pool check >"$PL_W/check2.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "^violation: slot $other: READY partition [0-9]* fails its checksum$" "$PL_W/check2.out" ||
    pl_bad "control: a damaged never-claimed slot $other is not a violation (exit $rc): $(cat "$PL_W/check2.out")"
flip_byte "$other"
echo "control: slot $other damaged was a violation; restored"

pl_start_gpud --threads 1
pl_wait_log gpud "$PL_GPUD" "slot $held failed its checksum: dropped, partition [0-9]+ re-queued" 30 || exit 1
pl_wait "$job" 120 || exit 1
pl_check_job "$job" 2 || exit 1
atts=$("$ZKSLOT" status "$job" --json | python3 -c '
import json, sys
s = json.load(sys.stdin); parts = s.get("partitions") or s["job"]["partitions"]
print(" ".join(str(p["attempts"]) for p in sorted(parts, key=lambda p: p["attempts"])))')
[ "$atts" = "1 2" ] || pl_bad "attempts '$atts', expected '1 2' (the in-place partition synthesized again)"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_pool_clean
! grep -q '^note:' "$PL_W/check.out" || pl_bad "a note left at the end: $(cat "$PL_W/check.out")"
pl_done
