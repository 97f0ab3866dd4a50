#!/usr/bin/env bash
# test_inputs_errors.sh -- witness generators that fail for reasons other
# than the input, through the real pipeline (keys registered with
# --witness-cmd after the daemons started): one that sleeps past
# [synthd] witness_timeout, one that dies of SIGSEGV, one that prints
# 10 MB, one that writes a short witness, one that writes a witness of the
# other curve.  Each partition is retried up to [zkslot] max_errors and then
# fails with its cause in `zkslot status`; no generator process is left;
# the daemons never exit; a good job queued behind the bad ones completes
# and its proofs are accepted by snarkjs.
set -euo pipefail
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
. "$ZK_SOURCE_DIR/tests/pipeline/lib_inputs.sh"
pl_init inputs_errors || exit 77

cat >"$ZKSLOT_CONFIG" <<EOF
[zkslot]
max_errors = 2
[synthd]
witness_timeout = 2
EOF
pli_circuit bls12381
other_cpp=$PLI_CPP
pli_circuit bn128
g="$PL_W/gen"
mkdir -p "$g"
# each script takes INPUT OUTPUT; the marker word in its name finds leftovers
cat >"$g/zkslow-gen.sh" <<EOF
#!/bin/sh
sleep 30 &
echo "\$\$ \$!" >>"$g/slow.pids"   # the script and its sleep: none may be left
wait
EOF
cat >"$g/zksegv-gen.sh" <<'EOF'
#!/bin/sh
kill -SEGV $$
EOF
cat >"$g/zkflood-gen.sh" <<'EOF'
#!/bin/sh
head -c 10000000 /dev/zero | tr '\0' 'y'
EOF
cat >"$g/zkshort-gen.sh" <<EOF
#!/bin/sh
"$PLI_CPP" "\$1" "\$2.full" >/dev/null && head -c 300 "\$2.full" >"\$2" && rm -f "\$2.full"
EOF
cat >"$g/zkcurve-gen.sh" <<EOF
#!/bin/sh
exec "$other_cpp" "\$1" "\$2"
EOF
chmod +x "$g"/*.sh
pli_allow "$g" "$ZK_INTEROP_WORK"

pl_pool 2
pl_start_synthd --workers 2
pl_start_gpud
pli_input 3 5 1 >"$PL_W/in.json"
declare -A want=(
    [slow]="killed after its timeout of 2 s"
    [segv]="killed by signal 11 (SIGSEGV)"
    [flood]="flooding its output"
    [short]="witness is unusable"
    [curve]="witness is unusable"
)
jobs=()
for kind in slow segv flood short curve; do
    pli_key_add "bad-$kind" --witness-cmd "$g/zk$kind-gen.sh {input} {output}"
    jobs+=("$("$ZKSLOT" submit --key "bad-$kind" --input "$PL_W/in.json")")
done
pli_key_add good-cpp --witness-gen "$PLI_CPP"
good=$("$ZKSLOT" submit --key good-cpp --input "$PL_W/in.json" "$PL_W/in.json")
pli_reference "$PL_W/in.json" "$PL_W/in.ref.wtns"
pl_expect "$good" "$PL_W/in.ref.wtns" "$PL_W/in.ref.wtns"

i=0
for kind in slow segv flood short curve; do
    j=${jobs[$i]}
    i=$((i + 1))
    rc=0
    "$ZKSLOT" wait "$j" --timeout 120 >/dev/null 2>&1 || rc=$?
    [ "$rc" = 1 ] || { pl_bad "$kind: wait exit $rc, expected 1 (job failed)"; continue; }
    st=$(pli_part_field "$j" 0 state)
    errs=$(pli_part_field "$j" 0 errors)
    att=$(pli_part_field "$j" 0 attempts)
    err=$(pli_part_field "$j" 0 error)
    [ "$st" = failed ] || pl_bad "$kind: state $st"
    [ "$errs" = 2 ] && [ "$att" = 2 ] ||
        pl_bad "$kind: $errs errors in $att attempts, expected 2 and 2 (retried up to max_errors)"
    case "$err" in
    *"${want[$kind]}"*) echo "ok: $kind: retried, then failed: $err" ;;
    *) pl_bad "$kind: error '$err' does not say '${want[$kind]}'" ;;
    esac
done
case "$(pli_part_field "${jobs[4]}" 0 error)" in
*"curve"*|*"prime"*) ;;
*) pl_bad "the other curve's witness: the error does not name the curve" ;;
esac
pl_wait "$good" 120 && pl_check_job "$good" 2 && echo "ok: the good job behind the bad ones completed"
for p in "$PL_SYNTHD" "$PL_GPUD"; do
    kill -0 "$p" 2>/dev/null || pl_bad "daemon $p exited by itself"
done
sleep 0.5
# (the sleeps by their recorded pids: other processes on the machine may
# sleep 30 too)
left=
for p in $(cat "$g/slow.pids" 2>/dev/null); do
    if kill -0 "$p" 2>/dev/null; then left="$left $(ps -o pid=,args= -p "$p" || true)"; fi
done
[ -s "$g/slow.pids" ] || pl_bad "the slow generator never ran"
if pgrep -f 'zk(slo[w]|seg[v]|floo[d]|shor[t]|curv[e])-gen' >/dev/null || [ -n "$left" ]; then
    pl_bad "a generator process is left: $(pgrep -af 'zk(slo[w]|seg[v]|floo[d])-gen' | head -3) $left"
fi
# no synthd died here: its sweep must never have judged its own generators
# a dead synthd's (an uninitialized boot id once made it kill them)
! grep "left by the generators of a dead synthd" "$PL_W/synthd.log" ||
    pl_bad "synthd's sweep killed processes of a live synthd's generators"
pl_stop "$PL_GPUD"; [ "$PL_RC" = 0 ] || pl_bad "gpud exit $PL_RC after SIGTERM"
pl_stop "$PL_SYNTHD"; [ "$PL_RC" = 0 ] || pl_bad "synthd exit $PL_RC after SIGTERM"
pl_pool_clean
pl_done
