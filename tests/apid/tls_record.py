#!/usr/bin/env python3
"""tls_record.py -- an HTTPS listener that records what clients send it,
for tests/apid/test_cli_tls.sh: did a client that should have refused the
server's certificate send it anything (a request, a bearer token)?

  tls_record.py CERT KEY LOG     listens on 127.0.0.1 (a free port), prints
                                 "listening PORT" and serves until killed

Per connection, one line is appended to LOG: "handshake failed: REASON"
(the client gave up in the handshake: it sent nothing of its own), or
"received: BYTES" (repr of what arrived after the handshake, up to the
end of the request's headers or 5 s); the client then gets a 503.
"""
import socket
import ssl
import sys

cert, key, log = sys.argv[1:4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(8)
print("listening %d" % srv.getsockname()[1], flush=True)


def note(line):
    with open(log, "a") as f:
        f.write(line + "\n")


while True:
    c, _ = srv.accept()
    c.settimeout(5)
    try:
        t = ctx.wrap_socket(c, server_side=True)
    except (ssl.SSLError, OSError) as e:
        note("handshake failed: %s" % e)
        c.close()
        continue
    got = b""
    try:
        while b"\r\n\r\n" not in got:
            b = t.recv(4096)
            if not b:
                break
            got += b
    except (ssl.SSLError, OSError) as e:
        # TLS 1.3: the client's verdict on the certificate arrives after the
        # server's handshake ended, as an alert in place of its request
        note("handshake failed: %s (after the server's side)" % e if not got else
             "received: %r (then %s)" % (got, e))
        t.close()
        continue
    note("received: %r" % got)
    try:
        t.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    except (ssl.SSLError, OSError):
        pass
    t.close()
