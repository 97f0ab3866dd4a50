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
#   zkslot --pool:   the service instead: a private tmpfs pool (2 slots of
#                    512 MiB), one synthd (1 worker) and one gpud (CPU
#                    backend) started once, the keys from `zkslot key add
#                    --filecoin` (gpud serving the kind's alone: `[gpud]
#                    keys`), one job of the kind proved first and not
#                    counted (gpud's key store built, as on a running
#                    farm); each run is `zkslot submit --filecoin KIND
#                    INPUT` to the end of `zkslot wait`.  Its memory is the
#                    peak, sampled every 50 ms, of the summed proportional
#                    set size (PSS: shared pages, the slot and the key
#                    store, counted once) of synthd, gpud, the submitting
#                    CLI and everything they started (the generator, the
#                    split); its proof (`zkslot result --out`) is checked
#                    as above.
#
# The bar (issue 45): zkslot's wall at most 0.7x, its peak RSS at most 1.0x
# filecoin-proofs' (medians).  Each run's figures and the medians are
# printed; one line per bench is appended to a CSV (the kind column says
# "KIND/pool" for --pool).
#
#   tools/bench-c2.sh [--kind porep|winning|window|snap] [--runs N] [--pool]
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
kind=porep runs=3 build=$here/build/release input="" csv="" pool=0
die() { echo "bench-c2: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --kind) kind=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --build) build=${2:?}; shift 2 ;;
    --input) input=${2:?}; shift 2 ;;
    --csv) csv=${2:?}; shift 2 ;;
    --pool) pool=1; shift ;;
    -h|--help) sed -n '2,49p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
daemons=()
cleanup() {
  local p i
  for p in "${daemons[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${daemons[@]}"; do
    for ((i = 0; i < 50; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  if ((pool)); then "$zk" pool destroy >/dev/null 2>&1 || rm -f "$ZKSLOT_POOL" "$ZKSLOT_POOL".*; fi
  rm -rf "$work"
}
trap cleanup EXIT

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

# pool_start: the service of --pool, its first job proved and not counted
pool_start() {
  export ZKSLOT_POOL=/dev/shm/zkslot-bench-c2-$$.pool ZKSLOT_STATE_DIR=$work/state
  export ZKSLOT_CONFIG=$work/zkslot.conf ZKSLOT_FIL_SYNTH=$work/gen/zkslot-fil-synth
  mkdir -p "$work/state" "$work/gen"
  install -m 0755 "$fs" "$ZKSLOT_FIL_SYNTH"
  printf '[synthd]\ngenerators = %s\n' "$work/gen" >"$ZKSLOT_CONFIG"
  "$zk" pool create --slots 2 --slot-size 512M --tmpfs >/dev/null 2>&1 || die "pool create failed"
  "$zk" key add --filecoin "$cache" --synth "$ZKSLOT_FIL_SYNTH" >"$work/keyadd" 2>&1 ||
    { cat "$work/keyadd" >&2; die "key add --filecoin failed"; }
  # gpud serves (and keeps resident) this kind's key alone: the others'
  # stores are not this proof's memory
  local key
  key=$("$zk" key list 2>/dev/null | awk -v k="fil-$kind-" 'index($1, k) == 1 { print $1; exit }')
  [ -n "$key" ] || die "no key fil-$kind-* registered from $cache"
  printf '[gpud]\nkeys = %s\n' "$key" >>"$ZKSLOT_CONFIG"
  "$build/synthd/zkslot-synthd" --workers 1 >>"$work/synthd.log" 2>&1 &
  daemons+=($!)
  "$build/gpud/zkslot-gpud" --backend cpu >>"$work/gpud.log" 2>&1 &
  daemons+=($!)
  disown -a   # killed at the end, said nowhere
  local j
  j=$("$zk" submit --filecoin "$kind" "$input") || die "submit --filecoin $kind failed"
  "$zk" wait "$j" --timeout 3600 >"$work/wait" 2>&1 ||
    { tail -n 3 "$work/wait" "$work/synthd.log" "$work/gpud.log" >&2; die "the first job failed"; }
}

# run_pool: one C2 through the service; prints "wall peak_pss_kib"
run_pool() {
  local t0 t1 j sp
  python3 - "$work/peak" "${daemons[@]}" <<'PY' &
import os, signal, sys, time
out, roots = sys.argv[1], {int(p) for p in sys.argv[2:]}
peak, stop = 0, False
def on_term(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)
def pss(pid):
    try:
        for line in open("/proc/%d/smaps_rollup" % pid):
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0
while not stop:
    par = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                st = open("/proc/%s/stat" % d).read()
                par[int(d)] = int(st[st.rindex(")") + 2:].split()[1])
            except (OSError, ValueError):
                pass
    want = set(roots)
    if os.path.exists(out + ".cli"):
        try:
            want.add(int(open(out + ".cli").read()))
        except ValueError:
            pass
    grew = True
    while grew:
        new = {p for p, pp in par.items() if pp in want} - want
        grew = bool(new)
        want |= new
    peak = max(peak, sum(pss(p) for p in want))
    time.sleep(0.05)
open(out, "w").write("%d\n" % peak)
PY
  sp=$!
  rm -f "$work/peak" "$work/peak.cli"
  t0=$(date +%s.%N)
  "$zk" submit --filecoin "$kind" "$input" >"$work/job" 2>"$work/err" &
  echo $! >"$work/peak.cli"
  wait $! || { cat "$work/err" >&2; die "submit --filecoin $kind failed"; }
  j=$(cat "$work/job")
  "$zk" wait "$j" --timeout 3600 >"$work/wait" 2>&1 || { tail -n 3 "$work/wait" >&2; die "job $j failed"; }
  t1=$(date +%s.%N)
  kill -TERM "$sp"
  wait "$sp" || true
  "$zk" result "$j" --out "$work/zk.proof" >/dev/null || die "result $j failed"
  "$fs" verify --kind "$kind" --input "$input" --proof "$work/zk.proof" --cache "$cache" >"$work/v" 2>&1 \
    || { cat "$work/v" >&2; die "the pool's proof is not accepted by filecoin-proofs"; }
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(cat "$work/peak")"
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
run_z=run_zkslot
if ((pool)); then
  pool_start
  run_z=run_pool
  echo "zkslot: through the pool (synthd 1 worker, gpud cpu; the first job, not counted, done); memory as PSS"
fi
for ((i = 1; i <= runs; i++)); do
  if ((i % 2)); then z=$($run_z); r=$(run_ref); else r=$(run_ref); z=$($run_z); fi
  zkw+=("${z% *}") zkr+=("${z#* }") refw+=("${r% *}") refr+=("${r#* }")
  echo "run $i: zkslot ${z% *} s ${z#* } KiB, filecoin-proofs ${r% *} s ${r#* } KiB"
done
((pool == 0)) || kind=$kind/pool
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
