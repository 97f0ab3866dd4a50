#!/usr/bin/env bash
# test_fil_kill.sh BUILD_DIR -- random kill -9 of the Filecoin synthesizer's
# daemon (zkslot-synthd, with the generator it runs) and of zkslot-gpud
# during a stream of WinningPoSt and WindowPoSt jobs (`submit --filecoin`):
#   - ZK_FIL_KILLS kills (default 12), 0.5-3 s apart (random, $SRANDOM),
#     each of synthd or gpud (at least a third of each); the killed daemon
#     is restarted at once; before each kill both must still run (one that
#     exited by itself fails the test);
#   - whenever fewer than two jobs are running another is submitted (kinds
#     in turn, 10 jobs in all), so the kills land on daemons at work;
#   - at the end every job is done and its proof (`zkslot result --out`) is
#     accepted by filecoin-proofs' verify_winning_post / verify_window_post;
#     no generator of a killed synthd is left running; `pool check` is
#     clean; both daemons stop with status 0 on SIGTERM.
#   - a PoRep C2 job and a SnapDeals job are submitted first, so that
#     their partitions (tens of seconds each) are in synthesis or on the
#     prover while the kills land; each is done after the kills and its
#     proof accepted by verify_seal / verify_empty_sector_update_proof.
#     A sanitizer build leaves them out (its PoRep proof takes minutes).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/filecoin/fil_daemons.sh"
long=(porep snap)
[ -z "${ZK_SANITIZE:-}" ] || long=()
fil_daemons_init fil_kill 31 "$(IFS=,; echo "winning,window${long[*]:+,${long[*]}}")"
kills=${ZK_FIL_KILLS:-12}
njobs=$((10 + ${#long[@]}))
declare -A input=([winning]=$PL_W/in/winning.json [window]=$PL_W/in/window.json
                  [porep]=$PL_W/in/porep-c1.json [snap]=$PL_W/in/snap.json)

# a WinningPoSt partition (2^17 rows) needs about 16 MiB, a PoRep one
# (2^22 rows) about 350 MiB (tmpfs: only what is written takes memory)
if [ ${#long[@]} -gt 0 ]; then pl_pool 3 512M; else pl_pool 3 24M; fi
"$ZKSLOT" key add --filecoin "$cache" --synth "$PL_W/gen/zkslot-fil-synth" >"$PL_W/keyadd.out" 2>&1 ||
  { pl_bad "key add --filecoin: $(tail -n 3 "$PL_W/keyadd.out")"; exit 1; }
start_synthd() { pl_start_synthd --workers 2; }
start_gpud() { pl_start_gpud --threads 2; }
start_synthd
start_gpud

jobs=() kinds=() kindlist=(winning window) next=0
submit_one() {
  local k=${kindlist[$((next % 2))]} j
  next=$((next + 1))
  j=$("$ZKSLOT" submit --filecoin "$k" "${input[$k]}") || { pl_bad "submit --filecoin $k"; return 1; }
  jobs+=("$j") kinds+=("$k")
}
# the PoSt jobs not yet ended (the long ones run beside them)
running() { "$ZKSLOT" status 2>/dev/null | awk '$2 ~ /^fil-(winning|window)-/ && ($3 == "running" || $3 == "queued")' | wc -l; }

# the pids of the generators a synthd started (ZKSLOT_WITGEN_OWNER names it)
generators_of() {
  local p
  for p in /proc/[0-9]*; do
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -q "^ZKSLOT_WITGEN_OWNER=synthd:.*:$1:" &&
      echo "${p#/proc/}"
  done
  return 0
}

n_synthd=0 n_gpud=0 dead_synthds=()
pl_log "stream of $njobs jobs (${long[*]:+${long[*]} first, then }WinningPoSt and WindowPoSt), $kills kills"
for k in "${long[@]}"; do
  j=$("$ZKSLOT" submit --filecoin "$k" "${input[$k]}") || { pl_bad "submit --filecoin $k"; exit 1; }
  jobs+=("$j") kinds+=("$k")
done
submit_one
for ((i = 0; i < kills; i++)); do
  sleep "$(awk -v r="$SRANDOM" 'BEGIN { printf "%.2f", 0.5 + (r % 2500) / 1000 }')"
  for who in synthd gpud; do
    pid=$([ $who = synthd ] && echo "$PL_SYNTHD" || echo "$PL_GPUD")
    kill -0 "$pid" 2>/dev/null || { pl_bad "$who (pid $pid) exited by itself before kill $i"; exit 1; }
  done
  # at least a third of each
  left=$((kills - i)) who=$(( SRANDOM % 2 ))
  [ $((n_synthd + left)) -gt $((kills / 3)) ] || who=0
  [ $((n_gpud + left)) -gt $((kills / 3)) ] || who=1
  if [ $who = 0 ]; then
    kill -9 "$PL_SYNTHD"; wait "$PL_SYNTHD" 2>/dev/null || true
    dead_synthds+=("$PL_SYNTHD")
    n_synthd=$((n_synthd + 1)); start_synthd
  else
    kill -9 "$PL_GPUD"; wait "$PL_GPUD" 2>/dev/null || true
    n_gpud=$((n_gpud + 1)); start_gpud
  fi
  while [ ${#jobs[@]} -lt $njobs ] && [ "$(running)" -lt 2 ]; do submit_one || break; done
done
while [ ${#jobs[@]} -lt $njobs ]; do submit_one || break; done
echo "kills: synthd $n_synthd, gpud $n_gpud; jobs ${#jobs[@]}"

pl_log "every job done, every proof accepted by filecoin-proofs"
good=0
for idx in "${!jobs[@]}"; do
  j=${jobs[$idx]} k=${kinds[$idx]}
  pl_wait "$j" 600 || continue
  "$ZKSLOT" result "$j" --out "$PL_W/$j.proof" >/dev/null || { pl_bad "job $j: result --out: exit $?"; continue; }
  if "$fs" verify --kind "$k" --input "${input[$k]}" --proof "$PL_W/$j.proof" --cache "$cache" >"$PL_W/$j.verify" 2>&1; then
    good=$((good + 1))
  else
    pl_bad "job $j ($k): filecoin-proofs rejects its proof: $(tail -n 1 "$PL_W/$j.verify")"
  fi
done
echo "ok: $good of ${#jobs[@]} jobs' proofs accepted by filecoin-proofs after $kills kills (kinds: $(printf '%s\n' "${kinds[@]}" | sort | uniq -c | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }'))"
# how often the kills caught the long jobs' partitions (measured, not asserted:
# the kills are random)
for idx in "${!jobs[@]}"; do
  case ${kinds[$idx]} in porep|snap) ;; *) continue ;; esac
  echo "${kinds[$idx]} job ${jobs[$idx]}: attempts per partition $("$ZKSLOT" status "${jobs[$idx]}" --json |
    python3 -c 'import json,sys; print(" ".join(str(p["attempts"]) for p in json.load(sys.stdin)["partitions"]))')"
done
grep -c "attempt" "$PL_W/synthd.log" >/dev/null || true

pl_log "nothing of the killed synthds left; the pool clean; clean stops"
sleep 1
for p in "${dead_synthds[@]}"; do
  left=$(generators_of "$p")
  [ -z "$left" ] || pl_bad "generators of killed synthd $p still running: $left"
done
pl_pool_clean && echo "ok: pool check clean"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd SIGTERM: exit $PL_RC"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud SIGTERM: exit $PL_RC"
echo "ok: both daemons stopped with status 0"
pl_done
