#!/usr/bin/env bash
# test_e2e.sh -- jobs through the real pipeline on both curves: a pool of 3
# slots, one synthd with 2 workers, one gpud; 2 jobs of 4 and 3 partitions
# per curve.  Every proof is accepted by snarkjs and by `zkslot verify`,
# each partition is done with exactly one proof, SIGTERM stops both daemons
# with exit 0, and the pool is clean afterwards.  Partition k's public.json
# is witness k's public signals (pl_check_job).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init e2e || exit 77

pl_pool 3 || exit 1
pl_start_synthd --workers 2
pl_start_gpud --self-verify yes
for curve in bn128 bls12381; do
    pl_circuit "$curve" 600 4 || { pl_bad "circuit $curve"; continue; }
    j1=$(pl_submit 4) || { pl_bad "submit $curve"; continue; }
    j2=$(pl_submit 3) || { pl_bad "submit $curve"; continue; }
    for j in $j1 $j2; do
        pl_wait "$j" 300 || continue
        pl_check_job "$j" || continue
        n=$PL_NPROOFS
        pl_job_json "$j" "$PL_W/status.json" || continue
        python3 - "$PL_W/status.json" <<'PY' || pl_bad "job $j: status"
import json, sys
s = json.load(open(sys.argv[1]))
job = s.get("job", s)
parts = s.get("partitions") or job.get("partitions")
assert job["state"] == "done", job
assert all(p["state"] == "done" for p in parts), parts
assert all(p["proofs"] == 1 for p in parts), [p["proofs"] for p in parts]
PY
        echo "ok: $curve job $j: $n proofs accepted"
    done
done
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
pl_pool_clean
exit $PL_FAIL
