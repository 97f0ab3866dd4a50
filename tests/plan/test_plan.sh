#!/usr/bin/env bash
# test_plan.sh -- `zkslot plan`: the two bars of issue 6 (a cuzk-like machine
# fits, 128 GiB with 12 partitions of 16 GiB in flight is refused), the --json
# numbers against the arithmetic the model states (docs/plan.md), a real key,
# detection on this machine, facts labeled given/detected/derived/unknown (a
# given node count never divides this machine's CPUs), and bad input (exit 2
# naming the flag or file).  The config block itself: test_plan_config.sh.
set -u
[ -x "${ZKSLOT:-}" ] || { echo "ZKSLOT is not set to the zkslot binary"; exit 1; }
SRC=${ZK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
KEY=$SRC/examples/groth16/bn128/key.zkey
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to parse --json"; exit 77; }

. "$(dirname "$0")/plan_run.sh"

# check_json FILE [MIN_PARTITION]: the model's identities on a --json answer
check_json() {
    python3 - "$1" "${2:-0}" <<'PY' || fail "json identities of $1"
import json, sys
j = json.load(open(sys.argv[1]))
minpart = int(sys.argv[2])
m = j["machine"]
hp = m["hugepage_size"]["value"]
S, slot = j["slots"], j["slot_size"]
errs = []
def want(cond, what):
    if not cond:
        errs.append(what)
want(S * slot == j["pool"], "S x slot == pool")
want(j["bound"] == j["pool"] + j["keys"] + j["overhead"] + j["witness_generators"],
     "bound == pool + keys + overhead + witness generators")
want(j["overhead"] == j["overhead_daemons"] + j["overhead_pool_table"] + j["overhead_finalize"],
     "overhead == daemons + table + finalize")
want(j["keys"] == j["gpud"] * j["key_memory_gpud"] + j["synthd"] * j["key_memory_synthd"],
     "keys == gpud x points + synthd x coefficients")
want(j["overhead_finalize"] == j["gpud"] * 3 * j["witness_size"], "3 witness copies per gpud")
want(j["overhead_daemons"] == (j["gpud"] + j["synthd"]) * 256 * 2**20, "256 MiB per daemon")
want(slot % hp == 0, "slot is a multiple of the huge page")
want(slot >= j["partition_size"] and slot - j["partition_size"] < hp, "slot = partition rounded up")
want(slot >= minpart, "slot >= the key's layout (%d)" % minpart)
ram = m["ram"]["value"]
want(j["available"] == ram - j["reserve"], "available == RAM - reserve")
want(j["fits"] == (j["bound"] <= j["available"]), "fits == (bound <= available)")
want(len(j["hugepages_per_node"]) == m["numa_nodes"]["value"], "one huge-page count per node")
want(sum(j["hugepages_per_node"]) * hp == j["pool"] + j["overhead_pool_table"],
     "huge pages cover pool + table")
want(j["synthd"] == m["numa_nodes"]["value"], "one synthd per node")
want(j["gpud"] == max(1, m["gpus"]["value"]), "one gpud per GPU (one cpu gpud without)")
want(("--slots %d " % S) in j["pool_create"], "pool create has --slots S")
want(("workers = %d" % j["synth_workers_per_node"]) in j["config"], "config has the workers")
if errs:
    print("json:", "; ".join(errs))
    sys.exit(1)
PY
}

# Bar 1: a machine like the ones cuzk reports (755 GiB, 2 nodes, 2 GPUs, 16 GiB
# PoRep partitions, ~47 GiB of parameters per process).
cuzk=(--ram 755G --numa-nodes 2 --gpus 2 --partition-size 16G --key-memory 47G)
run "cuzk-like machine" 0 "${cuzk[@]}"
grep -q "verdict: FITS" "$tmp/out" && ok "cuzk: verdict FITS" || fail "cuzk: no FITS verdict"
grep -q "^  bound    = pool + keys + overhead" "$tmp/out" && ok "cuzk: arithmetic shown" ||
    fail "cuzk: no bound line"
grep -q "zkslot pool create --slots [0-9]* --slot-size 16G --numa-nodes 0,1" "$tmp/out" &&
    ok "cuzk: pool create line" || fail "cuzk: no pool create line"
grep -q "RAM .*given" "$tmp/out" && grep -q "huge page .*detected" "$tmp/out" &&
    ok "cuzk: facts say given/detected" || fail "cuzk: facts' sources not shown"
run "cuzk-like machine --json" 0 "${cuzk[@]}" --json
cp "$tmp/out" "$tmp/cuzk.json"
check_json "$tmp/cuzk.json"
python3 - "$tmp/cuzk.json" <<'PY' && ok "cuzk: bound below RAM - reserve, 2 per GPU + 1 per worker" || fail "cuzk json values"
import json, sys
j = json.load(open(sys.argv[1]))
G = 2**30
assert j["fits"] and j["bound"] < 755 * G - j["reserve"]
assert j["reserve"] >= 8 * G and j["reserve"] >= 755 * G // 100 * 5
assert j["slot_size"] == 16 * G and j["gpud"] == 2 and j["synthd"] == 2
assert j["slots"] == 2 * 2 + 2 * j["synth_workers_per_node"] and j["slots"] >= 4
assert j["key_memory_gpud"] == 47 * G and j["key_memory_synthd"] == 47 * G
assert j["hugepages_per_node"][1] * 2 * 2**20 == (j["slots"] // 2) * 16 * G
PY

# its "room for up to N slots" is exact: N fits, N + 1 does not
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["max_slots_that_fit"])' "$tmp/cuzk.json")
run "cuzk --in-flight $n (the most that fit)" 0 "${cuzk[@]}" --in-flight "$n"
run "cuzk --in-flight $((n + 1))" 1 "${cuzk[@]}" --in-flight $((n + 1))

# Bar 2: 128 GiB with 12 partitions of 16 GiB in flight cannot fit.
run "128G, 12 x 16G in flight" 1 --ram 128G --partition-size 16G --in-flight 12
grep -q "does not fit: bound .* exceeds RAM - reserve .* by " "$tmp/out" &&
    ok "refusal names the shortfall" || fail "refusal line missing: $(cat "$tmp/out")"
grep -q "the pool alone (12 x 16.00 GiB = 192.00 GiB)" "$tmp/out" &&
    ok "refusal says the pool alone is too big" || fail "refusal does not say why"
grep -q -- "--key-memory\|--in-flight" "$tmp/out" && ok "refusal says what to change" ||
    fail "refusal gives no remedy"
run "128G refused --json" 1 --ram 128G --partition-size 16G --in-flight 12 --json
check_json "$tmp/out"
grep -q "does not fit" "$tmp/err" && ok "json refusal on stderr" || fail "json: no refusal line on stderr"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert not j["fits"] and j["slots"]==12' \
    "$tmp/out" && ok "json: fits false, 12 slots" || fail "json of the refusal"
# the remedy it names fits
run "128G with small keys" 1 --ram 128G --partition-size 16G --in-flight 12 --key-memory 4G
n=$(sed -n 's/.*use --in-flight \([0-9]*\).*/\1/p' "$tmp/out")
if [ -n "$n" ]; then
    run "128G, the --in-flight $n it suggests" 0 --ram 128G --partition-size 16G --in-flight "$n" \
        --key-memory 4G
    run "128G, one more than suggested" 1 --ram 128G --partition-size 16G \
        --in-flight $((n + 1)) --key-memory 4G
else
    fail "no --in-flight suggestion: $(cat "$tmp/out")"
fi

# A real key: the slot holds the key's layout (witness 10 x 32, a/b/c 3 x 16 x 32,
# header, 4 KiB regions = 20 KiB for this key).
run "--key example" 0 --key "$KEY" --json
check_json "$tmp/out" 20480
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["partition_size"]==20480 and j["witness_size"]==320 and j["partition_source"]=="key" and j["key_memory_source"]=="key" and 0 < j["key_memory_gpud"] < 6148' \
    "$tmp/out" && ok "key: layout 20 KiB, key memory from its sections" || fail "key numbers: $(cat "$tmp/out")"

# Detection on this machine, nothing given but the partition size.
run "detection" 0 --partition-size 64M --json
check_json "$tmp/out"
python3 - "$tmp/out" <<'PY' && ok "detected facts match /proc and /sys" || fail "detected facts"
import json, sys, os, glob
m = json.load(open(sys.argv[1]))["machine"]
mem = {l.split(':')[0]: int(l.split()[1]) * 1024 for l in open('/proc/meminfo') if l.split()[1:2] and l.split()[1].isdigit()}
assert m["ram"]["value"] == mem["MemTotal"] and m["ram"]["source"] == "detected"
if "Hugepagesize" in mem:
    assert m["hugepage_size"]["value"] == mem["Hugepagesize"]
nodes = len(glob.glob('/sys/devices/system/node/node[0-9]*')) or 1
assert m["numa_nodes"]["value"] == nodes
gpus = len(glob.glob('/proc/driver/nvidia/gpus/*'))
assert m["gpus"]["value"] == gpus
assert 1 <= m["cores_per_node"]["value"] <= os.cpu_count()
PY
run "detection, text" 0 --partition-size 64M
grep -q "RAM .*detected" "$tmp/out" && ok "text says detected" || fail "text: no 'detected'"

# Given, detected, derived (issue 22): a given node count is another machine's,
# so this machine's CPUs are not divided by it; plan says what it assumed.
run "--numa-nodes 2 without --cores" 0 --partition-size 64M --ram 256G --numa-nodes 2 --gpus 2 \
    --hugepage-size 2M --json
python3 - "$tmp/out" <<'PY' && ok "nodes given, cores not: cores unknown, threads 0" || fail "nodes given, cores not: $(cat "$tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))
c = j["machine"]["cores_per_node"]
assert c["source"] == "unknown" and c["value"] == 0, c
assert j["synth_threads_per_worker"] == 0 and "\nthreads = 0\n" in j["config"], j["config"]
PY
run "--numa-nodes 2 without --cores, text" 0 --partition-size 64M --ram 256G --numa-nodes 2 \
    --gpus 2 --hugepage-size 2M
grep -q "^  cores/node .*detected" "$tmp/out" && fail "cores/node said detected: $(grep cores/ "$tmp/out")" ||
    ok "cores/node not 'detected' with a given node count"
grep -q "^  cores/node   ?  *unknown (--numa-nodes given without --cores" "$tmp/out" &&
    grep -q "threads = 0: its node's cores / workers" "$tmp/out" &&
    ok "text says cores unknown and threads = 0" || fail "text: $(grep -E 'cores/|synthd ' "$tmp/out")"
run "--numa-nodes 2, RAM detected" 0 --partition-size 64M --numa-nodes 2 --gpus 2 --hugepage-size 2M
grep -q "note .*--numa-nodes was given, but RAM is this machine's" "$tmp/out" &&
    ok "a detected fact beside a given node count is named" || fail "no note: $(grep note "$tmp/out")"
run "all facts given" 0 --partition-size 64M --ram 256G --numa-nodes 2 --gpus 2 \
    --hugepage-size 2M --cores 16
grep -q "this machine's" "$tmp/out" && fail "all given: note printed" || ok "all given: no note"
grep -q "^  cores/node   16 *given" "$tmp/out" && grep -q "^threads = 16$" <(sed 's/^  //' "$tmp/out") &&
    ok "all given: cores given, threads = 16 (1 worker per node)" || fail "all given: $(grep -E 'cores/|threads' "$tmp/out")"
run "nothing given: cores detected or derived" 0 --partition-size 64M --json
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["machine"]["cores_per_node"]; assert c["source"] in ("detected","derived") and c["value"] >= 1, c' \
    "$tmp/out" && ok "cores detected or derived from this machine's facts" || fail "cores source: $(cat "$tmp/out")"

# Bad input: exit 2, one line naming the flag or file.
one_line() {
    [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && ok "one line on stderr" ||
        fail "want one line on stderr, nothing on stdout: $(cat "$tmp/out" "$tmp/err")"
}
run "--ram 12Q" 2 --ram 12Q --partition-size 16G
grep -q -- "--ram '12Q'" "$tmp/err" && ok "names --ram 12Q" || fail "bad --ram: $(cat "$tmp/err")"
one_line
run "missing key" 2 --key "$tmp/nope.zkey"
grep -q "$tmp/nope.zkey" "$tmp/err" && ok "names the missing key" || fail "missing key: $(cat "$tmp/err")"
one_line
printf 'this is not a zkey file at all\n' >"$tmp/text.zkey"
run "non-zkey" 2 --key "$tmp/text.zkey"
grep -q "$tmp/text.zkey" "$tmp/err" && ok "names the non-zkey file" || fail "non-zkey: $(cat "$tmp/err")"
one_line
run "no partition" 2 --ram 128G
run "both key and size" 2 --key "$KEY" --partition-size 1G
run "unknown flag" 2 --partition-size 1G --frobnicate
run "bad --gpus" 2 --partition-size 1G --gpus two
run "bad --hugepage-size" 2 --partition-size 1G --hugepage-size 3M
run "bad --witness-memory" 2 --partition-size 1G --witness-memory lots
grep -F -- "--witness-memory" "$tmp/err" >/dev/null || fail "bad --witness-memory: the error names the flag"

# --witness-memory: a generator and its witness file per synth worker, in the bound
facts=(--partition-size 2G --ram 256G --numa-nodes 2 --gpus 2 --cores 32 --hugepage-size 2M)
run "without --witness-memory" 0 "${facts[@]}" --json
cp "$tmp/out" "$tmp/nowit.json"
run "--witness-memory 8G" 0 "${facts[@]}" --witness-memory 8G --json
cp "$tmp/out" "$tmp/wit.json"
check_json "$tmp/wit.json"
python3 - "$tmp/nowit.json" "$tmp/wit.json" <<'PY' || fail "--witness-memory: the bound grows by workers x (generator + witness file + input)"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
workers = b["synth_workers_per_node"] * b["synthd"]
per = 8 * 2**30 + b["witness_size"] + 4096 + 76
assert a["witness_generators"] == 0, a["witness_generators"]
assert b["witness_generators"] == workers * per, (b["witness_generators"], workers, per)
assert b["bound"] - a["bound"] == workers * per, (a["bound"], b["bound"])
assert "witness_memory = 8G" in b["config"], b["config"]
PY
run "--in-flight 0" 2 --partition-size 1G --in-flight 0

# reserved slots (docs/scheduling.md): on top of the pipeline's, in the bound
"$ZKSLOT" plan --partition-size 1G --ram 64G --gpus 2 --json >"$tmp/nores.json" || fail "plan without reserve"
"$ZKSLOT" plan --partition-size 1G --ram 64G --gpus 2 --urgent-slots 1 --json >"$tmp/res.json" || fail "plan --urgent-slots 1"
check_json "$tmp/res.json"
python3 - "$tmp/nores.json" "$tmp/res.json" <<'PY' || fail "--urgent-slots: one more slot, in the bound and the config"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert b["slots"] == a["slots"] + 1 and b["reserved_slots"] == 1, (a["slots"], b["slots"])
assert b["synth_workers_per_node"] == a["synth_workers_per_node"]
assert b["bound"] - a["bound"] >= b["slot_size"], (a["bound"], b["bound"])
assert "reserve = 1" in b["config"], b["config"]
PY
run "--urgent-slots as many as --in-flight" 2 --partition-size 1G --in-flight 2 --urgent-slots 2

# the configuration printed names the pool this machine's tools use (issue 36.7)
ZKSLOT_POOL=/dev/shm/zk-plan-test.pool "$ZKSLOT" plan --partition-size 1G --ram 64G 2>/dev/null |
    grep -q "path = /dev/shm/zk-plan-test.pool" || fail "plan's configuration ignores ZKSLOT_POOL"

[ "$fails" = 0 ] && echo "all plan checks passed" || echo "$fails check(s) failed"
[ "$fails" = 0 ]
