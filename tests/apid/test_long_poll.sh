#!/usr/bin/env bash
# test_long_poll.sh -- a long poll outlives the request deadline: apid
# with --request-timeout 2 holds GET /v1/jobs/{id}?wait=6 for its 6 s and
# answers 200, and `zkslot --server URL wait JOB --timeout 5` times out
# as a wait does (exit 3, the job's state said), not on a connection the
# server cut.  Before the fix the connection was cut at the request
# deadline in the middle of the poll: `zkslot --server wait` failed
# ("the server closed the connection without an answer") for any job
# longer than 30 s (found by filecoin_test_fil_faces).  Then the daemons
# start and the same wait ends 0.  About 20 s.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init apid_long_poll || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
pl_circuit bn128 600 1 || exit 1
pl_pool 2 || exit 1
apid_start --request-timeout 2
j=$("$ZKSLOT" --server "$APID_URL" submit --key "$PL_KEYNAME" "${PL_WTNS[0]}")
t0=$(date +%s.%N)
code=$(curl -s -m 20 -o "$PL_W/resp" -w '%{http_code}' "$APID_URL/v1/jobs/$j?wait=6" || true)
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [ "$code" = 200 ] && grep -q '"state": *"queued"' "$PL_W/resp" &&
   awk -v e="$el" 'BEGIN { exit !(e >= 5.5 && e < 15) }'; then
  echo "ok: a 6 s long poll past the 2 s request deadline: 200 after $el s, the job queued"
else
  pl_bad "a 6 s long poll with --request-timeout 2: $code after $el s: $(head -c 200 "$PL_W/resp" 2>/dev/null || true)"
fi
rc=0
"$ZKSLOT" --server "$APID_URL" wait "$j" --timeout 5 2>"$PL_W/wait.err" || rc=$?
if [ "$rc" = 3 ] && grep -q "timed out after 5 s: job $j is queued" "$PL_W/wait.err"; then
  echo "ok: zkslot --server wait --timeout 5: exit 3, $(cat "$PL_W/wait.err")"
else
  pl_bad "zkslot --server wait --timeout 5: exit $rc: $(cat "$PL_W/wait.err")"
fi
pl_start_synthd
pl_start_gpud --threads 1
rc=0
"$ZKSLOT" --server "$APID_URL" wait "$j" --timeout 60 2>"$PL_W/wait.err" || rc=$?
[ "$rc" = 0 ] || pl_bad "zkslot --server wait once the daemons run: exit $rc: $(cat "$PL_W/wait.err")"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
apid_stop
pl_pool_clean
pl_done
