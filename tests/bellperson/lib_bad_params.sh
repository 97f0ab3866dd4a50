# lib_bad_params.sh -- sourced by the bellperson tests: broken copies of a
# good parameter file, each broken one way.
#   bad_params GOOD DIR   writes DIR/trunc.params (the first half),
#                         DIR/swap.params (the queries h and l swapped) and
#                         DIR/curve.params (alpha_g1 := BN254's generator)

bad_params() {
  local p=$1 dir=$2
  head -c $(( $(stat -c %s "$p") / 2 )) "$p" > "$dir/trunc.params"
  python3 - "$p" "$dir/swap.params" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off = 96 * 3 + 192 * 3          # alpha1 beta1 beta2 gamma2 delta1 delta2
def query(off, size):
    n = struct.unpack(">I", b[off:off + 4])[0]
    return off + 4 + n * size
ic_end = query(off, 96)
h_end = query(ic_end, 96)
l_end = query(h_end, 96)
open(sys.argv[2], "wb").write(b[:ic_end] + b[h_end:l_end] + b[ic_end:h_end] + b[l_end:])
PY
  python3 - "$p" "$dir/curve.params" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
# alpha_g1 := BN254's generator (1, 2), written as a BLS12-381 G1 point
b[0:96] = (1).to_bytes(48, "big") + (2).to_bytes(48, "big")
open(sys.argv[2], "wb").write(b)
PY
}
