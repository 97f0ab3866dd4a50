#!/usr/bin/env bash
# test_fil_faces.sh BUILD_DIR -- a Filecoin job from the provider's own
# input is the same through every face (docs/filecoin.md, "Jobs"), the
# daemons running, each proof accepted by filecoin-proofs' verifier:
#   1. libzkslot: zkslot_submit_filecoin (tests/filecoin/fil_lib_submit.c)
#      with a WinningPoSt input; a truncated input is refused with the
#      synthesizer's line naming the file (ZKSLOT_EREJECTED), nothing
#      queued;
#   2. the HTTP API: POST /v1/jobs {"key", "filecoin": {"kind", "input"}}
#      with a WindowPoSt input over 5 sectors (3 partitions), split on the
#      server by the key's synthesizer; the proof fetched through the API
#      (`zkslot --server URL result --out`); and `zkslot --server URL
#      submit --filecoin winning FILE` from a client without the
#      synthesizer (the input itself sent, split on the server);
#   3. the API's refusals, nothing queued: a real second token whose keys
#      do not include the key (403, judged before anything runs), a kind
#      that is not the key's, an input of another kind, an unknown field,
#      a synthesizer changed since key add, and a server whose `[synthd] generators` does not allow the
#      synthesizer (422 no_generator: the split never runs on the
#      ledger's word alone).
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/filecoin/fil_daemons.sh"
: "${ZK_FIL_LIB_SUBMIT:?}"
fil_daemons_init fil_faces 43 winning,window
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"

njobs() { "$ZKSLOT" status --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))'; }
verify() {   # verify KIND PROOF: filecoin-proofs' own verifier on the input
  "$fs" verify --kind "$1" --input "$PL_W/in/$1.json" --proof "$2" --cache "$cache" >"$PL_W/verify.out" 2>&1
}

pl_pool 2 24M
"$ZKSLOT" key add --filecoin "$cache" --synth "$PL_W/gen/zkslot-fil-synth" >"$PL_W/keyadd.out" 2>&1 ||
  { pl_bad "key add --filecoin: $(tail -n 3 "$PL_W/keyadd.out")"; exit 1; }
pl_start_synthd --workers 1
pl_start_gpud --threads 2

# ---- 1. libzkslot ----------------------------------------------------------------------
rc=0
j=$("$ZK_FIL_LIB_SUBMIT" winning "$PL_W/in/winning.json" 2>"$PL_W/lib.err") || rc=$?
if [ "$rc" = 0 ] && "$ZKSLOT" wait "$j" --timeout 300 >"$PL_W/wait.out" 2>&1 &&
   "$ZKSLOT" result "$j" --out "$PL_W/lib.proof" >/dev/null 2>&1 && verify winning "$PL_W/lib.proof"; then
  echo "ok: libzkslot's zkslot_submit_filecoin: job $j, its WinningPoSt proof accepted by filecoin-proofs"
else
  pl_bad "libzkslot's Filecoin job: exit $rc $(cat "$PL_W/lib.err") $(tail -n 2 "$PL_W/wait.out" "$PL_W/verify.out" 2>/dev/null || true)"
fi
head -c 300 "$PL_W/in/winning.json" >"$PL_W/in/truncated.json"
n0=$(njobs) rc=0
out=$("$ZK_FIL_LIB_SUBMIT" winning "$PL_W/in/truncated.json" 2>"$PL_W/lib.err") || rc=$?
if [ "$rc" = 1 ] && [ "$out" = "refused -10029" ] && [ "$(wc -l <"$PL_W/lib.err")" = 1 ] &&
   grep -q "truncated.json" "$PL_W/lib.err" && [ "$(njobs)" = "$n0" ]; then
  echo "ok: a truncated input through libzkslot: $(cat "$PL_W/lib.err")"
else
  pl_bad "a truncated input through libzkslot: exit $rc, '$out', $(cat "$PL_W/lib.err"), jobs $n0 -> $(njobs)"
fi

# ---- 2. the HTTP API ---------------------------------------------------------------------
T=$PL_W/tokens
alice=$("$ZKSLOT" token add alice --keys fil-window-2KiB,fil-winning-2KiB --file "$T")
bob=$("$ZKSLOT" token add bob --keys fil-winning-2KiB --file "$T")
apid_start --tokens "$T"
# body KEY KIND INPUT [EXTRA_JSON]: a POST /v1/jobs body in $PL_W/body
body() {
  python3 - "$@" >"$PL_W/body" <<'PY'
import json, sys
key, kind, path = sys.argv[1:4]
fc = {"kind": kind, "input": json.load(open(path))}
if len(sys.argv) > 4:
    fc.update(json.loads(sys.argv[4]))
print(json.dumps({"key": key, "filecoin": fc}))
PY
}
post() {   # post TOKEN: the status of POST /v1/jobs with $PL_W/body
  apid_req POST /v1/jobs -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
    --data-binary @"$PL_W/body"
}
body fil-window-2KiB window "$PL_W/in/window.json"
code=$(post "$alice")
j=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("id", ""))' "$PL_W/resp" 2>/dev/null || true)
np=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("nparts", ""))' "$PL_W/resp" 2>/dev/null || true)
if [ "$code" = 201 ] && [ -n "$j" ] &&
   ZKSLOT_TOKEN=$alice "$ZKSLOT" --server "$APID_URL" wait "$j" --timeout 300 >"$PL_W/wait.out" 2>&1 &&
   ZKSLOT_TOKEN=$alice "$ZKSLOT" --server "$APID_URL" result "$j" --out "$PL_W/api.proof" >"$PL_W/result.out" 2>&1 &&
   verify window "$PL_W/api.proof"; then
  echo "ok: POST /v1/jobs \"filecoin\" (WindowPoSt, 5 sectors): job $j of $np partition(s) split on the server, its proof (fetched through the API) accepted by filecoin-proofs"
else
  pl_bad "the API's Filecoin job: $code $(head -c 300 "$PL_W/resp") $(tail -n 2 "$PL_W/wait.out" "$PL_W/result.out" "$PL_W/verify.out" 2>/dev/null || true)"
fi
[ "$np" = 3 ] || pl_bad "the WindowPoSt over 5 sectors was $np partition(s), not 3"
# the CLI over the API from a machine without the synthesizer: the input
# itself goes to the server (submit --filecoin with --server)
rc=0
j=$(ZKSLOT_FIL_SYNTH=/nonexistent/zkslot-fil-synth ZKSLOT_TOKEN=$alice \
    "$ZKSLOT" --server "$APID_URL" submit --filecoin winning "$PL_W/in/winning.json" 2>"$PL_W/cli.err") || rc=$?
if [ "$rc" = 0 ] &&
   ZKSLOT_TOKEN=$alice "$ZKSLOT" --server "$APID_URL" wait "$j" --timeout 300 >"$PL_W/wait.out" 2>&1 &&
   ZKSLOT_TOKEN=$alice "$ZKSLOT" --server "$APID_URL" result "$j" --out "$PL_W/cli.proof" >"$PL_W/result.out" 2>&1 &&
   verify winning "$PL_W/cli.proof"; then
  echo "ok: zkslot --server URL submit --filecoin winning, no synthesizer on the client: job $j, its proof accepted by filecoin-proofs"
else
  pl_bad "the CLI's Filecoin job over the API: exit $rc $(cat "$PL_W/cli.err") $(tail -n 2 "$PL_W/wait.out" "$PL_W/result.out" "$PL_W/verify.out" 2>/dev/null || true)"
fi

# ---- 3. refusals, nothing queued -----------------------------------------------------------
# refused CODE HTTP_STATUS WHAT TOKEN: POST $PL_W/body, expect the status and code, no new job
refused() {
  local n0 code
  n0=$(njobs)
  code=$(post "$4")
  if [ "$code" = "$2" ] && [ "$(apid_code)" = "$1" ] && [ "$(njobs)" = "$n0" ]; then
    echo "ok: $3: $code $1: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"]["message"])' "$PL_W/resp")"
  else
    pl_bad "$3: $code $(apid_code), jobs $n0 -> $(njobs): $(head -c 300 "$PL_W/resp")"
  fi
}
body fil-window-2KiB window "$PL_W/in/window.json"
refused forbidden 403 "bob's token, whose keys leave fil-window-2KiB out" "$bob"
grep -q "zkslot-apid-split" <(ls "${TMPDIR:-/dev/shm}" /dev/shm 2>/dev/null) &&
  pl_bad "a split directory was left behind"
body fil-window-2KiB winning "$PL_W/in/winning.json"
refused bad_input 422 "kind winning for key fil-window-2KiB" "$alice"
body fil-window-2KiB window "$PL_W/in/winning.json"
refused bad_input 422 "a WinningPoSt input as kind window" "$alice"
# the synthesizer's line names the client's field, not the server's files
grep -q 'filecoin.input' "$PL_W/resp" && ! grep -q 'zkslot-apid-split' "$PL_W/resp" ||
  pl_bad "the refusal names the server's files: $(head -c 300 "$PL_W/resp")"
body fil-window-2KiB window "$PL_W/in/window.json" '{"cache": "/tmp"}'
refused bad_field 400 "an unknown field filecoin.cache" "$alice"
# a synthesizer changed since key add (one byte appended): not run
cp "$PL_W/gen/zkslot-fil-synth" "$PL_W/synth.orig"
printf 'x' >>"$PL_W/gen/zkslot-fil-synth"
body fil-window-2KiB window "$PL_W/in/window.json"
refused key_unusable 422 "a synthesizer changed since key add" "$alice"
cp "$PL_W/synth.orig" "$PL_W/gen/zkslot-fil-synth"
apid_stop
printf '[synthd]\ngenerators = %s\n' "$PL_W/elsewhere" >"$PL_W/none.conf"
ZKSLOT_CONFIG=$PL_W/none.conf apid_start --tokens "$T"
body fil-window-2KiB window "$PL_W/in/window.json"
refused no_generator 422 "a server whose [synthd] generators leaves the synthesizer out" "$alice"
apid_stop

pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_pool_clean && echo "ok: pool check clean"
pl_done
