#!/usr/bin/env bash
# test_priority.sh -- urgency under backpressure (docs/scheduling.md), with
# the real daemons on a 3-slot pool, one synthd worker, one gpud thread:
#
#   order     jobs of every class and deadline submitted in shuffled order
#             while no daemon runs; released, synthd synthesizes and gpud
#             proves them in the documented order (class, earliest
#             deadline, oldest), every proof checked by snarkjs;
#   reserve   [pool] reserve = 1: a pool full of low work leaves its last
#             slot FREE (a low partition never takes it, also after a
#             kill -9 of synthd); a critical job takes it at once and is
#             proved first when gpud starts;
#   deadline  a job that cannot start before its deadline fails with
#             "deadline exceeded" and holds no slot; --deadline that the
#             queue cannot meet is refused (exit 3, nothing queued) unless
#             --force; alike by libzkslot (ZKSLOT_EDEADLINE), by apid
#             (409 deadline_unmeetable) and `zkslot --server` (exit 3);
#   request   16 clients racing one --request-id get one job;
#   workers   [synthd] reserve_workers = 1 of 2: a low job with long fills
#             never has two partitions synthesizing, and a critical job
#             starts beside its fill at once;
#   errors    bad --priority / --deadline / reprioritize values: one line,
#             exit 2, nothing queued.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init priority || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
. "$ZK_SOURCE_DIR/tests/library/lib_python.sh"   # py_run

pl_pool 3 4M || exit 1
pl_circuit bn128 30000 8 || { pl_bad circuit; exit 1; }
W=("${PL_WTNS[@]}")
njobs() { "$ZKSLOT" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))'; }
# sub CLASS [ARGS...]: a one-partition job (witness $((next))); prints its id
next=0
sub() {
    local c=$1; shift
    local id
    id=$("$ZKSLOT" submit --key "$PL_KEYNAME" --priority "$c" "$@" "${W[$next]}") || return 1
    pl_expect "$id" "${W[$next]}"
    next=$(( (next + 1) % ${#W[@]} ))
    echo "$id"
}
ndone() { "$ZKSLOT" status "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["done"])'; }
# done_order JOB...: the jobs sorted by their partition's done time
done_order() {
    for j in "$@"; do
        "$ZKSLOT" status "$j" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["partitions"][0]["done_ns"], s["id"])'
    done | sort -n | awk '{print $2}' | xargs
}

pl_log "bad values: one line, exit 2, nothing queued"
for bad in "--priority urgent" "--deadline yesterday" "--deadline -5s" "--deadline 0s" \
           "--deadline 2020-01-01T00:00:00Z" "--request-id="; do
    rc=0; out=$("$ZKSLOT" submit --key "$PL_KEYNAME" $bad "${W[0]}" 2>&1) || rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] || pl_bad "submit $bad: rc $rc: $out"
done
rc=0; "$ZKSLOT" submit --key "$PL_KEYNAME" --force "${W[0]}" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || pl_bad "--force without --deadline: rc $rc"
out=$("$ZKSLOT" submit --key "$PL_KEYNAME" --priority urgent "${W[0]}" 2>&1) || true
grep -q "'urgent' is not low, normal, high or critical" <<<"$out" || pl_bad "no cause for --priority urgent: $out"
out=$("$ZKSLOT" submit --key "$PL_KEYNAME" --deadline yesterday "${W[0]}" 2>&1) || true
grep -q "'yesterday' is not a duration" <<<"$out" || pl_bad "no cause for --deadline yesterday: $out"
[ "$(njobs)" = 0 ] || pl_bad "a refused submit queued a job"

pl_log "order: shuffled submits while paused, released"
low=$(sub low); norm=$(sub normal); late=$(sub high --deadline 1h)
crit=$(sub critical); soon=$(sub high --deadline 10m); norm2=$(sub normal)
rep=$(sub low)
"$ZKSLOT" reprioritize "$rep" high 2>/dev/null || pl_bad "reprioritize $rep"
rc=0; "$ZKSLOT" reprioritize "$rep" urgent 2>/dev/null || rc=$?
[ "$rc" = 2 ] || pl_bad "reprioritize to 'urgent': rc $rc"
"$ZKSLOT" status "$soon" | grep -q "class: high, deadline .* from now" || pl_bad "status shows no class/deadline"
"$ZKSLOT" status --json | python3 -c '
import json,sys
j={x["id"]: x for x in json.load(sys.stdin)["jobs"]}
assert j['"$crit"']["priority"] == "critical" and j['"$low"']["priority"] == "low", j
assert j['"$soon"']["deadline_ns"] and j['"$norm"']["deadline_ns"] is None, j' || pl_bad "status --json classes"
"$ZKSLOT" metrics | python3 -c '
import sys
q = {l.split("\"")[1]: float(l.split()[-1]) for l in sys.stdin if l.startswith("zkslot_queue_partitions{")}
assert q == {"low": 1, "normal": 2, "high": 3, "critical": 1}, q' || pl_bad "zkslot_queue_partitions by class"
"$ZKSLOT" top --once | grep -q "class  queued/in flight:  critical 1/0  high 3/0  normal 2/0  low 1/0" ||
    pl_bad "top: no queue by class: $("$ZKSLOT" top --once | grep class)"
pl_start_synthd --workers 1
pl_start_gpud --threads 1
for j in $low $norm $late $crit $soon $norm2 $rep; do pl_wait "$j" 120 || exit 1; done
want="$crit $soon $late $rep $norm $norm2 $low"
got=$(done_order $low $norm $late $crit $soon $norm2 $rep)
[ "$got" = "$want" ] || pl_bad "proved in order $got, want $want"
# synthd's order (one worker: its 'ready' lines are its claims, in order)
sgot=$(grep -oE '\(job [0-9]+ #0\) ready' "$PL_W/synthd.log" | awk '{print $2}' | xargs)
[ "$sgot" = "$want" ] || pl_bad "synthesized in order $sgot, want $want"
for j in $crit $low; do pl_check_job "$j" 1 || true; done
"$ZKSLOT" reprioritize "$low" critical 2>/dev/null && pl_bad "reprioritize of a done job succeeded" || true

pl_log "request id: 16 clients racing"
for i in $(seq 16); do
    "$ZKSLOT" submit --key "$PL_KEYNAME" --request-id race-7 "${W[1]}" >"$PL_W/race.$i" 2>/dev/null &
done
wait_rc=0; for p in $(jobs -p); do [ "$p" = "$PL_SYNTHD" ] || [ "$p" = "$PL_GPUD" ] || wait "$p" || wait_rc=$?; done
[ "$wait_rc" = 0 ] || pl_bad "a racing submit failed"
ids=$(cat "$PL_W"/race.* | sort -u | xargs)
[ "$(wc -w <<<"$ids")" = 1 ] || pl_bad "16 racing submits printed ids: $ids"
n=$("$ZKSLOT" status --json | python3 -c 'import json,sys; print(sum(1 for j in json.load(sys.stdin)["jobs"] if j["request_id"] == "race-7"))')
[ "$n" = 1 ] || pl_bad "$n jobs with request id race-7"
pl_expect "$ids" "${W[1]}"
pl_wait "$ids" 60 || exit 1

pl_log "admission: a deadline the queue cannot meet"
before=$(njobs)
rc=0; out=$("$ZKSLOT" submit --key "$PL_KEYNAME" --deadline 100ms "${W[@]}" 2>&1) || rc=$?
[ "$rc" = 3 ] && grep -q "the deadline cannot be met" <<<"$out" || pl_bad "admission: rc $rc: $out"
cli_out=$out
[ "$(njobs)" = "$before" ] || pl_bad "a refused job was queued"
# libzkslot's zkslot_submit admits a deadline alike (submit_wait.py, ctypes)
rc=0; out=$(py_run "$ZK_SOURCE_DIR/examples/external-synth/submit_wait.py" --lib "$ZKSLOT_LIB" \
    --deadline 0.1 "$PL_KEYNAME" "${W[@]}" 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -q "the deadline cannot be met.*ZKSLOT_SUBMIT_FORCE" <<<"$out" ||
    pl_bad "libzkslot admission: rc $rc: $out"
[ "$(njobs)" = "$before" ] || pl_bad "a job refused by libzkslot was queued"
# and zkslot-apid's POST /v1/jobs (409, "force" a boolean), and the CLI
# through it.  A deadline 2 s ahead (whole seconds travel to apid: one
# that passes on the way would be refused as past) against a job sized
# from the estimate just printed to need about 6 s: refused on a fast
# machine and a slow one alike.
need=$(sed -n 's/.* about \([0-9.]*\) s needed.*/\1/p' <<<"$cli_out")
big=$(python3 -c 'import math,sys; print(min(400, max(8, math.ceil(6 * 8 / float(sys.argv[1])))))' "${need:-1}")
BIG=(); for i in $(seq 0 $((big - 1))); do BIG+=("${W[i % ${#W[@]}]}"); done
apid_start --max-body $((1 << 30)) || exit 1
post() {   # N FIELDS: a job of the first N of BIG with these fields
    local i sep=
    printf '{"key": "%s", "witnesses": [' "$PL_KEYNAME" >"$PL_W/body.json"
    for ((i = 0; i < $1; i++)); do printf '%s"' "$sep" >>"$PL_W/body.json"; base64 -w0 "${BIG[i]}" >>"$PL_W/body.json"; printf '"' >>"$PL_W/body.json"; sep=,; done
    printf '], %s}' "$2" >>"$PL_W/body.json"
    apid_req POST /v1/jobs -H 'Content-Type: application/json' --data-binary "@$PL_W/body.json"
}
st=$(post "$big" '"deadline": "2s"')
[ "$st" = 409 ] && [ "$(apid_code)" = deadline_unmeetable ] || pl_bad "apid admission ($big partitions, $need s for 8): $st $(head -c 300 "$PL_W/resp")"
st=$(post 1 '"deadline": "100s", "force": "yes"')
[ "$st" = 400 ] && [ "$(apid_code)" = bad_field ] || pl_bad "apid force \"yes\": $st $(head -c 300 "$PL_W/resp")"
rc=0; out=$(ZKSLOT_STATE_DIR="$PL_W/nowhere" "$ZKSLOT" --server "$APID_URL" submit --key "$PL_KEYNAME" \
    --deadline 2s "${BIG[@]}" 2>&1) || rc=$?
[ "$rc" = 3 ] && grep -q "the deadline cannot be met" <<<"$out" || pl_bad "zkslot --server admission ($big partitions): rc $rc: $out"
apid_stop
[ "$(njobs)" = "$before" ] || pl_bad "a job refused by apid was queued"
# forced in, a deadline 100 ms ahead fails the job at the next recovery
# pass (once a second) only if a partition of it is still queued then:
# BIG (about 6 s of work by the estimate), not W, whose 8 partitions the
# IFMA prover can start and finish inside that second
forced=$("$ZKSLOT" submit --key "$PL_KEYNAME" --deadline 100ms --force "${BIG[@]}")
rc=0; "$ZKSLOT" wait "$forced" --timeout 30 >/dev/null 2>&1 || rc=$?
# (the status held in a variable: grep -q ends at the first match, and a
# status longer than a pipe's buffer then dies of SIGPIPE under pipefail)
st=$("$ZKSLOT" status "$forced")
grep -q "deadline exceeded" <<<"$st" || pl_bad "forced job $forced: $(head -n 4 <<<"$st")"

pl_log "reserve: a pool full of low work, then a critical job"
# the forced job's slots (its partitions canceled) are dropped by gpud first
free_ready() { "$ZKSLOT" pool status --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["FREE"], s["READY"])'; }
for _ in $(seq 100); do [ "$(free_ready)" = "3 0" ] && break; sleep 0.1; done
[ "$(free_ready)" = "3 0" ] || pl_bad "the pool did not drain: $(free_ready)"
pl_stop "$PL_GPUD"; pl_stop "$PL_SYNTHD"
printf '[pool]\nreserve = 1\nreserve_class = high\n' >"$ZKSLOT_CONFIG"
pl_start_synthd --workers 1
lowj=$("$ZKSLOT" submit --key "$PL_KEYNAME" --priority low "${W[@]:0:5}")
pl_expect "$lowj" "${W[@]:0:5}"
for _ in $(seq 100); do [ "$(free_ready)" = "1 2" ] && break; sleep 0.1; done
[ "$(free_ready)" = "1 2" ] || pl_bad "low work: FREE READY = $(free_ready), want 1 2"
kill -9 "$PL_SYNTHD"; wait "$PL_SYNTHD" 2>/dev/null || true
pl_start_synthd --workers 1
sleep 1.5
[ "$(free_ready)" = "1 2" ] || pl_bad "after kill -9 of synthd: FREE READY = $(free_ready), want 1 2"
grep -q "reserve: 1 slot(s) for high work and above" "$PL_W/synthd.log" || pl_bad "synthd did not say its reserve"
urgent=$(sub critical)
for _ in $(seq 100); do [ "$(free_ready)" = "0 3" ] && break; sleep 0.1; done
[ "$(free_ready)" = "0 3" ] || pl_bad "the critical job did not take the reserved slot: $(free_ready)"
grep -qE "\(job $urgent #0, critical\): a reserved slot" "$PL_W/synthd.log" || pl_bad "no reserved-slot line for $urgent"
pl_log "a normal job past its deadline in a full pool fails, holding nothing"
dl=$(sub normal --deadline 1s --force)
for _ in $(seq 60); do "$ZKSLOT" status "$dl" | grep -q "deadline exceeded" && break; sleep 0.1; done
"$ZKSLOT" status "$dl" | grep -q "^job $dl: .*failed" || pl_bad "job $dl: $("$ZKSLOT" status "$dl" | head -n 3)"
[ "$(free_ready)" = "0 3" ] || pl_bad "slots after the deadline: $(free_ready)"
pl_start_gpud --threads 1
pl_wait "$urgent" 60 || exit 1
pl_wait "$lowj" 120 || exit 1
first=$(done_order "$urgent" "$lowj" | awk '{print $1}')
[ "$first" = "$urgent" ] || pl_bad "the critical job was not proved before the low one"
pl_check_job "$urgent" 1 || true

pl_log "reserved workers: a long low fill does not hold the urgent job"
pl_stop "$PL_GPUD"; pl_stop "$PL_SYNTHD"
printf '[synthd]\nreserve_workers = 1\n' >"$ZKSLOT_CONFIG"
ZKSLOT_TEST_FILL_DELAY_MS=3000 pl_start_synthd --workers 2
pl_start_gpud --threads 1
slow=$("$ZKSLOT" submit --key "$PL_KEYNAME" --priority low "${W[@]:0:3}")
pl_expect "$slow" "${W[@]:0:3}"
synth_of() { "$ZKSLOT" status "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["synthesizing"])'; }
for _ in $(seq 100); do [ "$(synth_of "$slow")" = 0 ] || break; sleep 0.05; done
hot=$(sub critical)          # while the low job's first fill (3 s) runs
most=0
for _ in $(seq 4); do
    n=$(synth_of "$slow"); [ "$n" -gt "$most" ] && most=$n
    sleep 0.1
done
[ "$most" = 1 ] || pl_bad "the low job had $most partitions synthesizing at once with 1 worker of 2 for it"
pl_wait "$hot" 60 || exit 1
pl_wait "$slow" 60 || exit 1
# the low fills are 3 s each, one at a time: the critical one, started by
# the reserved worker beside them, is ready before the low job's last
order=$(grep -oE '\(job [0-9]+ #[0-9]\) ready' "$PL_W/synthd.log" | awk '{print $2}' | tail -n 4 | xargs)
[ "$order" != "$slow $slow $slow $hot" ] || pl_bad "the critical job waited for the low fills: $order"
grep -qE "\(job $hot #0, critical\): a reserved worker" "$PL_W/synthd.log" || pl_bad "no reserved-worker line for $hot"
pl_pool_clean || true
pl_done
