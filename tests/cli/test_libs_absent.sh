# test_libs_absent.sh -- libpq, libmicrohttpd and GnuTLS are loaded when
# first needed (common/ledger/pg/libpq.c at the first PostgreSQL ledger
# open, tools/zkslot/lib/metrics_http.c when `zkslot metrics --listen`
# starts, tools/zkslot/lib/tls_client.c when an https:// session opens),
# not linked (`zkslot` has none of them in its ELF dependencies).  In a
# mount namespace where one of them is /dev/null:
#   - zkslot still runs on an SQLite ledger (a key added and listed);
#   - a PostgreSQL URL, --listen, or --server https:// is refused with one
#     line naming the library and its Debian package.
# Outside it the same URL gets as far as connecting.  Skips (77) without a
# mount namespace, or in a build without libpq (the libpq half).
set -euo pipefail
: "${ZK_BUILD_DIR:?}" "${ZK_SOURCE_DIR:?}"
zkslot=$ZK_BUILD_DIR/zkslot
skip() { echo "SKIP: $*"; exit 77; }
unshare -m true 2>/dev/null || skip "no mount namespace here (unshare -m)"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export ZKSLOT_CONFIG=/dev/null ZKSLOT_STATE_DIR=$w/state
mkdir -p "$w/state"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# the file behind soname $1
lib_file() { readlink -f "$(ldconfig -p | awk -v s="$1" '$1 == s { print $NF; exit }')"; }
# runs "$@" with the file $1 empty (bind-mounted /dev/null)
without() { unshare -m sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$@"; }
# $1 exited nonzero with one line on $2 containing $3
refused() {
    local n
    n=$(wc -l <"$2")
    [ "$1" != 0 ] && [ "$n" = 1 ] && grep -q "$3" "$2"
}

# linked, a library is mapped (and relocated) at every command's start
if ldd "$zkslot" | grep -E -q "libpq|libmicrohttpd|libgnutls"; then
    bad "zkslot links $(ldd "$zkslot" | grep -E -o "(libpq|libmicrohttpd|libgnutls)[^ ]*" | xargs)"
fi
for so in libpq.so.5 libmicrohttpd.so.12 libgnutls.so.30; do
    f=$(lib_file "$so")
    [ -f "$f" ] || { bad "no $so on this machine (tools/deps.sh installs it)"; continue; }
    without "$f" true 2>/dev/null || skip "cannot bind-mount over $f here"
    # SQLite needs neither: a key goes in and is listed
    rm -f "$w/state/ledger.db"*
    without "$f" "$zkslot" key add ex "$ZK_SOURCE_DIR/examples/groth16/bn128/key.zkey" \
        >/dev/null 2>"$w/add.err" || bad "key add without $so: $(cat "$w/add.err")"
    without "$f" "$zkslot" key list 2>"$w/list.err" >"$w/list.out" || true
    grep -q "^ex " "$w/list.out" || bad "key list without $so: $(cat "$w/list.err")"
    if [ "$so" = libmicrohttpd.so.12 ]; then
        rc=0
        without "$f" timeout 10 "$zkslot" metrics --listen 127.0.0.1:0 >/dev/null 2>"$w/m.err" ||
            rc=$?
        refused "$rc" "$w/m.err" "cannot load the HTTP server library (Debian package libmicrohttpd12)" ||
            bad "metrics --listen without $so: exit $rc: $(cat "$w/m.err")"
        continue
    fi
    if [ "$so" = libgnutls.so.30 ]; then
        # a TCP listener that never answers: the session is opened after
        # connecting, so the refusal comes before any handshake byte
        python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$w/port" &
        lpid=$!
        for _ in $(seq 100); do [ -s "$w/port" ] && break; sleep 0.1; done
        port=$(cat "$w/port")
        rc=0
        without "$f" timeout 10 "$zkslot" --server "https://127.0.0.1:$port" key list \
            >/dev/null 2>"$w/tls.err" || rc=$?
        refused "$rc" "$w/tls.err" "cannot load the TLS library (Debian package libgnutls30)" ||
            bad "--server https:// without $so: exit $rc: $(cat "$w/tls.err")"
        kill "$lpid" 2>/dev/null || true
        wait "$lpid" 2>/dev/null || true
        continue
    fi
    url="postgresql:///zkslot?host=$w/nosocket"
    rc=0
    "$zkslot" key list --ledger "$url" >/dev/null 2>"$w/pg.err" || rc=$?
    if grep -q "PostgreSQL URLs are refused\|built without libpq" "$w/pg.err"; then
        echo "(this build has no PostgreSQL ledger: its libpq half skipped)"
        continue
    fi
    grep -q "unreachable" "$w/pg.err" ||
        bad "with libpq: exit $rc, not a connection failure: $(cat "$w/pg.err")"
    rc=0
    without "$f" "$zkslot" key list --ledger "$url" >/dev/null 2>"$w/nopg.err" || rc=$?
    refused "$rc" "$w/nopg.err" "cannot load the PostgreSQL client library (Debian package libpq5)" ||
        bad "a PostgreSQL URL without $so: exit $rc: $(cat "$w/nopg.err")"
done
[ "$fail" = 0 ] && echo "libs_absent: ok"
exit "$fail"
