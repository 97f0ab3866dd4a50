# lib.sh -- what the shell tests of tests/pool/ share.  Source it from bash
# (under `set -u`), then:
#
#   pt_init NAME      $tmp, a private directory; $shm, a private directory
#                     in /dev/shm for pools; no ZKSLOT_POOL, an empty
#                     ZKSLOT_CONFIG; both removed at exit, after the
#                     function pt_cleanup when the test defines one
#   fail MSG / ok MSG one line each; fail counts in $fails
#   pt_done WHAT      "all WHAT passed" and exit 0, or the count and exit 1

[ -x "${ZKSLOT:-}" ] || { echo "ZKSLOT is not set to the zkslot binary"; exit 1; }

pt_init() {
    tmp=$(mktemp -d)
    shm=$(mktemp -d "/dev/shm/zkslot-$1.XXXXXX")
    fails=0
    trap pt__exit EXIT
    unset ZKSLOT_POOL
    export ZKSLOT_CONFIG=$tmp/none.conf
    : >"$ZKSLOT_CONFIG"
}
pt__exit() {
    ! declare -F pt_cleanup >/dev/null || pt_cleanup
    rm -rf "$tmp" "$shm"
}
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
pt_done() {
    [ "$fails" = 0 ] && { echo "all $1 passed"; exit 0; }
    echo "$fails check(s) failed"
    exit 1
}
