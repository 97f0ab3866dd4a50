#!/usr/bin/env bash
# test_multiuser.sh -- the units' permission model with real users: the
# daemons run as a daemon user D (umask 0007, as UMask= in the units), an
# operator O in D's group and root submit jobs, an outsider X (not in the
# group) cannot.  The state directory is made as tmpfiles.d makes
# /var/lib/zkslot (2770 D:D).  Checks:
#   - root creates the ledger first (`key add`, a submit before the daemons
#     run, a `zkslot wait` holding it open while they start): ledger.db,
#     -wal and -shm are 0600 and D's (the daemons' alone), and the daemons
#     write them; O reaches it through zkslot-apid's socket;
#   - jobs of root and of O (default output directory, and --out DIR in O's
#     own tree) are proved: every output directory submit made is 02770
#     group D, every proof passes `zkslot verify`;
#   - X's submit is refused; nothing in the state directory is
#     world-writable; with the state directory left 0755, X's command says
#     whose the ledger is and that its socket refused X (not SQLite's
#     "unable to open database file");
#   - O plants symlinks at gpud's temporary names (proof.json.tmp.PID,
#     public.json.tmp.PID) pointing at a file only D may write: the file is
#     untouched, the proof is a regular file;
#   - O makes a partition directory a symlink to a directory of D's:
#     before submit, submit refuses it; after submit, gpud writes nothing
#     there (the partition fails, naming the directory);
#   - a ledger not D's: synthd refuses to start, naming its owner and mode;
#   - a pool file planted by X at the pool path, and D's own pool made
#     world-writable: both daemons refuse to start (exit non-zero), one
#     line naming the file, its owner and its mode.
# Needs root, useradd/userdel and setpriv (77 otherwise).
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init mu
zku_user XU x

mode_of() { stat -c '%a %G' "$1" 2>/dev/null; }
want_mode() {   # want_mode PATH MODE WHAT
    local m; m=$(mode_of "$1")
    [ "$m" = "$2 $DU" ] || bad "$3 ${1#$W/} is '${m:-missing}', expected '$2 $DU'"
}
want_own() {   # want_own PATH MODE WHAT: mode and owner D
    local m; m=$(stat -c '%a %U' "$1" 2>/dev/null)
    [ "$m" = "$2 $DU" ] || bad "$3 ${1#$W/} is '${m:-missing}', expected '$2 $DU'"
}

# inputs readable by everyone, as on a proving server
mkdir -p "$W/in" && cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,vk.json,witness-*.wtns} "$W/in/"
chmod -R a+rX "$W/in"
WT=("$W"/in/witness-1.wtns "$W"/in/witness-2.wtns)
# the state directory as tmpfiles.d makes /var/lib/zkslot
install -d -m 2770 -o "$DU" -g "$DU" "$W/state"
as "$DU" 0007 "$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >"$W/pool.log" 2>&1 ||
    { bad "pool create as $DU"; cat "$W/pool.log"; exit 1; }

# ---- root first: the ledger, a job queued before the daemons run ---------------
(umask 0022; "$ZKSLOT" key add mu "$W/in/key.zkey") >"$W/key.log" 2>&1 || { bad "key add as root"; cat "$W/key.log"; }
want_own "$W/state/ledger.db" 600 "made by root, the ledger"
ja=$(umask 0022; "$ZKSLOT" submit --key mu "${WT[@]}" 2>"$W/submit-root.log") ||
    bad "submit as root: $(cat "$W/submit-root.log")"
(umask 0022; exec "$ZKSLOT" wait "${ja:-0}" --timeout $((120 * slow))) >"$W/wait-root.log" 2>&1 &
wpid=$!; PIDS+=("$wpid")
sleep 0.5   # its connection holds -wal and -shm, made by root
for f in ledger.db-wal ledger.db-shm; do
    [ -e "$W/state/$f" ] && want_own "$W/state/$f" 600 "made by root, the ledger's" &&
        echo "$f made by root: $(stat -c "%a %U:%G" "$W/state/$f")"
done

# ---- the daemons as D ------------------------------------------------------------
zku_daemon "$W/synthd.log" "$ZKSLOT_SYNTHD" --workers 1
SPID=$DPID
zku_daemon "$W/gpud.log" "$ZKSLOT_GPUD" --backend cpu --threads 2 --max-errors 1
GPID=$DPID
zku_ready "$SPID" "$GPID"
zku_apid
# (its Uid: line, not /proc/PID's owner, which is root once it is non-dumpable)
[ "$(awk '/^Uid:/ { print $2 }' "/proc/$GPID/status")" = "$(id -u "$DU")" ] &&
    grep -q gpud "/proc/$GPID/comm" ||
    bad "gpud's pid $GPID is not a gpud running as $DU"

wait "$wpid"; rc=$?
[ $rc = 0 ] || bad "root's job ${ja:-?}: wait exit $rc: $(tail -n 2 "$W/wait-root.log")"

check_job() {   # check_job JOB WHO: proofs verify, directories 02770 group D
    local j=$1 who=$2 n=0 proof pub
    while read -r proof pub; do
        n=$((n + 1))
        "$ZKSLOT" verify "$W/in/vk.json" "$pub" "$proof" >/dev/null 2>&1 ||
            bad "$who's job $j: $proof does not verify"
        [ -f "$proof" ] && [ ! -L "$proof" ] || bad "$who's job $j: $proof is not a regular file"
        want_mode "$(dirname "$proof")" 2770 "$who's job $j: the partition directory"
    done < <("$ZKSLOT" result "$j" 2>/dev/null)
    [ $n -gt 0 ] || bad "$who's job $j: no proofs"
    echo "$who's job $j: $n proof(s) verified"
}
[ -n "${ja:-}" ] && check_job "$ja" root && want_mode "$W/state/jobs/$ja" 2770 "root's job: the job directory"
for f in ledger.db-wal ledger.db-shm; do
    [ -e "$W/state/$f" ] || bad "no $f while the daemons run"
done

# ---- an operator: default output directory, and --out in its own tree ------------------
install -d -m 0755 -o "$OU" -g "$OU" "$W/op"
jb=$(as "$OU" 0022 "$ZKSLOT" submit --key mu "${WT[@]}" 2>"$W/submit-op.log") ||
    bad "submit as $OU: $(cat "$W/submit-op.log")"
jc=$(as "$OU" 0022 "$ZKSLOT" submit --key mu --out "$W/op/new/c" "${WT[0]}" 2>"$W/submit-op2.log") ||
    bad "submit --out as $OU: $(cat "$W/submit-op2.log")"
for j in ${jb:-} ${jc:-}; do
    as "$OU" 0022 "$ZKSLOT" wait "$j" --timeout $((120 * slow)) >"$W/wait-op.log" 2>&1 ||
        bad "$OU's job $j: $(tail -n 2 "$W/wait-op.log")"
    check_job "$j" "$OU"
done
[ -n "${jc:-}" ] && want_mode "$W/op/new/c" 2770 "--out, made by submit:"

# ---- an outsider cannot submit; nothing is world-writable --------------------------------
if as "$XU" 0022 "$ZKSLOT" submit --key mu "${WT[0]}" >"$W/submit-x.log" 2>&1; then
    bad "$XU (not in group $DU) submitted a job"
fi
# a state directory left 0755: the outsider reaches the ledger file and is
# told whose it is, not SQLite's "unable to open database file"
chmod 0755 "$W/state"
as "$XU" 0022 "$ZKSLOT" status >"$W/status-x.log" 2>&1 && bad "$XU read the ledger"
grep -q "ledger.db is the daemons' ($DU) alone; its socket .*api.sock: Permission denied" \
    "$W/status-x.log" || bad "the outsider's refusal does not say whose the ledger is: $(cat "$W/status-x.log")"
chmod 2770 "$W/state"
ww=$(find "$W/state" -perm -o+w ! -type l 2>/dev/null | head -3)
[ -z "$ww" ] && echo "outsider refused: $(head -c 160 "$W/submit-x.log")" || bad "world-writable in the state directory: $ww"

# ---- symlinks planted at gpud's temporary names ----------------------------------
as "$DU" 0007 sh -c "echo precious >'$W/state/victim' && chmod 0600 '$W/state/victim'"
install -d -m 2770 -o "$OU" -g "$DU" "$W/op/evil" "$W/op/evil/0"
for n in proof.json public.json; do
    as "$OU" 0022 ln -s "$W/state/victim" "$W/op/evil/0/$n.tmp.$GPID"
done
jd=$(as "$OU" 0022 "$ZKSLOT" submit --key mu --out "$W/op/evil" "${WT[0]}" 2>"$W/submit-evil.log") ||
    bad "submit into op/evil: $(cat "$W/submit-evil.log")"
if [ -n "${jd:-}" ]; then
    f0=$fail
    as "$OU" 0022 "$ZKSLOT" wait "$jd" --timeout $((120 * slow)) >"$W/wait-evil.log" 2>&1 ||
        bad "job $jd (symlinks at the temporary names): $(tail -n 2 "$W/wait-evil.log")"
    [ "$(cat "$W/state/victim")" = precious ] ||
        bad "gpud followed a planted symlink: the file it points to now holds $(head -c 60 "$W/state/victim")"
    [ -f "$W/op/evil/0/proof.json" ] && [ ! -L "$W/op/evil/0/proof.json" ] ||
        bad "op/evil/0/proof.json is not a regular file: $(ls -l "$W/op/evil/0" 2>&1 | tail -n +2)"
    "$ZKSLOT" verify "$W/in/vk.json" "$W/op/evil/0/public.json" "$W/op/evil/0/proof.json" >/dev/null 2>&1 ||
        bad "op/evil/0/proof.json does not verify"
    [ $fail = "$f0" ] && echo "planted symlinks at the temporary names: not followed, target intact"
fi

# ---- a partition directory that is a symlink --------------------------------------
install -d -m 2770 -o "$DU" -g "$DU" "$W/state/trap"
install -d -m 2770 -o "$OU" -g "$DU" "$W/op/evil2"
as "$OU" 0022 ln -s "$W/state/trap" "$W/op/evil2/0"
rc=0
as "$OU" 0022 "$ZKSLOT" submit --key mu --out "$W/op/evil2" "${WT[0]}" >"$W/submit-evil2.log" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "op/evil2/0 is not a directory you may write" "$W/submit-evil2.log" ||
    bad "submit into op/evil2 with 0 a symlink: exit $rc: $(cat "$W/submit-evil2.log")"
# planted after submit instead: gpud refuses it
as "$OU" 0022 rm "$W/op/evil2/0"
kill -STOP "$GPID"   # the link must be there before gpud looks
je=$(as "$OU" 0022 "$ZKSLOT" submit --key mu --out "$W/op/evil2" "${WT[0]}" 2>"$W/submit-evil2.log") ||
    bad "submit into op/evil2: $(cat "$W/submit-evil2.log")"
as "$OU" 0022 rmdir "$W/op/evil2/0" && as "$OU" 0022 ln -s "$W/state/trap" "$W/op/evil2/0"
kill -CONT "$GPID"
if [ -n "${je:-}" ]; then
    f0=$fail
    as "$OU" 0022 "$ZKSLOT" wait "$je" --timeout $((120 * slow)) >"$W/wait-evil2.log" 2>&1; rc=$?
    [ $rc = 1 ] || bad "job $je (partition directory a symlink): wait exit $rc, expected 1 (failed)"
    [ -z "$(ls -A "$W/state/trap")" ] || bad "gpud wrote through a symlinked partition directory: $(ls "$W/state/trap")"
    grep -q "op/evil2/0: cannot open the output directory" "$W/gpud.log" ||
        bad "gpud did not say why it refused op/evil2/0"
    [ $fail = "$f0" ] && echo "symlinked partition directory: refused ($(grep -o 'cannot open the output directory[^;]*' "$W/gpud.log" | head -1))"
fi

# ---- stop ---------------------------------------------------------------------
for p in "$GPID" "$SPID"; do
    kill -TERM "$p"; wait "$p"; rc=$?
    [ $rc = 0 ] || bad "daemon $p: exit $rc after SIGTERM"
done
PIDS=()
kill -TERM "$APID"; wait "$APID"
want_own "$W/state/ledger.db" 600 "at the end, the ledger"

# ---- a ledger the daemons cannot write: the error says whose it is ---------------------
chown root:root "$W/state/ledger.db"
as "$DU" 0007 "$ZKSLOT_SYNTHD" --workers 1 >"$W/synthd-denied.log" 2>&1 && bad "synthd started on a ledger it cannot write"
grep -q "ledger.db: not writable by this daemon (uid [0-9]*): owner root:root, mode 0600" "$W/synthd-denied.log" &&
    echo "unwritable ledger: $(grep -o 'not writable[^;]*' "$W/synthd-denied.log")" ||
    bad "synthd's error on an unwritable ledger: $(tail -n 1 "$W/synthd-denied.log")"
# ---- pools the daemons must not trust -----------------------------------------------
planted=/dev/shm/zkslot-multiuser-planted-$$.pool
as "$XU" 0077 "$ZKSLOT" pool create --pool "$planted" --slots 2 --slot-size 4M --tmpfs \
    >"$W/planted.log" 2>&1 || bad "pool create as $XU: $(cat "$W/planted.log")"
chmod 0666 "$ZKSLOT_POOL"
for d in "$ZKSLOT_SYNTHD" "$ZKSLOT_GPUD --backend cpu"; do
    n=${d##*/}; n=${n%% *}
    for p in "$planted" "$ZKSLOT_POOL"; do
        # shellcheck disable=SC2086
        as "$DU" 0007 $d --pool "$p" >"$W/untrusted.log" 2>&1 && bad "$n started on the untrusted pool $p"
        [ "$p" = "$planted" ] && want="$planted: the pool file is owned by uid [0-9]* \($XU\), mode 0600" ||
            want="$ZKSLOT_POOL: owned by uid [0-9]* \($DU\), mode 0666: writable by every user"
        [ "$(grep -c "pool " "$W/untrusted.log")" = 1 ] && grep -qE "$want" "$W/untrusted.log" &&
            echo "$n refuses $(grep -o "pool .*" "$W/untrusted.log" | cut -c1-150)" ||
            bad "$n on the untrusted pool $p: $(cat "$W/untrusted.log")"
    done
done
rm -f "$planted" "$planted".data
[ $fail = 0 ] && echo "multiuser: ok"
exit $fail
