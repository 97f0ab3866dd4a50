#!/usr/bin/env bash
# test_units.sh -- the systemd units as `cmake --install` lays them out:
#  1. install this build into a scratch DESTDIR; every unit there passes
#     `systemd-analyze verify --root=DESTDIR` with no output at all (verify
#     exits 0 on unknown keys, so any line is a failure); the executables
#     the units name exist in that tree (verify checks them under --root);
#  2. every ExecStart=/ExecStartPre= command line, with %i = 0 and the
#     binary swapped for this build's, is accepted: the daemons' with
#     --check-config, the pool's `zkslot pool create --exist-ok` by creating
#     a scratch pool and accepting it a second time;
#  3. the example zkslot.conf documents every option --check-config prints,
#     and with every option uncommented is accepted by both daemons and by
#     `zkslot pool create`;
#  4. as root: sysusers.d and tmpfiles.d applied to the scratch root make
#     the zkslot user and /var/lib/zkslot (3770 zkslot:zkslot: setgid, sticky).
# Skips (77) without systemd-analyze.
set -u
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_BUILD_DIR:?}"
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
W=$(mktemp -d /tmp/zk-units.XXXXXX)
POOL=/dev/shm/zkslot-units-$$.pool
cleanup() {
    "$ZKSLOT" pool destroy --force --pool "$POOL" >/dev/null 2>&1
    rm -f "$POOL" "$POOL".data
    rm -rf "$W"
}
trap cleanup EXIT

# ---- 1. install and verify -----------------------------------------------------
ROOT=$W/root
mkdir -p "$ROOT/etc"
if ! DESTDIR=$ROOT cmake --install "$ZK_BUILD_DIR" >"$W/install.log" 2>&1; then
    cat "$W/install.log"; bad "cmake --install failed"; exit 1
fi
unitdir=$(dirname "$(find "$ROOT" -name zkslot-pool.service -print -quit)")
[ -f "$unitdir/zkslot-pool.service" ] || { bad "zkslot-pool.service not installed"; exit 1; }
want_units="zkslot-pool.service zkslot-synthd@.service zkslot-gpud@.service zkslot-apid.service zkslot.target run-zkslot-hugepages.mount"
for u in $want_units; do
    [ -f "$unitdir/$u" ] || bad "$u not installed in ${unitdir#$ROOT}"
done
grep -l '@[A-Z_]*@' "$unitdir"/* && bad "unsubstituted @VAR@ in the installed units"
# a template is verified as its instance 0 (a link named like the instance
# next to it: verify finds units by name inside --root)
targets=()
for f in "$unitdir"/*; do
    b=$(basename "$f")
    case $b in
    *@.*) ln -s "$b" "$unitdir/${b/@./@0.}"; targets+=("$unitdir/${b/@./@0.}") ;;
    *) targets+=("$f") ;;
    esac
done
out=$(systemd-analyze verify --recursive-errors=no --man=no --root="$ROOT" "${targets[@]}" 2>&1)
rc=$?
if [ -n "$out" ] || [ $rc != 0 ]; then
    bad "systemd-analyze verify (rc $rc):"; echo "$out"
else
    echo "verify: ${#targets[@]} units clean"
fi
rm -f "$unitdir"/*@0.*
# control: a template with a bad key and a missing binary must be reported
sed -e 's|^ExecStart=.*|ExecStart=/nonexistent/zkslot-synthd|' -e 's|^\[Service\]|[Service]\nNoSuchKey=1|' \
    "$unitdir/zkslot-synthd@.service" >"$unitdir/zkslot-control@.service"
ln -s zkslot-control@.service "$unitdir/zkslot-control@0.service"
out=$(systemd-analyze verify --recursive-errors=no --man=no --root="$ROOT" "$unitdir/zkslot-control@0.service" 2>&1)
rm -f "$unitdir"/zkslot-control@*
grep -q NoSuchKey <<<"$out" && grep -q nonexistent <<<"$out" ||
    bad "control: verify did not report a bad key and a missing binary: $out"

# the settings the deployment relies on, and every usual hardening option
# either set or explained in a comment ("#  Option=")
has() { grep -qE "^$2\$" "$unitdir/$1" || bad "$1: no '$2'"; }
for u in zkslot-synthd@.service zkslot-gpud@.service zkslot-apid.service; do
    for kv in 'Type=notify' 'NotifyAccess=main' 'WatchdogSec=[0-9]+s?' 'Restart=on-failure' \
              'TimeoutStartSec=[0-9]+(s|min)' 'User=zkslot' 'RemoveIPC=no' 'ExecStartPre=.* --check-config' \
              'PartOf=zkslot.target' 'WantedBy=zkslot.target'; do
        has "$u" "$kv"
    done
    for o in PrivateTmp PrivateDevices PrivateNetwork PrivateIPC DynamicUser NoNewPrivileges ProtectSystem \
             ProtectHome ProtectKernelTunables ProtectKernelModules ProtectKernelLogs ProtectControlGroups \
             ProtectClock ProtectHostname RestrictNamespaces RestrictRealtime RestrictSUIDSGID \
             LockPersonality MemoryDenyWriteExecute RestrictAddressFamilies SystemCallFilter \
             CapabilityBoundingSet DevicePolicy MemoryMax; do
        grep -qE "^$o=|^#  $o=|^#  .*\b$o=" "$unitdir/$u" || bad "$u: $o neither set nor explained"
    done
done
has zkslot-synthd@.service 'ExecStart=.*zkslot-synthd --numa-node %i'
has zkslot-gpud@.service 'ExecStart=.*zkslot-gpud --device %i'
has zkslot-gpud@.service 'Environment=CUDA_DEVICE_ORDER=PCI_BUS_ID'
has zkslot-gpud@.service 'LimitMEMLOCK=infinity'
has zkslot-gpud@.service 'LimitCORE=0'       # issue 37: no witness on disk by accident
has zkslot-synthd@.service 'LimitCORE=0'
grep -qE '^(PrivateDevices|DevicePolicy|DeviceAllow|ProtectClock|NoNewPrivileges)=' "$unitdir/zkslot-gpud@.service" &&
    bad "zkslot-gpud@.service restricts devices or setuid helpers (the NVIDIA driver needs them)"
grep -qE '^(RuntimeDirectory|DynamicUser|RemoveIPC=yes|PrivateTmp=yes)' "$unitdir"/*.service &&
    bad "a unit would delete or hide the pool or job paths (RuntimeDirectory/DynamicUser/RemoveIPC/PrivateTmp)"
for kv in 'Type=oneshot' 'RemainAfterExit=yes' 'User=zkslot' 'RemoveIPC=no' 'ExecStart=.*zkslot pool create --exist-ok'; do
    has zkslot-pool.service "$kv"
done
grep -qE '^ExecStop' "$unitdir/zkslot-pool.service" && bad "zkslot-pool.service has an ExecStop (the pool must survive a stop)"

# ---- 2. every command line of the units --------------------------------------------
conf=$W/zkslot.conf
printf '[zkslot]\nstate_dir = %s\n[pool]\npath = %s\nslots = 2\nslot_size = 2M\nhugepages = no\n' \
    "$W/state" "$POOL" >"$conf"
export ZKSLOT_CONFIG=$conf
unset ZKSLOT_POOL ZKSLOT_STATE_DIR
ncmd=0
while IFS= read -r line; do
    unit=${line%%:*}; cmd=${line#*:}; cmd=${cmd#*=}
    cmd=${cmd#[-@+!:]}; cmd=${cmd//%i/0}
    read -r -a argv <<<"$cmd"
    bin=${argv[0]}
    [ -x "$ROOT$bin" ] || bad "$unit: $bin is not in the installed tree"
    case $(basename "$bin") in
    zkslot-synthd) argv[0]=$ZKSLOT_SYNTHD ;;
    zkslot-gpud) argv[0]=$ZKSLOT_GPUD ;;
    zkslot-apid) argv[0]=$ZKSLOT_APID ;;
    zkslot) argv[0]=$ZKSLOT ;;
    *) bad "$unit: unexpected binary $bin"; continue ;;
    esac
    ncmd=$((ncmd + 1))
    if [ "$(basename "$bin")" = zkslot ]; then
        # the pool unit: create, then accept the same pool again (a restart)
        for pass in create accept; do
            "${argv[@]}" >"$W/out" 2>&1 || { bad "$unit ($pass): ${argv[*]}:"; cat "$W/out"; }
        done
        grep -q "already exists, geometry matches" "$W/out" || bad "$unit: second run did not accept the pool"
        "$ZKSLOT" pool destroy --pool "$POOL" >/dev/null || bad "destroy the scratch pool"
        continue
    fi
    has_check=0
    for a in "${argv[@]}"; do [ "$a" = --check-config ] && has_check=1; done
    [ $has_check = 1 ] || argv+=(--check-config)
    if ! "${argv[@]}" >"$W/out" 2>&1; then
        bad "$unit: ${argv[*]} refused:"; cat "$W/out"
    elif [ "$(basename "$bin")" = zkslot-synthd ] && ! grep -qx "numa_node = 0" "$W/out"; then
        bad "$unit: --numa-node %i did not reach the configuration"; cat "$W/out"
    elif [ "$(basename "$bin")" = zkslot-gpud ] && ! grep -qx "device = 0" "$W/out"; then
        bad "$unit: --device %i did not reach the configuration"; cat "$W/out"
    fi
done < <(grep -H -E '^(ExecStart|ExecStartPre|ExecStartPost|ExecReload|ExecStop|ExecStopPost)=' \
             "$unitdir"/*.service)
[ $ncmd -ge 5 ] || bad "only $ncmd command lines found in the units"
echo "command lines: $ncmd accepted"

# ---- 3. the example configuration ---------------------------------------------------
ex=$(find "$ROOT" -name zkslot.conf.example -print -quit)
[ -n "$ex" ] || { bad "zkslot.conf.example not installed"; ex=$ZK_SOURCE_DIR/systemd/zkslot.conf.example; }
"$ZKSLOT_SYNTHD" --config /dev/null --check-config >"$W/defaults" 2>&1 || bad "synthd --check-config with an empty file"
section=
while IFS= read -r l; do
    case $l in
    '#'*) ;;
    '['*']') section=$l ;;
    *' = '*)
        name=${l%% = *}
        awk -v s="$section" -v n="$name" '
            /^\[/ { cur = $0 } cur == s && $0 ~ "^#? *" n " *=" { found = 1 } END { exit !found }' "$ex" ||
            bad "option $section $name is not in the example configuration" ;;
    esac
done <"$W/defaults"
for o in slots slot_size dir numa_nodes hugepages; do
    grep -q "^#$o =" "$ex" || bad "[pool] $o is not in the example configuration"
done
sed -e 's/^#\([a-z_]* =\)/\1/' -e "s|^path = .*|path = $POOL|" -e "s|^state_dir = .*|state_dir = $W/state|" \
    -e 's|^slot_size = .*|slot_size = 2M|' -e 's|^slots = .*|slots = 2|' -e 's|^numa_nodes = .*|numa_nodes = 0|' \
    -e 's|^hugepages = .*|hugepages = no|' "$ex" >"$W/all.conf"
for d in "$ZKSLOT_SYNTHD" "$ZKSLOT_GPUD"; do
    "$d" --config "$W/all.conf" --check-config >"$W/out" 2>&1 || { bad "$(basename "$d") refused the example with every option set:"; cat "$W/out"; }
done
if "$ZKSLOT" pool create --config "$W/all.conf" >"$W/out" 2>&1; then
    "$ZKSLOT" pool destroy --pool "$POOL" >/dev/null
else
    bad "zkslot pool create refused the example with every option set:"; cat "$W/out"
fi

# ---- 4. sysusers.d and tmpfiles.d -----------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v systemd-sysusers >/dev/null && command -v systemd-tmpfiles >/dev/null; then
    su=$(find "$ROOT" -path '*sysusers.d/zkslot.conf' -print -quit)
    tf=$(find "$ROOT" -path '*tmpfiles.d/zkslot.conf' -print -quit)
    if systemd-sysusers --root="$ROOT" "$su" >"$W/out" 2>&1 &&
       systemd-tmpfiles --root="$ROOT" --create "$tf" >>"$W/out" 2>&1; then
        uid=$(awk -F: '$1 == "zkslot" { print $3 }' "$ROOT/etc/passwd")
        gid=$(awk -F: '$1 == "zkslot" { print $3 }' "$ROOT/etc/group")
        [ -n "$uid" ] || bad "sysusers.d made no zkslot user"
        st=$(stat -c '%a %u %g' "$ROOT/var/lib/zkslot" 2>/dev/null)
        [ "$st" = "3770 $uid $gid" ] || bad "/var/lib/zkslot is '$st', expected '3770 $uid $gid'"
        [ -d "$ROOT/etc/zkslot" ] || bad "tmpfiles.d made no /etc/zkslot"
    else
        bad "sysusers.d / tmpfiles.d:"; cat "$W/out"
    fi
else
    echo "(not root or no systemd-sysusers: sysusers.d/tmpfiles.d not applied)"
fi

[ $fail = 0 ] && echo "units: ok"
exit $fail
