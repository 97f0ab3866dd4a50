#!/usr/bin/env bash
# demo.sh -- the README's "main job" command: on a fresh Debian 12 machine,
# install the dependencies (tools/deps.sh), build the release tree into
# build/release, then for each bundled example (examples/groth16/<curve>/:
# a snarkjs-made proving key with one contribution, a witness, snarkjs's own
# verification key):
#   zkslot prove -> proof.json, public.json      (build/demo/<curve>/)
#   zkslot verify and snarkjs groth16 verify     (both must say OK)
#   zkslot export-vk == snarkjs's vk.json        (compared as JSON)
# and print a summary with timings.  Idempotent; exit 0 only if every check
# passed.  For now this is the single-process prover; the pool/synthd/gpud
# pipeline will take over this command when it lands.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

step() { printf '\n== %s\n' "$*"; }
ms() { date +%s%N; }

step "dependencies (tools/deps.sh)"
tools/deps.sh

step "build (release, build/release)"
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release --target zkslot -j"$(nproc)" >/dev/null
zkslot=$root/build/release/zkslot
snarkjs_cli=$root/tests/interop/node_modules/snarkjs/cli.js
have_snarkjs=0
if command -v node >/dev/null 2>&1 && [ -f "$snarkjs_cli" ]; then
    have_snarkjs=1
fi

fail=0
summary=()
for dir in examples/groth16/*/; do
    curve=$(basename "$dir")
    out=build/demo/$curve
    mkdir -p "$out"
    step "$curve: prove, verify, export-vk"
    t0=$(ms)
    "$zkslot" prove "$dir/key.zkey" "$dir/witness.wtns" "$out/proof.json" "$out/public.json"
    t1=$(ms)
    prove_ms=$(( (t1 - t0) / 1000000 ))
    ours=FAIL; theirs=skipped; vkeq=skipped
    if "$zkslot" verify "$dir/vk.json" "$out/public.json" "$out/proof.json"; then
        ours=OK
    else
        fail=1
    fi
    t2=$(ms)
    verify_ms=$(( (t2 - t1) / 1000000 ))
    "$zkslot" export-vk "$dir/key.zkey" "$out/vk.json"
    if [ $have_snarkjs -eq 1 ]; then
        if node "$snarkjs_cli" groth16 verify "$dir/vk.json" "$out/public.json" "$out/proof.json"; then
            theirs=OK
        else
            theirs=FAIL; fail=1
        fi
        if node -e '
const fs = require("fs"), assert = require("assert");
assert.deepStrictEqual(JSON.parse(fs.readFileSync(process.argv[1])), JSON.parse(fs.readFileSync(process.argv[2])));
' "$out/vk.json" "$dir/vk.json"; then
            vkeq=equal
        else
            vkeq=DIFFERENT; fail=1
        fi
    fi
    summary+=("$(printf '%-9s prove %5d ms  zkslot verify %-4s (%d ms)  snarkjs verify %-7s  export-vk %s' \
        "$curve" "$prove_ms" "$ours" "$verify_ms" "$theirs" "$vkeq")")
done

step "summary (outputs in build/demo/)"
printf '%s\n' "${summary[@]}"
if [ $fail -ne 0 ]; then
    echo "demo: FAILED"
    exit 1
fi
echo "demo: all checks passed"
