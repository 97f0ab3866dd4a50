#!/usr/bin/env python3
"""submit_wait.py -- libzkslot's client face from Python (ctypes).

    submit_wait.py [--ledger URL] [--lib PATH] [--timeout S] [--deadline S [--force]]
                   KEY_NAME WITNESS.wtns...

Submits one job (a partition per witness), waits for it, and reads each
partition's result from the ledger.  Prints the job id, then one line per
partition "INDEX PROOF_BYTES PUBLIC_JSON".  Exit 0 done, 1 failed or timed
out or refused (one line on stderr).
The library is found as libzkslot.so.0 (ld.so's search, LD_LIBRARY_PATH)
unless --lib names it.
"""
import argparse
import ctypes
import sys
import time

ZKSLOT_SUBMIT_FORCE = 0x1


class SubmitOpts(ctypes.Structure):
    _fields_ = [("priority", ctypes.c_int), ("deadline_ns", ctypes.c_int64),
                ("request_id", ctypes.c_char_p), ("out_dir", ctypes.c_char_p),
                ("flags", ctypes.c_uint)]


class JobStatus(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int64), ("state", ctypes.c_int), ("nparts", ctypes.c_uint32),
                ("queued", ctypes.c_uint32), ("synthesizing", ctypes.c_uint32),
                ("ready", ctypes.c_uint32), ("proving", ctypes.c_uint32),
                ("done", ctypes.c_uint32), ("failed", ctypes.c_uint32),
                ("canceled", ctypes.c_uint32), ("priority", ctypes.c_int),
                ("deadline_ns", ctypes.c_int64), ("submitted_ns", ctypes.c_int64),
                ("finished_ns", ctypes.c_int64), ("key", ctypes.c_char * 64),
                ("error", ctypes.c_char * 512), ("out_dir", ctypes.c_char * 4096)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ledger")
    ap.add_argument("--lib", default="libzkslot.so.0")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--deadline", type=float, help="seconds from now (admitted as the CLI's)")
    ap.add_argument("--force", action="store_true", help="queue a deadline the queue cannot meet")
    ap.add_argument("key")
    ap.add_argument("wtns", nargs="+")
    a = ap.parse_args()

    lib = ctypes.CDLL(a.lib)
    vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
    lib.zkslot_open.argtypes = [cp, cp, ctypes.POINTER(vp), cp, sz]
    lib.zkslot_close.argtypes = [vp]
    lib.zkslot_submit.argtypes = [vp, cp, ctypes.POINTER(cp), ctypes.c_uint, ctypes.c_int,
                                  ctypes.POINTER(SubmitOpts), ctypes.POINTER(ctypes.c_int64),
                                  ctypes.POINTER(ctypes.c_int), cp, sz]
    lib.zkslot_wait.argtypes = [vp, ctypes.c_int64, ctypes.c_int, ctypes.POINTER(JobStatus),
                                cp, sz]
    lib.zkslot_result.argtypes = [vp, ctypes.c_int64, ctypes.c_uint32, ctypes.POINTER(vp),
                                  ctypes.POINTER(vp), cp, sz]
    lib.zkslot_free.argtypes = [vp]

    msg = ctypes.create_string_buffer(1024)
    z = vp()
    enc = lambda s: s.encode() if s is not None else None
    if lib.zkslot_open(enc(a.ledger), None, ctypes.byref(z), msg, len(msg)) < 0:
        sys.exit("submit_wait.py: " + msg.value.decode())
    try:
        files = (cp * len(a.wtns))(*[enc(w) for w in a.wtns])
        deadline_ns = time.time_ns() + int(a.deadline * 1e9) if a.deadline else 0
        opts = SubmitOpts(-1, deadline_ns, None, None, ZKSLOT_SUBMIT_FORCE if a.force else 0)
        job, existing = ctypes.c_int64(), ctypes.c_int()
        if lib.zkslot_submit(z, enc(a.key), files, len(a.wtns), 0, ctypes.byref(opts),
                             ctypes.byref(job), ctypes.byref(existing), msg, len(msg)) < 0:
            sys.exit("submit_wait.py: " + msg.value.decode())
        print(job.value, flush=True)
        st = JobStatus()
        if lib.zkslot_wait(z, job, int(a.timeout * 1000), ctypes.byref(st), msg, len(msg)) < 0:
            print("submit_wait.py: " + msg.value.decode(), file=sys.stderr)
            return 1
        for i in range(st.nparts):
            proof, pub = vp(), vp()
            if lib.zkslot_result(z, job, i, ctypes.byref(proof), ctypes.byref(pub),
                                 msg, len(msg)) < 0:
                print("submit_wait.py: " + msg.value.decode(), file=sys.stderr)
                return 1
            p, u = ctypes.string_at(proof), ctypes.string_at(pub)
            lib.zkslot_free(proof)
            lib.zkslot_free(pub)
            print(i, len(p), u.decode().replace("\n", " ").strip())
        return 0
    finally:
        lib.zkslot_close(z)


if __name__ == "__main__":
    sys.exit(main())
