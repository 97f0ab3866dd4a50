#!/usr/bin/env bash
# test_package.sh -- the Debian packages (tools/package.sh, debian/) on a
# Debian 12 machine with systemd as PID 1 (tests/deploy/lib_nspawn.sh: the
# container of test_systemd.sh), as docs/operations.md ("Install from the
# package") tells an operator:
#   1. `apt-get install ./zkslot_VERSION_amd64.deb ./libzkslot0_...
#      ./libzkslot-dev_...`: apt resolves the packages' Depends from the
#      container's Debian packages (no network: all of them are in the
#      cached tree); the zkslot user, /var/lib/zkslot, the conffile
#      /etc/zkslot/zkslot.conf, the units, the man pages, the library, its
#      header, zkslot.pc and the example are there, and nothing is enabled
#      or started; on a CPU without BMI2 and ADX (a test hook says so,
#      with ZKSLOT_TEST_HOOKS=1: the package is built without test hooks,
#      and ignores that one without it) every program refuses in one line;
#   2. the configuration written, a key registered, `systemctl enable --now
#      zkslot.target zkslot-synthd@0 zkslot-gpud@0`: a job of witnesses and a
#      job of circuit inputs (circom's C++ generator run by synthd) are
#      proved, and snarkjs, on this side, accepts every proof;
#   L. the library (docs/library.md): the example the -dev package installs
#      (/usr/share/doc/libzkslot-dev/examples/external-synth) is built with
#      its own Makefile, `pkg-config --cflags --libs zkslot` reading only the
#      container's installed zkslot.pc (PKG_CONFIG_SYSROOT_DIR: the
#      container has no compiler, so make runs on this side against the
#      container's /usr/include and /usr/lib), then run in the container as
#      a unit of user zkslot against its libzkslot.so.0, synthd stopped: it
#      feeds the pool, gpud proves, snarkjs accepts each proof.  `dpkg -r
#      libzkslot0` is refused while libzkslot-dev is installed;
#      libzkslot-dev removed, then libzkslot0: zkslot, which does not depend
#      on them, keeps working (its daemons running; step 4 proves a job
#      without them, and installing zkslot alone brings neither back);
#   3. gpud stopped, a job submitted (it waits in the ledger), `apt-get
#      remove zkslot`: no daemon left running, the binaries gone, the
#      ledger, the first jobs' results and the configuration still there;
#   4. `apt-get install` again: zkslot.target (still enabled) comes back
#      with both daemons and the waiting job is proved (snarkjs again);
#   5. `apt-get purge zkslot`: no /etc/zkslot, nothing of zkslot left in
#      /etc/systemd/system; the data in /var/lib/zkslot is left (the docs
#      say how to remove it).
# The packages: $ZKSLOT_TEST_DEB (a built zkslot_*.deb, libzkslot0_*.deb and
# libzkslot-dev_*.deb beside it), else tools/package.sh builds them here
# (~1 min with ccache warm, ~4 min cold on 2 cores).  Run in
# the release suite only (tools/test-all.sh): it does not use the build tree.
# Skips (77): not root, a sanitizer build, no systemd-nspawn, debootstrap,
# dpkg-buildpackage or node's snarkjs, no mirror for the first debootstrap,
# no cc, make or pkg-config here (step L).
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
for c in cc make pkg-config; do
    command -v $c >/dev/null || { echo "SKIP: no $c (step L builds the example here)"; exit 77; }
done
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
libdeb=$(dirname "$deb")/libzkslot0_${version}_amd64.deb
devdeb=$(dirname "$deb")/libzkslot-dev_${version}_amd64.deb
[ -f "$libdeb" ] && [ -f "$devdeb" ] || { bad "no $libdeb or $devdeb beside $deb"; exit 1; }

# ---- the machine ------------------------------------------------------------------
nsp_tree "$R" "$W/debootstrap.log" || { bad "copy the tree"; exit 1; }
chroot "$R" systemctl mask systemd-networkd.service systemd-resolved.service >/dev/null 2>&1
mkdir -p "$R/srv/in/gen"
cp "$deb" "$libdeb" "$devdeb" "$R/srv/"
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

apt_install() {   # apt_install LOG DEB...: the packages, as the docs install them
    local log=$1 d debs=()
    shift
    for d in "$@"; do debs+=("/srv/$(basename "$d")"); done
    cx env DEBIAN_FRONTEND=noninteractive apt-get install -y "${debs[@]}" >"$log" 2>&1 ||
        { bad "apt-get install ${debs[*]}: $(tail -n 5 "$log")"; return 1; }
}
apt_remove() {   # apt_remove LOG PACKAGE...
    local log=$1
    shift
    cx env DEBIAN_FRONTEND=noninteractive apt-get remove -y "$@" >"$log" 2>&1 ||
        bad "apt-get remove $*: $(tail -n 5 "$log")"
}
installed() {   # installed PACKAGE: 0 when dpkg has it installed
    [ "$(cx dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
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
ma=/usr/lib/x86_64-linux-gnu
ex=/usr/share/doc/libzkslot-dev/examples/external-synth
apt_install "$W/install-1.log" "$deb" "$libdeb" "$devdeb" || exit 1
echo "installed zkslot, libzkslot0, libzkslot-dev $version with apt-get: $(grep -c '^Setting up' "$W/install-1.log") package(s) set up"
[ "$(cx zkslot --version)" = "zkslot $version" ] || bad "zkslot --version: '$(cx zkslot --version)', the package is $version"
# built for x86-64 with BMI2 and ADX (debian/rules: ZK_X86_ADX, the field
# assembly): on a CPU without them every program refuses in one line, exit
# 2, before any of its code runs (the test hook takes this CPU for one;
# the package is built with ZK_TEST_HOOKS=OFF: the hook acts only with
# ZKSLOT_TEST_HOOKS=1, and is ignored without it)
for p in zkslot zkslot-synthd zkslot-gpud zkslot-apid; do
    out=$(cx env ZKSLOT_TEST_HOOKS=1 ZKSLOT_TEST_CPU_NO_ADX=1 "$p" --version 2>&1); rc=$?
    [ "$rc" = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
        grep -q "needs an x86-64 CPU with BMI2 and ADX" <<<"$out" ||
        bad "$p on a CPU without ADX: exit $rc, '$out'"
    if grep -qw adx /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo; then
        out=$(cx env ZKSLOT_TEST_CPU_NO_ADX=1 "$p" --version 2>&1); rc=$?
        [ "$rc" = 0 ] || bad "$p (no test hooks) obeyed ZKSLOT_TEST_CPU_NO_ADX without ZKSLOT_TEST_HOOKS=1: exit $rc, '$out'"
    fi
done
for f in /usr/bin/zkslot /usr/bin/zkslot-synthd /usr/bin/zkslot-gpud /usr/bin/zkslot-apid \
         /lib/systemd/system/zkslot.target /lib/systemd/system/zkslot-apid.service \
         /lib/systemd/system/zkslot-gpud@.service /usr/lib/sysusers.d/zkslot.conf \
         /usr/lib/tmpfiles.d/zkslot.conf /usr/lib/sysctl.d/60-zkslot-hugepages.conf \
         /usr/share/man/man1/zkslot.1.gz /usr/share/man/man5/zkslot.conf.5.gz \
         /usr/share/man/man8/zkslot-synthd.8.gz /usr/share/man/man8/zkslot-apid.8.gz \
         /usr/share/doc/zkslot/operations.md \
         /usr/share/doc/zkslot/copyright /etc/zkslot/zkslot.conf \
         $ma/libzkslot.so.0 $ma/libzkslot.so $ma/pkgconfig/zkslot.pc /usr/include/zkslot.h \
         /usr/share/doc/libzkslot-dev/library.md $ex/Makefile $ex/external-synth.c; do
    [ -e "$R$f" ] || bad "$f is not installed"
done
for p in zkslot:/usr/bin/zkslot libzkslot0:$ma/libzkslot.so.0 libzkslot-dev:/usr/include/zkslot.h \
         libzkslot-dev:$ma/pkgconfig/zkslot.pc; do
    [ "$(cx dpkg -S "${p#*:}" 2>/dev/null | cut -d: -f1)" = "${p%%:*}" ] ||
        bad "${p#*:} is not ${p%%:*}'s: $(cx dpkg -S "${p#*:}" 2>&1)"
done
cx dpkg-query -W -f='${Conffiles}\n' zkslot | grep -q '^ /etc/zkslot/zkslot.conf ' ||
    bad "/etc/zkslot/zkslot.conf is not a conffile"
[ "$(cx stat -c '%U:%G %a' /var/lib/zkslot 2>&1)" = "zkslot:zkslot 3770" ] ||
    bad "/var/lib/zkslot is '$(cx stat -c '%U:%G %a' /var/lib/zkslot 2>&1)', expected zkslot:zkslot 3770"
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

# ---- L. the library: the installed example built and run, the packages removed ----
tl=$SECONDS
cp -r "$R$ex" "$W/example" && rm -f "$W/example/external-synth"
PKG_CONFIG_SYSROOT_DIR=$R PKG_CONFIG_LIBDIR=$R$ma/pkgconfig PKG_CONFIG_PATH= \
    make -C "$W/example" >"$W/make.log" 2>&1 || bad "make of $ex: $(tail -n 5 "$W/make.log")"
grep -q -- "-I$R/" "$W/make.log" && grep -q -- "-L$R/" "$W/make.log" ||
    bad "make of $ex did not take the container's header and library: $(cat "$W/make.log")"
install -D -m 0755 "$W/example/external-synth" "$R/srv/lib/external-synth"
cx systemctl stop zkslot-synthd@0.service     # it would claim the producer's partitions
# As a unit of the daemons' user without their sandbox: it reads nspawn's own
# boot id where the daemons (ProtectKernelTunables=) read the kernel's, one
# boot by its boot time (docs/pool.md, "Which boot").  --hold-ms: a daemon's
# recovery pass runs while the slot is filled, so a producer the daemons
# misjudged as a previous boot's would fail here every time, not now and then.
jl=$(cx systemd-run --quiet --pipe --wait --collect -p User=zkslot -p Group=zkslot \
        /srv/lib/external-synth --hold-ms 1200 k \
        /srv/in/witness-1.wtns /srv/in/witness-2.wtns 2>"$W/example.log" | tail -n 1)
[[ $jl =~ ^[0-9]+$ ]] || {
    bad "external-synth in the container: $(tail -n 3 "$W/example.log")"
    cx journalctl -u zkslot-gpud@0 -u zkslot-synthd@0 --no-pager | tail -n 15
    cx zkslot pool status
}
[ -n "$jl" ] && verify_job external-synth "$jl" /srv/in/vk.json 2
cx systemctl start zkslot-synthd@0.service
cx dpkg -r libzkslot0 >"$W/dpkg-r.log" 2>&1 && bad "dpkg -r libzkslot0 was not refused with libzkslot-dev installed"
installed libzkslot0 || bad "libzkslot0 is gone after a refused dpkg -r: $(cat "$W/dpkg-r.log")"
apt_remove "$W/remove-dev.log" libzkslot-dev
[ ! -e "$R/usr/include/zkslot.h" ] && [ -e "$R$ma/libzkslot.so.0" ] ||
    bad "apt-get remove libzkslot-dev: zkslot.h or libzkslot.so.0 wrong"
apt_remove "$W/remove-lib.log" libzkslot0
[ ! -e "$R$ma/libzkslot.so.0" ] || bad "apt-get remove libzkslot0 left libzkslot.so.0"
installed zkslot || bad "removing the library packages removed zkslot"
[ "$(cx zkslot --version)" = "zkslot $version" ] || bad "zkslot --version without the library: '$(cx zkslot --version)'"
wait_active zkslot-pool.service zkslot-synthd@0.service zkslot-gpud@0.service
[ $fail = 0 ] && echo "library: dpkg -r libzkslot0 refused while libzkslot-dev needs it; both removed, zkslot runs on ($((SECONDS - tl)) s)"

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
apt_install "$W/install-2.log" "$deb"
installed libzkslot0 && bad "installing zkslot brought libzkslot0 back (it does not depend on it)"
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
