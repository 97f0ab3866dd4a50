#!/usr/bin/env bash
# test_upgrade.sh -- a pool of the previous layout (version 2: one file, the
# slot data after the slot table, group-readable) met by `zkslot pool create
# --exist-ok` (what zkslot-pool.service runs after an upgrade):
#   - while a live process is attached to it: exit 2, one line saying so,
#     the old pool left in place;
#   - once none is: it is destroyed and a version-3 pool made in its place
#     (control file 0640, slot data file 0600), which `pool check` finds
#     healthy; the daemons then requeue what the old pool held
#     (pipeline_test_pool_recreate shows that no partition is lost).
# The version-2 file is made from a version-3 pool (both files joined, the
# header's version, data offset, file size and data size set as version 2
# had them; offsets from common/pool/layout.h).
set -u
[ -x "${ZKSLOT:-}" ] || { echo "ZKSLOT is not set to the zkslot binary"; exit 1; }
shm=$(mktemp -d /dev/shm/zkslot-upgrade.XXXXXX)
trap 'rm -rf "$shm"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export ZKSLOT_CONFIG=$shm/none.conf ZKSLOT_POOL=$shm/zkslot.pool
: >"$ZKSLOT_CONFIG"
umask 0022   # the modes checked below are the pool's own (a umask may narrow them)

"$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >/dev/null 2>&1 || { fail "pool create"; exit 1; }
# to_v2 [PID]: the pool as version 2 made it, PID (if given) in its attach table
to_v2() {
    python3 - "$ZKSLOT_POOL" "${1:-0}" <<'PY'
import os, struct, sys, time
pool, pid = sys.argv[1], int(sys.argv[2])
c = bytearray(open(pool, "rb").read())
d = open(pool + ".data", "rb").read()
struct.pack_into("<I", c, 8, 2)                          # version
struct.pack_into("<QQ", c, 72, len(c), len(c) + len(d))  # data_off, file_size
struct.pack_into("<Q", c, 104, 0)                        # reserved in version 2
if pid:   # an attach entry: owner = pid << 40 | start time (field 22 of stat)
    start = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[19])
    struct.pack_into("<QQ16s", c, 4096, pid << 40 | start, time.time_ns(), b"old-gpud")
os.unlink(pool + ".data")
open(pool, "wb").write(bytes(c) + d)
PY
}
to_v2 $$ || { fail "making a version-2 pool"; exit 1; }
out=$("$ZKSLOT" pool status 2>&1) && fail "pool status accepts a version-2 pool: $out"
rc=0; out=$("$ZKSLOT" pool create --exist-ok --slots 2 --slot-size 4M --tmpfs 2>&1) || rc=$?
[ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "older layout and 1 live process" &&
    [ -f "$ZKSLOT_POOL" ] && [ ! -e "$ZKSLOT_POOL.data" ] &&
    echo "ok: attached old pool kept: $out" || fail "attached old pool: exit $rc: $out"

"$ZKSLOT" pool destroy --force >/dev/null 2>&1 || fail "pool destroy of a version-2 pool (forced)"
[ -e "$ZKSLOT_POOL" ] && fail "pool destroy left the version-2 pool"
"$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >/dev/null 2>&1 || fail "pool create again"
to_v2 || fail "making a version-2 pool again"
rc=0; out=$("$ZKSLOT" pool create --exist-ok --slots 2 --slot-size 4M --tmpfs 2>&1) || rc=$?
modes=$(stat -c '%a' "$ZKSLOT_POOL" "$ZKSLOT_POOL.data" 2>/dev/null | tr '\n' ' ')
[ $rc = 0 ] && echo "$out" | grep -q "destroyed pool .* of an older layout" && [ "$modes" = "640 600 " ] &&
    "$ZKSLOT" pool check >/dev/null 2>&1 &&
    echo "ok: old pool replaced: $(echo "$out" | grep destroyed)" ||
    fail "old pool not replaced: exit $rc, modes '$modes': $out"
"$ZKSLOT" pool destroy >/dev/null 2>&1 || fail "pool destroy"
[ -z "$(ls -A "$shm" | grep -v none.conf)" ] || fail "files left: $(ls "$shm")"
[ $fails = 0 ] && echo "upgrade: ok"
exit $((fails > 0))
