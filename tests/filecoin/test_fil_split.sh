#!/usr/bin/env bash
# test_fil_split.sh BUILD_DIR -- one Filecoin proof's input split into one
# part file per partition (`zkslot-fil-synth split`), each part synthesized
# alone as synthd's generator runs it (`synth --input PART --out BPA`, with
# the generator's bare environment: no parameter cache named), proved with
# `zkslot bp prove`, and the concatenation accepted by filecoin-proofs'
# verifier on the ORIGINAL input: WinningPoSt (1 part) and WindowPoSt (5
# sectors, 3 parts).  PoRep and SnapDeals parts (slow to prove) give the
# same .bpa bytes as the whole input's `--partition K`.  Bad inputs are
# refused by split with one line naming the input, exit 2, and no file
# written; bad part files by synth likewise, and part files with random
# bytes changed (a seeded mutation run).  `keys` lists the circuits
# whose parameters are in a directory.
#
# Binaries and the parameter cache: fil_common.sh.  Exit 77 when the Rust
# binary is not built.
set -euo pipefail

. "$(dirname "$0")/fil_common.sh"

step "params (2 KiB, cached)" 6000 "$fs" params --cache "$cache" --sector-size 2048 || { fail "params"; exit 1; }
step "sectors" 900 "$fs" sectors --cache "$cache" --out "$work/in" --seed 11 || { fail "sectors"; exit 1; }

declare -A input=([porep]=$work/in/porep-c1.json [winning]=$work/in/winning.json
                  [window]=$work/in/window.json [snap]=$work/in/snap.json)
declare -A want_parts=([porep]=1 [winning]=1 [window]=3 [snap]=1)

# gen --input PART --out BPA: synth of one part the way synthd's generator
# runner starts it: its fixed environment (PATH, HOME, TMPDIR, LANG) and
# nothing else (no FIL_PROOFS_PARAMETER_CACHE).
gen=(env -i PATH=/usr/bin:/bin HOME="$work/home" TMPDIR="$work" LANG=C "$fs" synth)

# split_ok KIND: splits KIND's input into $work/KIND/, checks the printed
# paths (one per part, in order, each a file naming its kind and index).
split_ok() {
    local kind=$1 n k
    step "$kind: split" 300 "$fs" split --kind "$kind" --input "${input[$kind]}" --out-dir "$work/$kind" \
        || { fail "$kind: split"; return 1; }
    n=$(wc -l <"$work/out")
    [ "$n" = "${want_parts[$kind]}" ] || { fail "$kind: split printed $n parts, expected ${want_parts[$kind]}"; return 1; }
    for ((k = 0; k < n; k++)); do
        local p
        p=$(sed -n "$((k + 1))p" "$work/out")
        [ "$p" = "$work/$kind/part-$k.json" ] && [ -f "$p" ] || { fail "$kind: line $((k + 1)) is '$p'"; return 1; }
        [ "$(jq -r '"\(.kind) \(.partition) \(.partitions)"' "$p")" = "$kind $k $n" ] \
            || { fail "$kind: $p names $(jq -c '[.kind, .partition, .partitions]' "$p")"; return 1; }
    done
    ok "$kind: split into $n part(s) ($(du -b "$work/$kind"/part-*.json | awk '{ s += $1 } END { print s }') bytes; input $(stat -c %s "${input[$kind]}") bytes)"
}

# WinningPoSt and WindowPoSt: every part synthesized alone and proved, the
# concatenation verified against the original input.
mkdir -p "$work/home"
for kind in winning window; do
    split_ok "$kind" || continue
    n=${want_parts[$kind]}
    step "$kind: partitions" 60 "$fs" partitions --kind "$kind" --input "${input[$kind]}" --cache "$cache" \
        || { fail "$kind: partitions"; continue; }
    params=$(sed -n 's/^params //p' "$work/out")
    : >"$work/$kind.proof"
    for ((k = 0; k < n; k++)); do
        step "$kind: synth part $k" 300 "${gen[@]}" --input "$work/$kind/part-$k.json" --out "$work/$kind-$k.bpa" \
            || { fail "$kind: synth part $k"; continue 2; }
        step "$kind: zkslot bp prove part $k" 600 "$zk" bp prove "$params" "$work/$kind-$k.bpa" "$work/$kind-$k.proof" \
            || { fail "$kind: prove part $k"; continue 2; }
        cat "$work/$kind-$k.proof" >>"$work/$kind.proof"
    done
    rc=0
    step "$kind: verify on the original input" 300 "$fs" verify --kind "$kind" --input "${input[$kind]}" \
        --proof "$work/$kind.proof" --cache "$cache" || rc=$?
    [ $rc -eq 0 ] && ok "$kind: the parts' proofs concatenated are accepted: $(cat "$work/out")" \
        || fail "$kind: verify exit $rc: $(cat "$work/out")"
    # parts out of order are a different proof
    if [ "$n" -gt 1 ]; then
        cat "$work/$kind-1.proof" "$work/$kind-0.proof" "$work"/"$kind"-[2-9].proof >"$work/swapped.proof" 2>/dev/null || true
        rc=0
        "$fs" verify --kind "$kind" --input "${input[$kind]}" --proof "$work/swapped.proof" --cache "$cache" \
            >"$work/out" 2>&1 || rc=$?
        [ $rc -eq 1 ] && ok "$kind: parts 0 and 1 swapped: rejected" || fail "$kind: swapped parts: exit $rc"
    fi
    rm -f "$work/$kind"-*.bpa
done

# PoRep and SnapDeals: part 0 gives the same assignment as the whole input.
for kind in porep snap; do
    split_ok "$kind" || continue
    step "$kind: synth part 0" 600 "${gen[@]}" --input "$work/$kind/part-0.json" --out "$work/part.bpa" || { fail "$kind: synth part"; continue; }
    cat "$work/out"
    step "$kind: synth --partition 0 of the whole input" 600 "$fs" synth --kind "$kind" --input "${input[$kind]}" \
        --partition 0 --out "$work/whole.bpa" || { fail "$kind: synth whole"; continue; }
    if cmp -s "$work/part.bpa" "$work/whole.bpa"; then
        ok "$kind: the part's .bpa is the whole input's partition 0, byte for byte ($(stat -c %s "$work/part.bpa") bytes)"
    else
        fail "$kind: the part's .bpa differs from the whole input's partition 0"
    fi
    rm -f "$work/part.bpa" "$work/whole.bpa"
done

# refused CMD-DESCRIPTION INPUT OUTPUT CMD...: CMD exits 2 with one line on
# stderr naming INPUT, and OUTPUT does not exist afterwards.
refused() {
    local what=$1 in=$2 out=$3 rc=0 lines
    shift 3
    "$@" >"$work/out" 2>"$work/err" || rc=$?
    lines=$(wc -l <"$work/err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF "$in" "$work/err" && [ ! -e "$out" ]; then
        ok "$what refused: $(cat "$work/err")"
    else
        fail "$what: exit $rc, $lines line(s), $out $([ -e "$out" ] && echo exists || echo absent): $(head -c 300 "$work/err")"
    fi
}

# split of bad inputs: nothing written (the out dir is not even made)
c1=${input[porep]}
bad=$work/bad
mkdir -p "$bad"
head -c 1000 "$c1" >"$bad/c1-truncated.json"
jq -c '.Phase1Out |= (.[0:200] + "!" + .[201:])' "$c1" >"$bad/c1-corrupt.json"
jq -c '.SectorSize = 34359738368' "$c1" >"$bad/c1-size.json"
jq -r .Phase1Out "$work/in/porep-c1-sector2.json" | base64 -d >"$bad/p1-s2.json"
jq -r .Phase1Out "$c1" | base64 -d | jq -c --slurpfile o "$bad/p1-s2.json" '.vanilla_proofs = $o[0].vanilla_proofs' \
    | base64 -w0 >"$bad/p1"
jq -c --rawfile p "$bad/p1" '.Phase1Out = $p' "$c1" >"$bad/c1-other.json"
for b in truncated corrupt size other; do
    refused "split of a C1 file ($b)" "$bad/c1-$b.json" "$work/out-$b" \
        "$fs" split --kind porep --input "$bad/c1-$b.json" --out-dir "$work/out-$b"
done
jq -c '.vanilla_proofs[1] = .vanilla_proofs[0]' "${input[window]}" >"$bad/window-other.json"
refused "split of a WindowPoSt input with sector 1's proof in sector 2's place" "$bad/window-other.json" \
    "$work/out-w" "$fs" split --kind window --input "$bad/window-other.json" --out-dir "$work/out-w"
jq -c --slurpfile w "${input[window]}" '.comm_r_old = $w[0].sectors[0].comm_r' "${input[snap]}" >"$bad/snap-other.json"
refused "split of an update input with another sector's comm_r_old" "$bad/snap-other.json" \
    "$work/out-s" "$fs" split --kind snap --input "$bad/snap-other.json" --out-dir "$work/out-s"
# an existing out dir gets no part file either
mkdir -p "$work/out-x"
refused "split of a C1 file with another sector's vanilla proofs into an existing dir" "$bad/c1-other.json" \
    "$work/out-x/part-0.json" "$fs" split --kind porep --input "$bad/c1-other.json" --out-dir "$work/out-x"

# synth of bad part files: one line naming the part, exit 2, no .bpa
if [ -f "$work/porep/part-0.json" ] && [ -f "$work/window/part-0.json" ]; then
    "$fs" split --kind porep --input "$work/in/porep-c1-sector2.json" --out-dir "$work/s2" >/dev/null
    jq -c --slurpfile o "$work/s2/part-0.json" '.vanilla_proofs = $o[0].vanilla_proofs' "$work/porep/part-0.json" \
        >"$bad/part-porep-other.json"
    head -c 500 "$work/porep/part-0.json" >"$bad/part-truncated.json"
    jq -c '.partition = 1' "$work/porep/part-0.json" >"$bad/part-index.json"
    jq -c '.vanilla_proofs |= (.[0:100] + "A" + .[101:])' "$work/porep/part-0.json" >"$bad/part-flipped.json"
    jq -c --slurpfile o "$work/window/part-1.json" '.vanilla_proofs = $o[0].vanilla_proofs' "$work/window/part-0.json" \
        >"$bad/part-window-other.json"
    jq -c '.kind = "winning"' "$work/window/part-0.json" >"$bad/part-kind.json"
    for b in porep-other truncated index flipped window-other kind; do
        refused "synth of a bad part file ($b)" "$bad/part-$b.json" "$work/bad.bpa" \
            "${gen[@]}" --input "$bad/part-$b.json" --out "$work/bad.bpa"
    done
fi

# part files with random bytes of their vanilla proofs changed (a seeded
# mutation run, the parts' stand-in for a fuzz corpus): each is refused in
# one line with exit 2 (or, were one still valid, synthesized); never a
# crash, a hang or a .bpa of a part that was refused
if [ -f "$work/porep/part-0.json" ] && [ -f "$work/window/part-1.json" ] && [ -f "$work/snap/part-0.json" ]; then
    python3 - "$work" "${gen[@]}" <<'PY' && ok "mutated part files: each refused in one line (exit 2), none crashed" || fail "mutated part files"
import base64, json, random, subprocess, sys
work, gen = sys.argv[1], sys.argv[2:]
random.seed(45)
bad = 0
for src, field in (("porep/part-0.json", "vanilla_proofs"), ("window/part-1.json", "vanilla_proofs"),
                   ("snap/part-0.json", "vanilla_proof")):
    base = json.load(open("%s/%s" % (work, src)))
    for i in range(8):
        j = json.loads(json.dumps(base))
        v = j[field][0] if isinstance(j[field], list) else j[field]
        b = bytearray(base64.b64decode(v))
        for _ in range(random.randint(1, 4)):
            b[random.randrange(min(64, len(b)) if random.random() < 0.3 else len(b))] = random.randrange(256)
        if random.random() < 0.2:
            b = b[:random.randrange(len(b))]
        v = base64.b64encode(bytes(b)).decode()
        if isinstance(j[field], list):
            j[field][0] = v
        else:
            j[field] = v
        path, out = "%s/mut.json" % work, "%s/mut.bpa" % work
        json.dump(j, open(path, "w"))
        r = subprocess.run(gen + ["--input", path, "--out", out], capture_output=True, text=True, timeout=300)
        made = __import__("os").path.exists(out)
        if not ((r.returncode == 2 and r.stderr.count("\n") == 1 and path in r.stderr and not made)
                or (r.returncode == 0 and made)):
            print("%s mutation %d: exit %d, %s: %s" % (src, i, r.returncode, "bpa written" if made else "no bpa", r.stderr[:300]))
            bad += 1
        if made:
            __import__("os").remove(out)
sys.exit(1 if bad else 0)
PY
fi

# keys: every kind's files in the cache (the same files `partitions` names);
# a directory with two kinds' files lists those two and says the other two
# missing (exit 0); an empty one exits 2.
rc=0
"$fs" keys --cache "$cache" >"$work/keys" 2>"$work/err" || rc=$?
if [ $rc -eq 0 ] && [ "$(cut -f1,2 "$work/keys" | tr '\t\n' ' ,')" = "porep 2048,winning 2048,window 2048,snap 2048," ]; then
    ok "keys: the four 2 KiB circuits listed"
else
    fail "keys: exit $rc: $(cat "$work/keys" "$work/err" | head -c 400)"
fi
for kind in porep winning window snap; do
    "$fs" partitions --kind "$kind" --input "${input[$kind]}" --cache "$cache" >"$work/out" 2>&1 || true
    want=$(sed -n 's/^params //p' "$work/out")
    got=$(awk -F'\t' -v k="$kind" '$1 == k { print $3 }' "$work/keys")
    vk=$(awk -F'\t' -v k="$kind" '$1 == k { print $4 }' "$work/keys")
    if [ -n "$want" ] && [ "$got" = "$want" ] && [ "$vk" = "${want%.params}.vk" ] && [ -f "$vk" ]; then
        ok "keys: $kind's files are the ones its proofs use"
    else
        fail "keys: $kind: listed '$got' '$vk', partitions names '$want'"
    fi
done
mkdir -p "$work/some" "$work/none"
for kind in winning window; do
    p=$(awk -F'\t' -v k="$kind" '$1 == k { print $3 }' "$work/keys")
    ln -s "$p" "$work/some/"
    ln -s "${p%.params}.vk" "$work/some/"
done
rc=0
"$fs" keys --cache "$work/some" >"$work/out" 2>"$work/err" || rc=$?
if [ $rc -eq 0 ] && [ "$(cut -f1 "$work/out" | tr '\n' ' ')" = "winning window " ] && [ "$(wc -l <"$work/err")" = 2 ] \
    && grep -q "porep 2KiB: missing" "$work/err" && grep -q "snap 2KiB: missing" "$work/err"; then
    ok "keys: a partial directory: two listed, two missing lines"
else
    fail "keys: partial: exit $rc: $(cat "$work/out" "$work/err" | head -c 400)"
fi
rc=0
"$fs" keys --cache "$work/none" >"$work/out" 2>"$work/err" || rc=$?
[ $rc -eq 2 ] && [ ! -s "$work/out" ] && ok "keys: an empty directory: exit 2" || fail "keys: empty: exit $rc"

if [ $fails -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all checks passed"
