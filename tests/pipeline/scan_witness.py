#!/usr/bin/env python3
"""scan_witness.py -- which files hold values of a witness.

  scan_witness.py WTNS N_PUBLIC FILE...

Reads the witness (a .wtns file), keeps its private values (after the
constant 1 and the N_PUBLIC public signals) that are at least 2^64 (small
values such as 0, 1 or a counter occur anywhere), at most 48 of them spread
over the witness, and looks for each as 32 little-endian bytes, in standard
and in Montgomery form (BN254 or BLS12-381 scalar field, from the file's
prime), in every FILE.  Prints one line per file, "FILE N" (N: how many of
those values it holds), and first "values K" (K: how many were looked for).
Exits 2 when the witness has no such value (a scan that could not fail).
"""
import mmap
import os
import struct
import sys

def read_wtns(path):
    b = open(path, "rb").read()
    assert b[:4] == b"wtns", path + ": not a .wtns"
    nsec = struct.unpack_from("<I", b, 8)[0]
    off, n8, prime, data, nvars = 12, None, None, None, None
    for _ in range(nsec):
        typ, size = struct.unpack_from("<IQ", b, off)
        off += 12
        if typ == 1:
            n8 = struct.unpack_from("<I", b, off)[0]
            prime = int.from_bytes(b[off + 4:off + 4 + n8], "little")
            nvars = struct.unpack_from("<I", b, off + 4 + n8)[0]
        elif typ == 2:
            data = off
        off += size
    return [int.from_bytes(b[data + i * n8:data + (i + 1) * n8], "little")
            for i in range(nvars)], prime, n8

def main():
    wtns, npub, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    vals, prime, n8 = read_wtns(wtns)
    priv = sorted({v for v in vals[1 + npub:] if v >= 1 << 64})
    if len(priv) > 48:
        step = len(priv) / 48.0
        priv = [priv[int(i * step)] for i in range(48)]
    if not priv:
        print("no private value of at least 2^64 in " + wtns)
        sys.exit(2)
    r = 1 << (8 * n8)
    pats = [[v.to_bytes(n8, "little"), (v * r % prime).to_bytes(n8, "little")] for v in priv]
    print("values %d" % len(pats))
    for f in files:
        n = 0
        try:
            size = os.path.getsize(f)
            with open(f, "rb") as fh:
                m = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
                for p in pats:
                    if any(m.find(x) >= 0 for x in p):
                        n += 1
        except OSError as e:
            print("%s: %s" % (f, e), file=sys.stderr)
            n = -1
        print("%s %d" % (f, n))

main()
