#!/usr/bin/env bash
# test_stop_resync.sh -- the last daemon to stop leaves the pool's
# semaphores exact.  A take without a permit racing a publish can leave
# one `free` permit too many while the daemons run (docs/pool.md); the
# next start's resync took it, so `pool check` on a stopped service saw it
# (pipeline_test_kill_gpud in CI: "semaphore free = 4 but 3 slots are
# FREE" after both daemons stopped).  Here the surplus is made on purpose
# (pool_surplus posts one permit while synthd and gpud are attached):
# `pool check` with them running notes it, synthd's stop leaves it (gpud
# still attached), gpud's stop, the last, sets the semaphores to the
# slots' states and says so, and `pool check` is clean.  About 10 s.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
: "${ZK_POOL_SURPLUS:?}"
pl_init stop_resync || exit 77
pl_circuit bn128 600 2 || exit 1
pl_pool 2 || exit 1
pl_start_synthd
pl_start_gpud --threads 1
job=$(pl_submit 2)
pl_wait "$job" 60 && pl_check_job "$job"
"$ZK_POOL_SURPLUS" "$ZKSLOT_POOL" || pl_bad "pool_surplus failed"
"$ZKSLOT" pool check >"$PL_W/check1.out" 2>&1 || true
grep -q "free = 3" "$PL_W/check1.out" ||
  pl_bad "the surplus permit was not made: $(cat "$PL_W/check1.out")"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
! grep -q "semaphores set to the slots' states" "$PL_W/synthd.log" ||
  pl_bad "synthd resynced with gpud still attached"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
grep -q "gpud\[$PL_GPUD\]: .*semaphores set to the slots' states as the last writer left (free -1, ready +0)" \
  "$PL_W/gpud.log" || pl_bad "gpud, the last to stop, did not say it took the surplus: $(tail -n 2 "$PL_W/gpud.log")"
pl_pool_clean && echo "ok: pool check clean after the last daemon stopped"
pl_done
