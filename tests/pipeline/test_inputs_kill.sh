#!/usr/bin/env bash
# test_inputs_kill.sh -- kill -9 of zkslot-synthd while a witness generator
# runs.  The generator (a --witness-cmd script that, the first time, starts
# a long sleep of its own before running circom's C++ generator) dies with
# synthd (PR_SET_PDEATHSIG); the child it started is killed by the next
# synthd's sweep (ZKSLOT_WITGEN_OWNER); the dead synthd's witness directory
# is removed; the partition is redone (attempts 2) and every proof is
# accepted by snarkjs.  No process of the dead synthd's generators is left
# in /proc (within 15 s: the sweep runs at start, each second for three
# seconds, then every ten).  Control: the same kill with the next synthd's sweep disabled
# leaves the sleep running, so the check can fail.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
pl_init inputs_kill || exit 77

pli_circuit bn128
g="$PL_W/gen"
mkdir -p "$g"
cat >"$g/zkkill-gen.sh" <<EOF
#!/bin/sh
# the first run after run_kill reset the flag: a child of its own, then hang
if mkdir "$g/ran" 2>/dev/null; then
    sleep 300 &
    echo \$! >"$g/started.tmp" && mv "$g/started.tmp" "$g/started"
    wait
fi
exec "$PLI_CPP" "\$1" "\$2"
EOF
chmod +x "$g/zkkill-gen.sh"
pli_allow "$g"

leftovers() { pli_owned_by "$1"; }

pl_pool 2
pl_start_gpud
pl_start_synthd --workers 1
pli_key_add kill-cmd --witness-cmd "$g/zkkill-gen.sh {input} {output}"
pli_input 3 5 1 >"$PL_W/a.json"
pli_input 4 6 0 >"$PL_W/b.json"
pli_reference "$PL_W/a.json" "$PL_W/a.ref.wtns"
pli_reference "$PL_W/b.json" "$PL_W/b.ref.wtns"

run_kill() {   # run_kill: submit, kill synthd mid-generator; prints the job id
    rm -f "$g/started"
    rm -rf "$g/ran"
    local j
    j=$("$ZKSLOT" submit --key kill-cmd --input "$PL_W/a.json" "$PL_W/b.json")
    pl_expect "$j" "$PL_W/a.ref.wtns" "$PL_W/b.ref.wtns"
    for _ in $(seq 200); do [ -f "$g/started" ] && break; sleep 0.05; done
    [ -f "$g/started" ] || { pl_bad "the generator never started"; return 1; }
    kill -9 "$PL_SYNTHD"
    wait "$PL_SYNTHD" 2>/dev/null || true
    echo "$j"
}

# control: with the sweep of the next synthd off, the generator's child stays
dead=$PL_SYNTHD
j=$(run_kill)
sleep 0.5
[ -z "$(pli_procs 'zkkill-gen[.]sh')" ] || pl_bad "the generator outlived synthd (no PR_SET_PDEATHSIG?)"
[ -n "$(leftovers "$dead")" ] || pl_bad "control: the generator's own child is gone without a sweep; the check below could not fail (synthd $dead; sleeps: $(pli_procs 'slee[p] 300' | tr '\n' ' '))"
ZKSLOT_TEST_NO_WITGEN_SWEEP=1 pl_start_synthd --workers 1
sleep 2
[ -n "$(leftovers "$dead")" ] || pl_bad "control: the sweep ran although it was off"
pl_stop "$PL_SYNTHD"
"$ZKSLOT" cancel "$j" >/dev/null || true
for p in $(leftovers "$dead"); do kill -9 "$p" 2>/dev/null || true; done

# the real run: kill, restart, the sweep cleans, the job completes
pl_start_synthd --workers 1
dead=$PL_SYNTHD
j=$(run_kill)
[ -d "$(ls -d /dev/shm/zkslot-synthd-*-"$dead"-* 2>/dev/null | head -n 1)" ] ||
    pl_bad "the killed synthd's witness directory is not there to be cleaned (test broken?)"
pl_start_synthd --workers 1
pl_wait "$j" 120 && pl_check_job "$j" 2 && echo "ok: the job completed after the kill"
att=$(pli_part_field "$j" 0 attempts)
[ "$att" = 2 ] || pl_bad "partition 0: $att attempts, expected 2 (redone after the kill)"
# one pass can miss a process caught mid-execve (an empty environment); the
# passes of the first three seconds and every ten seconds get it
for _ in $(seq 60); do left=$(leftovers "$dead"); [ -z "$left" ] && break; sleep 0.25; done
[ -z "$left" ] || pl_bad "processes of the dead synthd's generators left after 15 s: $left"
! ls -d /dev/shm/zkslot-synthd-*-"$dead"-* >/dev/null 2>&1 ||
    pl_bad "the dead synthd's witness directory was not removed"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_pool_clean
pl_done
