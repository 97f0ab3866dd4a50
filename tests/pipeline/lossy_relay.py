#!/usr/bin/env python3
"""lossy_relay.py LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT SEED DROP
-- a bad link in user space (this kernel has no netem): a TCP relay that
forwards every connection accepted on LISTEN_HOST:LISTEN_PORT to
TARGET_HOST:TARGET_PORT, holding each chunk read 300 to 500 ms (uniform,
each direction, order kept) before passing it on, and dropping a
connection (both sides closed, what was held lost) with probability DROP
per chunk.  SEED seeds the random choices, so a run can be replayed.
Prints one line per dropped connection on stdout; stops on SIGTERM."""
import asyncio
import random
import signal
import sys


async def pump(reader, writer, rnd, drop, both, name):
    """Copies reader to writer, each chunk delivered 0.3-0.5 s after it was
    read (never before the chunk before it); a random drop closes both."""
    loop = asyncio.get_running_loop()
    last = 0.0
    q = asyncio.Queue()

    async def deliver():
        while True:
            at, data = await q.get()
            if data is None:
                break
            await asyncio.sleep(max(0.0, at - loop.time()))
            writer.write(data)
            await writer.drain()

    d = asyncio.ensure_future(deliver())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if rnd.random() < drop:
                print("dropped a connection (%s)" % name, flush=True)
                break
            last = max(last, loop.time() + rnd.uniform(0.3, 0.5))
            q.put_nowait((last, data))
        q.put_nowait((0, None))
        await asyncio.wait_for(d, 5)
    except (OSError, asyncio.TimeoutError, asyncio.CancelledError):
        pass
    finally:
        d.cancel()
        for w in both:
            w.close()


async def main():
    lh, lp, th, tp, seed, drop = sys.argv[1:7]
    rnd = random.Random(int(seed))
    drop = float(drop)

    async def conn(cr, cw):
        try:
            ur, uw = await asyncio.wait_for(asyncio.open_connection(th, int(tp)), 5)
        except (OSError, asyncio.TimeoutError):
            cw.close()
            return
        both = (cw, uw)
        await asyncio.gather(pump(cr, uw, rnd, drop, both, "client side"),
                             pump(ur, cw, rnd, drop, both, "server side"))

    server = await asyncio.start_server(conn, lh, int(lp))
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    print("relaying %s:%s -> %s:%s, seed %s, drop %s per chunk" % (lh, lp, th, tp, seed, drop),
          flush=True)
    async with server:
        await stop.wait()


asyncio.run(main())
