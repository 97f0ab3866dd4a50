#!/usr/bin/env bash
# test_single_writer.sh -- issue 46: the SQLite ledger is written only by
# the daemons, with real users.  The daemons (synthd, gpud, zkslot-apid)
# run as D; operators O and P are in D's group.  Checks:
#   - a ledger made 0660 (as an older zkslot made it) is 0600 once
#     zkslot-apid has started, which says so in one line; while a process
#     of O holds -wal/-shm of O's, apid does not start (one line naming
#     the file); after O's process is killed (its files left behind) apid
#     removes them and starts;
#   - without zkslot-apid an operator's `zkslot status` is one line naming
#     the state directory's socket and what to start;
#   - an operator cannot open the ledger, its -wal or -shm for writing
#     (open(2) and sqlite3 refused): the two attacks of the issue, replayed
#     as O while the daemons run: (1) P's proof, public signals and
#     statement copied onto O's job, then `zkslot result` of O's job;
#     (2) O's own sealed input (the daemons' public key) written into P's
#     queued partition: both writes refused, O's result is O's own, P's
#     job proves from P's input (its generator saw P's secret only);
#   - O's `zkslot submit`, `status`, `wait`, `result`, `cancel` work with
#     no flag (through the socket); P cannot see, fetch or cancel O's
#     job, each refusal one line naming the rule, nor through apid's
#     loopback port (curl as P: 403); P's `status` lists P's jobs only;
#     `top --once` as O shows the pool and says why no jobs;
#   - a socket O leaves at the state directory's api.sock (apid stopped):
#     P's `zkslot status` refuses it in one line and never connects.
# Needs root, useradd/userdel, setpriv, sqlite3, python3 and curl (77 otherwise).
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZKSLOT_APID:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init sw sqlite3 python3 curl
zku_user PU p "$DU"

secret=$(python3 -c 'print(7**80 + 3)')
mkdir -p "$W/in" && cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,vk.json,witness-1.wtns,witness-2.wtns} "$W/in/"
chmod -R a+rX "$W/in"
W1=$W/in/witness-1.wtns W2=$W/in/witness-2.wtns
install -d -m 0700 -o "$PU" -g "$PU" "$W/p"
install -d -m 0700 -o "$OU" -g "$OU" "$W/o"
printf '{"x": "%s"}\n' "$secret" >"$W/p/in.json"
chown "$PU" "$W/p/in.json" && chmod 0600 "$W/p/in.json"
echo '{"x": "5"}' >"$W/in/mine.json" && chmod 0644 "$W/in/mine.json"
# the generator: the example witness, each input it saw kept
install -d -m 0755 "$W/gens"
cat >"$W/gens/gen.sh" <<EOF
#!/bin/sh
cat "\$1" >>"$W/gen-seen"
exec cp "$W/in/witness-1.wtns" "\$2"
EOF
chmod 0755 "$W/gens/gen.sh"
touch "$W/gen-seen" && chown "$DU" "$W/gen-seen"
printf '[synthd]\ngenerators = %s\n' "$W/gens" >"$ZKSLOT_CONFIG"
install -d -m 3770 -o "$DU" -g "$DU" "$W/state"
as "$DU" 0007 "$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >"$W/pool.log" 2>&1 ||
    { bad "pool create as $DU: $(cat "$W/pool.log")"; exit 1; }
as "$DU" 0007 "$ZKSLOT" key add k "$W/in/key.zkey" >"$W/key.log" 2>&1 || bad "key add: $(cat "$W/key.log")"
as "$DU" 0007 "$ZKSLOT" key add kin "$W/in/key.zkey" --witness-cmd "$W/gens/gen.sh {input} {output}" \
    >>"$W/key.log" 2>&1 || bad "key add kin: $(cat "$W/key.log")"
L=$W/state/ledger.db
as "$DU" 0007 chmod 0660 "$L"   # as an older zkslot made it

# ---- no zkslot-apid: one line naming the socket --------------------------------------
rc=0; as "$OU" 0022 "$ZKSLOT" status >"$W/noapid.log" 2>&1 || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$W/noapid.log")" = 1 ] &&
    grep -q "$W/state/api.sock: start it" "$W/noapid.log" && echo "no apid: $(cat "$W/noapid.log")" ||
    bad "an operator's status without zkslot-apid: exit $rc: $(cat "$W/noapid.log")"

# ---- O's process holds -wal/-shm of its own: no daemon starts until it is gone ---------
PY=$(command -v /usr/bin/python3 || command -v python3)   # one O may run (not root's shims)
(umask 0007; exec setpriv --reuid="$OU" --regid="$OU" --init-groups -- "$PY" -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1]); c.execute("SELECT count(*) FROM jobs").fetchall()
open(sys.argv[2], "w").close(); time.sleep(60)' "$L" "$W/o/held") &   # its pid is $!
HOLD=$!; PIDS+=("$HOLD")
for ((i = 0; i < 50 * slow; i++)); do [ -e "$W/o/held" ] && break; sleep 0.1; done
[ "$(stat -c %U "$L-shm" 2>/dev/null)" = "$OU" ] || bad "control: O's -shm is '$(stat -c %U "$L-shm" 2>&1)'"
rc=0; as "$DU" 0007 "$ZKSLOT_APID" --listen 127.0.0.1:0 --check-config >"$W/held.log" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "ledger.db-[ws][ah][lm]: uid $(id -u "$OU")'s.*still open" "$W/held.log" &&
    echo "held: $(tail -n 1 "$W/held.log" | cut -c1-160)" || bad "apid with O's -wal/-shm held: exit $rc: $(cat "$W/held.log")"
kill -9 "$HOLD"; wait "$HOLD" 2>/dev/null   # they stay behind, O's

# ---- the daemons start: the ledger is made theirs alone -------------------------------
zku_apid
m=$(stat -c '%a %U' "$L")
[ "$m" = "600 $DU" ] && grep -q "ledger $L: mode 0660 -> 0600" "$W/apid.log" &&
    echo "migrated: $(grep -o "ledger $L: mode 0660 -> 0600[^;]*" "$W/apid.log")" ||
    bad "after zkslot-apid started the ledger is '$m' ($(grep -c 'mode 0660' "$W/apid.log") log lines)"
for f in "$L-wal" "$L-shm"; do
    [ ! -e "$f" ] || [ "$(stat -c '%a %U' "$f")" = "600 $DU" ] || bad "$f after the start: $(stat -c '%a %U' "$f")"
done

# ---- through the socket, no flag: O's job, P refused -----------------------------------
jq=$(as "$OU" 0022 "$ZKSLOT" submit --key k "$W1" 2>"$W/submit-q.log") ||
    bad "O's submit without flags: $(cat "$W/submit-q.log")"
as "$OU" 0022 "$ZKSLOT" status "${jq:-0}" >"$W/status-q.log" 2>&1 && grep -q queued "$W/status-q.log" ||
    bad "O's status of job $jq: $(cat "$W/status-q.log")"
for c in status result cancel; do
    rc=0; as "$PU" 0022 "$ZKSLOT" $c "${jq:-0}" >"$W/p-$c.log" 2>&1 || rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$W/p-$c.log")" = 1 ] && grep -q "job ${jq:-0} is not yours" "$W/p-$c.log" ||
        bad "P's $c of O's job $jq: exit $rc: $(cat "$W/p-$c.log")"
done
echo "P refused: $(cat "$W/p-cancel.log")"
# nor around the socket through apid's loopback port (no token file there)
URL=$(sed -n 's|.*serving \(http://127.0.0.1:[0-9]*\).*|\1|p' "$W/apid.log" | head -n 1)
for m in GET DELETE; do
    code=$(as "$PU" 0022 curl -s -m 5 -o "$W/p/tcp.json" -w '%{http_code}' -X $m "$URL/v1/jobs/${jq:-0}")
    [ "$code" = 403 ] && grep -q "is not yours" "$W/p/tcp.json" ||
        bad "P's $m of O's job $jq over loopback TCP ($URL): $code $(cat "$W/p/tcp.json")"
done
jp=$(as "$PU" 0022 "$ZKSLOT" submit --key k "$W2" 2>"$W/submit-p.log") || bad "P's submit: $(cat "$W/submit-p.log")"
as "$PU" 0022 "$ZKSLOT" status --json >"$W/p-list.json" 2>&1 || bad "P's status: $(cat "$W/p-list.json")"
ids=$(python3 -c 'import json,sys; print(" ".join(str(j["id"]) for j in json.load(open(sys.argv[1]))["jobs"]))' "$W/p-list.json" 2>&1)
[ "$ids" = "${jp:-x}" ] || bad "P's status lists jobs '$ids', expected P's own (${jp:-?})"
as "$OU" 0022 "$ZKSLOT" cancel "${jq:-0}" >"$W/cancel-q.log" 2>&1 || bad "O's cancel: $(cat "$W/cancel-q.log")"
st=$("$ZKSLOT" status "${jq:-0}" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
[ "$st" = canceled ] || bad "O's job $jq is $st after O's cancel"

# ---- the daemons prove; O's views ------------------------------------------------------
zku_daemon "$W/synthd.log" "$ZKSLOT_SYNTHD" --workers 1
SPID=$DPID
zku_daemon "$W/gpud.log" "$ZKSLOT_GPUD" --backend cpu --threads 2
zku_ready
as "$OU" 0022 "$ZKSLOT" top --once >"$W/top.log" 2>&1 && grep -q "^pool" "$W/top.log" &&
    grep -q "the daemons' alone" "$W/top.log" || bad "O's top --once: $(head -n 4 "$W/top.log")"
jo=$(as "$OU" 0022 "$ZKSLOT" submit --key k "$W1" 2>"$W/submit-o.log") || bad "O's submit: $(cat "$W/submit-o.log")"
for j in "${jo:-0}" "${jp:-0}"; do
    "$ZKSLOT" wait "$j" --timeout $((120 * slow)) >"$W/wait.log" 2>&1 || bad "job $j: $(tail -n 2 "$W/wait.log")"
done
as "$OU" 0022 "$ZKSLOT" wait "${jo:-0}" --timeout 10 >"$W/wait-o.log" 2>&1 || bad "O's wait: $(cat "$W/wait-o.log")"
as "$OU" 0022 "$ZKSLOT" result "${jo:-0}" >"$W/result-o.txt" 2>"$W/result-o.log" &&
    [ "$(cat "$W/result-o.txt")" = "$W/state/jobs/$jo/0/proof.json $W/state/jobs/$jo/0/public.json" ] ||
    bad "O's result of job $jo: $(cat "$W/result-o.txt" "$W/result-o.log")"
pub_o=$(cat "$W/state/jobs/${jo:-0}/0/public.json" 2>/dev/null)

# ---- the ledger is not the operator's to open for writing ----------------------------
for f in "$L" "$L-wal" "$L-shm"; do
    [ -e "$f" ] || continue
    out=$(as "$OU" 0022 sh -c 'exec 3<>"$1"' sh "$f" 2>&1) && bad "O opened $f for writing"
    echo "$out" | grep -q "Permission denied" || bad "O's open of $f: $out"
done

# ---- attack 1: P's result copied onto O's job ------------------------------------------
rc=0
as "$OU" 0022 sqlite3 "$L" "UPDATE partitions SET statement = (SELECT statement FROM partitions
    WHERE job_id = ${jp:-0}), proof_json = (SELECT proof_json FROM partitions WHERE job_id = ${jp:-0}),
    public_json = (SELECT public_json FROM partitions WHERE job_id = ${jp:-0})
    WHERE job_id = ${jo:-0}" >"$W/attack1.log" 2>&1 || rc=$?
[ $rc != 0 ] && grep -q "unable to open database file\|readonly" "$W/attack1.log" &&
    echo "attack 1 refused: $(head -n 1 "$W/attack1.log")" || bad "attack 1: sqlite3 exit $rc: $(cat "$W/attack1.log")"
as "$OU" 0022 "$ZKSLOT" result "${jo:-0}" --out "$W/o/res" >"$W/result-o2.log" 2>&1 &&
    [ "$(cat "$W/o/res/0/public.json" 2>/dev/null | tr -d ' \n')" = "$(echo "$pub_o" | tr -d ' \n')" ] ||
    bad "O's result after attack 1 is not O's own: $(cat "$W/result-o2.log")"

# ---- attack 2: O's sealed input into P's queued partition -------------------------------
kill -TERM "$SPID"
for ((i = 0; i < 100 * slow; i++)); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
jv=$(as "$PU" 0022 "$ZKSLOT" submit --key kin --input "$W/p/in.json" 2>"$W/submit-v.log") ||
    bad "P's input job: $(cat "$W/submit-v.log")"
rc=0
as "$OU" 0022 sqlite3 "$L" "UPDATE partitions SET input = X'7a6b7365616c31' WHERE job_id = ${jv:-0}" \
    >"$W/attack2.log" 2>&1 || rc=$?
[ $rc != 0 ] && grep -q "unable to open database file\|readonly" "$W/attack2.log" &&
    echo "attack 2 refused: $(head -n 1 "$W/attack2.log")" || bad "attack 2: sqlite3 exit $rc: $(cat "$W/attack2.log")"
mv "$W/synthd.log" "$W/synthd-1.log"
zku_daemon "$W/synthd.log" "$ZKSLOT_SYNTHD" --workers 1
as "$PU" 0022 "$ZKSLOT" wait "${jv:-0}" --timeout $((120 * slow)) >"$W/wait-v.log" 2>&1 ||
    bad "P's input job $jv: $(cat "$W/wait-v.log")"
grep -q -F "$secret" "$W/gen-seen" && [ "$(grep -c . "$W/gen-seen")" = 1 ] ||
    bad "the generator saw: $(head -c 300 "$W/gen-seen")"
m=$(stat -c '%a %U' "$L")
[ "$m" = "600 $DU" ] || bad "at the end the ledger is '$m'"

# ---- a socket O leaves in the state directory: P's CLI sends it nothing -------------------
kill -TERM "$APID"; wait "$APID" 2>/dev/null
(umask 0007; exec setpriv --reuid="$OU" --regid="$OU" --init-groups -- "$PY" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
open(sys.argv[2] + ".up", "w").close()
while True:
    c, _ = s.accept(); open(sys.argv[2], "a").write("connection\n"); c.close()' \
    "$W/state/api.sock" "$W/o/fake") &
PIDS+=("$!")
for ((i = 0; i < 50 * slow; i++)); do [ -e "$W/o/fake.up" ] && break; sleep 0.1; done
rc=0; as "$PU" 0022 "$ZKSLOT" status >"$W/fake.log" 2>&1 || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$W/fake.log")" = 1 ] && grep -q "not zkslot-apid's socket.*refused, nothing sent" "$W/fake.log" &&
    [ ! -e "$W/o/fake" ] && echo "planted socket: $(cat "$W/fake.log")" ||
    bad "P's status with O's socket planted: exit $rc: $(cat "$W/fake.log") ($(cat "$W/o/fake" 2>/dev/null))"

[ $fail = 0 ] && echo "single_writer: ok"
exit $fail
