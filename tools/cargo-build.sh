#!/usr/bin/env bash
# cargo-build.sh -- builds the Rust workspace (rust/*) in release mode: the
# crates come from crates.io by `cargo fetch` against the committed
# Cargo.lock (--locked: a lock that would have to change is an error), the
# build is --offline after that, and the target directory is the machine's
# cache (.cargo/config.toml: /var/cache/zkslot/cargo-target; CARGO_TARGET_DIR
# overrides), so a fresh clone reuses the upstream crates built before.
# Prints the target directory on its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
command -v cargo >/dev/null || { echo "cargo-build: no cargo on PATH (rustup's toolchain; tools/deps.sh says how)" >&2; exit 1; }
target=${CARGO_TARGET_DIR:-/var/cache/zkslot/cargo-target}
if ! mkdir -p "$target" 2>/dev/null || [ ! -w "$target" ]; then
  echo "cargo-build: cannot write the target directory $target (set CARGO_TARGET_DIR)" >&2; exit 1
fi
export CARGO_TARGET_DIR=$target
cargo fetch --locked -q
start=$(date +%s)
cargo build --release --locked --offline --workspace ${ZK_CARGO_QUIET:+-q}
echo "cargo-build: workspace built in $(( $(date +%s) - start )) s" >&2
echo "$target"
