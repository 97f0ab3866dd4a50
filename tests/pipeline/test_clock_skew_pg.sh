#!/usr/bin/env bash
# test_clock_skew_pg.sh -- issue 47: machines whose clocks differ agree on
# deadlines, because every time written to or compared with the ledger on
# PostgreSQL is on the database's clock.  synthd and gpud run with their
# clocks 5 minutes ahead (libfaketime, FAKETIME=+5m); jobs with
# `--deadline 3m` are submitted by a client on the right clock and by one
# 5 minutes behind.  Before, the daemons compared the deadlines with their
# own clock and failed the first job within a second ("deadline exceeded"),
# and the client behind gave its job a deadline already past on the
# database's clock.  Checked: both jobs done, none failed; their deadlines
# about 3 minutes after their submit on the database's clock; each daemon
# logs once that its clock is about 300 s ahead of the database's.  Skips
# without PostgreSQL or libfaketime (Debian package faketime), and in the
# sanitizer tree (libfaketime hangs synthd at start under ASan).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
FT=
for f in /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 /usr/lib/*/faketime/libfaketime.so.1; do
    [ -f "$f" ] && { FT=$f; break; }
done
pl_init clock_skew_pg || exit 77
[ -n "$FT" ] || pl_skip "no libfaketime (Debian package faketime, tools/deps.sh)"
# under ASan's runtime, libfaketime's clock_gettime recurses at start and
# synthd never gets going ("Unexpected recursive calls to clock_gettime()")
[ -z "${ZK_SANITIZE:-}" ] || pl_skip "libfaketime does not run under the sanitizers ($ZK_SANITIZE)"
pl_pg_init
q() { pg_psql zk "$1"; }
# only the wall clock is off: libfaketime also moves CLOCK_MONOTONIC by
# default, which the kernel's timed waits on it (sem_clockwait) do not see
export FAKETIME_DONT_FAKE_MONOTONIC=1

pl_circuit bn128 600 2 || exit 1
pl_pool 2 || exit 1
LD_PRELOAD=$FT FAKETIME=+5m pl_start_synthd
LD_PRELOAD=$FT FAKETIME=+5m pl_start_gpud --threads 1
PL_SUBMIT_ARGS=(--deadline 3m)
job=$(pl_submit 1)
job2=$(LD_PRELOAD=$FT FAKETIME=-5m pl_submit_wtns "${PL_WTNS[1]}")
pl_log "jobs $job (client on time) and $job2 (client 5 min behind), --deadline 3m"
pl_wait "$job" 60 && pl_check_job "$job"
pl_wait "$job2" 60 && pl_check_job "$job2" 1
for j in "$job" "$job2"; do
    st=$(q "SELECT state || ' ' || error FROM jobs WHERE id = $j")
    [ "$st" = "done " ] || pl_bad "job $j: '$st', not done"
    # the deadline 3 minutes after the submit, both on the database's clock
    left=$(q "SELECT (deadline_ns - submitted_ns) / 1000000000 FROM jobs WHERE id = $j")
    [ "$left" -ge 175 ] && [ "$left" -le 185 ] ||
        pl_bad "job $j: deadline $left s after its submit, not 180"
    late=$(q "SELECT (extract(epoch FROM clock_timestamp()) * 1e9)::bigint - submitted_ns FROM jobs
              WHERE id = $j")
    [ "${late#-}" -lt 120000000000 ] || pl_bad "job $j: submitted_ns $late ns off the database's clock"
done
for d in "synthd $PL_SYNTHD" "gpud $PL_GPUD"; do
    read -r name pid <<<"$d"
    n=$(grep -cE "$name\[$pid\]: .*clock is (29[0-9]|30[0-9])\.[0-9] s ahead of the ledger's database" \
        "$PL_W/$name.log" || true)
    [ "$n" = 1 ] || pl_bad "$name logged its clock's skew $n times, not once"
done
pl_log "jobs: $(q "SELECT string_agg(id || ' ' || state, ', ' ORDER BY id) FROM jobs")"
pl_pool_clean
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_done
