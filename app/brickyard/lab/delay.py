"""Added latency for one lab machine, in user space (this kernel has no ``netem`` qdisc).

A delayed machine has no veth: its ``eth0`` is a TAP device, and a second TAP device sits on
the lab bridge. This program owns both and copies every Ethernet frame from one to the other
after ``--ms`` milliseconds, in each direction (so the round trip grows by twice that), or
``--ms`` towards the machine and ``--from-ms`` from it (a one-sided path). TAP
devices carry no offloads, so frames arrive whole and checksummed and can be re-sent as they
are. When this process ends, both TAP devices vanish with it.

Run by ``lab up --delay NAME=MS``:
``python -m brickyard.lab.delay --node-tap T1 --host-tap T2 --ms 25 --ready FILE``
"""

from __future__ import annotations

import argparse
import collections
import fcntl
import os
import select
import struct
import time
from pathlib import Path

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
MAX_FRAME = 65536
# Frames waiting per direction before new ones are dropped, as a full router queue would.
MAX_QUEUED = 20000


def open_tap(name: str) -> int:
    """Create TAP device ``name`` in this network namespace; returns its non-blocking fd."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    os.set_blocking(fd, False)
    return fd


def forward(a: int, b: int, delay_s: float, stop_after: float | None = None, back_s: float | None = None) -> None:
    """Copy frames a -> b ``delay_s`` late and b -> a ``back_s`` late (default the same), until
    killed (or ``stop_after`` s)."""
    queues: dict[int, collections.deque] = {a: collections.deque(), b: collections.deque()}
    late = {a: delay_s, b: delay_s if back_s is None else back_s}
    other = {a: b, b: a}
    end = None if stop_after is None else time.monotonic() + stop_after
    while end is None or time.monotonic() < end:
        now = time.monotonic()
        timeout = 1.0
        for src, queue in queues.items():
            while queue and queue[0][0] <= now:
                frame = queue.popleft()[1]
                try:
                    os.write(other[src], frame)
                except OSError:
                    pass  # the device refused it: a lost frame, as on a real link
            if queue:
                timeout = min(timeout, queue[0][0] - now)
        readable, _, _ = select.select([a, b], [], [], max(0.0, timeout))
        now = time.monotonic()
        for fd in readable:
            queue = queues[fd]
            for _ in range(256):
                try:
                    frame = os.read(fd, MAX_FRAME)
                except BlockingIOError:
                    break
                if len(queue) < MAX_QUEUED:
                    queue.append((now + late[fd], frame))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m brickyard.lab.delay", description=__doc__.split("\n")[0])
    parser.add_argument("--node-tap", required=True, help="TAP device that becomes the machine's eth0")
    parser.add_argument("--host-tap", required=True, help="TAP device that joins the lab bridge")
    parser.add_argument("--ms", type=float, required=True,
                        help="delay in milliseconds on frames towards the machine (and from it, without --from-ms)")
    parser.add_argument("--from-ms", type=float, default=None, help="delay in milliseconds on frames from the machine")
    parser.add_argument("--ready", required=True, help="file written once both devices exist")
    args = parser.parse_args(argv)
    node = open_tap(args.node_tap)
    host = open_tap(args.host_tap)
    Path(args.ready).write_text(f"{os.getpid()}\n")
    # frames read from the host side go towards the machine; from the node side, away from it
    forward(host, node, args.ms / 1000.0, back_s=None if args.from_ms is None else args.from_ms / 1000.0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
