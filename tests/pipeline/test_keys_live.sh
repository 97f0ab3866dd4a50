#!/usr/bin/env bash
# test_keys_live.sh -- keys registered after the daemons started, while
# partitions of other keys are being proved and finalized: three rounds of a
# job of 4 partitions of one key with, meanwhile, 4 new keys registered and
# a job of each submitted, so gpud and synthd load keys while their
# finisher and workers hold entries of others.  (gpud kept its keys in one
# array that grew with realloc while the finisher held a pointer into it:
# a use after free, a SIGSEGV in a real run, an ASan report in the sanitizer
# tree.)  Every job completes, every proof is accepted by snarkjs, neither
# daemon exits by itself.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init keys_live || exit 77

pl_pool 3
pl_circuit bn128 600 4
pl_start_synthd --workers 2
pl_start_gpud --self-verify yes
jobs=()
n=0
for round in 1 2 3; do
    jobs+=("$(pl_submit 4)")
    for i in 1 2 3 4; do
        n=$((n + 1))
        "$ZKSLOT" key add "live-$n" "$PL_KEY" >/dev/null
        id=$("$ZKSLOT" submit --key "live-$n" "${PL_WTNS[$((i - 1))]}")
        pl_expect "$id" "${PL_WTNS[$((i - 1))]}"
        jobs+=("$id")
    done
done
for j in "${jobs[@]}"; do
    pl_wait "$j" 300 && pl_check_job "$j" >/dev/null || true
done
for p in "$PL_SYNTHD" "$PL_GPUD"; do
    kill -0 "$p" 2>/dev/null || pl_bad "daemon $p exited by itself (see its log)"
done
loaded=$(grep -c "key live-[0-9]*: ready" "$PL_W/gpud.log" || true)
[ "$loaded" = 12 ] || pl_bad "gpud loaded $loaded of the 12 keys registered while it ran"
echo "ok: ${#jobs[@]} jobs, 12 keys registered while others were proved"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_pool_clean
pl_done
