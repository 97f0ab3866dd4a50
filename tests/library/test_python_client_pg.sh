#!/usr/bin/env bash
# test_python_client_pg.sh -- test_python_client.sh on a PostgreSQL ledger
# (a private server, tests/pipeline/lib_pg.sh; $ZKSLOT_LEDGER names it for
# the daemons and the library alike).  Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
. "$ZK_SOURCE_DIR/tests/library/lib_python.sh"
pl_init python_client_pg || exit 77
pl_pg_init
py_run
