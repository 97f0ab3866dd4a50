#!/usr/bin/env bash
# test_auth.sh -- zkslot-apid's bearer tokens with real second tokens
# (no daemons: jobs stay queued), loopback only, every request bounded:
#   - a non-loopback --listen is refused without --tokens, and a token
#     file that others may read is refused;
#   - the file keeps only hashes (no secret in it), mode 0600;
#   - no token or an unknown one: 401 (WWW-Authenticate: Bearer), except
#     /healthz; a token submits only to its keys (403 otherwise);
#   - request ids are per token: two tokens' "r1" are two jobs;
#   - a token cancels only its own jobs (403), one with --cancel-any
#     cancels others' too; a revoked token is refused after SIGHUP.
# About 3 s.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
pl_init apid_auth || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"
T="$PL_W/tokens"

pli_circuit bn128
pli_key_add bn128 --witness-gen "$PLI_CPP"

rc=0
"$ZKSLOT_APID" --listen 0.0.0.0:0 --check-config 2>"$PL_W/err" || rc=$?
[ "$rc" = 2 ] && grep -q 'not a loopback address' "$PL_W/err" ||
    pl_bad "non-loopback without tokens: exit $rc: $(cat "$PL_W/err")"

alice=$("$ZKSLOT" token add alice --keys bn128 --file "$T")
bob=$("$ZKSLOT" token add bob --keys '*' --file "$T")
ops=$("$ZKSLOT" token add ops --keys '*' --cancel-any --file "$T")
[ "$(stat -c %a "$T")" = 600 ] || pl_bad "token file mode $(stat -c %a "$T"), expected 600"
for s in "$alice" "$bob" "$ops"; do
    case $s in zks_????????????????????????????????????????????????????????????????) ;;
    *) pl_bad "secret '$s' is not zks_ and 64 hex digits" ;; esac
    ! grep -q "${s#zks_}" "$T" || pl_bad "the token file holds a secret in clear"
done
"$ZKSLOT" token list --file "$T" >"$PL_W/list"
grep -q '^ops  *any  *\*$' "$PL_W/list" && grep -q '^alice  *own  *bn128$' "$PL_W/list" ||
    pl_bad "token list: $(cat "$PL_W/list")"

chmod 644 "$T"
rc=0
"$ZKSLOT_APID" --tokens "$T" --check-config 2>"$PL_W/err" || rc=$?
[ "$rc" = 2 ] && grep -q 'chmod 600' "$PL_W/err" || pl_bad "a readable token file: exit $rc: $(cat "$PL_W/err")"
chmod 600 "$T"

apid_start --tokens "$T"
J=(-H 'Content-Type: application/json')
as() { local who=$1; shift; apid_req "$@" -H "Authorization: Bearer $who"; }
expect() {   # WHAT WANT_STATUS GOT_STATUS [WANT_CODE]
    [ "$3" = "$2" ] && { [ -z "${4:-}" ] || [ "$(apid_code)" = "$4" ]; } ||
        pl_bad "$1: $3 $(apid_code), expected $2 ${4:-}: $(cat "$PL_W/resp")"
}
input=$(pli_input 3 5 1)
sub() { echo "{\"key\": \"$1\", \"inputs\": [$input], \"request_id\": \"$2\"}"; }

expect "no token" 401 "$(apid_req GET /v1/jobs)" unauthorized
grep -qi '^WWW-Authenticate: Bearer' < <(curl -s -m 10 -D - -o /dev/null "$APID_URL/v1/jobs") ||
    pl_bad "401 without WWW-Authenticate: Bearer"
expect "an unknown token" 401 "$(as zks_0000 GET /v1/keys)" unauthorized
code=$(apid_req GET /healthz)
[ "$code" != 401 ] || pl_bad "/healthz needs a token"
expect "alice to a key not hers" 403 "$(as "$alice" POST /v1/jobs "${J[@]}" -d "$(sub other r1)")" forbidden
expect "alice submits" 201 "$(as "$alice" POST /v1/jobs "${J[@]}" -d "$(sub bn128 r1)")"
ja=$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); assert o["request_id"] == "r1"; print(o["id"])' "$PL_W/resp")
expect "bob, the same request id" 201 "$(as "$bob" POST /v1/jobs "${J[@]}" -d "$(sub bn128 r1)")"
jb=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$PL_W/resp")
[ "$ja" != "$jb" ] || pl_bad "two tokens' request id r1 made one job ($ja)"
expect "alice again" 200 "$(as "$alice" POST /v1/jobs "${J[@]}" -d "$(sub bn128 r1)")"
expect "bob reads alice's job" 200 "$(as "$bob" GET "/v1/jobs/$ja")"
expect "bob cancels alice's job" 403 "$(as "$bob" DELETE "/v1/jobs/$ja")" forbidden
expect "bob cancels his own" 200 "$(as "$bob" DELETE "/v1/jobs/$jb")"
expect "ops cancels alice's job" 200 "$(as "$ops" DELETE "/v1/jobs/$ja")"
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["state"] != "canceled")' "$PL_W/resp" ||
    pl_bad "ops's cancel: $(cat "$PL_W/resp")"
expect "a second cancel" 409 "$(as "$ops" DELETE "/v1/jobs/$ja")" finished

"$ZKSLOT" token revoke alice --file "$T" 2>/dev/null
expect "alice before SIGHUP" 200 "$(as "$alice" GET /v1/keys)"
kill -HUP "$APID_PID"
for i in $(seq 50); do   # at most 5 s
    grep -q 'SIGHUP: 2 token' "$PL_W/apid.log" && break
    sleep 0.1
done
expect "alice after revoke and SIGHUP" 401 "$(as "$alice" GET /v1/keys)" unauthorized
expect "bob after SIGHUP" 200 "$(as "$bob" GET /v1/keys)"
apid_stop
echo "ok: tokens: 401, 403, per-token request ids, cancel rights, revoke"
pl_done
