#!/usr/bin/env bash
# test_e2e_pg.sh -- the pipeline on a PostgreSQL ledger: a private server
# (tests/lib/pg.sh), $ZKSLOT_LEDGER naming it for every command and both
# daemons, one synthd with 2 workers and one gpud on a pool of 3 slots; a
# job of 4 and one of 3 partitions on BN254 and one of 3 on BLS12-381.
# Every proof is accepted by snarkjs and by `zkslot verify`, each partition
# is done with exactly one proof, and nothing was written to an SQLite
# ledger in the state directory.  Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init e2e_pg || exit 77
pl_pg_init
export ZKSLOT_LEDGER="postgresql:///zk?host=$PG_DIR&user=zkslot"   # the URL form

pl_pool 3 || exit 1
pl_start_synthd --workers 2
pl_start_gpud --self-verify yes
for curve in bn128 bls12381; do
    pl_circuit "$curve" 600 4 || { pl_bad "circuit $curve"; continue; }
    jobs=$(pl_submit 3) || { pl_bad "submit $curve"; continue; }
    if [ "$curve" = bn128 ]; then
        jobs+=" $(pl_submit 4)" || { pl_bad "submit $curve"; continue; }
    fi
    for j in $jobs; do
        pl_wait "$j" 300 || continue
        pl_check_job "$j" || continue
        echo "ok: $curve job $j: $PL_NPROOFS proofs accepted"
    done
done
# a client needs no key file on a shared ledger (the machines check their own)
cp "$PL_KEY" "$PL_W/ghost.zkey"
"$ZKSLOT" key add ghost "$PL_W/ghost.zkey" >/dev/null || pl_bad "key add ghost"
rm -f "$PL_W/ghost.zkey"
if g=$("$ZKSLOT" submit --key ghost "${PL_WTNS[0]}" 2>"$PL_W/ghost.err"); then
    "$ZKSLOT" cancel "$g" >/dev/null 2>&1 || pl_bad "cancel the ghost job"
else
    pl_bad "submit without the key file here: $(cat "$PL_W/ghost.err")"
fi
# the ledger is the server's: every partition done once, none in SQLite
n=$(pg_psql zk "SELECT count(*) FROM partitions WHERE state = 'done' AND proofs = 1")
[ "$n" = 10 ] || pl_bad "$n of 10 partitions done with one proof in PostgreSQL"
[ ! -e "$ZKSLOT_STATE_DIR/ledger.db" ] || pl_bad "an SQLite ledger was made in the state directory"
"$ZKSLOT" status >"$PL_W/status.txt" || pl_bad "zkslot status"
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc after SIGTERM"
pl_pool_clean
pl_done
