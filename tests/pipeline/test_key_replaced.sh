#!/usr/bin/env bash
# test_key_replaced.sh -- a registered key file replaced by another key of
# the same dimensions (the same circuit set up for the other curve) is
# refused: by `zkslot submit` (one line naming the file and the curves),
# and by the daemons for a job submitted before the replacement (the
# partition fails naming the file; no proof is written).  A touched file
# with the same content is accepted (hashed once, its identity recorded).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init key_replaced || exit 77

pl_circuit bls12381 600 1
other=$PL_KEY
pl_circuit bn128 600 2
key="$PL_W/key.zkey"
cp "$PL_KEY" "$key"
"$ZKSLOT" key add swapped "$key" >/dev/null
# touched, same content: accepted
touch -d '2001-01-01' "$key"
j0=$("$ZKSLOT" submit --key swapped "${PL_WTNS[0]}")
"$ZKSLOT" cancel "$j0" >/dev/null
# a job submitted while the file is right, then the file replaced
j=$("$ZKSLOT" submit --key swapped "${PL_WTNS[@]}")
cp "$other" "$key.new" && mv "$key.new" "$key"
rc=0
"$ZKSLOT" submit --key swapped "${PL_WTNS[0]}" 2>"$PL_W/submit.err" || rc=$?
[ "$rc" = 2 ] || pl_bad "submit of a replaced key: exit $rc, expected 2"
grep -F "$key" "$PL_W/submit.err" | grep -F "bls12381" | grep -F "bn128" >/dev/null ||
    pl_bad "submit: the message does not name the file and both curves: $(cat "$PL_W/submit.err")"
pl_pool 2
pl_start_synthd
pl_start_gpud
rc=0
"$ZKSLOT" wait "$j" --timeout 120 >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || pl_bad "the job of the replaced key: wait exit $rc, expected 1 (failed)"
"$ZKSLOT" status "$j" | grep -F "$key" >/dev/null ||
    pl_bad "the job's error does not name the file: $("$ZKSLOT" status "$j" | tail -n 2)"
out=$("$ZKSLOT" status "$j" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print((s.get("job") or s)["out_dir"])')
if find "$out" -name proof.json 2>/dev/null | grep . >/dev/null; then
    pl_bad "a proof was written with the replaced key"
fi
grep -F "$key" "$PL_W/synthd.log" | grep -F "bls12381" >/dev/null ||
    pl_bad "synthd's log does not say the file changed curve"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_done
