#!/usr/bin/env bash
# test_api.sh -- zkslot-apid over a real pipeline (synthd, gpud on the CPU,
# circom's C++ generators), loopback only, every request bounded (curl -m,
# client timeouts, loops counted):
#   - a Python client (standard library) and curl submit jobs from circuit
#     inputs (bn128 here, bls12381 in test_api_bls12381.sh, which runs
#     this part alone); a long poll sees each done; every proof
#     fetched over the API (/proofs and /proofs/{k}) proves its input's
#     public signals (snarkjs's own witness) and snarkjs accepts it;
#   - GET /v1/keys/{name} carries the key's vk.json, export-vk's own;
#   - a repeated request_id answers 200 with the same job; after kill -9
#     of apid and a restart the client's retry still makes one job;
#   - refusals, each with its stable code and nothing queued: malformed
#     JSON (line and column), an unknown field, an input that is not an
#     object of signals, an unknown key, a wrong content type (415), a body
#     over --max-body (413); 429 with Retry-After over --max-requests while
#     a long poll holds the only slot; a held long poll does not block
#     other clients below the cap.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
curves=${APID_TEST_CURVE:-bn128}
pl_init "apid_api_$curves" || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
client="$ZK_SOURCE_DIR/tests/apid/api_client.py"
in="$PL_W/in"
mkdir -p "$in"

pl_pool 2
pli_allow "$ZK_INTEROP_WORK"   # the generators pli_circuit builds
pl_start_synthd --workers 2
pl_start_gpud
apid_start --max-body 65536

njobs() { python3 "$client" "$APID_URL" jobs; }

for curve in $curves; do
    pli_circuit "$curve" || { pl_bad "circuit $curve"; continue; }
    pli_key_add "$curve" --witness-gen "$PLI_CPP"
    pub_refs=()
    for i in 0 1; do
        pli_input $((i + 3)) $((i + 8)) "$i" >"$in/$curve-$i.json"
        pli_reference "$in/$curve-$i.json" "$in/$curve-$i.wtns"
    done
    # the key with its verification key: snarkjs's vk.json, as export-vk writes it
    code=$(apid_req GET "/v1/keys/$curve")
    python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["vk"] != json.load(open(sys.argv[2])))' \
        "$PL_W/resp" "$PLI_VK" || pl_bad "$curve: GET /v1/keys/$curve: $code, vk not export-vk's: $(head -c 300 "$PL_W/resp")"
    # the Python client
    read -r st j < <(python3 "$client" "$APID_URL" submit "$curve" "py-$curve" \
        "$in/$curve-0.json" "$in/$curve-1.json")
    [ "$st" = 201 ] || pl_bad "$curve: python submit answered $st, expected 201"
    # the same request id again: the same job, 200
    read -r st2 j2 < <(python3 "$client" "$APID_URL" submit "$curve" "py-$curve" \
        "$in/$curve-0.json" "$in/$curve-1.json")
    [ "$st2" = 200 ] && [ "$j2" = "$j" ] || pl_bad "$curve: repeated request id gave $st2 job $j2, expected 200 job $j"
    # curl
    body=$(python3 -c 'import json,sys; print(json.dumps({"key": sys.argv[1], "inputs": [json.load(open(sys.argv[2]))]}))' \
        "$curve" "$in/$curve-1.json")
    code=$(apid_req POST /v1/jobs -H 'Content-Type: application/json' -d "$body")
    [ "$code" = 201 ] || pl_bad "$curve: curl submit answered $code: $(cat "$PL_W/resp")"
    jc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$PL_W/resp")
    [ "$curve" = bn128 ] && j_bn128=$j
    args=()
    for job in "$j" "$jc"; do
        state=$(python3 "$client" "$APID_URL" wait "$job" 120)
        [ "$state" = done ] || { pl_bad "$curve: job $job is $state after the long poll"; continue; }
        rm -rf "$PL_W/api-$job"
        n=$(python3 "$client" "$APID_URL" proofs "$job" "$PL_W/api-$job")
        for k in $(seq 0 $((n - 1))); do
            src=$k; [ "$job" = "$jc" ] && src=1
            want_pub=$(python3 "$ZK_SOURCE_DIR/tests/pipeline/wtns_public.py" "$in/$curve-$src.wtns" \
                "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nPublic"])' "$PLI_VK")")
            python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.loads(sys.argv[2]))' \
                "$PL_W/api-$job/$k/public.json" "$want_pub" ||
                pl_bad "$curve: job $job partition $k: public signals are not its input's"
            args+=("$PL_W/api-$job/$k/public.json" "$PL_W/api-$job/$k/proof.json")
        done
        want=2; [ "$job" = "$jc" ] && want=1
        [ "$n" = "$want" ] || pl_bad "$curve: job $job: $n proofs over the API, expected $want"
    done
    # snarkjs once per curve (one node start)
    node "$ZK_SOURCE_DIR/tests/pipeline/verify_many.cjs" "$PLI_VK" "${args[@]}" >"$PL_W/verify.out" 2>&1 &&
        [ "$(grep -c '^ok ' "$PL_W/verify.out")" = 3 ] &&
        echo "ok: $curve jobs $j $jc: 3 proofs fetched over the API, accepted by snarkjs" ||
        pl_bad "$curve: jobs $j $jc: snarkjs: $(head -n 3 "$PL_W/verify.out")"
done

[ -z "${APID_TEST_CURVE:-}" ] || { apid_stop; pl_done; }

# kill -9 and a restart: the client's retry with its request id is one job
before=$(njobs)
apid_stop KILL
apid_start --max-body 65536
read -r st j3 < <(python3 "$client" "$APID_URL" submit bn128 py-bn128 "$in/bn128-0.json" "$in/bn128-1.json")
[ "$st" = 200 ] && [ "$j3" = "$j_bn128" ] || pl_bad "retry after kill -9: $st job $j3, expected 200 job $j_bn128"
[ "$(njobs)" = "$before" ] || pl_bad "retry after kill -9 queued a job"
echo "ok: retry after kill -9 of apid: job $j3 again"

# a result row rewritten in the ledger (partition 0 given partition 1's
# proof and signals, as the file's owner could): served as neither
# partition's; partition 1 still is (zk/statement.h)
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE partitions SET (proof_json, public_json) = (SELECT proof_json, public_json"
          " FROM partitions WHERE job_id = ? AND idx = 1) WHERE job_id = ? AND idx = 0",
          (int(sys.argv[2]), int(sys.argv[2])))
c.commit()' "$ZKSLOT_STATE_DIR/ledger.db" "$j_bn128"
code=$(apid_req GET "/v1/jobs/$j_bn128/proofs/0")
[ "$code" = 500 ] && [ "$(apid_code)" = result_mismatch ] &&
    grep -q "not the ones synthesized" "$PL_W/resp" ||
    pl_bad "a swapped result row: GET /proofs/0 answered $code $(apid_code): $(head -c 300 "$PL_W/resp")"
code=$(apid_req GET "/v1/jobs/$j_bn128/proofs/1")
[ "$code" = 200 ] || pl_bad "partition 1's own result: $code $(apid_code)"
echo "ok: a swapped result row is answered 500 result_mismatch, not served"

# refusals: stable codes, nothing queued
before=$(njobs)
refuse() {   # WANT_STATUS WANT_CODE WHAT CURL ARGS...
    local ws=$1 wc=$2 what=$3 code c
    shift 3
    code=$(apid_req POST /v1/jobs "$@")
    c=$(apid_code)
    [ "$code" = "$ws" ] && [ "$c" = "$wc" ] || pl_bad "$what: $code $c, expected $ws $wc: $(cat "$PL_W/resp")"
}
J=(-H 'Content-Type: application/json')
refuse 400 bad_json "malformed JSON" "${J[@]}" -d $'{"key": "bn128",\n "inputs": [}'
grep -q 'line 2, column' "$PL_W/resp" || pl_bad "malformed JSON: no line and column: $(cat "$PL_W/resp")"
refuse 400 bad_field "unknown field" "${J[@]}" -d '{"key": "bn128", "inputs": [{"x": "1"}], "priorty": "low"}'
refuse 422 bad_input "bad signal value" "${J[@]}" -d '{"key": "bn128", "inputs": [{"x": "3", "y": "5", "b": "0"}, {"x": "zz"}]}'
grep -q 'inputs\[1\]' "$PL_W/resp" || pl_bad "bad input: the message does not name inputs[1]: $(cat "$PL_W/resp")"
refuse 404 unknown_key "unknown key" "${J[@]}" -d '{"key": "nokey", "inputs": [{"x": "1"}]}'
refuse 415 unsupported_media_type "text/plain" -H 'Content-Type: text/plain' -d '{}'
head -c 70000 /dev/zero | tr '\0' ' ' >"$PL_W/big.json"
refuse 413 too_large "a body over --max-body" "${J[@]}" --data-binary @"$PL_W/big.json"
[ "$(njobs)" = "$before" ] || pl_bad "a refused request queued a job"
echo "ok: refusals answered with their codes, nothing queued"

# the concurrency cap: one request at a time, a long poll holds it
apid_stop
apid_start --max-requests 2
# a job that never finishes here: gpud stopped first
pl_stop "${PL_GPUD_PIDS[0]}"
read -r st jw < <(python3 "$client" "$APID_URL" submit bn128 held "$in/bn128-0.json")
curl -s -m 10 -o /dev/null "$APID_URL/v1/jobs/$jw?wait=2" &
held=$!
sleep 0.5
# below the cap: another client is served at once during the long poll
code=$(apid_req GET /v1/keys)
[ "$code" = 200 ] || pl_bad "a request beside a long poll answered $code, expected 200"
curl -s -m 10 -o /dev/null "$APID_URL/v1/jobs/$jw?wait=2" &
held2=$!
sleep 0.5
code=$(curl -s -m 10 -D "$PL_W/hdr" -o "$PL_W/resp" -w '%{http_code}' "$APID_URL/v1/keys")
[ "$code" = 429 ] && [ "$(apid_code)" = busy ] && grep -qi '^Retry-After: 1' "$PL_W/hdr" ||
    pl_bad "over the cap: $code $(apid_code), expected 429 busy with Retry-After"
wait "$held" "$held2" || true
code=$(apid_req GET /v1/keys)
[ "$code" = 200 ] || pl_bad "after the long polls: $code"
echo "ok: 429 with Retry-After over --max-requests, a long poll does not block others"
apid_stop
pl_done
