#!/usr/bin/env bash
# test_core_dump.sh -- no witness on disk by accident: a core of gpud taken
# mid-proof (gcore, as root: what a crash with core dumps on, or an operator
# debugging, would write) holds no private value of the partition's witness
# (scan_witness.py: up to 48 of its values of at least 2^64, standard and
# Montgomery form), while the pool's slot data file holds them at that moment
# (the control: the scan can find them).  gpud is held there by
# ZKSLOT_TEST_START_HOLD_MS (the slot CLAIMED, prove_start done: its own
# copy of the witness made).  Without gdb's gcore, or in a sanitizer build
# (whose core is its shadow memory): skip.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init core_dump || exit 77
command -v gcore >/dev/null || pl_skip "no gcore (gdb)"
# a sanitizer build's core holds its shadow memory: tens of GB, a full disk
[ -z "${ZK_SANITIZE:-}" ] || pl_skip "gcore of a sanitizer build ($ZK_SANITIZE) writes its shadow memory"

pl_circuit bn128 600 1
npub=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nPublic"])' "$PL_VK")
pl_pool 2
pl_start_synthd --workers 1
ZKSLOT_TEST_START_HOLD_MS=30000 pl_start_gpud --threads 2
j=$(pl_submit 1)
pl_wait_log gpud "$PL_GPUD" 'test hook: slot [0-9]+ held CLAIMED after prove_start' 60
# at most 4 GiB of core (ulimit -f counts KiB blocks): about 160 MB here
(ulimit -f $((4 << 20)); gcore -o "$PL_W/core" "$PL_GPUD") >"$PL_W/gcore.log" 2>&1 || pl_bad "gcore $PL_GPUD: $(tail -n 2 "$PL_W/gcore.log")"
core="$PL_W/core.$PL_GPUD"
[ -s "$core" ] || pl_bad "gcore wrote no core"
python3 "$ZK_SOURCE_DIR/tests/pipeline/scan_witness.py" "${PL_WTNS[0]}" "$npub" \
    "$ZKSLOT_POOL.data" "$core" >"$PL_W/scan.out"
kill -9 "$PL_GPUD"
read -r _ nvals < <(grep '^values ' "$PL_W/scan.out")
in_pool=$(awk -v f="$ZKSLOT_POOL.data" '$1 == f { print $2 }' "$PL_W/scan.out")
in_core=$(awk -v f="$core" '$1 == f { print $2 }' "$PL_W/scan.out")
[ "${in_pool:-0}" -gt 0 ] || pl_bad "control: the pool file holds none of the $nvals witness values while its slot is claimed (the scan cannot fail)"
[ "${in_core:--1}" = 0 ] || pl_bad "gpud's core ($(stat -c %s "$core") bytes) holds ${in_core:-?} of the $nvals witness values"
[ "$(pl_failures)" != 0 ] || echo "ok: pool holds $in_pool of $nvals witness values, gpud's core ($(stat -c %s "$core") bytes) none"
rm -f "$core"
pl_stop "$PL_SYNTHD"
"$ZKSLOT" cancel "$j" >/dev/null 2>&1 || true
pl_done
