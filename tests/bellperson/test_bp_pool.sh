#!/usr/bin/env bash
# test_bp_pool.sh -- bellperson keys and partitions through the pool, real
# processes (zkslot-synthd, zkslot-gpud on the CPU backend), against
# bellperson itself (rust/bp-oracle):
#   1. `zkslot key add` of a 2^16 chain parameter file decodes it into the
#      key store; `zkslot submit --key K --bpa A0.bpa A1.bpa` (two
#      assignments made by bellperson's synthesis); synthd copies each into
#      a slot, gpud proves it from the store (r and s fixed through the test
#      hook ZKSLOT_TEST_BP_RS) and self-verifies it;
#      `zkslot result JOB --out all.bin` is the two proofs concatenated, each
#      byte for byte bellperson's create_proof for the same r and s, and
#      bellperson's verify_proof and `zkslot bp verify` accept each
#      <out_dir>/<i>/proof.bin;
#   2. restart: gpud killed -9, a job submitted, the parameter file moved
#      away, gpud started again: it maps the store ("the parameter file not
#      read") and proves the job, the proof verified by bellperson;
#   3. an assignment of another circuit, a .wtns for a bellperson key, --bpa
#      for a .zkey's key are refused at submit: exit 2, nothing submitted;
#   3b. an assignment that parses but does not satisfy the circuit (one aux
#      value changed): gpud's self-verify rejects its proof, the job fails
#      and no proof.bin is written;
#   4. the result check: a proof in the ledger with one bit flipped is
#      refused by `zkslot result` (exit 1, not written);
#   5. libzkslot's producer face (no synthd): tests/bellperson/bp_producer.c
#      publishes two assignments from its own buffers with
#      zkslot_part_publish_bp; gpud's proofs equal bellperson's, and
#      zkslot_result hands out the first as its hex digits; an assignment
#      with an aux value equal to r is refused, nothing published;
#   6. gpud's CUDA backend (the gpud built against the emulated device,
#      tests/cuemu): a partition proved by zk_cuda_bp_prove, the same bytes
#      as bellperson's.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
target=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target}
oracle=$target/release/zkslot-bp-oracle
cache=${ZK_BP_CACHE:-/var/cache/zkslot/bp-params}
if [ ! -x "$oracle" ] || [ ! -s "$cache/chain-16-seed7.params" ] || [ ! -s "$cache/chain-16-seed7.vk" ]; then
  echo "SKIP: needs $oracle (tools/cargo-build.sh) and $cache/chain-16-seed7.{params,vk} (bellperson_test_oracle makes them)"
  exit 77
fi
pl_init_bare bp_pool
mkdir -p "$PL_W/keys"

r=$(python3 -c 'import secrets; print(secrets.randbelow(0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001).to_bytes(32, "little").hex())')
s=$(python3 -c 'import secrets; print(secrets.randbelow(0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001).to_bytes(32, "little").hex())')
export ZKSLOT_TEST_BP_RS="$r:$s"
key=$PL_W/keys/c16.params
cp "$cache/chain-16-seed7.params" "$key"
vk=$cache/chain-16-seed7.vk
for w in 5 6 7; do
  "$oracle" assign --circuit chain --log2 16 --witness "$w" --out "$PL_W/a$w.bpa" 2>/dev/null
  "$oracle" prove --circuit chain --log2 16 --witness "$w" --params "$key" --r "$r" --s "$s" \
    --out "$PL_W/bell$w.proof" 2>/dev/null
done

pl_log "1. key add, a job of two assignments"
pl_pool 2 12M
"$ZKSLOT" key add c16 "$key" --vk "$vk" >"$PL_W/keyadd.out" || pl_bad "key add: $(cat "$PL_W/keyadd.out")"
grep -q "decoded points stored in $ZKSLOT_POOL.key-" "$PL_W/keyadd.out" || pl_bad "key add made no store: $(cat "$PL_W/keyadd.out")"
pl_start_synthd
pl_start_gpud
pl_wait_log gpud "$PL_GPUD" "key c16: ready .*from its store .*the parameter file not read" 60 || true
job=$("$ZKSLOT" submit --key c16 --bpa "$PL_W/a5.bpa" "$PL_W/a6.bpa")
pl_wait "$job" 120
"$ZKSLOT" result "$job" --out "$PL_W/all.bin" >/dev/null || pl_bad "result --out all.bin: exit $?"
cat "$PL_W/bell5.proof" "$PL_W/bell6.proof" >"$PL_W/bell56.bin"
if cmp -s "$PL_W/all.bin" "$PL_W/bell56.bin"; then
  echo "ok: zkslot result --out: both partitions' proofs = bellperson's create_proof for the same r, s, concatenated in order ($(stat -c %s "$PL_W/all.bin") bytes)"
else
  pl_bad "result all.bin ($(stat -c %s "$PL_W/all.bin" 2>/dev/null) bytes) differs from bellperson's proofs"
fi
out_dir=$("$ZKSLOT" status "$job" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["out_dir"])')
for i in 0 1; do
  w=$((5 + i))
  pf=$out_dir/$i/proof.bin
  "$oracle" verify --circuit chain --log2 16 --witness "$w" --vk "$vk" --proof "$pf" >/dev/null ||
    pl_bad "partition $i: bellperson's verify_proof rejects $pf"
  [ "$("$ZKSLOT" bp verify "$vk" "$PL_W/a$w.bpa" "$pf")" = OK ] || pl_bad "partition $i: zkslot bp verify rejects $pf"
  [ -s "$out_dir/$i/public.json" ] || pl_bad "partition $i: no public.json"
done
echo "ok: bellperson's verify_proof and zkslot bp verify accept $out_dir/{0,1}/proof.bin"
listed=$("$ZKSLOT" result "$job") || pl_bad "zkslot result $job: exit $?"
[ "$listed" = "$(printf '%s\n' "$out_dir/0/proof.bin $out_dir/0/public.json" "$out_dir/1/proof.bin $out_dir/1/public.json")" ] ||
  pl_bad "zkslot result $job lists: $listed"

pl_log "2. gpud killed -9, the parameter file moved away, gpud started again"
kill -9 "$PL_GPUD"
wait "$PL_GPUD" 2>/dev/null || true
job2=$("$ZKSLOT" submit --key c16 --bpa "$PL_W/a7.bpa")
mv "$key" "$PL_W/keys/moved-away.params"
pl_start_gpud
pl_wait_log gpud "$PL_GPUD" "key c16: ready .*from its store .*the parameter file not read" 60 || true
pl_wait "$job2" 120
"$ZKSLOT" result "$job2" --out "$PL_W/job2.bin" >/dev/null || pl_bad "result job2: exit $?"
if cmp -s "$PL_W/job2.bin" "$PL_W/bell7.proof" &&
   "$oracle" verify --circuit chain --log2 16 --witness 7 --vk "$vk" --proof "$PL_W/job2.bin" >/dev/null; then
  echo "ok: the restarted gpud proved from the store with $key gone: bellperson's proof, verify_proof accepts it"
else
  pl_bad "job $job2 after the restart: proof differs from bellperson's or does not verify"
fi
mv "$PL_W/keys/moved-away.params" "$key"

pl_log "3. refusals at submit"
"$oracle" assign --circuit chain --log2 10 --witness 3 --out "$PL_W/c10.bpa" 2>/dev/null
refuse() {   # refuse WHAT NEEDLE ARGS...
  local what=$1 needle=$2 rc=0 err n0
  shift 2
  n0=$("$ZKSLOT" status | wc -l)
  err=$("$ZKSLOT" submit "$@" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" = 2 ] && [[ $err == *"$needle"* ]] && [ "$("$ZKSLOT" status | wc -l)" = "$n0" ]; then
    echo "ok: $what: exit 2, nothing submitted: ${err%%$'\n'*}"
  else
    pl_bad "$what: exit $rc: $err"
  fi
}
refuse "an assignment of another circuit" "c10.bpa" --key c16 --bpa "$PL_W/c10.bpa"
refuse "a bellperson key's job without --bpa" "--bpa" --key c16 "$PL_W/a5.bpa"
cp "$PL_W/a5.bpa" "$PL_W/short.bpa" && truncate -s 1000 "$PL_W/short.bpa"
refuse "a truncated .bpa" "short.bpa" --key c16 --bpa "$PL_W/short.bpa"

pl_log "3b. an assignment that does not satisfy the circuit"
python3 - "$PL_W/a5.bpa" "$PL_W/unsat.bpa" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
ni = struct.unpack("<Q", b[16:24])[0]
off = 40 + 32 * ni + 32 * 3          # aux value 3
b[off:off + 32] = (12345).to_bytes(32, "little")
open(sys.argv[2], "wb").write(b)
PY
jobu=$("$ZKSLOT" submit --key c16 --bpa "$PL_W/unsat.bpa")
rc=0; "$ZKSLOT" wait "$jobu" --timeout 120 >/dev/null 2>"$PL_W/unsat.err" || rc=$?
udir=$("$ZKSLOT" status "$jobu" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["out_dir"])')
if [ "$rc" = 1 ] && grep -q "self-verify: rejected the proof" "$PL_W/unsat.err" && [ ! -e "$udir/0/proof.bin" ]; then
  echo "ok: an unsatisfied assignment: gpud's self-verify rejects the proof, job failed, no proof.bin: $(head -n 1 "$PL_W/unsat.err")"
else
  pl_bad "unsatisfied assignment: wait exit $rc: $(cat "$PL_W/unsat.err"); $(ls "$udir/0" 2>&1)"
fi

pl_log "4. the result check"
db=$PL_W/state/ledger.db
pid=$(python3 - "$db" "$job" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
pid, proof = c.execute("SELECT id, proof_json FROM partitions WHERE job_id = ? AND idx = 0", (int(sys.argv[2]),)).fetchone()
b = bytearray(bytes.fromhex(bytes(proof).decode().strip()))
b[100] ^= 4
c.execute("UPDATE partitions SET proof_json = ? WHERE id = ?", ((b.hex() + "\n").encode(), pid))
c.commit()
print(pid)
PY
)
rc=0; err=$("$ZKSLOT" result "$job" --out "$PL_W/bad.bin" 2>&1 >/dev/null) || rc=$?
if [ "$rc" = 1 ] && [[ $err == *"does not verify"* ]] && [ ! -e "$PL_W/bad.bin" ]; then
  echo "ok: a flipped bit in the ledger's proof: zkslot result refuses it, nothing written: ${err%%$'\n'*}"
else
  pl_bad "result of a flipped proof (partition $pid): exit $rc, $(ls "$PL_W"/bad.bin 2>/dev/null): $err"
fi

pl_log "5. libzkslot's producer face: zkslot_part_publish_bp"
pl_stop "$PL_SYNTHD"   # the producer's partitions are its own
job3=$("$ZK_BP_PRODUCER" c16 "$PL_W/a6.bpa" "$PL_W/a5.bpa" 2>"$PL_W/producer.err") ||
  pl_bad "bp_producer: exit $?: $(cat "$PL_W/producer.err")"
pl_wait "$job3" 120
"$ZKSLOT" result "$job3" --out "$PL_W/job3.bin" >/dev/null || pl_bad "result job3: exit $?"
cat "$PL_W/bell6.proof" "$PL_W/bell5.proof" >"$PL_W/bell65.bin"
if cmp -s "$PL_W/job3.bin" "$PL_W/bell65.bin"; then
  echo "ok: two partitions published through zkslot_part_publish_bp: gpud's proofs = bellperson's"
else
  pl_bad "job $job3 (producer): proofs differ from bellperson's"
fi
hex=$("$ZK_BP_PRODUCER" --result "$job3" 0) || pl_bad "zkslot_result of job $job3: exit $?"
[ "$hex" = "$(od -An -v -tx1 "$PL_W/bell6.proof" | tr -d ' \n')" ] ||
  pl_bad "zkslot_result of job $job3 partition 0: '$hex' is not bellperson's proof"
# the flipped proof of job $job (section 4) is refused by the library too
rc=0; "$ZK_BP_PRODUCER" --result "$job" 0 >/dev/null 2>"$PL_W/lib-result.err" || rc=$?
if [ "$rc" = 1 ] && grep -q "does not verify" "$PL_W/lib-result.err"; then
  echo "ok: zkslot_result: job $job3's proof handed out as bellperson's hex; job $job's flipped one refused"
else
  pl_bad "zkslot_result of the flipped proof: exit $rc: $(cat "$PL_W/lib-result.err")"
fi
rc=0; job4=$("$ZK_BP_PRODUCER" c16 --bad "$PL_W/a5.bpa" 2>"$PL_W/producer-bad.err") || rc=$?
if [ "$rc" = 0 ] && grep -q "aux value 0 is not below r" "$PL_W/producer-bad.err" &&
   grep -q "^    0 queued" <<<"$("$ZKSLOT" status "$job4")"; then
  echo "ok: an aux value equal to r: refused, nothing published, the partition queued again: $(grep -m1 'not below' "$PL_W/producer-bad.err")"
else
  pl_bad "producer --bad: exit $rc: $(cat "$PL_W/producer-bad.err"); $("$ZKSLOT" status "$job4" 2>&1 | tail -n 1)"
fi
"$ZKSLOT" cancel "$job4" >/dev/null 2>&1 || true

pl_log "6. the CUDA backend (emulated device)"
if [ -x "${ZKSLOT_GPUD_EMU:-}" ]; then
  pl_stop "$PL_GPUD"
  CUEMU_STRICT=1 ZKSLOT_GPUD=$ZKSLOT_GPUD_EMU pl_start_gpud --backend cuda
  pl_start_synthd
  job5=$("$ZKSLOT" submit --key c16 --bpa "$PL_W/a5.bpa")
  pl_wait "$job5" 120
  "$ZKSLOT" result "$job5" --out "$PL_W/job5.bin" >/dev/null || pl_bad "result job5: exit $?"
  if cmp -s "$PL_W/job5.bin" "$PL_W/bell5.proof" &&
     grep -q "backend cuda," "$PL_W/gpud.log" &&
     grep -q "bellperson proof in .*zk_cuda_bp_prove, device" "$PL_W/gpud.log"; then
    echo "ok: gpud --backend cuda (emulated device): zk_cuda_bp_prove's proof = bellperson's"
  else
    pl_bad "cuda backend: proof differs from bellperson's, or not proved by zk_cuda_bp_prove: $(grep -E 'backend|bellperson proof' "$PL_W/gpud.log" | tail -n 3)"
  fi
else
  echo "note: no emulated gpud (ZKSLOT_GPUD_EMU): the CUDA backend's path not run"
fi
pl_done
