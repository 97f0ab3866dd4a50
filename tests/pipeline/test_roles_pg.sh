#!/usr/bin/env bash
# test_roles_pg.sh -- a farm's roles on PostgreSQL as docs/ledger.md sets
# them up ("Roles and grants"): its SQL block applied verbatim by the
# superuser, password authentication for everyone else, the schema made by
# the database's owner (zk_admin, `zkslot key add`).  Then:
#   - the daemons as zk_gpu (zkslot_daemon) prove a job submitted by zk_alice
#     (zkslot_submitter); zk_grafana (zkslot_reader) waits for it, reads
#     its status and results (every proof accepted by snarkjs);
#   - zk_bob's job is canceled by bob, not by alice (`zkslot cancel` as
#     alice fails, the job stays queued);
#   - issue 29's attacks, each as alice on her own connection: rewriting a
#     key's generator, overwriting a partition's result or state, reading
#     another job's input, a job inserted as done or as bob, a partition
#     inserted with a result, `zkslot key add`: each refused with the
#     server's reason, and the ledger (keys, jobs, partitions) unchanged,
#     byte for byte;
#   - the reader cannot read bob's input either (the column's grant);
#   - the reader cannot submit, and says "permission denied", not
#     "unreachable"; a wrong password says "password authentication
#     failed" and exits 2, not 4 (unreachable).
# Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init roles_pg || exit 77
pl_pg_init

# the docs' block, verbatim; passwords required for everyone but the superuser
pl_pg_roles

url() { echo "postgresql://zk_$1:$1-pw-change-me@/zkslot?host=$PG_DIR"; }
as() { local who=$1; shift; ZKSLOT_LEDGER=$(url "$who") "$@"; }
# sql WHO STATEMENT: run as WHO (0 when the server accepted it)
sql() {
    PGPASSWORD=$1-pw-change-me "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$PG_DIR" \
        -U "zk_$1" -d zkslot -c "$2"
}
super() { pg_psql zkslot "$1"; }
snapshot() {
    super "SELECT md5(string_agg(t::text, '|' ORDER BY t.id)) FROM keys t;
           SELECT md5(string_agg(t::text, '|' ORDER BY t.id)) FROM jobs t;
           SELECT md5(string_agg(t::text, '|' ORDER BY t.id)) FROM partitions t"
}

export ZKSLOT_LEDGER=$(url admin)
pl_circuit bn128 600 3 || { pl_bad "key add as the database's owner"; pl_done; }
key=$PL_KEYNAME

# the reader: no submit, and the reason said
rc=0
as grafana "$ZKSLOT" submit --key "$key" "${PL_WTNS[0]}" >"$PL_W/reader.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || pl_bad "the reader submitted a job"
grep -q "permission denied for table jobs" "$PL_W/reader.out" ||
    pl_bad "a reader's submit did not say the cause: $(cat "$PL_W/reader.out")"
grep -q unreachable "$PL_W/reader.out" && pl_bad "a refusal called the database unreachable"

# a wrong password: refused, said so (exit 2), not "unreachable" (exit 4)
rc=0
ZKSLOT_LEDGER="postgresql://zk_alice:wrong-pw@/zkslot?host=$PG_DIR" "$ZKSLOT" status \
    >"$PL_W/auth.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || pl_bad "a wrong password: exit $rc, not 2"
grep -q "password authentication failed" "$PL_W/auth.out" && ! grep -q unreachable "$PL_W/auth.out" ||
    pl_bad "a wrong password was not said: $(cat "$PL_W/auth.out")"

# bob's job, canceled by bob only (no daemons yet: it stays queued)
export ZKSLOT_LEDGER=$(url bob)
bjob=$(pl_submit 1) || { pl_bad "submit as bob"; pl_done; }
# scheduling as a submitter (docs/scheduling.md): a deadline's admission
# check reads what it needs; a request id is one submitter's (issue 46):
# bob gets his job back, alice's submit with his id is her own job, never
# bob's (and she cancels it: nothing more of hers queued than before)
PL_SUBMIT_ARGS=(--priority high --deadline 1h --request-id bob-r1)
bj2=$(pl_submit 1) || pl_bad "bob's submit with a class, a deadline and a request id"
[ "$(pl_submit 1)" = "$bj2" ] || pl_bad "bob's retry with his request id made another job"
export ZKSLOT_LEDGER=$(url alice)
rc=0; aj=$("$ZKSLOT" submit --key "$key" --request-id bob-r1 "${PL_WTNS[0]}" 2>"$PL_W/rid.out") || rc=$?
[ "$rc" = 0 ] && [ -n "$aj" ] && [ "$aj" != "$bj2" ] && ! grep -q "submitted before" "$PL_W/rid.out" ||
    pl_bad "alice's submit with bob's request id: exit $rc, job '$aj' (bob's: $bj2): $(cat "$PL_W/rid.out")"
PL_SUBMIT_ARGS=()
[ "$(super "SELECT string_agg(submitter, ',' ORDER BY submitter) FROM jobs WHERE request_id = 'bob-r1'")" = zk_alice,zk_bob ] ||
    pl_bad "bob-r1: not one job of each submitter: $(super "SELECT id, submitter FROM jobs WHERE request_id = 'bob-r1'")"
[ -z "$aj" ] || "$ZKSLOT" cancel "$aj" >/dev/null 2>&1 || pl_bad "alice could not cancel her job $aj"
# nor can alice read bob's request ids: not from the table, not in status
out=$(sql alice "SELECT request_id FROM jobs WHERE id = $bj2" 2>&1) &&
    pl_bad "alice read bob's request id: $out" || grep -q "permission denied for table jobs" <<<"$out" ||
    pl_bad "alice's read of bob's request id refused for another reason: $out"
[ "$(sql alice "SELECT zkslot_request_id($bj2) IS NULL" 2>&1)" = t ] || pl_bad "zkslot_request_id gave alice bob's id"
rid_of() { "$ZKSLOT" status "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["request_id"])'; }
[ "$(rid_of "$bj2")" = None ] || pl_bad "alice's status shows bob's request id $(rid_of "$bj2")"
[ "$(rid_of "$aj")" = bob-r1 ] || pl_bad "alice's status of her own job: request id $(rid_of "$aj")"
[ "$(ZKSLOT_LEDGER=$(url bob) rid_of "$bj2")" = bob-r1 ] || pl_bad "bob's status of his job: request id $(ZKSLOT_LEDGER=$(url bob) rid_of "$bj2")"
ZKSLOT_LEDGER=$(url bob) "$ZKSLOT" cancel "$bj2" >/dev/null 2>&1 || pl_bad "bob could not cancel $bj2"
rc=0
"$ZKSLOT" cancel "$bjob" >"$PL_W/cancel.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || pl_bad "alice canceled bob's job"
grep -q "job $bjob is not yours to cancel" "$PL_W/cancel.out" ||
    pl_bad "alice's cancel of bob's job did not say why: $(cat "$PL_W/cancel.out")"
[ "$(super "SELECT state FROM jobs WHERE id = $bjob")" = queued ] || pl_bad "bob's job is not queued"
# a class is set at submit; changing it is the administrators' (alice's own
# job or bob's alike): refused, the class unchanged
for j in "$bjob"; do   # (bob's: hidden from alice and not hers to change)
    rc=0
    "$ZKSLOT" reprioritize "$j" critical >"$PL_W/reprio.out" 2>&1 || rc=$?
    [ "$rc" = 2 ] && grep -q "permission denied" "$PL_W/reprio.out" ||
        pl_bad "alice's reprioritize of job $j: exit $rc: $(cat "$PL_W/reprio.out")"
    [ "$(super "SELECT priority FROM jobs WHERE id = $j")" = 1 ] || pl_bad "job $j changed class"
done
[ "$(super "SELECT submitter FROM jobs WHERE id = $bjob")" = zk_bob ] || pl_bad "submitter not recorded"

# alice's own queued job, for the attacks on her own rows
ajob=$(pl_submit 1) || { pl_bad "submit as alice"; pl_done; }

# the attacks: each refused, the ledger unchanged
before=$(snapshot)
bpart=$(super "SELECT id FROM partitions WHERE job_id = $bjob")
apart=$(super "SELECT id FROM partitions WHERE job_id = $ajob")
attack() {   # attack WHAT STATEMENT EXPECTED-REASON
    local out
    if out=$(sql alice "$2" 2>&1); then
        pl_bad "alice's attack accepted: $1 ($2)"
    elif ! grep -q "$3" <<<"$out"; then
        pl_bad "alice's attack '$1' refused for another reason: $out"
    fi
}
attack "rewrite a key's generator" "UPDATE keys SET witgen_kind = 'cmd', witgen = 'sh -c id'" \
    "permission denied for table keys"
attack "overwrite a result" "UPDATE partitions SET proof_json = 'x'" \
    "permission denied for table partitions"
attack "mark her partition done" "UPDATE partitions SET state = 'done' WHERE id = $apart" \
    "row-level security"
attack "mark her job done" "UPDATE jobs SET state = 'done' WHERE id = $ajob" "row-level security"
# no row of bob's is alice's to change: these statements change nothing
for q in "UPDATE jobs SET state = 'canceled' WHERE id = $bjob RETURNING id" \
    "UPDATE partitions SET state = 'canceled' WHERE id = $bpart RETURNING id"; do
    [ -z "$(sql alice "$q" 2>&1)" ] || pl_bad "alice changed bob's job: $q"
done
attack "read bob's input" "SELECT input FROM partitions WHERE job_id = $bjob" \
    "permission denied for table partitions"
out=$(sql grafana "SELECT input FROM partitions WHERE job_id = $bjob" 2>&1) &&
    pl_bad "the reader read bob's input" || grep -q "permission denied for table partitions" <<<"$out" ||
    pl_bad "the reader's read of bob's input refused for another reason: $out"
attack "a job inserted as done" "INSERT INTO jobs (key_id, nparts, state, out_dir, submitted_ns)
    SELECT id, 1, 'done', '', 1 FROM keys LIMIT 1" "row-level security"
attack "a job inserted as bob's" "INSERT INTO jobs (key_id, nparts, state, out_dir,
    submitted_ns, submitter) SELECT id, 1, 'queued', '', 1, 'zk_bob' FROM keys LIMIT 1" \
    "permission denied for table jobs"
attack "a partition with a result" "INSERT INTO partitions (job_id, idx, witness, state,
    proof_json) VALUES ($bjob, 1, 'w', 'queued', 'x')" "permission denied for table partitions"
attack "a partition in bob's job" "INSERT INTO partitions (job_id, idx, witness, state)
    VALUES ($bjob, 1, 'w', 'queued')" "row-level security"
rc=0
"$ZKSLOT" key add evil "$PL_KEY" --witness-cmd 'sh -c "id" {input} {output}' \
    >"$PL_W/keyadd.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || pl_bad "alice registered a key"
grep -q "permission denied for table keys" "$PL_W/keyadd.out" ||
    pl_bad "key add as alice did not say the cause: $(cat "$PL_W/keyadd.out")"
[ "$(snapshot)" = "$before" ] || pl_bad "the attacks changed the ledger"
[ "$(super "SELECT count(*) FROM keys WHERE name = 'evil'")" = 0 ] || pl_bad "key evil registered"

# each cancels their own
ZKSLOT_LEDGER=$(url bob) "$ZKSLOT" cancel "$bjob" >/dev/null || pl_bad "bob could not cancel his job"
"$ZKSLOT" cancel "$ajob" >/dev/null || pl_bad "alice could not cancel her job"
[ "$(super "SELECT string_agg(state, ',') FROM jobs WHERE id IN ($ajob, $bjob)")" = canceled,canceled ] ||
    pl_bad "the jobs were not canceled by their submitters"

# the farm at work with these roles: daemons as zk_gpu, alice's job, read by grafana
pl_pool 2 || exit 1
ZKSLOT_LEDGER=$(url gpu) pl_start_synthd
ZKSLOT_LEDGER=$(url gpu) pl_start_gpud --threads 1
job=$(pl_submit 3) || { pl_bad "submit as alice"; pl_done; }
export ZKSLOT_LEDGER=$(url grafana)
pl_wait "$job" 120 && pl_check_job "$job"
"$ZKSLOT" status >"$PL_W/status.out" 2>&1 || pl_bad "status as the reader: $(cat "$PL_W/status.out")"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"

# results bound to their statements (zk/statement.h): recorded by synthd
# (a daemon), not writable by a submitter; a result row swapped by the
# superuser (partition 0 given partition 1's proof and signals) is
# refused by `zkslot result`, naming the mismatch
[ "$(super "SELECT count(DISTINCT statement) FROM partitions WHERE job_id = $job AND statement
    LIKE 's1:%'")" = 3 ] || pl_bad "job $job: not 3 different statements recorded"
attack "rewrite a statement" "UPDATE partitions SET statement = 'x' WHERE job_id = $job" \
    "permission denied"
super "UPDATE partitions p SET proof_json = q.proof_json, public_json = q.public_json
       FROM partitions q WHERE p.job_id = $job AND p.idx = 0 AND q.job_id = $job AND q.idx = 1" \
    >/dev/null
rc=0
"$ZKSLOT" result "$job" --out "$PL_W/swapped" >"$PL_W/swapped.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "partition 0: its public signals are not the ones synthesized" \
    "$PL_W/swapped.out" || pl_bad "a swapped result: exit $rc: $(cat "$PL_W/swapped.out")"
[ ! -e "$PL_W/swapped/0/proof.json" ] && [ -e "$PL_W/swapped/1/proof.json" ] ||
    pl_bad "a swapped result: partition 0 written out, or partition 1 not"
pl_done
