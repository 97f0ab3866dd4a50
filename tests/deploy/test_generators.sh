#!/usr/bin/env bash
# test_generators.sh -- who decides what synthd runs, with real users on a
# SQLite ledger: the daemons run as a daemon user D, an operator O is in
# D's group, the machine's configuration says `[synthd] generators =
# W/gens` (root's directory, 0755).  Checks:
#   - O's `key add` with a generator (a --witness-cmd running sh, and a
#     program of O's own with its .dat) is refused, exit 2, one line naming
#     the rule; nothing is registered;
#   - root registers a key whose command is `sh -c ...` (a note says this
#     machine does not run it), and plants the same command into another
#     key's ledger row (sqlite3 UPDATE, as whoever can write the ledger
#     could): O submits jobs of both, synthd never runs the command (the
#     file it would write is absent), does not claim either key (one log
#     line each, naming the key and [synthd] generators), and their jobs
#     wait, queued;
#   - a generator beneath W/gens (a script writing the example witness)
#     runs as D and its job's proof verifies;
#   - the generator's environment is the fixed one: none of synthd's
#     variables (a ZKSLOT_TEST_SECRET given to synthd) reaches it.
# Needs root, useradd/userdel, setpriv and sqlite3 (77 otherwise).
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init gen sqlite3
start_daemon() {   # start_daemon LOG CMD...: as D, with a variable only the daemons have
    ZKSLOT_TEST_SECRET=daemon-only zku_daemon "$@"
}

mkdir -p "$W/in" && cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,vk.json,witness-1.wtns} "$W/in/"
chmod -R a+rX "$W/in"
echo '{"x": "1"}' >"$W/in/input.json"
chmod 0644 "$W/in/input.json"
# the machine's generators: root's directory, a script that writes the example witness
install -d -m 0755 "$W/gens"
cat >"$W/gens/example.sh" <<EOF
#!/bin/sh
env >"$W/gens-env.txt" 2>/dev/null || true
exec cp "$W/in/witness-1.wtns" "\$2"
EOF
chmod 0755 "$W/gens/example.sh"
touch "$W/gens-env.txt" && chown "$DU" "$W/gens-env.txt"
printf '[synthd]\ngenerators = %s\n' "$W/gens" >"$ZKSLOT_CONFIG"
chmod 0644 "$ZKSLOT_CONFIG"
install -d -m 2770 -o "$DU" -g "$DU" "$W/state"
install -d -m 0755 -o "$OU" -g "$OU" "$W/op"
as "$DU" 0007 "$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >"$W/pool.log" 2>&1 ||
    { bad "pool create as $DU"; exit 1; }

# ---- root registers; the operator may not register generators -------------------------
(umask 0022
 "$ZKSLOT" key add good "$W/in/key.zkey" --witness-cmd "$W/gens/example.sh {input} {output}" &&
 "$ZKSLOT" key add planted "$W/in/key.zkey" --witness-cmd "$W/gens/example.sh {input} {output}" &&
 "$ZKSLOT" key add evil "$W/in/key.zkey" \
     --witness-cmd "sh -c 'id >$W/pwned-evil; exit 1' {input} {output}") >"$W/key-root.log" 2>&1 ||
    bad "key add as root: $(cat "$W/key-root.log")"
grep -q "note: this machine's synthd does not run it" "$W/key-root.log" ||
    bad "key add of a command outside [synthd] generators said nothing: $(cat "$W/key-root.log")"
sqlite3 "$W/state/ledger.db" "UPDATE keys SET witgen_kind = e.witgen_kind, witgen = e.witgen,
    witgen_hash = e.witgen_hash FROM (SELECT * FROM keys WHERE name = 'evil') AS e
    WHERE keys.name = 'planted';" || bad "planting the generator"
sqlite3 "$W/state/ledger.db" "SELECT witgen FROM keys WHERE name = 'planted'" | grep -q "^sh -c" ||
    bad "the planted row does not hold the command"

printf '#!/bin/sh\nid >%s/pwned-op\n' "$W" >"$W/op/gen" && printf x >"$W/op/gen.dat"
chown "$OU" "$W/op/gen" "$W/op/gen.dat" && chmod 0755 "$W/op/gen"
for how in cmd gen; do
    if [ $how = cmd ]; then args=(--witness-cmd "sh -c 'id >$W/pwned-op; exit 1' {input} {output}")
    else args=(--witness-gen "$W/op/gen"); fi
    rc=0
    as "$OU" 0022 "$ZKSLOT" key add "op-$how" "$W/in/key.zkey" "${args[@]}" >"$W/key-op.log" 2>&1 || rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$W/key-op.log")" = 1 ] &&
        grep -q "a key with a witness generator is registered only by root or the daemons' user (the owner of $W/state, uid $(id -u "$DU"))" "$W/key-op.log" &&
        echo "operator's key add --witness-$how refused: $(cat "$W/key-op.log")" ||
        bad "operator's key add --witness-$how: exit $rc: $(cat "$W/key-op.log")"
done
"$ZKSLOT" key list 2>/dev/null | grep -q "^op-" && bad "the operator's key was registered"

# ---- the daemons as D; the operator's jobs ---------------------------------------------
start_daemon "$W/synthd.log" "$ZKSLOT_SYNTHD" --workers 1
start_daemon "$W/gpud.log" "$ZKSLOT_GPUD" --backend cpu --threads 2 --max-errors 1
zku_ready
zku_apid   # O's CLI reaches the ledger through it
tr '\0' '\n' <"/proc/${PIDS[0]}/environ" | grep -q "^ZKSLOT_TEST_SECRET=daemon-only$" ||
    bad "synthd (pid ${PIDS[0]}) does not have ZKSLOT_TEST_SECRET: the environment check would be vacuous"
declare -A job
for k in evil planted good; do
    job[$k]=$(as "$OU" 0022 "$ZKSLOT" submit --key "$k" --input "$W/in/input.json" 2>"$W/submit.log") ||
        bad "submit --key $k as $OU: $(cat "$W/submit.log")"
done
if [ -n "${job[good]:-}" ]; then
    as "$OU" 0022 "$ZKSLOT" wait "${job[good]}" --timeout $((120 * slow)) >"$W/wait.log" 2>&1 ||
        bad "the allowed generator's job: $(tail -n 2 "$W/wait.log")"
    read -r proof pub < <("$ZKSLOT" result "${job[good]}" 2>/dev/null)
    "$ZKSLOT" verify "$W/in/vk.json" "${pub:-/nonexistent}" "${proof:-/nonexistent}" >/dev/null 2>&1 &&
        echo "allowed generator: job ${job[good]} proved and verified" ||
        bad "the allowed generator's job ${job[good]}: no proof that verifies"
    grep -q "^PATH=/usr/local/bin:/usr/bin:/bin$" "$W/gens-env.txt" && grep -q "^LANG=C$" "$W/gens-env.txt" ||
        bad "the generator's environment is not the fixed one: $(tr '\n' ' ' <"$W/gens-env.txt")"
    grep -q "daemon-only\|ZKSLOT_STATE_DIR\|ZKSLOT_CONFIG" "$W/gens-env.txt" &&
        bad "synthd's environment reached the generator: $(tr '\n' ' ' <"$W/gens-env.txt")"
fi
sleep $((3 * slow))   # more than a claim-keys refresh (2 s) and a poll
[ -e "$W/pwned-evil" ] && bad "synthd ran the command of key evil or planted: $(cat "$W/pwned-evil")"
for k in evil planted; do
    st=$("$ZKSLOT" status "${job[$k]:-0}" --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
print((s.get("partitions") or s["job"]["partitions"])[0]["state"])' 2>&1)
    [ "$st" = queued ] || bad "the $k key's job: partition $st, expected queued (waiting for a machine that allows it)"
    grep -q "key $k: its partitions are not claimed on this machine: .*not allowed on this machine (not under \[synthd\] generators" "$W/synthd.log" &&
        echo "$k: not claimed: $(grep -o "key $k: its partitions are not claimed.*" "$W/synthd.log" | head -1 | cut -c1-200)" ||
        bad "synthd did not say why it leaves key $k out"
done
[ -e "$W/pwned-op" ] && bad "the operator's command ran"
[ $fail = 0 ] && echo "generators: ok"
exit $fail
