#!/usr/bin/env bash
# test_key_fifo.sh -- a registered key's path that is not a key file any
# more, as a user who registered it could make it:
#   - `zkslot key add` of a FIFO returns at once (exit 2, "not a regular
#     file"), as does a --witness-gen program that is a FIFO;
#   - the key file replaced by a FIFO after its job was submitted: synthd
#     and gpud never block on it (the job fails within its retries, naming
#     the file, and both daemons stay up), and a gpud started with it
#     registered gets ready;
#   - the key path made a symlink to a file of someone else's: the job's
#     error, which its submitter reads, shows none of that file's bytes;
#   - a job's witness swapped for a symlink to another witness after
#     submit: synthd follows no link (the job fails naming the file), so it
#     never proves a witness its submitter could not read.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
pl_init key_fifo || exit 77

pl_circuit bn128 600 2
key="$PL_W/key.zkey"
cp "$PL_KEY" "$key"
"$ZKSLOT" key add k "$key" >/dev/null
"$ZKSLOT" key add k2 "$PL_KEY" >/dev/null
mkfifo "$PL_W/fifo.zkey"
rc=0
timeout 20 "$ZKSLOT" key add f "$PL_W/fifo.zkey" 2>"$PL_W/add.err" || rc=$?
[ "$rc" = 2 ] && grep -q "fifo.zkey: not a regular file" "$PL_W/add.err" ||
    pl_bad "key add of a FIFO: exit $rc (124: it hung): $(cat "$PL_W/add.err")"
printf 'x' >"$PL_W/gen.dat"
mkfifo "$PL_W/gen"
chmod 0755 "$PL_W/gen"
rc=0
timeout 20 "$ZKSLOT" key add g "$key" --witness-cmd "$PL_W/gen {input} {output}" 2>"$PL_W/add.err" || rc=$?
[ "$rc" = 2 ] || pl_bad "key add with a FIFO as the generator: exit $rc (124: it hung): $(cat "$PL_W/add.err")"

# ---- the key's file becomes a FIFO under running daemons ---------------------------
j=$("$ZKSLOT" submit --key k "${PL_WTNS[0]}")
rm -f "$key" && mkfifo "$key"
echo "[zkslot]
max_errors = 1" >"$ZKSLOT_CONFIG"
pl_pool 2
pl_start_synthd
pl_start_gpud
rc=0
"$ZKSLOT" wait "$j" --timeout 60 >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || pl_bad "the job of a key that became a FIFO: wait exit $rc, expected 1 (failed; 3: stuck)"
"$ZKSLOT" status "$j" | grep -F "$key" | grep -q "not a regular file" ||
    pl_bad "the job's error does not name the FIFO: $("$ZKSLOT" status "$j" | tail -n 2)"
kill -0 "$PL_SYNTHD" && kill -0 "$PL_GPUD" || pl_bad "a daemon died on the FIFO"
pl_stop "$PL_GPUD"
: >"$PL_W/gpud2.log"
"$ZKSLOT_GPUD" --backend cpu >"$PL_W/gpud2.log" 2>&1 &
PL_GPUD=$!
PL_GPUD_PIDS+=("$PL_GPUD")
for _ in $(seq 200); do grep -q 'ready:' "$PL_W/gpud2.log" && break; sleep 0.1; done
grep -q 'ready:' "$PL_W/gpud2.log" || pl_bad "a gpud started with the FIFO registered is not ready in 20 s"

# ---- the key path a symlink to another file -------------------------------------------
printf 'SECRET-BYTES-OF-A-FILE-THE-SUBMITTER-CANNOT-READ\n' >"$PL_W/secret"
chmod 0600 "$PL_W/secret"
pl_stop "$PL_GPUD"
pl_stop "$PL_SYNTHD"
rm -f "$key" && cp "$PL_KEY" "$key"
j=$("$ZKSLOT" submit --key k "${PL_WTNS[0]}")   # submit reads the key: a real one
rm -f "$key" && ln -s "$PL_W/secret" "$key"
pl_start_synthd
pl_start_gpud
rc=0
"$ZKSLOT" wait "$j" --timeout 60 >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || pl_bad "the job of a key made a symlink: wait exit $rc, expected 1 (failed)"
err=$("$ZKSLOT" status "$j" --json)
grep -q "SECR\|\\\\x53" <<<"$err" && pl_bad "the job's error shows the linked file's bytes: $(grep -o '"error": "[^"]*' <<<"$err" | head -1)"
grep -q "$key" <<<"$err" || pl_bad "the job's error does not name the key file: $err"

# ---- a job's witness swapped for a symlink after submit -----------------------------
pl_stop "$PL_GPUD"
pl_stop "$PL_SYNTHD"
cp "${PL_WTNS[0]}" "$PL_W/mine.wtns"
j=$("$ZKSLOT" submit --key k2 "$PL_W/mine.wtns")
rm -f "$PL_W/mine.wtns" && ln -s "${PL_WTNS[1]}" "$PL_W/mine.wtns"   # another's witness
pl_start_synthd
pl_start_gpud
rc=0
"$ZKSLOT" wait "$j" --timeout 60 >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || pl_bad "the job whose witness became a symlink: wait exit $rc, expected 1 (failed: synthd read through the link)"
"$ZKSLOT" status "$j" | grep -F "mine.wtns" | grep -q "symlink" ||
    pl_bad "the job's error does not name the swapped witness: $("$ZKSLOT" status "$j" | tail -n 2)"
pl_done
