#!/usr/bin/env bash
# test_pool_fifo.sh -- issue 46, "Files in shared directories": a FIFO
# planted at the pool's names (its path is in every config, its data
# file's name is the path with ".data") never blocks a reader of the pool.
# Before the fix the observers (pool status, pool check, top, metrics,
# apid's health check) opened the pool file O_RDONLY, which waits for a
# writer on a FIFO, before they looked at its type.  Each case must end
# within its `timeout` (124: it hung), exit 2 with one line that names the
# file and says it is not a regular file:
#   - a FIFO at the pool path: pool status, pool check, pool reap, and
#     zkslot-synthd (a writer) refuse it;
#   - a symlink at the pool path to a FIFO (the pool path may be a link
#     to the data on hugetlbfs): pool status refuses the target;
#   - a real pool whose slot data file was replaced by a FIFO: pool status
#     and pool check refuse the data file.
set -u
. "$(dirname "$0")/lib.sh"
pt_init pool-fifo
pool=$shm/p
pt_cleanup() { "$ZKSLOT" pool destroy --force --pool "$pool" >/dev/null 2>&1; }
export ZKSLOT_STATE_DIR=$tmp/state

# refused NAME FILE CMD...: CMD ends within 10 s, exit 2 (any non-zero for
# a daemon), and says in one line that FILE is not a regular file
refused() {
    local name=$1 file=$2 rc=0
    shift 2
    timeout 10 "$@" >"$tmp/out" 2>&1 </dev/null || rc=$?
    local lines
    lines=$(grep -c -F "$file: not a regular file (a FIFO" "$tmp/out")
    if [ "$rc" = 124 ]; then
        fail "$name: still waiting on the FIFO after 10 s (killed)"
    elif [ "$rc" = 0 ] || [ "$lines" != 1 ]; then
        fail "$name: exit $rc, want a refusal naming $file in one line: $(head -c 600 "$tmp/out")"
    else
        ok "$name: $(grep -F "$file:" "$tmp/out")"
    fi
}

mkfifo "$pool"
refused "pool status, a FIFO at the pool path" "$pool" "$ZKSLOT" pool status --pool "$pool"
refused "pool check, a FIFO at the pool path" "$pool" "$ZKSLOT" pool check --pool "$pool"
refused "pool reap, a FIFO at the pool path" "$pool" "$ZKSLOT" pool reap --pool "$pool"
if [ -x "${ZKSLOT_SYNTHD:-}" ]; then
    ZKSLOT_POOL=$pool refused "zkslot-synthd, a FIFO at the pool path" "$pool" "$ZKSLOT_SYNTHD"
fi
rm -f "$pool"

mkfifo "$shm/elsewhere"
ln -s "$shm/elsewhere" "$pool"
refused "pool status, the pool path a symlink to a FIFO" "$shm/elsewhere" \
    "$ZKSLOT" pool status --pool "$pool"
rm -f "$pool" "$shm/elsewhere"

if "$ZKSLOT" pool create --slots 2 --slot-size 2M --tmpfs --pool "$pool" >/dev/null 2>&1; then
    rm -f "$pool.data" && mkfifo "$pool.data"
    refused "pool status, a FIFO as the slot data" "$pool.data" "$ZKSLOT" pool status --pool "$pool"
    refused "pool check, a FIFO as the slot data" "$pool.data" "$ZKSLOT" pool check --pool "$pool"
    rm -f "$pool.data"
else
    fail "pool create in $shm"
fi

pt_done "FIFO cases"
