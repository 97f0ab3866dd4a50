#!/usr/bin/env bash
# test_plan_config.sh -- `zkslot plan`'s zkslot.conf block starts the pool
# (issue 22, item 1): for several machines given by their facts only, the
# block plan prints (the text an operator copies, equal to --json's "config")
# is written to a file with only [pool] path changed to a private tmpfs, and
# fed to exactly what the units run, with ZKSLOT_CONFIG pointing at it:
#   zkslot-pool.service       zkslot pool create --exist-ok       (twice: a reboot)
#   zkslot-synthd@N.service   zkslot-synthd --numa-node N --check-config
#   zkslot-gpud@N.service     zkslot-gpud --device N --check-config
# Each must exit 0 and the pool must have the slots, slot size and NUMA
# placement of the block.  A machine with more NUMA nodes than this one
# runs inside a private mount namespace whose /sys/devices/system/node
# lists that many nodes (root only; libnuma counts nodes there, the
# kernel then places every slot on the real node and libnuma says
# "set_mempolicy: Invalid argument"); without root that machine checks the
# refusal instead: the missing node named with this machine's nodes.
# Pools are small (the example key's 2 MiB slots): pool create fallocates
# the whole pool on tmpfs too (it is not sparse).
set -u
[ -x "${ZKSLOT:-}" ] || { echo "ZKSLOT is not set to the zkslot binary"; exit 1; }
BIN=$(dirname "$ZKSLOT")
SYNTHD=${ZKSLOT_SYNTHD:-$BIN/synthd/zkslot-synthd}
GPUD=${ZKSLOT_GPUD:-$BIN/gpud/zkslot-gpud}
[ -x "$SYNTHD" ] && [ -x "$GPUD" ] || { echo "no zkslot-synthd/zkslot-gpud next to $ZKSLOT"; exit 1; }
SRC=${ZK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
KEY=$SRC/examples/groth16/bn128/key.zkey
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to parse --json"; exit 77; }

tmp=$(mktemp -d)
shm=$(mktemp -d /dev/shm/zkslot-plan-config.XXXXXX)
trap 'rm -rf "$tmp" "$shm"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
here_nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$here_nodes" -ge 1 ] || here_nodes=1
can_fake=0
[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null && can_fake=1

# units NAME NODES GPUS: the units' commands on $tmp/NAME.conf, in $tmp/NAME.log
units_script() {
    local name=$1 nodes=$2 gpus=$3 conf=$tmp/$1.conf
    cat <<EOF
set -u
export ZKSLOT_CONFIG=$conf
export ZKSLOT_STATE_DIR=$tmp/state-$name
rc=0
"$ZKSLOT" pool create --exist-ok || { echo "UNIT pool create: exit \$?"; rc=1; }
"$ZKSLOT" pool create --exist-ok || { echo "UNIT pool create (again): exit \$?"; rc=1; }
"$ZKSLOT" pool status --json >$tmp/$name.status || { echo "UNIT pool status: exit \$?"; rc=1; }
for n in \$(seq 0 $((nodes - 1))); do
    "$SYNTHD" --numa-node \$n --check-config >$tmp/$name.synthd\$n ||
        { echo "UNIT synthd@\$n --check-config: exit \$?"; rc=1; }
done
for n in \$(seq 0 $((gpus > 0 ? gpus - 1 : 0))); do
    "$GPUD" --device \$n --check-config >$tmp/$name.gpud\$n ||
        { echo "UNIT gpud@\$n --check-config: exit \$?"; rc=1; }
done
"$ZKSLOT" pool destroy || { echo "UNIT pool destroy: exit \$?"; rc=1; }
exit \$rc
EOF
}

# machine NAME NODES GPUS PLAN-ARGS...: plan, the block, the units
machine() {
    local name=$1 nodes=$2 gpus=$3
    shift 3
    "$ZKSLOT" plan "$@" >"$tmp/$name.out" 2>&1 || {
        fail "$name: plan exit $?: $(cat "$tmp/$name.out")"; return; }
    "$ZKSLOT" plan "$@" --json >"$tmp/$name.json" 2>&1 || { fail "$name: plan --json"; return; }
    # the block as printed: the lines under "/etc/zkslot/zkslot.conf:", unindented
    sed -n '/^\/etc\/zkslot\/zkslot.conf:$/,/^$/{/^  /s/^  //p}' "$tmp/$name.out" >"$tmp/$name.block"
    python3 - "$tmp/$name.json" "$tmp/$name.block" <<'PY' || fail "$name: text block differs from --json config"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["config"] == open(sys.argv[2]).read(), (j["config"], open(sys.argv[2]).read())
PY
    for want in "slots = " "slot_size = " "hugepages = " "workers = " "threads = " "backend = "; do
        grep -q "^$want" "$tmp/$name.block" || fail "$name: the block has no '$want'"
    done
    if [ "$nodes" -gt 1 ]; then
        grep -q "^numa_nodes = 0,1" "$tmp/$name.block" || fail "$name: the block has no numa_nodes"
    fi
    # only the pool path overridden
    sed "s|^path = .*|path = $shm/$name.pool|" "$tmp/$name.block" >"$tmp/$name.conf"
    [ "$(diff "$tmp/$name.block" "$tmp/$name.conf" | grep -c '^[<>]')" = 2 ] ||
        fail "$name: more than the path changed"
    units_script "$name" "$nodes" "$gpus" >"$tmp/$name.sh"
    local rc
    if [ "$nodes" -le "$here_nodes" ]; then
        bash "$tmp/$name.sh" >"$tmp/$name.log" 2>&1
        rc=$?
    elif [ "$can_fake" = 1 ]; then
        mkdir -p "$tmp/$name.sys"
        for n in $(seq 0 $((nodes - 1))); do mkdir -p "$tmp/$name.sys/node$n"; done
        unshare -m bash -c "mount --bind '$tmp/$name.sys' /sys/devices/system/node &&
                            bash '$tmp/$name.sh'" >"$tmp/$name.log" 2>&1
        rc=$?
    else
        ZKSLOT_CONFIG=$tmp/$name.conf "$ZKSLOT" pool create --exist-ok >"$tmp/$name.log" 2>&1
        grep -q "NUMA node $here_nodes does not exist on this machine" "$tmp/$name.log" &&
            ok "$name: not root: $nodes nodes refused here, naming the node: $(cat "$tmp/$name.log")" ||
            fail "$name: not root: $(cat "$tmp/$name.log")"
        return
    fi
    if [ "$rc" = 0 ]; then ok "$name: pool create --exist-ok (twice), synthd@0..$((nodes - 1)) and gpud@0..$((gpus > 0 ? gpus - 1 : 0)) --check-config accept the block"
    else fail "$name: the units' commands refused the block:"; cat "$tmp/$name.log"; return; fi
    python3 - "$tmp/$name.json" "$tmp/$name.status" "$tmp/$name.synthd0" "$nodes" <<'PY' &&
import json, sys
j = json.load(open(sys.argv[1]))
st = json.load(open(sys.argv[2]))
nodes = int(sys.argv[4])
slots = st["slot_table"]
assert st["slots"] == j["slots"] == len(slots), ("slots", st["slots"], j["slots"])
assert st["slot_size"] == j["slot_size"], ("slot_size", st["slot_size"], j["slot_size"])
if nodes > 1:
    got = [s["numa_node"] for s in slots]
    assert got == [i % nodes for i in range(j["slots"])], ("placement", got)
eff = open(sys.argv[3]).read()
for line in ("slots = %d" % j["slots"], "slot_size = %d" % j["slot_size"],
             "workers = %d" % j["synth_workers_per_node"]):
    assert ("\n" + line + "\n") in eff, (line, eff)
PY
        ok "$name: the pool has the block's $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["slots"], "slots of", j["slot_size"], "bytes")' "$tmp/$name.json"), the daemons see it" ||
        { fail "$name: pool or effective configuration differs from the block"; cat "$tmp/$name.status"; }
    [ ! -e "$shm/$name.pool" ] || fail "$name: the pool was not destroyed"
}

given=(--hugepage-size 2M)
# the bar: 2 NUMA nodes, 4 GPUs, 768 GiB
machine bar 2 4 --key "$KEY" --ram 768G --numa-nodes 2 --gpus 4 "${given[@]}"
grep -q "^threads = 0$" "$tmp/bar.block" && ok "bar: no --cores: threads = 0 (synthd's own count)" ||
    fail "bar: threads without --cores: $(grep threads "$tmp/bar.block")"
machine bar-cores 2 4 --key "$KEY" --ram 768G --numa-nodes 2 --gpus 4 --cores 48 "${given[@]}"
grep -q "^threads = 24$" "$tmp/bar-cores.block" && ok "bar --cores 48: threads = 24 (2 workers)" ||
    fail "bar --cores 48: $(grep -E 'workers|threads' "$tmp/bar-cores.block")"
machine one-gpu 1 1 --partition-size 3M --ram 128G --numa-nodes 1 --gpus 1 --cores 16 \
    --key-memory 1G "${given[@]}"
machine no-gpu 1 0 --key "$KEY" --ram 64G --numa-nodes 1 --gpus 0 --cores 8 \
    --witness-memory 1G "${given[@]}"
grep -q "^witness_memory = 1G$" "$tmp/no-gpu.block" && grep -q "^backend = cpu$" "$tmp/no-gpu.block" &&
    ok "no-gpu: witness_memory and backend cpu in the block" || fail "no-gpu block: $(cat "$tmp/no-gpu.block")"
machine four-nodes 4 8 --key "$KEY" --ram 1536G --numa-nodes 4 --gpus 8 --cores 32 \
    --in-flight 24 "${given[@]}"

[ "$fails" = 0 ] && echo "all plan config checks passed" || echo "$fails check(s) failed"
[ "$fails" = 0 ]
