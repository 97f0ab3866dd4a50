#!/usr/bin/env bash
# test_listen.sh -- zkslot-apid's other listeners, with real users and
# real tokens, no daemons (jobs stay queued), every request bounded:
#   - --listen unix:PATH, apid run as a daemon user D: the socket is mode
#     0660, D's user and group; an operator O in D's group submits a
#     witness and reads the job through it with `zkslot --server
#     unix:PATH`; another user X is refused by the socket's mode (curl and
#     the CLI); a second apid on a live socket, and a path that is not a
#     socket, are refused; after kill -9 the restarted apid replaces the
#     dead socket; the socket is gone after a clean stop;
#   - --tls-cert/--tls-key (a self-signed certificate made here with
#     openssl): curl --cacert gets its answers over HTTPS with a token;
#     the second token (bob) is refused alice's key (403), no token 401;
#     without the CA curl refuses the certificate, plain HTTP gets no
#     answer; a key file others may read, and a certificate without its
#     key, stop apid at start (exit 2).
# Needs root, useradd/userdel, setpriv, curl and openssl (77 otherwise).
# About 3 s.
: "${ZKSLOT:?}" "${ZKSLOT_APID:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init al curl openssl   # ZKSLOT_POOL: none is made, /healthz is not asked
zku_user XU x
# wait_log LOG PATTERN: until LOG has PATTERN (5 s at most)
wait_log() {
    for _ in $(seq 50); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    return 1
}

# ---- the ledger, D's, with a key -----------------------------------------------------
install -d -o "$DU" -g "$DU" -m 2770 "$ZKSLOT_STATE_DIR"
cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,witness-1.wtns} "$W/"
chmod 0644 "$W"/key.zkey "$W"/witness-1.wtns
as "$DU" 0007 "$ZKSLOT" key add k "$W/key.zkey" >"$W/key.log" 2>&1 || bad "key add as $DU: $(cat "$W/key.log")"

# ---- a unix socket ---------------------------------------------------------------------
S=$W/run/api.sock
install -d -o "$DU" -g "$DU" -m 0755 "$W/run"   # the socket's own mode decides, not its directory's
start_apid() {   # LOG: apid as D on $S
    zku_daemon "$1" "$ZKSLOT_APID" --listen "unix:$S"
    APID=$DPID
    wait_log "$1" 'serving unix:' || bad "apid on unix:$S did not start: $(tail -n 2 "$1")"
}
start_apid "$W/apid-unix.log"
st=$(stat -c '%a %U:%G' "$S" 2>&1)
[ "$st" = "660 $DU:$DU" ] || bad "the socket is '$st', expected 660 $DU:$DU"
j=$(as "$OU" 0022 "$ZKSLOT" --server "unix:$S" submit --key k "$W/witness-1.wtns" 2>"$W/op-submit.log") ||
    bad "operator's submit over the socket: $(cat "$W/op-submit.log")"
as "$OU" 0022 "$ZKSLOT" --server "unix:$S" status "${j:-0}" >"$W/op-status.log" 2>&1 &&
    grep -q queued "$W/op-status.log" || bad "operator's status over the socket: $(cat "$W/op-status.log")"
code=$(as "$XU" 0022 curl -s -m 5 -o /dev/null -w '%{http_code}' --unix-socket "$S" http://x/v1/keys)
rc=$?
[ "$rc" = 7 ] && [ "$code" = 000 ] || bad "another user through the socket: curl exit $rc, HTTP $code"
rc=0; as "$XU" 0022 "$ZKSLOT" --server "unix:$S" status >/dev/null 2>"$W/x.err" || rc=$?
[ "$rc" = 2 ] && grep -q 'Permission denied' "$W/x.err" || bad "another user's CLI: exit $rc: $(cat "$W/x.err")"
rc=0; as "$DU" 0007 "$ZKSLOT_APID" --listen "unix:$S" >"$W/apid-second.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q 'another server listens there' "$W/apid-second.log" ||
    bad "a second apid on a live socket: exit $rc: $(tail -n 1 "$W/apid-second.log")"
: >"$W/run/file"
rc=0; "$ZKSLOT_APID" --listen "unix:$W/run/file" >"$W/apid-file.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q 'not a socket' "$W/apid-file.log" ||
    bad "a plain file as the socket: exit $rc: $(tail -n 1 "$W/apid-file.log")"
kill -9 "$APID"; wait "$APID" 2>/dev/null
[ -S "$S" ] || bad "kill -9 left no socket behind (the restart below would prove nothing)"
start_apid "$W/apid-unix2.log"
[ "$(as "$OU" 0022 curl -s -m 5 -o /dev/null -w '%{http_code}' --unix-socket "$S" http://x/v1/keys)" = 200 ] ||
    bad "the restarted apid does not answer on the replaced socket"
kill -TERM "$APID"; wait "$APID" 2>/dev/null
[ ! -e "$S" ] || bad "the socket is still there after a clean stop"

# ---- TLS --------------------------------------------------------------------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$W/tls.key" -out "$W/tls.crt" >"$W/openssl.log" 2>&1 ||
    { bad "openssl req: $(tail -n 2 "$W/openssl.log")"; exit 1; }
T=$W/tokens
alice=$("$ZKSLOT" token add alice --keys k --file "$T")
bob=$("$ZKSLOT" token add bob --keys other --file "$T")
chmod 0644 "$W/tls.key"
rc=0; "$ZKSLOT_APID" --listen 127.0.0.1:0 --tokens "$T" --tls-cert "$W/tls.crt" --tls-key "$W/tls.key" \
    --check-config >"$W/apid-mode.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q 'readable by no one else' "$W/apid-mode.log" ||
    bad "a key file others may read: exit $rc: $(tail -n 1 "$W/apid-mode.log")"
chmod 0600 "$W/tls.key"
rc=0; "$ZKSLOT_APID" --listen 127.0.0.1:0 --tls-cert "$W/tls.crt" --check-config >"$W/apid-half.log" 2>&1 || rc=$?
[ "$rc" = 2 ] || bad "a certificate without its key: exit $rc"
"$ZKSLOT_APID" --listen 127.0.0.1:0 --tokens "$T" --tls-cert "$W/tls.crt" --tls-key "$W/tls.key" \
    >"$W/apid-tls.log" 2>&1 &
APID=$!; PIDS+=("$APID")
wait_log "$W/apid-tls.log" 'serving https://' || bad "apid with TLS did not start: $(tail -n 2 "$W/apid-tls.log")"
url=$(sed -n 's|.*serving \(https://127.0.0.1:[0-9]*\).*|\1|p' "$W/apid-tls.log" | head -n 1)
tls() {   # WHO-TOKEN METHOD PATH [CURL ARGS]: the HTTP status over HTTPS
    local t=$1 m=$2 p=$3; shift 3
    curl -s -m 5 --cacert "$W/tls.crt" -o "$W/resp" -w '%{http_code}' -X "$m" \
        ${t:+-H "Authorization: Bearer $t"} "$@" "$url$p"
}
[ "$(tls "$alice" GET /v1/keys)" = 200 ] && grep -q '"name":"k"' "$W/resp" ||
    bad "alice over HTTPS: $(cat "$W/resp")"
[ "$(tls "" GET /v1/keys)" = 401 ] || bad "no token over HTTPS: $(cat "$W/resp")"
wt=$(base64 -w0 "$W/witness-1.wtns")
[ "$(tls "$bob" POST /v1/jobs -H 'Content-Type: application/json' -d "{\"key\":\"k\",\"witnesses\":[\"$wt\"]}")" = 403 ] ||
    bad "bob to alice's key over HTTPS: $(cat "$W/resp")"
[ "$(tls "$alice" POST /v1/jobs -H 'Content-Type: application/json' -d "{\"key\":\"k\",\"witnesses\":[\"$wt\"]}")" = 201 ] ||
    bad "alice's witness over HTTPS: $(cat "$W/resp")"
rc=0; curl -s -m 5 -o /dev/null "$url/v1/keys" || rc=$?
[ "$rc" = 60 ] || bad "curl without the CA: exit $rc, expected 60 (certificate refused)"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "${url/https/http}/v1/keys")
[ "$code" != 200 ] || bad "plain HTTP to the TLS listener answered 200"
kill -TERM "$APID"; wait "$APID" 2>/dev/null
[ $fail = 0 ] && echo "ok: unix socket 0660 (operator in, other user refused), HTTPS with tokens"
exit $fail
