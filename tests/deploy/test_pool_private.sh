#!/usr/bin/env bash
# test_pool_private.sh -- only the daemons write the pool, and only they
# read the slot data (witness, a, b, c), with real users: the daemons run
# as D (umask 0007), an operator O is in D's group.  Two jobs (root's, the
# victim, and O's) wait READY in the pool's two slots (synthd only).  Checks:
#   - the pool file is 0640 and its slot data file 0600, both D's;
#   - O reads no slot data: the witness region of a READY slot (read as root,
#     the control: non-zero bytes) is in no file of the pool O can open, and
#     O cannot open the slot data file;
#   - O's `pool status` (text and --json), `pool check`, `top --once` and
#     `metrics --once` work (exit 0), `pool check` saying why it does not
#     verify the checksums;
#   - the slot-copy attack (issue 29): O copies slot 0 (table entry and
#     data) over slot 1: both files refuse O's write, not a byte changes;
#   - O's `pool reap` is refused with one line naming the pool file and the
#     rule; O's `pool destroy` leaves the pool in place;
#   - then gpud (as D) proves both jobs, each proof of its own statement.
# Needs root, useradd/userdel, setpriv and python3 (77 otherwise).
: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}" "${ZK_SOURCE_DIR:?}"
. "$ZK_SOURCE_DIR/tests/deploy/lib_users.sh"
zku_init pp python3
PY=$(command -v /usr/bin/python3 || command -v python3)   # one O may run (not root's shims)

mkdir -p "$W/in" && cp "$ZK_SOURCE_DIR"/examples/groth16/bn128/{key.zkey,vk.json,witness-1.wtns,witness-2.wtns} "$W/in/"
chmod -R a+rX "$W/in"
install -d -m 2770 -o "$DU" -g "$DU" "$W/state"
install -d -m 0755 -o "$OU" -g "$OU" "$W/op"
as "$DU" 0007 "$ZKSLOT" pool create --slots 2 --slot-size 4M --tmpfs >"$W/pool.log" 2>&1 ||
    { bad "pool create as $DU: $(cat "$W/pool.log")"; exit 1; }
P=$ZKSLOT_POOL
for f in "$P:640" "$P.data:600"; do
    m=$(stat -c '%a %U' "${f%:*}" 2>/dev/null)
    [ "$m" = "${f##*:} $DU" ] || bad "${f%:*}: mode and owner '${m:-missing}', expected '${f##*:} $DU'"
done

(umask 0022; "$ZKSLOT" key add pp "$W/in/key.zkey") >"$W/key.log" 2>&1 || bad "key add: $(cat "$W/key.log")"
zku_apid   # O's CLI reaches the ledger through it
jv=$(umask 0022; "$ZKSLOT" submit --key pp "$W/in/witness-1.wtns" 2>"$W/submit.log") ||
    bad "submit as root: $(cat "$W/submit.log")"
ja=$(as "$OU" 0022 "$ZKSLOT" submit --key pp --out "$W/op/o" "$W/in/witness-2.wtns" 2>"$W/submit-o.log") ||
    bad "submit as $OU: $(cat "$W/submit-o.log")"
zku_daemon "$W/synthd.log" "$ZKSLOT_SYNTHD" --workers 1
ready=0
for ((i = 0; i < 200 * slow; i++)); do
    ready=$("$ZKSLOT" pool status --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["READY"])')
    [ "$ready" = 2 ] && break
    sleep 0.1
done
[ "$ready" = 2 ] || { bad "the two partitions are not READY in 20 s ($ready)"; exit 1; }

# the witness region (the slot's second region) of READY slot 1, read as
# root: from the data file, or (a pool of one file) after the tables
python3 - "$P" 1 "$W/wregion" <<'PY' || bad "control: cannot read slot 1's witness region as root"
import os, struct, sys
pool, i, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
c = open(pool, "rb").read()
slot_size, table_off, data_off = (struct.unpack_from("<Q", c, o)[0] for o in (48, 64, 72))
e = table_off + 256 * i
off, n = (struct.unpack_from("<Q", c, e + b + 8)[0] for b in (128, 192))
d, base = (open(pool + ".data", "rb").read(), 0) if os.path.exists(pool + ".data") else (c, data_off)
w = d[base + i * slot_size + off:base + i * slot_size + off + n]
assert len(w) >= 64 and any(w), "an empty witness region"
open(out, "wb").write(w)
PY
chmod 0644 "$W/wregion" 2>/dev/null
leak=$(as "$OU" 0022 "$PY" - "$P" "$W/wregion" <<'PY'
import glob, sys
w = open(sys.argv[2], "rb").read()
for f in sorted(glob.glob(sys.argv[1] + "*")):
    try:
        b = open(f, "rb").read()
    except OSError as e:
        print("unreadable %s: %s" % (f, e.strerror), file=sys.stderr)
        continue
    if w in b:
        print(f)
print("scanned")
PY
)
[ -s "$W/wregion" ] && [ "$leak" = scanned ] && echo "$OU reads no witness region: no file of the pool he can open holds it" ||
    bad "$OU read the witness of a READY slot in: ${leak:-? (no scan)}"
as "$OU" 0022 test -r "$P.data" && bad "$OU may read the slot data file"

# the operators' views
for cmd in "pool status" "pool status --json" "pool check" "top --once" "metrics --textfile $W/op/m.prom --once"; do
    # shellcheck disable=SC2086
    as "$OU" 0022 "$ZKSLOT" $cmd >"$W/view.out" 2>&1 || bad "$OU: zkslot $cmd: exit $?: $(head -n 3 "$W/view.out")"
    [ "$cmd" = "pool check" ] && ! grep -q "checksums not verified" "$W/view.out" &&
        bad "$OU: pool check does not say it skipped the checksums: $(cat "$W/view.out")"
done
echo "$OU's views work: pool status, pool check, top, metrics"

# the slot-copy attack: slot 0 over slot 1, table entry and data
sum_before=$(cat "$P" "$P.data" | sha256sum)
as "$OU" 0022 "$PY" - "$P" >"$W/attack.out" 2>&1 <<'PY'
import mmap, struct, sys
pool, done = sys.argv[1], []
for name in (pool, pool + ".data"):
    try:
        f = open(name, "r+b")
    except OSError as e:
        print("refused: %s: %s" % (name, e.strerror))
        continue
    m = mmap.mmap(f.fileno(), 0)
    if name == pool:
        t = struct.unpack_from("<Q", m, 64)[0]
        m[t + 256 + 24:t + 512] = m[t + 24:t + 256]      # ids, checksum, regions
    else:
        s = struct.unpack_from("<Q", open(pool, "rb").read(56), 48)[0]
        m[s:2 * s] = m[0:s]
    done.append(name)
print("written: %s" % " ".join(done))
PY
sum_after=$(cat "$P" "$P.data" | sha256sum)
grep -q "^written: $" "$W/attack.out" && [ "$sum_before" = "$sum_after" ] &&
    echo "slot-copy attack refused: $(grep -c '^refused' "$W/attack.out") write(s) refused, the pool unchanged" ||
    bad "the slot-copy attack wrote the pool: $(cat "$W/attack.out")"

# O's writers: one line naming the pool file and the rule
rc=0; as "$OU" 0022 "$ZKSLOT" pool reap >"$W/reap.out" 2>&1 || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$W/reap.out")" = 1 ] && grep -q "$P.*only the daemons' user and root write the pool" "$W/reap.out" &&
    echo "$OU's pool reap: $(cat "$W/reap.out")" || bad "$OU's pool reap: exit $rc: $(cat "$W/reap.out")"
as "$OU" 0022 "$ZKSLOT" pool destroy --force >"$W/destroy.out" 2>&1 && bad "$OU's pool destroy succeeded"
[ -e "$P" ] && [ -e "$P.data" ] || bad "$OU's pool destroy removed the pool"

# the daemons still do everything
zku_daemon "$W/gpud.log" "$ZKSLOT_GPUD" --backend cpu --threads 2 --max-errors 1
for j in ${jv:-} ${ja:-}; do
    "$ZKSLOT" wait "$j" --timeout $((120 * slow)) >"$W/wait.log" 2>&1 || bad "job $j: $(tail -n 2 "$W/wait.log")"
done
npub=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nPublic"])' "$W/in/vk.json")
for pair in "1:${jv:-0}" "2:${ja:-0}"; do
    want=$(python3 "$ZK_SOURCE_DIR/tests/pipeline/wtns_public.py" "$W/in/witness-${pair%%:*}.wtns" "$npub")
    read -r proof pub < <("$ZKSLOT" result "${pair#*:}" 2>/dev/null)
    [ -n "${pub:-}" ] && "$ZKSLOT" verify "$W/in/vk.json" "$pub" "$proof" >/dev/null 2>&1 &&
        [ "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$pub")" = \
          "$(echo "$want" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))')" ] &&
        echo "job ${pair#*:}: its proof verifies, of witness-${pair%%:*}'s statement" ||
        bad "job ${pair#*:}: no proof of witness-${pair%%:*}'s statement (${pub:-none})"
done
[ $fail = 0 ] && echo "pool_private: ok"
exit $fail
