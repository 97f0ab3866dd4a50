#!/usr/bin/env bash
# test_keystore_nomem.sh -- `zkslot key load` on a machine without the
# memory to build a key's store (docs/keystore.md): the command runs in a
# mount namespace whose /proc/meminfo says MemAvailable is 4 KiB, less than
# any store (the kernel's own file, that one line changed, bind-mounted
# over it; no test hook in the program).  It is refused with one line naming the key file,
# what the store needs and how much is missing (the need less what is
# available: it once printed the points' size there); nothing is left in
# /dev/shm and the key is not resident.  Control: the same command with the
# real /proc/meminfo builds the store.  Skips (77) where a mount namespace
# cannot be made (not root, no unshare).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_keystore.sh"
pl_init keystore_nomem || exit 77
unshare -m true 2>/dev/null || pl_skip "no mount namespace here (unshare -m)"
ks_setup || exit 1

sed 's/^MemAvailable:.*/MemAvailable:       4 kB/' /proc/meminfo >"$PL_W/meminfo"
grep -q '^MemAvailable: *4 kB$' "$PL_W/meminfo" || { pl_bad "no MemAvailable line to change"; pl_done; }

# low_mem CMD...: CMD with MemAvailable 4 KiB
low_mem() {
    unshare -m sh -c 'mount --bind "$0" /proc/meminfo && exec "$@"' "$PL_W/meminfo" "$@"
}
[ "$(low_mem grep '^MemAvailable' /proc/meminfo | tr -s ' ')" = "MemAvailable: 4 kB" ] ||
    pl_skip "cannot bind-mount over /proc/meminfo here"

for pre in none all; do
    rc=0 fails=$(pl_failures)
    low_mem "$ZKSLOT" key load "$PL_KEYNAME" --precompute "$pre" >"$PL_W/load.out" 2>"$PL_W/load.err" || rc=$?
    msg=$(cat "$PL_W/load.err")
    [ "$rc" != 0 ] || pl_bad "--precompute $pre: key load with 4 KiB available exited 0"
    [ "$(wc -l <"$PL_W/load.err")" = 1 ] || pl_bad "--precompute $pre: not one line: $msg"
    case $msg in
        *"$PL_KEY"*"needs "*"MemAvailable is "*" missing"*) ;;
        *) pl_bad "--precompute $pre: the refusal does not name the file, the need and what is missing: $msg" ;;
    esac
    # what is missing is the need less the 4 KiB there
    python3 - "$msg" <<'PY' || pl_bad "--precompute $pre: the missing amount is not the need less 4 KiB: $msg"
import re, sys
u = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
m = re.search(r"needs ([0-9.]+) (\w+), MemAvailable is ([0-9.]+) (\w+): ([0-9.]+) (\w+) missing",
              sys.argv[1])
need, avail, miss = (float(m.group(i)) * u[m.group(i + 1)] for i in (1, 3, 5))
sys.exit(0 if abs(need - avail - miss) <= 0.01 * need else 1)
PY
    [ ! -e "$KS_STORE" ] && ! ls "$KS_STORE".tmp.* >/dev/null 2>&1 ||
        pl_bad "--precompute $pre: a store or temporary file left after the refusal"
    "$ZKSLOT" key status | awk -v k="$PL_KEYNAME" '$1 == k { print $2 }' | grep -qx no ||
        pl_bad "--precompute $pre: key status says resident after the refusal"
    [ "$(pl_failures)" != "$fails" ] || echo "ok: --precompute $pre refused: $msg"
done
# the tables make the need larger: the refusal with tables asks for more
need() { sed -n 's/.* needs \([^,]*\), MemAvailable.*/\1/p' "$1"; }
low_mem "$ZKSLOT" key load "$PL_KEYNAME" --precompute none 2>"$PL_W/none.err" >/dev/null || true
low_mem "$ZKSLOT" key load "$PL_KEYNAME" --precompute all 2>"$PL_W/all.err" >/dev/null || true
[ "$(need "$PL_W/none.err")" != "$(need "$PL_W/all.err")" ] ||
    pl_bad "the tables did not change what the store needs: $(need "$PL_W/all.err")"

# control: with the machine's real MemAvailable the same load works
"$ZKSLOT" key load "$PL_KEYNAME" --precompute all >"$PL_W/load.out" 2>&1 ||
    pl_bad "key load with the real MemAvailable: $(cat "$PL_W/load.out")"
[ -f "$KS_STORE" ] || pl_bad "no store at $KS_STORE after the control load"
"$ZKSLOT" key unload "$PL_KEYNAME" >/dev/null 2>&1 || pl_bad "key unload"
pl_done
