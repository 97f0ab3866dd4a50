# lib_keystore.sh -- what the key store's pipeline tests share
# (test_keystore*.sh; docs/keystore.md).  Source it after lib.sh, then:
#
#   ks_setup                 a 2-slot pool, bn128 Chain(600) registered with
#                            2 witnesses (pl_circuit); KS_STORE = its store's path
#   ks_prove WTNS FROM [HOW] the one-shot `zkslot prove --verbose` of WTNS: the
#                            key's points must come from FROM ("its file", or
#                            "its store $KS_STORE"), the store found by HOW when
#                            given ("hash": the file hashed, "identity": its
#                            identity record) and snarkjs must accept the
#                            proof; pl_bad and 1 otherwise

ks_setup() {
    local hash
    pl_pool 2
    pl_circuit bn128 600 2 || { pl_bad circuit; return 1; }
    hash=$("$ZKSLOT" key list --json | python3 -c '
import json, sys
print([k["hash"] for k in json.load(sys.stdin) if k["name"] == sys.argv[1]][0])' "$PL_KEYNAME") ||
        { pl_bad "no hash for $PL_KEYNAME"; return 1; }
    KS_STORE=$ZKSLOT_POOL.key-$hash
}

ks_prove() {
    local err=$PL_W/prove.err
    if ! "$ZKSLOT" prove "$PL_KEY" "$1" "$PL_W/proof.json" "$PL_W/public.json" --verbose 2>"$err"; then
        pl_bad "zkslot prove: $(cat "$err")"
        return 1
    fi
    # "... the key's points from FROM" or "FROM (found by the file's identity)"
    local from how=hash sfx=" (found by the file's identity)"
    from=$(sed -n "s/^.*the key's points from //p" "$err")
    case "$from" in *"$sfx") how=identity ;; esac
    from=${from%"$sfx"}
    [ "$from" = "$2" ] ||
        { pl_bad "zkslot prove: points not from $2: $(cat "$err")"; return 1; }
    [ -z "${3:-}" ] || [ "$how" = "$3" ] ||
        { pl_bad "zkslot prove: store found by its $how, expected by its $3: $(cat "$err")"; return 1; }
    zk_snarkjs groth16 verify "$PL_VK" "$PL_W/public.json" "$PL_W/proof.json" 2>&1 | grep -q "OK!" ||
        { pl_bad "snarkjs refused the proof whose points came from $2"; return 1; }
}
