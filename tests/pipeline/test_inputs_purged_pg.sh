#!/usr/bin/env bash
# test_inputs_purged_pg.sh -- a job's input does not outlive it on a
# PostgreSQL ledger ([ledger] keep_inputs = 0; a private server,
# tests/lib/pg.sh): a job from a circuit input whose private signal y is a
# 72-digit number, sealed to the farm's key pair (`zkslot seal-key`).
# While its partition waits for a gpud (control), a query as the schema's
# owner finds the sealed input in the partitions table (zk/seal.h: its
# magic) and y's digits nowhere; within the daemons' purge pass (every
# 5 s) once the job is done, no row holds either and the partition's input
# is empty; the job's results are all there (proofs verify).  A witness
# job's stored .wtns is sealed too, and proves.
# Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init inputs_purged_pg || exit 77
pl_pg_init

pli_circuit bn128
printf '[ledger]\nkeep_inputs = 0\n' >"$ZKSLOT_CONFIG"
pli_allow "$ZK_INTEROP_WORK"
y=$(python3 -c 'print(3**150 + 7)')
pli_input 3 "$y" 1 >"$PL_W/in.json"
pli_reference "$PL_W/in.json" "$PL_W/ref.wtns"
holding() {   # rows holding y in clear, rows holding a sealed input
    pg_psql zk "SELECT count(*) FROM partitions WHERE position(convert_to('$y', 'UTF8') in input) > 0"
    pg_psql zk "SELECT count(*) FROM partitions WHERE position(convert_to('zkseal1', 'UTF8') in input) = 1"
}

pl_pool 2
"$ZKSLOT" seal-key >"$PL_W/seal-key.log" || pl_bad "zkslot seal-key: $(cat "$PL_W/seal-key.log")"
pl_start_synthd --workers 1
pli_key_add purge --witness-gen "$PLI_CPP"
j=$("$ZKSLOT" submit --key purge --input "$PL_W/in.json")
pl_expect "$j" "$PL_W/ref.wtns"
for _ in $(seq 100); do [ "$(pli_part_field "$j" 0 state)" = ready ] && break; sleep 0.1; done
# `zkslot seal-key` made the farm's pair, submit sealed the input to it
h=$(holding | tr '\n' ' ')
[ "$h" = "0 1 " ] || pl_bad "control: rows holding y in clear, sealed: $h, expected 0 1 while the job runs"
# a witness job: a shared ledger stores the .wtns, sealed like an input
jw=$("$ZKSLOT" submit --key purge "$PL_W/ref.wtns")
pl_expect "$jw" "$PL_W/ref.wtns"
[ "$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = $jw AND
    position(convert_to('zkseal1', 'UTF8') in input) = 1")" = 1 ] ||
    pl_bad "the stored witness of job $jw is not sealed"

pl_start_gpud --threads 2
pl_wait "$j" 60 && pl_check_job "$j" 1
pl_wait "$jw" 60 && pl_check_job "$jw" 1
for _ in $(seq 40); do [ "$(holding | tr '\n' ' ')" = "0 0 " ] && break; sleep 0.25; done
[ "$(holding | tr '\n' ' ')" = "0 0 " ] || pl_bad "job $j done 10 s ago: the partitions table still holds its input"
len=$(pg_psql zk "SELECT coalesce(sum(length(input)), -1) FROM partitions")
[ "$len" = 0 ] || pl_bad "the inputs' total length is $len after the purge, expected 0"
[ "$(pl_failures)" != 0 ] || echo "ok: the input left the PostgreSQL ledger; results kept"
pl_stop "$PL_GPUD"
pl_stop "$PL_SYNTHD"
pl_done
