#!/usr/bin/env bash
# test_cli.sh -- `zkslot pool` from the shell: where the pool path comes from
# (--pool, $ZKSLOT_POOL, the config file), size suffixes, exit codes.
set -u
Z=${ZKSLOT:?}
fail=0
check() {   # check DESCRIPTION EXPECTED-RC COMMAND...
  local what=$1 want=$2; shift 2
  "$@" >/tmp/zk_pool_cli.$$ 2>&1
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $what: rc $rc, expected $want"; cat /tmp/zk_pool_cli.$$; fail=1
  fi
}
p1=/dev/shm/zkslot-cli-$$-a.pool
p2=/dev/shm/zkslot-cli-$$-b.pool
conf=$(mktemp)
trap 'rm -f "$p1" "$p2" "$conf" /tmp/zk_pool_cli.$$' EXIT
unset ZKSLOT_POOL

check "bad size" 2 "$Z" pool create --pool "$p1" --slots 2 --slot-size 12Q --tmpfs
check "bad slot count" 2 "$Z" pool create --pool "$p1" --slots 0 --slot-size 1M --tmpfs
check "bad numa list" 2 "$Z" pool create --pool "$p1" --slots 2 --slot-size 1M --numa-nodes x --tmpfs
check "missing pool" 2 "$Z" pool status --pool "$p1"
check "create via --pool" 0 "$Z" pool create --pool "$p1" --slots 3 --slot-size 3M --tmpfs
grep -q "huge pages are not in use" /tmp/zk_pool_cli.$$ || { echo "FAIL: no tmpfs warning"; fail=1; }
check "numa node 0" 0 "$Z" pool create --pool "$p2" --slots 2 --slot-size 1M --numa-nodes 0 --tmpfs
check "destroy p2" 0 "$Z" pool destroy --pool "$p2"

# the environment names the pool
check "status via env" 0 env ZKSLOT_POOL="$p1" "$Z" pool status
grep -q "3 slots x 4.0 MiB" /tmp/zk_pool_cli.$$ || { echo "FAIL: geometry in status"; cat /tmp/zk_pool_cli.$$; fail=1; }
grep -q "huge pages NOT in use" /tmp/zk_pool_cli.$$ || { echo "FAIL: status hides tmpfs"; fail=1; }

# the config file names the pool; env and flag override it
printf '[pool]\npath = %s\n' "$p1" >"$conf"
check "status via config" 0 env ZKSLOT_CONFIG="$conf" "$Z" pool status --json
grep -q "\"path\": \"$p1\"" /tmp/zk_pool_cli.$$ || { echo "FAIL: config path not used"; cat /tmp/zk_pool_cli.$$; fail=1; }
check "env beats config" 2 env ZKSLOT_CONFIG="$conf" ZKSLOT_POOL="$p2" "$Z" pool status
check "flag beats env" 0 env ZKSLOT_POOL="$p2" "$Z" pool check --pool "$p1"
check "unknown argument" 2 "$Z" pool check --pool "$p1" --bogus
check "reap" 0 "$Z" pool reap --pool "$p1"
check "destroy" 0 env ZKSLOT_CONFIG="$conf" "$Z" pool destroy
[ -e "$p1" ] && { echo "FAIL: destroy left $p1"; fail=1; }
check "destroy again" 2 "$Z" pool destroy --pool "$p1"
check "usage" 2 "$Z" pool

# geometry from the config file; create --exist-ok / ensure (zkslot-pool.service)
printf '[pool]\npath = %s\nslots = 2\nslot_size = 3M\nhugepages = no\n' "$p1" >"$conf"
check "create from config" 0 "$Z" pool create --config "$conf"
check "create again refused" 2 "$Z" pool create --config "$conf"
check "exist-ok, same geometry" 0 "$Z" pool create --config "$conf" --exist-ok
grep -q "already exists, geometry matches" /tmp/zk_pool_cli.$$ || { echo "FAIL: no match message"; cat /tmp/zk_pool_cli.$$; fail=1; }
check "ensure via env" 0 env ZKSLOT_CONFIG="$conf" "$Z" pool ensure
check "ensure, other slot count" 2 "$Z" pool ensure --config "$conf" --slots 3
grep -q "another geometry; it has 2 slots, 3 configured" /tmp/zk_pool_cli.$$ || { echo "FAIL: mismatch message"; cat /tmp/zk_pool_cli.$$; fail=1; }
check "ensure, other slot size" 2 "$Z" pool ensure --config "$conf" --slot-size 64M
check "ensure, other placement" 2 "$Z" pool ensure --config "$conf" --numa-nodes 0
check "ensure, huge pages required" 2 "$Z" pool ensure --config "$conf" --hugetlb
check "destroy (config)" 0 "$Z" pool destroy --config "$conf"
printf '[pool]\npath = %s\nslots = 2\n' "$p1" >"$conf"
check "no slot size anywhere" 2 "$Z" pool ensure --config "$conf"
grep -q "slot_size" /tmp/zk_pool_cli.$$ || { echo "FAIL: missing-geometry message"; cat /tmp/zk_pool_cli.$$; fail=1; }
for bad in "slots = 0" "slot_size = 12Q" "numa_nodes = 0,x" "hugepages = maybe" "bogus = 1"; do
  printf '[pool]\npath = %s\n%s\n' "$p1" "$bad" >"$conf"
  check "bad config: $bad" 2 "$Z" pool ensure --config "$conf" --slots 1 --slot-size 1M
  grep -q "line 3" /tmp/zk_pool_cli.$$ || { echo "FAIL: '$bad' not reported with its line"; cat /tmp/zk_pool_cli.$$; fail=1; }
done
[ -e "$p1" ] && { echo "FAIL: a bad config created $p1"; fail=1; }
[ $fail = 0 ] && echo "pool CLI: ok"
exit $fail
