#!/usr/bin/env bash
# test_submit_durable.sh -- a job id printed by `zkslot submit` survives a
# power loss: traced with strace, before the id is written to stdout
#   - the ledger's WAL is synced (fsync/fdatasync of ledger.db-wal) after its
#     last write (synchronous=FULL; with NORMAL a WAL commit is not synced);
#   - every directory submit created (the job's output directory and one per
#     partition, default location, --out, a relative --out) was synced in
#     its parent.
# `zkslot key add` is checked the same way for the WAL.  A second
# connection holds the ledger open meanwhile, as running daemons do.
# Skips (77) without strace or python3.
set -u
: "${ZKSLOT:?}" "${ZK_SOURCE_DIR:?}"
command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
W=$(mktemp -d /tmp/zk-durable.XXXXXX)
export ZKSLOT_STATE_DIR=$W/state ZKSLOT_CONFIG=$W/empty.conf ZKSLOT_POOL=$W/no.pool
: >"$ZKSLOT_CONFIG"
cleanup() { if [ $fail = 0 ]; then rm -rf "$W"; else echo "(kept $W)"; fi; }
trap cleanup EXIT
ex=$ZK_SOURCE_DIR/examples/groth16/bn128

# traced NAME CMD...: strace -f -y of CMD into $W/NAME.trace, stdout in $W/NAME.out
# (LeakSanitizer cannot run under ptrace: off for the traced commands of a
# sanitizer build)
traced() {
    local n=$1; shift
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -y -qq -e trace=mkdir,mkdirat,fsync,fdatasync,write,pwrite64 -o "$W/$n.trace" \
        "$@" >"$W/$n.out" 2>"$W/$n.err" || { bad "$n: $* failed: $(cat "$W/$n.err")"; return 1; }
}

# check NAME PRINTED: the order of syncs before the write of PRINTED to fd 1
# (or, when PRINTED is empty, before the end)
check() {
    python3 - "$W/$1.trace" "$2" "${3:-$PWD}" <<'EOF' || fail=1
import os, re, sys
trace, printed, cwd = sys.argv[1], sys.argv[2], sys.argv[3]
call = re.compile(r'^\d+ +(\w+)\((.*)\) += (-?\d+)')
fdpath = re.compile(r'^-?\d+<([^>]*)>')
wal_dirty = False; wal_syncs = 0; made = {}; stop = False; ok = True
for line in open(trace):
    m = call.match(line)
    if not m:
        continue
    name, args, ret = m.group(1), m.group(2), int(m.group(3))
    p = fdpath.match(args)
    path = p.group(1) if p else ''
    if name == 'write' and args.startswith('1<') and printed and ('"%s\\n"' % printed) in args:
        stop = True
        break
    if name in ('write', 'pwrite64') and path.endswith('ledger.db-wal'):
        wal_dirty = True
    elif name in ('fsync', 'fdatasync') and path.endswith('ledger.db-wal'):
        wal_dirty = False; wal_syncs += 1
    elif name in ('fsync', 'fdatasync'):
        for d in list(made):
            if os.path.dirname(d) == path:
                del made[d]
    elif name in ('mkdir', 'mkdirat') and ret == 0:
        made[os.path.join(cwd, re.search(r'"([^"]*)"', args).group(1))] = 1
if printed and not stop:
    print('FAIL: %s: the job id was never written to stdout' % trace); ok = False
if wal_dirty or not wal_syncs:
    print('FAIL: %s: the WAL was not synced after its last write (%d syncs)' % (trace, wal_syncs)); ok = False
for d in made:
    print('FAIL: %s: %s created but its parent not synced' % (trace, d)); ok = False
if ok:
    print('%s: WAL synced %d time(s), every new directory synced in its parent' % (os.path.basename(trace), wal_syncs))
sys.exit(0 if ok else 1)
EOF
}

mkdir -p "$W/state"   # as tmpfiles.d makes it: not submit's to sync
traced key "$ZKSLOT" key add dk "$ex/key.zkey" && check key ""
# a second connection stays open, as the daemons' do: the CLI's close is
# then not the last one and does not checkpoint (which would sync the WAL
# whatever the synchronous setting), so only the commit's own sync counts
python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1])
c.execute("SELECT count(*) FROM keys").fetchall()
print("open", flush=True)
time.sleep(120)' "$W/state/ledger.db" >"$W/holder.out" 2>&1 &
HOLDER=$!
trap 'kill $HOLDER 2>/dev/null; cleanup' EXIT
for _ in $(seq 100); do grep -q open "$W/holder.out" && break; sleep 0.05; done
grep -q open "$W/holder.out" || bad "the second connection did not open: $(cat "$W/holder.out")"
if traced submit "$ZKSLOT" submit --key dk "$ex/witness-1.wtns" "$ex/witness-2.wtns"; then
    j=$(cat "$W/submit.out")
    check submit "$j"
    [ -d "$W/state/jobs/$j/1" ] || bad "job $j: no output directory"
fi
if traced submit-out "$ZKSLOT" submit --key dk --out "$W/new/deeper/out" "$ex/witness-1.wtns"; then
    check submit-out "$(cat "$W/submit-out.out")"
fi
# a relative --out: its first directory's parent is the working directory
mkdir -p "$W/cwd"
if (cd "$W/cwd" && traced submit-rel "$ZKSLOT" submit --key dk --out rel/out "$ex/witness-1.wtns"); then
    check submit-rel "$(cat "$W/submit-rel.out")" "$W/cwd"
    [ -d "$W/cwd/rel/out/0" ] || bad "relative --out: no rel/out/0"
else
    fail=1   # traced said why, in its subshell
fi
[ $fail = 0 ] && echo "submit durable: ok"
exit $fail
