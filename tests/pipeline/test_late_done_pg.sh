#!/usr/bin/env bash
# test_late_done_pg.sh -- issue 47: a proof delivered late by a machine
# that lost its lease, while another machine redoes the partition, is
# counted as a duplicate and leaves the partition to the machine that holds
# it; `zkslot result JOB` then works on the machine the ledger names.
# [ledger] lease = 3 s.  Machine a proves a one-partition job until its
# proof is written but not recorded (ZKSLOT_TEST_RECORD_HOLD_MS), and is
# SIGSTOPped; machine b (a synthd only) expires a's lease and synthesizes
# the partition again, READY in b's pool; a is continued and records its
# late proof; then b's gpud proves it.  Checked: a's done changed neither
# the state nor the machine (before: done, machine still b, b's slot
# dropped, and `zkslot result` failed on b: "proved on machine b" for a
# proof whose files were on a), the job ends done on b with 2 proofs
# counted, `zkslot result JOB` on the machine named lists files that are
# there and verify, and the ledger's copy verifies too.  Skips without
# PostgreSQL.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init late_done_pg || exit 77
pl_pg_init
printf '[ledger]\nlease = 3\n' >"$ZKSLOT_CONFIG"
q() { pg_psql zk "$1"; }
# wait_sql SQL VALUE SECONDS: 0 once SQL prints VALUE, else pl_bad and 1
wait_sql() {
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        [ "$(q "$1")" = "$2" ] && return 0
        sleep 0.1
    done
    pl_bad "after $3 s: '$1' gives '$(q "$1")', not '$2'"
    return 1
}

pl_circuit bn128 600 1 || exit 1
pl_pool 2 || exit 1
pl_start_synthd --machine a
SA=$PL_SYNTHD
ZKSLOT_TEST_RECORD_HOLD_MS=3000 pl_start_gpud --machine a --threads 1
GA=$PL_GPUD
job=$(pl_submit 1)
pl_wait_log gpud "$GA" "proof written, not yet recorded" 60
kill -STOP "$SA" "$GA"
pl_log "machine a stopped with its proof written, not recorded"

pl_pg_machine b 2
pl_pg_on b pl_start_synthd --machine b
SB=$PL_SYNTHD
part="SELECT state || ' ' || machine || ' ' || proofs FROM partitions WHERE job_id = $job"
wait_sql "$part" "ready b 0" 30
pl_log "machine b synthesized the partition again: $(q "$part")"

kill -CONT "$SA" "$GA"
wait_sql "SELECT proofs FROM partitions WHERE job_id = $job" 1 20
sleep 1   # anything a's done would change, changed
[ "$(q "$part")" = "ready b 1" ] ||
    pl_bad "after a's late done: $(q "$part"), not 'ready b 1' (a duplicate, b's partition)"

pl_pg_on b pl_start_gpud --machine b --threads 1
GB=$PL_GPUD
pl_wait "$job" 60 || true
[ "$(q "$part")" = "done b 2" ] || pl_bad "at the end: $(q "$part"), not 'done b 2'"
where=$(q "SELECT machine FROM partitions WHERE job_id = $job")
rc=0
ZKSLOT_MACHINE=$where pl_pg_on "$where" "$ZKSLOT" result "$job" >"$PL_W/result.out" \
    2>"$PL_W/result.err" || rc=$?
[ "$rc" = 0 ] || pl_bad "zkslot result on machine $where: exit $rc: $(cat "$PL_W/result.err")"
read -r proof pub <"$PL_W/result.out" || true
if [ -n "${proof:-}" ] && [ -f "$proof" ] && [ -f "${pub:-}" ]; then
    pl_log "zkslot result on machine $where: $proof"
    "$ZKSLOT" verify "$PL_VK" "$pub" "$proof" >/dev/null ||
        pl_bad "the proof on machine $where does not verify"
else
    pl_bad "zkslot result on machine $where listed no files that are there"
fi
"$ZKSLOT" result "$job" --out "$PL_W/fromledger" >/dev/null 2>"$PL_W/out.err" ||
    pl_bad "zkslot result --out: $(cat "$PL_W/out.err")"
[ -f "$PL_W/fromledger/0/proof.json" ] || pl_bad "the ledger's proof was not written out"
pl_log "$(q "$part"): a's late proof counted, the partition b's"
pl_pool_clean
pl_pg_on b pl_pool_clean
for p in "$GA" "$SA" "$GB" "$SB"; do
    pl_stop "$p"; [ "$PL_RC" = 0 ] || pl_bad "daemon $p exit $PL_RC after SIGTERM"
done
pl_done
