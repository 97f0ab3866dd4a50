#!/usr/bin/env bash
# test_bench_api.sh -- `zkslot bench api` through tools/bench-api.sh (a
# private farm: pool, synthd, gpud, apid), small: 4 clients, 50 status
# requests/s, 2 s.  Checks what it reports, not how fast: exit 0, jobs
# submitted and all done, none lost or duplicated, status requests sent
# with their percentiles, apid's RSS read; and that the bench refuses a
# server that is not on this machine.  About 6 s.
set -u
: "${ZK_BUILD_DIR:?}" "${ZK_SOURCE_DIR:?}" "${ZKSLOT:?}"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
out=$(mktemp /tmp/zk-bench-api-test.XXXXXX)
trap 'rm -f "$out" "$out.err"' EXIT
rc=0
timeout 120 "$ZK_SOURCE_DIR/tools/bench-api.sh" "$ZK_BUILD_DIR" -- --clients 4 --rate 50 --duration 2 \
    --json >"$out" 2>"$out.err" || rc=$?
[ "$rc" = 0 ] || bad "bench-api exit $rc: $(tail -n 3 "$out.err") $(head -c 600 "$out")"
python3 - "$out" <<'PY' || bad "the report: $(head -c 800 "$out")"
import json, sys
o = json.load(open(sys.argv[1]))
j, s = o["jobs"], o["status"]
assert o["ok"] is True and o["errors"] == {}, o
assert j["submitted"] > 0 and j["done"] == j["submitted"], j
assert j["lost"] == 0 and j["duplicated"] == 0, j
assert s["sent"] > 0 and 0 < s["p50_ms"] <= s["p99_ms"] <= s["max_ms"], s
assert o["rss_start_kib"] > 0 and o["rss_end_kib"] > 0, o
PY
rc=0
"$ZKSLOT" bench api --server http://192.0.2.1:8470 --key k --witness "$ZK_SOURCE_DIR/examples/groth16/bn128/witness-1.wtns" \
    2>"$out.err" || rc=$?
[ "$rc" = 2 ] && grep -q 'loopback address or unix' "$out.err" || bad "a remote server: exit $rc: $(cat "$out.err")"
[ $fail = 0 ] && echo "ok: zkslot bench api reports jobs, status percentiles and RSS; remote servers refused"
exit $fail
