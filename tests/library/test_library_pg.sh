#!/usr/bin/env bash
# test_library_pg.sh -- libzkslot on a PostgreSQL ledger (a private server,
# tests/pipeline/lib_pg.sh; $ZKSLOT_LEDGER names it for the daemons and the
# library alike), both faces on one server: the example producer
# (external-synth, installed, built with make) feeds gpud without a synthd
# -- its claims and `ready` through the shared ledger, 4 BN254 proofs
# accepted; then, with a synthd up, the Python ctypes client submits,
# waits and reads results (tests/library/lib_python.sh).  Skips without
# PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
. "$ZK_SOURCE_DIR/tests/library/lib_python.sh"
pl_init library_pg || exit 77
pl_pg_init
pl_pool 2 1M
pl_start_gpud
lib_external_synth bn128 || true
pl_start_synthd --workers 1
py_submit_wait || true
lib_finish
