#!/usr/bin/env bash
# package.sh OUTDIR -- the Debian packages of this tree, built with Debian's
# own tools (dpkg-buildpackage, debhelper: debian/) from a clean copy of the
# tree (the files git tracks or would add; no build directory, no
# node_modules), then checked with lintian.  Writes
#   OUTDIR/zkslot_VERSION_amd64.deb           the daemons, the CLI, units
#   OUTDIR/libzkslot0_VERSION_amd64.deb       libzkslot.so.0
#   OUTDIR/libzkslot-dev_VERSION_amd64.deb    zkslot.h, zkslot.pc, the example
#   OUTDIR/zkslot-dbgsym_VERSION_amd64.deb, libzkslot0-dbgsym_VERSION_amd64.deb
#                                             their debug symbols
#   OUTDIR/zkslot_VERSION_amd64.buildinfo, .changes
#   OUTDIR/lintian.txt                        lintian's findings on the three
#                                             packages (overrides applied)
# VERSION is CMakeLists.txt's project version (also `zkslot --version`):
# debian/changelog is written here from it (a native package: no Debian
# revision), dated by the last commit (SOURCE_DATE_EPOCH).
# Exit 0 built and lintian reports no error; 1 lintian found an error;
# 2 the build failed (a file no package takes, a symbol exported or gone
# that debian/libzkslot0.symbols does not list) or a tool is missing
# (tools/deps.sh installs them).
# ccache is used when installed.  Takes ~3 min on 2 cores (no CUDA, no tests).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/package.sh OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1" && out=$(cd "$1" && pwd)
for t in dpkg-buildpackage dh lintian git; do
    command -v "$t" >/dev/null || { echo "package.sh: $t not found (tools/deps.sh)" >&2; exit 2; }
done
version=$(sed -n 's/^project(zkslot VERSION \([0-9][0-9.]*\) .*/\1/p' "$here/CMakeLists.txt")
[ -n "$version" ] || { echo "package.sh: CMakeLists.txt: no project(zkslot VERSION ...)" >&2; exit 2; }

# One fixed place per user, so that ccache finds the last build's objects
# (dpkg-buildflags put the source path in the flags); one build at a time.
work=${TMPDIR:-/tmp}/zkslot-package-$(id -u)
exec 9>"$work.lock"
flock 9
mkdir -p "$work"     # after the lock: the last holder's exit removed it
# kept on a failure, for its build.log
trap 'st=$?; [ "$st" -ge 2 ] && echo "package.sh: kept $work" >&2 || rm -rf "$work"' EXIT
rm -rf "${work:?}"/* && src=$work/zkslot-$version
mkdir "$src"
(cd "$here" && git ls-files -z --cached --others --exclude-standard) |
    grep -zv '^tests/interop/node_modules' |
    (cd "$here" && tar --null --no-recursion -cf - -T -) | tar -C "$src" -xf -
[ -f "$src/debian/rules" ] || { echo "package.sh: $src: the copy has no debian/rules" >&2; exit 2; }

export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)
rev=$(git -C "$here" describe --always --dirty 2>/dev/null || echo unknown)
cat >"$src/debian/changelog" <<CHANGES
zkslot ($version) unstable; urgency=medium

  * zkslot $version, built by tools/package.sh from commit $rev.

 -- zkslot developers <zkslot-maintainers@example.org>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
CHANGES

extra=
command -v ccache >/dev/null && extra="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
echo "package.sh: building zkslot $version ($rev) in $src"
if ! (cd "$src" && ZK_CMAKE_EXTRA="$extra" DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck" \
        dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1); then
    tail -n 40 "$work/build.log" >&2
    echo "package.sh: dpkg-buildpackage failed (the last lines above)" >&2
    exit 2
fi
debs="zkslot_${version}_amd64.deb libzkslot0_${version}_amd64.deb libzkslot-dev_${version}_amd64.deb"
for f in $debs "zkslot-dbgsym_${version}_amd64.deb" "libzkslot0-dbgsym_${version}_amd64.deb" \
         "zkslot_${version}_amd64.buildinfo" "zkslot_${version}_amd64.changes"; do
    [ -f "$work/$f" ] || { echo "package.sh: dpkg-buildpackage made no $f" >&2; exit 2; }
    cp "$work/$f" "$out/"
done
rc=0
# shellcheck disable=SC2086 # the three names, split
(cd "$out" && lintian --fail-on error --info $debs) >"$out/lintian.txt" 2>&1 || rc=1
cat "$out/lintian.txt"
for d in $debs; do
    echo "package.sh: $out/$d ($(du -k "$out/$d" | cut -f1) KiB)"
done
echo "package.sh: lintian: $(grep -c '^E:' "$out/lintian.txt") error(s), $(grep -c '^W:' "$out/lintian.txt") warning(s)"
exit "$rc"
