#!/usr/bin/env bash
# test_metrics.sh -- `zkslot metrics` and `zkslot top` on a live pipeline: the
# exposition parses as Prometheus text (every sample typed, histograms
# cumulative with +Inf = count), its numbers agree with the ledger and the
# pool (4 partitions done, 4 proofs, slots add up, both daemons up), a
# gpud killed and restarted shows as one restart; the textfile and HTTP
# modes serve the same document; `top --once` shows the pool and the jobs.
# The job's proofs are checked too (snarkjs, `zkslot verify`, partition k's
# public.json against witness k).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init metrics || exit 77

pl_pool 3 || exit 1
pl_circuit bn128 300 4 || { pl_bad circuit; exit 1; }
pl_start_synthd --workers 1
pl_start_gpud
j=$(pl_submit 4)
pl_wait "$j" 120 || exit 1
pl_check_job "$j" 4 || exit 1
kill -9 "$PL_GPUD"; wait "$PL_GPUD" 2>/dev/null || true
pl_start_gpud
for _ in $(seq 50); do grep -q "ready:" <(grep "gpud\[$PL_GPUD\]" "$PL_W/gpud.log") && break; sleep 0.1; done

check_exposition() {   # FILE
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
types, samples = {}, {}
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"]*")*)\})? (\S+)$')
for line in text.splitlines():
    if line.startswith("# TYPE "):
        _, _, name, t = line.split(" ", 3); types[name] = t; continue
    if line.startswith("# HELP ") or not line: continue
    m = sample.match(line)
    assert m, "bad line: " + line
    name, labels, value = m.group(1), m.group(3) or "", float(m.group(5))
    base = re.sub(r'_(bucket|sum|count)$', '', name) if name not in types else name
    assert base in types, "untyped sample " + name
    samples[(name, labels)] = value
def v(name, labels=""): return samples[(name, labels)]
assert v("zkslot_partitions", 'state="done"') == 4, v("zkslot_partitions", 'state="done"')
assert v("zkslot_jobs", 'state="done"') == 1
assert v("zkslot_proofs_total") == 4
assert v("zkslot_pool_up") == 1
assert sum(v("zkslot_pool_slots", 'state="%s"' % s) for s in ("free", "filling", "ready", "claimed")) == 3
assert v("zkslot_daemon_starts_total", 'role="gpud",instance="0"') == 2
assert v("zkslot_daemon_restarts_total", 'role="gpud",instance="0"') == 1
assert v("zkslot_daemon_restarts_total", 'role="synthd",instance="-1"') == 0
assert v("zkslot_daemon_up", 'role="gpud",instance="0"') == 1
assert v("zkslot_daemon_up", 'role="synthd",instance="-1"') == 1
for stage in ("synth", "wait", "start", "finalize", "total"):
    b = sorted(((float("inf") if l.split('le="')[1][:-1] == "+Inf" else float(l.split('le="')[1][:-1])), val)
               for (n, l), val in samples.items() if n == "zkslot_stage_seconds_bucket" and 'stage="%s"' % stage in l)
    counts = [c for _, c in b]
    assert counts == sorted(counts), "histogram not cumulative: %s" % stage
    assert counts[-1] == v("zkslot_stage_seconds_count", 'stage="%s"' % stage) == 4, (stage, counts)
# by class (docs/scheduling.md): the job was normal, nothing is queued
assert v("zkslot_latency_seconds_count", 'class="normal"') == 4
assert v("zkslot_latency_seconds_bucket", 'class="normal",le="+Inf"') == 4
assert v("zkslot_latency_seconds_count", 'class="critical"') == 0
assert v("zkslot_wait_seconds_count", 'class="normal"') == 4
assert v("zkslot_wait_seconds_sum", 'class="normal"') == v("zkslot_stage_seconds_sum", 'stage="wait"')
assert v("zkslot_latency_seconds_sum", 'class="normal"') == v("zkslot_stage_seconds_sum", 'stage="total"')
for c in ("low", "normal", "high", "critical"):
    assert v("zkslot_queue_partitions", 'class="%s"' % c) == 0
    assert v("zkslot_inflight_partitions", 'class="%s"' % c) == 0
print("exposition ok: %d samples" % len(samples))
PY
}

"$ZKSLOT" metrics >"$PL_W/m1.prom" || pl_bad "zkslot metrics exit $?"
check_exposition "$PL_W/m1.prom" || pl_bad "stdout exposition"
"$ZKSLOT" metrics --textfile "$PL_W/m2.prom" --once || pl_bad "metrics --textfile exit $?"
check_exposition "$PL_W/m2.prom" || pl_bad "textfile exposition"
"$ZKSLOT" metrics --listen 127.0.0.1:0 2>"$PL_W/listen.err" &
mp=$!
for _ in $(seq 50); do grep -q serving "$PL_W/listen.err" && break; sleep 0.1; done
url=$(sed -n 's/.*serving \(http:[^ ]*\).*/\1/p' "$PL_W/listen.err")
python3 - "$url" "$PL_W/m3.prom" <<'PY' || pl_bad "HTTP endpoint"
import sys, urllib.request, urllib.error
r = urllib.request.urlopen(sys.argv[1], timeout=10)
assert r.status == 200 and r.headers["Content-Type"].startswith("text/plain")
open(sys.argv[2], "wb").write(r.read())
try:
    urllib.request.urlopen(sys.argv[1].replace("/metrics", "/other"), timeout=10)
    raise SystemExit("no 404 for /other")
except urllib.error.HTTPError as e:
    assert e.code == 404
PY
kill "$mp"; wait "$mp" 2>/dev/null || true
check_exposition "$PL_W/m3.prom" || pl_bad "HTTP exposition"
"$ZKSLOT" metrics --listen nonsense >/dev/null 2>&1 && pl_bad "--listen nonsense accepted"

"$ZKSLOT" top --once >"$PL_W/top.txt" || pl_bad "top --once exit $?"
grep -q "slots  \[\.\.\.\]  free 3" "$PL_W/top.txt" || pl_bad "top: slots line: $(cat "$PL_W/top.txt")"
grep -q "done 4" "$PL_W/top.txt" || pl_bad "top: partitions line"
grep -q "gpud@0 pid $PL_GPUD up (starts 2)" "$PL_W/top.txt" || pl_bad "top: daemons line: $(grep daemons "$PL_W/top.txt")"

pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC"
exit $PL_FAIL
