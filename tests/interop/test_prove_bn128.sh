#!/usr/bin/env bash
# Groth16 interop with snarkjs 0.7.6 on bn128: a circomlib Poseidon circuit and a
# circuit with several public inputs and outputs, keys from snarkjs's own
# ceremony with one contribution (checks: prove_checks.sh).  Exit 77 when
# node or the pinned node modules are missing.
set -u
. "$(dirname "$0")/prove_lib.sh"
. "$(dirname "$0")/prove_checks.sh"
g16_require_tools
g16_case bn128 g16_multi 8 '{"a":"3","b":"11","c":"7","d":"123456789"}'
g16_case bn128 g16_poseidon 10 '{"x":["1","2","340282366920938463463374607431768211457"]}'
[ "$G16_FAILS" -eq 0 ] || { echo "$G16_FAILS check(s) failed"; exit 1; }
echo "all checks passed"
