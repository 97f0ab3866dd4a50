#!/usr/bin/env python3
"""wtns_public.py WITNESS.wtns N_PUBLIC -- the public signals of a .wtns
(signals 1..N_PUBLIC, decimal strings) as a JSON list on stdout, what a
proof of that witness must carry in public.json.  Imported by the
pipeline tests' checks too (wtns_public)."""
import json
import struct
import sys


def wtns_public(path, n_public):
    b = open(path, "rb").read()
    assert b[:4] == b"wtns", path + ": not a .wtns"
    nsec = struct.unpack_from("<I", b, 8)[0]
    off, n8, data = 12, None, None
    for _ in range(nsec):
        typ, size = struct.unpack_from("<IQ", b, off)
        off += 12
        if typ == 1:
            n8 = struct.unpack_from("<I", b, off)[0]
        elif typ == 2:
            data = off
        off += size
    assert n8 and data is not None, path + ": no header or witness section"
    return [str(int.from_bytes(b[data + i * n8:data + (i + 1) * n8], "little"))
            for i in range(1, 1 + n_public)]


if __name__ == "__main__":
    print(json.dumps(wtns_public(sys.argv[1], int(sys.argv[2]))))
