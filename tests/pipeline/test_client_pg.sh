#!/usr/bin/env bash
# test_client_pg.sh -- a client of a PostgreSQL farm is a first-class
# member (issue 36.2): a user that is not root, with a configuration that
# has only `[ledger] url`, no pool and a state directory that does not
# exist (and that it could not make), on a machine of its own name.  One
# machine (synthd, gpud) proves.  The client:
#   - submits a witness job: accepted, no directory made anywhere on its
#     side (it has none; the prover makes its own); the witnesses are
#     stored in the ledger: the client's files are removed before the
#     prover starts, and the job is proved all the same;
#   - waits for them: done;
#   - `zkslot result JOB`: prints no path that does not exist here; says
#     which machine has the files and how to fetch them (exit 1);
#   - `zkslot result JOB --out DIR`: writes every partition from the ledger
#     into its own DIR, and `zkslot verify` accepts each proof.
# Needs root (useradd, setpriv); skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init client_pg || exit 77
[ "$(id -u)" = 0 ] && command -v useradd >/dev/null && command -v setpriv >/dev/null ||
    pl_skip "needs root, useradd and setpriv"
CU=zkcl$$
pl_pg_init "userdel $CU >/dev/null 2>&1"
useradd -M -d /nonexistent -s /usr/sbin/nologin "$CU"

pl_circuit bn128 600 2 || exit 1
pl_pool 2 || exit 1

# the client's side: its own files, a config with the URL only
pl_pg_client "$CU" "$ZKSLOT_LEDGER"
cp "${PL_WTNS[0]}" "${PL_WTNS[1]}" "$C/"
w0=$C/$(basename "${PL_WTNS[0]}") w1=$C/$(basename "${PL_WTNS[1]}")
job=$(client "$ZKSLOT" submit --key "$PL_KEYNAME" "$w0" "$w1" 2>"$C/submit.err") ||
    { pl_bad "the client's submit: $(cat "$C/submit.err")"; rm -rf "$C"; pl_done; }
pl_expect "$job" "${PL_WTNS[0]}" "${PL_WTNS[1]}"
# the witnesses exist only on the client, and only until it submitted
rm -f "$w0" "$w1"
pl_start_synthd --machine prover
pl_start_gpud --threads 1 --machine prover
client "$ZKSLOT" wait "$job" --timeout 60 >/dev/null 2>"$C/wait.err" ||
    pl_bad "the client's wait: $(cat "$C/wait.err")"
[ ! -e "$PL_PG_ABSENT" ] || pl_bad "the client made its state directory $PL_PG_ABSENT"
# result: only paths that exist here (none: the prover is another machine)
rc=0
client "$ZKSLOT" result "$job" >"$C/result.out" 2>"$C/result.err" || rc=$?
[ "$rc" = 1 ] || pl_bad "result on the client: exit $rc, not 1 (the files are elsewhere)"
while read -r f g; do
    [ -e "$f" ] && [ -e "$g" ] || pl_bad "result printed a path that does not exist: $f"
done <"$C/result.out"
grep -q "machine prover" "$C/result.err" && grep -q -- "--out DIR" "$C/result.err" ||
    pl_bad "result did not say where the proofs are: $(cat "$C/result.err")"
# --out: from the ledger, into the client's own directory
client "$ZKSLOT" result "$job" --out "$C/home/out" >"$C/fetched.out" 2>"$C/fetched.err" ||
    pl_bad "result --out on the client: $(cat "$C/fetched.err")"
n=0
while read -r proof pub; do
    "$ZKSLOT" verify "$PL_VK" "$pub" "$proof" >/dev/null 2>&1 || pl_bad "zkslot verify $proof"
    n=$((n + 1))
done <"$C/fetched.out"
[ "$n" = 2 ] || pl_bad "result --out wrote $n partitions, not 2"
# the same job, as the prover's own machine sees it
pl_check_job "$job"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
rm -rf "$C"
pl_done
