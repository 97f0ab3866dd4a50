# lib_apid.sh -- zkslot-apid in the pipeline tests: source it after
# tests/pipeline/lib.sh and pl_init.
#
#   apid_start [ARGS...]   starts zkslot-apid on 127.0.0.1 (a free port):
#                          APID_PID, APID_URL (http://127.0.0.1:PORT)
#   apid_stop [SIGNAL]     stops it (default TERM) and waits
#   apid_req METHOD PATH [CURL ARGS...]
#                          one request with curl (10 s at most): the body
#                          into $PL_W/resp, prints the HTTP status
#   apid_code              the error code of $PL_W/resp ("" if none)
# The EXIT trap kills apid before pl_cleanup runs.
: "${ZKSLOT_APID:?}"
APID_PID=
apid__cleanup() {
    local rc=$?
    # no ERR trap or errexit in here: restoring a failing status would trip
    # them and end the trap before pl_cleanup kills the daemons and
    # destroys the pool
    trap - ERR
    set +e
    [ -z "$APID_PID" ] || kill -9 "$APID_PID" 2>/dev/null
    (exit "$rc")
    pl_cleanup
}
trap apid__cleanup EXIT

apid_start() {
    local i
    : >"$PL_W/apid.log"
    "$ZKSLOT_APID" --listen 127.0.0.1:0 "$@" 2>>"$PL_W/apid.log" &
    APID_PID=$!
    for i in $(seq 100); do   # at most 10 s
        APID_URL=$(sed -n 's|.*serving \(http://127.0.0.1:[0-9]*\).*|\1|p' "$PL_W/apid.log" | head -n 1)
        [ -z "$APID_URL" ] || return 0
        kill -0 "$APID_PID" 2>/dev/null || break
        sleep 0.1
    done
    pl_bad "zkslot-apid did not start: $(tail -n 2 "$PL_W/apid.log")"
    return 1
}

apid_stop() {
    [ -n "$APID_PID" ] || return 0
    kill -"${1:-TERM}" "$APID_PID" 2>/dev/null
    wait "$APID_PID" 2>/dev/null || true
    APID_PID=
}

apid_req() {
    local m=$1 p=$2
    shift 2
    curl -s -m 10 -o "$PL_W/resp" -w '%{http_code}' -X "$m" "$@" "$APID_URL$p"
}

apid_code() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("error",{}).get("code",""))' \
        "$PL_W/resp" 2>/dev/null || true
}
