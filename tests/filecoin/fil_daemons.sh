# fil_daemons.sh -- sourced by the tests in tests/filecoin/ that run the
# daemons (test_fil_pool.sh, test_fil_kill.sh): the pipeline helpers
# (tests/pipeline/lib.sh), then fil_daemons_init NAME SEED [KINDS]:
#   - $fs, the synthesizer (zkslot-fil-synth from $ZK_CARGO_TARGET, else
#     /var/cache/zkslot/cargo-target/release; exit 77 when not built), and
#     $cache, the parameter cache ($ZK_FIL_CACHE, made there when absent);
#   - pl_init_bare NAME: $PL_W, a private pool path, state directory, config;
#   - the test inputs in $PL_W/in (`sectors --seed SEED`), and the 2 KiB
#     parameters of KINDS (default all four) made if not cached;
#   - the synthesizer installed as this machine's allowed generator
#     ($PL_W/gen, root's, 0755: docs/synthesis.md) and named for the CLI's
#     split ($ZKSLOT_FIL_SYNTH).
. "$ZK_SOURCE_DIR/tests/pipeline/lib.sh"

fil_daemons_init() {
  local name=$1 seed=$2 kinds=${3:-porep,winning,window,snap}
  local tgt=${ZK_CARGO_TARGET:-/var/cache/zkslot/cargo-target/release}
  fs=$tgt/zkslot-fil-synth
  [ -x "$fs" ] || fs=$tgt/release/zkslot-fil-synth
  [ -x "$fs" ] || { echo "SKIP: zkslot-fil-synth is not built in $tgt (tools/cargo-build.sh)"; exit 77; }
  cache=${ZK_FIL_CACHE:-/var/cache/zkslot/fil-params}
  pl_init_bare "$name"
  mkdir -p "$PL_W/gen"
  "$fs" params --cache "$cache" --sector-size 2048 --kinds "$kinds" >"$PL_W/params.out" 2>&1 ||
    { pl_bad "params: $(tail -n 3 "$PL_W/params.out")"; exit 1; }
  "$fs" sectors --cache "$cache" --out "$PL_W/in" --seed "$seed" >"$PL_W/sectors.out" 2>&1 ||
    { pl_bad "sectors: $(tail -n 3 "$PL_W/sectors.out")"; exit 1; }
  install -m 0755 "$fs" "$PL_W/gen/zkslot-fil-synth"
  chmod 0755 "$PL_W/gen"
  printf '[synthd]\ngenerators = %s\n' "$PL_W/gen" >"$ZKSLOT_CONFIG"
  export ZKSLOT_FIL_SYNTH=$PL_W/gen/zkslot-fil-synth
}
