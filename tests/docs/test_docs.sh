#!/usr/bin/env bash
# test_docs.sh -- the docs are tested: every shell command shown in
# README.md and docs/*.md is run here, or its block is marked as not
# runnable here, and a transcript's quoted output is compared with the
# program's (tests/docs/doccheck.py says how blocks are marked; docs/README.md
# repeats it for writers).  Every zkslot command line, run or not, in a
# block or an inline code span, has its subcommands and --flags checked
# against the program's own usage, so a renamed flag or a changed message
# fails here instead of misleading an operator.
#   The commands run against a private world: ZKSLOT_STATE_DIR, ZKSLOT_CONFIG
# and a tmpfs ZKSLOT_POOL of this test, the build's binaries first on PATH,
# and the docs' machine paths (/srv/..., /data/..., /etc/zkslot/...) under
# $W/root, where the fixtures below live.  synthd and gpud (CPU backend) run
# in the background, so that "Submit and collect" really proves its job.
# A doc that names a new /srv or /data file needs a fixture here.
set -u
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 77; }
W="${ZK_BUILD_DIR:-/tmp}/docs-work"
rm -rf "$W" && mkdir -p "$W/bin" "$W/cwd" "$W/state" "$W/root/srv/keys" \
    "$W/root/data/sector-42" "$W/root/etc/zkslot" || exit 1
synthd= gpud=
cleanup() {
    local rc=$?
    [ -z "$gpud" ] || kill -9 "$gpud" 2>/dev/null
    [ -z "$synthd" ] || kill -9 "$synthd" 2>/dev/null
    wait 2>/dev/null
    "$ZKSLOT" pool destroy --force >/dev/null 2>&1
    rm -f "$ZKSLOT_POOL" "$ZKSLOT_POOL".data
    if [ "$rc" = 0 ]; then rm -rf "$W"; else
        for f in "$W"/*.log; do echo "==> $f (tail)"; tail -n 20 "$f"; done
    fi
    exit "$rc"
}
trap cleanup EXIT
ln -s "$ZKSLOT" "$W/bin/zkslot"
ln -s "$ZKSLOT_SYNTHD" "$W/bin/zkslot-synthd"
ln -s "$ZKSLOT_GPUD" "$W/bin/zkslot-gpud"
export ZKSLOT_STATE_DIR=$W/state ZKSLOT_CONFIG=$W/root/etc/zkslot/zkslot.conf
export ZKSLOT_POOL=/dev/shm/zkslot-test-docs-$$.pool
: >"$ZKSLOT_CONFIG"

# Fixtures: the docs' example files, made of the bundled bn128 example.
ex=$ZK_SOURCE_DIR/examples/groth16/bn128
cp "$ex/key.zkey" "$W/root/srv/keys/porep.zkey" || exit 1
for i in 1 2 3 4; do
    cp "$ex/witness-$i.wtns" "$W/root/data/sector-42/p$((i - 1)).wtns" || exit 1
done

"$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >/dev/null || { echo "FAIL: pool create"; exit 1; }
"$ZKSLOT_SYNTHD" --workers 1 >"$W/synthd.log" 2>&1 &
synthd=$!
"$ZKSLOT_GPUD" --backend cpu --threads 1 >"$W/gpud.log" 2>&1 &
gpud=$!

python3 "$ZK_SOURCE_DIR/tests/docs/doccheck.py" "$ZK_SOURCE_DIR" "$W" "$W/bin"
rc=$?
for p in "$synthd" "$gpud"; do    # both alive all along, and stop cleanly
    kill -TERM "$p" 2>/dev/null || { echo "FAIL: daemon $p died during the docs' commands"; rc=1; }
    st=0; wait "$p" || st=$?
    [ "$st" = 0 ] || { echo "FAIL: daemon $p: exit $st after SIGTERM"; rc=1; }
done
synthd= gpud=
exit "$rc"
