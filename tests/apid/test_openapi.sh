#!/usr/bin/env bash
# test_openapi.sh -- docs/api.yaml is an OpenAPI 3 document (in the YAML
# subset openapi_check.py parses with the standard library), its
# operations are exactly zkslot-apid's route table (`--routes`), and a
# running apid answers each of them with a route and refuses a path that
# is not there.  About 1 s; no daemons, no pool.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init apid_openapi || exit 77
. "$ZK_SOURCE_DIR/tests/apid/lib_apid.sh"

"$ZKSLOT_APID" --routes >"$PL_W/routes.txt"
[ "$(wc -l <"$PL_W/routes.txt")" -ge 10 ] || pl_bad "--routes printed $(wc -l <"$PL_W/routes.txt") routes"
apid_start
python3 "$ZK_SOURCE_DIR/tests/apid/openapi_check.py" "$ZK_SOURCE_DIR/docs/api.yaml" \
    "$PL_W/routes.txt" "$APID_URL" || pl_bad "docs/api.yaml and the server differ (above)"
# the check itself catches a route missing from the document
grep -v ' /v1/keys$' "$PL_W/routes.txt" >"$PL_W/routes-less.txt"
if python3 "$ZK_SOURCE_DIR/tests/apid/openapi_check.py" "$ZK_SOURCE_DIR/docs/api.yaml" \
    "$PL_W/routes-less.txt" >/dev/null; then
    pl_bad "openapi_check.py accepted a document with an operation the server lacks"
fi
apid_stop
pl_done
