#!/usr/bin/env bash
# test_package.sh -- the Debian package (tools/package.sh, debian/) on a
# Debian 12 machine with systemd as PID 1 (tests/deploy/lib_nspawn.sh: the
# container of test_systemd.sh), as docs/operations.md ("Install from the
# package") tells an operator:
#   1. `apt-get install ./zkslot_VERSION_amd64.deb`: apt resolves the
#      package's Depends from the container's Debian packages (no network:
#      all of them are in the cached tree); the zkslot user, /var/lib/zkslot,
#      the conffile /etc/zkslot/zkslot.conf, the units and the man pages are
#      there, and nothing is enabled or started;
#   2. the configuration written, a key registered, `systemctl enable --now
#      zkslot.target zkslot-synthd@0 zkslot-gpud@0`: a job of witnesses and a
#      job of circuit inputs (circom's C++ generator run by synthd) are
#      proved, and snarkjs, on this side, accepts every proof;
#   3. gpud stopped, a job submitted (it waits in the ledger), `apt-get
#      remove zkslot`: no daemon left running, the binaries gone, the
#      ledger, the first jobs' results and the configuration still there;
#   4. `apt-get install` again: zkslot.target (still enabled) comes back
#      with both daemons and the waiting job is proved (snarkjs again);
#   5. `apt-get purge zkslot`: no /etc/zkslot, nothing of zkslot left in
#      /etc/systemd/system; the data in /var/lib/zkslot is left (the docs
#      say how to remove it).
# The package: $ZKSLOT_TEST_DEB (a built zkslot_*.deb), else tools/package.sh
# builds it here (~1 min with ccache warm, ~4 min cold on 2 cores).  Run in
# the release suite only (tools/test-all.sh): it does not use the build tree.
# Skips (77): not root, a sanitizer build, no systemd-nspawn, debootstrap,
# dpkg-buildpackage or node's snarkjs, no mirror for the first debootstrap.
set -u
: "${ZK_BUILD_DIR:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_nspawn.sh"
nsp_check
[ -z "${ZK_SANITIZE:-}" ] || { echo "SKIP: a sanitizer build (the release suite runs it)"; exit 77; }
if [ -z "${ZKSLOT_TEST_DEB:-}" ]; then
    for c in dpkg-buildpackage dh lintian; do
        command -v $c >/dev/null || { echo "SKIP: no $c (tools/deps.sh)"; exit 77; }
    done
fi
. "$ZK_SOURCE_DIR/tests/interop/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
zk_interop_init || { echo "SKIP: ${ZK_INTEROP_SKIP:-no snarkjs}"; exit 77; }
nsp_workdir package
t0=$SECONDS

# ---- the package ------------------------------------------------------------------
deb=${ZKSLOT_TEST_DEB:-}
if [ -z "$deb" ]; then
    "$ZK_SOURCE_DIR/tools/package.sh" "$W/pkg" >"$W/package.log" 2>&1 ||
        { bad "tools/package.sh: $(tail -n 5 "$W/package.log")"; exit 1; }
    deb=$(ls "$W"/pkg/zkslot_*_amd64.deb)
    echo "package built in $((SECONDS - t0)) s: $(basename "$deb")"
fi
[ -f "$deb" ] || { bad "no package $deb"; exit 1; }
version=$(dpkg-deb -f "$deb" Version)

# ---- the machine ------------------------------------------------------------------
nsp_tree "$R" "$W/debootstrap.log" || { bad "copy the tree"; exit 1; }
chroot "$R" systemctl mask systemd-networkd.service systemd-resolved.service >/dev/null 2>&1
mkdir -p "$R/srv/in/gen"
cp "$deb" "$R/srv/"
cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,vk.json,witness-1.wtns,witness-2.wtns} "$R/srv/in/"
pli_circuit bn128 || { bad "the inputs circuit could not be made"; exit 1; }
cp "$PLI_CPP" "$PLI_CPP.dat" "$R/srv/in/gen/"
cp "$PLI_KEY" "$R/srv/in/inputs.zkey"
cp "$PLI_VK" "$R/srv/in/inputs.vk.json"
pli_input 3 5 1 >"$R/srv/in/in-1.json"
pli_input 4 6 0 >"$R/srv/in/in-2.json"
chmod -R a+rX "$R/srv"
t1=$SECONDS
nsp_boot "$R" "$W/nspawn.log" || { bad "no systemd in the container"; cat "$W/nspawn.log"; exit 1; }

apt_install() {   # apt_install LOG: the package, as the docs install it
    cx env DEBIAN_FRONTEND=noninteractive apt-get install -y "/srv/$(basename "$deb")" >"$1" 2>&1 ||
        { bad "apt-get install ./$(basename "$deb"): $(tail -n 5 "$1")"; return 1; }
}
# verify_job WHAT JOB VK N: the job done, N proofs, each accepted by snarkjs here
verify_job() {
    local what=$1 j=$2 vk=$3 want=$4 n=0 proof pub
    cx zkslot wait "$j" --timeout 120 >"$W/wait-$j.log" 2>&1 ||
        { bad "$what job $j: $(tail -n 2 "$W/wait-$j.log")"; return; }
    while read -r proof pub; do
        n=$((n + 1))
        zk_snarkjs groth16 verify "$R$vk" "$R$pub" "$R$proof" >"$W/snarkjs.log" 2>&1 ||
            bad "$what job $j: snarkjs rejects $proof: $(tail -n 1 "$W/snarkjs.log")"
    done < <(cx zkslot result "$j" 2>/dev/null)
    [ $n = "$want" ] || bad "$what job $j: $n proofs, expected $want"
    [ $fail = 0 ] && echo "$what job $j: $n proofs, snarkjs accepts each"
}
wait_active() {   # wait_active UNIT...: each active within 30 s
    local u
    for u in "$@"; do
        for _ in $(seq 300); do [ "$(cx systemctl is-active "$u")" = active ] && break; sleep 0.1; done
        [ "$(cx systemctl is-active "$u")" = active ] ||
            { bad "$u is $(cx systemctl is-active "$u")"; cx journalctl -u "$u" --no-pager | tail -n 10; }
    done
}

# ---- 1. install: files, user, directories, nothing started -------------------------
apt_install "$W/install-1.log" || exit 1
echo "installed zkslot $version with apt-get: $(grep -c '^Setting up' "$W/install-1.log") package(s) set up"
[ "$(cx zkslot --version)" = "zkslot $version" ] || bad "zkslot --version: '$(cx zkslot --version)', the package is $version"
for f in /usr/bin/zkslot /usr/bin/zkslot-synthd /usr/bin/zkslot-gpud /usr/bin/zkslot-apid \
         /lib/systemd/system/zkslot.target /lib/systemd/system/zkslot-apid.service \
         /lib/systemd/system/zkslot-gpud@.service /usr/lib/sysusers.d/zkslot.conf \
         /usr/lib/tmpfiles.d/zkslot.conf /usr/lib/sysctl.d/60-zkslot-hugepages.conf \
         /usr/share/man/man1/zkslot.1.gz /usr/share/man/man5/zkslot.conf.5.gz \
         /usr/share/man/man8/zkslot-synthd.8.gz /usr/share/man/man8/zkslot-apid.8.gz \
         /usr/share/doc/zkslot/operations.md \
         /usr/share/doc/zkslot/copyright /etc/zkslot/zkslot.conf; do
    [ -e "$R$f" ] || bad "$f is not installed"
done
cx dpkg-query -W -f='${Conffiles}\n' zkslot | grep -q '^ /etc/zkslot/zkslot.conf ' ||
    bad "/etc/zkslot/zkslot.conf is not a conffile"
[ "$(cx stat -c '%U:%G %a' /var/lib/zkslot 2>&1)" = "zkslot:zkslot 2770" ] ||
    bad "/var/lib/zkslot is '$(cx stat -c '%U:%G %a' /var/lib/zkslot 2>&1)', expected zkslot:zkslot 2770"
cx id -nG zkslot 2>/dev/null | grep -qw video || bad "no system user zkslot in group video"
for u in zkslot.target zkslot-pool.service; do
    [ "$(cx systemctl is-enabled $u)" = disabled ] || bad "$u is $(cx systemctl is-enabled $u) after the install"
    [ "$(cx systemctl is-active $u)" = inactive ] || bad "$u is $(cx systemctl is-active $u) after the install"
done

# ---- 2. configure, enable --now, prove -----------------------------------------------
# the generators synthd may run: root's /srv/in/gen (docs/synthesis.md)
printf '[pool]\nslots = 2\nslot_size = 4M\nhugepages = no\n[gpud]\nbackend = cpu\nthreads = 2\n[synthd]\ngenerators = /srv/in/gen\n' \
    >"$R/etc/zkslot/zkslot.conf"
cx zkslot key add k /srv/in/key.zkey >"$W/key.log" 2>&1 || bad "key add: $(cat "$W/key.log")"
cx zkslot key add kin /srv/in/inputs.zkey --witness-gen /srv/in/gen/inputs >"$W/key-in.log" 2>&1 ||
    bad "key add --witness-gen: $(cat "$W/key-in.log")"
cx systemctl enable --now zkslot.target zkslot-synthd@0 zkslot-gpud@0 >"$W/enable.log" 2>&1 ||
    bad "systemctl enable --now: $(cat "$W/enable.log")"
wait_active zkslot-pool.service zkslot-synthd@0.service zkslot-gpud@0.service
j1=$(cx zkslot submit --key k /srv/in/witness-1.wtns /srv/in/witness-2.wtns 2>"$W/submit-1.log") ||
    bad "submit: $(cat "$W/submit-1.log")"
j2=$(cx zkslot submit --key kin --input /srv/in/in-1.json /srv/in/in-2.json 2>"$W/submit-2.log") ||
    bad "submit --input: $(cat "$W/submit-2.log")"
[ -n "$j1" ] && verify_job witness "$j1" /srv/in/vk.json 2
[ -n "$j2" ] && verify_job inputs "$j2" /srv/in/inputs.vk.json 2
results=$(cx zkslot result "$j1" 2>/dev/null | head -1 | cut -d' ' -f1)

# ---- 3. a job waiting, remove ---------------------------------------------------------
cx systemctl stop zkslot-gpud@0.service
j3=$(cx zkslot submit --key k /srv/in/witness-2.wtns 2>"$W/submit-3.log") || bad "submit: $(cat "$W/submit-3.log")"
cx env DEBIAN_FRONTEND=noninteractive apt-get remove -y zkslot >"$W/remove.log" 2>&1 ||
    bad "apt-get remove: $(tail -n 5 "$W/remove.log")"
[ ! -e "$R/usr/bin/zkslot" ] || bad "remove left /usr/bin/zkslot"
left=$(cx sh -c 'cat /proc/[0-9]*/comm 2>/dev/null' | grep zkslot | tr '\n' ' ')
[ -z "$left" ] || bad "remove left processes running: $left"
for f in /var/lib/zkslot/ledger.db "$results" /etc/zkslot/zkslot.conf; do
    [ -n "$f" ] && [ -e "$R$f" ] || bad "remove took ${f:-the results of job $j1} away"
done
[ $fail = 0 ] && echo "removed: no daemon running, the ledger, results and configuration kept"

# ---- 4. install again: the daemons come back, the waiting job is proved ---------------
apt_install "$W/install-2.log"
wait_active zkslot-pool.service zkslot-synthd@0.service zkslot-gpud@0.service
[ -n "$j3" ] && verify_job resumed "$j3" /srv/in/vk.json 1

# ---- 5. purge ----------------------------------------------------------------------------
cx env DEBIAN_FRONTEND=noninteractive apt-get purge -y zkslot >"$W/purge.log" 2>&1 ||
    bad "apt-get purge: $(tail -n 5 "$W/purge.log")"
[ ! -e "$R/etc/zkslot" ] || bad "purge left /etc/zkslot: $(ls -A "$R/etc/zkslot")"
left=$(cd "$R/etc/systemd/system" && find . -name '*zkslot*' | tr '\n' ' ')
[ -z "$left" ] || bad "purge left in /etc/systemd/system: $left"
[ "$(cx dpkg-query -W -f='${db:Status-Status}' zkslot 2>/dev/null)" != installed ] || bad "zkslot still installed"
[ -e "$R/var/lib/zkslot/ledger.db" ] || bad "purge removed the data (the docs say it stays)"
[ $fail = 0 ] && echo "purged: no configuration left, the data in /var/lib/zkslot kept"

echo "time: $((SECONDS - t0)) s in all, $((SECONDS - t1)) s in the container"
[ $fail = 0 ] && echo "package: ok"
exit $fail
