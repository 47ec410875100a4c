"""Time ``lab up`` / ``lab down`` and measure memory per lab machine, idle and with volumes.

Needs root. Uses its own lab folder, names and subnet (``--prefix bybm``, 10.85.0.0/24), so it
runs beside a lab that is already up. Memory is the PSS of every process in a machine's PID
namespace (shared libraries split between the processes that map them).
Run: .venv/bin/python benchmarks/lab_up.py [--nodes 4] [--volumes 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from brickyard.lab import config as cfg
from brickyard.lab.sandbox import lab_up
from brickyard.lab.session import Lab
from brickyard.lab.status import lab_health
from brickyard.lab.teardown import lab_down

# gluster volume create arguments per layout; bricks as (node index, brick filesystem)
LAYOUTS = [
    ("distribute", [], [(1, 1), (2, 1), (3, 1), (4, 1)]),
    ("replicate", ["replica", "3"], [(1, 1), (2, 1), (3, 1)]),
    ("disperse", ["disperse", "4", "redundancy", "1"], [(1, 2), (2, 2), (3, 2), (4, 2)]),
    ("distributed-replicate", ["replica", "2"], [(1, 1), (2, 1), (3, 1), (4, 1)]),
    ("distributed-disperse", ["disperse", "3", "redundancy", "1"], [(1, 2), (2, 2), (3, 2), (4, 1), (1, 1), (2, 1)]),
]


def memory_line(directory: Path, label: str) -> None:
    health = lab_health(directory)
    servers = [m.memory_bytes / 2**20 for m in health.machines if m.role == "server"]
    clients = [m.memory_bytes / 2**20 for m in health.machines if m.role == "client"]
    print(f"{label:<34} servers: median {statistics.median(servers):6.1f} MiB, max {max(servers):6.1f} MiB"
          + (f"; client {statistics.median(clients):5.1f} MiB" if clients else ""))


def with_volumes(lab: Lab, count: int) -> None:
    first, *others = lab.servers
    for name in others:
        lab.ssh(first, ["gluster", "--mode=script", "peer", "probe", name])
    deadline = time.monotonic() + 30
    while lab.ssh(first, ["gluster", "pool", "list"]).stdout.count("Connected") < len(lab.servers):
        if time.monotonic() > deadline:
            raise SystemExit("peers did not connect within 30 s")
        time.sleep(0.3)
    for k, (kind, args, bricks) in enumerate(LAYOUTS[:count]):
        volume = f"bm{k}"
        refs = [f"node{n}:/srv/brick{b}/{volume}" for n, b in bricks]
        lab.ssh(first, ["gluster", "--mode=script", "volume", "create", volume, *args, *refs])
        lab.ssh(first, ["gluster", "--mode=script", "volume", "start", volume])
        print(f"  started {volume} ({kind}, {len(refs)} bricks)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--volumes", type=int, default=5, help=f"volumes to start (0-{len(LAYOUTS)}; needs 4+ nodes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="brickyard-bench-lab-") as tmp:
        directory = Path(tmp) / "lab"
        spec = cfg.LabSpec(nodes=args.nodes, clients=1, directory=directory, prefix="bybm", subnet="10.85.0.0/24")
        started = time.monotonic()
        state = lab_up(spec)
        up = time.monotonic() - started
        try:
            print(f"lab up {args.nodes} nodes + 1 client, {args.nodes * spec.bricks_per_node} x "
                  f"{spec.brick_size / 2**30:g} GiB XFS bricks: {up:.2f} s")
            time.sleep(2)  # let glusterd settle
            memory_line(directory, "idle")
            if args.volumes and args.nodes >= 4:
                with_volumes(Lab(state), args.volumes)
                time.sleep(3)
                memory_line(directory, f"with {args.volumes} volumes started")
        finally:
            started = time.monotonic()
            left = lab_down(directory)
            print(f"lab down: {time.monotonic() - started:.2f} s{'; LEFT: ' + '; '.join(left) if left else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
