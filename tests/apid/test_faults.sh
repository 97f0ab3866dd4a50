#!/usr/bin/env bash
# test_faults.sh -- zkslot-apid against hostile or interrupted clients,
# loopback only, bounded (no daemons: jobs stay queued):
#   - 40 slow clients each holding a connection with half a request
#     (slowloris) do not stall another client, who is answered at once;
#   - kill -9 of apid in the middle of an upload (headers and half the
#     body sent), then a restart: nothing was queued, and the client's
#     retry with its request id, repeated, makes exactly one job;
#   - kill -9 in the middle of a long poll: the client sees the connection
#     drop, and polls the restarted apid.
# About 4 s.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
pl_init apid_faults || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
pli_circuit bn128
pli_key_add bn128 --witness-gen "$PLI_CPP"
apid_start
hostport=${APID_URL#http://}
njobs() { "$ZKSLOT" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))'; }

# slowloris: 40 half-sent requests held open while another client asks
python3 - "$hostport" "$PL_W/slow.pid" <<'PY' &
import os, socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
open(sys.argv[2], "w").write(str(os.getpid()))
socks = []
for i in range(40):
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(b"GET /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    socks.append(s)
time.sleep(8)          # bounded: the test kills it sooner
PY
slow=$!
sleep 1
code=$(curl -s -m 3 -o "$PL_W/resp" -w '%{http_code}' "$APID_URL/v1/keys")
[ "$code" = 200 ] || pl_bad "beside 40 slow clients: $code (expected 200 within 3 s)"
kill "$slow" 2>/dev/null || true
wait "$slow" 2>/dev/null || true

# kill -9 mid-upload, then the retry
body="{\"key\": \"bn128\", \"inputs\": [$(pli_input 3 5 1)], \"request_id\": \"upload-1\"}"
python3 - "$hostport" "$body" <<'PY' &
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
body = sys.argv[2].encode()
s = socket.create_connection((host, int(port)), timeout=5)
s.sendall(b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          b"Content-Length: %d\r\n\r\n" % len(body) + body[:len(body) // 2])
time.sleep(5)
PY
upload=$!
sleep 0.5
before=$(njobs)
apid_stop KILL
kill "$upload" 2>/dev/null || true
wait "$upload" 2>/dev/null || true
[ "$(njobs)" = "$before" ] || pl_bad "half an upload queued a job"
apid_start
for i in 1 2; do
    code=$(apid_req POST /v1/jobs -H 'Content-Type: application/json' -d "$body")
    [ "$code" = 201 ] || [ "$code" = 200 ] || pl_bad "retry $i: $code $(cat "$PL_W/resp")"
done
[ "$(njobs)" = $((before + 1)) ] || pl_bad "the retries made $(( $(njobs) - before )) jobs, expected 1"
j=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$PL_W/resp")

# kill -9 mid long poll: the connection drops; the restarted apid answers
curl -s -m 10 -o /dev/null "$APID_URL/v1/jobs/$j?wait=8" & poll=$!
sleep 0.5
apid_stop KILL
rc=0; wait "$poll" || rc=$?
[ "$rc" != 0 ] || pl_bad "the long poll ended well although apid was killed"
apid_start
code=$(apid_req GET "/v1/jobs/$j?wait=0")
[ "$code" = 200 ] || pl_bad "after the restart: $code"
echo "ok: slow clients do not stall others; kill -9 mid-upload and mid-poll: one job"
apid_stop
pl_done
