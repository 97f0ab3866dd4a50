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
pl_pool 2 1M
pl_start_synthd --workers 1
pl_start_gpud
py_submit_wait || true
pl_stop "$PL_SYNTHD"; pl_stop "$PL_GPUD"
pl_pool_clean
pl_done
