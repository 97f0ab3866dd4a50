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

lib_install || exit 1
other=$(nm -D --defined-only "$LIB_DIR/libzkslot.so.0" |
        awk '$2 ~ /^[TDBRVW]$/ && $3 !~ /^zkslot_/ { print $3 }')
[ -z "$other" ] || pl_bad "the installed library exports: $other"

lib_example_key bls12381 || exit 1
pl_pool 2 1M
pl_start_gpud

"$LIB_EXAMPLE" "$PL_KEYNAME" "${PL_WTNS[@]}" >"$PL_W/example.out" 2>"$PL_W/example.log" ||
    { pl_bad "external-synth exit $?: $(tail -n 3 "$PL_W/example.log")"; exit 1; }
job=$(tail -n 1 "$PL_W/example.out")
[[ $job =~ ^[0-9]+$ ]] || { pl_bad "external-synth's last line is not a job id: '$job'"; exit 1; }
[ "$(grep -c 'published$' "$PL_W/example.log")" = 4 ] ||
    pl_bad "external-synth did not publish 4 partitions: $(cat "$PL_W/example.log")"
pl_expect "$job" "${PL_WTNS[@]}"
pl_wait "$job" 120 && pl_check_job "$job" 4 && echo "ok: $PL_NPROOFS proofs of external-synth accepted"
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc after SIGTERM"
"$ZKSLOT" pool check >"$PL_W/check.out" 2>&1 || pl_bad "pool check: $(cat "$PL_W/check.out")"
pl_pool_clean
pl_done
