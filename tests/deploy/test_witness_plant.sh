#!/usr/bin/env bash
# test_witness_plant.sh -- an unrelated local user X plants directories and
# files where synthd keeps the input and witness of a partition in flight
# ([synthd] witness_dir, a sticky 1777 directory like /dev/shm), with the
# daemons running as their own user D (umask 0007, as the units set it):
#   - X reads the pool tag from the name of a running synthd's directory;
#   - once that synthd has stopped, X makes a directory (0777) at its name,
#     which the next synthd's sweep of dead synthds' directories finds;
#   - the next synthd is started by a shell that execs it, so its pid and
#     start time are known before it runs (as an attacker guesses them for
#     the next pids): X makes a directory (0777) at that synthd's name and
#     in it the witness files of the first partitions (p<id>-<n>.wtns,
#     0666), each hard-linked into X's own directory.
# Then a job from a circuit input is proved.  Checks: the job is done; every
# file X planted is still empty (nothing of the witness reached it); X's
# directories hold only what X put there; synthd's own directory is D's,
# mode 0700, not X's; synthd never says it removed a directory that is still
# there, and says in one line that it left X's alone.  Then a synthd given
# a witness_dir its group may write (the 2770 state directory) refuses it,
# naming it, and makes nothing there.
# Needs root, useradd/userdel and setpriv, node and the circom C++ generator
# toolchain (lib_inputs.sh) (77 otherwise).
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init wp
zku_user XU x
. "$ZK_SOURCE_DIR/tests/interop/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
zk_interop_init || { echo "SKIP: $ZK_INTEROP_SKIP"; exit 77; }

pli_circuit bn128 || { bad "building the inputs circuit"; exit 1; }
wait_ready() {   # wait_ready LOG PID
    local i
    for ((i = 0; i < 300 * slow; i++)); do
        grep -q 'ready:' "$1" && return 0
        kill -0 "$2" 2>/dev/null || break
        sleep 0.1
    done
    bad "$(basename "$1" .log) did not start: $(tail -n 3 "$1")"
    return 1
}

# the generator, key and input readable by D; the witness directory as /dev/shm
mkdir -p "$W/in" "$W/shm" && chmod 1777 "$W/shm"
cp "$PLI_CPP" "$PLI_CPP.dat" "$PLI_KEY" "$W/in/"
pli_input 3 5 1 >"$W/in/a.json"
chmod -R a+rX "$W/in"
printf '[synthd]\nwitness_dir = %s\ngenerators = %s\n' "$W/shm" "$W/in" >"$ZKSLOT_CONFIG"
chmod 0644 "$ZKSLOT_CONFIG"
install -d -m 2770 -o "$DU" -g "$DU" "$W/state"
install -d -m 0700 -o "$DU" -g "$DU" "$W/run"
install -d -m 0755 -o "$XU" -g "$XU" "$W/x"
as "$DU" 0007 "$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >"$W/pool.log" 2>&1 ||
    { bad "pool create as $DU: $(cat "$W/pool.log")"; exit 1; }
(umask 0022; "$ZKSLOT" key add plant "$W/in/$(basename "$PLI_KEY")" \
    --witness-gen "$W/in/$(basename "$PLI_CPP")") >"$W/key.log" 2>&1 ||
    { bad "key add: $(cat "$W/key.log")"; exit 1; }

# ---- X learns the pool tag from a running synthd; plants at its name once it is gone ----
zku_daemon "$W/synthd1.log" "$ZKSLOT_SYNTHD" --workers 1
s1=$DPID
wait_ready "$W/synthd1.log" "$s1" || exit 1
seen=$(as "$XU" 0000 ls "$W/shm" | grep -m1 "^zkslot-synthd-[0-9a-f]*-$s1-")
tag=$(echo "$seen" | sed -n 's/^zkslot-synthd-\([0-9a-f]\{16\}\)-.*/\1/p')
[ -n "$tag" ] || { bad "no directory of synthd $s1 in $W/shm: $(ls "$W/shm")"; exit 1; }
kill -TERM "$s1"; wait "$s1"
dead=$(echo "$seen" | sed -n 's/^\(zkslot-synthd-[0-9a-f]*-[0-9]*-[0-9]*\).*/\1/p')
as "$XU" 0000 mkdir -m 0777 "$W/shm/$dead" || bad "X could not plant $dead"

# ---- the next synthd: its pid and start time known before it runs ----------
zku_daemon "$W/synthd.log" bash -c 'echo "$$ $(cut -d" " -f22 /proc/$$/stat)" >"$1/me.tmp" &&
    mv "$1/me.tmp" "$1/me"; while [ ! -e "$1/go" ]; do sleep 0.05; done
    exec "$2" --workers 1' plant "$W/run" "$ZKSLOT_SYNTHD"
SPID=$DPID
for _ in $(seq 100); do [ -s "$W/run/me" ] && break; sleep 0.05; done
read -r pid start <"$W/run/me" || { bad "the synthd wrapper did not start"; exit 1; }
[ "$pid" = "$SPID" ] || bad "wrapper pid $pid is not $SPID"
next="zkslot-synthd-$tag-$pid-$start"
as "$XU" 0000 mkdir -m 0777 "$W/shm/$next"
planted=()
for id in 1 2 3 4; do
    for n in 0 1 2 3; do
        f="$W/shm/$next/p$id-$n.wtns"
        as "$XU" 0000 sh -c ": >'$f' && chmod 0666 '$f' && ln '$f' '$W/x/stolen-$id-$n'" ||
            bad "X could not plant $f"
        planted+=("p$id-$n.wtns")
    done
done
touch "$W/run/go"
wait_ready "$W/synthd.log" "$SPID" || exit 1
zku_daemon "$W/gpud.log" "$ZKSLOT_GPUD" --backend cpu --threads 2
GPID=$DPID
wait_ready "$W/gpud.log" "$GPID" || exit 1

j=$( (umask 0022; "$ZKSLOT" submit --key plant --input "$W/in/a.json") 2>"$W/submit.log") ||
    bad "submit: $(cat "$W/submit.log")"
"$ZKSLOT" wait "${j:-0}" --timeout $((60 * slow)) >"$W/wait.log" 2>&1 ||
    bad "job ${j:-?}: $(tail -n 2 "$W/wait.log")"

# ---- nothing reached X's files; synthd used a directory of its own --------------
for f in "$W"/x/stolen-*; do
    [ ! -s "$f" ] || bad "X's planted file ${f##*/} now holds $(stat -c %s "$f") bytes of the witness"
done
got=$(ls -A "$W/shm/$next" | sort | tr '\n' ' ')
want=$(printf '%s\n' "${planted[@]}" | sort | tr '\n' ' ')
[ "$got" = "$want" ] || bad "X's directory $next now holds: $got"
[ -z "$(ls -A "$W/shm/$dead")" ] || bad "X's directory $dead now holds: $(ls -A "$W/shm/$dead")"
mine=$(ls -d "$W/shm/$next"-* 2>/dev/null | head -n 1)
[ -n "$mine" ] && [ "$(stat -c '%U %a' "$mine")" = "$DU 700" ] ||
    bad "synthd $SPID has no private directory of its own: $(ls -l "$W/shm")"
while read -r d; do
    [ ! -e "$d" ] || bad "synthd says it removed $d, which is still there"
done < <(sed -n 's/.*witness: removed \(.*\) (its synthd is gone).*/\1/p' "$W/synthd.log")
grep -q "named like a synthd's directory.*left alone" "$W/synthd.log" ||
    bad "synthd did not say it left X's directory $dead alone"
[ $fail = 0 ] && echo "ok: planted directories and files never used; job ${j:-?} done; $(grep -o 'witness: [0-9]* entr[^(]*' "$W/synthd.log" | head -1)"

for p in "$GPID" "$SPID"; do kill -TERM "$p"; wait "$p"; done

# ---- a witness_dir others could write: refused, named --------------------------
printf '[synthd]\nwitness_dir = %s\ngenerators = %s\n' "$W/state" "$W/in" >"$ZKSLOT_CONFIG"   # 2770, group D
zku_daemon "$W/synthd3.log" "$ZKSLOT_SYNTHD" --workers 1
wait_ready "$W/synthd3.log" "$DPID"
grep -q "witness_dir $W/state: writable by its group" "$W/synthd3.log" ||
    bad "synthd accepted a group-writable witness_dir: $(grep witness "$W/synthd3.log" | head -2)"
ls -d "$W/state"/zkslot-synthd-* >/dev/null 2>&1 && bad "synthd made its directory in a group-writable witness_dir"
kill -TERM "$DPID"; wait "$DPID"
exit $fail
