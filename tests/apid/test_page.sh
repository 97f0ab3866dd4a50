#!/usr/bin/env bash
# test_page.sh -- the live status page at / in a real browser (Debian's
# headless chromium; skipped without it), against a running farm on
# loopback: a job submitted while the daemons are stopped shows as queued
# in the page's rendered DOM, then, the daemons started and the job done,
# as done with its partitions counted, the daemons listed up and the pool's
# slots drawn; a screenshot is kept as an artifact
# ($ZK_BUILD_DIR/artifacts/apid-status.png).  Each browser run is bounded
# (timeout 60 s, --virtual-time-budget).  About 15 s.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
pl_init apid_page || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || pl_skip "no chromium (tools/deps.sh installs it)"

pl_pool 2
pli_circuit bn128
pli_key_add bn128 --witness-gen "$PLI_CPP"
apid_start

# page URL [more chromium flags]: the DOM after the page's scripts ran
page() {
    local url=$1
    shift
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$PL_W/chromium" --virtual-time-budget=4000 "$@" "$url" \
        2>>"$PL_W/chromium.log"
}
job_state() {   # the state cell of job $1's row in DOM file $2
    python3 - "$1" "$2" <<'PY'
import re, sys
m = re.search(r'<tr id="job-%s">(.*?)</tr>' % sys.argv[1], open(sys.argv[2]).read())
s = m and re.search(r'class="state st-(\w+)"', m.group(1))
print(s.group(1) if s else "absent")
PY
}

pli_input 3 5 1 >"$PL_W/in.json"
j=$(ZKSLOT_SERVER=$APID_URL "$ZKSLOT" submit --key bn128 --input "$PL_W/in.json" "$PL_W/in.json")
page "$APID_URL/" --dump-dom >"$PL_W/dom1.html" || pl_bad "chromium failed: $(tail -n 3 "$PL_W/chromium.log")"
st=$(job_state "$j" "$PL_W/dom1.html")
[ "$st" = queued ] || pl_bad "before the daemons: job $j shows '$st' in the page, expected queued"

pl_start_synthd --workers 2
pl_start_gpud
pl_wait "$j" 60 || pl_bad "job $j did not finish"
page "$APID_URL/" --dump-dom >"$PL_W/dom2.html" || pl_bad "chromium failed: $(tail -n 3 "$PL_W/chromium.log")"
st=$(job_state "$j" "$PL_W/dom2.html")
[ "$st" = done ] || pl_bad "after: job $j shows '$st' in the page, expected done"
grep -q '<td>2/2</td>' "$PL_W/dom2.html" || pl_bad "the page does not show 2/2 partitions done"
grep -q '<td>gpud</td>' "$PL_W/dom2.html" && grep -q '<td>synthd</td>' "$PL_W/dom2.html" ||
    pl_bad "the page lists no synthd and gpud"
[ "$(grep -o 'class="slot s-[a-z]\+"' "$PL_W/dom2.html" | wc -l)" = 2 ] || pl_bad "the page does not draw the 2 slots"
! grep -q 'id="err">status:' "$PL_W/dom2.html" || pl_bad "the page shows an error: $(grep -o 'id="err">[^<]*' "$PL_W/dom2.html")"
mkdir -p "$ZK_BUILD_DIR/artifacts"
shot="$ZK_BUILD_DIR/artifacts/apid-status.png"
rm -f "$shot"
page "$APID_URL/" --window-size=1280,900 --screenshot="$shot" >/dev/null || true
[ -s "$shot" ] || pl_bad "no screenshot at $shot"
echo "ok: the status page shows job $j queued, then done; screenshot $shot"
apid_stop
pl_done
