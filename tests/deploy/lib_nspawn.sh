# lib_nspawn.sh -- a Debian 12 machine with systemd as PID 1 for the deploy
# tests (test_systemd.sh, test_package.sh): a debootstrapped tree, made once
# and cached, copied fresh for each test and booted in systemd-nspawn.
# Source it; it defines:
#   nsp_check               skip (exit 77) unless root with systemd-nspawn,
#                           debootstrap and nsenter
#   nsp_workdir NAME        W, a fresh directory under /var/tmp (the tree is
#                           large), R=$W/root, fail=0; on exit the container
#                           is stopped and W removed (kept, less R, after a
#                           failure); bad MSG says FAIL: MSG and sets fail=1
#   nsp_tree ROOT LOG       a fresh copy of the cached tree at ROOT (made
#                           first, ~2 min, when the cache is missing or its
#                           package list changed); skips (exit 77) when no
#                           Debian mirror can be reached
#   nsp_boot ROOT LOG       boot ROOT; sets NSP (systemd-nspawn's PID) and
#                           CPID (the container's systemd); returns 1 when it
#                           does not come up (LOG has nspawn's output)
#   cx CMD...               run CMD in the container (all its namespaces),
#                           PATH from NSP_BINDIR (default /usr/bin) first
#   nsp_halt                stop the container (in the caller's cleanup)
# The cache: $ZKSLOT_TEST_NSPAWN_CACHE (default /var/tmp/zkslot-test-nspawn),
# its tree holding NSP_PACKAGES (systemd and zkslot's runtime libraries).
NSP= CPID=
NSP_BINDIR=${NSP_BINDIR:-/usr/bin}
NSP_CACHE=${ZKSLOT_TEST_NSPAWN_CACHE:-/var/tmp/zkslot-test-nspawn}
NSP_PACKAGES=systemd,systemd-sysv,dbus,util-linux,passwd,libsqlite3-0,libjansson4,libxxhash0,libinih1,liburing2,libsystemd0,libnuma1,libgmp10,libmicrohttpd12,libpq5,libsodium23

nsp_check() {
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (systemd-nspawn)"; exit 77; }
    local c
    for c in systemd-nspawn debootstrap nsenter; do
        command -v $c >/dev/null || { echo "SKIP: no $c"; exit 77; }
    done
}

nsp_workdir() {
    fail=0
    W=$(mktemp -d "/var/tmp/zk-$1.XXXXXX") || exit 1
    R=$W/root
    trap nsp__cleanup EXIT
}
bad() { echo "FAIL: $*"; fail=1; }
nsp__cleanup() {
    nsp_halt
    if [ "$fail" = 0 ]; then rm -rf "$W"; else
        rm -rf "$R"; echo "(kept $W)"
    fi
}

nsp_tree() {
    local root=$1 log=$2 mirror lock
    mkdir -p "$(dirname "$NSP_CACHE")"
    exec {lock}>"$NSP_CACHE.lock"     # one debootstrap at a time (tests run in parallel)
    flock "$lock"
    if [ ! -f "$NSP_CACHE/base/.zkslot-complete" ] ||
       [ "$(cat "$NSP_CACHE/base/.zkslot-complete")" != "$NSP_PACKAGES" ]; then
        mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
        mkdir -p "$NSP_CACHE" && rm -rf "$NSP_CACHE/base.tmp"
        echo "debootstrap bookworm into $NSP_CACHE (once) from ${mirror:-http://deb.debian.org/debian}"
        if ! debootstrap --variant=minbase --include="$NSP_PACKAGES" bookworm "$NSP_CACHE/base.tmp" \
                "${mirror:-http://deb.debian.org/debian}" >"$log" 2>&1; then
            tail -n 3 "$log"; rm -rf "$NSP_CACHE/base.tmp"; exec {lock}>&-
            echo "SKIP: debootstrap failed (no Debian mirror reachable?)"; exit 77
        fi
        echo "$NSP_PACKAGES" >"$NSP_CACHE/base.tmp/.zkslot-complete"
        rm -rf "$NSP_CACHE/base" && mv "$NSP_CACHE/base.tmp" "$NSP_CACHE/base"
    fi
    cp -a "$NSP_CACHE/base" "$root"
    local rc=$?
    exec {lock}>&-
    return $rc
}

nsp_boot() {
    local root=$1 log=$2 st=
    systemd-nspawn -q -D "$root" -b --register=no --keep-unit --console=passive >"$log" 2>&1 &
    NSP=$!
    for _ in $(seq 300); do
        CPID=$(pgrep -P "$NSP" -x systemd | head -1)
        [ -n "$CPID" ] && break
        sleep 0.1
    done
    [ -n "$CPID" ] || return 1
    for _ in $(seq 600); do
        st=$(cx systemctl is-system-running 2>/dev/null)
        case $st in running | degraded) break ;; esac
        sleep 0.1
    done
    echo "container: systemd $(cx systemctl --version | head -1 | cut -d' ' -f2), $st"
}

cx() { nsenter -t "$CPID" -a env -i PATH="$NSP_BINDIR:/usr/sbin:/usr/bin:/sbin:/bin" "$@"; }

nsp_halt() {
    [ -n "$NSP" ] || return 0
    kill -TERM "$NSP" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$NSP" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$NSP" 2>/dev/null
    wait "$NSP" 2>/dev/null
    NSP=
}
