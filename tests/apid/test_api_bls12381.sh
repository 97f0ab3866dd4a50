#!/usr/bin/env bash
# test_api_bls12381.sh -- the first part of test_api.sh on BLS12-381: a
# Python client and curl submit jobs from circuit inputs over the API, a
# long poll sees them done, and every proof fetched over the API proves
# its input's public signals and is accepted by snarkjs.  About 12 s.
export APID_TEST_CURVE=bls12381
. "$ZK_SOURCE_DIR/tests/apid/test_api.sh"
