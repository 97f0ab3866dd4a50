# lib.sh -- the pipeline under test: a private pool and state directory,
# zkslot-synthd and zkslot-gpud started as real processes, jobs of several
# partitions of a chain circuit (witnesses computed by snarkjs), and checks
# of every proof by snarkjs and by `zkslot verify`.  Source it from bash:
#
#   . "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
#   pl_init NAME || exit 77        # skip reason printed
#   pl_circuit bn128 600 4         # -> PL_KEY, PL_VK, PL_WTNS=(4 witnesses)
#   pl_pool 4 ; pl_start_synthd ; pl_start_gpud
#   job=$(pl_submit) ; pl_wait "$job" 120 && pl_check_job "$job" 4
#
# Everything lives under $PL_W (removed on success) and the pool in
# /dev/shm; an EXIT trap kills the daemons and destroys the pool.
#
# Failures cannot be lost: every check helper returns non-zero when it
# fails, and pl_bad records the failure in $PL_W/failures as well as in
# PL_FAIL, so a pl_bad that runs in a subshell (a command substitution, a
# pipeline) still fails the test: the EXIT trap turns an exit status of 0
# into 1 when a failure was recorded.  Under `set -e` (every pipeline test
# runs with `set -euo pipefail`) an ERR trap names the command and line
# that failed.  Messages go to stderr, never into a caller's $(...).
# An exit 77 after pl_init is a failure unless pl_skip said why.
. "$ZK_SOURCE_DIR/tests/interop/lib.sh"

: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}"
PL_FAIL=0
PL_SYNTHD_PIDS=()
PL_GPUD_PIDS=()

pl_bad() {
    echo "FAIL: $*" >&2
    PL_FAIL=1
    [ -z "${PL_W:-}" ] || echo "FAIL: $*" >>"$PL_W/failures"
}
pl_log() { echo "--- $*"; }

# pl_skip REASON: skip the test (exit 77) after pl_init; counted as a skip.
pl_skip() { echo "SKIP: $*"; PL_SKIPPED=1; exit 77; }

# pl_failures: how many failures were recorded, subshells included.
pl_failures() {
    local n=0
    [ ! -s "$PL_W/failures" ] || n=$(wc -l <"$PL_W/failures")
    [ "$PL_FAIL" = 0 ] || [ "$n" -gt 0 ] || n=1
    echo "$n"
}

# pl_done: end the test, exit 0 only when nothing failed (an exit, not a
# failing last command: under set -e that would also trip the ERR trap).
pl_done() {
    [ "$(pl_failures)" != 0 ] || exit 0
    exit 1
}

pl__err() {   # ERR trap under set -e: which command failed, where
    echo "FAIL: line $1: exit $3: $2" >&2
    [ -z "${PL_W:-}" ] || echo "FAIL: line $1: exit $3: $2" >>"$PL_W/failures"
}

# pl_init NAME: private pool path and state dir; 1 (skip) without node.
pl_init() {
    zk_interop_init || { echo "SKIP: $ZK_INTEROP_SKIP"; return 1; }
    pl_init_bare "$1"
}

# pl_init_bare NAME: pl_init without the npm modules (a test that needs no
# snarkjs: the bellperson and Filecoin tests).
pl_init_bare() {
    PL_NAME=$1
    PL_W="${ZK_BUILD_DIR:-/tmp}/pipeline-work/$PL_NAME"
    rm -rf "$PL_W" && mkdir -p "$PL_W/state"
    export ZKSLOT_POOL=/dev/shm/zkslot-test-$PL_NAME-$$.pool
    export ZKSLOT_STATE_DIR=$PL_W/state
    export ZKSLOT_CONFIG=$PL_W/none.conf     # no /etc/zkslot/zkslot.conf in tests
    : >"$ZKSLOT_CONFIG"
    mkdir -p "$PL_W/jobs"
    PL_SKIPPED=0
    trap pl_cleanup EXIT
    case $- in *e*) set -E; trap 'pl__err "$LINENO" "$BASH_COMMAND" "$?"' ERR ;; esac
}

# The EXIT trap: kill the daemons, drop the pool, and make the exit status
# say whether anything failed (a failure recorded in a subshell included).
pl_cleanup() {
    local rc=$? p f n
    set +e
    trap - ERR
    for p in "${PL_SYNTHD_PIDS[@]}" "${PL_GPUD_PIDS[@]}"; do
        kill -9 "$p" 2>/dev/null
    done
    wait 2>/dev/null
    # a synthd killed here leaves its witness directory in /dev/shm (a
    # synthd of the same pool would remove it, and there is none after this;
    # the name: zkslot-synthd-<16 hex digits of the pool>-<pid>-<start>-...)
    for p in "${PL_SYNTHD_PIDS[@]}"; do
        rm -rf /dev/shm/zkslot-synthd-????????????????-"$p"-*
    done
    "$ZKSLOT" pool destroy --force >/dev/null 2>&1
    rm -f "$ZKSLOT_POOL" "$ZKSLOT_POOL".data
    n=$(pl_failures)
    if [ "$rc" = 77 ] && [ "$PL_SKIPPED" != 1 ]; then
        echo "FAIL: exit 77 (skip) after pl_init without pl_skip" >&2
        n=$((n + 1))
    fi
    if [ "$n" = 0 ] && [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
        n=1                                   # exited non-zero on its own
    fi
    if [ "$n" = 0 ] && [ -z "${PL_KEEP:-}" ]; then
        rm -rf "$PL_W"
    elif [ "$n" != 0 ]; then
        echo "$PL_NAME: $n failure(s):" >&2
        [ ! -s "$PL_W/failures" ] || sed 's/^/  /' "$PL_W/failures" >&2
        echo "(logs kept in $PL_W)"
        for f in "$PL_W"/*.log; do
            [ -f "$f" ] || continue
            echo "==> $f (tail)"; tail -n 25 "$f"
        done
    fi
    [ "$n" = 0 ] || { [ "$rc" != 0 ] && [ "$rc" != 77 ] || rc=1; }
    exit "$rc"
}

# pl_circuit CURVE N K: Chain(N) for CURVE, a `zkslot setup` key registered
# as "$CURVE-chain$N", its vk, and K different witnesses (x = 2..K+1,
# y = 3^150 + k).  y is the only B-side variable of the chain (t[i] =
# t[i-1] * y + i), so it alone decides B2's MSM: a large y with
# random-looking digits, so that a wrong G2 MSM (a negative digit not
# negated, tools/mutants.sh) makes a wrong proof; a small y would not.
pl_circuit() {
    local curve=$1 n=$2 k=$3 name="chain_$2" d i
    d=$(zk_compile "$name" "$curve") || return 1
    PL_CURVE=$curve
    PL_KEY="$ZK_INTEROP_WORK/pipeline-$curve-$name.zkey"
    if [ ! -f "$PL_KEY" ] || [ "$PL_KEY" -ot "$d/$name.r1cs" ]; then
        "$ZKSLOT" setup "$d/$name.r1cs" "$PL_KEY.tmp.$$" --curve "$curve" 2>/dev/null &&
            mv "$PL_KEY.tmp.$$" "$PL_KEY" || { rm -f "$PL_KEY.tmp.$$"; return 1; }
    fi
    PL_VK="$PL_KEY.vk.json"
    if [ ! "$PL_VK" -nt "$PL_KEY" ]; then
        "$ZKSLOT" export-vk "$PL_KEY" "$PL_VK.tmp.$$" && mv "$PL_VK.tmp.$$" "$PL_VK" || return 1
    fi
    PL_WTNS=()
    for ((i = 0; i < k; i++)); do
        local in="$ZK_INTEROP_WORK/pipeline-in-y3e150-$i.json" w="$ZK_INTEROP_WORK/pipeline-$curve-$name-y3e150-$i.wtns"
        if [ ! -f "$in" ]; then   # fixed content; written once, atomically
            python3 -c 'import sys; i = int(sys.argv[1]); print("{\"x\":\"%d\",\"y\":\"%d\"}" % (i + 2, 3**150 + i))' \
                "$i" >"$in.tmp.$$" && mv "$in.tmp.$$" "$in" || return 1
        fi
        zk_witness "$d/${name}_js/$name.wasm" "$in" "$w" >/dev/null || return 1
        PL_WTNS+=("$w")
    done
    PL_KEYNAME="$curve-chain$n"
    "$ZKSLOT" key list 2>/dev/null | grep -w -- "$PL_KEYNAME" >/dev/null ||
        "$ZKSLOT" key add "$PL_KEYNAME" "$PL_KEY" >/dev/null || return 1
}

# pl_pool NSLOTS [SLOT_SIZE]: a tmpfs pool.
pl_pool() {
    "$ZKSLOT" pool create --slots "$1" --slot-size "${2:-4M}" --tmpfs >/dev/null ||
        { pl_bad "pool create"; return 1; }
}

# pl_start_synthd [ARGS]: in the background, log in $PL_W/synthd.log.
pl_start_synthd() {
    "$ZKSLOT_SYNTHD" "$@" >>"$PL_W/synthd.log" 2>&1 &
    PL_SYNTHD=$!
    PL_SYNTHD_PIDS+=("$PL_SYNTHD")
}

pl_start_gpud() {
    "$ZKSLOT_GPUD" --backend cpu "$@" >>"$PL_W/gpud.log" 2>&1 &
    PL_GPUD=$!
    PL_GPUD_PIDS+=("$PL_GPUD")
}

# pl_stop PID: SIGTERM and wait; the exit status in PL_RC (not a subshell:
# only this shell can wait for its children).
pl_stop() {
    kill -TERM "$1" 2>/dev/null || true
    PL_RC=0
    wait "$1" 2>/dev/null || PL_RC=$?
}

# pl_wait_pid PID SECONDS: wait for a child that should exit on its own,
# at most SECONDS (then SIGKILL, PL_RC=124 and a failure); its exit status
# in PL_RC.  A bare `wait` would hang until ctest's timeout.
pl_wait_pid() {
    local pid=$1 i
    for ((i = 0; i < $2 * 10; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        pl_bad "pid $pid still running after $2 s"
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        PL_RC=124
        return 1
    fi
    PL_RC=0
    wait "$pid" 2>/dev/null || PL_RC=$?
}

# pl_notify_listen SOCK LOG: a datagram socket at SOCK standing in for
# systemd's NOTIFY_SOCKET, each message a daemon sends appended to LOG
# (STATUS=... lines); its pid in PL_NOTIFY, for the caller's EXIT code to
# kill.  1 (PL_NOTIFY empty) when synthd is built without libsystemd.
pl_notify_listen() {
    PL_NOTIFY=
    ldd "$ZKSLOT_SYNTHD" 2>/dev/null | grep -q libsystemd || return 1
    python3 -u -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
out = open(sys.argv[2], "a", buffering=1)
while True:
    out.write(s.recv(65536).decode("utf-8", "replace") + "\n")' "$1" "$2" &
    PL_NOTIFY=$!
    for _ in $(seq 50); do [ -S "$1" ] && break; sleep 0.1; done
}

# pl_wait_log DAEMON PID REGEX SECONDS: 0 once $PL_W/DAEMON.log has a line
# of process PID matching REGEX (grep -E), else pl_bad and 1 after SECONDS.
# For the test hooks that log when a daemon reaches the state to kill it in.
pl_wait_log() {
    local i
    for ((i = 0; i <= $4 * 10; i++)); do
        grep -qE "$1\[$2\]: .*$3" "$PL_W/$1.log" 2>/dev/null && return 0
        sleep 0.1
    done
    pl_bad "$1 $2 never logged /$3/ in $4 s"
    return 1
}

# pl_submit [N]: a job of the first N (default all) witnesses; prints its id.
pl_submit() {
    local n=${1:-${#PL_WTNS[@]}}
    pl_submit_wtns "${PL_WTNS[@]:0:$n}"
}

# pl_submit_wtns WITNESS...: a job of these witnesses, in this order; prints
# its id and records, in $PL_W/jobs/JOB.expect, what partition k must
# prove (witness k): pl_check_job compares partition k's public.json with
# the public signals of that witness.  A file, so that it survives the
# $(...) the id is read with.
PL_SUBMIT_ARGS=()   # more options of the submits (--priority CLASS, ...)
pl_submit_wtns() {
    local id
    id=$("$ZKSLOT" submit --key "$PL_KEYNAME" "${PL_SUBMIT_ARGS[@]}" "$@") || return 1
    pl_expect "$id" "$@" || return 1
    echo "$id"
}

# pl_expect JOB FILE...: record what JOB's partitions must prove, for a job
# not submitted through pl_submit_wtns (one FILE per partition, in order:
# a .wtns, or a .json array of the public signals as decimal strings).
pl_expect() {
    local id=$1
    shift
    printf '%s\n' "$@" >"$PL_W/jobs/$id.expect"
}

# pl_wait JOB TIMEOUT: 0 when done.  Once one wait has failed the test
# has failed: later waits get at most 10 s, so that a bug which stops the
# pipeline (a mutant, tools/mutants.sh) fails in seconds, not TIMEOUT per job.
PL_WAIT_FAILED=0
pl_wait() {
    local rc=0 t=$2
    [ "$PL_WAIT_FAILED" = 0 ] || t=$(( t < 10 ? t : 10 ))
    "$ZKSLOT" wait "$1" --timeout "$t" >/dev/null 2>"$PL_W/wait.err" || rc=$?
    [ "$rc" = 0 ] || { PL_WAIT_FAILED=1; pl_bad "job $1: wait exit $rc: $(tail -n 2 "$PL_W/wait.err")"; "$ZKSLOT" status "$1" >&2 || true; }
    return $rc
}

# pl_check_job JOB [N]: 0 only when all of these hold, else one pl_bad per
# failure and 1:
#   - `zkslot result` lists N partitions (default: as many as were
#     submitted), partition k at <out_dir>/k/{proof,public}.json, both there;
#   - partition k's public.json equals the public signals of what partition
#     k was submitted with ($PL_W/jobs/JOB.expect, line k: a .wtns, whose
#     signals 1..nPublic are read here, or a .json array of the expected
#     decimal strings), so a partition or slot mix-up fails;
#   - `zkslot verify` exits 0 for each proof (1 = invalid, 2 = error);
#   - `zkslot result JOB --out DIR` writes each partition from the ledger
#     (as on a machine that did not prove it): its public.json equals
#     gpud's byte for byte;
#   - snarkjs (one node process for the whole job: verify_many.cjs) prints
#     "ok" for each proof file gpud wrote and each one the ledger gave,
#     and exits 0.
# PL_NPROOFS: the number of partitions listed.  Call it where its status is
# seen (`pl_check_job "$j" 4 || ...`, or plainly under set -e), never
# inside $(...).
pl_check_job() {
    local job=$1 want=${2:-} proof pub n=0 bad=0 args=()
    PL_NPROOFS=0
    if [ ! -f "$PL_W/jobs/$job.expect" ]; then
        pl_bad "job $job: no record of what it was submitted with (submit with pl_submit)"
        return 1
    fi
    [ -n "$want" ] || want=$(wc -l <"$PL_W/jobs/$job.expect")
    # stderr apart: notes (a key file not here: proofs not verified) are not paths
    if ! "$ZKSLOT" result "$job" >"$PL_W/result.$job" 2>"$PL_W/result.$job.err"; then
        pl_bad "job $job: zkslot result: $(head -n 2 "$PL_W/result.$job.err")"
        return 1
    fi
    if ! "$ZKSLOT" status "$job" --json >"$PL_W/status.$job.json" 2>&1; then
        pl_bad "job $job: zkslot status: $(head -n 2 "$PL_W/status.$job.json")"
        return 1
    fi
    python3 - "$PL_VK" "$PL_W/jobs/$job.expect" "$PL_W/result.$job" "$PL_W/status.$job.json" \
        "$want" >"$PL_W/public.$job.out" 2>&1 <<'PY' || bad=1
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["ZK_SOURCE_DIR"], "tests", "pipeline"))
from wtns_public import wtns_public
vk, expect, result, status, want = sys.argv[1:6]
n_public = json.load(open(vk))["nPublic"]
s = json.load(open(status))
out_dir = (s.get("job") or s)["out_dir"]
exp = [l.strip() for l in open(expect) if l.strip()]
res = [l.split() for l in open(result) if l.strip()]
fails = []
def public_of(path):
    if not path.endswith(".wtns"):
        return [str(x) for x in json.load(open(path))]
    return wtns_public(path, n_public)
if len(res) != int(want):
    fails.append("%d partitions listed by zkslot result, expected %s" % (len(res), want))
if len(exp) != int(want):
    fails.append("%d partitions submitted, expected %s" % (len(exp), want))
for k, r in enumerate(res):
    wp, wu = "%s/%d/proof.json" % (out_dir, k), "%s/%d/public.json" % (out_dir, k)
    if r != [wp, wu]:
        fails.append("partition %d listed as %s, expected %s %s" % (k, " ".join(r), wp, wu))
        continue
    if not (os.path.isfile(wp) and os.path.isfile(wu)):
        fails.append("partition %d: missing %s" % (k, wp if not os.path.isfile(wp) else wu))
        continue
    if k >= len(exp):
        continue
    got, e = json.load(open(wu)), public_of(exp[k])
    if got != e:
        fails.append("partition %d: public.json %s is not the public signals %s of %s"
                     % (k, got, e, exp[k]))
for f in fails:
    print(f)
sys.exit(1 if fails else 0)
PY
    if [ "$bad" = 1 ]; then
        while read -r line; do pl_bad "job $job: $line"; done <"$PL_W/public.$job.out"
        [ -s "$PL_W/public.$job.out" ] || pl_bad "job $job: the public.json check failed to run"
    fi
    while read -r proof pub; do
        [ -f "$proof" ] && [ -f "$pub" ] || continue        # named above
        local rc=0
        "$ZKSLOT" verify "$PL_VK" "$pub" "$proof" >/dev/null 2>"$PL_W/zverify.err" || rc=$?
        [ "$rc" = 0 ] || { pl_bad "job $job: zkslot verify exit $rc for $proof: $(tail -n 1 "$PL_W/zverify.err")"; bad=1; }
        args+=("$pub" "$proof")
        n=$((n + 1))
    done <"$PL_W/result.$job"
    PL_NPROOFS=$n
    if [ "$n" = 0 ]; then
        pl_bad "job $job: no proofs listed"
        return 1
    fi
    # the results kept in the ledger, written out as on another machine:
    # the same public signals as gpud's files, and proofs snarkjs accepts
    local fetched="$PL_W/fetched.$job" m=0 fproof fpub
    rm -rf "$fetched"
    if ! "$ZKSLOT" result "$job" --out "$fetched" >"$PL_W/fetched.$job.list" 2>"$PL_W/fetched.$job.err"; then
        pl_bad "job $job: zkslot result --out: $(head -n 2 "$PL_W/fetched.$job.err")"
        bad=1
    fi
    while read -r proof pub && read -r fproof fpub <&3; do
        m=$((m + 1))
        [ -f "$fproof" ] && [ -f "$fpub" ] || { pl_bad "job $job: zkslot result --out listed $fproof, not written"; bad=1; continue; }
        cmp -s "$pub" "$fpub" || { pl_bad "job $job: $fpub (from the ledger) differs from $pub"; bad=1; }
        args+=("$fpub" "$fproof")
    done <"$PL_W/result.$job" 3<"$PL_W/fetched.$job.list"
    [ "$m" = "$n" ] || { pl_bad "job $job: zkslot result --out wrote $m partitions, $n listed"; bad=1; }
    local rc=0 ok
    node "$ZK_SOURCE_DIR/tests/pipeline/verify_many.cjs" "$PL_VK" "${args[@]}" >"$PL_W/verify.out" 2>&1 || rc=$?
    ok=$(grep -c '^ok ' "$PL_W/verify.out" || true)
    if [ "$rc" != 0 ] || [ "$ok" != "$((n + m))" ]; then
        pl_bad "job $job: snarkjs: exit $rc, $ok of $((n + m)) accepted (gpud's files and the ledger's): $(grep -v '^ok ' "$PL_W/verify.out" | head -n 3)"
        bad=1
    fi
    [ "$bad" = 0 ]
}

# pl_job_json JOB FILE: `zkslot status JOB --json` into FILE (0 when it ran).
pl_job_json() {
    "$ZKSLOT" status "$1" --json >"$2" 2>&1 || { pl_bad "zkslot status $1: $(head -n 2 "$2")"; return 1; }
}

# pl_pool_clean: `zkslot pool check` finds nothing wrong.
pl_pool_clean() {
    "$ZKSLOT" pool check >"$PL_W/check.out" 2>&1 ||
        { pl_bad "pool check: $(cat "$PL_W/check.out")"; return 1; }
}
