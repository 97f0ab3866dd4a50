#!/usr/bin/env bash
# test_create_errors.sh -- `zkslot pool create` names the real cause (issue 22,
# item 4) where the library says only ZK_EBADPARAMS: a NUMA node this machine
# does not have (the flag or [pool] numa_nodes named, the machine's nodes
# listed), a [pool] dir / --path on hugetlbfs with hugepages = no / --tmpfs,
# one on tmpfs with hugepages = yes / --hugetlb, one on a disk.  Each is exit 2,
# one line, no pool left behind; none says "the directory must be on tmpfs or
# hugetlbfs" unless the directory really is neither.  The hugetlbfs cases
# mount a private hugetlbfs (root only; reported as not run otherwise).
set -u
. "$(dirname "$0")/lib.sh"
pt_init create-errors   # ZKSLOT_CONFIG replaced per case
huge=$tmp/huge
pt_cleanup() { mountpoint -q "$huge" 2>/dev/null && umount "$huge"; }

# refused NAME PATTERN ARGS...: exit 2, one line matching PATTERN, no pool
refused() {
    local name=$1 pat=$2
    shift 2
    "$ZKSLOT" pool create --slots 2 --slot-size 2M --pool "$shm/p" "$@" >"$tmp/out" 2>&1
    local rc=$?
    if [ "$rc" = 2 ] && grep -q -- "$pat" "$tmp/out" && [ "$(wc -l <"$tmp/out")" = 1 ]; then
        ok "$name: $(cat "$tmp/out")"
    else
        fail "$name: exit $rc, want 2 and one line matching '$pat': $(cat "$tmp/out")"
    fi
    [ ! -e "$shm/p" ] || { fail "$name: a pool was left"; "$ZKSLOT" pool destroy --pool "$shm/p" >/dev/null 2>&1; }
}

nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$nodes" -ge 1 ] || nodes=1
if [ "$nodes" = 1 ]; then have="node 0 only"; else have="nodes 0-$((nodes - 1))"; fi
refused "--numa-nodes 0,$nodes" \
    "--numa-nodes 0,$nodes: NUMA node $nodes does not exist on this machine (it has $have)" \
    --numa-nodes "0,$nodes"
printf '[pool]\nnuma_nodes = 0,%s\n' "$nodes" >"$tmp/nodes.conf"
ZKSLOT_CONFIG=$tmp/nodes.conf refused "[pool] numa_nodes = 0,$nodes" \
    "$tmp/nodes.conf: \[pool\] numa_nodes = 0,$nodes: NUMA node $nodes does not exist on this machine (it has $have)"
# the nodes it has are accepted
"$ZKSLOT" pool create --slots 2 --slot-size 2M --pool "$shm/p" --numa-nodes 0 >"$tmp/out" 2>&1 &&
    ok "--numa-nodes 0 accepted" || fail "--numa-nodes 0: $(cat "$tmp/out")"
"$ZKSLOT" pool destroy --pool "$shm/p" >/dev/null 2>&1

# a tmpfs dir with huge pages required
printf '[pool]\ndir = %s\nhugepages = yes\n' "$shm" >"$tmp/tmpfs-yes.conf"
ZKSLOT_CONFIG=$tmp/tmpfs-yes.conf refused "tmpfs dir, hugepages = yes" \
    "$tmp/tmpfs-yes.conf: \[pool\] dir $shm is tmpfs, but \[pool\] hugepages = yes in $tmp/tmpfs-yes.conf asks for huge pages"
refused "--path tmpfs --hugetlb" "--path $shm is tmpfs, but --hugetlb asks for huge pages" \
    --path "$shm" --hugetlb

# a disk directory
disk=$(mktemp -d /var/tmp/zkslot-create-errors.XXXXXX)
if [ "$(stat -f -c %T "$disk")" != tmpfs ]; then
    refused "--path on disk" "--path $disk is neither tmpfs nor hugetlbfs" --path "$disk"
else
    echo "note: /var/tmp is tmpfs here: the disk case was not run"
fi
rmdir "$disk"

# a hugetlbfs dir with tmpfs asked for
if [ "$(id -u)" = 0 ] && mkdir -p "$huge" && mount -t hugetlbfs none "$huge" 2>/dev/null; then
    printf '[pool]\ndir = %s\nhugepages = no\n' "$huge" >"$tmp/huge-no.conf"
    ZKSLOT_CONFIG=$tmp/huge-no.conf refused "hugetlbfs dir, hugepages = no" \
        "$tmp/huge-no.conf: \[pool\] dir $huge is a hugetlbfs mount, but \[pool\] hugepages = no in $tmp/huge-no.conf asks for tmpfs"
    refused "--path hugetlbfs --tmpfs" "--path $huge is a hugetlbfs mount, but --tmpfs asks for tmpfs" \
        --path "$huge" --tmpfs
    grep -q "must be on tmpfs or hugetlbfs" "$tmp/out" && fail "the old message"
else
    echo "note: not root (or no hugetlbfs): the hugetlbfs-with-hugepages=no case was not run"
fi

pt_done "pool create error checks"
