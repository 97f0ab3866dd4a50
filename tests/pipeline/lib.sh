# lib.sh -- the pipeline under test: a private pool and state directory,
# zkslot-synthd and zkslot-gpud started as real processes, jobs of several
# partitions of a chain circuit (witnesses computed by snarkjs), and checks
# of every proof by snarkjs and by `zkslot verify`.  Source it from bash:
#
#   . "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"
#   pl_init NAME || exit 77        # skip reason printed
#   pl_circuit bn128 600 4         # -> PL_KEY, PL_VK, PL_WTNS=(4 witnesses)
#   pl_pool 4 ; pl_start_synthd ; pl_start_gpud
#   job=$(pl_submit) ; pl_wait "$job" 120 ; pl_check_job "$job"
#
# Everything lives under $PL_W (removed on success) and the pool in
# /dev/shm; an EXIT trap kills the daemons and destroys the pool.
. "$ZK_SOURCE_DIR/tests/interop/lib.sh"

: "${ZKSLOT:?}" "${ZKSLOT_SYNTHD:?}" "${ZKSLOT_GPUD:?}"
PL_FAIL=0
PL_SYNTHD_PIDS=()
PL_GPUD_PIDS=()

pl_bad() { echo "FAIL: $*"; PL_FAIL=1; }
pl_log() { echo "--- $*"; }

# pl_init NAME: private pool path and state dir; 1 (skip) without node.
pl_init() {
    zk_interop_init || { echo "SKIP: $ZK_INTEROP_SKIP"; return 1; }
    PL_NAME=$1
    PL_W="${ZK_BUILD_DIR:-/tmp}/pipeline-work/$PL_NAME"
    rm -rf "$PL_W" && mkdir -p "$PL_W/state"
    export ZKSLOT_POOL=/dev/shm/zkslot-test-$PL_NAME-$$.pool
    export ZKSLOT_STATE_DIR=$PL_W/state
    export ZKSLOT_CONFIG=$PL_W/none.conf     # no /etc/zkslot/zkslot.conf in tests
    : >"$ZKSLOT_CONFIG"
    trap pl_cleanup EXIT
}

pl_cleanup() {
    local p
    for p in "${PL_SYNTHD_PIDS[@]}" "${PL_GPUD_PIDS[@]}"; do
        kill -9 "$p" 2>/dev/null
    done
    wait 2>/dev/null
    "$ZKSLOT" pool destroy --force >/dev/null 2>&1
    rm -f "$ZKSLOT_POOL"
    if [ "$PL_FAIL" = 0 ] && [ -z "${PL_KEEP:-}" ]; then
        rm -rf "$PL_W"
    else
        echo "(logs kept in $PL_W)"
        for f in "$PL_W"/*.log; do
            [ -f "$f" ] || continue
            echo "==> $f (tail)"; tail -n 25 "$f"
        done
    fi
}

# pl_circuit CURVE N K: Chain(N) for CURVE, a `zkslot setup` key registered
# as "$CURVE-chain$N", its vk, and K different witnesses (x = 2..K+1).
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
        local in="$ZK_INTEROP_WORK/pipeline-in-$i.json" w="$ZK_INTEROP_WORK/pipeline-$curve-$name-$i.wtns"
        if [ ! -f "$in" ]; then   # fixed content; written once, atomically
            printf '{"x":"%d","y":"%d"}\n' $((i + 2)) $((i + 5)) >"$in.tmp.$$" && mv "$in.tmp.$$" "$in"
        fi
        zk_witness "$d/${name}_js/$name.wasm" "$in" "$w" >/dev/null || return 1
        PL_WTNS+=("$w")
    done
    PL_KEYNAME="$curve-chain$n"
    "$ZKSLOT" key list 2>/dev/null | grep -qw -- "$PL_KEYNAME" ||
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
    kill -TERM "$1" 2>/dev/null
    PL_RC=0
    wait "$1" 2>/dev/null || PL_RC=$?
}

# pl_submit [N]: a job of the first N (default all) witnesses; prints its id.
pl_submit() {
    local n=${1:-${#PL_WTNS[@]}}
    "$ZKSLOT" submit --key "$PL_KEYNAME" "${PL_WTNS[@]:0:$n}"
}

# pl_wait JOB TIMEOUT: 0 when done.
pl_wait() {
    "$ZKSLOT" wait "$1" --timeout "$2" >/dev/null 2>"$PL_W/wait.err"
    local rc=$?
    [ "$rc" = 0 ] || { pl_bad "job $1: wait exit $rc: $(tail -n 2 "$PL_W/wait.err")"; "$ZKSLOT" status "$1"; }
    return $rc
}

# pl_check_job JOB: every partition's proof accepted by snarkjs (one node
# process for the whole job: verify_many.cjs) and by `zkslot verify`;
# prints the number of proofs.
pl_check_job() {
    local job=$1 proof pub n=0 args=()
    while read -r proof pub; do
        [ -f "$proof" ] && [ -f "$pub" ] || { pl_bad "job $job: missing $proof"; continue; }
        "$ZKSLOT" verify "$PL_VK" "$pub" "$proof" >/dev/null ||
            pl_bad "job $job: zkslot verify rejects $proof"
        args+=("$pub" "$proof")
        n=$((n + 1))
    done < <("$ZKSLOT" result "$job")
    [ "$n" -gt 0 ] || { pl_bad "job $job: no proofs listed"; echo 0; return; }
    node "$ZK_SOURCE_DIR/tests/pipeline/verify_many.cjs" "$PL_VK" "${args[@]}" >"$PL_W/verify.out" 2>&1 ||
        pl_bad "job $job: snarkjs rejects: $(grep -v '^ok' "$PL_W/verify.out" | head -3)"
    echo "$n"
}

# pl_pool_clean: `zkslot pool check` finds nothing wrong.
pl_pool_clean() {
    "$ZKSLOT" pool check >"$PL_W/check.out" 2>&1 ||
        { pl_bad "pool check: $(cat "$PL_W/check.out")"; return 1; }
}
