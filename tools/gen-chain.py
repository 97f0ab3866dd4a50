#!/usr/bin/env python3
"""gen-chain.py -- the chain benchmark circuit's constraint system (.r1cs)
and witness (.wtns) written directly, without circom2, for any size.

  gen-chain.py N OUTDIR [--curve bn128|bls12381] [--input FILE.json]

writes OUTDIR/chain_N.r1cs and OUTDIR/chain_N.wtns (each through a
temporary file renamed into place) and exits 0; on a bad argument or an
unwritable OUTDIR it says which and exits 2.

The circuit is tests/interop/circuits/chain.circom's Chain(N) with x
public, as lib.sh's zk_chain_circuit instantiates it:
  t[0] = x * y,  t[i] = t[i-1] * y + i (i = 1..N-1),  out = t[N-1].
The .r1cs is the one circom2 writes for it (--O1 and --O2 alike: the
linear `out <== t[N-1]` is folded away, t[N-1] is the output wire), byte
for byte: header 1 after the constraints (sections 2, 1, 3), wires
[1, out, x, y, t[0..N-2]], each label its wire's index, constraint i
  A = -t[i-1] (x for i = 0),  B = y,  C = i - t[i]  (-t[0] for i = 0),
coefficients plain little-endian mod r (-1 is r - 1).  The witness is
computed in that wire order mod r, the values plain (docs/formats.md,
sections 2 to 4).  The input file is the circuit's JSON input, {"x": X,
"y": Y} (decimal strings or numbers); default x = 5, y = 3, the values of
tests/interop/circuits/chain.input.json.

circom2 (WASI) needs minutes for 2^18 constraints and far longer for
2^20; this takes seconds.  tools/bench-prove.sh uses it for chain_N
circuits (--generate, or N >= 100000); tests/interop/test_gen_chain.sh
checks it against circom2's and snarkjs's files at small N.
"""
import json
import os
import struct
import sys

PRIMES = {
    "bn128": 21888242871839275222246405745257275088548364400416034343698204186575808495617,
    "bls12381": 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
}
N8 = 32


def die(msg):
    sys.stderr.write(f"gen-chain: {msg}\n")
    sys.exit(2)


def fe(v):
    """A field element's n8 little-endian bytes (v already reduced)."""
    return v.to_bytes(N8, "little")


def section(sid, payload_size):
    return struct.pack("<IQ", sid, payload_size)


def write_atomic(path, chunks):
    """Write the byte chunks to path through path.tmp.PID, renamed."""
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            for c in chunks:
                f.write(c)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        die(f"{path}: {e.strerror}")


def r1cs_chunks(n, r):
    """The .r1cs of Chain(n) as circom2 writes it, in pieces."""
    n_wires = n + 3                     # 1, out, x, y, t[0..n-2]
    one, neg1 = fe(1), fe(r - 1)

    def wire_t(i):                      # t[n-1] is the output wire
        return 1 if i == n - 1 else 4 + i

    # section 2: constraint 0 is three one-term combinations (120 bytes),
    # each later one has a two-term C (156 bytes)
    sec2 = 120 + 156 * (n - 1)
    yield b"r1cs" + struct.pack("<II", 1, 3)
    yield section(2, sec2)
    term1 = struct.pack("<II", 1, 2) + neg1      # A = -x
    term_y = struct.pack("<II", 1, 3) + one      # B = y
    yield term1 + term_y + struct.pack("<II", 1, wire_t(0)) + neg1
    buf = []
    for i in range(1, n):
        buf.append(struct.pack("<II", 1, wire_t(i - 1)) + neg1 + term_y +
                   struct.pack("<II", 2, 0) + fe(i) +
                   struct.pack("<I", wire_t(i)) + neg1)
        if len(buf) == 65536:
            yield b"".join(buf)
            buf = []
    yield b"".join(buf)
    # section 1: the header
    yield section(1, 32 + N8)
    yield struct.pack("<I", N8) + fe(r) + struct.pack("<IIIIQI", n_wires, 1, 1, 1, n + 4, n)
    # section 3: wire -> label, the identity
    yield section(3, 8 * n_wires)
    for lo in range(0, n_wires, 65536):
        hi = min(n_wires, lo + 65536)
        yield struct.pack(f"<{hi - lo}Q", *range(lo, hi))


def wtns_chunks(n, r, x, y):
    """The .wtns of Chain(n) for input (x, y), in circom's wire order."""
    t = [0] * n
    acc = x * y % r
    t[0] = acc
    for i in range(1, n):
        acc = (acc * y + i) % r
        t[i] = acc
    yield b"wtns" + struct.pack("<II", 2, 2)
    yield section(1, 4 + N8 + 4) + struct.pack("<I", N8) + fe(r) + struct.pack("<I", n + 3)
    yield section(2, N8 * (n + 3))
    yield fe(1) + fe(t[n - 1]) + fe(x) + fe(y)
    for lo in range(0, n - 1, 65536):
        yield b"".join(fe(v) for v in t[lo:min(n - 1, lo + 65536)])


def read_input(path, r):
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: {getattr(e, 'strerror', None) or e}")
    try:
        vals = [int(str(j[k])) for k in ("x", "y")]
    except (KeyError, TypeError, ValueError):
        die(f'{path}: want {{"x": X, "y": Y}} with decimal values')
    if any(v < 0 or v >= r for v in vals):
        die(f"{path}: x and y must be below the field's prime")
    return vals


def main(argv):
    pos, curve, inp = [], "bn128", None
    it = iter(argv)
    for a in it:
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__.split("\n\n")[1] + "\n")
            return 0
        if a in ("--curve", "--input"):
            v = next(it, None)
            if v is None:
                die(f"{a} needs a value")
            if a == "--curve":
                curve = v
            else:
                inp = v
        elif a.startswith("-"):
            die(f"unknown option {a}")
        else:
            pos.append(a)
    if len(pos) != 2:
        die("usage: gen-chain.py N OUTDIR [--curve bn128|bls12381] [--input FILE.json]")
    if curve not in PRIMES:
        die(f"unknown curve '{curve}' (bn128 or bls12381)")
    r = PRIMES[curve]
    if not pos[0].isdigit() or not 1 <= int(pos[0]) <= (1 << 28):
        die(f"N '{pos[0]}' is not a number of constraints in 1..2^28")
    n, out = int(pos[0]), pos[1]
    if not os.path.isdir(out):
        die(f"{out}: not a directory")
    x, y = read_input(inp, r) if inp else (5, 3)
    write_atomic(os.path.join(out, f"chain_{n}.r1cs"), r1cs_chunks(n, r))
    write_atomic(os.path.join(out, f"chain_{n}.wtns"), wtns_chunks(n, r, x, y))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
