#!/usr/bin/env bash
# test_cli_server.sh -- `zkslot --server URL` (and $ZKSLOT_SERVER) against
# zkslot-apid on loopback, the ledger out of the CLI's reach (its state
# directory points elsewhere): submit --input with a request id (a repeat
# prints the same job), wait (0 done), status --json, result --out (the
# proofs written here, snarkjs accepts them, their public signals are the
# inputs'), key list and key show (the vk.json; an unknown key exit 1),
# cancel of a finished job (exit 1) and of a queued one (0), a URL of
# another scheme refused (https://: apid_test_cli_tls).  About 10 s.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
pl_init apid_cli_server || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
in="$PL_W/in"
mkdir -p "$in"

pl_pool 2
pli_allow "$ZK_INTEROP_WORK"   # the generators pli_circuit builds
pl_start_synthd --workers 2
pl_start_gpud
pli_circuit bn128
pli_key_add bn128 --witness-gen "$PLI_CPP"
apid_start
for i in 0 1; do
    pli_input $((i + 3)) $((i + 9)) "$i" >"$in/$i.json"
    pli_reference "$in/$i.json" "$in/$i.wtns"
done
# the CLI's own ledger is elsewhere: everything below goes through apid
remote() { ZKSLOT_STATE_DIR="$PL_W/nowhere" "$ZKSLOT" --server "$APID_URL" "$@"; }

j=$(remote submit --key bn128 --input "$in/0.json" "$in/1.json" --request-id cli-1 --priority high)
j2=$(remote submit --key bn128 --input "$in/0.json" "$in/1.json" --request-id cli-1 2>"$PL_W/err")
[ "$j2" = "$j" ] && grep -q 'submitted before; nothing queued' "$PL_W/err" ||
    pl_bad "a repeated request id: job $j2 ($(cat "$PL_W/err")), expected $j"
# the same id with other inputs names another request: refused (409 -> exit 2, one line)
rc=0; remote submit --key bn128 --input "$in/1.json" --request-id cli-1 >/dev/null 2>"$PL_W/err" || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$PL_W/err")" = 1 ] && grep -q "other inputs or witnesses" "$PL_W/err" ||
    pl_bad "a request id reused with other inputs: exit $rc: $(cat "$PL_W/err")"
rc=0; remote wait "$j" --timeout 60 || rc=$?
[ "$rc" = 0 ] || pl_bad "zkslot --server wait: exit $rc"
remote status "$j" --json >"$PL_W/st.json"
python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); sys.exit(not (o["state"] == "done" and o["priority"] == "high" and len(o["partitions"]) == 2))' \
    "$PL_W/st.json" || pl_bad "status --json: $(head -c 300 "$PL_W/st.json")"
remote result "$j" --out "$PL_W/res" >"$PL_W/res.list"
[ "$(wc -l <"$PL_W/res.list")" = 2 ] || pl_bad "result --out listed $(wc -l <"$PL_W/res.list") partitions"
np=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nPublic"])' "$PLI_VK")
args=()
for k in 0 1; do
    want=$(python3 "$ZK_SOURCE_DIR/tests/pipeline/wtns_public.py" "$in/$k.wtns" "$np")
    python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.loads(sys.argv[2]))' \
        "$PL_W/res/$k/public.json" "$want" || pl_bad "partition $k: public signals are not its input's"
    args+=("$PL_W/res/$k/public.json" "$PL_W/res/$k/proof.json")
done
node "$ZK_SOURCE_DIR/tests/pipeline/verify_many.cjs" "$PLI_VK" "${args[@]}" >"$PL_W/verify.out" 2>&1 &&
    [ "$(grep -c '^ok ' "$PL_W/verify.out")" = 2 ] ||
    pl_bad "snarkjs: $(head -n 3 "$PL_W/verify.out")"
# the keys through apid: the list, one key with its vk.json (export-vk's), an unknown one
remote key list >"$PL_W/keys.txt"
grep -q '^bn128  *bn128  *zkey  *[0-9]' "$PL_W/keys.txt" && grep -q ' yes  *normal$' "$PL_W/keys.txt" ||
    pl_bad "key list over --server: $(cat "$PL_W/keys.txt")"
remote key show bn128 >"$PL_W/key.json"
python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); sys.exit(not (o["name"] == "bn128" and o["vk"] == json.load(open(sys.argv[2])) and "path" not in o))' \
    "$PL_W/key.json" "$PLI_VK" || pl_bad "key show over --server: $(head -c 300 "$PL_W/key.json")"
rc=0; remote key show nope 2>"$PL_W/err" || rc=$?
[ "$rc" = 1 ] && grep -q "no key named 'nope'" "$PL_W/err" || pl_bad "key show of an unknown key: exit $rc: $(cat "$PL_W/err")"
"$ZKSLOT" key show bn128 | python3 -c 'import json,sys; o=json.load(sys.stdin); sys.exit(not (o["name"] == "bn128" and o["path"]))' ||
    pl_bad "key show on the ledger"
rc=0; remote cancel "$j" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || pl_bad "cancel of a finished job: exit $rc, expected 1"
pl_stop "${PL_GPUD_PIDS[0]}"
pl_stop "${PL_SYNTHD_PIDS[0]}"
jq=$(ZKSLOT_SERVER=$APID_URL ZKSLOT_STATE_DIR="$PL_W/nowhere" "$ZKSLOT" submit --key bn128 --input "$in/0.json")
rc=0; remote cancel "$jq" 2>/dev/null || rc=$?
[ "$rc" = 0 ] || pl_bad "cancel of a queued job: exit $rc"
rc=0; remote wait "$jq" --timeout 5 2>/dev/null || rc=$?
[ "$rc" = 1 ] || pl_bad "wait on a canceled job: exit $rc, expected 1"
rc=0; "$ZKSLOT" --server ftp://127.0.0.1:1 status 2>"$PL_W/err" || rc=$?
[ "$rc" = 2 ] && grep -q 'is not http://HOST' "$PL_W/err" || pl_bad "ftp: exit $rc: $(cat "$PL_W/err")"
[ ! -e "$PL_W/nowhere/ledger.db" ] || pl_bad "the CLI opened a ledger of its own"
echo "ok: zkslot --server: submit, wait, status, result, cancel through apid; snarkjs accepts the proofs"
apid_stop
pl_done
