#!/usr/bin/env bash
# test_cli_tls.sh -- `zkslot --server https://...` against zkslot-apid with
# --tls-cert/--tls-key on loopback, no daemons (the job stays queued), a
# throwaway CA and certificates made here with openssl:
#   - the CA given (--ca-file, or $ZKSLOT_CA_FILE), a bearer token: key
#     list, key show, submit of a witness, status of the job and the list,
#     by address (127.0.0.1) and by name (localhost);
#   - the CA not given (it is in no system store): exit 2, one line saying
#     the certificate is not trusted (as root, also with a system store
#     that has no CA, in a mount namespace); a CA file that does not exist, or
#     holds no certificate: exit 2, one line naming it;
#   - a recording HTTPS server (tls_record.py) shows what arrives: with a
#     self-signed certificate, and with the CA's certificate for another
#     name (one line: name mismatch), the CLI sends nothing after the
#     handshake, so never its token; curl -k to the same server shows the
#     token would be seen (the check is not vacuous), and so does the CLI
#     given the self-signed certificate as its CA file (it answers 503);
#   - http:// to the TLS port and https:// to a closed port: exit 2, one
#     line each.
# Needs curl, openssl and python3 (77 otherwise).  About 3 s.
set -u
: "${ZKSLOT:?}" "${ZKSLOT_APID:?}" "${ZK_SOURCE_DIR:?}"
for c in curl openssl python3; do
    command -v $c >/dev/null || { echo "SKIP: no $c"; exit 77; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }

W=$(mktemp -d /tmp/zk-cli-tls.XXXXXX)
export ZKSLOT_POOL=/dev/shm/zkslot-cli-tls-$$.pool   # none: /healthz is not asked
export ZKSLOT_STATE_DIR=$W/state
export ZKSLOT_CONFIG=$W/empty.conf
unset ZKSLOT_SERVER ZKSLOT_TOKEN ZKSLOT_CA_FILE
: >"$ZKSLOT_CONFIG"
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    if [ $fail = 0 ]; then rm -rf "$W"; else
        echo "(kept $W)"
        for f in "$W"/*.log; do [ -f "$f" ] && { echo "==> $f (tail)"; tail -n 20 "$f"; }; done
    fi
}
trap cleanup EXIT
# wait_log LOG PATTERN: until LOG has PATTERN (5 s at most)
wait_log() {
    for _ in $(seq 50); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    return 1
}
# one_line FILE PATTERN: FILE is exactly one line and has PATTERN
one_line() { [ "$(wc -l <"$1")" = 1 ] && grep -q -- "$2" "$1"; }

# ---- the CA and the certificates ---------------------------------------------------------
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
# cert NAME CN SAN: NAME.key, NAME.crt signed by the CA
cert() {
    openssl req "${ec[@]}" -subj "/CN=$2" -keyout "$W/$1.key" -out "$W/$1.csr" &&
        openssl x509 -req -in "$W/$1.csr" -CA "$W/ca.crt" -CAkey "$W/ca.key" -days 1 \
            -extfile <(printf 'subjectAltName=%s\n' "$3") -out "$W/$1.crt" && chmod 0600 "$W/$1.key"
} >>"$W/openssl.log" 2>&1
openssl req -x509 "${ec[@]}" -days 1 -subj "/CN=zkslot test CA $$" -keyout "$W/ca.key" \
    -out "$W/ca.crt" >>"$W/openssl.log" 2>&1 || { bad "openssl: the CA"; exit 1; }
cert srv 127.0.0.1 IP:127.0.0.1,DNS:localhost || { bad "openssl: the server's certificate"; exit 1; }
cert other elsewhere.example DNS:elsewhere.example || { bad "openssl: another name's"; exit 1; }
openssl req -x509 "${ec[@]}" -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$W/self.key" -out "$W/self.crt" >>"$W/openssl.log" 2>&1 || { bad "openssl: self-signed"; exit 1; }

# ---- apid over HTTPS, with a token ----------------------------------------------------------
mkdir -p "$ZKSLOT_STATE_DIR"
cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,witness-1.wtns} "$W/"
"$ZKSLOT" key add k "$W/key.zkey" >"$W/key.log" 2>&1 || bad "key add: $(cat "$W/key.log")"
T=$W/tokens
alice=$("$ZKSLOT" token add alice --keys k --file "$T")
"$ZKSLOT_APID" --listen 127.0.0.1:0 --tokens "$T" --tls-cert "$W/srv.crt" --tls-key "$W/srv.key" \
    >"$W/apid.log" 2>&1 &
PIDS+=("$!")
wait_log "$W/apid.log" 'serving https://' || { bad "apid with TLS did not start"; exit 1; }
url=$(sed -n 's|.*serving \(https://127.0.0.1:[0-9]*\).*|\1|p' "$W/apid.log" | head -n 1)
port=${url##*:}
z() { ZKSLOT_TOKEN=$alice "$ZKSLOT" "$@"; }

z --server "$url" --ca-file "$W/ca.crt" key list >"$W/keys.out" 2>&1 && grep -q '^k  *bn128 ' "$W/keys.out" ||
    bad "key list over https with --ca-file: $(cat "$W/keys.out")"
ZKSLOT_CA_FILE=$W/ca.crt ZKSLOT_SERVER=$url z key show k >"$W/show.out" 2>&1 &&
    grep -q '"name": "k"' "$W/show.out" || bad "key show over https with \$ZKSLOT_CA_FILE: $(head -c 300 "$W/show.out")"
j=$(z --ca-file "$W/ca.crt" --server "$url" submit --key k "$W/witness-1.wtns" 2>"$W/submit.out") ||
    bad "submit over https: $(cat "$W/submit.out")"
z --server "$url" --ca-file "$W/ca.crt" status "${j:-0}" >"$W/status.out" 2>&1 &&
    grep -q "^job $j: key k, queued" "$W/status.out" || bad "status $j over https: $(cat "$W/status.out")"
z --server "https://localhost:$port" --ca-file "$W/ca.crt" status >"$W/list.out" 2>&1 &&
    grep -q "^$j  *k  *queued" "$W/list.out" || bad "the job list over https://localhost: $(cat "$W/list.out")"

# ---- refusals: each one line, exit 2 -------------------------------------------------------
rc=0; z --server "$url" status >"$W/none.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && one_line "$W/none.out" "^zkslot status: $url: .*certificate is not trusted" ||
    bad "no CA given: exit $rc: $(cat "$W/none.out")"
# a system store with no CA at all (ca-certificates missing): the same refusal, saying so
store=/etc/ssl/certs/ca-certificates.crt
if [ "$(id -u)" = 0 ] && [ -f "$store" ] && command -v unshare >/dev/null; then
    rc=0; ZKSLOT_TOKEN=$alice unshare -m sh -c 'mount --bind /dev/null "$1" && exec "$2" --server "$3" status' \
        sh "$store" "$ZKSLOT" "$url" >"$W/empty.out" 2>&1 || rc=$?
    [ "$rc" = 2 ] && one_line "$W/empty.out" "certificate is not trusted: the system's trust store has no CA" ||
        bad "an empty system store: exit $rc: $(cat "$W/empty.out")"
fi
rc=0; z --server "$url" --ca-file "$W/missing.crt" status >"$W/missing.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && one_line "$W/missing.out" "missing.crt (the CA file): No such file" ||
    bad "a CA file that does not exist: exit $rc: $(cat "$W/missing.out")"
rc=0; z --server "$url" --ca-file "$W/srv.key" status >"$W/nocert.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && one_line "$W/nocert.out" "srv.key (the CA file): no PEM certificate" ||
    bad "a CA file without a certificate: exit $rc: $(cat "$W/nocert.out")"
rc=0; z --server "http://127.0.0.1:$port" status >"$W/plain.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && one_line "$W/plain.out" "closed the connection without an answer" ||
    bad "http:// to the TLS port: exit $rc: $(cat "$W/plain.out")"
kill -TERM "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null
rc=0; z --server "$url" --ca-file "$W/ca.crt" status >"$W/refused.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && one_line "$W/refused.out" "cannot connect to 127.0.0.1:$port: Connection refused" ||
    bad "https:// to a closed port: exit $rc: $(cat "$W/refused.out")"

# ---- what a server the CLI refuses gets: no token ------------------------------------------
# record NAME: tls_record.py with NAME.crt; RURL its https:// URL, RLOG its log
record() {
    RLOG=$W/record-$1.log
    : >"$RLOG"
    python3 "$ZK_SOURCE_DIR/tests/apid/tls_record.py" "$W/$1.crt" "$W/$1.key" "$RLOG" >"$W/rec-$1.out" 2>&1 &
    PIDS+=("$!")
    wait_log "$W/rec-$1.out" '^listening ' || bad "tls_record.py $1 did not start: $(cat "$W/rec-$1.out")"
    RURL=https://127.0.0.1:$(sed -n 's/^listening //p' "$W/rec-$1.out")
}
record self
rc=0; z --server "$RURL" status >"$W/self.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && one_line "$W/self.out" "certificate is not trusted" ||
    bad "a self-signed server: exit $rc: $(cat "$W/self.out")"
rc=0; z --server "$RURL" --ca-file "$W/ca.crt" status >"$W/self-ca.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && one_line "$W/self-ca.out" "not trusted: no CA in $W/ca.crt signed it" ||
    bad "a self-signed server, another CA given: exit $rc: $(cat "$W/self-ca.out")"
record other
rc=0; z --server "$RURL" --ca-file "$W/ca.crt" status >"$W/other.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && one_line "$W/other.out" "name mismatch: the server's certificate is not for 127.0.0.1" ||
    bad "the CA's certificate for another name: exit $rc: $(cat "$W/other.out")"
for f in "$W"/record-self.log "$W"/record-other.log; do
    [ "$(grep -c '^handshake failed' "$f")" -ge 1 ] && ! grep -q '^received' "$f" && ! grep -qF "$alice" "$f" ||
        bad "$(basename "$f"): the CLI sent something past a refused certificate: $(cat "$f")"
done
# apid's own self-signed certificate as the CA file: that server is trusted
record self
rc=0; z --server "$RURL" --ca-file "$W/self.crt" status >"$W/pinned.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && one_line "$W/pinned.out" ": 503 " && grep -q "^received: .*$alice" "$RLOG" ||
    bad "the self-signed certificate as the CA file: exit $rc: $(cat "$W/pinned.out") $(cat "$RLOG")"
curl -s -k -m 5 -o /dev/null -H "Authorization: Bearer $alice" "$RURL/v1/jobs"
wait_log "$RLOG" "^received: .*$alice" || bad "the recorder does not see a token sent (curl -k): $(cat "$RLOG")"

[ $fail = 0 ] && echo "ok: zkslot --server https:// with the CA (key list/show, submit, status); untrusted, misnamed, plain and closed refused in one line, no token sent"
exit $fail
