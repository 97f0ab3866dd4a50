#!/usr/bin/env bash
# test_systemd.sh -- the shipped units under a real systemd (Debian 12's,
# PID 1 of a systemd-nspawn container over a debootstrapped tree), as
# `cmake --install` lays them out, with the users sysusers.d makes:
#   1. zkslot.target with zkslot-pool, zkslot-synthd@0 and zkslot-gpud@0
#      (cpu backend) comes up active;
#   2. root registers the key before the daemons ever ran (root makes the
#      ledger), then a job submitted by root and one by an operator in group
#      zkslot (runuser) are proved: every proof passes `zkslot verify`;
#   3. SIGHUP to synthd (`systemctl kill -s HUP`) leaves it active, same PID;
#   4. a stop while gpud drains longer than its watchdog (a drop-in:
#      WatchdogSec=2s, the test hook ZKSLOT_TEST_RECORD_HOLD_MS holding a
#      written proof 6 s): the unit stops with Result=success, exit 0, and
#      the journal has no watchdog timeout; the held partition is done;
#   5. the same hold, and the pool destroyed under gpud: it stops by itself
#      (STOPPING=1) and exits 75, not SIGABRTed by the watchdog.
# The tree is made once (debootstrap, ~2 min with a reachable Debian mirror)
# and kept in $ZKSLOT_TEST_NSPAWN_CACHE (default
# /var/tmp/zkslot-test-nspawn); every run boots a fresh copy of it.
# Skips (77): not root, a sanitizer build, no systemd-nspawn or debootstrap,
# no mirror.
set -u
: "${ZKSLOT:?}" "${ZK_BUILD_DIR:?}" "${ZK_SOURCE_DIR:?}"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (systemd-nspawn)"; exit 77; }
# the container has the release build's runtime libraries, not the
# sanitizers' (the other deploy tests run both trees)
[ -z "${ZK_SANITIZE:-}" ] || { echo "SKIP: a sanitizer build (no sanitizer runtime in the container)"; exit 77; }
for c in systemd-nspawn debootstrap nsenter; do
    command -v $c >/dev/null || { echo "SKIP: no $c"; exit 77; }
done
fail=0
bad() { echo "FAIL: $*"; fail=1; }
CACHE=${ZKSLOT_TEST_NSPAWN_CACHE:-/var/tmp/zkslot-test-nspawn}
W=$(mktemp -d /var/tmp/zk-systemd.XXXXXX)   # not /tmp: the copy is large
R=$W/root
NSP= CPID=
cleanup() {
    if [ -n "$NSP" ]; then
        kill -TERM "$NSP" 2>/dev/null
        for _ in $(seq 100); do kill -0 "$NSP" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$NSP" 2>/dev/null
        wait "$NSP" 2>/dev/null
    fi
    if [ $fail = 0 ]; then rm -rf "$W"; else
        rm -rf "$R"; echo "(kept $W)"
    fi
}
trap cleanup EXIT

# ---- the tree, once -------------------------------------------------------------
libs=systemd,systemd-sysv,dbus,util-linux,passwd,libsqlite3-0,libjansson4,libxxhash0,libinih1,liburing2,libsystemd0,libnuma1,libgmp10
if [ ! -f "$CACHE/base/.zkslot-complete" ] || [ "$(cat "$CACHE/base/.zkslot-complete")" != "$libs" ]; then
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
    mkdir -p "$CACHE" && rm -rf "$CACHE/base.tmp"
    echo "debootstrap bookworm into $CACHE (once) from ${mirror:-http://deb.debian.org/debian}"
    if ! debootstrap --variant=minbase --include="$libs" bookworm "$CACHE/base.tmp" \
            "${mirror:-http://deb.debian.org/debian}" >"$W/debootstrap.log" 2>&1; then
        tail -n 3 "$W/debootstrap.log"; rm -rf "$CACHE/base.tmp"
        echo "SKIP: debootstrap failed (no Debian mirror reachable?)"; exit 77
    fi
    echo "$libs" >"$CACHE/base.tmp/.zkslot-complete"
    rm -rf "$CACHE/base" && mv "$CACHE/base.tmp" "$CACHE/base"
fi
cp -a "$CACHE/base" "$R" || { bad "copy the tree"; exit 1; }

# ---- install, users, configuration, units enabled ------------------------------
DESTDIR=$R cmake --install "$ZK_BUILD_DIR" >"$W/install.log" 2>&1 || { bad "cmake --install"; cat "$W/install.log"; exit 1; }
bindir=$(dirname "$(cd "$R" && find . -path '*/bin/zkslot' -print -quit)"); bindir=${bindir#.}
[ -x "$R$bindir/zkslot-gpud" ] || { bad "zkslot-gpud not installed"; exit 1; }
ch() { chroot "$R" env -i PATH="$bindir:/usr/sbin:/usr/bin:/sbin:/bin" "$@"; }
ch systemd-sysusers >"$W/sysusers.log" 2>&1 || { bad "systemd-sysusers"; cat "$W/sysusers.log"; }
ch useradd -m -G zkslot op || bad "useradd op"
mkdir -p "$R/etc/zkslot" "$R/srv/in"
printf '[pool]\nslots = 2\nslot_size = 4M\nhugepages = no\n[gpud]\nbackend = cpu\nthreads = 2\n' \
    >"$R/etc/zkslot/zkslot.conf"
chmod 0644 "$R/etc/zkslot/zkslot.conf"
cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,vk.json,witness-1.wtns,witness-2.wtns} "$R/srv/in/"
chmod -R a+rX "$R/srv/in"
# root registers the key before the daemons ever ran (as at install time):
# root makes the ledger, the daemons must write it
# (the host's systemd-tmpfiles with --root: in a chroot it wants /proc)
tf=$(find "$R" -path '*tmpfiles.d/zkslot.conf' -print -quit)
systemd-tmpfiles --root="$R" --create "$tf" >"$W/tmpfiles.log" 2>&1 || { bad "systemd-tmpfiles"; cat "$W/tmpfiles.log"; }
(umask 0022; ch zkslot key add k /srv/in/key.zkey) >"$W/key.log" 2>&1 || { bad "key add as root"; cat "$W/key.log"; }
ch systemctl enable zkslot.target zkslot-pool.service zkslot-synthd@0.service zkslot-gpud@0.service \
    >"$W/enable.log" 2>&1 || { bad "systemctl enable"; cat "$W/enable.log"; }
ch systemctl mask systemd-networkd.service systemd-resolved.service >/dev/null 2>&1

# ---- boot -----------------------------------------------------------------------
systemd-nspawn -q -D "$R" -b --register=no --keep-unit --console=passive \
    >"$W/nspawn.log" 2>&1 &
NSP=$!
for _ in $(seq 300); do
    CPID=$(pgrep -P "$NSP" -x systemd | head -1)
    [ -n "$CPID" ] && break
    sleep 0.1
done
[ -n "$CPID" ] || { bad "no systemd in the container"; cat "$W/nspawn.log"; exit 1; }
cx() { nsenter -t "$CPID" -a env -i PATH="$bindir:/usr/sbin:/usr/bin:/sbin:/bin" "$@"; }
for _ in $(seq 600); do
    st=$(cx systemctl is-system-running 2>/dev/null)
    case $st in running | degraded) break ;; esac
    sleep 0.1
done
echo "container: systemd $(cx systemctl --version | head -1 | cut -d' ' -f2), $st"
for u in zkslot-pool.service zkslot-synthd@0.service zkslot-gpud@0.service; do
    for _ in $(seq 300); do [ "$(cx systemctl is-active "$u")" = active ] && break; sleep 0.1; done
    [ "$(cx systemctl is-active "$u")" = active ] ||
        { bad "$u is $(cx systemctl is-active "$u")"; cx journalctl -u "$u" --no-pager | tail -n 15; }
done

# ---- jobs of root and of an operator ----------------------------------------------
run_job() {   # run_job WHO CMD-PREFIX...: submit, wait, verify every proof
    local who=$1; shift
    local j n=0 proof pub
    j=$("$@" zkslot submit --key k /srv/in/witness-1.wtns /srv/in/witness-2.wtns 2>"$W/submit-$who.log") ||
        { bad "submit as $who: $(cat "$W/submit-$who.log")"; return; }
    "$@" zkslot wait "$j" --timeout 120 >"$W/wait-$who.log" 2>&1 ||
        { bad "$who's job $j: $(tail -n 2 "$W/wait-$who.log")"; return; }
    while read -r proof pub; do
        n=$((n + 1))
        cx zkslot verify /srv/in/vk.json "$pub" "$proof" >/dev/null 2>&1 || bad "$who's job $j: $proof does not verify"
    done < <("$@" zkslot result "$j" 2>/dev/null)
    [ $n = 2 ] || bad "$who's job $j: $n proofs, expected 2"
    echo "$who's job $j: $n proofs verified"
}
run_job root cx
run_job op cx runuser -u op --
echo "state: $(cx stat -c '%n %a %U:%G' /var/lib/zkslot /var/lib/zkslot/ledger.db | tr '\n' ' ')"

# ---- SIGHUP does not stop a daemon ---------------------------------------------------
pid0=$(cx systemctl show -p MainPID --value zkslot-synthd@0.service)
cx systemctl kill -s HUP zkslot-synthd@0.service
sleep 1
[ "$(cx systemctl is-active zkslot-synthd@0.service)" = active ] &&
    [ "$(cx systemctl show -p MainPID --value zkslot-synthd@0.service)" = "$pid0" ] ||
    bad "SIGHUP stopped or restarted zkslot-synthd@0"

# ---- a drain longer than the watchdog ----------------------------------------------
mkdir -p "$R/etc/systemd/system/zkslot-gpud@0.service.d"
printf '[Service]\nWatchdogSec=2s\nEnvironment=ZKSLOT_TEST_RECORD_HOLD_MS=6000\n' \
    >"$R/etc/systemd/system/zkslot-gpud@0.service.d/test.conf"
cx systemctl daemon-reload
cx systemctl restart zkslot-gpud@0.service
since=$(cx date '+%Y-%m-%d %H:%M:%S')
j=$(cx zkslot submit --key k /srv/in/witness-1.wtns 2>"$W/submit-drain.log") || bad "submit: $(cat "$W/submit-drain.log")"
for _ in $(seq 300); do
    cx journalctl -u zkslot-gpud@0.service --since "$since" --no-pager 2>/dev/null |
        grep -q 'proof written, not yet recorded' && break
    sleep 0.1
done
t0=$SECONDS
cx systemctl stop zkslot-gpud@0.service
dt=$((SECONDS - t0))
res=$(cx systemctl show -p Result --value zkslot-gpud@0.service)
st=$(cx systemctl show -p ExecMainStatus --value zkslot-gpud@0.service)
cx journalctl -u zkslot-gpud@0.service --since "$since" --no-pager >"$W/gpud-drain.journal" 2>&1
[ "$res" = success ] && [ "$st" = 0 ] || bad "gpud stopped with Result=$res, status $st after a ${dt} s drain"
grep -qi 'watchdog timeout' "$W/gpud-drain.journal" && bad "the watchdog fired during the drain: $(grep -i watchdog "$W/gpud-drain.journal" | head -2)"
[ "$dt" -ge 3 ] || bad "the stop took ${dt} s: the drain (a 6 s hold) was not exercised"
[ -n "${j:-}" ] && { cx zkslot status "$j" 2>/dev/null | grep -q done || bad "the held partition of job $j is not done"; }
[ $fail = 0 ] && echo "drain of ${dt} s under WatchdogSec=2s: Result=$res, exit $st"

# ---- gpud stops by itself (the pool destroyed) while it drains ------------------------
# systemd 252 disarms the watchdog once the unit is stopping: for a stop it
# began, or after STOPPING=1.  A daemon that stops by itself and goes quiet
# without STOPPING=1 is SIGABRTed (Result=watchdog); gpud must say
# STOPPING=1 and exit 75 when its 6 s hold ends.
cx systemctl start zkslot-gpud@0.service
since=$(cx date '+%Y-%m-%d %H:%M:%S')
j=$(cx zkslot submit --key k /srv/in/witness-2.wtns 2>"$W/submit-gone.log") || bad "submit: $(cat "$W/submit-gone.log")"
for _ in $(seq 300); do
    cx journalctl -u zkslot-gpud@0.service --since "$since" --no-pager 2>/dev/null |
        grep -q 'proof written, not yet recorded' && break
    sleep 0.1
done
cx zkslot pool destroy --force >"$W/destroy.log" 2>&1 || bad "pool destroy: $(cat "$W/destroy.log")"
for _ in $(seq 150); do
    cx journalctl -u zkslot-gpud@0.service --since "$since" --no-pager 2>/dev/null |
        grep -q 'Main process exited' && break
    sleep 0.1
done
cx journalctl -u zkslot-gpud@0.service --since "$since" --no-pager >"$W/gpud-gone.journal" 2>&1
ex=$(grep -o 'Main process exited, code=[a-z]*, status=[^ ]*' "$W/gpud-gone.journal" | head -1)
grep -qi 'watchdog timeout' "$W/gpud-gone.journal" && bad "the watchdog fired while gpud drained after losing its pool"
case $ex in
*code=exited,\ status=75*) echo "gpud's own stop under WatchdogSec=2s: $ex" ;;
*) bad "gpud's own stop: '${ex:-no exit}', expected code=exited, status=75"; tail -n 8 "$W/gpud-gone.journal" ;;
esac

[ $fail = 0 ] && echo "systemd: ok"
exit $fail
