#!/usr/bin/env bash
# test_generators_pg.sh -- on a shared PostgreSQL ledger, a machine runs
# only the witness generators its own configuration allows ([synthd]
# generators = W/gens), whatever the ledger says:
#   - key `evil` registered with --witness-cmd 'sh -c "touch PWNED" ...',
#     and key `planted` whose row is rewritten to the same command (one
#     UPDATE ... FROM keys, as a role with UPDATE on keys could): synthd
#     logs once for each that it does not claim it, its STATUS (sd_notify,
#     a stand-in socket) says "not claiming keys: ... (generator not
#     allowed)", their jobs stay queued (no attempt), PWNED never appears;
#   - key `good`, whose generator is a script beneath W/gens, proves its
#     job on the same machine.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init generators_pg || exit 77
SRV=
pl_pg_init '[ -z "$SRV" ] || kill "$SRV" 2>/dev/null'

pl_circuit bn128 600 1 || exit 1
mkdir -p "$PL_W/gens"
chmod 0755 "$PL_W/gens"
cat >"$PL_W/gens/copy.sh" <<EOF
#!/bin/sh
exec cp "${PL_WTNS[0]}" "\$2"
EOF
chmod 0755 "$PL_W/gens/copy.sh"
printf '[synthd]\ngenerators = %s\n' "$PL_W/gens" >"$ZKSLOT_CONFIG"
"$ZKSLOT" key add good "$PL_KEY" --witness-cmd "$PL_W/gens/copy.sh {input} {output}" >/dev/null
"$ZKSLOT" key add planted "$PL_KEY" --witness-cmd "$PL_W/gens/copy.sh {input} {output}" >/dev/null
"$ZKSLOT" key add evil "$PL_KEY" --witness-cmd "sh -c 'touch $PL_W/pwned' {input} {output}" \
    >/dev/null 2>"$PL_W/add.err"
grep -q "note: this machine's synthd does not run it" "$PL_W/add.err" ||
    pl_bad "key add of sh -c said nothing about this machine: $(cat "$PL_W/add.err")"
pg_psql zk "UPDATE keys SET witgen_kind = e.witgen_kind, witgen = e.witgen, witgen_hash = e.witgen_hash
            FROM keys e WHERE e.name = 'evil' AND keys.name = 'planted'" >/dev/null
echo '{"x": "2"}' >"$PL_W/in.json"
declare -A job
for k in evil planted good; do
    job[$k]=$("$ZKSLOT" submit --key "$k" --input "$PL_W/in.json")
done

# synthd's STATUS lines: a datagram socket standing in for systemd's
SOCK=$PL_W/notify.sock
have_notify=1
pl_notify_listen "$SOCK" "$PL_W/notify.log" ||
    { have_notify=0; pl_log "synthd built without libsystemd: its STATUS is not checked"; }
SRV=$PL_NOTIFY

pl_pool 2
NOTIFY_SOCKET=$SOCK pl_start_synthd --machine a
pl_start_gpud --machine a
rc=0
"$ZKSLOT" wait "${job[good]}" --timeout 120 >/dev/null 2>&1 || rc=$?
[ "$rc" = 0 ] || pl_bad "the allowed generator's job ${job[good]}: wait exit $rc"
for k in evil planted; do
    pl_wait_log synthd "$PL_SYNTHD" "key $k: its partitions are not claimed on this machine: .*not allowed on this machine \(not under \[synthd\] generators: $PL_W/gens\)" 20
done
sleep 2.5   # a claims refresh (2 s) and many claim polls later
for k in evil planted; do
    n=$(pg_psql zk "SELECT count(*) FROM partitions WHERE job_id = ${job[$k]} AND (attempts > 0 OR state <> 'queued')")
    [ "$n" = 0 ] || pl_bad "$n partition(s) of key $k's job were claimed"
    [ "$(grep -c "key $k: its partitions are not claimed" "$PL_W/synthd.log")" = 1 ] ||
        pl_bad "synthd did not log its refusal of key $k exactly once"
done
[ -e "$PL_W/pwned" ] && pl_bad "a synthd ran the ledger's sh -c"
if [ $have_notify = 1 ]; then
    grep '^STATUS=' "$PL_W/notify.log" | tail -n 1 |
        grep -qE "not claiming keys: (evil|planted) \(generator not allowed\), (evil|planted) \(generator not allowed\)" ||
        pl_bad "synthd's STATUS does not name both keys: $(grep '^STATUS=' "$PL_W/notify.log" | tail -n 1)"
fi
pl_done
