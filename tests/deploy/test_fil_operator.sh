#!/usr/bin/env bash
# test_fil_operator.sh -- Filecoin jobs as the roles run them on one
# machine: the daemons (synthd, gpud, zkslot-apid) as a daemon user D, an
# operator O in D's group, root's generators directory holding the
# synthesizer (`[synthd] generators`).  Checks:
#   - O's `key add --filecoin` is refused in one line (the generator rule),
#     nothing registered; root's registers the 2 KiB circuits;
#   - O's `zkslot submit --filecoin winning FILE` and `--filecoin window`
#     (its CLI splits the input as O, and goes through apid's socket
#     without being told: O cannot open the ledger), `wait`, `result --out`:
#     both proofs accepted by filecoin-proofs' verifiers;
#   - another operator P is refused O's result (the socket's rules);
#   - O's `key list` and `key show` through apid say the keys' format
#     (bellperson) and that such a key has no snarkjs vk.json.
# Needs root, useradd/userdel, setpriv and the Rust binary (77 otherwise).
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZKSLOT_APID:?}" "${ZK_SOURCE_DIR:?}"
tgt=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target/release}
fs=$tgt/zkslot-fil-synth
[ -x "$fs" ] || fs=$tgt/release/zkslot-fil-synth
[ -x "$fs" ] || { echo "SKIP: zkslot-fil-synth is not built in $tgt (tools/cargo-build.sh)"; exit 77; }
cache=${ZK_FIL_CACHE:-/var/cache/zkslot/fil-params}
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init filop

"$fs" params --cache "$cache" --sector-size 2048 --kinds winning,window >"$W/params.log" 2>&1 ||
    { bad "params: $(tail -n 2 "$W/params.log")"; exit 1; }
"$fs" sectors --cache "$cache" --out "$W/in" --seed 37 >"$W/sectors.log" 2>&1 ||
    { bad "sectors: $(tail -n 2 "$W/sectors.log")"; exit 1; }
chmod -R a+rX "$W/in"
install -d -m 0755 "$W/gens"
install -m 0755 "$fs" "$W/gens/zkslot-fil-synth"
export ZKSLOT_FIL_SYNTH=$W/gens/zkslot-fil-synth
printf '[synthd]\ngenerators = %s\n' "$W/gens" >"$ZKSLOT_CONFIG"
chmod 0644 "$ZKSLOT_CONFIG"
install -d -m 2770 -o "$DU" -g "$DU" "$W/state"
install -d -m 0755 -o "$OU" -g "$OU" "$W/op"
zku_user PU p "$DU"
as "$DU" 0007 "$ZKSLOT" pool create --slots 2 --slot-size 24M --tmpfs >"$W/pool.log" 2>&1 ||
    { bad "pool create as $DU"; exit 1; }

# ---- keys: the operator may not, root does ---------------------------------------------
rc=0
as "$OU" 0022 "$ZKSLOT" key add --filecoin "$cache" --synth "$W/gens/zkslot-fil-synth" >"$W/key-op.log" 2>&1 || rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$W/key-op.log")" = 1 ] && ! "$ZKSLOT" key list 2>/dev/null | grep -q '^fil-'; then
    echo "operator's key add --filecoin refused: $(cat "$W/key-op.log")"
else
    bad "operator's key add --filecoin: exit $rc: $(cat "$W/key-op.log")"
fi
(umask 0022; "$ZKSLOT" key add --filecoin "$cache" --synth "$W/gens/zkslot-fil-synth") >"$W/key-root.log" 2>&1 ||
    bad "key add --filecoin as root: $(tail -n 2 "$W/key-root.log")"

# ---- the daemons as D; the operator's jobs through apid's socket -----------------------
zku_daemon "$W/synthd.log" "$ZKSLOT_SYNTHD" --workers 1
zku_daemon "$W/gpud.log" "$ZKSLOT_GPUD" --backend cpu --threads 2
zku_ready
zku_apid
# what the operator sees of the keys through apid: their format, and no
# snarkjs vk.json for a bellperson key (why said)
as "$OU" 0022 "$ZKSLOT" key list >"$W/keys.txt" 2>&1 || bad "key list as $OU: $(tail -n 2 "$W/keys.txt")"
if awk '$1 ~ /^fil-winning-/ && $3 == "bellperson" { f = 1 } END { exit !f }' "$W/keys.txt"; then
    echo "$OU's key list through apid: the fil- keys' FORMAT is bellperson"
else
    bad "$OU's key list does not say the fil- keys are bellperson keys: $(head -n 3 "$W/keys.txt")"
fi
wk=$(awk '$1 ~ /^fil-winning-/ { print $1; exit }' "$W/keys.txt")
as "$OU" 0022 "$ZKSLOT" key show "${wk:-fil-winning}" >"$W/keyshow.json" 2>&1 || true
if python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))
sys.exit(not (k.get("format") == "bellperson" and k.get("vk") is None
              and "bellperson key" in k.get("vk_error", "")))' "$W/keyshow.json" 2>/dev/null; then
    echo "$OU's key show $wk: format bellperson, vk null: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["vk_error"])' "$W/keyshow.json")"
else
    bad "$OU's key show $wk: $(head -c 300 "$W/keyshow.json")"
fi
declare -A job
for k in winning window; do
    job[$k]=$(as "$OU" 0022 "$ZKSLOT" submit --filecoin "$k" "$W/in/$k.json" 2>"$W/submit.log") ||
        bad "submit --filecoin $k as $OU: $(cat "$W/submit.log")"
done
for k in winning window; do
    [ -n "${job[$k]:-}" ] || continue
    as "$OU" 0022 "$ZKSLOT" wait "${job[$k]}" --timeout $((300 * slow)) >"$W/wait.log" 2>&1 ||
        { bad "$k: job ${job[$k]}: $(tail -n 2 "$W/wait.log")"; continue; }
    as "$OU" 0022 "$ZKSLOT" result "${job[$k]}" --out "$W/op/$k.proof" >"$W/result.log" 2>&1 ||
        { bad "$k: result --out as $OU: $(tail -n 2 "$W/result.log")"; continue; }
    if "$fs" verify --kind "$k" --input "$W/in/$k.json" --proof "$W/op/$k.proof" --cache "$cache" >"$W/verify.log" 2>&1; then
        echo "$k: $OU's job ${job[$k]} through apid's socket: proof accepted by filecoin-proofs"
    else
        bad "$k: filecoin-proofs rejects $OU's proof: $(tail -n 1 "$W/verify.log")"
    fi
done
if [ -n "${job[winning]:-}" ]; then
    rc=0
    as "$PU" 0022 "$ZKSLOT" result "${job[winning]}" --out /tmp/zk-filop-p-$$.proof >"$W/p.log" 2>&1 || rc=$?
    [ $rc != 0 ] && [ ! -e /tmp/zk-filop-p-$$.proof ] && grep -q "not yours" "$W/p.log" &&
        echo "another operator refused $OU's result: $(head -n 1 "$W/p.log")" ||
        bad "another operator's result of $OU's job: exit $rc: $(cat "$W/p.log")"
    rm -f /tmp/zk-filop-p-$$.proof
fi
[ $fail = 0 ] && echo "filecoin as an operator: ok"
exit $fail
