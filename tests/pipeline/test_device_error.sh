#!/usr/bin/env bash
# test_device_error.sh -- a GPU lost mid-job: gpud --backend cuda built
# against tests/cuemu (kernels on the CPU), whose runtime fails the H-step
# launch of the third partition and every call after it, as a device that
# fell off the bus would (CUEMU_FAIL_ON): the partitions still queued on it
# are lost with it, as on a GPU.  gpud hands every partition in hand back,
# stops, and exits 1 (systemd would restart it); they are queued again, not
# failed; a restarted gpud finishes the job with exactly one proof per
# partition, every proof accepted by snarkjs and `zkslot verify` (partition
# k's public.json against witness k), and the pool is clean.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init device_error || exit 77

pl_pool 3 || exit 1
pl_circuit bn128 600 6 || { pl_bad circuit; exit 1; }
pl_start_synthd --workers 2
ZKSLOT_GPUD=${ZKSLOT_GPUD_EMU:?}
CUEMU_FAIL_ON=k_h_step:3 pl_start_gpud --backend cuda
j=$(pl_submit 6) || { pl_bad submit; exit 1; }
# gpud must exit on its own, non-zero, within the time of a few proofs
for _ in $(seq 1 600); do kill -0 "$PL_GPUD" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$PL_GPUD" 2>/dev/null; then
    pl_bad "gpud still running 60 s after the device failure"
    pl_stop "$PL_GPUD"
else
    rc=0; wait "$PL_GPUD" || rc=$?
    [ "$rc" = 1 ] || pl_bad "gpud exit $rc after the device failure, expected 1"
fi
grep -q 'injected device failure.*k_h_step' "$PL_W/gpud.log" ||
    pl_bad "the emulated device did not fail"
grep -q 'GPU error.*cudaErrorLaunchFailure.*handing it back and exiting' "$PL_W/gpud.log" ||
    pl_bad "gpud did not log the CUDA failure and the hand-back"
"$ZKSLOT" status "$j" --json >"$PL_W/status1.json"
python3 - "$PL_W/status1.json" <<'PY' || pl_bad "after the failure: a partition failed or the job ended"
import json, sys
s = json.load(open(sys.argv[1]))
job = s.get("job", s)
parts = s.get("partitions") or job.get("partitions")
assert job["state"] in ("queued", "running"), job["state"]
# nothing failed, and nothing is left "proving" by the gpud that died: what
# it had queued on the lost device was handed back with the rest
assert not any(p["state"] in ("failed", "proving") for p in parts), [p["state"] for p in parts]
PY
pl_start_gpud --backend cuda                # "systemd restarts it"
pl_wait "$j" 300 && {
    pl_check_job "$j" 6 || true         # (each failure recorded by pl_bad)
    n=$PL_NPROOFS
    "$ZKSLOT" status "$j" --json >"$PL_W/status2.json"
    python3 - "$PL_W/status2.json" <<'PY' || pl_bad "job: states or proof counts"
import json, sys
s = json.load(open(sys.argv[1]))
job = s.get("job", s)
parts = s.get("partitions") or job.get("partitions")
assert job["state"] == "done", job
assert all(p["state"] == "done" and p["proofs"] == 1 for p in parts), parts
PY
    echo "ok: job $j done after the device failure and a restart: $n proofs"
}
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
pl_pool_clean
exit $PL_FAIL
