# lib_inputs.sh -- jobs from circuit inputs for the pipeline tests: the
# circuit tests/interop/circuits/inputs.circom compiled by circom2 with
# --c and --wasm, its C++ witness generator built with make, a `zkslot
# setup` key, inputs, and the witnesses snarkjs computes for them (what
# each partition must prove).  Source it after lib.sh:
#
#   pli_circuit bn128        # -> PLI_DIR PLI_KEY PLI_VK PLI_CPP PLI_JS
#   pli_allow "$ZK_INTEROP_WORK"   # synthd may run them
#   pli_input 3 5 1 >in.json # x y b
#
# Outputs are cached under $ZK_INTEROP_WORK keyed by curve and source
# hash, so the release and sanitizer trees (and reruns) build them once.
# The C++ generator needs g++, make, nasm, libgmp-dev and
# nlohmann-json3-dev (tools/deps.sh); pli_circuit fails without them.

# pli_circuit CURVE: sets PLI_DIR (circom's output), PLI_CPP (the C++
# generator), PLI_JS (the NAME_js folder), PLI_KEY, PLI_VK.
pli_circuit() {
    local curve=$1 name=inputs src h d t
    src="$ZK_INTEROP_DIR/circuits/$name.circom"
    h=$(zk__hash "$src" "$ZK_INTEROP_DIR/circuits/chain.circom")
    d="$ZK_INTEROP_WORK/$curve/$name-c-$h"
    if [ ! -x "$d/${name}_cpp/$name" ] || [ ! -f "$d/${name}_js/$name.wasm" ]; then
        t="$d.tmp.$$"
        rm -rf "$t" && mkdir -p "$t" || return 1
        zk__run zk_circom "$src" --r1cs --wasm --c --prime "$curve" \
            -l "$ZK_INTEROP_NM" -l "$ZK_INTEROP_DIR/circuits" -o "$t" || { rm -rf "$t"; return 1; }
        zk__run make -C "$t/${name}_cpp" -j "$(nproc)" || { rm -rf "$t"; return 1; }
        rm -rf "$d"
        mv -T "$t" "$d" 2>/dev/null || rm -rf "$t"   # lost a race: theirs is complete
    fi
    PLI_DIR=$d
    PLI_CPP="$d/${name}_cpp/$name"
    PLI_JS="$d/${name}_js"
    PLI_KEY="$ZK_INTEROP_WORK/pipeline-$curve-$name-$h.zkey"
    if [ ! -f "$PLI_KEY" ]; then
        "$ZKSLOT" setup "$d/$name.r1cs" "$PLI_KEY.tmp.$$" --curve "$curve" >/dev/null 2>&1 &&
            mv "$PLI_KEY.tmp.$$" "$PLI_KEY" || { rm -f "$PLI_KEY.tmp.$$"; return 1; }
    fi
    PLI_VK="$PLI_KEY.vk.json"
    if [ ! "$PLI_VK" -nt "$PLI_KEY" ]; then
        "$ZKSLOT" export-vk "$PLI_KEY" "$PLI_VK.tmp.$$" && mv "$PLI_VK.tmp.$$" "$PLI_VK" || return 1
    fi
    PL_VK=$PLI_VK      # what pl_check_job verifies against
}

# pli_input X Y B: an input of inputs.circom on stdout.
pli_input() { printf '{"x": "%s", "y": "%s", "b": "%s"}\n' "$1" "$2" "$3"; }

# pli_reference INPUT.json OUT.wtns: the witness snarkjs computes (the
# independent reference of what the partition must prove).
pli_reference() { zk_witness "$PLI_JS/inputs.wasm" "$1" "$2" >/dev/null; }

# pli_allow DIR...: this machine's synthd runs the generators beneath the
# DIRs, configured as an operator would (`[synthd] generators`,
# docs/synthesis.md); call it before pl_start_synthd.
pli_allow() {
    local d list=
    for d in "$@"; do list="$list${list:+, }$(realpath -m "$d")"; done
    printf '[synthd]\ngenerators = %s\n' "$list" >>"$ZKSLOT_CONFIG"
}

# pli_key_add NAME GENERATOR-ARGS...: registers PLI_KEY once under NAME.
pli_key_add() {
    local name=$1
    shift
    "$ZKSLOT" key list 2>/dev/null | grep -w -- "$name" >/dev/null ||
        "$ZKSLOT" key add "$name" "$PLI_KEY" "$@" >/dev/null
}

# pli_part_field JOB INDEX FIELD: one field of partition INDEX of JOB
# (from `zkslot status JOB --json`).
pli_part_field() {
    "$ZKSLOT" status "$1" --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
parts = s.get("partitions") or s["job"]["partitions"]
print(parts[int(sys.argv[1])][sys.argv[2]])' "$2" "$3"
}

# pli_procs REGEX: pids of live processes (zombies, which have exited, are
# not) whose command line matches REGEX, except this shell's own.
pli_procs() {
    python3 - "$1" "$$" <<'PY'
import os, re, sys
pat, me = re.compile(sys.argv[1]), sys.argv[2]
for p in os.listdir("/proc"):
    if not p.isdigit() or p == me:
        continue
    try:
        st = open("/proc/%s/stat" % p).read()
        cmd = open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        continue
    if st[st.rindex(")") + 2] != "Z" and pat.search(cmd) and "python3" not in cmd:
        print(p)
PY
}

# pli_owned_by PID: pids of live processes whose environment says a
# generator of the synthd with that pid started them (ZKSLOT_WITGEN_OWNER,
# "synthd:<pool tag>:<pid>:<start>").
pli_owned_by() {
    python3 - "$1" <<'PY'
import os, re, sys
want = re.compile(rb"^ZKSLOT_WITGEN_OWNER=synthd:[0-9a-f]+:%s:" % sys.argv[1].encode())
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        st = open("/proc/%s/stat" % p).read()
        env = open("/proc/%s/environ" % p, "rb").read().split(b"\0")
    except OSError:
        continue
    if st[st.rindex(")") + 2] != "Z" and any(want.match(e) for e in env):
        print(p)
PY
}
