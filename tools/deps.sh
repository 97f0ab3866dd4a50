#!/usr/bin/env bash
# deps.sh -- install what zkslot needs to build and test on Debian 12.
# Idempotent: apt runs only when a package is missing, npm ci only when the
# lock file changed since the last install.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

pkgs=(build-essential cmake pkg-config clang libclang-rt-14-dev
      ccache    # tools/test-all.sh: compilations cached across CI runs
      libgmp-dev libjansson-dev libxxhash-dev libsqlite3-dev libinih-dev libmicrohttpd-dev
      libgnutls28-dev    # zkslot --server https://: the CLI's TLS client
      libsodium-dev    # inputs sealed to the daemons (common/seal/)
      liburing-dev libsystemd-dev libnuma-dev systemd nodejs npm
      python3    # python3: the tests parse JSON and the ledger with it
      strace passwd util-linux    # tests/deploy: strace (submit's syncs), useradd, setpriv
      debootstrap systemd-container)   # tests/deploy/test_systemd.sh: a real systemd in nspawn
# circom's C++ witness generators (keys added with --witness-gen NAME_cpp):
# built by the tests and the main job with make, g++, nasm, GMP and nlohmann-json
pkgs+=(nasm nlohmann-json3-dev)
# the ledger on PostgreSQL: libpq to build, a real server (initdb, pg_ctl) for the tests
pkgs+=(libpq-dev postgresql)
# libfaketime: a daemon whose clock is off (tests/pipeline/test_clock_skew_pg.sh,
# test_farm_faults_pg.sh)
pkgs+=(faketime)
# tests/filecoin/test_fil_synth.sh: jq rewrites the C1 files it corrupts
pkgs+=(jq)
# the man pages: groff renders them in tests/docs/test_man.sh, man-db reads them
pkgs+=(groff-base man-db)
# the Debian package (tools/package.sh): dpkg-buildpackage, debhelper, lintian
pkgs+=(dpkg-dev debhelper lintian)
# tests/apid: curl, a client of zkslot-apid beside the Python one; chromium,
# the headless browser that loads the status page (apid_test_page)
pkgs+=(curl chromium)
# tests/apid/test_listen.sh: a self-signed certificate for apid's HTTPS
pkgs+=(openssl)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# nodejs may come from elsewhere (a newer build); accept any node >= 18 + npm.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]:-}"
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# Pinned interop tools (snarkjs, circom2, circomlib) from package-lock.json.
lock="$here/tests/interop/package-lock.json"
if [ -f "$lock" ]; then
  stamp="$here/tests/interop/node_modules/.zkslot-lock-sha"
  want=$(sha256sum "$lock" | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "deps: npm ci in tests/interop"
    (cd "$here/tests/interop" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
fi

# The CUDA toolkit, from NVIDIA's own wheels on PyPI (no toolkit is
# preinstalled and Debian 12's nvidia-cuda-toolkit is 11.8, which predates
# nothing we need but lacks CUDA 13's CCCL and is in non-free): the five
# wheels, one pinned version, into a prefix the project owns.  The wheels
# share nvidia/cu13/ (bin with nvcc.profile, include with CCCL under
# include/cccl, lib without lib64 or unversioned .so links, nvvm with cicc);
# deps.sh adds lib64 -> lib and the unversioned links, and points
# $ZK_CUDA_PREFIX (default /opt/zkslot/cuda) at it, where CMakeLists.txt
# looks when no nvcc is on PATH.  ZK_CUDA_DEPS=0 leaves it out.
zk_cuda_version=13.2.86
zk_cuda_prefix=${ZK_CUDA_PREFIX:-/opt/zkslot/cuda}
if [ "${ZK_CUDA_DEPS:-1}" != 0 ]; then
  dest="$(dirname "$zk_cuda_prefix")/cuda-$zk_cuda_version"
  if [ ! -x "$dest/nvidia/cu13/bin/nvcc" ] || [ ! -f "$dest/.zkslot-complete" ]; then
    echo "deps: CUDA $zk_cuda_version from PyPI into $dest"
    SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO rm -rf "$dest.tmp"
    $SUDO python3 -m pip install -q --disable-pip-version-check --no-deps \
      --root-user-action=ignore --target "$dest.tmp" \
      "nvidia-cuda-nvcc==$zk_cuda_version" "nvidia-cuda-crt==$zk_cuda_version" \
      "nvidia-nvvm==$zk_cuda_version" "nvidia-cuda-runtime==$zk_cuda_version" \
      "nvidia-cuda-cccl==$zk_cuda_version"
    top="$dest.tmp/nvidia/cu13"
    [ -x "$top/bin/nvcc" ] && [ -x "$top/nvvm/bin/cicc" ] && [ -d "$top/include/cccl" ] ||
      { echo "deps: the CUDA wheels did not give bin/nvcc, nvvm/bin/cicc and include/cccl under $top" >&2; exit 1; }
    $SUDO ln -sfn lib "$top/lib64"
    for so in "$top"/lib/lib*.so.*; do
      $SUDO ln -sfn "$(basename "$so")" "${so%%.so.*}.so"
    done
    $SUDO touch "$dest.tmp/.zkslot-complete"
    $SUDO rm -rf "$dest"
    $SUDO mv "$dest.tmp" "$dest"
  fi
  want="$dest/nvidia/cu13"
  if [ "$(readlink "$zk_cuda_prefix" 2>/dev/null)" != "$want" ]; then
    SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO mkdir -p "$(dirname "$zk_cuda_prefix")"
    $SUDO ln -sfn "$want" "$zk_cuda_prefix"
  fi
fi
