#!/usr/bin/env bash
# bench-c2.sh -- issue 45's bar, side by side in one run on the same input:
# zkslot's C2 (synthesis + proof, CPU backend) against filecoin-proofs' own
# prover (CPU), wall time and peak RSS, medians of RUNS runs each, the two
# sides alternating (odd runs zkslot first, even runs filecoin-proofs first).
#
#   zkslot:          zkslot-fil-synth split, then per part `synth --input
#                    PART --out BPA` and `zkslot bp prove PARAMS BPA PROOF`;
#                    its wall is the sum of those processes' walls, its RSS
#                    the largest of their peaks (they run one after another).
#                    The concatenated proof is checked by filecoin-proofs'
#                    verifier on the original input (not timed): a run whose
#                    proof is rejected stops the bench.
#   filecoin-proofs: zkslot-fil-synth prove-ref on the same input: for PoRep
#                    seal_commit_phase2 (filecoin-proofs-api: loads the
#                    parameters, synthesizes, proves, verifies its proof), for
#                    PoSt generate_{winning,window}_post_with_vanilla, for
#                    SnapDeals generate_empty_sector_update_proof_with_vanilla.
#
# The bar (issue 45): zkslot's wall at most 0.7x, its peak RSS at most 1.0x
# filecoin-proofs' (medians).  Each run's figures and the medians are
# printed; one line per bench is appended to a CSV.  The zkslot side is the
# per-partition CLI path; swap run_zkslot for the pool path (zkslot submit)
# when it exists.
#
#   tools/bench-c2.sh [--kind porep|winning|window|snap] [--runs N]
#                     [--build DIR] [--input FILE] [--csv FILE]
#
# --kind (default porep) picks the input `zkslot-fil-synth sectors` makes
# (2 KiB sectors, made once per bench) unless --input names one.  --build
# holds zkslot (default build/release); zkslot-fil-synth comes from
# $ZK_CARGO_TARGET (default /var/cache/zkslot/cargo-target, release/);
# parameters from ${ZK_FIL_CACHE:-/var/cache/zkslot/fil-params}.  --csv
# defaults to BUILD/bench-c2.csv.  Exit 0 when the bench ran (whatever the
# bar says), 2 on bad usage or a failed step.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kind=porep runs=3 build=$here/build/release input="" csv=""
die() { echo "bench-c2: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --kind) kind=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --build) build=${2:?}; shift 2 ;;
    --input) input=${2:?}; shift 2 ;;
    --csv) csv=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help)" ;;
  esac
done
case $kind in porep|winning|window|snap) ;; *) die "--kind '$kind': not porep, winning, window or snap" ;; esac
case $runs in ''|*[!0-9]*|0) die "--runs '$runs': not a positive count" ;; esac
zk=$build/zkslot
tgt=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target}
fs=$tgt/release/zkslot-fil-synth
[ -x "$fs" ] || fs=$tgt/zkslot-fil-synth
cache=${ZK_FIL_CACHE:-/var/cache/zkslot/fil-params}
csv=${csv:-$build/bench-c2.csv}
[ -x "$zk" ] || die "no $zk (build it, or --build DIR)"
[ -x "$fs" ] || die "no zkslot-fil-synth in $tgt (tools/cargo-build.sh)"
[ -x /usr/bin/time ] || die "/usr/bin/time is needed (apt-get install time)"
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-c2.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -z "$input" ]; then
  "$fs" sectors --cache "$cache" --out "$work/in" --seed 7 >/dev/null || die "sectors failed"
  case $kind in porep) input=$work/in/porep-c1.json ;; *) input=$work/in/$kind.json ;; esac
fi
[ -f "$input" ] || die "--input $input: no such file"
"$fs" partitions --kind "$kind" --input "$input" --cache "$cache" >"$work/plan" || die "partitions of $input failed"
params=$(sed -n 's/^params //p' "$work/plan")
nparts=$(sed -n 's/^partitions //p' "$work/plan")
[ -f "$params" ] || die "no parameter file $params (zkslot-fil-synth params --cache $cache)"

# timed NAME CMD...: runs CMD; appends "wall_s rss_kib" to $work/NAME
timed() {
  local name=$1 t0 t1 rss
  shift
  t0=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$work/rss" "$@" >"$work/out" 2>"$work/err" \
    || { cat "$work/out" "$work/err" >&2; die "failed: $*"; }
  t1=$(date +%s.%N)
  rss=$(tail -n 1 "$work/rss")
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $rss" >>"$work/$name"
}

# run_zkslot: one C2 through zkslot; prints "wall rss" (summed wall, max RSS)
run_zkslot() {
  local d=$work/zk k
  rm -rf "$d" "$work/steps"
  timed steps "$fs" split --kind "$kind" --input "$input" --out-dir "$d"
  : >"$work/zk.proof"
  for ((k = 0; k < nparts; k++)); do
    timed steps "$fs" synth --input "$d/part-$k.json" --out "$d/$k.bpa"
    timed steps "$zk" bp prove "$params" "$d/$k.bpa" "$d/$k.proof"
    rm -f "$d/$k.bpa"
    cat "$d/$k.proof" >>"$work/zk.proof"
  done
  "$fs" verify --kind "$kind" --input "$input" --proof "$work/zk.proof" --cache "$cache" >"$work/v" 2>&1 \
    || { cat "$work/v" >&2; die "zkslot's proof is not accepted by filecoin-proofs"; }
  awk '{ w += $1; if ($2 > r) r = $2 } END { printf "%.3f %d\n", w, r }' "$work/steps"
}

# run_ref: filecoin-proofs' own prover; prints "wall rss"
run_ref() {
  rm -f "$work/steps"
  timed steps "$fs" prove-ref --kind "$kind" --input "$input" --out "$work/ref.proof" --cache "$cache"
  cat "$work/steps"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input: $kind, $input ($nparts partition(s)), parameters $params"
zkw=() zkr=() refw=() refr=()
for ((i = 1; i <= runs; i++)); do
  if ((i % 2)); then z=$(run_zkslot); r=$(run_ref); else r=$(run_ref); z=$(run_zkslot); fi
  zkw+=("${z% *}") zkr+=("${z#* }") refw+=("${r% *}") refr+=("${r#* }")
  echo "run $i: zkslot ${z% *} s ${z#* } KiB, filecoin-proofs ${r% *} s ${r#* } KiB"
done
python3 - "$csv" "$kind" "$input" "$nparts" "${zkw[*]}" "${zkr[*]}" "${refw[*]}" "${refr[*]}" <<'PY'
import os, statistics, sys, time, socket
csv, kind, inp, nparts = sys.argv[1:5]
zw, zr, rw, rr = ([float(x) for x in a.split()] for a in sys.argv[5:9])
m = statistics.median
wall, rss = m(zw) / m(rw), m(zr) / m(rr)
print("median: zkslot %.3f s %d KiB, filecoin-proofs %.3f s %d KiB" % (m(zw), m(zr), m(rw), m(rr)))
print("ratio zkslot/filecoin-proofs: wall %.2f (bar <= 0.70: %s), peak RSS %.2f (bar <= 1.00: %s)"
      % (wall, "met" if wall <= 0.7 else "NOT met", rss, "met" if rss <= 1.0 else "NOT met"))
new = not os.path.exists(csv)
with open(csv, "a") as f:
    if new:
        f.write("time,host,cores,load1,kind,input,partitions,runs,zkslot_wall_s,zkslot_rss_kib,"
                "ref_wall_s,ref_rss_kib,wall_ratio,rss_ratio,zkslot_walls,ref_walls\n")
    f.write("%s,%s,%d,%s,%s,%s,%s,%d,%.3f,%d,%.3f,%d,%.3f,%.3f,%s,%s\n" % (
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), socket.gethostname(), os.cpu_count(),
        open("/proc/loadavg").read().split()[0], kind, os.path.basename(inp), nparts, len(zw),
        m(zw), m(zr), m(rw), m(rr), wall, rss,
        " ".join("%.3f" % x for x in zw), " ".join("%.3f" % x for x in rw)))
print("appended to %s" % csv)
PY
