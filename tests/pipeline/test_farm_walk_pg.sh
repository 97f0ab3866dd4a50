#!/usr/bin/env bash
# test_farm_walk_pg.sh -- the farm of docs/operations.md and docs/ledger.md
# walked as an operator would (issue 36's bar), on one PostgreSQL server:
#   - the roles and grants of docs/ledger.md's block, applied verbatim by
#     the superuser; password authentication for every other role;
#   - the key registered by the administrator (zk_admin);
#   - three machines (a, b, c: a pool, one synthd, one gpud each) whose
#     daemons connect as zk_gpu (zkslot_daemon);
#   - a client that is not root, with a configuration holding only the
#     ledger URL (zk_alice, zkslot_submitter), no pool and no state
#     directory: it submits a job of 6 witnesses that exist only on the
#     client (removed once submitted);
#   - the server restarted (`pg_ctl -m fast stop; sleep 2; start`) while
#     the job runs (fills held 1 s so that it spans the restart, and each
#     stored witness read 1 s after its claim, while the server is down);
#   - the client waits, fetches every proof with `result --out`, and
#     snarkjs accepts each one as the statement of its own witness;
#   - no attempt charged to the restart (every partition: 0 errors), each
#     partition proved once by the farm;
#   - no password anywhere: the client's outputs, the daemons' logs, every
#     daemon's --check-config, `zkslot top --once` and `status --json`.
# Needs root (useradd, setpriv); skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init farm_walk_pg || exit 77
[ "$(id -u)" = 0 ] && command -v useradd >/dev/null && command -v setpriv >/dev/null ||
    pl_skip "needs root, useradd and setpriv"
CU=zkwalk$$
pl_pg_init "userdel $CU >/dev/null 2>&1"
useradd -M -d /nonexistent -s /usr/sbin/nologin "$CU"

# the docs' block, verbatim, then passwords for everyone but the superuser
pl_pg_roles
url() { echo "postgresql://zk_$1:$1-pw-change-me@/zkslot?host=$PG_DIR"; }

export ZKSLOT_LEDGER=$(url admin)
pl_circuit bn128 600 6 || { pl_bad "key add as the administrator"; pl_done; }

# three machines, their daemons as zk_gpu
export ZKSLOT_LEDGER=$(url gpu)
for m in a b c; do
    pl_pg_machine "$m" 2 || exit 1
    # each claimed partition's stored witness is read 1 s after the claim,
    # so the partitions claimed before the restart read it while the
    # server is down: handed back, no error charged
    ZKSLOT_TEST_READ_DELAY_MS=1000 ZKSLOT_TEST_FILL_DELAY_MS=1000 \
        pl_pg_on "$m" pl_start_synthd --machine "$m"
    pl_pg_on "$m" pl_start_gpud --threads 1 --machine "$m"
done

# the client: the URL only, no pool, no state directory, not root
pl_pg_client "$CU" "$(url alice)"
cp "${PL_WTNS[@]}" "$C/"
files=()
for w in "${PL_WTNS[@]}"; do files+=("$C/$(basename "$w")"); done
job=$(client "$ZKSLOT" submit --key "$PL_KEYNAME" "${files[@]}" 2>"$C/submit.err") ||
    { pl_bad "the client's submit: $(cat "$C/submit.err")"; rm -rf "$C"; pl_done; }
rm -f "${files[@]}"     # the witnesses existed only on the client

# the restart, once the job runs
for _ in $(seq 100); do
    [ "$(pg_psql zkslot "SELECT count(*) FROM partitions WHERE job_id = $job AND state <> 'queued'")" -gt 0 ] && break
    sleep 0.05
done
pg_server_stop
pl_log "PostgreSQL stopped mid-job"
sleep 2
pg_server_start
pl_log "PostgreSQL started again"

client "$ZKSLOT" wait "$job" --timeout 120 >/dev/null 2>"$C/wait.err" ||
    pl_bad "the client's wait: $(cat "$C/wait.err")"
client "$ZKSLOT" result "$job" --out "$C/home/out" >"$C/fetched.out" 2>"$C/fetched.err" ||
    pl_bad "result --out on the client: $(cat "$C/fetched.err")"
[ ! -e "$PL_PG_ABSENT" ] || pl_bad "the client made its state directory $PL_PG_ABSENT"
# partition k proves witness k: its public.json against the witness's signals
args=() k=0
while read -r proof pub; do
    PYTHONPATH="$ZK_SOURCE_DIR/tests/pipeline" python3 -c '
import json, sys
from wtns_public import wtns_public
pub = json.load(open(sys.argv[2]))
sys.exit(0 if pub == wtns_public(sys.argv[1], len(pub)) else 1)' "${PL_WTNS[$k]}" "$pub" ||
        pl_bad "partition $k'"'"'s public.json is not its witness'"'"'s"
    args+=("$pub" "$proof")
    k=$((k + 1))
done <"$C/fetched.out"
[ "$k" = 6 ] || pl_bad "result --out wrote $k partitions, not 6"
node "$ZK_SOURCE_DIR/tests/pipeline/verify_many.cjs" "$PL_VK" "${args[@]}" >"$PL_W/verify.out" 2>&1 ||
    pl_bad "snarkjs: $(tail -n 3 "$PL_W/verify.out")"
[ "$(grep -c '^ok' "$PL_W/verify.out")" = 6 ] || pl_bad "snarkjs accepted $(grep -c '^ok' "$PL_W/verify.out") of 6"

charged=$(pg_psql zkslot "SELECT sum(errors) || ' ' || min(proofs) || ' ' || count(DISTINCT machine)
                          FROM partitions WHERE job_id = $job")
[ "${charged%% *}" = 0 ] || pl_bad "the restart was charged: errors, min proofs, machines = $charged"
echo "errors, min proofs, machines: $charged"

# no password anywhere
for m in a b c; do
    pl_pg_on "$m" "$ZKSLOT_SYNTHD" --check-config >>"$PL_W/outputs" 2>&1 || true
    pl_pg_on "$m" "$ZKSLOT_GPUD" --check-config >>"$PL_W/outputs" 2>&1 || true
done
client "$ZKSLOT" top --once >>"$PL_W/outputs" 2>&1 || true
client "$ZKSLOT" status "$job" --json >>"$PL_W/outputs" 2>&1 || true
n=$(cat "$PL_W"/*.log "$PL_W/outputs" "$C"/*.out "$C"/*.err | grep -c -- '-pw-change-me' || true)
[ "$n" = 0 ] || pl_bad "a password was printed $n time(s)"
for p in "${PL_SYNTHD_PIDS[@]}" "${PL_GPUD_PIDS[@]}"; do
    pl_stop "$p"; [ "$PL_RC" = 0 ] || pl_bad "a daemon exited $PL_RC after SIGTERM"
done
rm -rf "$C"
pl_done
