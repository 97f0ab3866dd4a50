#!/usr/bin/env python3
"""hostile_writer.py POOL SECONDS LOG -- a process with write access to the
slot pool that corrupts it at random while the daemons run: header geometry
fields, slot state words, slot header ids, region tables, checksums and data
bytes, one change every 10-60 ms.  The pool header is restored at the end
(so that the test's own `pool check` can attach); everything else is left
as the daemons made of it.  LOG gets one line per corruption kind with its
count.  Offsets are those of the pool layout (common/pool/layout.h):
header 4096 bytes, attach table 64 x 64, slot entries of 256 bytes; slot
data in the file beside it (POOL.data), slot i at i * slot_size."""
import mmap, os, random, struct, sys, time

path, seconds, log = sys.argv[1], float(sys.argv[2]), sys.argv[3]
fd = os.open(path, os.O_RDWR)
size = os.fstat(fd).st_size
m = mmap.mmap(fd, size)
nslots, = struct.unpack_from("<I", m, 24)
slot_size, = struct.unpack_from("<Q", m, 48)
table_off, = struct.unpack_from("<Q", m, 64)
dfd = os.open(path + ".data", os.O_RDWR)
d = mmap.mmap(dfd, os.fstat(dfd).st_size)
header = bytes(m[:128])                  # magic .. reserved: geometry and offsets
rng = random.Random(int.from_bytes(os.urandom(8), "little"))
counts = {}

def slot(i):
    return table_off + 256 * i

def u64(off, v):
    struct.pack_into("<Q", m, off, v & (2**64 - 1))

kinds = {
    # geometry: a daemon that re-read it would index outside its mapping
    "geometry": lambda i: struct.pack_into("<I", m, 24, rng.choice([0, 1, 2**31, 2**32 - 1]))
    if rng.random() < 0.5 else u64(rng.choice([48, 64, 72, 80]), rng.getrandbits(64)),
    # a state word: READY with some partition id, FREE, or CLAIMED/FILLING by nobody alive
    "state": lambda i: u64(slot(i), (2 << 62) | rng.randrange(1, 64)) if rng.random() < 0.5
    else u64(slot(i), rng.choice([0, (1 << 62) | rng.getrandbits(40), (3 << 62) | rng.getrandbits(40)])),
    # ids in the slot header: another (real, small) partition, another key
    "ids": lambda i: u64(slot(i) + rng.choice([32, 40]), rng.randrange(0, 64)),
    # the region table: counts and offsets out of the slot
    "regions": lambda i: u64(slot(i) + 24, rng.choice([9, 2**63])) if rng.random() < 0.3
    else u64(slot(i) + 128 + 8 * rng.randrange(16), rng.choice([slot_size, 2**62, rng.getrandbits(32)])),
    "checksum": lambda i: u64(slot(i) + 48, rng.getrandbits(64)),
    # a byte of the data, which the checksum covers
    "data": lambda i: d.__setitem__(i * slot_size + rng.randrange(0, 1 << 16),
                                    rng.randrange(256)),
}
names = list(kinds)
end = time.monotonic() + seconds
while time.monotonic() < end:
    k = rng.choice(names)
    kinds[k](rng.randrange(nslots))
    counts[k] = counts.get(k, 0) + 1
    if k == "geometry" and rng.random() < 0.5:
        m[:128] = header                 # sometimes put it back for a while
    time.sleep(rng.uniform(0.01, 0.06))
m[:128] = header
m.flush()
with open(log, "w") as f:
    for k in names:
        f.write("%s %d\n" % (k, counts.get(k, 0)))
