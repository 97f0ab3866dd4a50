#!/usr/bin/env bash
# test_password_pg.sh -- a ledger password is never printed (issue 36.5).
# The ledger's role needs a password (scram-sha-256), given in the URL's
# user info, as ?password=, and as a quoted keyword value; every place that
# shows the URL is run with each: both daemons' --check-config (the units
# run it before every start), their logs while proving a job, `zkslot
# top --once`, `status`, `key list`, `wait`, `result`, `metrics`, and the
# errors (a wrong password, an unreachable server, a job that does not
# exist).  None of it may contain the password; the URLs shown still name
# the ledger (user and host).  Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init password_pg || exit 77
pl_pg_init

PW='Sekr3t-pw x'   # with a blank: quoted in the keyword form
pg_psql zk "CREATE ROLE zk_pw LOGIN SUPERUSER PASSWORD 'Sekr3t-pw x'"
printf 'local all zkslot trust\nlocal all all scram-sha-256\n' >"$PG_DIR/data/pg_hba.conf"
"${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" reload >/dev/null
sleep 0.5
urls=("postgresql://zk_pw:Sekr3t-pw%20x@/zk?host=$PG_DIR"
      "postgresql://zk_pw@/zk?password=Sekr3t-pw%20x&host=$PG_DIR"
      "host=$PG_DIR user=zk_pw password='Sekr3t-pw x' dbname=zk")
out=$PL_W/out
: >"$out"
run() { echo "--- ${*:1:1} ..." >>"$out"; "$@" >>"$out" 2>&1 || echo "(exit $?)" >>"$out"; }

export ZKSLOT_LEDGER=${urls[0]}
pl_circuit bn128 600 1 || { pl_bad "key add with a password"; pl_done; }
pl_pool 2 || exit 1
pl_start_synthd
pl_start_gpud --threads 1
job=$(pl_submit 1)
pl_wait "$job" 60 || true
pl_stop "$PL_GPUD"
pl_stop "$PL_SYNTHD"
for u in "${urls[@]}"; do
    export ZKSLOT_LEDGER=$u
    run "$ZKSLOT_SYNTHD" --check-config
    run "$ZKSLOT_GPUD" --check-config
    run "$ZKSLOT_SYNTHD" --check-config --ledger "$u"
    run "$ZKSLOT" top --once
    run "$ZKSLOT" status
    run "$ZKSLOT" status "$job"
    run "$ZKSLOT" key list
    run "$ZKSLOT" wait "$job" --timeout 5
    run "$ZKSLOT" result "$job"
    run "$ZKSLOT" metrics
    run "$ZKSLOT" status 999999
done
# errors: a wrong password, a server that is not there
run env ZKSLOT_LEDGER="postgresql://zk_pw:Sekr3t-pw-wrong@/zk?host=$PG_DIR" "$ZKSLOT" status
run env ZKSLOT_LEDGER="host=$PG_DIR/none user=zk_pw password='Sekr3t-pw x' dbname=zk" "$ZKSLOT" status
cat "$PL_W/synthd.log" "$PL_W/gpud.log" >>"$out"
if grep -n "Sekr3t" "$out" >"$PL_W/leaks"; then
    pl_bad "the password was printed: $(head -n 3 "$PL_W/leaks")"
fi
grep -q "url = postgresql://zk_pw@/zk?host=$PG_DIR" "$out" || pl_bad "check-config did not show the URL"
grep -q "ledger postgresql://zk_pw@/zk?host=$PG_DIR" "$out" || pl_bad "top did not show the URL"
grep -q "password authentication failed" "$out" || pl_bad "the wrong password was not said"
[ "$(grep -c '^(exit' "$out")" -ge 5 ] || pl_bad "the error cases did not fail"
pl_done
