#!/usr/bin/env bash
# test_inputs_purged.sh -- a job's input and witness do not outlive it
# (SQLite ledger, [ledger] keep_inputs = 0): a job from a circuit input
# whose private signal y is a 72-digit number, padded with 2 MiB of JSON
# white space.  While its partition waits for a gpud (control), the ledger
# files hold the input sealed to the daemons (zk/seal.h: its magic, never
# y's digits) and are over 2 MiB.  Once the job is done, within the
# daemons' purge pass (every 5 s): neither ledger.db nor its -wal holds
# the sealed input, y's digits or any private witness value (scan_witness.py),
# nor does `zkslot status --json`, `result`, `metrics` or a daemon's log,
# ledger.db is back under 1 MiB (the space given back: incremental vacuum)
# and the -wal is empty; the pool file holds no witness value, synthd's
# witness directory no file; the job's results are all there (proofs
# verify) and `zkslot status --json` still reads it.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
pl_init inputs_purged || exit 77

pli_circuit bn128
mkdir -p "$PL_W/shm"
printf '[ledger]\nkeep_inputs = 0\n[synthd]\nwitness_dir = %s\n' "$PL_W/shm" >"$ZKSLOT_CONFIG"
pli_allow "$ZK_INTEROP_WORK"
y=$(python3 -c 'print(3**150 + 7)')
python3 - "$y" >"$PL_W/in.json" <<'PY'
import sys
sys.stdout.write('{"x": "3", "y": "%s", "b": "1"}' % sys.argv[1] + " " * (2 << 20) + "\n")
PY
pli_reference "$PL_W/in.json" "$PL_W/ref.wtns"
npub=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nPublic"])' "$PLI_VK")
L="$ZKSLOT_STATE_DIR/ledger.db"
holds() { cat "$L" "$L-wal" 2>/dev/null | grep -a -c -F -- "$1" || true; }
holds_y() { holds "$y"; }
holds_input() { echo $(($(holds "$y") + $(holds zkseal1))); }
scan() { python3 "$ZK_SOURCE_DIR/tests/pipeline/scan_witness.py" "$PL_W/ref.wtns" "$npub" "$@"; }

pl_pool 2
pl_start_synthd --workers 1
pli_key_add purge --witness-gen "$PLI_CPP"
j=$("$ZKSLOT" submit --key purge --input "$PL_W/in.json")
pl_expect "$j" "$PL_W/ref.wtns"
for _ in $(seq 100); do [ "$(pli_part_field "$j" 0 state)" = ready ] && break; sleep 0.1; done
[ "$(pli_part_field "$j" 0 state)" = ready ] || pl_bad "partition of job $j never ready"
size0=$(( $(stat -c %s "$L") + $(stat -c %s "$L-wal" 2>/dev/null || echo 0) ))
[ "$(holds zkseal1)" -gt 0 ] && [ "$size0" -gt $((2 << 20)) ] ||
    pl_bad "control: the ledger ($size0 bytes) does not hold the sealed input while the job runs"
[ "$(holds_y)" = 0 ] || pl_bad "the ledger holds the input's private y in clear while the job runs"

pl_start_gpud --threads 2
pl_wait "$j" 60 && pl_check_job "$j" 1
for _ in $(seq 40); do [ "$(holds_input)" = 0 ] && break; sleep 0.25; done
[ "$(holds_input)" = 0 ] || pl_bad "job $j done 10 s ago: the ledger files still hold its input"
size=$(stat -c %s "$L")
[ "$size" -lt $((1 << 20)) ] || pl_bad "ledger.db is $size bytes after the purge (was $size0 with the input)"
wal=$(stat -c %s "$L-wal" 2>/dev/null || echo 0)
[ "$wal" = 0 ] || pl_bad "ledger.db-wal is $wal bytes after the purge, expected emptied"
scan "$L" "$L-wal" "$ZKSLOT_POOL" >"$PL_W/scan.out" 2>/dev/null || true
left=$(find "$PL_W/shm" -type f | head -3)
[ -z "$left" ] || pl_bad "files left in the witness directory: $left"
"$ZKSLOT" status "$j" --json >"$PL_W/status.json" || pl_bad "zkslot status $j --json after the purge"
# what an operator sees besides the files: status, result, metrics, logs
"$ZKSLOT" result "$j" >"$PL_W/result.txt" || pl_bad "zkslot result $j after the purge"
"$ZKSLOT" metrics --textfile "$PL_W/metrics.prom" --once || pl_bad "zkslot metrics --once"
for f in status.json result.txt metrics.prom synthd.log gpud.log; do
    ! grep -q -F -- "$y" "$PL_W/$f" || pl_bad "$f shows the input's private y"
done
scan "$PL_W/status.json" "$PL_W/result.txt" "$PL_W/metrics.prom" >>"$PL_W/scan.out" 2>/dev/null || true
grep -q '^values [1-9]' "$PL_W/scan.out" || pl_bad "the witness scan did not run: $(head -n 2 "$PL_W/scan.out")"
awk '$1 != "values" && $2 != 0 && $2 != -1 { print }' "$PL_W/scan.out" | while read -r f n; do
    pl_bad "$f holds $n private witness values after the job"
done
grep -q "deleted the inputs of 1 partition" "$PL_W/synthd.log" "$PL_W/gpud.log" ||
    pl_bad "no daemon logged the purge"
[ "$(pl_failures)" != 0 ] ||
    echo "ok: input gone from the ledger ($size0 -> $size bytes, wal $wal), no witness value left; results kept"
pl_stop "$PL_GPUD"
pl_stop "$PL_SYNTHD"
pl_done
