#!/usr/bin/env python3
"""trickle.py -- slowloris clients against zkslot-apid, bounded (test_hostile.sh).

  trickle.py HOST PORT --addrs A,B,... [--count N] [--interval S]
             [--duration S] [--client FROM UNTIL]

Opens N connections (default 200), spread round-robin over the source
addresses A, B, ... (127.0.0.x: every one of them is this machine's
loopback), each sending "GET /v1/keys HTTP/1.1" and then one header line
every --interval seconds (default 1), never the blank line that ends the
headers, for at most --duration seconds (default 8).  With --client, a
real client on 127.0.0.1 sends GET /v1/keys on a fresh connection every
50 ms from FROM to UNTIL seconds after the start (2 s timeout each).

Prints one JSON object: for the trickling connections how many were
answered 503 ("refused", the slowest answer in ms and the messages' kinds),
closed without an answer ("cut", the earliest and latest close in seconds
after their connect), still open at the end, answered otherwise, never
connected; for the client its requests, how many got 200 and the median and
maximum latency in ms (a failed request counts as 2000 ms).
"""
import argparse
import errno
import http.client
import json
import selectors
import socket
import statistics
import threading
import time


def real_client(host, port, t0, start, until, out):
    while time.monotonic() - t0 < start:
        time.sleep(0.01)
    while time.monotonic() - t0 < until:
        t = time.monotonic()
        status = 0
        try:
            c = http.client.HTTPConnection(host, port, timeout=2, source_address=("127.0.0.1", 0))
            c.request("GET", "/v1/keys")
            r = c.getresponse()
            r.read()
            status = r.status
            c.close()
        except (OSError, http.client.HTTPException):
            pass
        ms = (time.monotonic() - t) * 1000 if status else 2000.0
        out.append((status, ms))
        time.sleep(max(0.0, 0.05 - (time.monotonic() - t)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--addrs", required=True)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--duration", type=float, default=8.0)
    ap.add_argument("--client", nargs=2, type=float, metavar=("FROM", "UNTIL"))
    a = ap.parse_args()
    addrs = a.addrs.split(",")
    t0 = time.monotonic()
    client = []
    th = None
    if a.client:
        th = threading.Thread(target=real_client,
                              args=(a.host, a.port, t0, a.client[0], a.client[1], client))
        th.start()

    sel = selectors.DefaultSelector()
    conns = []
    for i in range(a.count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((addrs[i % len(addrs)], 0))
        s.setblocking(False)
        c = {"s": s, "state": "connecting", "t": None, "buf": b"", "next": 0.0}
        if s.connect_ex((a.host, a.port)) not in (0, errno.EINPROGRESS):
            c["state"] = "unconnected"
            s.close()
        else:
            sel.register(s, selectors.EVENT_WRITE, c)
        conns.append(c)

    def close(c, state):
        c["state"] = state
        c["end"] = time.monotonic()
        sel.unregister(c["s"])
        c["s"].close()

    def send(c, data):
        try:
            c["s"].send(data)
        except OSError:
            close(c, "cut")

    while time.monotonic() - t0 < a.duration:
        now = time.monotonic()
        for c in conns:   # a header line from each connection, every interval
            if c["state"] == "open" and now >= c["next"]:
                c["next"] = now + a.interval
                send(c, b"X-Trickle: %d\r\n" % int(now - t0))
        if not sel.get_map():
            break
        for key, ev in sel.select(timeout=0.05):
            c = key.data
            if c["state"] == "connecting":
                if c["s"].getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    close(c, "unconnected")
                    continue
                c["state"], c["t"] = "open", time.monotonic()
                c["next"] = c["t"] + a.interval
                sel.modify(c["s"], selectors.EVENT_READ, c)
                send(c, b"GET /v1/keys HTTP/1.1\r\nHost: x\r\n")
                continue
            try:
                data = c["s"].recv(4096)
            except OSError:
                data = b""
            if data:
                c["buf"] += data
                continue
            close(c, "answered" if c["buf"] else "cut")

    if th:
        th.join()
    res = {"refused": 0, "refused_max_ms": 0, "refused_kinds": {}, "cut": 0,
           "cut_min_s": None, "cut_max_s": None, "open": 0, "other": 0, "unconnected": 0}
    for c in conns:
        st = c["state"]
        if st == "answered" and c["buf"].startswith(b"HTTP/1.1 503 "):
            res["refused"] += 1
            res["refused_max_ms"] = max(res["refused_max_ms"],
                                        round((c["end"] - c["t"]) * 1000))
            body = json.loads(c["buf"].split(b"\r\n\r\n", 1)[1])
            kind = "per_client" if "per client" in body["error"]["message"] else "all"
            res["refused_kinds"][kind] = res["refused_kinds"].get(kind, 0) + 1
        elif st == "answered":
            res["other"] += 1
        elif st == "cut":
            res["cut"] += 1
            d = round(c["end"] - c["t"], 2)
            res["cut_min_s"] = d if res["cut_min_s"] is None else min(res["cut_min_s"], d)
            res["cut_max_s"] = d if res["cut_max_s"] is None else max(res["cut_max_s"], d)
        elif st == "open":
            res["open"] += 1
            c["s"].close()
        else:
            res["unconnected"] += 1
            c["s"].close()
    if a.client:
        ms = [m for _, m in client]
        res["client"] = {"requests": len(client),
                         "ok": sum(1 for st, _ in client if st == 200),
                         "median_ms": round(statistics.median(ms), 1) if ms else None,
                         "max_ms": round(max(ms), 1) if ms else None}
    print(json.dumps(res))


if __name__ == "__main__":
    main()
