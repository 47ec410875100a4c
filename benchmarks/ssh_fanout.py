"""One command fanned out to every host of a lab over pooled SSH connections.

    .venv/bin/python benchmarks/ssh_fanout.py [--nodes 16] [--dir /tmp/brickyard-fanout] [--runs 7]

Starts (or reuses) a Brickyard lab with N server nodes, each with one small brick filesystem
(root is needed), and prints:

- cold: connecting to all N hosts (bounded batches, at most 8 handshakes at once) and running
  the command, against connecting to one host and running it;
- warm: the command on all N hosts at once over the pooled connections, against one host
  (median of --runs); the ratio is the figure (target <= 3).

A lab this script started is taken down at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))

from brickyard.lab import config as cfg  # noqa: E402
from brickyard.lab.session import acquire, release  # noqa: E402
from brickyard.remote.ssh import SshOptions, SshPool  # noqa: E402

COMMAND = ["cat", "/proc/sys/kernel/hostname"]


async def measure(ssh_config: Path, hosts: list[str], runs: int) -> dict[str, float]:
    out: dict[str, float] = {}

    one = SshPool(SshOptions(config_files=[str(ssh_config)]))
    t = time.perf_counter()
    await one.executor(hosts[0]).run(COMMAND, check=True)
    out["cold_single"] = time.perf_counter() - t
    await one.close()

    pool = SshPool(SshOptions(config_files=[str(ssh_config)]))
    t = time.perf_counter()
    results = await asyncio.gather(*(pool.executor(h).run(COMMAND, check=True) for h in hosts))
    out["cold_all"] = time.perf_counter() - t
    assert [r.text.strip() for r in results] == hosts, "a host answered with another name"
    assert pool.connects == len(hosts)

    singles, fans = [], []
    for _ in range(runs):
        t = time.perf_counter()
        await pool.executor(hosts[0]).run(COMMAND, check=True)
        singles.append(time.perf_counter() - t)
        t = time.perf_counter()
        await asyncio.gather(*(pool.executor(h).run(COMMAND, check=True) for h in hosts))
        fans.append(time.perf_counter() - t)
    assert pool.connects == len(hosts), "a command opened a new connection instead of reusing the pool"
    out["warm_single"] = statistics.median(singles)
    out["warm_all"] = statistics.median(fans)
    await pool.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=16)
    parser.add_argument("--dir", default="/tmp/brickyard-fanout", help="lab folder (a separate lab by default)")
    parser.add_argument("--prefix", default="byfan")
    parser.add_argument("--subnet", default="10.78.0.0/24")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    spec = cfg.LabSpec(nodes=args.nodes, clients=1, brick_size=512 << 20, bricks_per_node=1,
                       directory=Path(args.dir), prefix=args.prefix, subnet=args.subnet)
    t = time.perf_counter()
    lab = acquire(spec, say=lambda text: print(f"lab: {text}", file=sys.stderr))
    print(f"lab with {len(lab.servers)} nodes ready in {time.perf_counter() - t:.1f} s")
    try:
        hosts = lab.servers[: args.nodes]
        figures = asyncio.run(measure(lab.ssh_config, hosts, args.runs))
    finally:
        left = release(lab, say=lambda text: print(f"lab: {text}", file=sys.stderr))
        if left:
            print(f"lab teardown left: {'; '.join(left)}", file=sys.stderr)
    n = len(hosts)
    print(f"command: {' '.join(COMMAND)} on {n} hosts")
    print(f"cold (connect + run): 1 host {figures['cold_single'] * 1000:.0f} ms, "
          f"{n} hosts {figures['cold_all'] * 1000:.0f} ms, ratio {figures['cold_all'] / figures['cold_single']:.2f}")
    ratio = figures["warm_all"] / figures["warm_single"]
    print(f"warm (pooled, median of {args.runs}): 1 host {figures['warm_single'] * 1000:.1f} ms, "
          f"{n} hosts {figures['warm_all'] * 1000:.1f} ms")
    print(f"fan-out ratio (total / single host): {ratio:.2f}  (target <= 3: {'met' if ratio <= 3 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
