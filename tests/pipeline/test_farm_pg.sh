#!/usr/bin/env bash
# test_farm_pg.sh -- a farm of three machines on one PostgreSQL ledger under
# chaos (issue 16): machines a, b and c on this host, each with its own pool,
# state directory, configuration and name (a by --machine, b by
# $ZKSLOT_MACHINE, c by [zkslot] machine), one synthd and one gpud each,
# [ledger] lease = 3 s.  A fourth configuration, the client, has no pool at
# all: it registers a BN254 and a BLS12-381 key (Chain(600), a domain of
# 2^10) and submits 4 jobs of 6 partitions, two per key.
#
# While they run: random kill -9 of single daemons (each restarted at once;
# one that exits by itself fails the test), and one machine, chosen at
# random, killed whole (synthd and gpud, kill -9) while it holds partitions,
# and never restarted.  Fills are held 1 s and written proofs 0.3 s before
# they are recorded, so the kills land mid-fill and between a proof written
# and recorded too.  Then:
#   - the dead machine's partitions go back to the queue within lease + 3 s
#     of the kill (the ledger polled), and every job is done within lease +
#     the proving time of what was left (at the rate the farm proved at
#     before the kill, on the two machines left) + 5 s;
#   - every partition is done once (`zkslot status JOB --json`: state done,
#     proofs >= 1; no more second proofs than gpuds killed, unless a
#     machine logged the loss of its lease), each survivor proved some, a
#     surviving daemon logged expiring the dead one's lease, and the
#     machines table names exactly a, b and c;
#   - every proof proves its own witness and is accepted by snarkjs and
#     `zkslot verify` (pl_check_job, run as the client);
#   - `zkslot result JOB --out DIR` on the client writes DIR/<index>/
#     proof.json and public.json of every partition from the ledger: the
#     public signals gpud wrote, proofs snarkjs accepts;
#   - the surviving daemons stop with status 0 on SIGTERM and their pools
#     are clean; the client's pool never existed and no SQLite ledger was
#     made anywhere.
# Randomness from $SRANDOM (the victim and every daemon started are
# printed).  Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init farm_pg || exit 77
pl_pg_init

LEASE=3
FILL_MS=1000   # each fill held 1 s: the work spans the kills (a proof takes ~0.1 s)
HOLD_MS=300    # each proof written 0.3 s before it is recorded: a kill lands there too
MACHINES=(a b c)
for m in "${MACHINES[@]}"; do
    pl_pg_machine "$m" 2 || exit 1
    printf '[ledger]\nlease = %d\n' "$LEASE" >"$PL_W/$m.conf"
done
printf '[zkslot]\nmachine = c\n' >>"$PL_W/c.conf"

# the client: everything from its configuration file, no pool, no daemon
mkdir -p "$PL_W/client"
CLIENT_POOL=$PL_W/client/no.pool
printf '[zkslot]\nstate_dir = %s\n[ledger]\nurl = %s\n[pool]\npath = %s\n' \
    "$PL_W/client" "$PL_PG_LEDGER" "$CLIENT_POOL" >"$PL_W/client.conf"
export ZKSLOT_CONFIG=$PL_W/client.conf ZKSLOT_POOL=$CLIENT_POOL
unset ZKSLOT_LEDGER ZKSLOT_STATE_DIR ZKSLOT_MACHINE

declare -A KEY VK WTNS PID MPIDS
for c in bn128 bls12381; do
    pl_circuit "$c" 600 6 || { pl_bad "circuit $c"; exit 1; }
    KEY[$c]=$PL_KEYNAME VK[$c]=$PL_VK WTNS[$c]="${PL_WTNS[*]}"
done

# start ROLE MACHINE: that machine's synthd or gpud, its pid in PID[ROLE-MACHINE]
start() {
    local role=$1 m=$2 args=()
    [ "$m" != a ] || args=(--machine a)
    if [ "$role" = synthd ]; then args+=(--workers 1); else args+=(--threads 1); fi
    if [ "$m" = b ]; then
        ZKSLOT_MACHINE=b pl_pg_on b "pl_start_$role" "${args[@]}"
    else
        pl_pg_on "$m" "pl_start_$role" "${args[@]}"
    fi
    if [ "$role" = synthd ]; then PID[$role-$m]=$PL_SYNTHD; else PID[$role-$m]=$PL_GPUD; fi
    MPIDS[$m]+="${PID[$role-$m]}|"
    echo "machine $m: $role pid ${PID[$role-$m]}"
}
# alive ROLE MACHINE: 0 while it runs; one that exited by itself is a failure
alive() {
    local p=${PID[$1-$2]} rc=0
    kill -0 "$p" 2>/dev/null && return 0
    wait "$p" 2>/dev/null || rc=$?
    pl_bad "machine $2: $1 (pid $p) exited by itself, status $rc: $(grep "$1\[$p\]" "$PL_W/$1.log" | tail -n 2 | tr '\n' ' ')"
    return 1
}
export ZKSLOT_TEST_FILL_DELAY_MS=$FILL_MS ZKSLOT_TEST_RECORD_HOLD_MS=$HOLD_MS   # daemons' hooks
for m in "${MACHINES[@]}"; do start synthd "$m"; start gpud "$m"; done

# 4 jobs, 2 per key; the second of each key in another order (a partition
# written into the wrong job's directory fails pl_check_job)
jobs=() jobcurve=()
t0=$(date +%s%N)
for c in bn128 bls12381 bn128 bls12381; do
    # shellcheck disable=SC2206
    w=(${WTNS[$c]})
    [ "${#jobs[@]}" -lt 2 ] || w=("${w[@]:3}" "${w[@]:0:3}")
    PL_KEYNAME=${KEY[$c]}
    j=$("$ZKSLOT" submit --key "$PL_KEYNAME" --out "$PL_W/out/$((${#jobs[@]} + 1))" "${w[@]}")
    pl_expect "$j" "${w[@]}"
    jobs+=("$j") jobcurve+=("$c")
done
NPARTS=24
echo "client submitted jobs ${jobs[*]} (${jobcurve[*]})"

q() { pg_psql zk "$1"; }
ndone() { q "SELECT count(*) FROM partitions WHERE state = 'done'"; }
held() { q "SELECT count(*) FROM partitions WHERE machine = '$1' AND state IN ('synthesizing', 'ready', 'proving')"; }
pause() { local ms=$((300 + SRANDOM % 601)); sleep "0.$(printf '%03d' "$ms")"; }   # 0.3-0.9 s

# kill_one MACHINE...: kill -9 a random daemon of one of these machines, restart it
kills=0 gpud_kills=0
kill_one() {
    local ms=("$@") m role
    m=${ms[$((SRANDOM % ${#ms[@]}))]}
    role=synthd; [ $((SRANDOM % 2)) = 0 ] || role=gpud
    alive synthd "$m" || start synthd "$m"
    alive gpud "$m" || start gpud "$m"
    kill -9 "${PID[$role-$m]}" 2>/dev/null || true; wait "${PID[$role-$m]}" 2>/dev/null || true
    kills=$((kills + 1))
    [ "$role" = synthd ] || gpud_kills=$((gpud_kills + 1))
    start "$role" "$m"
}

# phase 1: kills on all three machines, until a third of the work is done
victim=${MACHINES[$((SRANDOM % 3))]}
survivors=()
for m in "${MACHINES[@]}"; do [ "$m" = "$victim" ] || survivors+=("$m"); done
for ((i = 0; i < 200; i++)); do
    [ "$(ndone)" -lt $((NPARTS / 3)) ] || [ "$kills" -lt 3 ] || break
    pause
    kill_one "${MACHINES[@]}"
done
# the victim must hold work when it dies (a slot filling, ready or
# proving): two partitions if it comes to that within 10 s, else one
for ((i = 0; i < 100; i++)); do
    [ "$(held "$victim")" -lt 2 ] || break
    sleep 0.1
done
nheld=$(held "$victim")
[ "$nheld" -ge 1 ] || pl_bad "machine $victim held no partition for 10 s"
hstates=$(q "SELECT string_agg(state, ',' ORDER BY id) FROM partitions WHERE machine = '$victim'
             AND state IN ('synthesizing', 'ready', 'proving')")
alive synthd "$victim" || true
alive gpud "$victim" || true
kill -9 "${PID[synthd-$victim]}" "${PID[gpud-$victim]}" 2>/dev/null || true
tk=$(date +%s%N)
gpud_kills=$((gpud_kills + 1))
wait "${PID[synthd-$victim]}" "${PID[gpud-$victim]}" 2>/dev/null || true
done_at_kill=$(ndone)
pl_log "machine $victim killed whole (never restarted) holding $nheld partition(s) ($hstates);" \
    "$done_at_kill of $NPARTS done after $(( (tk - t0) / 1000000 )) ms, $kills single kills"

# phase 2: kills on the survivors while the rest is proved; the ledger
# polled for the moment the victim's partitions are back in the queue
requeued_ns=0 left=1 t2=$(( $(date +%s) + 240 ))
while [ "$left" != 0 ] && [ "$(date +%s)" -lt "$t2" ]; do
    for ((i = 0; i < 4; i++)); do
        sleep 0.2
        if [ "$requeued_ns" = 0 ] && [ "$(held "$victim")" = 0 ]; then requeued_ns=$(date +%s%N); fi
    done
    left=$((NPARTS - $(ndone)))
    [ "$left" = 0 ] || [ "$kills" -ge 12 ] || kill_one "${survivors[@]}"
done
echo "$kills single kills in all"
[ "$requeued_ns" != 0 ] || pl_bad "machine $victim's partitions never went back to the queue"
req_ms=$(( (requeued_ns - tk) / 1000000 ))
[ "$requeued_ns" = 0 ] || [ "$req_ms" -le $(( (LEASE + 3) * 1000 )) ] ||
    pl_bad "machine $victim's partitions went back to the queue $req_ms ms after the kill (lease $LEASE s)"
pl_log "machine $victim's partitions back in the queue $req_ms ms after the kill"

# every job done, each partition once, within lease + proving time
for s in "${survivors[@]}"; do alive synthd "$s" || true; alive gpud "$s" || true; done
fin=0
for i in "${!jobs[@]}"; do
    j=${jobs[$i]}
    pl_wait "$j" 30 || continue
    pl_job_json "$j" "$PL_W/job$j.json" || continue
    python3 - "$PL_W/job$j.json" >"$PL_W/job$j.check" <<'PY' || { pl_bad "job $j: $(cat "$PL_W/job$j.check")"; continue; }
import json, sys
j = json.load(open(sys.argv[1]))
bad = ["partition %d: %s, %d proof(s)" % (p["index"], p["state"], p["proofs"])
       for p in j["partitions"] if p["state"] != "done" or p["proofs"] < 1]
if j["state"] != "done" or len(j["partitions"]) != 6 or bad:
    print("%s, %d partitions; %s" % (j["state"], len(j["partitions"]), "; ".join(bad)))
    sys.exit(1)
print(j["finished_ns"])
PY
    f=$(tail -n 1 "$PL_W/job$j.check")
    [ "$f" -le "$fin" ] || fin=$f
    PL_VK=${VK[${jobcurve[$i]}]}
    pl_check_job "$j" 6 && echo "job $j (${jobcurve[$i]}): 6 proofs accepted by snarkjs"
done
# `zkslot result JOB --out DIR` as the client (no pool, nothing proved
# there) writes DIR/<index>/proof.json and public.json of every partition
# from the ledger: each public.json is gpud's byte for byte (checked against
# its witness above), and snarkjs accepts every proof (one node per key)
declare -A FETCHED
for i in "${!jobs[@]}"; do
    j=${jobs[$i]} c=${jobcurve[$i]} d=$PL_W/client/results/${jobs[$i]}
    if ! "$ZKSLOT" result "$j" --out "$d" >"$PL_W/results.$j" 2>&1; then
        pl_bad "job $j: zkslot result --out as the client: $(head -n 2 "$PL_W/results.$j")"
        continue
    fi
    for ((k = 0; k < 6; k++)); do
        if [ ! -f "$d/$k/proof.json" ] || [ ! -f "$d/$k/public.json" ]; then
            pl_bad "job $j: zkslot result --out wrote no $d/$k/proof.json and public.json"
            continue
        fi
        cmp -s "$d/$k/public.json" "$PL_W/out/$((i + 1))/$k/public.json" ||
            pl_bad "job $j: $d/$k/public.json (from the ledger) differs from gpud's"
        FETCHED[$c]+=" $d/$k/public.json $d/$k/proof.json"
    done
done
for c in bn128 bls12381; do
    rc=0
    # shellcheck disable=SC2086   # paths without spaces ($PL_W)
    node "$ZK_SOURCE_DIR/tests/pipeline/verify_many.cjs" "${VK[$c]}" ${FETCHED[$c]:-} \
        >"$PL_W/fetched-$c.out" 2>&1 || rc=$?
    ok=$(grep -c '^ok ' "$PL_W/fetched-$c.out" || true)
    if [ "$rc" = 0 ] && [ "$ok" = 12 ]; then
        echo "$c: snarkjs accepts the 12 proofs zkslot result --out wrote on the client"
    else
        pl_bad "$c: snarkjs accepted $ok of 12 proofs from zkslot result --out (exit $rc): $(grep -v '^ok ' "$PL_W/fetched-$c.out" | head -n 3)"
    fi
done
# proving time of what was left: at the farm's rate before the kill (3
# machines, kills included), on the 2 machines left
if [ "$done_at_kill" -ge 1 ] && [ "$fin" != 0 ]; then
    left_at_kill=$((NPARTS - done_at_kill))
    prove_ms=$(( (tk - t0) / 1000000 * left_at_kill * 3 / 2 / done_at_kill ))
    took_ms=$(( (fin - tk) / 1000000 ))
    allowed_ms=$(( LEASE * 1000 + prove_ms + 5000 ))
    pl_log "the last job done $took_ms ms after the kill; allowed $allowed_ms" \
        "(lease $LEASE s + $prove_ms ms for $left_at_kill partitions + 5 s)"
    [ "$took_ms" -le "$allowed_ms" ] ||
        pl_bad "the jobs were done $took_ms ms after machine $victim's kill, more than $allowed_ms ms"
else
    pl_bad "no partition done before the kill ($done_at_kill), or no job finished"
fi

# the ledger: each partition done once.  A second proof is counted when a
# gpud finds proof.json already written (by a gpud killed before it
# recorded it: at most one per gpud killed) or finishes late after its
# machine lost its lease (a survivor stalled past it: logged)
read -r n ndone nproofs < <(q "SELECT count(*), count(*) FILTER (WHERE state = 'done'),
                                    sum(proofs) FROM partitions" | tr '|' ' ')
[ "$n" = "$NPARTS" ] && [ "$ndone" = "$NPARTS" ] || pl_bad "$ndone of $n partitions done, $NPARTS submitted"
if [ "$((nproofs - NPARTS))" -gt "$gpud_kills" ] && ! grep -q "lost its lease" "$PL_W/synthd.log" "$PL_W/gpud.log"; then
    pl_bad "$nproofs proofs for $NPARTS partitions: more duplicates than the $gpud_kills gpud(s) killed, and no machine lost its lease"
fi
pl_log "$NPARTS partitions done once, $((nproofs - NPARTS)) duplicate proof(s) counted"
names=$(q "SELECT string_agg(name, ',' ORDER BY name) FROM machines")
[ "$names" = a,b,c ] || pl_bad "machines in the ledger: '$names', not a,b,c"
for s in "${survivors[@]}"; do
    n=$(q "SELECT count(*) FROM partitions WHERE state = 'done' AND machine = '$s'")
    [ "$n" -ge 1 ] || pl_bad "machine $s proved no partition"
done
grep -qE "\[(${MPIDS[${survivors[0]}]}${MPIDS[${survivors[1]}]}0)\]: re-queued [1-9][0-9]* partition\(s\) of machine\(s\) whose lease expired" \
    "$PL_W/synthd.log" "$PL_W/gpud.log" || pl_bad "no surviving daemon logged expiring machine $victim's lease"

for s in "${survivors[@]}"; do
    for role in gpud synthd; do
        pl_stop "${PID[$role-$s]}"; [ "$PL_RC" = 0 ] || pl_bad "machine $s: $role exit $PL_RC after SIGTERM"
    done
    pl_pg_on "$s" pl_pool_clean || true
done
[ ! -e "$CLIENT_POOL" ] || pl_bad "the client's pool exists"
for d in client a b c; do
    [ ! -e "$PL_W/$d/ledger.db" ] || pl_bad "an SQLite ledger was made in $d's state directory"
done
pl_done
