#!/usr/bin/env bash
# test_hostile.sh -- zkslot-apid against hostile clients without a token
# (issue 46), loopback only, bounded (no daemons, no keys):
#   - 200 slowloris connections (trickle.py: "GET /v1/keys", then one
#     header line a second, never the end of the headers) from 4 addresses
#     (127.0.0.2-5) beside a real client on 127.0.0.1: 16 per address are
#     taken (--max-conns-per-client 16), the other 136 are answered 503
#     too_many_connections at once, the 64 taken are closed by the 4 s
#     request deadline (3.8 to 5.2 s after their connect) although they
#     never stop sending, and the real client's requests meanwhile are all
#     answered 200 with a median latency under 100 ms (printed);
#   - 200 from 8 addresses (12 or 13 each when the server is full): --max-conns
#     100 are taken, the rest answered 503 at once naming the server's limit,
#     and so is a client from 127.0.0.1, not left hanging in the listen
#     backlog;
#   - /v1/keys/mimc%00x (which a C string cuts to /v1/keys/mimc), %0a and
#     %7f in the path, a raw NUL or \x01 in it, %00 in the query: 400
#     bad_path or bad_query, one error object;
#   - apid stops cleanly (exit 0) after it all;
#   - apid is not dumpable: run as another user (nobody, when the test is
#     root), its /proc/PID files are root's; with ZKSLOT_DUMPABLE=1 they
#     are that user's (the check can tell).
# About 15 s.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init apid_hostile || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
T=$ZK_SOURCE_DIR/tests/apid/trickle.py
resp() { cat "$PL_W/resp" 2>/dev/null || true; }
# jget JSON A.B: the value at A.B of the object JSON
jget() {
    python3 -c 'import functools, json, sys
print(functools.reduce(lambda v, k: v[k], sys.argv[2].split("."), json.loads(sys.argv[1])))' "$@"
}

apid_start --max-conns 100 --max-conns-per-client 16 --request-timeout 4
hostport=${APID_URL#http://}
host=${hostport%:*} port=${hostport##*:}

# ---- 200 trickling connections from 4 addresses, a real client beside them --------
out=$(timeout 30 python3 "$T" "$host" "$port" --addrs 127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5 \
    --count 200 --interval 1 --duration 8 --client 0.5 3.5)
echo "trickle, 4 addresses: $out"
[ "$(jget "$out" refused)" = 136 ] || pl_bad "136 of 200 should be refused (16 per address taken): $out"
[ "$(jget "$out" refused_kinds.per_client)" = 136 ] 2>/dev/null ||
    pl_bad "the refusals should name the per-client limit: $out"
[ "$(jget "$out" refused_max_ms)" -lt 2000 ] || pl_bad "a 503 took $(jget "$out" refused_max_ms) ms"
[ "$(jget "$out" cut)" = 64 ] || pl_bad "the 64 taken should be closed by the deadline: $out"
python3 -c 'import sys; sys.exit(not (3.8 <= float(sys.argv[1]) and float(sys.argv[2]) <= 5.2))' \
    "$(jget "$out" cut_min_s)" "$(jget "$out" cut_max_s)" ||
    pl_bad "closed $(jget "$out" cut_min_s) to $(jget "$out" cut_max_s) s after their connect, not at the 4 s deadline"
median=$(jget "$out" client.median_ms)
echo "real client beside 200 trickling connections: $(jget "$out" client.ok) of" \
    "$(jget "$out" client.requests) answered 200, median latency $median ms, max $(jget "$out" client.max_ms) ms"
[ "$(jget "$out" client.requests)" -ge 10 ] &&
    [ "$(jget "$out" client.ok)" = "$(jget "$out" client.requests)" ] ||
    pl_bad "the real client's requests were not all answered: $out"
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < 100)' "$median" ||
    pl_bad "the real client's median latency is $median ms (at most 100)"

# ---- 200 from 8 addresses: the whole server's limit --------------------------------
python3 "$T" "$host" "$port" --addrs "$(echo 127.0.0.{2..9} | tr ' ' ,)" \
    --count 200 --interval 1 --duration 6 >"$PL_W/global.json" &
tp=$!
sleep 1.5
t0=$(date +%s%N)
code=$(curl -s -m 5 -o "$PL_W/resp" -w '%{http_code}' "$APID_URL/v1/keys" || true)
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$code" = 503 ] && [ "$(apid_code)" = too_many_connections ] ||
    pl_bad "a client past --max-conns: $code $(resp) (expected 503 too_many_connections)"
[ "$ms" -lt 2000 ] || pl_bad "the 503 past --max-conns took $ms ms"
echo "a client past --max-conns 100: $code in $ms ms: $(resp)"
wait "$tp" || pl_bad "trickle.py failed"
out=$(cat "$PL_W/global.json")
echo "trickle, 8 addresses: $out"
[ "$(jget "$out" refused)" = 100 ] && [ "$(jget "$out" cut)" = 100 ] ||
    pl_bad "100 should be taken (and cut) and 100 refused: $out"
[ "$(jget "$out" refused_kinds.all 2>/dev/null)" = 100 ] ||
    pl_bad "the refusals should name the server's limit: $out"
[ "$(jget "$out" refused_max_ms)" -lt 2000 ] || pl_bad "a 503 took $(jget "$out" refused_max_ms) ms"
code=$(apid_req GET /v1/keys)
[ "$code" = 200 ] || pl_bad "after the trickling connections are gone: $code"

# ---- control bytes in the request target --------------------------------------------
for t in '/v1/keys/mimc%00x bad_path' '/v1/keys/mi%0amc bad_path' '/v1/keys/%7f bad_path' \
         '/v1/jobs?state=queued%00x bad_query'; do
    set -- $t
    code=$(apid_req GET "$1")
    [ "$code" = 400 ] && [ "$(apid_code)" = "$2" ] ||
        pl_bad "GET $1: $code $(resp) (expected 400 $2)"
    echo "GET $1: $code $(resp)"
done
raw() {   # raw REQUEST-LINE-BYTES: the status line and the error code of apid's answer
    python3 - "$host" "$port" "$1" <<'PY'
import json, socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(sys.argv[3].encode().decode("unicode_escape").encode("latin-1") +
          b"\r\nHost: x\r\nConnection: close\r\n\r\n")
head, _, body = s.makefile("rb").read().partition(b"\r\n\r\n")
try:
    code = json.loads(body)["error"]["code"]
except (ValueError, KeyError, TypeError):
    code = "-"
print(head.split(b"\r\n")[0].decode(errors="replace").split(" ")[1], code)
PY
}
for t in 'GET /v1/keys/mimc\x00x HTTP/1.1' 'GET /v1/keys/mi\x01mc HTTP/1.1'; do
    got=$(raw "$t")
    [ "$got" = "400 bad_path" ] || pl_bad "'$t': $got (expected 400 bad_path)"
done
kill -TERM "$APID_PID"   # a clean stop after it all (the sanitizers' reports with it)
rc=0
wait "$APID_PID" || rc=$?
APID_PID=
[ "$rc" = 0 ] || pl_bad "apid exited $rc after SIGTERM: $(tail -n 5 "$PL_W/apid.log")"

# ---- not dumpable ---------------------------------------------------------------------
# as another user than /proc's owner when dumpable: nobody when root
ND=$(mktemp -d /tmp/apid-nodump.XXXXXX)
chmod 0755 "$ND"
: >"$ND/none.conf"
as_user=()
if [ "$(id -u)" = 0 ]; then
    command -v setpriv >/dev/null || pl_skip "setpriv is needed to run apid as nobody"
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    install -d -o 65534 -g 65534 "$ND/state"
fi
owner_of() {   # owner_of ENV...: the owner of a started apid's /proc/PID/environ, and its uid
    : >"$ND/log"
    env "$@" ZKSLOT_CONFIG="$ND/none.conf" "${as_user[@]}" "$ZKSLOT_APID" --listen 127.0.0.1:0 \
        --state-dir "$ND/state" 2>>"$ND/log" &
    local pid=$! i
    for i in $(seq 50); do grep -q serving "$ND/log" && break; sleep 0.1; done
    echo "$(stat -c %u "/proc/$pid/environ") $(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
}
read -r owner uid <<<"$(owner_of ZKSLOT_DUMPABLE=)"
[ "$owner" = 0 ] && [ "$uid" != 0 ] ||
    pl_bad "apid (uid $uid) is dumpable: its /proc/PID/environ is uid $owner's: $(cat "$ND/log")"
read -r downer duid <<<"$(owner_of ZKSLOT_DUMPABLE=1)"
[ "$downer" = "$duid" ] || pl_bad "with ZKSLOT_DUMPABLE=1 /proc/PID is uid $downer's, not $duid's"
echo "apid as uid $uid: /proc/PID owned by uid $owner; with ZKSLOT_DUMPABLE=1 by uid $downer"
rm -rf "$ND"
pl_done
