#!/usr/bin/env bash
# test_fil_pool.sh BUILD_DIR -- Filecoin proofs through the pool, the
# daemons running (zkslot-synthd, zkslot-gpud on the CPU backend), checked
# by filecoin-proofs' own verifier (zkslot-fil-synth verify):
#   1. `zkslot key add --filecoin CACHE --synth PROG` as user nobody is
#      refused, nothing registered; as root it registers each circuit
#      of the 2 KiB parameter cache as fil-KIND-2KiB, a bellperson key whose
#      generator is the synthesizer (allowed by this machine's [synthd]
#      generators), its class by kind (WinningPoSt critical, WindowPoSt
#      high, PoRep and SnapDeals normal);
#   2. `zkslot submit --filecoin KIND FILE` for WinningPoSt, WindowPoSt over
#      5 sectors (3 partitions), and (release builds) PoRep C2 from a C1
#      file and SnapDeals: each partition synthesized by the generator in
#      synthd while it holds its slot, proved by gpud; `zkslot result JOB
#      --out proof.bin` is accepted by verify_winning_post,
#      verify_window_post, verify_seal, verify_empty_sector_update_proof;
#   2b. (release) a WinningPoSt submitted while a PoRep partition is on the
#      prover is started between the PoRep proof's steps (gpud's log), done
#      while the PoRep job still runs, both proofs accepted; the latencies
#      are printed, not asserted;
#   3. a truncated C1 file, a wrong kind for the file, a PoSt input with
#      another sector's vanilla proof: exit 2 with one line naming the
#      input, nothing queued;
#   4. a WinningPoSt part sent to the WindowPoSt key (--key): the key's
#      generator refuses a part of another kind, the job fails with that
#      line, no proof;
#   5. the pool is clean at the end.
# A sanitizer build proves WinningPoSt and WindowPoSt only (PoRep and
# SnapDeals there would take most of an hour); it says so.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/filecoin/fil_daemons.sh"

kinds="winning window porep snap"
if [ -n "${ZK_SANITIZE:-}" ]; then
  kinds="winning window"
  echo "note: a sanitizer build: WinningPoSt and WindowPoSt only (the release suite proves PoRep and SnapDeals)"
fi

pl_log "0. parameters (cached), sectors, the synthesizer installed as an allowed generator"
t=$(date +%s)
fil_daemons_init fil_pool 23
declare -A input=([porep]=$PL_W/in/porep-c1.json [winning]=$PL_W/in/winning.json
                  [window]=$PL_W/in/window.json [snap]=$PL_W/in/snap.json)
declare -A class=([porep]=normal [winning]=critical [window]=high [snap]=normal)
declare -A parts=([porep]=1 [winning]=1 [window]=3 [snap]=1)
echo "time: inputs: $(( $(date +%s) - t )) s"

pl_log "1. key add --filecoin"
# a PoRep partition at 2 KiB: 2^22 rows, a slot of 512 MiB holds it
pl_pool 2 512M
# another user may not register keys whose generator the daemons run
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  rc=0
  setpriv --reuid=65534 --regid=65534 --clear-groups "$ZKSLOT" key add --filecoin "$cache" \
    --synth "$PL_W/gen/zkslot-fil-synth" >"$PL_W/nobody.out" 2>&1 || rc=$?
  if [ "$rc" = 2 ] && ! "$ZKSLOT" key list 2>/dev/null | grep -q '^fil-'; then
    echo "ok: key add --filecoin as user nobody: exit 2, nothing registered: $(head -n 1 "$PL_W/nobody.out")"
  else
    pl_bad "key add --filecoin as nobody: exit $rc: $(tail -n 2 "$PL_W/nobody.out")"
  fi
fi
t=$(date +%s)
"$ZKSLOT" key add --filecoin "$cache" --synth "$PL_W/gen/zkslot-fil-synth" >"$PL_W/keyadd.out" 2>&1 ||
  pl_bad "key add --filecoin: $(tail -n 3 "$PL_W/keyadd.out")"
echo "time: key add --filecoin (4 keys decoded into their stores): $(( $(date +%s) - t )) s"
grep -q "filecoin: 4 keys registered, 0 there already, 0 refused" "$PL_W/keyadd.out" ||
  pl_bad "key add --filecoin: $(tail -n 1 "$PL_W/keyadd.out")"
for k in porep winning window snap; do
  "$ZKSLOT" key show "fil-$k-2KiB" >"$PL_W/key-$k.json" || { pl_bad "key fil-$k-2KiB not registered"; continue; }
  got=$(python3 -c 'import json, sys; k = json.load(open(sys.argv[1]))
k = k[0] if isinstance(k, list) else k
print(k["format"], k["priority"], k["witgen_kind"], "--expect" in k["witgen"])' "$PL_W/key-$k.json")
  [ "$got" = "bellperson ${class[$k]} cmd True" ] || pl_bad "key fil-$k-2KiB: format, class, generator: $got"
done
echo "ok: fil-{porep,winning,window,snap}-2KiB: bellperson keys, classes by kind, the synthesizer their generator"
# a second run registers nothing and says so
"$ZKSLOT" key add --filecoin "$cache" --synth "$PL_W/gen/zkslot-fil-synth" >"$PL_W/keyadd2.out" 2>&1 ||
  pl_bad "key add --filecoin again: $(tail -n 2 "$PL_W/keyadd2.out")"
grep -q "0 keys registered, 4 there already" "$PL_W/keyadd2.out" || pl_bad "key add --filecoin again: $(tail -n 1 "$PL_W/keyadd2.out")"

pl_start_synthd
pl_start_gpud

pl_log "2. jobs through the pool, verified by filecoin-proofs"
declare -A job
for k in $kinds; do
  job[$k]=$("$ZKSLOT" submit --filecoin "$k" "${input[$k]}") || { pl_bad "submit --filecoin $k"; continue; }
  echo "submitted $k: job ${job[$k]}"
done
for k in $kinds; do
  [ -n "${job[$k]:-}" ] || continue
  t=$(date +%s)
  pl_wait "${job[$k]}" 900 || continue
  pl_job_json "${job[$k]}" "$PL_W/$k.status.json" || continue
  n=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(len(j["partitions"]), j["priority"])' "$PL_W/$k.status.json")
  [ "$n" = "${parts[$k]} ${class[$k]}" ] || pl_bad "$k: partitions and class: $n, expected ${parts[$k]} ${class[$k]}"
  "$ZKSLOT" result "${job[$k]}" --out "$PL_W/$k.proof" >/dev/null || { pl_bad "$k: result --out: exit $?"; continue; }
  if "$fs" verify --kind "$k" --input "${input[$k]}" --proof "$PL_W/$k.proof" --cache "$cache" >"$PL_W/$k.verify" 2>&1; then
    echo "ok: $k: job ${job[$k]} (${parts[$k]} partition(s), class ${class[$k]}): $(stat -c %s "$PL_W/$k.proof")-byte proof accepted by filecoin-proofs ($(tail -n 1 "$PL_W/$k.verify"))"
  else
    pl_bad "$k: filecoin-proofs rejects job ${job[$k]}'s proof: $(tail -n 2 "$PL_W/$k.verify")"
  fi
  # one flipped bit: rejected by filecoin-proofs (the check can fail)
  cp "$PL_W/$k.proof" "$PL_W/$k.bad"
  printf '\x01' | dd of="$PL_W/$k.bad" bs=1 seek=40 conv=notrunc status=none
  if "$fs" verify --kind "$k" --input "${input[$k]}" --proof "$PL_W/$k.bad" --cache "$cache" >/dev/null 2>&1; then
    pl_bad "$k: a proof with a changed byte is accepted"
  fi
done
grep -E "synthesized|generator" "$PL_W/synthd.log" | tail -n 3 || true

if [[ " $kinds " == *" porep "* ]]; then
  pl_log "2b. a WinningPoSt behind a PoRep on the prover: started between the PoRep proof's steps"
  t0=$(date +%s.%N)
  idle=$("$ZKSLOT" submit --filecoin winning "${input[winning]}")
  pl_wait "$idle" 300
  t_idle=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  long=$("$ZKSLOT" submit --filecoin porep "${input[porep]}")
  for ((i = 0; i < 600; i++)); do   # until its partition is on the prover
    "$ZKSLOT" status "$long" --json | grep -q '"state": "proving"' && break
    sleep 0.1
  done
  sleep 1
  t0=$(date +%s.%N)
  urgent=$("$ZKSLOT" submit --filecoin winning "${input[winning]}")
  pl_wait "$urgent" 300
  t_urgent=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  long_state=$("$ZKSLOT" status "$long" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])')
  "$ZKSLOT" result "$urgent" --out "$PL_W/urgent.proof" >/dev/null &&
    "$fs" verify --kind winning --input "${input[winning]}" --proof "$PL_W/urgent.proof" --cache "$cache" >/dev/null 2>&1 ||
    pl_bad "the urgent WinningPoSt's proof is not accepted"
  if [ "$long_state" = running ] && grep -q "started between the steps of partition" "$PL_W/gpud.log"; then
    echo "ok: WinningPoSt job $urgent done (proof accepted) while PoRep job $long was still being proved: gpud started it between the PoRep proof's steps"
  else
    pl_bad "the WinningPoSt behind the PoRep: PoRep job $long is '$long_state' when it finished; gpud: $(grep -c 'started between' "$PL_W/gpud.log") nested start(s)"
  fi
  echo "latency (not asserted; tools/bench-c2.sh measures): WinningPoSt alone $t_idle s, behind a PoRep on the prover $t_urgent s"
  pl_wait "$long" 600
  "$ZKSLOT" result "$long" --out "$PL_W/long.proof" >/dev/null &&
    "$fs" verify --kind porep --input "${input[porep]}" --proof "$PL_W/long.proof" --cache "$cache" >/dev/null 2>&1 &&
    echo "ok: the PoRep it interrupted: proof accepted by verify_seal" ||
    pl_bad "the PoRep interrupted by the WinningPoSt: its proof is not accepted"
fi

pl_log "3. bad inputs: one line naming the input, nothing queued"
refuse() {   # refuse WHAT NEEDLE ARGS...
  local what=$1 needle=$2 rc=0 err n0
  shift 2
  n0=$("$ZKSLOT" status | wc -l)
  err=$("$ZKSLOT" submit "$@" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" = 2 ] && [[ $err == *"$needle"* ]] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
     [ "$("$ZKSLOT" status | wc -l)" = "$n0" ]; then
    echo "ok: $what: exit 2, nothing queued: $err"
  else
    pl_bad "$what: exit $rc: $err"
  fi
}
head -c 3000 "${input[porep]}" >"$PL_W/short-c1.json"
refuse "a truncated C1 file" "short-c1.json" --filecoin porep "$PL_W/short-c1.json"
refuse "a PoSt input as a C1 file" "winning.json" --filecoin porep "${input[winning]}"
refuse "an unknown kind" "--filecoin 'seal'" --filecoin seal "${input[porep]}"
# another sector's vanilla proof: the WindowPoSt input's first two proofs swapped
jq '.vanilla_proofs |= ([.[1], .[0]] + .[2:])' "${input[window]}" >"$PL_W/swapped.json"
refuse "a vanilla proof of another sector" "swapped.json" --filecoin window "$PL_W/swapped.json"

pl_log "4. a part of another kind: the key's generator refuses it, the job fails"
bad=$("$ZKSLOT" submit --filecoin winning --key fil-window-2KiB "${input[winning]}")
rc=0; "$ZKSLOT" wait "$bad" --timeout 120 >/dev/null 2>"$PL_W/bad.err" || rc=$?
pl_job_json "$bad" "$PL_W/bad.json"
st=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["state"]); print(j.get("error") or [p.get("error") for p in j["partitions"]])' "$PL_W/bad.json")
if [ "$rc" != 0 ] && [[ $st == failed* ]] && [[ $st == *"this key proves"* ]] &&
   ! "$ZKSLOT" result "$bad" --out "$PL_W/bad.proof" >/dev/null 2>&1; then
  echo "ok: a WinningPoSt part for the WindowPoSt key: job $bad failed, no proof: $(printf '%s' "$st" | tail -n 1 | cut -c1-200)"
else
  pl_bad "a part of another kind: wait exit $rc, status: $st"
fi

pl_log "5. the pool"
pl_pool_clean && echo "ok: pool check clean"
pl_done
