#!/usr/bin/env bash
# test_inputs_sealed.sh -- a circuit input is readable by its submitter and
# the daemons only (zk/seal.h), with real users on a SQLite ledger: the
# daemons run as D, operators O (the victim) and A (another operator) are
# in D's group, [ledger] keep_inputs = 3600 keeps the input after the job.
# The key's generator (beneath [synthd] generators) succeeds only when
# its input holds O's secret, and counts its runs.  Checks:
#   - O's submit before any synthd ran goes through zkslot-apid, a daemon
#     (user D), which makes the daemons' key pair: input-seal.key 0600 and
#     input-seal.pub 0644, both D's (O never makes it); A cannot read the
#     private key;
#   - a public key A planted in its place (A may rename files in the
#     group's state directory) is refused by O's submit, nothing submitted;
#   - O's job proves (synthd opened the sealed input; the proof verifies);
#   - A cannot open the ledger (the daemons' alone, 0600), not even to
#     read it; every byte of ledger.db and its -wal (read as root) holds
#     no trace of the secret; the sealed input is there;
#   - A's attempt to paste O's sealed input into a job of A's own (sqlite3
#     UPDATE) is refused: A cannot open the ledger;
#   - the same paste by root (who may write the ledger), while no synthd
#     runs: synthd refuses it with one line naming both partitions, the
#     generator never runs for it, A's job fails.
# The operators' CLI goes through zkslot-apid's socket (started as D).
# Needs root, useradd/userdel, setpriv and sqlite3 (77 otherwise).
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init seal sqlite3
zku_user AU a "$DU"

secret=$(python3 -c 'print(7**80 + 3)')
mkdir -p "$W/in" && cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,vk.json,witness-1.wtns} "$W/in/"
chmod -R a+rX "$W/in"
install -d -m 0700 -o "$OU" -g "$OU" "$W/victim"
printf '{"x": "%s"}\n' "$secret" >"$W/victim/in.json"
chown "$OU" "$W/victim/in.json" && chmod 0600 "$W/victim/in.json"
echo '{"x": "5"}' >"$W/in/mine.json" && chmod 0644 "$W/in/mine.json"
# the generator: the example witness, only for an input holding the secret
install -d -m 0755 "$W/gens"
cat >"$W/gens/check.sh" <<EOF
#!/bin/sh
echo run >>"$W/gen-runs"
grep -q -F "$secret" "\$1" || { echo "not the secret input" >&2; exit 3; }
exec cp "$W/in/witness-1.wtns" "\$2"
EOF
chmod 0755 "$W/gens/check.sh"
touch "$W/gen-runs" && chown "$DU" "$W/gen-runs"
printf '[synthd]\ngenerators = %s\n[ledger]\nkeep_inputs = 3600\n' "$W/gens" >"$ZKSLOT_CONFIG"
install -d -m 2770 -o "$DU" -g "$DU" "$W/state"
as "$DU" 0007 "$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >"$W/pool.log" 2>&1 ||
    { bad "pool create as $DU"; exit 1; }
(umask 0022; "$ZKSLOT" key add k "$W/in/key.zkey" --witness-cmd "$W/gens/check.sh {input} {output}") \
    >"$W/key.log" 2>&1 || bad "key add: $(cat "$W/key.log")"
L=$W/state/ledger.db
runs() { wc -l <"$W/gen-runs"; }
zku_apid

# ---- no key pair yet: the daemons' apid makes it, never the operator -----------------
e=$(as "$OU" 0022 "$ZKSLOT" submit --key k --input "$W/victim/in.json" 2>"$W/early.log") ||
    bad "submit before any synthd: $(cat "$W/early.log")"
[ "$(stat -c '%a %U' "$W/state/input-seal.key" 2>/dev/null)" = "600 $DU" ] &&
    echo "before synthd: job $e queued, the key pair made by $DU (zkslot-apid)" ||
    bad "before synthd: the key pair is '$(stat -c '%a %U' "$W/state/input-seal.key" 2>&1)'"

zku_daemon "$W/synthd.log" "$ZKSLOT_SYNTHD" --workers 1
SPID=${PIDS[-1]}
zku_daemon "$W/gpud.log" "$ZKSLOT_GPUD" --backend cpu --threads 2 --max-errors 1
zku_ready
for f in input-seal.key:600 input-seal.pub:644; do
    m=$(stat -c '%a %U' "$W/state/${f%:*}" 2>/dev/null)
    [ "$m" = "${f#*:} $DU" ] || bad "${f%:*} is '${m:-missing}', expected '${f#*:} $DU'"
done
! as "$AU" 0022 cat "$W/state/input-seal.key" >/dev/null 2>&1 || bad "$AU reads the private key"

# ---- a public key planted by the other operator is not trusted ------------------------
as "$AU" 0022 mv "$W/state/input-seal.pub" "$W/state/moved.pub"
as "$AU" 0022 sh -c "head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >'$W/state/input-seal.pub'; echo >>'$W/state/input-seal.pub'"
njobs() { sqlite3 -readonly "$L" "SELECT count(*) FROM jobs"; }
before=$(njobs) rc=0
as "$OU" 0022 "$ZKSLOT" submit --key k --input "$W/victim/in.json" >"$W/planted.log" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "input-seal.pub: owned by uid $(id -u "$AU").*refused; nothing submitted" "$W/planted.log" &&
    [ "$(njobs)" = "$before" ] && echo "planted public key: $(cat "$W/planted.log")" ||
    bad "submit with a planted public key: exit $rc, jobs $before -> $(njobs): $(cat "$W/planted.log")"
rm -f "$W/state/input-seal.pub" && mv "$W/state/moved.pub" "$W/state/input-seal.pub"

# ---- the victim's job proves ---------------------------------------------------------
j=$(as "$OU" 0022 "$ZKSLOT" submit --key k --input "$W/victim/in.json" 2>"$W/submit.log") ||
    bad "submit as $OU: $(cat "$W/submit.log")"
as "$OU" 0022 "$ZKSLOT" wait "${j:-0}" --timeout $((60 * slow)) >"$W/wait.log" 2>&1 ||
    bad "job ${j:-?} of $OU: $(tail -n 2 "$W/wait.log")"
"$ZKSLOT" verify "$W/in/vk.json" "$W/state/jobs/${j:-0}/0/public.json" \
    "$W/state/jobs/${j:-0}/0/proof.json" >/dev/null 2>&1 &&
    echo "job $j of $OU proved from its sealed input" || bad "job ${j:-?}: no proof that verifies"

# ---- what the other operator reads in the ledger: nothing ------------------------------
as "$AU" 0022 sqlite3 -readonly "$L" "SELECT CAST(input AS TEXT) FROM partitions" >"$W/a-read.txt" 2>&1 &&
    bad "$AU read the ledger: $(head -c 200 "$W/a-read.txt")"
as "$AU" 0022 sh -c "cat '$L' '$L-wal'" >"$W/a-bytes" 2>/dev/null && bad "$AU read the ledger's bytes"
sqlite3 -readonly "$L" "SELECT CAST(input AS TEXT) FROM partitions" >"$W/root-read.txt" 2>&1
cat "$L" "$L-wal" >"$W/root-bytes" 2>/dev/null
grep -a -q -F zkseal1 "$W/root-read.txt" || bad "control: the ledger holds no sealed input"
! grep -a -q -F "$secret" "$W/root-read.txt" "$W/root-bytes" &&
    echo "$AU cannot open the ledger ($(head -n 1 "$W/a-read.txt")); its bytes hold a sealed input, no secret" ||
    bad "$OU's secret input is in the ledger in clear"

# ---- the other operator pastes the sealed input into a job of his own ------------------
kill -TERM "$SPID"
for ((i = 0; i < 100 * slow; i++)); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
mj=$(as "$AU" 0022 "$ZKSLOT" submit --key k --input "$W/in/mine.json" 2>"$W/submit-a.log") ||
    bad "submit as $AU: $(cat "$W/submit-a.log")"
as "$AU" 0022 sqlite3 "$L" "UPDATE partitions SET input = (SELECT input FROM partitions WHERE
    job_id = ${j:-0}) WHERE job_id = ${mj:-0}" >"$W/a-paste.log" 2>&1 &&
    bad "$AU pasted $OU's input into the ledger"
grep -q "unable to open database file" "$W/a-paste.log" || bad "$AU's paste: $(cat "$W/a-paste.log")"
sqlite3 "$L" "UPDATE partitions SET input = (SELECT input FROM partitions WHERE
    job_id = ${j:-0}) WHERE job_id = ${mj:-0}" || bad "root could not paste the input"
runs0=$(runs)
mv "$W/synthd.log" "$W/synthd-1.log"
zku_daemon "$W/synthd.log" "$ZKSLOT_SYNTHD" --workers 1
rc=0
as "$AU" 0022 "$ZKSLOT" wait "${mj:-0}" --timeout $((60 * slow)) >"$W/wait-a.log" 2>&1 || rc=$?
line="sealed for partition 0 of job ${j:-0}, not partition 0 of job ${mj:-0}: refused"
[ $rc = 1 ] && grep -q "$line" "$W/synthd.log" && [ "$(runs)" = "$runs0" ] &&
    echo "pasted input refused: $(grep -m1 "$line" "$W/synthd.log")" ||
    bad "pasted input: wait exit $rc, generator runs $runs0 -> $(runs): $(grep -m1 "job ${mj:-0}" "$W/synthd.log")"
[ -e "$W/state/jobs/${mj:-0}/0/public.json" ] && bad "$AU's job got a public.json from $OU's input"
[ $fail = 0 ] && echo "inputs_sealed: ok"
exit $fail
