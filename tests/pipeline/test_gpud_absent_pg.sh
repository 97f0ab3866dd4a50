#!/usr/bin/env bash
# test_gpud_absent_pg.sh -- a farm machine whose gpud is gone for good (a
# dead GPU, a unit past its start limit) while its synthd lives: the
# partitions it synthesized waited READY in its pool for ever, since its
# synthd kept the machine's lease and no other machine can read its slots.
# Now ([synthd] gpud_absent = 2 on machine a): machine a's gpud killed -9,
# a job of 6 submitted; a's synthd fills its two slots, then, 2 s without
# a gpud, pauses its claims and hands them back (ready -> queued, no error
# charged); machine b (started only then) proves all 6, snarkjs accepts
# them; a gpud started on a again ends the pause, and a alone proves the
# next job.  Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init gpud_absent_pg || exit 77
pl_pg_init
pl_circuit bn128 600 6 || exit 1
for m in a b; do pl_pg_machine "$m" 2 || exit 1; done
printf '[synthd]\ngpud_absent = 2\n' >"$PL_W/a.conf"

pl_pg_on a pl_start_gpud --threads 1 --machine a
gpud_a=$PL_GPUD
pl_wait_log gpud "$gpud_a" "ready: " 30 || pl_done
kill -9 "$gpud_a"; wait "$gpud_a" 2>/dev/null || true
pl_log "machine a's gpud killed"
pl_pg_on a pl_start_synthd --machine a
synthd_a=$PL_SYNTHD
job=$(pl_submit 6)
pl_wait_log synthd "$synthd_a" "no gpud attached to the pool for 2 s" 30 || pl_done
for _ in $(seq 100); do
    [ "$(grep -c "synthd\[$synthd_a\]: .*handed back from slot" "$PL_W/synthd.log")" -ge 2 ] && break
    sleep 0.1
done
n=$(grep -c "synthd\[$synthd_a\]: .*handed back from slot" "$PL_W/synthd.log" || true)
[ "$n" -ge 2 ] || pl_bad "machine a handed back $n partition(s), not its 2 ready ones"
[ "$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $job AND state = 'ready'")" = 0 ] ||
    pl_bad "partitions still ready after the hand-back"
pl_pg_on a "$ZKSLOT" pool status | grep -q '  READY 0  ' ||
    pl_bad "machine a's pool still holds READY slots: $(pl_pg_on a "$ZKSLOT" pool status | sed -n 4p)"

pl_pg_on b pl_start_synthd --machine b
pl_pg_on b pl_start_gpud --threads 1 --machine b
pl_wait "$job" 90 && ZKSLOT_MACHINE=b pl_pg_on b pl_check_job "$job"
by_b=$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $job AND state = 'done' AND machine = 'b'")
[ "$by_b" = 6 ] || pl_bad "machine b proved $by_b of 6 (a paused: none of a's)"
errs=$(pg_psql zk "SELECT sum(errors) FROM partitions WHERE job_id = $job")
[ "$errs" = 0 ] || pl_bad "the hand-back charged $errs error(s)"
kill -0 "$synthd_a" 2>/dev/null || pl_bad "machine a's synthd exited"
for p in "${PL_SYNTHD_PIDS[@]:1}" "${PL_GPUD_PIDS[@]:1}"; do   # machine b's
    pl_stop "$p"; [ "$PL_RC" = 0 ] || pl_bad "a daemon of b exited $PL_RC after SIGTERM"
done

# a gpud on a again: the pause ends, and a proves the next job alone
pl_pg_on a pl_start_gpud --threads 1 --machine a
pl_wait_log synthd "$synthd_a" "a gpud is attached to the pool again: claiming partitions" 15 || true
job2=$(pl_submit 2)
pl_wait "$job2" 60 && ZKSLOT_MACHINE=a pl_pg_on a pl_check_job "$job2" 2
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "a's new gpud exited $PL_RC after SIGTERM"
pl_stop "$synthd_a"; [ "$PL_RC" = 0 ] || pl_bad "a's synthd exited $PL_RC after SIGTERM"
pl_done
