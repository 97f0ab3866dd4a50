#!/usr/bin/env bash
# test_python_client.sh -- the Python ctypes example of libzkslot's client
# face submits a job of 4 partitions on an SQLite ledger, waits for it, and
# reads its results (tests/library/lib_python.sh has the checks).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/library/lib_python.sh"
pl_init python_client || exit 77
pl_pool 2 1M
pl_start_synthd --workers 1
pl_start_gpud
py_submit_wait || true
lib_finish
