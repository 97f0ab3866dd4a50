#!/usr/bin/env bash
# test_result_bound.sh -- a result is handed out only as the proof of its
# job's statement (zk/statement.h).  Two jobs of different witnesses are
# proved; synthd recorded each partition's statement.  Then, as whoever
# may write the ledger's result columns directly would (a superuser on
# PostgreSQL, the file's owner on SQLite):
#   - job B's whole result (a valid proof, of another statement) written
#     into job A's row: `zkslot result A --out` refuses it, naming the
#     statement, and writes nothing;
#   - A's own public signals with B's proof: refused, the proof does not
#     verify for them;
#   - gpud's files of B copied over A's output directory: `zkslot result A`
#     (no --out: the files) refuses them as well.
# Control: before the tampering, both results are accepted and snarkjs
# agrees (pl_check_job).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init result_bound || exit 77

pl_circuit bn128 600 2
pl_pool 2
pl_start_synthd --workers 1
pl_start_gpud --threads 2
a=$(pl_submit_wtns "${PL_WTNS[0]}")
b=$(pl_submit_wtns "${PL_WTNS[1]}")
pl_wait "$a" 60
pl_wait "$b" 60
pl_check_job "$a" 1
pl_check_job "$b" 1
pl_stop "$PL_GPUD"
pl_stop "$PL_SYNTHD"

db=$ZKSLOT_STATE_DIR/ledger.db
sql() { python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); r = c.execute(sys.argv[2]).fetchall(); c.commit()
print("\n".join("|".join(str(v) for v in row) for row in r))' "$db" "$1"; }
st=$(sql "SELECT statement FROM partitions WHERE job_id = $a")
[[ $st == s1:* ]] || pl_bad "job $a: no statement recorded at synthesis: '$st'"
[ "$st" != "$(sql "SELECT statement FROM partitions WHERE job_id = $b")" ] ||
    pl_bad "jobs $a and $b (different witnesses) have the same statement"

# 1: B's result in A's row
sql "UPDATE partitions SET proof_json = (SELECT proof_json FROM partitions WHERE job_id = $b),
     public_json = (SELECT public_json FROM partitions WHERE job_id = $b) WHERE job_id = $a" >/dev/null
rc=0
"$ZKSLOT" result "$a" --out "$PL_W/out1" >"$PL_W/r1.out" 2>"$PL_W/r1.err" || rc=$?
[ "$rc" = 1 ] || pl_bad "B's result in A's row: zkslot result exit $rc, want 1: $(cat "$PL_W/r1.err")"
grep -q "not the ones synthesized.*not the proof of this job" "$PL_W/r1.err" ||
    pl_bad "B's result in A's row: no statement mismatch named: $(cat "$PL_W/r1.err")"
[ ! -e "$PL_W/out1/0/proof.json" ] || pl_bad "B's result in A's row: written out all the same"
# control: B's own result is still handed out
"$ZKSLOT" result "$b" --out "$PL_W/outb" >/dev/null 2>"$PL_W/rb.err" ||
    pl_bad "job $b's own result refused: $(cat "$PL_W/rb.err")"

# 2: A's public signals, B's proof
python3 - "$db" "$a" "$(cat "$PL_W/jobs/$a.expect")" "$PL_VK" <<'PY'
import json, os, sqlite3, sys
sys.path.insert(0, os.path.join(os.environ["ZK_SOURCE_DIR"], "tests", "pipeline"))
from wtns_public import wtns_public
db, job, wtns = sys.argv[1], int(sys.argv[2]), sys.argv[3]
npub = json.load(open(sys.argv[4]))["nPublic"]
pub = (json.dumps([str(v) for v in wtns_public(wtns, npub)]) + "\n").encode()
c = sqlite3.connect(db)
c.execute("UPDATE partitions SET public_json = ? WHERE job_id = ?", (pub, job))
c.commit()
PY
rc=0
"$ZKSLOT" result "$a" --out "$PL_W/out2" >"$PL_W/r2.out" 2>"$PL_W/r2.err" || rc=$?
[ "$rc" = 1 ] || pl_bad "B's proof with A's signals: zkslot result exit $rc, want 1: $(cat "$PL_W/r2.err")"
grep -q "proof does not verify" "$PL_W/r2.err" ||
    pl_bad "B's proof with A's signals: no failed verification named: $(cat "$PL_W/r2.err")"
[ ! -e "$PL_W/out2/0/proof.json" ] || pl_bad "B's proof with A's signals: written out all the same"

# 3: the files gpud wrote, B's copied over A's
outdir() { "$ZKSLOT" status "$1" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["out_dir"])'; }
da=$(outdir "$a") dbo=$(outdir "$b")
cp "$dbo/0/proof.json" "$dbo/0/public.json" "$da/0/"
rc=0
"$ZKSLOT" result "$a" >"$PL_W/r3.out" 2>"$PL_W/r3.err" || rc=$?
[ "$rc" = 1 ] || pl_bad "B's files in A's directory: zkslot result exit $rc, want 1: $(cat "$PL_W/r3.err")"
grep -q "not the proof of this job" "$PL_W/r3.err" ||
    pl_bad "B's files in A's directory: no mismatch named: $(cat "$PL_W/r3.err")"
! grep -q proof.json "$PL_W/r3.out" || pl_bad "B's files in A's directory: listed as A's result"
[ "$(pl_failures)" != 0 ] || echo "ok: results of another statement refused (ledger row, proof, files)"
pl_pool_clean
pl_done
