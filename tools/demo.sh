#!/usr/bin/env bash
# demo.sh -- the README's "main job" command: real proof jobs from circuit
# inputs through the pipeline on a fresh Debian 12 machine.
#
#   1. install the dependencies (tools/deps.sh) and build the release tree
#   2. compile examples/sha256/sha256_demo.circom (SHA-256 of a 55-byte
#      message, ~31,000 constraints, domain 2^15) for BN254 and BLS12-381
#      with the pinned circom2 (--c and --wasm), build its C++ witness
#      generator, and make an INSECURE test key with `zkslot setup`; all
#      cached in build/demo-cache/ (redone when the circuit or the pinned
#      tools change)
#   3. create a slot pool (huge pages when reserved, else tmpfs) and a
#      private state directory (build/demo/), with its own config file
#   4. start zkslot-synthd (2 workers) and zkslot-gpud (CUDA backend with a
#      GPU, else CPU) in the foreground of this script (no systemd); their
#      log lines are shown
#   5. register the keys with their witness generators (BN254: circom's C++
#      generator; BLS12-381: its wasm under Node) and submit one job of 4
#      inputs (4 messages) per curve: synthd runs the generator for each
#   6. wait, then check every proof with `zkslot verify` and with snarkjs,
#      and each partition's public digest against Python's hashlib
#   7. print a summary with the per-stage timings from the ledger (witness
#      generation, a/b/c, prove_start, finalize), stop the daemons with
#      SIGTERM (they must exit 0) and remove the pool
#
# Exit 0 only if every check passed.  Rerunnable: each run starts clean.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

step() { printf '\n== %s\n' "$*"; }

step "dependencies (tools/deps.sh)"
${ZK_DEMO_SKIP_DEPS:+:} tools/deps.sh

step "build (release, build/release)"
# CUDA, when nvcc is there: for this machine's GPU, else sm_90 only (quick)
# (and gpud's CUDA backend then; ZK_DEMO_BACKEND=cpu|cuda to choose)
archs=${ZK_CUDA_ARCHS:-90} backend=cpu
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  [ -n "${ZK_CUDA_ARCHS:-}" ] || archs=native
  backend=cuda
fi
backend=${ZK_DEMO_BACKEND:-$backend}
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$archs" >/dev/null
cmake --build build/release --target zkslot zkslot-synthd zkslot-gpud -j"$(nproc)" >/dev/null
zkslot=$root/build/release/zkslot
synthd=$root/build/release/synthd/zkslot-synthd
gpud=$root/build/release/gpud/zkslot-gpud
nm=$root/tests/interop/node_modules
snarkjs_cli=$nm/snarkjs/cli.js

step "circuit (circom2 --c --wasm, C++ generator, test key; cached in build/demo-cache)"
circuit=$root/examples/sha256/sha256_demo.circom
name=sha256_demo
tag=$(cat "$circuit" tests/interop/package-lock.json | sha256sum | cut -c1-12)
cache=$root/build/demo-cache
for curve in bn128 bls12381; do
    d=$cache/$curve-$tag
    if [ ! -f "$d/done" ]; then
        rm -rf "$d" && mkdir -p "$d"
        t0=$(date +%s)
        # circom2 (WASI) reads only files below its working directory: run it from /
        (cd / && node "$nm/circom2/cli.js" "$circuit" --r1cs --wasm --c --prime "$curve" \
            -l "$nm" -o "$d") >"$d/circom.log" 2>&1 || { tail -n 20 "$d/circom.log"; exit 1; }
        make -C "$d/${name}_cpp" -j"$(nproc)" >"$d/make.log" 2>&1 || { tail -n 20 "$d/make.log"; exit 1; }
        "$zkslot" setup "$d/$name.r1cs" "$d/key.zkey" --curve "$curve" >/dev/null
        "$zkslot" export-vk "$d/key.zkey" "$d/vk.json"
        touch "$d/done"
        echo "$curve: compiled, generator built, key made in $(( $(date +%s) - t0 )) s"
    else
        echo "$curve: cached ($d)"
    fi
done

demo=$root/build/demo
pool=/dev/shm/zkslot-demo.pool
rm -rf "$demo"
mkdir -p "$demo/state"
cat >"$demo/zkslot.conf" <<EOF
# the demo's own configuration (the production one is /etc/zkslot/zkslot.conf)
[zkslot]
state_dir = $demo/state
poll_ms = 20
[pool]
path = $pool
[synthd]
# the witness generators synthd may run: those built above (docs/synthesis.md)
generators = $cache
EOF
chmod -R go-w "$cache"   # writable by no one but this user, or synthd refuses them
export ZKSLOT_CONFIG=$demo/zkslot.conf
unset ZKSLOT_POOL ZKSLOT_STATE_DIR

pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    "$zkslot" pool destroy --pool "$pool" >/dev/null 2>&1 || true
}
trap cleanup EXIT

step "pool ($pool)"
"$zkslot" pool destroy --pool "$pool" >/dev/null 2>&1 || true   # a previous demo's
"$zkslot" pool create --pool "$pool" --slots 4 --slot-size 8M

step "daemons (foreground children of this script; log lines prefixed synthd/gpud)"
"$synthd" --workers 2 &
pids+=($!)
"$gpud" --backend "$backend" --self-verify yes &
pids+=($!)
sleep 0.5

step "keys (with their witness generators) and jobs (4 inputs each)"
mkdir -p "$demo/inputs"
python3 - "$demo/inputs" <<'PY'
import hashlib, json, sys
for k in range(1, 5):
    msg = ("zkslot main job: message %d of 4, proven from input" % k).ljust(55, ".").encode()
    assert len(msg) == 55
    bits = [str((byte >> (7 - i)) & 1) for byte in msg for i in range(8)]
    json.dump({"in": bits}, open("%s/input-%d.json" % (sys.argv[1], k), "w"))
    d = hashlib.sha256(msg).digest()
    json.dump([str(int.from_bytes(d[:16], "big")), str(int.from_bytes(d[16:], "big"))],
              open("%s/expect-%d.json" % (sys.argv[1], k), "w"))
PY
jobs=()
for curve in bn128 bls12381; do
    d=$cache/$curve-$tag
    if [ "$curve" = bn128 ]; then gen=$d/${name}_cpp/$name; else gen=$d/${name}_js; fi
    "$zkslot" key add "demo-$curve" "$d/key.zkey" --witness-gen "$gen"
    job=$("$zkslot" submit --key "demo-$curve" --input "$demo"/inputs/input-[1-4].json)
    echo "submitted job $job: 4 inputs for $curve"
    jobs+=("$curve:$job")
done

step "wait"
fail=0
for cj in "${jobs[@]}"; do
    job=${cj#*:}
    if ! "$zkslot" wait "$job" --timeout 300; then
        echo "job $job did not finish"; fail=1
    fi
done

step "verify every proof (zkslot verify, snarkjs groth16 verify)"
summary=()
for cj in "${jobs[@]}"; do
    curve=${cj%%:*} job=${cj#*:}
    vk=$cache/$curve-$tag/vk.json
    ok=0 sj=0 dg=0 n=0
    while read -r proof public; do
        n=$((n + 1))
        "$zkslot" verify "$vk" "$public" "$proof" >/dev/null && ok=$((ok + 1))
        if [ -f "$snarkjs_cli" ] && node "$snarkjs_cli" groth16 verify "$vk" "$public" "$proof" >/dev/null; then
            sj=$((sj + 1))
        fi
        # partition k-1 proves input k: its public digest is hashlib's
        cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])))' "$public") \
               <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])))' \
                 "$demo/inputs/expect-$n.json") && dg=$((dg + 1))
    done < <("$zkslot" result "$job")
    [ "$n" = 4 ] && [ "$ok" = 4 ] && [ "$sj" = 4 ] && [ "$dg" = 4 ] || fail=1
    summary+=("$(printf '%-9s job %-3s %d proofs: zkslot verify %d/4 OK, snarkjs verify %d/4 OK, digest = hashlib %d/4' \
        "$curve" "$job" "$n" "$ok" "$sj" "$dg")")
done

step "stop the daemons (SIGTERM: they finish what they hold and exit 0)"
for p in "${pids[@]}"; do
    kill -TERM "$p"
    if ! wait "$p"; then echo "daemon $p did not exit cleanly"; fail=1; fi
done
pids=()

step "summary"
for cj in "${jobs[@]}"; do
    "$zkslot" status "${cj#*:}"
    echo
done
echo "per-stage timings, median of the 4 partitions (seconds):"
printf '  %-9s %9s %9s %11s %9s %9s\n' curve witness "a,b,c" prove_start finalize generator
for cj in "${jobs[@]}"; do
    curve=${cj%%:*}
    "$zkslot" status "${cj#*:}" --json | python3 -c '
import json, statistics, sys
s = json.load(sys.stdin)
parts = s.get("partitions") or s["job"]["partitions"]
med = lambda k: statistics.median(p[k] for p in parts if p[k] is not None)
w = med("witness_s")
abc = statistics.median(p["synth_s"] - p["witness_s"] for p in parts)
print("  %-9s %9.3f %9.3f %11.3f %9.3f %9s" % (sys.argv[1], w, abc, med("start_s"),
      med("finalize_s"), "C++" if sys.argv[1] == "bn128" else "wasm/Node"))' "$curve"
done
printf '%s\n' "${summary[@]}"
echo "proofs and public inputs: build/demo/state/jobs/<job>/<partition>/"
if [ $fail -ne 0 ]; then
    echo "demo: FAILED"
    exit 1
fi
echo "demo: all checks passed"
