#!/usr/bin/env bash
# test_hostile_writer.sh -- a process with write access to the pool corrupts
# it at random while synthd and gpud work (hostile_writer.py: header
# geometry, slot state words, slot header ids, region tables, checksums,
# data bytes): neither daemon dies, every proof written is valid for its own
# witness (pl_check_job: snarkjs, zkslot verify, public signals), the slots
# that could not be trusted were dropped with a logged reason, and once the
# writer stops every job completes.
#   gpud runs with self_verify = yes: the checksum is checked when a slot is
# claimed, but the CPU backend proves in the slot, so a byte changed while
# it proves can only be caught by verifying the proof before it is written
# (docs/pool.md, "Trust").  The error and attempt limits are raised: under
# this rate of corruption a partition fails its checksum or its proof many
# times before it goes through.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init hostile_writer || exit 77

limits=(--max-errors 1000 --max-attempts 1000)
pl_pool 4 || exit 1
pl_circuit bn128 600 6 || { pl_bad circuit; exit 1; }
pl_start_synthd --workers 2 "${limits[@]}"
pl_start_gpud --self-verify yes "${limits[@]}"
j1=$(pl_submit)
j2=$(pl_submit)
python3 "$ZK_SOURCE_DIR/tests/pipeline/hostile_writer.py" "$ZKSLOT_POOL" "${ZK_HOSTILE_SECONDS:-20}" \
    "$PL_W/hostile.log" || pl_bad "the hostile writer failed"
echo "corruptions: $(tr '\n' ' ' <"$PL_W/hostile.log")"
for d in synthd gpud; do
    pid=$([ $d = synthd ] && echo "$PL_SYNTHD" || echo "$PL_GPUD")
    kill -0 "$pid" 2>/dev/null || pl_bad "$d died under the hostile writer: $(tail -n 3 "$PL_W/$d.log" | tr '\n' ' ')"
done
j3=$(pl_submit)     # and the pipeline still works afterwards
for j in "$j1" "$j2" "$j3"; do
    pl_wait "$j" 180 && pl_check_job "$j" 6 && echo "job $j: $PL_NPROOFS proofs accepted"
done
dropped=$(grep -cE 'failed its checksum|is not to be proved|slot dropped|self-verify' "$PL_W/gpud.log" || true)
echo "gpud dropped or refused $dropped slot(s) or proof(s), each with its reason in the log"
[ "$dropped" -gt 0 ] || pl_bad "no slot was dropped with a logged reason: the corruption reached nothing?"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
# the writer's forged transitions bypassed the semaphores: a reap with no
# daemon attached resynchronizes them, then the pool is consistent again
"$ZKSLOT" pool reap >"$PL_W/reap.out" 2>&1 || pl_bad "pool reap: $(cat "$PL_W/reap.out")"
pl_pool_clean || true
pl_done
