#!/usr/bin/env bash
# test_cli_jobs.sh -- the ledger subcommands from the shell, without daemons:
# key add/list, submit (witnesses checked against the key), status [--json],
# wait, result (a canceled job's done partitions listed), cancel (no owner
# left on a canceled partition); where the state directory comes from; exit
# codes.
set -u
Z=${ZKSLOT:?}
SRC=${ZK_SOURCE_DIR:?}
EX=$SRC/examples/groth16
T=$(mktemp -d /tmp/zk_cli_jobs.XXXXXX)
trap 'rm -rf "$T"' EXIT
S=$T/state
OUT=$T/out.txt
fail=0
check() {   # check DESCRIPTION EXPECTED-RC COMMAND...
  local what=$1 want=$2; shift 2
  "$@" >"$OUT" 2>&1
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $what: rc $rc, expected $want"; cat "$OUT"; fail=1
  fi
}
expect() {  # expect DESCRIPTION PATTERN: the last command's output matches
  grep -q -- "$2" "$OUT" || { echo "FAIL: $1: no '$2' in:"; cat "$OUT"; fail=1; }
}
jobs_count() {
  "$Z" status --json --state-dir "$S" 2>/dev/null |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))'
}
: >"$T/empty.conf"
export ZKSLOT_CONFIG=$T/empty.conf
unset ZKSLOT_STATE_DIR

# nothing there yet
check "status without a ledger" 2 "$Z" status --state-dir "$S"
expect "no ledger message" "no ledger at $S/ledger.db (nothing submitted yet?)"
check "key list without a ledger" 2 "$Z" key list --state-dir "$S"
[ -e "$S" ] && { echo "FAIL: status created the state dir"; fail=1; }

# keys
check "key add bn128" 0 "$Z" key add bn "$EX/bn128/key.zkey" --state-dir "$S"
expect "key add summary" "bn128"
[ -f "$S/ledger.db" ] || { echo "FAIL: no ledger created"; fail=1; }
check "key add bls12381" 0 "$Z" key add bls.key_1 "$EX/bls12381/key.zkey" --state-dir "$S"
check "duplicate name" 2 "$Z" key add bn "$EX/bls12381/key.zkey" --state-dir "$S"
expect "duplicate message" "already registered"
check "bad name" 2 "$Z" key add "bad/name" "$EX/bn128/key.zkey" --state-dir "$S"
check "name too long" 2 "$Z" key add "$(printf 'k%.0s' {1..64})" "$EX/bn128/key.zkey" --state-dir "$S"
head -c 1000 "$EX/bn128/key.zkey" >"$T/trunc.zkey"
check "truncated key" 2 "$Z" key add trunc "$T/trunc.zkey" --state-dir "$S"
expect "truncated key names the file" "trunc.zkey"
echo "not a key" >"$T/text.zkey"
check "text key" 2 "$Z" key add text "$T/text.zkey" --state-dir "$S"
check "missing key" 2 "$Z" key add missing "$T/missing.zkey" --state-dir "$S"
check "key list" 0 "$Z" key list --state-dir "$S"
expect "list bn" "^bn  *bn128 "
expect "list bls" "^bls.key_1  *bls12381 "
grep -q trunc "$OUT" && { echo "FAIL: a bad key was registered"; fail=1; }
check "key list --json" 0 "$Z" key list --json --state-dir "$S"
python3 - "$OUT" "$EX" <<'PY' || fail=1
import json, sys
keys = json.load(open(sys.argv[1]))
assert [k["name"] for k in keys] == ["bn", "bls.key_1"], keys
assert keys[0]["curve"] == "bn128" and keys[1]["curve"] == "bls12381", keys
assert keys[0]["path"] == sys.argv[2] + "/bn128/key.zkey", keys[0]["path"]
assert len(keys[0]["hash"]) == 32 and keys[0]["n_vars"] > 0, keys[0]
PY

# submit
check "submit" 0 "$Z" submit --key bn --state-dir "$S" "$EX/bn128/witness.wtns" "$EX/bn128/witness.wtns"
grep -qx '[0-9][0-9]*' "$OUT" || { echo "FAIL: submit did not print just an id"; cat "$OUT"; fail=1; }
job1=$(cat "$OUT")
[ -d "$S/jobs/$job1/0" ] && [ -d "$S/jobs/$job1/1" ] || { echo "FAIL: no output dirs"; fail=1; }
[ "$(jobs_count)" = 1 ] || { echo "FAIL: job count after submit"; fail=1; }
check "submit other curve" 2 "$Z" submit --key bn --state-dir "$S" "$EX/bn128/witness.wtns" "$EX/bls12381/witness.wtns"
expect "other curve names the file" "bls12381/witness.wtns: witness is for bls12381"
expect "nothing submitted" "nothing submitted"
head -c 200 "$EX/bn128/witness.wtns" >"$T/trunc.wtns"
check "submit truncated witness" 2 "$Z" submit --key bn --state-dir "$S" "$T/trunc.wtns"
expect "truncated witness named" "trunc.wtns"
check "submit missing witness" 2 "$Z" submit --key bn --state-dir "$S" "$T/none.wtns"
check "submit unknown key" 2 "$Z" submit --key nokey --state-dir "$S" "$EX/bn128/witness.wtns"
expect "unknown key" "no key named 'nokey'"
check "submit without --key" 2 "$Z" submit --state-dir "$S" "$EX/bn128/witness.wtns"
check "submit without witness" 2 "$Z" submit --key bn --state-dir "$S"
[ "$(jobs_count)" = 1 ] || { echo "FAIL: a refused submit left a job"; fail=1; }
(cd "$T" && "$Z" submit --key bls.key_1 --out rel/out --state-dir "$S" "$EX/bls12381/witness.wtns") >"$OUT" 2>&1 ||
  { echo "FAIL: submit --out"; cat "$OUT"; fail=1; }
job2=$(cat "$OUT")
[ -d "$T/rel/out/0" ] || { echo "FAIL: --out dir not created"; fail=1; }

# status
check "status" 0 "$Z" status --state-dir "$S"
expect "status line" "^$job1  *bn  *queued  *normal  *0/2"
check "status JOB" 0 "$Z" status "$job1" --state-dir "$S"
expect "status job header" "job $job1: key bn, queued, 0/2 done"
expect "status partition" "^    1 queued "
check "status --json" 0 "$Z" status --json --state-dir "$S"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["jobs"])==2 and j["jobs"][0]["nparts"]==2, j' "$OUT" || fail=1
check "status JOB --json" 0 "$Z" status "$job2" --json --state-dir "$S"
python3 - "$OUT" "$T" "$EX" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
assert j["state"] == "queued" and j["key"] == "bls.key_1", j
assert j["out_dir"] == sys.argv[2] + "/rel/out", j["out_dir"]
p = j["partitions"]
assert len(p) == 1 and p[0]["state"] == "queued" and p[0]["owner"] is None, p
assert p[0]["witness"] == sys.argv[3] + "/bls12381/witness.wtns", p
assert p[0]["synth_s"] is None and p[0]["slot"] == -1, p
PY
check "status unknown job" 2 "$Z" status 999 --state-dir "$S"
check "status bad job id" 2 "$Z" status x1 --state-dir "$S"

# wait / result / cancel on jobs no daemon works on
check "wait timeout" 3 "$Z" wait "$job1" --timeout 0.3 --state-dir "$S"
expect "timeout message" "timed out"
check "wait bad timeout" 2 "$Z" wait "$job1" --timeout soon --state-dir "$S"
check "result not done" 1 "$Z" result "$job1" --state-dir "$S"
expect "result message" "is queued"
check "cancel" 0 "$Z" cancel "$job1" --state-dir "$S"
check "wait canceled" 1 "$Z" wait "$job1" --state-dir "$S"
expect "wait says canceled" "canceled"
check "cancel again" 1 "$Z" cancel "$job1" --state-dir "$S"
expect "cancel again message" "finished already"
check "cancel unknown" 2 "$Z" cancel 999 --state-dir "$S"
check "status canceled" 0 "$Z" status "$job1" --state-dir "$S"
expect "partitions canceled" "^    0 canceled "

# result of a finished job: mark job 2 done the way gpud would leave it
if ! python3 -c 'import sqlite3' 2>/dev/null; then
  echo "note: python3 has no sqlite3 module; result of a done job not checked"
else
python3 - "$S/ledger.db" "$job2" <<'PY' || { echo "FAIL: could not mark done"; fail=1; }
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE partitions SET state='done', proofs=1 WHERE job_id=?", (int(sys.argv[2]),))
db.execute("UPDATE jobs SET state='done' WHERE id=?", (int(sys.argv[2]),))
db.commit()
PY
check "wait done" 0 "$Z" wait "$job2" --state-dir "$S"
# the files gpud would have written (result lists only paths that exist,
# and only results that are proofs of the partition's statement: a real
# proof of the witness, made here)
for c in bls12381 bn128; do
  mkdir -p "$T/$c"
  "$Z" prove "$EX/$c/key.zkey" "$EX/$c/witness.wtns" "$T/$c/proof.json" "$T/$c/public.json" \
    >/dev/null 2>&1 || { echo "FAIL: zkslot prove $c"; fail=1; }
done
cp "$T/bls12381/proof.json" "$T/bls12381/public.json" "$T/rel/out/0/"
check "result" 0 "$Z" result "$job2" --state-dir "$S"
[ "$(cat "$OUT")" = "$T/rel/out/0/proof.json $T/rel/out/0/public.json" ] ||
  { echo "FAIL: result paths"; cat "$OUT"; fail=1; }
# a canceled job: its done partitions are still listed (exit 1, the state on
# stderr), and a partition that was in a daemon's hands keeps no owner
check "submit job 3" 0 "$Z" submit --key bn --out "$T/j3" --state-dir "$S" \
  "$EX/bn128/witness.wtns" "$EX/bn128/witness.wtns" "$EX/bn128/witness.wtns"
job3=$(cat "$OUT")
python3 - "$S/ledger.db" "$job3" <<'PY' || { echo "FAIL: could not set job 3 up"; fail=1; }
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
j = int(sys.argv[2])
db.execute("UPDATE partitions SET state='done', proofs=1 WHERE job_id=? AND idx=0", (j,))
db.execute("UPDATE partitions SET state='synthesizing', owner_pid=999999, owner_start=1,"
           " owner_role='synthd', attempts=1 WHERE job_id=? AND idx=1", (j,))
db.execute("UPDATE jobs SET state='running' WHERE id=?", (j,))
db.commit()
PY
check "cancel job 3" 0 "$Z" cancel "$job3" --state-dir "$S"
cp "$T/bn128/proof.json" "$T/bn128/public.json" "$T/j3/0/"
# ... and a file that is no proof of it is not listed (exit 1, said why)
: >"$T/rel/out/0/public.json"
check "result of an empty public.json" 1 "$Z" result "$job2" --state-dir "$S"
expect "empty public.json refused" "job $job2 partition 0: its public.json does not parse"
"$Z" result "$job3" --state-dir "$S" >"$OUT" 2>"$T/err"
rc=$?
[ "$rc" = 1 ] || { echo "FAIL: result of a canceled job: rc $rc, expected 1"; fail=1; }
[ "$(cat "$OUT")" = "$T/j3/0/proof.json $T/j3/0/public.json" ] ||
  { echo "FAIL: result of a canceled job lists its done partition only:"; cat "$OUT"; fail=1; }
grep -q "job $job3 is canceled (1/3 done): only the done partitions are listed" "$T/err" ||
  { echo "FAIL: result of a canceled job: stderr"; cat "$T/err"; fail=1; }
"$Z" status "$job3" --json --state-dir "$S" >"$OUT" 2>&1
python3 - "$OUT" <<'PY' || { echo "FAIL: canceled partitions keep an owner"; cat "$OUT"; fail=1; }
import json, sys
p = json.load(open(sys.argv[1]))["partitions"]
assert [x["state"] for x in p] == ["done", "canceled", "canceled"], p
assert all(x["owner"] is None for x in p), [x["owner"] for x in p]
PY
fi

# where the state directory comes from: config < env < flag
printf '[zkslot]\nstate_dir = %s\n' "$S" >"$T/z.conf"
check "state dir from --config" 0 "$Z" status --config "$T/z.conf"
expect "config used" "^$job1 "
check "state dir from ZKSLOT_CONFIG" 0 env ZKSLOT_CONFIG="$T/z.conf" "$Z" status
check "env beats config" 2 env ZKSLOT_STATE_DIR="$T/other" "$Z" status --config "$T/z.conf"
expect "env dir used" "no ledger at $T/other/ledger.db"
check "flag beats env" 0 env ZKSLOT_STATE_DIR="$T/other" "$Z" status --state-dir "$S"
check "explicit config missing" 2 "$Z" status --config "$T/missing.conf"
printf '[zkslot]\nbogus = 1\n' >"$T/bad.conf"
check "bad config" 2 "$Z" status --config "$T/bad.conf"
expect "bad config names the file" "bad.conf"
if [ ! -e /etc/zkslot/zkslot.conf ]; then
  check "default config optional" 0 env -u ZKSLOT_CONFIG "$Z" status --state-dir "$S"
fi
check "bad option" 2 "$Z" status --bogus --state-dir "$S"

[ $fail = 0 ] && echo "cli jobs: ok"
exit $fail
