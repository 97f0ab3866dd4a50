#!/usr/bin/env bash
# test_pg.sh -- zkslot-apid over a PostgreSQL ledger (a private server,
# tests/lib/pg.sh; no daemons: jobs stay queued): a job submitted and read
# back, its request id repeated (200, the same job); a witness uploaded
# (stored under its .wtns name), another curve's refused; the server stopped:
# GET /v1/jobs/{id} and /healthz answer 503 ledger_unavailable naming the
# cause, nothing else; the server back: the next request is served.
# About 5 s.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_pg.sh"
pl_init apid_pg || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
pl_pg_init '[ -z "$APID_PID" ] || kill -9 "$APID_PID" 2>/dev/null'

pli_circuit bn128
pli_key_add bn128 --witness-gen "$PLI_CPP"
apid_start
J=(-H 'Content-Type: application/json')
body="{\"key\": \"bn128\", \"inputs\": [$(pli_input 3 5 1)], \"request_id\": \"pg-1\"}"
code=$(apid_req POST /v1/jobs "${J[@]}" -d "$body")
[ "$code" = 201 ] || pl_bad "submit on PostgreSQL: $code $(cat "$PL_W/resp")"
j=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$PL_W/resp")
code=$(apid_req POST /v1/jobs "${J[@]}" -d "$body")
[ "$code" = 200 ] && grep -q "\"id\":$j," "$PL_W/resp" || pl_bad "repeat: $code $(cat "$PL_W/resp")"
code=$(apid_req GET "/v1/jobs/$j")
[ "$code" = 200 ] || pl_bad "GET job $j: $code"
# a witness uploaded: stored in the ledger under its .wtns name (synthd
# reads it back from there on any machine); another curve's refused
pli_reference <(pli_input 3 5 1) "$PL_W/w.wtns"
code=$(apid_req POST "/v1/jobs?key=bn128&request_id=pg-w" -H 'Content-Type: application/octet-stream' \
    --data-binary "@$PL_W/w.wtns")
[ "$code" = 201 ] || pl_bad "witness upload on PostgreSQL: $code $(cat "$PL_W/resp")"
jw=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$PL_W/resp")
"$ZKSLOT" status "$jw" --json | python3 -c 'import json,sys; p=json.load(sys.stdin)["partitions"]; sys.exit(not (len(p) == 1 and p[0]["witness"] == "(api) witnesses[0].wtns"))' ||
    pl_bad "the uploaded witness's partition: $("$ZKSLOT" status "$jw" --json | head -c 400)"
code=$(apid_req POST "/v1/jobs?key=bn128" -H 'Content-Type: application/octet-stream' \
    --data-binary "@$ZK_SOURCE_DIR/examples/groth16/bls12381/witness-1.wtns")
[ "$code" = 422 ] && [ "$(apid_code)" = bad_witness ] || pl_bad "another curve's witness on PostgreSQL: $code $(cat "$PL_W/resp")"

pg_server_stop
for path in "/v1/jobs/$j" /healthz; do
    code=$(apid_req GET "$path")
    if [ "$path" = /healthz ]; then
        c=$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print("ok" if not o["ledger"]["ok"] and o["ledger"].get("error") else "no")' "$PL_W/resp")
        [ "$code" = 503 ] && [ "$c" = ok ] || pl_bad "/healthz with the ledger down: $code $(cat "$PL_W/resp")"
    else
        [ "$code" = 503 ] && [ "$(apid_code)" = ledger_unavailable ] && grep -q "$PG_DIR\|connect\|server" "$PL_W/resp" ||
            pl_bad "$path with the ledger down: $code $(cat "$PL_W/resp")"
    fi
done
pg_server_start
code=$(apid_req GET "/v1/jobs/$j")
[ "$code" = 200 ] || pl_bad "after the server came back: $code $(cat "$PL_W/resp")"
echo "ok: PostgreSQL ledger: submit, request id, 503 while down, served again at once"
apid_stop
pl_done
