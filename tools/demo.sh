#!/usr/bin/env bash
# demo.sh -- the README's "main job" command: a real proof job through the
# pipeline on a fresh Debian 12 machine.
#
#   1. install the dependencies (tools/deps.sh) and build the release tree
#   2. create a slot pool (huge pages when reserved, else tmpfs) and a
#      private state directory (build/demo/), with its own config file
#   3. start zkslot-synthd (2 workers) and zkslot-gpud (CUDA backend with a
#      GPU, else CPU) in the
#      foreground of this script (no systemd); their log lines are shown
#   4. register the bundled keys (examples/groth16/<curve>/key.zkey) and
#      submit one job of 4 partitions per curve (witness-1..4.wtns)
#   5. wait, then check every proof with `zkslot verify` and with snarkjs
#   6. print a summary with the per-stage timings from the ledger, stop the
#      daemons with SIGTERM (they must exit 0) and remove the pool
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
snarkjs_cli=$root/tests/interop/node_modules/snarkjs/cli.js

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
EOF
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
"$zkslot" pool create --pool "$pool" --slots 4 --slot-size 2M

step "daemons (foreground children of this script; log lines prefixed synthd/gpud)"
"$synthd" --workers 2 &
pids+=($!)
"$gpud" --backend "$backend" --self-verify yes &
pids+=($!)
sleep 0.5

step "keys and jobs"
jobs=()
for dir in examples/groth16/*/; do
    curve=$(basename "$dir")
    "$zkslot" key add "demo-$curve" "$dir/key.zkey"
    job=$("$zkslot" submit --key "demo-$curve" "$dir"/witness-[1-4].wtns)
    echo "submitted job $job: 4 partitions of $dir"
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
    vk=examples/groth16/$curve/vk.json
    ok=0 sj=0 n=0
    while read -r proof public; do
        n=$((n + 1))
        "$zkslot" verify "$vk" "$public" "$proof" >/dev/null && ok=$((ok + 1))
        if [ -f "$snarkjs_cli" ] && node "$snarkjs_cli" groth16 verify "$vk" "$public" "$proof" >/dev/null; then
            sj=$((sj + 1))
        fi
    done < <("$zkslot" result "$job")
    [ "$n" = 4 ] && [ "$ok" = 4 ] && [ "$sj" = 4 ] || fail=1
    summary+=("$(printf '%-9s job %-3s %d proofs: zkslot verify %d/4 OK, snarkjs verify %d/4 OK' \
        "$curve" "$job" "$n" "$ok" "$sj")")
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
printf '%s\n' "${summary[@]}"
echo "proofs and public inputs: build/demo/state/jobs/<job>/<partition>/"
if [ $fail -ne 0 ]; then
    echo "demo: FAILED"
    exit 1
fi
echo "demo: all checks passed"
