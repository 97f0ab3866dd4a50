#!/usr/bin/env bash
# test_backpressure.sh -- synthesis much faster than proving (a synthd with
# 2 workers, a gpud on 1 thread, 16 partitions of ~4 MiB, a pool of 3
# slots): memory stays inside the pool.  Sampled from /proc every 50 ms:
#
#   total = sum over the zkslot processes of private RSS (RssAnon + RssFile)
#           + the pool's shared pages (RssShmem, counted once)
#
# must stay <= pool file size + the per-process overhead, which is the
# private RSS of each process once warm (keys loaded, one partition proved;
# measured here before the load) + 16 MiB (docs/architecture.md).  Without the
# bound, 16 finished partitions (64 MiB) would pile up outside the pool.
# Also: at no sample do more partitions hold memory (synthesizing + ready in
# the ledger) than there are slots, and backpressure really happened (all
# slots busy while partitions were still queued), with classes mixed: a low
# job and a critical one, [pool] reserve = 1.  Every proof is checked
# by snarkjs and `zkslot verify`, partition k's public.json against
# witness k.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init backpressure || exit 77
# Under ASan freed memory sits in a quarantine (256 MiB by default) that
# would grow with every proof; keep it small so RSS means what it says.
if [ -n "${ZK_SANITIZE:-}" ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4"
fi

pl_pool 3 4M || exit 1
pl_circuit bn128 30000 8 || { pl_bad circuit; exit 1; }
# a pool whose slots are too small for this key: submit refuses the job
small=/dev/shm/zkslot-test-small-$$.pool
"$ZKSLOT" pool create --pool "$small" --slots 1 --slot-size 2M --tmpfs >/dev/null 2>&1
rc=0; out=$(ZKSLOT_POOL=$small "$ZKSLOT" submit --key "$PL_KEYNAME" "${PL_WTNS[0]}" 2>&1) || rc=$?
"$ZKSLOT" pool destroy --pool "$small" >/dev/null 2>&1 || pl_bad "destroy $small"
[ "$rc" = 2 ] && grep -q "needs .* bytes per partition but the slots of $small hold 2097152" <<<"$out" ||
    pl_bad "submit against too-small slots: rc $rc: $out"
[ "$("$ZKSLOT" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))')" = 0 ] ||
    pl_bad "a refused submit left a job"
printf '[pool]\nreserve = 1\nreserve_class = high\n' >"$ZKSLOT_CONFIG"
pool_bytes=$("$ZKSLOT" pool status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["file_size"])')
pl_start_synthd --workers 2
pl_start_gpud --threads 1
w=$(pl_submit 1); pl_wait "$w" 120 || exit 1          # warm-up
priv() { awk '/^RssAnon|^RssFile/ {s += $2} END {print s * 1024}' "/proc/$1/status"; }
shm() { awk '/^RssShmem/ {print $2 * 1024}' "/proc/$1/status"; }
base_s=$(priv "$PL_SYNTHD"); base_g=$(priv "$PL_GPUD")
margin=$((16 << 20))
# under ASan each daemon may also hold its whole quarantine (4 MiB, above),
# which the warm RSS need not include yet
[ -z "${ZK_SANITIZE:-}" ] || margin=$((margin + (4 << 20)))
bound=$((pool_bytes + base_s + base_g + 2 * margin))
echo "pool $((pool_bytes >> 20)) MiB; warm private RSS: synthd $((base_s >> 20)) MiB, gpud $((base_g >> 20)) MiB; bound $((bound >> 20)) MiB"

# classes mixed (docs/scheduling.md): a low job, then a critical one that
# takes the reserved slot too; the bound is the same pool
PL_SUBMIT_ARGS=(--priority low); j1=$(pl_submit 8)
PL_SUBMIT_ARGS=(--priority critical); j2=$(pl_submit 8); PL_SUBMIT_ARGS=()
max=0 maxheld=0 pressure=0 samples=0
while :; do
    s=$("$ZKSLOT" status "$j1" --json 2>/dev/null | python3 -c 'import json,sys; s=json.load(sys.stdin); print((s.get("job") or s)["state"])' 2>/dev/null) || s=
    [ "$s" = done ] || [ "$s" = failed ] && break
    for _ in 1 2 3 4; do
        # (a daemon gone: empty, and said below)
        a=$(priv "$PL_SYNTHD" 2>/dev/null) || a=
        b=$(priv "$PL_GPUD" 2>/dev/null) || b=
        c=$(shm "$PL_SYNTHD" 2>/dev/null) || c=0
        d=$(shm "$PL_GPUD" 2>/dev/null) || d=0
        [ -n "$a" ] && [ -n "$b" ] || { pl_bad "a daemon died"; break 2; }
        sh=$((c > d ? c : d))
        t=$((a + b + sh))
        [ "$t" -gt "$max" ] && max=$t
        samples=$((samples + 1))
        sleep 0.05
    done
    counts=$("$ZKSLOT" status --json | python3 -c '
import json,sys
s=json.load(sys.stdin)
jobs = s["jobs"] if isinstance(s, dict) else s
c = {}
for j in jobs:
    for k, v in (j.get("counts") or {}).items(): c[k] = c.get(k, 0) + v
print(c.get("synthesizing", 0) + c.get("ready", 0), c.get("queued", 0))')
    held=${counts% *} queued=${counts#* }
    [ "$held" -gt "$maxheld" ] && maxheld=$held
    free=$("$ZKSLOT" pool status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["FREE"])')
    [ "$free" = 0 ] && [ "$queued" -gt 0 ] && pressure=1
done
echo "$samples samples: peak total $((max >> 20)) MiB (bound $((bound >> 20)) MiB); peak partitions held $maxheld (slots 3)"
[ "$max" -le "$bound" ] || pl_bad "peak memory $max B exceeds the bound $bound B"
[ "$maxheld" -le 3 ] || pl_bad "$maxheld partitions held memory at once with 3 slots"
[ "$pressure" = 1 ] || pl_bad "never saw backpressure (all slots busy with partitions queued)"
for j in "$j1" "$j2"; do pl_wait "$j" 300 && pl_check_job "$j" 8 || continue; done
pl_stop "$PL_GPUD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "gpud exit $rc"
pl_stop "$PL_SYNTHD"; rc=$PL_RC; [ "$rc" = 0 ] || pl_bad "synthd exit $rc"
pl_pool_clean
exit $PL_FAIL
