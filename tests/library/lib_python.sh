# lib_python.sh -- examples/external-synth/submit_wait.py (libzkslot's
# client face through ctypes) against a running pipeline.  Source it after
# tests/pipeline/lib.sh and pl_init (and pl_pg_init for PostgreSQL):
#
#   py_submit_wait || ...   # a job of the bn128 example's 4 witnesses
#                           # through submit_wait.py, with synthd and gpud up
#
# The library is the build tree's ($ZKSLOT_LIB).  In a sanitizer tree the
# Python interpreter is not instrumented: py_run preloads the sanitizer's
# runtime (ZK_CC names the compiler that has it).  Checks: the job id
# first, then one line per partition; the job done with proofs snarkjs
# accepts (pl_check_job); each public.json the library returned equal to
# the one gpud wrote.
. "$ZK_SOURCE_DIR/tests/library/lib_install.sh"   # lib_example_key

# py_run ARGS...: python3 ARGS, with the sanitizer's runtime preloaded in
# a sanitizer tree (the interpreter loads the instrumented library).
py_run() {
    if [ -n "${ZK_SANITIZE:-}" ]; then
        env LD_PRELOAD="$("${ZK_CC:-clang}" -print-file-name=libclang_rt.asan-x86_64.so)" \
            ASAN_OPTIONS=detect_leaks=0 python3 "$@"
    else
        python3 "$@"
    fi
}

py_submit_wait() {
    local job
    lib_example_key bn128 || return 1
    py_run "$ZK_SOURCE_DIR/examples/external-synth/submit_wait.py" \
        --lib "$ZKSLOT_LIB" --timeout 120 "$PL_KEYNAME" "${PL_WTNS[@]}" \
        >"$PL_W/py.out" 2>"$PL_W/py.err" ||
        { pl_bad "submit_wait.py exit $?: $(tail -n 3 "$PL_W/py.err")"; return 1; }
    job=$(head -n 1 "$PL_W/py.out")
    [[ $job =~ ^[0-9]+$ ]] || { pl_bad "submit_wait.py's first line is not a job id"; return 1; }
    pl_expect "$job" "${PL_WTNS[@]}"
    pl_check_job "$job" 4 || return 1
    "$ZKSLOT" result "$job" --out "$PL_W/res" >/dev/null || { pl_bad "zkslot result --out"; return 1; }
    python3 - "$PL_W/py.out" "$PL_W/res" <<'PY' || { pl_bad "submit_wait.py's results differ from the ledger's"; return 1; }
import json, sys
lines = open(sys.argv[1]).read().split("\n")[1:]
lines = [l for l in lines if l]
assert len(lines) == 4, lines
for l in lines:
    i, nproof, pub = l.split(" ", 2)
    want = json.load(open("%s/%s/public.json" % (sys.argv[2], i)))
    assert json.loads(pub) == want, (i, pub, want)
    assert int(nproof) > 100, l
PY
    echo "ok: submit_wait.py: job $job, $PL_NPROOFS proofs accepted, results as the ledger's"
}

