# lib_pg.sh -- a pipeline test's ledger on a private PostgreSQL server
# (tests/lib/pg.sh).  Source it after tests/pipeline/lib.sh:
#
#   pl_init NAME || exit 77
#   pl_pg_init ['SHELL CODE']   # server, database zk, $ZKSLOT_LEDGER naming it
#
# The code given runs in the EXIT trap after the server is stopped and
# before pl_cleanup (a second machine's pool, say).  Skips (pl_skip)
# without PostgreSQL's binaries.
. "$ZK_SOURCE_DIR/tests/lib/pg.sh"

pl_pg_init() {
    local r=0
    pg_start || r=$?
    pg_trap_before "${1:+$1; (exit \$pg__rc); }pl_cleanup"   # pl_cleanup reads \$?
    [ "$r" != 77 ] || pl_skip "no PostgreSQL server binaries"
    [ "$r" = 0 ] || { pl_bad "pg_start"; pl_done; }
    pg_createdb zk
    export ZKSLOT_LEDGER="host=$PG_DIR user=zkslot dbname=zk"
}
