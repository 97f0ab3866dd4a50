#!/usr/bin/env bash
# test_external_synth.sh -- examples/external-synth, built with make against
# a staging install's zkslot.pc alone, feeds a real pool and gpud (no
# synthd): a job of 4 BLS12-381 partitions (examples/groth16/bls12381),
# each witness written into its slot through the producer face, proved by
# gpud, every proof accepted by snarkjs and by `zkslot verify`, each
# partition proving its own witness's public signals (pl_check_job).  The
# installed library exports nothing outside zkslot_*.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/library/lib_install.sh"
pl_init external_synth || exit 77

pl_pool 2 1M
pl_start_gpud
lib_external_synth bls12381 || true
lib_finish
