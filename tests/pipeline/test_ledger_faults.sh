#!/usr/bin/env bash
# test_ledger_faults.sh -- the ledger's disk fails under running daemons,
# then recovers: no partition stuck, none done twice, every proof valid.
#   1. disk full: the state directory is a 4 MiB tmpfs of its own (a
#      private mount namespace: root only), filled to the last byte while
#      partitions are in flight; the daemons' writes fail (SQLITE_FULL), they
#      say so once ("ledger unwritable"), keep what they hold, retry, and
#      carry on when the filler is removed ("ledger writable again");
#      `zkslot submit` meanwhile fails in one line naming the ledger;
#   2. I/O errors: every write and sync of the ledger fails (SQLITE_IOERR)
#      while a trigger file exists (ZKSLOT_TEST_LEDGER_EIO, the ledger's
#      fault VFS): the same recovery.
# Job outputs go to a directory outside the small tmpfs (--out), so only the
# ledger is hit.  After each phase: every partition done with exactly one
# proof, proofs accepted by snarkjs and `zkslot verify`, daemons alive.
set -euo pipefail
if [ "${ZK_LEDGER_FAULTS_NS:-}" != 1 ]; then
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a tmpfs of its own for the disk-full case)"; exit 77; }
    ZK_LEDGER_FAULTS_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init ledger_faults || exit 77
mount -t tmpfs -o size=4M,mode=0755 zkslot-ledger-faults "$ZKSLOT_STATE_DIR" ||
    { pl_bad "mount a tmpfs on the state directory"; exit 1; }
# unmounted before lib.sh's cleanup removes the work directory
trap 'rc=$?; trap - ERR; set +e; umount -l "$ZKSLOT_STATE_DIR" 2>/dev/null; (exit $rc); pl_cleanup' EXIT
export ZKSLOT_TEST_LEDGER_EIO=$PL_W/eio
out=$PL_W/out
mkdir -p "$out"

pl_pool 3 || exit 1
pl_circuit bn128 600 6 || { pl_bad circuit; exit 1; }
ZKSLOT_TEST_FILL_DELAY_MS=500 pl_start_synthd --workers 2
pl_start_gpud
submit() {   # submit TAG: a job of the 6 witnesses, outputs under $out/TAG
    local j
    j=$("$ZKSLOT" submit --key "$PL_KEYNAME" --out "$out/$1" "${PL_WTNS[@]}") || return 1
    pl_expect "$j" "${PL_WTNS[@]}"
    echo "$j"
}
# once_each JOB: every partition done with exactly one proof
once_each() {
    pl_job_json "$1" "$PL_W/s.$1.json" || return 1
    python3 - "$PL_W/s.$1.json" >"$PL_W/once.$1" 2>&1 <<'PY' || { pl_bad "job $1: $(tail -n 1 "$PL_W/once.$1")"; return 1; }
import json, sys
s = json.load(open(sys.argv[1])); parts = s.get("partitions") or s["job"]["partitions"]
bad = [(p["index"], p["state"], p["proofs"]) for p in parts if p["state"] != "done" or p["proofs"] != 1]
if bad:
    sys.exit("partitions not done exactly once (index, state, proofs): %s" % bad)
PY
}
alive() {
    kill -0 "$PL_SYNTHD" 2>/dev/null || pl_bad "synthd died: $(tail -n 3 "$PL_W/synthd.log" | tr '\n' ' ')"
    kill -0 "$PL_GPUD" 2>/dev/null || pl_bad "gpud died: $(tail -n 3 "$PL_W/gpud.log" | tr '\n' ' ')"
}
# refused TAG MESSAGE: while the fault lasts, submit fails in one line naming
# the ledger and MESSAGE; the daemons stay up
refused() {
    local rc=0 err=$PL_W/submit-$1.err
    "$ZKSLOT" submit --key "$PL_KEYNAME" --out "$out/refused-$1" "${PL_WTNS[0]}" >/dev/null 2>"$err" || rc=$?
    [ "$rc" != 0 ] && [ "$(wc -l <"$err")" = 1 ] && grep -q "ledger.db: $2" "$err" ||
        pl_bad "submit ($1): exit $rc, '$(cat "$err")' (expected one line: the ledger, $2)"
    echo "submit ($1): $(cat "$err")"
    sleep 2
    alive
}
logged() {   # logged REGEX: a daemon logged it (no pipe: with pipefail, cat
             # killed by SIGPIPE when grep -q stops at a match made it fail)
    grep -qE "$1" "$PL_W/synthd.log" "$PL_W/gpud.log"
}

# ---- 1. disk full ----------------------------------------------------------------
j=$(submit full)   # the disk fills while its partitions are in flight
dd if=/dev/zero of="$ZKSLOT_STATE_DIR/filler" bs=16k 2>/dev/null || true   # to ENOSPC
echo "state directory full: $(df -h --output=avail "$ZKSLOT_STATE_DIR" | tail -n 1 | tr -d ' ') left"
for _ in $(seq 100); do logged "ledger unwritable" && break; sleep 0.1; done
logged "ledger unwritable: .*(full|disk)" || pl_bad "disk full: no daemon said the ledger is unwritable"
refused full "database or disk is full"
rm -f "$ZKSLOT_STATE_DIR/filler"
pl_wait "$j" 120 && pl_check_job "$j" 6 && once_each "$j" && echo "disk full: job $j done, each partition once"
logged "ledger writable again" || pl_bad "disk full: no daemon said the ledger is writable again"

# ---- 2. I/O errors ---------------------------------------------------------------
n_before=$(cat "$PL_W/synthd.log" "$PL_W/gpud.log" | grep -c "ledger unwritable" || true)
j=$(submit eio)    # the errors start while its partitions are in flight
: >"$ZKSLOT_TEST_LEDGER_EIO"
for _ in $(seq 100); do
    [ "$(cat "$PL_W/synthd.log" "$PL_W/gpud.log" | grep -c "ledger unwritable" || true)" -gt "$n_before" ] && break
    sleep 0.1
done
[ "$(cat "$PL_W/synthd.log" "$PL_W/gpud.log" | grep -c "ledger unwritable" || true)" -gt "$n_before" ] ||
    pl_bad "I/O errors: no daemon said the ledger is unwritable"
refused eio "disk I/O error"
rm -f "$ZKSLOT_TEST_LEDGER_EIO"
pl_wait "$j" 120 && pl_check_job "$j" 6 && once_each "$j" && echo "I/O errors: job $j done, each partition once"
alive
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_pool_clean || true
pl_done
