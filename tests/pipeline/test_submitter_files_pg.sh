#!/usr/bin/env bash
# test_submitter_files_pg.sh -- issue 46 (item 4), a hostile submitter on
# PostgreSQL replayed as the probe did it: zk_alice (zkslot_submitter)
# writing rows with psql, past the CLI's checks.
#   - the schema refuses, with the server's reason (printed): a partition
#     naming a daemon-only 0600 .wtns (no witness bytes in the row), a job
#     whose out_dir is a daemon-only 0700 directory or bob's job directory,
#     and UPDATEs of partitions.witness and jobs.out_dir; alice's
#     `zkslot submit --out DIR` says the same line;
#   - rows that got in anyway (written by the superuser with the triggers
#     off, as a ledger from before) are refused by synthd, one line naming
#     the rule: the witness file's partition fails and is never proved, the
#     out_dir job fails and nothing is written in that directory;
#   - a 100 MiB cleartext input inserted by alice: synthd refuses it in one
#     line, the job fails, its generator never runs;
#   - alice's low job inserted with submitted_ns = 1 (aging would make it
#     critical) does not go ahead of bob's normal job submitted before it:
#     the database's clock is its submitted_ns, and bob's is synthesized
#     first (one synthd worker);
#   - alice's and bob's jobs submitted with the CLI are proved;
#   - alice's own INSERT of a job whose deadline cannot be met (1000
#     partitions due in a second) is refused by the server in one line
#     naming the estimate; forced (deadline_forced) or a day away, accepted.
# Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init submitter_files_pg || exit 77
pl_pg_init

pl_pg_roles   # docs/ledger.md's roles, passwords for all but the superuser

url() { echo "postgresql://zk_$1:$1-pw-change-me@/zkslot?host=$PG_DIR"; }
sql() {   # sql WHO STATEMENT: as WHO, 0 when the server accepted it
    PGPASSWORD=$1-pw-change-me "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$PG_DIR" \
        -U "zk_$1" -d zkslot -c "$2"
}
super() { pg_psql zkslot "$1"; }
hex() { python3 -c 'import sys; print(open(sys.argv[1], "rb").read().hex())' "$1"; }

export ZKSLOT_LEDGER=$(url admin)
pl_circuit bn128 600 3 || { pl_bad "key add as the database's owner"; pl_done; }
key=$PL_KEYNAME
# a key whose generator records each run (and copies witness 0)
mkdir -p "$PL_W/gens"
cat >"$PL_W/gens/gen.sh" <<EOF
#!/bin/sh
wc -c <"\$1" >>"$PL_W/gen.ran"
exec cp "${PL_WTNS[0]}" "\$2"
EOF
chmod 0755 "$PL_W/gens" "$PL_W/gens/gen.sh"
printf '[synthd]\ngenerators = %s\n' "$PL_W/gens" >"$ZKSLOT_CONFIG"
"$ZKSLOT" key add gen "$PL_KEY" --witness-cmd "$PL_W/gens/gen.sh {input} {output}" >/dev/null ||
    { pl_bad "key add gen"; pl_done; }

# the daemons' own files: a 0600 witness and a 0700 directory
mkdir -p "$PL_W/daemon/out"
chmod 0700 "$PL_W/daemon" "$PL_W/daemon/out"
cp "${PL_WTNS[1]}" "$PL_W/daemon/secret.wtns"
chmod 0600 "$PL_W/daemon/secret.wtns"
secret=$PL_W/daemon/secret.wtns

# bob's job, through the CLI (its directory on the proving machine below)
bjob=$(ZKSLOT_LEDGER=$(url bob) pl_submit 1) || { pl_bad "submit as bob"; pl_done; }
bdir=$ZKSLOT_STATE_DIR/jobs/$bjob

# ---- the schema ---------------------------------------------------------------
refused() {   # refused WHAT STATEMENT EXPECTED-REASON: alice's, refused, the reason printed
    local out
    if out=$(sql alice "$2" 2>&1); then
        pl_bad "the database accepted alice's $1"
    elif grep -q "$3" <<<"$out"; then
        echo "refused: alice's $1: $out"
    else
        pl_bad "alice's $1 refused for another reason: $out"
    fi
}
newjob="INSERT INTO jobs (key_id, nparts, state, out_dir, submitted_ns) SELECT id, 1, 'queued',"
mine="(SELECT max(id) FROM jobs WHERE submitter = session_user)"
before=$(super "SELECT count(*) FROM jobs")
refused "partition naming a daemon-only .wtns" "$newjob '', 1 FROM keys WHERE name = '$key';
    INSERT INTO partitions (job_id, idx, witness, state) VALUES ($mine, 0, '$secret', 'queued')" \
    "row-level security policy for table \"partitions\""
refused "job writing into a daemon-only directory" \
    "$newjob '$PL_W/daemon/out', 1 FROM keys WHERE name = '$key'" \
    "jobs.out_dir: role zk_alice may not name a directory on the proving machines"
refused "job writing into bob's job directory" \
    "$newjob '$bdir', 1 FROM keys WHERE name = '$key'" \
    "jobs.out_dir: role zk_alice may not name a directory on the proving machines"
# the CLI's --out as a submitter: the same line, nothing queued
rc=0
ZKSLOT_LEDGER=$(url alice) "$ZKSLOT" submit --key "$key" --out "$PL_W/aout" "${PL_WTNS[0]}" \
    >"$PL_W/aout.err" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "jobs.out_dir: role zk_alice may not name a directory" "$PL_W/aout.err" ||
    pl_bad "alice's submit --out: exit $rc: $(cat "$PL_W/aout.err")"
echo "alice's zkslot submit --out: exit $rc: $(cat "$PL_W/aout.err")"
[ "$(super "SELECT count(*) FROM jobs")" = "$before" ] || pl_bad "a refused job was queued"
ajob=$(ZKSLOT_LEDGER=$(url alice) pl_submit 1) || { pl_bad "submit as alice"; pl_done; }
refused "UPDATE of her partition's witness" \
    "UPDATE partitions SET witness = '$secret' WHERE job_id = $ajob" \
    "permission denied for table partitions"
refused "UPDATE of her job's out_dir" "UPDATE jobs SET out_dir = '$bdir' WHERE id = $ajob" \
    "permission denied for table jobs"

# ---- rows past the schema: synthd refuses them ---------------------------------
now="(extract(epoch FROM clock_timestamp()) * 1000000000)::bigint"
w0=$(hex "${PL_WTNS[0]}")
# as a ledger from before: written by the superuser, triggers off, as alice's
past() {   # past OUT_DIR WITNESS INPUT-EXPR: a job id
    super "SET session_replication_role = replica;
        INSERT INTO jobs (key_id, nparts, state, out_dir, submitted_ns, submitter)
            SELECT id, 1, 'queued', '$1', $now, 'zk_alice' FROM keys WHERE name = '$key';
        INSERT INTO partitions (job_id, idx, witness, state, input)
            SELECT max(id), 0, '$2', 'queued', $3 FROM jobs" >/dev/null &&
        super "SELECT max(id) FROM jobs"
}
wjob=$(past '' "$secret" NULL) || pl_bad "the witness-file row"
ojob=$(past "$PL_W/daemon/out" w0.wtns "decode('$w0', 'hex')") || pl_bad "the out_dir row"
# 100 MiB of input, as alice (a submitter may insert inputs)
sql alice "INSERT INTO jobs (key_id, nparts, state, out_dir, submitted_ns) SELECT id, 1,
    'queued', '', 1 FROM keys WHERE name = 'gen';
    INSERT INTO partitions (job_id, idx, witness, state, input) VALUES ($mine, 0, 'big.json',
    'queued', convert_to('{\"x\": \"' || repeat('1', 104857600) || '\"}', 'UTF8'))" ||
    pl_bad "alice's 100 MiB input row"
bigjob=$(super "SELECT max(id) FROM jobs")

# ---- the queue's clock: a low job dated 1 ns after the epoch --------------------
t0=$(super "SELECT $now")
bnorm=$(ZKSLOT_LEDGER=$(url bob) pl_submit 1) || pl_bad "bob's normal job"
sql alice "INSERT INTO jobs (key_id, nparts, state, out_dir, submitted_ns, priority) SELECT id,
    1, 'queued', '', 1, 0 FROM keys WHERE name = '$key';
    INSERT INTO partitions (job_id, idx, witness, state, input) VALUES ($mine, 0, 'w0.wtns',
    'queued', decode('$w0', 'hex'))" || pl_bad "alice's low job dated 1"
ajump=$(super "SELECT max(id) FROM jobs")
pl_expect "$ajump" "${PL_WTNS[0]}"
sub=$(super "SELECT submitted_ns FROM jobs WHERE id = $ajump")
echo "alice's job $ajump sent submitted_ns = 1; the ledger holds $sub (the database's clock: $t0 before)"
[ "$sub" -ge "$t0" ] || pl_bad "alice's submitted_ns ($sub) is not the database's clock (>= $t0)"

# ---- the farm ------------------------------------------------------------------
pl_pool 2 || exit 1
ZKSLOT_LEDGER=$(url gpu) pl_start_synthd --workers 1
ZKSLOT_LEDGER=$(url gpu) pl_start_gpud --threads 1
export ZKSLOT_LEDGER=$(url admin)
for j in "$bjob" "$ajob" "$bnorm" "$ajump"; do
    pl_wait "$j" 120 && pl_check_job "$j"
done
for j in "$wjob" "$ojob" "$bigjob"; do
    "$ZKSLOT" wait "$j" --timeout 30 >/dev/null 2>&1 || true
done
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"

# each refused row: its job failed, no proof, the rule in one synthd line
vetted() {   # vetted JOB WHAT RULE
    local st line
    st=$(super "SELECT j.state || ' ' || p.state || ' ' || p.proofs FROM jobs j JOIN partitions p
                ON p.job_id = j.id WHERE j.id = $1")
    [ "$st" = "failed failed 0" ] || pl_bad "$2 (job $1): job, partition, proofs: $st"
    line=$(grep -E "synthd\[[0-9]+\]: .*\(job $1 #0\): $3" "$PL_W/synthd.log" || true)
    [ "$(grep -c . <<<"$line")" = 1 ] || pl_bad "$2 (job $1): not one synthd line saying '$3': $(grep "job $1 " "$PL_W/synthd.log" | head -n 3)"
    echo "$2: job $1 $st; synthd: ${line#*: }"
}
vetted "$wjob" "a partition naming a daemon-only .wtns" \
    "it names a witness file \($secret\) and holds no witness, and its submitter zk_alice may not name files: .*refused, never read"
vetted "$ojob" "a job naming a daemon-only out_dir" \
    "its job names an output directory \($PL_W/daemon/out\) and its submitter zk_alice may not"
vetted "$bigjob" "a 100 MiB input" \
    "its input is $((7 + 104857600 + 2)) bytes, more than a submit stores \(64 MiB, and 76 bytes of sealing\): refused, nothing read or run"
[ -z "$(ls -A "$PL_W/daemon/out")" ] || pl_bad "gpud wrote in the daemon-only directory: $(ls -A "$PL_W/daemon/out")"
[ ! -e "$PL_W/gen.ran" ] || pl_bad "the 100 MiB input's generator ran: $(cat "$PL_W/gen.ran") bytes"

# bob's normal job went first: synthesized before alice's, one worker
order=$(super "SELECT string_agg(j.id::text, ' ' ORDER BY p.ready_ns) FROM jobs j
               JOIN partitions p ON p.job_id = j.id WHERE j.id IN ($bnorm, $ajump)")
echo "synthesized in this order (bob's normal $bnorm, alice's low $ajump): $order"
[ "$order" = "$bnorm $ajump" ] || pl_bad "alice's job dated 1 went ahead of bob's: $order"

# ---- a deadline's admission is the server's ------------------------------------
# the jobs above left stage times and a prover: 1000 partitions due in one
# second cannot be met; inserted by alice herself (no client check), each
# in a transaction rolled back
deadline_row() {   # deadline_row SECONDS FORCED: alice's INSERT, 0 when accepted
    sql alice "BEGIN; INSERT INTO jobs (key_id, nparts, state, out_dir, submitted_ns,
        deadline_ns, deadline_forced) SELECT id, 1000, 'queued', '', 0, $now + $1::bigint * 1000000000,
        $2 FROM keys WHERE name = '$key'; ROLLBACK" 2>"$PL_W/deadline.err"
}
if deadline_row 1 false; then
    pl_bad "alice's job with an unmeetable deadline was accepted by the server"
elif grep -q "jobs.deadline_ns: the deadline cannot be met: .* s left, about .* s needed" "$PL_W/deadline.err"; then
    echo "alice's unmeetable deadline refused by the server: $(grep -o 'jobs.deadline_ns.*' "$PL_W/deadline.err" | head -n 1 | cut -c1-200)"
else
    pl_bad "alice's unmeetable deadline: $(head -n 2 "$PL_W/deadline.err")"
fi
deadline_row 1 true || pl_bad "alice's forced deadline refused: $(head -n 2 "$PL_W/deadline.err")"
deadline_row 86400 false || pl_bad "alice's deadline a day away refused: $(head -n 2 "$PL_W/deadline.err")"
echo "a forced deadline and one a day away: accepted"
pl_done
