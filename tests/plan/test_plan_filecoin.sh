#!/usr/bin/env bash
# test_plan_filecoin.sh -- `zkslot plan --filecoin SHAPE` (docs/plan.md,
# "Filecoin shapes"): the slot of a 32 GiB PoRep partition recomputed here
# from its counts in zkslot's slot layout (header, witness, a, b, c, density
# bitmaps, each 4 KiB aligned), the key and generator terms of the model, a
# RAM budget that fits and one that does not, what it assumed printed with
# its source, bad shapes refused (exit 2, one line).  When zkslot-fil-synth
# is built ($ZK_CARGO_TARGET or /var/cache/zkslot/cargo-target/release):
# its `count` of the blank circuits gives the compiled-in figures, and the
# .bpa a real 2 KiB WinningPoSt and WindowPoSt partition synthesizes to has
# the size plan assumes.
set -u
[ -x "${ZKSLOT:-}" ] || { echo "ZKSLOT is not set to the zkslot binary"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to parse --json"; exit 77; }

. "$(dirname "$0")/plan_run.sh"

machine=(--numa-nodes 1 --gpus 1 --hugepage-size 2M --cores 32)

# PoRep 32 GiB on 512 GiB: the numbers against the layout and the model
run "porep-32GiB on 512G --json" 0 --filecoin porep-32GiB --ram 512G "${machine[@]}" --json
cp "$tmp/out" "$tmp/porep.json"
python3 - "$tmp/porep.json" <<'PY' && ok "porep-32GiB: slot, keys and generator as the layout and model say" || fail "porep-32GiB json"
import json, sys
j = json.load(open(sys.argv[1]))
f = j["filecoin"]
A = 4096
al = lambda x: (x + A - 1) // A * A
# rust-fil-proofs' circuitinfo (PR 1325): 130,278,541 constraints, 328 inputs, 10 partitions
assert (f["constraints"], f["inputs"], f["partitions"]) == (130278541, 328, 10), f
rows = f["constraints"] + f["inputs"]
assert f["rows"] == rows == 130278869
assert f["domain"] == 1 << 27 and f["domain"] >= rows and f["domain"] // 2 < rows
n = f["inputs"] + f["aux"]
dens = 8 * (2 * ((f["aux"] + 63) // 64) + (f["inputs"] + 63) // 64)
assert f["density_bytes"] == dens
part = A + al(32 * n) + 3 * al(32 * f["domain"]) + al(dens)
assert j["partition_size"] == part, (j["partition_size"], part)
assert j["witness_size"] == 32 * n
assert j["slot_size"] == (part + (2 << 20) - 1) // (2 << 20) * (2 << 20)
bpa = 3 * 32 * rows + 32 * n + dens
# the generator holds the .bpa; it streams it into the slot: no file of it
assert f["bpa_bytes"] == bpa and j["witness_file"] == 0 and j["witness_memory"] == bpa
points = (f["domain"] - 1 + f["aux"] + 2 * n) * 96 + n * 192
assert f["points_bound"] == points and j["key_memory_gpud"] == points
assert j["key_memory_synthd"] == 0 and j["key_memory_source"] == "filecoin"
w = j["synth_workers_per_node"] * j["synthd"]
assert j["witness_generators"] == w * (bpa + 4096)
assert j["bound"] == j["pool"] + j["keys"] + j["overhead"] + j["witness_generators"]
assert j["slots"] * j["slot_size"] == j["pool"] and j["fits"]
assert "witness_memory = " in j["config"]
PY

# the text says what it assumed and where the figures come from
run "porep-32GiB text" 0 --filecoin porep-32GiB --ram 512G "${machine[@]}"
grep -q "filecoin     porep-32GiB (StackedDrg32GiBV1_1): 130278541 constraints + 328 input rows = 130278869 rows, domain 2^27" "$tmp/out" \
    && grep -q "counts .*PR 1325" "$tmp/out" && grep -q "partitions   10 per proof" "$tmp/out" \
    && grep -q "ESTIMATED upper bound" "$tmp/out" && grep -q "generator .*ESTIMATED" "$tmp/out" \
    && ok "porep-32GiB: counts, source, partitions and estimates printed" || { fail "porep text"; cat "$tmp/out"; }

# a RAM budget: 128 GiB does not hold one gpud's points, three slots and a
# generator; 256 GiB does, and --key-memory (the real file) is taken as given
run "porep-32GiB on 128G with 47G parameters" 1 --filecoin porep-32GiB --ram 128G --key-memory 47G "${machine[@]}"
grep -q "does not fit" "$tmp/out" && ok "porep-32GiB on 128G: refused with the shortfall" || fail "128G: no refusal line"
run "porep-32GiB on 256G with 47G parameters" 0 --filecoin porep-32GiB --ram 256G --key-memory 47G "${machine[@]}" --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["key_memory_gpud"]==47<<30 and j["key_memory_synthd"]==0 and j["key_memory_source"]=="given" and j["fits"]' \
    "$tmp/out" && ok "porep-32GiB on 256G: fits, --key-memory used for the gpuds (synthd: 0)" || fail "256G json"

# WindowPoSt: partitions depend on the sectors
run "window-32GiB text" 0 --filecoin window-32GiB --ram 512G "${machine[@]}"
grep -q "partitions   ceil(sectors / 2349) per proof" "$tmp/out" && ok "window-32GiB: ceil(sectors / 2349)" \
    || { fail "window partitions line"; cat "$tmp/out"; }

# bad shapes and mixed sources
run "unknown shape" 2 --filecoin porep-1TiB --ram 512G
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "porep-1TiB.*porep-32GiB" "$tmp/err" && ok "unknown shape: one line naming it and the shapes" \
    || fail "unknown shape: $(cat "$tmp/err")"
run "--filecoin with --partition-size" 2 --filecoin porep-32GiB --partition-size 16G --ram 512G

# the compiled-in counts are what zkslot-fil-synth counts, and the .bpa of a
# real partition has the size plan assumes
tgt=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target/release}
fs=$tgt/zkslot-fil-synth
[ -x "$fs" ] || fs=$tgt/release/zkslot-fil-synth
if [ -x "$fs" ]; then
    cache=${ZK_FIL_CACHE:-/var/cache/zkslot/fil-params}
    for sk in porep:2048:porep-2KiB winning:2048:winning-2KiB window:2048:window-2KiB snap:2048:snap-2KiB \
              winning:34359738368:winning-32GiB; do
        IFS=: read -r kind size shape <<<"$sk"
        line=$("$fs" count --kind "$kind" --sector-size "$size") || { fail "count $kind $size"; continue; }
        "$ZKSLOT" plan --filecoin "$shape" --ram 512G "${machine[@]}" --json >"$tmp/j" || { fail "plan $shape"; continue; }
        want=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["filecoin"]; print("constraints %d\tinputs %d\taux %d\trows %d" % (f["constraints"], f["inputs"], f["aux"], f["rows"]))' "$tmp/j")
        case "$line" in
            *"$want"*) ok "$shape: zkslot-fil-synth count agrees ($want)" ;;
            *) fail "$shape: count says '$line', plan has '$want'" ;;
        esac
    done
    if "$fs" sectors --cache "$cache" --out "$tmp/in" --seed 3 >/dev/null 2>&1; then
        for kind in winning window; do
            "$fs" synth --kind "$kind" --input "$tmp/in/$kind.json" --partition 0 --out "$tmp/$kind.bpa" >/dev/null \
                || { fail "synth $kind"; continue; }
            "$ZKSLOT" plan --filecoin "$kind-2KiB" --ram 512G "${machine[@]}" --json >"$tmp/j"
            want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["filecoin"]["bpa_bytes"])' "$tmp/j")
            got=$(stat -c %s "$tmp/$kind.bpa")
            # the .bpa adds its own header (zk/bellperson.h) to what plan counts
            if [ "$got" -ge "$want" ] && [ $((got - want)) -le 4096 ]; then
                ok "$kind-2KiB: a real .bpa is $got bytes, plan assumes $want (+ the file's header)"
            else
                fail "$kind-2KiB: a real .bpa is $got bytes, plan assumes $want"
            fi
        done
    else
        echo "note: zkslot-fil-synth sectors failed (no 2 KiB parameters in $cache?): .bpa sizes not checked"
    fi
else
    echo "note: zkslot-fil-synth not built in $tgt: the counts and .bpa sizes are not cross-checked"
fi

if [ $fails -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all checks passed"
