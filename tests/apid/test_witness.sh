#!/usr/bin/env bash
# test_witness.sh -- POST /v1/jobs of witnesses (apid/witness.c) over a
# real pipeline (synthd, gpud on the CPU), bearer tokens of two real
# callers, every request bounded:
#   - base64 .wtns files in JSON ("witnesses"), one .wtns uploaded as
#     application/octet-stream (the job's fields in the query; a repeated
#     request_id answers 200 with the same job) and `zkslot --server URL
#     submit W.wtns` (the CLI sends base64): each job is proved, every
#     proof's public signals are its witness's and snarkjs accepts it;
#   - refusals, each with its code and nothing queued: not base64, not a
#     .wtns, a witness of another circuit (n_vars) and of another curve
#     (422 bad_witness), inputs and witnesses together, an unknown query
#     parameter, a body over --max-body (413), a token not allowed the key
#     (bob: 403).
# About 10 s.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init apid_witness || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
T="$PL_W/tokens"
ex="$ZK_SOURCE_DIR/examples/groth16"

pl_circuit bn128 600 3 || { pl_bad circuit; exit 1; }
pl_pool 2
pl_start_synthd --workers 2
pl_start_gpud
alice=$("$ZKSLOT" token add alice --keys "$PL_KEYNAME" --file "$T")
bob=$("$ZKSLOT" token add bob --keys other --file "$T")
apid_start --tokens "$T" --max-body 65536
J=(-H 'Content-Type: application/json')
B=(-H 'Content-Type: application/octet-stream')
as() { local who=$1; shift; apid_req "$@" -H "Authorization: Bearer $who"; }
expect() {   # WHAT WANT_STATUS GOT_STATUS [WANT_CODE]
    [ "$3" = "$2" ] && { [ -z "${4:-}" ] || [ "$(apid_code)" = "$4" ]; } ||
        pl_bad "$1: $3 $(apid_code), expected $2 ${4:-}: $(head -c 300 "$PL_W/resp")"
}
b64() { base64 -w0 "$1"; }
body() {   # KEY FILE...: a JSON body of these witnesses
    local k=$1 f sep= w=
    shift
    for f in "$@"; do w="$w$sep\"$(b64 "$f")\""; sep=,; done
    echo "{\"key\": \"$k\", \"witnesses\": [$w]}"
}
job_id() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$PL_W/resp"; }
njobs() { "$ZKSLOT" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))'; }

# ---- refusals first: nothing may be queued by any of them -------------------------
expect "bob to alice's key" 403 "$(as "$bob" POST /v1/jobs "${J[@]}" -d "$(body "$PL_KEYNAME" "${PL_WTNS[0]}")")" forbidden
expect "bob uploads to alice's key" 403 \
    "$(as "$bob" POST "/v1/jobs?key=$PL_KEYNAME" "${B[@]}" --data-binary "@${PL_WTNS[0]}")" forbidden
expect "not base64" 400 "$(as "$alice" POST /v1/jobs "${J[@]}" -d "{\"key\": \"$PL_KEYNAME\", \"witnesses\": [\"d3Ru*\"]}")" bad_field
expect "not a .wtns" 422 "$(as "$alice" POST /v1/jobs "${J[@]}" -d "{\"key\": \"$PL_KEYNAME\", \"witnesses\": [\"aGVsbG8gd29ybGQ=\"]}")" bad_witness
expect "another circuit's witness" 422 "$(as "$alice" POST /v1/jobs "${J[@]}" -d "$(body "$PL_KEYNAME" "$ex/bn128/witness-1.wtns")")" bad_witness
grep -q 'witnesses\[0\]' "$PL_W/resp" || pl_bad "the refusal does not name the witness: $(cat "$PL_W/resp")"
expect "another curve's witness" 422 \
    "$(as "$alice" POST "/v1/jobs?key=$PL_KEYNAME" "${B[@]}" --data-binary "@$ex/bls12381/witness-1.wtns")" bad_witness
expect "inputs and witnesses" 400 "$(as "$alice" POST /v1/jobs "${J[@]}" -d "{\"key\": \"$PL_KEYNAME\", \"inputs\": [{}], \"witnesses\": [\"$(b64 "${PL_WTNS[0]}")\"]}")" bad_field
expect "an unknown query parameter" 400 \
    "$(as "$alice" POST "/v1/jobs?key=$PL_KEYNAME&prio=high" "${B[@]}" --data-binary "@${PL_WTNS[0]}")" bad_field
head -c 70000 /dev/zero >"$PL_W/big.wtns"
expect "an upload over --max-body" 413 \
    "$(as "$alice" POST "/v1/jobs?key=$PL_KEYNAME" "${B[@]}" --data-binary "@$PL_W/big.wtns")" too_large
[ "$(njobs)" = 0 ] || pl_bad "a refused request queued a job: $(njobs) jobs"

# ---- base64 in JSON -----------------------------------------------------------------
expect "base64 witnesses" 201 "$(as "$alice" POST /v1/jobs "${J[@]}" -d "$(body "$PL_KEYNAME" "${PL_WTNS[0]}" "${PL_WTNS[1]}")")"
j1=$(job_id)
pl_expect "$j1" "${PL_WTNS[0]}" "${PL_WTNS[1]}"
# ---- one .wtns as the body ------------------------------------------------------------
up=(POST "/v1/jobs?key=$PL_KEYNAME&priority=high&request_id=up-1" "${B[@]}" --data-binary "@${PL_WTNS[2]}")
expect "an uploaded .wtns" 201 "$(as "$alice" "${up[@]}")"
j2=$(job_id)
pl_expect "$j2" "${PL_WTNS[2]}"
expect "the upload again" 200 "$(as "$alice" "${up[@]}")"
[ "$(job_id)" = "$j2" ] || pl_bad "a repeated upload's request id gave job $(job_id), expected $j2"
# ---- the CLI ----------------------------------------------------------------------------
j3=$(ZKSLOT_TOKEN=$alice ZKSLOT_STATE_DIR="$PL_W/nowhere" "$ZKSLOT" --server "$APID_URL" \
    submit --key "$PL_KEYNAME" "${PL_WTNS[1]}") || pl_bad "zkslot --server submit W.wtns"
pl_expect "$j3" "${PL_WTNS[1]}"
[ "$(njobs)" = 3 ] || pl_bad "$(njobs) jobs, expected 3"
for j in "$j1" "$j2" "$j3"; do
    pl_wait "$j" 60 && pl_check_job "$j" || true
done
echo "ok: witnesses over HTTP (base64, octet-stream, zkslot --server) proved; refusals queue nothing"
apid_stop
pl_done
