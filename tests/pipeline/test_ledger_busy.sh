#!/usr/bin/env bash
# test_ledger_busy.sh -- no partition stuck behind a failed ledger update
# (issue 15, defect 4).  A second connection (python3's sqlite3) holds
# `BEGIN IMMEDIATE` on the test's ledger for 3 s, longer than the daemons'
# busy timeout (lowered to 200 ms through ZKSLOT_TEST_LEDGER_BUSY_MS), twice
# while a job of 6 partitions runs:
#   1. with a partition READY and synthd filling the next, and a gpud started
#      inside the window: gpud's part_proving and synthd's part_ready and
#      claims fail with SQLITE_BUSY (gpud must un-claim the slot, not
#      release it: a released slot's partition is synthesized again);
#   2. while gpud holds a written proof before recording it
#      (ZKSLOT_TEST_RECORD_HOLD_MS): its part_done fails (it must be
#      retried: a live owner's partition is not reconcile's, so a done that
#      is only logged leaves the job unfinished for good).
# After each release the job goes on; at the end it is done, every proof
# checked, every partition synthesized once (attempts 1) and recorded done
# once (proofs 1), and each daemon logged "ledger unwritable" once per
# window it wrote in, each followed by "ledger writable again".
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init ledger_busy || exit 77

export ZKSLOT_TEST_LEDGER_BUSY_MS=200
db=$ZKSLOT_STATE_DIR/ledger.db
pl_pool 4 || exit 1
pl_circuit bn128 600 3 || { pl_bad circuit; exit 1; }
# one worker, each fill held 1.5 s: when the first partition is ready the
# second is being filled, and its part_ready falls inside the first window
ZKSLOT_TEST_FILL_DELAY_MS=1500 pl_start_synthd --workers 1
j=$(pl_submit_wtns "${PL_WTNS[@]}" "${PL_WTNS[@]}")   # 6 partitions
count() { "$ZKSLOT" status "$j" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); p=s.get("partitions") or s["job"]["partitions"]; print(sum(x["state"]==sys.argv[1] for x in p))' "$1"; }

# lock SECONDS: hold the ledger's write lock that long, in the background;
# returns once it is held
lock() {
    rm -f "$PL_W/locked"
    python3 - "$db" "$1" "$PL_W/locked" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[3], "w").close()
time.sleep(float(sys.argv[2]))
c.execute("COMMIT")
c.close()
PY
    PL_LOCKER=$!
    for _ in $(seq 100); do [ -e "$PL_W/locked" ] && return 0; sleep 0.1; done
    pl_bad "the lock holder never took the lock"
    return 1
}

# window 1: synthd has published some partitions and is filling more
for _ in $(seq 200); do [ "$(count ready)" -ge 1 ] && break; sleep 0.1; done
[ "$(count ready)" -ge 1 ] || pl_bad "no partition ready before the first window"
lock 3
ZKSLOT_TEST_RECORD_HOLD_MS=1000 pl_start_gpud --threads 1
pl_wait_log gpud "$PL_GPUD" "ledger unwritable" 10 || true
wait "$PL_LOCKER"
echo "window 1 over: $(count done) of 6 done"
# window 2: a proof written, not yet recorded
n=$(grep -c "proof written, not yet recorded" "$PL_W/gpud.log" || true)
for _ in $(seq 300); do
    [ "$(grep -c "proof written, not yet recorded" "$PL_W/gpud.log" || true)" -gt "$n" ] && break
    sleep 0.1
done
lock 3
[ "$(count done)" -lt 6 ] || pl_bad "the job finished before the second window"
wait "$PL_LOCKER"
echo "window 2 over: $(count done) of 6 done"

pl_wait "$j" 120 && pl_check_job "$j" 6 && echo "ok: $PL_NPROOFS proofs accepted"
"$ZKSLOT" status "$j" --json | python3 -c '
import json, sys
s = json.load(sys.stdin); parts = s.get("partitions") or s["job"]["partitions"]
for p in parts:
    assert p["state"] == "done", p
    assert p["attempts"] == 1, ("synthesized again", p)
    assert p["proofs"] == 1, ("done recorded twice", p)
' || pl_bad "a partition was synthesized again or recorded done twice"
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc"
for d in gpud synthd; do
    bad=$(grep -c "ledger unwritable" "$PL_W/$d.log" || true)
    good=$(grep -c "ledger writable again" "$PL_W/$d.log" || true)
    echo "$d: ledger unwritable logged $bad time(s), writable again $good"
    [ "$bad" -ge 1 ] && [ "$bad" -le 2 ] || pl_bad "$d logged the unwritable ledger $bad time(s) in 2 windows"
    [ "$good" = "$bad" ] || pl_bad "$d: $bad unwritable, $good writable again"
done
[ "$(grep -c "ledger unwritable" "$PL_W/gpud.log" || true)" = 2 ] ||
    pl_bad "gpud wrote in both windows: 2 unwritable states expected"
grep -E "marking (done|ready)|moving .* proving.*locked" "$PL_W/gpud.log" "$PL_W/synthd.log" |
    grep -v "ledger unwritable" && pl_bad "a failed transition was only logged"
pl_pool_clean
pl_done
