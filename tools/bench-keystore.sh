#!/usr/bin/env bash
# bench-keystore.sh -- zkslot-gpud's restart to its first proof with the
# key resident in its store (docs/keystore.md) against a cold start (no
# store: the key read from its .zkey and the store built), in the same run.
#
#   tools/bench-keystore.sh [BUILD_DIR] [--n N] [--repeats K] [--threads T]
#
# The circuit is a chain of N multiplications for BN254 (default N =
# 600000: domain 2^20; t0 = x*y, t_i = t_{i-1}*y + i, out = t_{N-1}), its
# .r1cs and .wtns written by the Python below (circom2 needs tens of
# minutes for it here), its key made by `zkslot setup`, all cached under
# BUILD_DIR/bench-keystore.  A private pool, ledger and zkslot-synthd; each
# run submits a job of one partition and waits until it is synthesized
# (its slot READY) with no gpud running; then zkslot-gpud (CPU backend, T
# threads, default all CPUs) is started and timed until the job is done.
# Runs alternate cold (the store removed first) and resident, K of each
# (default 3), after one cold warm-up run (not counted).  Printed per
# mode, medians: restart to first proof (wall, from gpud's exec to
# `zkslot wait`'s return), the proof itself (prove_start + finalize from
# the ledger), the restart's own cost (the first minus the second: start,
# key load, claim, output), gpud's "key ready in" figure, then the
# resident/cold ratios.  The .zkey is in the page cache in both modes (a
# cold start from disk is slower still).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
n=600000
repeats=3
threads=$(nproc)
while [ $# -gt 0 ]; do
    case "$1" in
    --n) n=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench-keystore: unknown option $1" >&2; exit 2 ;;
    *) build=$(cd "$1" && pwd); shift ;;
    esac
done
zkslot=$build/zkslot
synthd=$build/synthd/zkslot-synthd
gpud=$build/gpud/zkslot-gpud
for b in "$zkslot" "$synthd" "$gpud"; do
    [ -x "$b" ] || { echo "bench-keystore: no $b (build first)" >&2; exit 2; }
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }

cache=$build/bench-keystore
mkdir -p "$cache"
r1cs=$cache/chain_$n.r1cs wtns=$cache/chain_$n.wtns key=$cache/chain_$n.zkey
if [ ! -f "$r1cs" ] || [ ! -f "$wtns" ]; then
    echo "circuit: chain of $n multiplications, BN254 (.r1cs and .wtns in $cache)" >&2
    python3 - "$n" "$r1cs.tmp" "$wtns.tmp" <<'PY'
import struct, sys
n, r1cs, wtns = int(sys.argv[1]), sys.argv[2], sys.argv[3]
r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
x, y = 3, 5
fe = lambda v: (v % r).to_bytes(32, "little")
one = fe(1)
t = lambda k: 4 + k                      # wires: 1, out, x, y, t_0 .. t_{n-2}
nwires = n + 3
lc = lambda terms: struct.pack("<I", len(terms)) + b"".join(struct.pack("<I", w) + c for w, c in terms)
cons = []
for i in range(n):
    dst = 1 if i == n - 1 else t(i)
    if i == 0:
        cons.append(lc([(2, one)]) + lc([(3, one)]) + lc([(dst, one)]))
    else:                                # t_{i-1} * y = dst - i
        cons.append(lc([(t(i - 1), one)]) + lc([(3, one)]) + lc([(0, fe(-i)), (dst, one)]))
hdr = struct.pack("<I", 32) + r.to_bytes(32, "little") + struct.pack("<IIIIQI", nwires, 1, 1, 1, nwires, n)
body = b"".join(cons)
labels = b"".join(struct.pack("<Q", i) for i in range(nwires))
sec = lambda i, p: struct.pack("<IQ", i, len(p)) + p
with open(r1cs, "wb") as f:
    f.write(b"r1cs" + struct.pack("<II", 1, 3) + sec(1, hdr) + sec(2, body) + sec(3, labels))
w = [1, 0, x, y] + [0] * (n - 1)
v = x * y % r
for i in range(1, n):                    # v = t_{i-1}, then dst_i
    w[t(i - 1)] = v
    v = (v * y + i) % r
w[1] = v                                 # out
wh = struct.pack("<I", 32) + r.to_bytes(32, "little") + struct.pack("<I", nwires)
with open(wtns, "wb") as f:
    f.write(b"wtns" + struct.pack("<II", 2, 2) + sec(1, wh) + sec(2, b"".join(fe(a) for a in w)))
PY
    mv "$r1cs.tmp" "$r1cs" && mv "$wtns.tmp" "$wtns"
fi
if [ ! -f "$key" ] || [ "$key" -ot "$r1cs" ]; then
    echo "key: zkslot setup (2^20 takes minutes)" >&2
    "$zkslot" setup "$r1cs" "$key.tmp" --curve bn128 >/dev/null && mv "$key.tmp" "$key"
fi

w=$(mktemp -d /tmp/zkslot-bench-keystore.XXXXXX)
export ZKSLOT_POOL=/dev/shm/zkslot-bench-keystore-$$.pool ZKSLOT_STATE_DIR=$w/state
export ZKSLOT_CONFIG=$w/none.conf
: >"$ZKSLOT_CONFIG"
synthd_pid= gpud_pid=
cleanup() {
    [ -z "$gpud_pid" ] || kill -9 "$gpud_pid" 2>/dev/null || true
    [ -z "$synthd_pid" ] || kill -9 "$synthd_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    "$zkslot" pool destroy --force >/dev/null 2>&1 || true
    rm -rf "$w"
}
trap cleanup EXIT
slot=$({ "$zkslot" plan --key "$key" --json 2>/dev/null || true; } | python3 -c 'import json,sys; print(json.load(sys.stdin)["slot_size"])')
"$zkslot" pool create --slots 2 --slot-size "$slot" --tmpfs >/dev/null
"$zkslot" key add bench "$key" >/dev/null
"$synthd" --workers 1 --threads "$threads" >>"$w/synthd.log" 2>&1 &
synthd_pid=$!

# state JOB: the state of its one partition
state() { "$zkslot" status "$1" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print((s.get("partitions") or s["job"]["partitions"])[0]["state"])'; }
# proof_s JOB: prove_start + finalize of its one partition (ledger)
proof_s() { "$zkslot" status "$1" --json | python3 -c 'import json,sys; s=json.load(sys.stdin); p=(s.get("partitions") or s["job"]["partitions"])[0]; print(p["start_s"] + p["finalize_s"])'; }

# run MODE: one restart-to-first-proof; appends "wall ready proof" to $w/MODE
run() {
    local mode=$1 job i t0 t1 ready
    if [ "$mode" = cold ]; then "$zkslot" key unload bench >/dev/null 2>&1 || true; fi
    job=$("$zkslot" submit --key bench "$wtns")
    for ((i = 0; i < 6000; i++)); do [ "$(state "$job")" = ready ] && break; sleep 0.1; done
    [ "$(state "$job")" = ready ] || { echo "bench-keystore: job $job never became ready" >&2; exit 1; }
    : >"$w/gpud.log"
    t0=$(now)
    "$gpud" --backend cpu --threads "$threads" >>"$w/gpud.log" 2>&1 &
    gpud_pid=$!
    "$zkslot" wait "$job" --timeout 600 >/dev/null
    t1=$(now)
    kill -TERM "$gpud_pid"; wait "$gpud_pid" 2>/dev/null || true
    gpud_pid=
    ready=$(sed -n 's/.*key bench: ready in \([0-9.]*\) s.*/\1/p' "$w/gpud.log" | head -n 1)
    grep -q "key bench: ready in .*$( [ "$mode" = cold ] && echo "store .* built" || echo "from its store")" "$w/gpud.log" ||
        { echo "bench-keystore: $mode run: gpud did not load the key as expected:" >&2; grep "key bench" "$w/gpud.log" >&2; exit 1; }
    awk -v a="$t0" -v b="$t1" -v k="$ready" -v p="$(proof_s "$job")" \
        'BEGIN { printf "%.3f %.3f %.3f %.3f\n", b - a, p, b - a - p, k }' >>"$w/$mode"
    tail -n 1 "$w/$mode" | awk -v m="$mode" '{ printf "  %s: restart to first proof %s s (proof %s s, restart %s s, key ready %s s)\n", m, $1, $2, $3, $4 }' >&2
}

"$zkslot" key status | sed 's/^/  /' >&2
run cold            # warm-up: page cache, first store (not counted)
: >"$w/cold"
for ((r = 0; r < repeats; r++)); do run cold; run resident; done
col() { awk -v c="$2" '{ print $c }' "$w/$1" | median; }
printf '%-10s %20s %10s %12s %15s\n' mode "restart->proof (s)" "proof (s)" "restart (s)" "key ready (s)"
for m in cold resident; do
    printf '%-10s %20.3f %10.3f %12.3f %15.3f\n' "$m" "$(col $m 1)" "$(col $m 2)" "$(col $m 3)" "$(col $m 4)"
done
awk -v a="$(col resident 1)" -v b="$(col cold 1)" -v c="$(col resident 3)" -v d="$(col cold 3)" \
    -v e="$(col resident 4)" -v f="$(col cold 4)" \
    'BEGIN { printf "resident/cold: restart->proof %.3f, restart %.3f, key ready %.4f (medians of %d runs each, same run; Chain(%d))\n", a / b, c / d, e / f, '"$repeats"', '"$n"' }'
"$zkslot" key status | awk 'NR > 1 { print "store: " $3 " " $4 }'
