# test_ledger_pg.sh -- tests/test_ledger.c's whole suite on PostgreSQL: a
# private server (tests/lib/pg.sh) with the databases the suite expects,
# then test_ledger with $ZKSLOT_TEST_LEDGER_PG set.  Skips (77) without
# PostgreSQL's binaries or a build without libpq (test_ledger says so).
set -euo pipefail
: "${ZK_SOURCE_DIR:?}" "${ZK_BUILD_DIR:?}"
. "$ZK_SOURCE_DIR/tests/lib/pg.sh"
r=0
pg_start || r=$?
[ "$r" = 0 ] || exit "$r"
for db in ledger_db race_db fresh_db empty_db old_db late_db; do
    pg_createdb "$db"
done
ZKSLOT_TEST_LEDGER_PG="host=$PG_DIR user=zkslot" "$ZK_BUILD_DIR/tests/test_ledger" || r=$?
[ "$r" = 0 ] || tail -20 "$PG_DIR/log" >&2
exit "$r"
