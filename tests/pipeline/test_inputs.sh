#!/usr/bin/env bash
# test_inputs.sh -- jobs from circuit inputs through the real pipeline, on
# both curves, with circom's C++ and wasm witness generators run by synthd:
#   - the two generators' witnesses are byte-identical to snarkjs's;
#   - a job of 4 inputs per generator: every proof accepted by snarkjs and
#     `zkslot verify`, partition k proving input k's public signals;
#   - an input the circuit rejects (b = 2: a constraint that does not hold)
#     and one with a wrong signal name fail their partition on the first
#     attempt, with the generator's own message in `zkslot status`, and
#     the job fails; the daemons keep running and a later job completes;
#   - malformed JSON is refused at submit with file:line:column, and
#     nothing of that submit is queued;
#   - `zkslot prove --input` gives a proof snarkjs accepts.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
pl_init inputs || exit 77

pl_pool 3
pli_allow "$ZK_INTEROP_WORK" "$PL_W/genjs"   # where pli_circuit builds the generators
pl_start_synthd --workers 2
pl_start_gpud
in="$PL_W/in"
mkdir -p "$in"
for curve in bn128 bls12381; do
    pli_circuit "$curve" || { pl_bad "circuit $curve"; continue; }
    pli_key_add "$curve-cpp" --witness-gen "$PLI_CPP"
    pli_key_add "$curve-wasm" --witness-gen "$PLI_JS"
    refs=()
    for i in 0 1 2 3; do
        pli_input $((i + 2)) $((i + 7)) $((i % 2)) >"$in/$curve-$i.json"
        pli_reference "$in/$curve-$i.json" "$in/$curve-$i.ref.wtns"
        refs+=("$in/$curve-$i.ref.wtns")
    done
    # the generators agree with snarkjs byte for byte
    "$PLI_CPP" "$in/$curve-0.json" "$in/$curve-0.cpp.wtns" >/dev/null
    node "$PLI_JS/generate_witness.js" "$PLI_JS/inputs.wasm" "$in/$curve-0.json" "$in/$curve-0.js.wtns"
    cmp "$in/$curve-0.cpp.wtns" "$in/$curve-0.js.wtns" || pl_bad "$curve: C++ and wasm witnesses differ"
    cmp "$in/$curve-0.cpp.wtns" "$in/$curve-0.ref.wtns" || pl_bad "$curve: C++ witness is not snarkjs's"

    for gen in cpp wasm; do
        j=$("$ZKSLOT" submit --key "$curve-$gen" --input "$in/$curve-0.json" "$in/$curve-1.json" \
            "$in/$curve-2.json" "$in/$curve-3.json")
        pl_expect "$j" "${refs[@]}"
        pl_wait "$j" 300 && pl_check_job "$j" 4 && echo "ok: $curve $gen job $j: $PL_NPROOFS proofs accepted"
        ws=$(pli_part_field "$j" 0 witness_s)
        python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)' "$ws" ||
            pl_bad "$curve $gen: no witness time recorded ($ws)"
    done
done

# rejected inputs: one attempt, the generator's message, the job failed
curve=bn128
pli_circuit "$curve"
pli_input 3 5 2 >"$in/bad-assert.json"
printf '{"x": "3", "y": "5", "q": "1"}\n' >"$in/bad-name.json"
pli_input 4 5 0 >"$in/good.json"
for gen in cpp wasm; do
    for bad in bad-assert bad-name; do
        j=$("$ZKSLOT" submit --key "$curve-$gen" --input "$in/good.json" "$in/$bad.json")
        rc=0
        "$ZKSLOT" wait "$j" --timeout 120 >/dev/null 2>&1 || rc=$?
        [ "$rc" = 1 ] || pl_bad "$gen $bad: wait exit $rc, expected 1 (job failed)"
        st=$(pli_part_field "$j" 1 state)
        att=$(pli_part_field "$j" 1 attempts)
        err=$(pli_part_field "$j" 1 error)
        [ "$st" = failed ] || pl_bad "$gen $bad: partition state $st, expected failed"
        [ "$att" = 1 ] || pl_bad "$gen $bad: $att attempts, expected 1 (a rejection is not retried)"
        case "$gen/$bad" in
        cpp/bad-assert) want="Failed assert" ;;
        wasm/bad-assert) want="Assert Failed" ;;
        cpp/bad-name) want="Signal not found" ;;
        wasm/bad-name) want="input signal q" ;;
        esac
        case "$err" in
        *"rejected the input"*"$want"*) echo "ok: $gen $bad: failed at once: $err" ;;
        *) pl_bad "$gen $bad: error text '$err' lacks 'rejected the input' and '$want'" ;;
        esac
        "$ZKSLOT" status "$j" | grep -F -- "$want" >/dev/null ||
            pl_bad "$gen $bad: zkslot status does not show the generator's message"
    done
done
kill -0 "$PL_SYNTHD" && kill -0 "$PL_GPUD" || pl_bad "a daemon died on a bad job"
j=$("$ZKSLOT" submit --key "$curve-cpp" --input "$in/good.json")
pli_reference "$in/good.json" "$in/good.ref.wtns"
pl_expect "$j" "$in/good.ref.wtns"
pl_wait "$j" 120 && pl_check_job "$j" 1 && echo "ok: a job after the bad ones completes"

# malformed JSON: refused at submit, naming file:line:column; nothing queued
printf '{"x": "3",\n "y": 5,,\n' >"$in/broken.json"
before=$("$ZKSLOT" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
rc=0
"$ZKSLOT" submit --key "$curve-cpp" --input "$in/good.json" "$in/broken.json" 2>"$PL_W/submit.err" || rc=$?
[ "$rc" = 2 ] || pl_bad "broken JSON: submit exit $rc, expected 2"
grep -E "broken.json:2:[0-9]+: " "$PL_W/submit.err" >/dev/null ||
    pl_bad "broken JSON: no file:line:column in '$(cat "$PL_W/submit.err")'"
after=$("$ZKSLOT" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$before" = "$after" ] || pl_bad "broken JSON: a job was queued ($before -> $after jobs)"
# a key without a generator cannot take inputs; a .json without --input is caught
"$ZKSLOT" key add nogen "$PLI_KEY" >/dev/null
rc=0; "$ZKSLOT" submit --key nogen --input "$in/good.json" 2>"$PL_W/submit.err" || rc=$?
[ "$rc" = 2 ] && grep -F -- "--witness-gen" "$PL_W/submit.err" >/dev/null ||
    pl_bad "a key without a generator took inputs (exit $rc): $(cat "$PL_W/submit.err")"
rc=0; "$ZKSLOT" submit --key "$curve-cpp" "$in/good.json" 2>"$PL_W/submit.err" || rc=$?
[ "$rc" = 2 ] && grep -F -- "--input" "$PL_W/submit.err" >/dev/null ||
    pl_bad "an input submitted as a witness was not caught (exit $rc)"

# one-shot: zkslot prove --input
"$ZKSLOT" prove "$PLI_KEY" --input "$in/good.json" --witness-gen "$PLI_JS" \
    "$PL_W/p.json" "$PL_W/pub.json"
node "$ZK_SOURCE_DIR/tests/pipeline/verify_many.cjs" "$PLI_VK" "$PL_W/pub.json" "$PL_W/p.json" \
    | grep '^ok ' >/dev/null || pl_bad "zkslot prove --input: snarkjs rejects the proof"
"$ZKSLOT" verify "$PLI_VK" "$PL_W/pub.json" "$PL_W/p.json" >/dev/null ||
    pl_bad "zkslot prove --input: zkslot verify rejects the proof"

# a wasm generator whose generate_witness.js changed after key add: the
# error names the files the registered hash covers, the .js among them
mkdir -p "$PL_W/genjs" && cp -r "$PLI_JS" "$PL_W/genjs/" && chmod -R go-w "$PL_W/genjs"
pli_key_add changed-js --witness-gen "$PL_W/genjs/$(basename "$PLI_JS")"
echo "// changed" >>"$PL_W/genjs/$(basename "$PLI_JS")/generate_witness.js"
cj=$("$ZKSLOT" submit --key changed-js --input "$in/good.json")
"$ZKSLOT" wait "$cj" --timeout 60 >/dev/null 2>&1 || true
"$ZKSLOT" status "$cj" | grep -q "changed since .zkslot key add. (one of .*generate_witness.js" ||
    pl_bad "a changed generate_witness.js: $("$ZKSLOT" status "$cj" | grep -i error | head -n 2)"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
! ls -d /dev/shm/zkslot-synthd-*-"$PL_SYNTHD"-* >/dev/null 2>&1 || pl_bad "synthd left its witness directory in /dev/shm"
pl_pool_clean
pl_done
