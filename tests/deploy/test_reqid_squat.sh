#!/usr/bin/env bash
# test_reqid_squat.sh -- issue 46, item 3: request id squatting on SQLite,
# replayed with real users.  zkslot-apid runs as the daemon user D with a
# token 'web'; an operator O (in D's group) submits with the CLI and
# `--request-id api:web:order-77`, the shape apid once gave web's ids in
# the ledger.  Request ids are per principal (a local user, an API token),
# the principal set by whoever authenticated the caller:
#   - web posting request_id order-77 gets a job of its own (201), never
#     O's, and its DELETE of O's job is 403 (O's job stays queued);
#   - web's same request again: its own job (200); the same id with another
#     witness: 409 request_id_reused, nothing queued;
#   - O's same submit again: O's job ("submitted before"); with another
#     witness: exit 2, one line naming the rule, nothing queued;
#   - another operator P (in D's group) with O's id: a job of P's own.
# No proving daemons (the jobs stay queued).  Every wait is bounded.
# Needs root, useradd/userdel and setpriv (77 otherwise).  About 2 s.
: "${ZKSLOT:?}" "${ZKSLOT_APID:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init rq curl python3 base64
zku_user PU p "$DU"

mkdir -p "$W/in" && cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,witness-1.wtns,witness-2.wtns} "$W/in/"
chmod -R a+rX "$W/in"
W1=$W/in/witness-1.wtns W2=$W/in/witness-2.wtns
install -d -m 2770 -o "$DU" -g "$DU" "$W/state"
as "$DU" 0007 "$ZKSLOT" key add rq "$W/in/key.zkey" >"$W/key.log" 2>&1 ||
    { bad "key add as $DU: $(cat "$W/key.log")"; exit 1; }
T=$W/state/tokens
web=$(as "$DU" 0077 "$ZKSLOT" token add web --keys '*' --file "$T") || { bad "token add"; exit 1; }

zku_daemon "$W/apid.log" "$ZKSLOT_APID" --listen 127.0.0.1:0 --tokens "$T"
URL=
for i in $(seq 100); do   # at most 10 s
    URL=$(sed -n 's|.*serving \(http://127.0.0.1:[0-9]*\).*|\1|p' "$W/apid.log" | head -n 1)
    [ -n "$URL" ] && break
    kill -0 "$DPID" 2>/dev/null || break
    sleep 0.1
done
[ -n "$URL" ] || { bad "zkslot-apid did not start as $DU: $(tail -n 2 "$W/apid.log")"; exit 1; }

req() {   # METHOD PATH [CURL ARGS]: the body into W/resp, prints the status
    local m=$1 p=$2; shift 2
    curl -s -m 10 -o "$W/resp" -w '%{http_code}' -X "$m" -H "Authorization: Bearer $web" "$@" "$URL$p"
}
field() { python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(o.get(sys.argv[2]) or o.get("error",{}).get("code",""))' "$W/resp" "$1" 2>/dev/null; }
body() { echo "{\"key\": \"rq\", \"witnesses\": [\"$(base64 -w0 "$1")\"], \"request_id\": \"$2\"}"; }
njobs() { "$ZKSLOT" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))'; }
state() { "$ZKSLOT" status "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'; }

# ---- the operator takes the id the token would have been stored under ----------
op=$(as "$OU" 0007 "$ZKSLOT" submit --key rq --request-id api:web:order-77 "$W1" 2>"$W/op.err") ||
    { bad "submit as $OU: $(cat "$W/op.err")"; exit 1; }

# ---- the token: its own job, not the operator's --------------------------------
st=$(req POST /v1/jobs -H 'Content-Type: application/json' -d "$(body "$W1" order-77)")
mine=$(field id)
[ "$st" = 201 ] && [ -n "$mine" ] && [ "$mine" != "$op" ] ||
    bad "web's order-77: $st job '$mine', the operator's is $op (expected 201, a job of its own)"
[ "$(field request_id)" = order-77 ] || bad "web's job shows request id '$(field request_id)'"
st=$(req DELETE "/v1/jobs/$op")
[ "$st" = 403 ] && [ "$(field id)" = forbidden ] || bad "web's cancel of $OU's job $op: $st $(cat "$W/resp")"
[ "$(state "$op")" = queued ] || bad "$OU's job $op is $(state "$op"), expected queued"

# ---- the same request again: its own job; another witness: 409 -----------------
st=$(req POST /v1/jobs -H 'Content-Type: application/json' -d "$(body "$W1" order-77)")
[ "$st" = 200 ] && [ "$(field id)" = "$mine" ] || bad "web's retry: $st job '$(field id)', expected 200 job $mine"
before=$(njobs)
st=$(req POST /v1/jobs -H 'Content-Type: application/json' -d "$(body "$W2" order-77)")
[ "$st" = 409 ] && [ "$(field id)" = request_id_reused ] &&
    [ "$(wc -l <"$W/resp")" -le 1 ] || bad "web's order-77 with another witness: $st $(cat "$W/resp")"
[ "$(njobs)" = "$before" ] || bad "a refused reuse queued a job"

# ---- the operator's own id: its job again; another witness: exit 2 -------------
again=$(as "$OU" 0007 "$ZKSLOT" submit --key rq --request-id api:web:order-77 "$W1" 2>"$W/op.err")
[ "$again" = "$op" ] && grep -q 'submitted before' "$W/op.err" ||
    bad "$OU's retry: job '$again' ($(cat "$W/op.err")), expected $op"
rc=0; as "$OU" 0007 "$ZKSLOT" submit --key rq --request-id api:web:order-77 "$W2" >/dev/null 2>"$W/op.err" || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$W/op.err")" = 1 ] && grep -q 'other inputs or witnesses' "$W/op.err" ||
    bad "$OU's id with another witness: exit $rc: $(cat "$W/op.err")"
[ "$(njobs)" = "$before" ] || bad "a refused reuse queued a job"

# ---- another local user with the operator's id: a job of its own ---------------
p=$(as "$PU" 0007 "$ZKSLOT" submit --key rq --request-id api:web:order-77 "$W1" 2>"$W/p.err")
[ -n "$p" ] && [ "$p" != "$op" ] && [ "$p" != "$mine" ] && ! grep -q 'submitted before' "$W/p.err" ||
    bad "$PU with $OU's request id: job '$p' ($(cat "$W/p.err")), $OU's is $op"

[ $fail = 0 ] && echo "ok: request ids per principal: $OU $op, web $mine, $PU $p"
exit $fail
