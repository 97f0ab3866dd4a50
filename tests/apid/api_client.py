#!/usr/bin/env python3
"""api_client.py -- a client of zkslot-apid in Python's standard library
alone, as a program would write one (docs/api.md).  For the tests:

  api_client.py URL submit KEY REQUEST_ID INPUT.json...   prints "STATUS ID"
  api_client.py URL wait ID SECONDS                        long polls; prints the state
  api_client.py URL proofs ID DIR                          DIR/K/{proof,public}.json
  api_client.py URL jobs                                   prints the number of jobs

$ZKSLOT_TOKEN, when set, is sent as the bearer token.  Every request has
a 30 s socket timeout; exit 0, or 1 with the server's error on stderr."""
import json
import os
import sys
import time
import urllib.error
import urllib.request


def call(base, method, path, body=None, timeout=30):
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    token = os.environ.get("ZKSLOT_TOKEN")
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def main():
    base, cmd, args = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3:]
    if cmd == "submit":
        inputs = [json.load(open(f)) for f in args[2:]]
        body = {"key": args[0], "inputs": inputs, "request_id": args[1], "priority": "high"}
        # a client's retry loop: the same request id until an answer
        for attempt in range(5):
            try:
                status, o = call(base, "POST", "/v1/jobs", body)
                break
            except OSError:
                time.sleep(0.2)
        else:
            sys.exit("submit: no answer after 5 tries")
        if status not in (200, 201):
            sys.exit("submit: %d %s" % (status, o))
        print(status, o["id"])
    elif cmd == "wait":
        deadline = time.monotonic() + float(args[1])
        while True:   # bounded: each poll waits at most what is left
            left = max(0, deadline - time.monotonic())
            status, o = call(base, "GET", "/v1/jobs/%s?wait=%.1f" % (args[0], min(left, 10)),
                             timeout=min(left, 10) + 20)
            if status != 200:
                sys.exit("wait: %d %s" % (status, o))
            if o["state"] in ("done", "failed", "canceled") or time.monotonic() >= deadline:
                print(o["state"])
                return
    elif cmd == "proofs":
        status, o = call(base, "GET", "/v1/jobs/%s/proofs" % args[0])
        if status != 200:
            sys.exit("proofs: %d %s" % (status, o))
        for p in o["proofs"]:
            # and one by one, as /proofs/{k}: the same
            s1, one = call(base, "GET", "/v1/jobs/%s/proofs/%d" % (args[0], p["index"]))
            if s1 != 200 or one["proof"] != p["proof"] or one["public"] != p["public"]:
                sys.exit("proofs: /proofs/%d differs from /proofs" % p["index"])
            d = os.path.join(args[1], str(p["index"]))
            os.makedirs(d, exist_ok=True)
            json.dump(p["proof"], open(os.path.join(d, "proof.json"), "w"))
            json.dump(p["public"], open(os.path.join(d, "public.json"), "w"))
        print(len(o["proofs"]))
    elif cmd == "jobs":
        status, o = call(base, "GET", "/v1/jobs?limit=1000")
        if status != 200:
            sys.exit("jobs: %d %s" % (status, o))
        print(len(o["jobs"]))
    else:
        sys.exit("api_client.py: unknown command " + cmd)


if __name__ == "__main__":
    main()
