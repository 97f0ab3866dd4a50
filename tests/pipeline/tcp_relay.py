#!/usr/bin/env python3
"""tcp_relay.py TARGET_PORT PORT_FILE -- a TCP relay on 127.0.0.1 that a
test can cut: it forwards every connection to 127.0.0.1:TARGET_PORT, and
writes the port it listens on to PORT_FILE once it listens.

SIGUSR1 cuts the path: the relay stops reading, forwarding and accepting
(what a client sent sits unread, nothing comes back, a new connection gets
no answer), as a link that went dead does to a client that does not watch
it.  SIGUSR2 heals it: forwarding goes on, connections that the client
gave up on meanwhile are closed when it is seen."""
import os
import select
import signal
import socket
import sys
import time

frozen = False


def cut(*_):
    global frozen
    frozen = True


def heal(*_):
    global frozen
    frozen = False


def main():
    target = int(sys.argv[1])
    signal.signal(signal.SIGUSR1, cut)
    signal.signal(signal.SIGUSR2, heal)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(128)
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    peer = {}

    def drop(s):
        o = peer.pop(s, None)
        for x in (s, o):
            if x is not None:
                peer.pop(x, None)
                x.close()

    while True:
        if frozen:
            time.sleep(0.02)
            continue
        r, _, _ = select.select([ls] + list(peer), [], [], 0.05)
        for s in r:
            if frozen:
                break
            if s is ls:
                c, _ = ls.accept()
                try:
                    u = socket.create_connection(("127.0.0.1", target))
                except OSError:
                    c.close()
                    continue
                peer[c], peer[u] = u, c
                continue
            if s not in peer:
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                drop(s)
                continue
            try:
                peer[s].sendall(data)
            except OSError:
                drop(s)


main()
