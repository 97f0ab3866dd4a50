#!/usr/bin/env bash
# test_bad_job.sh -- daemons never crash on a bad job: a witness that was
# valid at submit and is truncated afterwards, and a key file deleted after
# `zkslot key add`, make their partitions fail after --max-errors errors
# with the error recorded (naming the file), their jobs fail cleanly, and a
# good job submitted behind them is proved (its proofs checked by snarkjs
# and `zkslot verify`, partition k's public.json against witness k); both
# daemons are still up.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init bad_job || exit 77

pl_pool 2 || exit 1
pl_circuit bn128 300 2 || { pl_bad circuit; exit 1; }
cp "${PL_WTNS[0]}" "$PL_W/bad.wtns"
bad=$("$ZKSLOT" submit --key "$PL_KEYNAME" "$PL_W/bad.wtns") || pl_bad "submit"
truncate -s 100 "$PL_W/bad.wtns"
cp "$PL_KEY" "$PL_W/gone.zkey"
"$ZKSLOT" key add gone "$PL_W/gone.zkey" >/dev/null || pl_bad "key add"
gone=$("$ZKSLOT" submit --key gone "${PL_WTNS[0]}") || pl_bad "submit gone"
rm "$PL_W/gone.zkey"
good=$(pl_submit 2)
pl_start_synthd --workers 1 --max-errors 2
pl_start_gpud --max-errors 2

rc=0; "$ZKSLOT" wait "$bad" --timeout 120 >/dev/null 2>"$PL_W/bad.err" || rc=$?
[ "$rc" = 1 ] || pl_bad "wait on the truncated-witness job: exit $rc, expected 1"
grep -q "bad.wtns" "$PL_W/bad.err" || pl_bad "the job's error does not name the witness: $(cat "$PL_W/bad.err")"
rc=0; "$ZKSLOT" wait "$gone" --timeout 120 >/dev/null 2>"$PL_W/gone.err" || rc=$?
[ "$rc" = 1 ] || pl_bad "wait on the deleted-key job: exit $rc, expected 1"
grep -q "gone.zkey" "$PL_W/gone.err" || pl_bad "the job's error does not name the key file: $(cat "$PL_W/gone.err")"
"$ZKSLOT" status "$bad" --json | python3 -c '
import json, sys
s = json.load(sys.stdin); p = (s.get("partitions") or s["job"]["partitions"])[0]
assert p["state"] == "failed" and p["errors"] == 2, p' || pl_bad "failed partition: state/errors"
pl_wait "$good" 120 && pl_check_job "$good" 2 && echo "ok: the good job behind them: $PL_NPROOFS proofs"
kill -0 "$PL_SYNTHD" 2>/dev/null || pl_bad "synthd died"
kill -0 "$PL_GPUD" 2>/dev/null || pl_bad "gpud died"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC"
pl_pool_clean
exit $PL_FAIL
