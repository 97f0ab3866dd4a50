#!/usr/bin/env bash
# test_priority_pg.sh -- the claim order of docs/scheduling.md on a shared
# PostgreSQL ledger with two machines claiming at once (a and b on this
# host, each a pool of 2 slots, one synthd worker and one gpud thread).
# Eight one-partition jobs of every class, with and without deadlines, are
# submitted in shuffled order while no daemon runs; then both machines
# start together.  Each claimer always takes the first partition left in
# the order, so each machine's own sequence of syntheses (its log) and of
# proofs must follow the order, whatever the other one took between; every
# job is done once, and one job's proof is checked by snarkjs.  Also: 8
# clients racing one --request-id against the server create one job.
# Skips without PostgreSQL's binaries.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init priority_pg || exit 77
pl_pg_init

pl_circuit bn128 600 8 || exit 1
for m in a b; do pl_pg_machine "$m" 2 || exit 1; done
W=("${PL_WTNS[@]}")
declare -A RANK
sub() {   # sub NAME RANK CLASS [ARGS...]: a one-partition job, written to $PL_W/out/NAME
    local name=$1 rank=$2 c=$3 id
    shift 3
    id=$("$ZKSLOT" submit --key "$PL_KEYNAME" --priority "$c" --out "$PL_W/out/$name" "$@" "${W[$rank]}")
    pl_expect "$id" "${W[$rank]}"
    RANK[$id]=$rank
    echo "$id" >>"$PL_W/jobs.list"
}
mkdir -p "$PL_W/out"
# submitted in this order; the ranks are the documented claim order
sub low1 6 low
sub n1 5 normal
sub late 2 high --deadline 1h
sub crit 0 critical
sub n2 4 normal --deadline 30m
sub high2 3 high
sub soon 1 high --deadline 10m
sub low2 7 low

for m in a b; do
    pl_pg_on "$m" pl_start_synthd --machine "$m" --workers 1
    pl_pg_on "$m" pl_start_gpud --machine "$m" --threads 1
done
while read -r j; do pl_wait "$j" 120 || exit 1; done <"$PL_W/jobs.list"

# ranks in the order one machine's synthd logged them
ranks_of() {   # ranks_of MACHINE_PIDS_PATTERN REGEX
    grep -E "$1" "$PL_W/$2.log" | grep -oE "$3" | grep -oE 'job [0-9]+' | awk '{print $2}' |
        while read -r j; do echo "${RANK[$j]}"; done | xargs
}
total=0
for i in 0 1; do
    s=$(ranks_of "synthd\[${PL_SYNTHD_PIDS[$i]}\]" synthd '\(job [0-9]+ #0\) ready')
    g=$(ranks_of "gpud\[${PL_GPUD_PIDS[$i]}\]" gpud '\(job [0-9]+ #0\) proved')
    echo "machine $i: synthesized ranks $s, proved $g"
    total=$((total + $(wc -w <<<"$s")))
    [ "$(tr ' ' '\n' <<<"$s" | sort -n | xargs)" = "$s" ] || pl_bad "machine $i synthesized out of order: $s"
    [ "$(tr ' ' '\n' <<<"$g" | sort -n | xargs)" = "$g" ] || pl_bad "machine $i proved out of order: $g"
done
[ "$total" = 8 ] || pl_bad "$total syntheses logged, want 8"
crit=$(sed -n 4p "$PL_W/jobs.list")
pl_check_job "$crit" 1 || true

pl_log "request id: 8 clients racing on the server"
pids=()
for i in $(seq 8); do
    "$ZKSLOT" submit --key "$PL_KEYNAME" --request-id pg-race --out "$PL_W/out/race" "${W[0]}" >"$PL_W/race.$i" 2>"$PL_W/race-err.$i" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || pl_bad "a racing submit failed: $(cat "$PL_W"/race-err.* | head -n 3)"; done
ids=$(cat "$PL_W"/race.* | sort -u | xargs)
[ "$(wc -w <<<"$ids")" = 1 ] || pl_bad "racing submits printed: $ids"
n=$("$ZKSLOT" status --json | python3 -c 'import json,sys; print(sum(1 for j in json.load(sys.stdin)["jobs"] if j["request_id"] == "pg-race"))')
[ "$n" = 1 ] || pl_bad "$n jobs with request id pg-race"
pl_done
