#!/usr/bin/env bash
# test_operator_errors.sh -- things an operator notices (issue 22, item 6),
# without daemons at work:
#   - `zkslot metrics --listen` on a non-loopback address (0.0.0.0 included)
#     is refused (exit 2, one line naming --allow-remote); with --allow-remote
#     it is served with a warning; 127.0.0.1 is served without one; [::]
#     is refused the same way, ":PORT" serves 127.0.0.1 and ::1, [::1]
#     only itself; SIGTERM stops it with exit 0; a port in use is one line;
#   - an unknown ZKSLOT_LOG_LEVEL makes both daemons (and their
#     --check-config, what the units run first) exit 2 naming the accepted
#     values; each accepted value passes.
set -u
[ -x "${ZKSLOT:-}" ] && [ -x "${ZKSLOT_SYNTHD:-}" ] && [ -x "${ZKSLOT_GPUD:-}" ] ||
    { echo "ZKSLOT, ZKSLOT_SYNTHD and ZKSLOT_GPUD must name the binaries"; exit 1; }
SRC=${ZK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the HTTP checks"; exit 77; }
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
: >"$tmp/empty.conf"
export ZKSLOT_CONFIG=$tmp/empty.conf ZKSLOT_STATE_DIR=$tmp/state ZKSLOT_POOL=$tmp/no.pool
"$ZKSLOT" key add k "$SRC/examples/groth16/bn128/key.zkey" >/dev/null 2>&1 ||
    { echo "key add failed"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# get PORT [HOST]: GET /metrics on HOST (default 127.0.0.1):PORT answers 200
# with an exposition, retried while the server starts
get() {
    python3 - "$1" "${2:-127.0.0.1}" <<'PY'
import socket, sys, time
for _ in range(50):
    try:
        s = socket.create_connection((sys.argv[2], int(sys.argv[1])), timeout=2)
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit(1)
s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
data = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
sys.exit(0 if data.split(b" ")[1:2] == [b"200"] and b"zkslot_" in data else 1)
PY
}

# --listen 0.0.0.0 without --allow-remote: refused before binding
port=$(free_port)
timeout 10 "$ZKSLOT" metrics --listen "0.0.0.0:$port" >"$tmp/out" 2>&1
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/out")" = 1 ] &&
    grep -q -- "--listen 0.0.0.0:$port: not a loopback address.*--allow-remote" "$tmp/out" &&
    ok "0.0.0.0 refused: $(cat "$tmp/out")" || fail "0.0.0.0 without --allow-remote: exit $rc: $(cat "$tmp/out")"
# with --allow-remote: served, with a warning
"$ZKSLOT" metrics --listen "0.0.0.0:$port" --allow-remote >"$tmp/out" 2>"$tmp/err" &
pid=$!
get "$port" && ok "0.0.0.0 --allow-remote served" || fail "0.0.0.0 --allow-remote not served: $(cat "$tmp/err")"
kill "$pid"; wait "$pid" 2>/dev/null; pid=
grep -q "warning: --listen 0.0.0.0:$port --allow-remote: served to the network without TLS" "$tmp/err" &&
    ok "--allow-remote warns" || fail "--allow-remote: no warning: $(cat "$tmp/err")"
# loopback: served, no warning
port=$(free_port)
"$ZKSLOT" metrics --listen "127.0.0.1:$port" >"$tmp/out" 2>"$tmp/err" &
pid=$!
get "$port" && ok "127.0.0.1 served" || fail "127.0.0.1 not served: $(cat "$tmp/err")"
kill "$pid"; wait "$pid" 2>/dev/null; pid=
grep -q warning "$tmp/err" && fail "127.0.0.1 warned: $(cat "$tmp/err")" || ok "127.0.0.1: no warning"
# IPv6: [::] is refused like 0.0.0.0; ":PORT" serves both loopbacks; [::1] alone
port=$(free_port)
timeout 10 "$ZKSLOT" metrics --listen "[::]:$port" >"$tmp/out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q -- "--listen \[::\]:$port: not a loopback address" "$tmp/out" &&
    ok "[::] refused" || fail "[::] without --allow-remote: exit $rc: $(cat "$tmp/out")"
if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0))' 2>/dev/null; then
    "$ZKSLOT" metrics --listen ":$port" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    get "$port" 127.0.0.1 && get "$port" ::1 &&
        grep -q "serving http://127.0.0.1:$port/metrics and http://\[::1\]:$port/metrics" "$tmp/err" &&
        ok ":PORT served on 127.0.0.1 and ::1" || fail ":PORT: $(cat "$tmp/err")"
    kill "$pid"; wait "$pid"; rc=$?; pid=
    [ "$rc" = 0 ] && ok "SIGTERM: exit 0" || fail "SIGTERM: exit $rc"
    port=$(free_port)
    "$ZKSLOT" metrics --listen "[::1]:$port" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    get "$port" ::1 && ok "[::1] served" || fail "[::1] not served: $(cat "$tmp/err")"
    get "$port" 127.0.0.1 && fail "[::1] also served on 127.0.0.1"
    kill "$pid"; wait "$pid" 2>/dev/null; pid=
else
    echo "(no IPv6 loopback here: the IPv6 serving checks are left out)"
fi
# a port in use: one line naming the address
"$ZKSLOT" metrics --listen "127.0.0.1:$port" >"$tmp/out" 2>"$tmp/err" &
pid=$!
get "$port" || fail "127.0.0.1:$port not served"
timeout 10 "$ZKSLOT" metrics --listen "127.0.0.1:$port" >"$tmp/out2" 2>&1
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/out2")" = 1 ] &&
    grep -q "cannot listen on http://127.0.0.1:$port/metrics (--listen 127.0.0.1:$port): Address already in use" "$tmp/out2" &&
    ok "port in use: $(cat "$tmp/out2")" || fail "port in use: exit $rc: $(cat "$tmp/out2")"
kill "$pid"; wait "$pid" 2>/dev/null; pid=

# ZKSLOT_LOG_LEVEL
for d in "$ZKSLOT_SYNTHD" "$ZKSLOT_GPUD"; do
    name=$(basename "$d")
    ZKSLOT_LOG_LEVEL=verbose "$d" --check-config >"$tmp/out" 2>&1
    rc=$?
    [ "$rc" = 2 ] && grep -q "ZKSLOT_LOG_LEVEL 'verbose' is not one of err, warning, notice, info, debug" "$tmp/out" &&
        ok "$name: unknown level refused: $(tail -1 "$tmp/out")" ||
        fail "$name: ZKSLOT_LOG_LEVEL=verbose: exit $rc: $(cat "$tmp/out")"
    ZKSLOT_LOG_LEVEL=verbose timeout 10 "$d" >"$tmp/out" 2>&1
    rc=$?
    [ "$rc" = 2 ] && ok "$name: refused without --check-config too" || fail "$name: ZKSLOT_LOG_LEVEL=verbose ran: exit $rc"
    for lv in err warning notice info debug; do
        ZKSLOT_LOG_LEVEL=$lv "$d" --check-config >"$tmp/out" 2>&1 || fail "$name: ZKSLOT_LOG_LEVEL=$lv refused: $(cat "$tmp/out")"
    done
done

# [keys] precompute / table_factor (MSM tables): accepted values, one-line refusals
printf '[keys]\nprecompute = all\ntable_factor = 3\n' >"$tmp/keys.conf"
ZKSLOT_CONFIG=$tmp/keys.conf "$ZKSLOT_GPUD" --check-config >"$tmp/out" 2>&1 &&
    ok "[keys] precompute = all, table_factor = 3 accepted" ||
    fail "[keys] precompute = all refused: $(cat "$tmp/out")"
# keys_refused TEXT PATTERN: gpud --check-config on a config of TEXT exits 2
# with PATTERN in its message
keys_refused() {
    printf '%b' "$1" >"$tmp/keys.conf"
    ZKSLOT_CONFIG=$tmp/keys.conf "$ZKSLOT_GPUD" --check-config >"$tmp/out" 2>&1
    local rc=$?
    [ "$rc" = 2 ] && grep -q "$2" "$tmp/out" && ok "refused: $(tail -1 "$tmp/out")" ||
        fail "$1: exit $rc: $(cat "$tmp/out")"
}
keys_refused '[keys]\nprecompute = sometimes\n' \
    "keys.conf.*\\[keys\\] precompute: 'sometimes' is not none, h or all"
keys_refused '[keys]\ntable_factor = 65\n' "keys.conf.*\\[keys\\] table_factor: '65'"

[ "$fails" = 0 ] && echo "all operator error checks passed" || echo "$fails check(s) failed"
[ "$fails" = 0 ]
