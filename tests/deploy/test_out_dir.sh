#!/usr/bin/env bash
# test_out_dir.sh -- `submit --out DIR` cannot make gpud write where the
# submitter may not, with real users: the daemons run as D, an operator O
# is in D's group.  Checks:
#   - --out naming a symlink to a directory of D's (0700): refused at
#     submit, exit 2, "nothing submitted", no job made;
#   - --out naming a directory of D's that O may search but not write,
#     with a partition directory 0/ in it already: refused at submit;
#   - --out made by O's submit, then replaced by O (while the job waits)
#     with a symlink to a directory of D's: gpud writes nothing there, the
#     partition fails naming the directory;
#   - an --out of O's own still gets its proof.
# Needs root, useradd/userdel, setpriv and sqlite3 (77 otherwise).
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init out sqlite3

mkdir -p "$W/in" && cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,vk.json,witness-1.wtns} "$W/in/"
chmod -R a+rX "$W/in"
WT=$W/in/witness-1.wtns
install -d -m 2770 -o "$DU" -g "$DU" "$W/state"
as "$DU" 0007 "$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >"$W/pool.log" 2>&1 ||
    { bad "pool create as $DU"; exit 1; }
(umask 0022; "$ZKSLOT" key add k "$W/in/key.zkey") >"$W/key.log" 2>&1 || bad "key add: $(cat "$W/key.log")"
zku_apid   # O's CLI reaches the ledger through it
# D's directories: one private, one O may search but not write (with a 0/)
install -d -m 0700 -o "$DU" -g "$DU" "$W/state/private"
install -d -m 0755 -o "$DU" -g "$DU" "$W/state/readonly" "$W/state/readonly/0"
install -d -m 0755 -o "$OU" -g "$OU" "$W/op" "$W/op/mal"
as "$OU" 0022 ln -s "$W/state/private" "$W/op/link"

njobs() { sqlite3 "$W/state/ledger.db" "SELECT count(*) FROM jobs"; }
before=$(njobs)
for out in "$W/op/link" "$W/state/readonly"; do
    rc=0
    as "$OU" 0022 "$ZKSLOT" submit --key k --out "$out" "$WT" >"$W/submit.log" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "nothing submitted" "$W/submit.log" && [ "$(njobs)" = "$before" ] &&
        echo "--out ${out#$W/} refused at submit: $(cat "$W/submit.log")" ||
        bad "--out ${out#$W/}: exit $rc, jobs $before -> $(njobs): $(cat "$W/submit.log")"
done

# a job whose --out O swaps for a link before gpud writes
j=$(as "$OU" 0022 "$ZKSLOT" submit --key k --out "$W/op/mal/o" "$WT" 2>"$W/submit-mal.log") ||
    bad "submit --out op/mal/o: $(cat "$W/submit-mal.log")"
as "$OU" 0022 mv "$W/op/mal/o" "$W/op/mal/o.moved"
as "$OU" 0022 ln -s "$W/state/private" "$W/op/mal/o"
jok=$(as "$OU" 0022 "$ZKSLOT" submit --key k --out "$W/op/ok" "$WT" 2>"$W/submit-ok.log") ||
    bad "submit --out op/ok: $(cat "$W/submit-ok.log")"
zku_daemon "$W/synthd.log" "$ZKSLOT_SYNTHD" --workers 1
zku_daemon "$W/gpud.log" "$ZKSLOT_GPUD" --backend cpu --threads 2 --max-errors 1
# ready before O's `wait` opens the ledger (a -shm made by O meanwhile
# would be O's until its mode is fixed: the daemons would find it read-only)
zku_ready
for jj in ${j:-} ${jok:-}; do
    rc=0
    as "$OU" 0022 "$ZKSLOT" wait "$jj" --timeout $((120 * slow)) >"$W/wait.log" 2>&1 || rc=$?
    [ "$jj" = "${j:-}" ] && want=1 || want=0
    [ $rc = $want ] || bad "job $jj: wait exit $rc, expected $want: $(tail -n 2 "$W/wait.log")"
done
[ -z "$(ls -A "$W/state/private")" ] && echo "swapped --out: gpud wrote nothing through the link" ||
    bad "gpud wrote into D's private directory through the swapped --out: $(ls -R "$W/state/private")"
grep -q "op/mal/o/0: cannot open the output directory" "$W/gpud.log" ||
    bad "gpud did not say why it refused op/mal/o/0"
"$ZKSLOT" verify "$W/in/vk.json" "$W/op/ok/0/public.json" "$W/op/ok/0/proof.json" >/dev/null 2>&1 &&
    echo "--out of the operator's own: proof verified" || bad "--out op/ok: no proof that verifies"
[ $fail = 0 ] && echo "out_dir: ok"
exit $fail
