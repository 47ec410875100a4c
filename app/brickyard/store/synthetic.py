"""Synthetic but realistic dd-style runs, for tests, benchmarks and screenshots only.

Each worker's rate follows a simple latency + bandwidth model
(``rate = bs ÷ (latency + bs ÷ bandwidth)``), replication divides write bandwidth, and the
metrics are computed from the worker timings by ``core.stats`` exactly as the run engine
computes them, so the numbers behave like real ones (small blocks are slow, concurrency
helps until the network saturates, repeats scatter by a few percent).
"""

from __future__ import annotations

import random
import uuid
from typing import Sequence

from brickyard.core.results import Metric, Provenance, RunResult, RunStatus, StepResult, WorkerTiming
from brickyard.core.stats import start_skew, throughput_metrics

KiB, MiB = 1024, 1024 * 1024
BLOCK_SIZES = (4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB)


def layout_dict(kind: str, n_nodes: int = 3) -> dict:
    bricks = [f"gfs{i + 1}:/data/b1" for i in range(n_nodes)]
    if kind == "replica":
        return {"type": "replicate", "replica": n_nodes, "arbiter": 0, "disperse": None, "redundancy": None,
                "bricks": bricks}
    if kind == "arbiter":
        return {"type": "replicate", "replica": 3, "arbiter": 1, "disperse": None, "redundancy": None,
                "bricks": bricks[:3]}
    if kind == "disperse":
        bricks = [f"gfs{i % n_nodes + 1}:/data/b{i // n_nodes + 1}" for i in range(6)]
        return {"type": "disperse", "replica": None, "arbiter": 0, "disperse": 6, "redundancy": 2, "bricks": bricks}
    return {"type": "distribute", "replica": None, "arbiter": 0, "disperse": None, "redundancy": None,
            "bricks": bricks}


def synthetic_run(rng: random.Random, *, gluster: str = "10.3", layout: str = "replica",
                  started_at: float = 1_760_000_000.0, block_sizes: Sequence[int] = BLOCK_SIZES,
                  concurrencies: Sequence[int] = (1, 4), repeats: int = 3, directions: Sequence[str] = ("write",),
                  speedup: float = 1.0, metrics: Sequence[str] | None = None, workload: str = "dd",
                  options: dict[str, str] | None = None, status: RunStatus = RunStatus.COMPLETE) -> RunResult:
    """One run of a block-size × concurrency sweep. ``speedup`` scales bandwidth (a newer
    version, a better option); ``metrics`` keeps only those names (all of core.stats' by default)."""
    lay = layout_dict(layout)
    # bytes written per byte of data: replicas, arbiter holds no data, disperse adds parity
    copies = (lay["replica"] - (1 if lay["arbiter"] else 0)) if lay["replica"] else \
        lay["disperse"] / (lay["disperse"] - lay["redundancy"]) if lay["disperse"] else 1
    hosts = {f"gfs{i + 1}": {"gluster": gluster, "kernel": "6.1.0-26-amd64", "os": "Debian GNU/Linux 12"}
             for i in range(3)}
    prov = Provenance(
        brickyard_version="0.1.0", hosts=hosts, target="client1:/mnt/gv0", target_kind="gluster",
        volume_name="gv0", volume_options=dict(options or {"performance.write-behind": "on"}), layout=lay,
        mount_options="defaults,_netdev", workload=workload,
        parameters={"block_sizes": list(block_sizes), "concurrency": list(concurrencies), "repeats": repeats,
                    "file_size": 256 * MiB, "drop_caches": True})
    steps: list[StepResult] = []
    clock = 1000.0
    index = 0
    link_bps = 117e6 * speedup            # gigabit, what a client really gets
    latency = 0.00045 / speedup           # one round trip + fuse + brick
    for direction in directions:
        bw = link_bps / (copies if direction == "write" else 1)
        for conc in concurrencies:
            for bs in block_sizes:
                for rep in range(repeats):
                    per_worker = bs / (latency + bs / bw)
                    share = min(per_worker, link_bps * 0.97 / conc / (copies if direction == "write" else 1))
                    workers = []
                    for w in range(conc):
                        rate = share * rng.uniform(0.93, 1.05)
                        nbytes = max(bs, (64 * MiB // bs) * bs)
                        start = clock + rng.uniform(0, 0.004 * conc)
                        workers.append(WorkerTiming(w, "client1", start, start + nbytes / rate, nbytes, nbytes // bs))
                    clock = max(x.end for x in workers) + 0.5
                    ms = throughput_metrics(workers)
                    if metrics is not None:
                        ms = tuple(m for m in ms if m.name in metrics)
                    steps.append(StepResult(index=index, params={"direction": direction, "block_size": bs,
                                                                 "concurrency": conc},
                                            repeat=rep, workers=tuple(workers), metrics=ms,
                                            start_skew=start_skew(workers)))
                    index += 1
    return RunResult(run_id=uuid.UUID(int=rng.getrandbits(128)).hex, workload=workload, status=status,
                     started_at=started_at, ended_at=started_at + clock - 1000.0, provenance=prov, steps=steps)


def synthetic_small_file_run(figures_ms: Sequence[float], *, workload: str = "smallfile", layout: str = "replica",
                             rtt_ms: dict[str, float] | None = None, started_at: float = 1_760_000_000.0,
                             seed: int = 0) -> RunResult:
    """A smallfile (extract: ``figures_ms`` per object, one per repeat) or metadata run (the
    uncached lstat loop: ``figures_ms`` per call) on ``layout``'s gv0, with the RTTs the run
    measured to each server (``rtt_ms``: {server: ms}; None: none recorded, an older run)."""
    lay = layout_dict(layout)
    prov = Provenance(brickyard_version="0.1.0", hosts={}, target="client1:/mnt/gv0", target_kind="gluster",
                      volume_name="gv0", layout=lay, workload=workload, parameters={"repeats": len(figures_ms)})
    steps: list[StepResult] = []
    clock = 1000.0
    rtts = {"rtt_ms": {"client1": dict(rtt_ms)}} if rtt_ms else {}
    for rep, ms in enumerate(figures_ms):
        if workload == "smallfile":
            objects = 2028
            w = WorkerTiming(0, "client1", clock, clock + ms * objects / 1000, 42_700_000, objects)
            steps.append(StepResult(index=2 * rep, params={"where": "target", "repeat": rep, "objects": objects, **rtts},
                                    repeat=rep, workers=(w,), metrics=(Metric("per_object_ms", ms, "ms"),)))
            base = WorkerTiming(0, "client1", w.end, w.end + 1.0, 42_700_000, objects)
            steps.append(StepResult(index=2 * rep + 1, params={"where": "tmpfs baseline", "repeat": rep},
                                    repeat=rep, workers=(base,), metrics=(Metric("per_object_ms", 0.5, "ms"),)))
            clock = base.end + 1
        else:
            calls = int(5000 / ms)
            cached = WorkerTiming(0, "client1", clock, clock + 5, 0, 2_000_000)
            steps.append(StepResult(index=2 * rep, params={"mount": "target as mounted (attribute cache per mount "
                                                                     "options)", "repeat": rep},
                                    repeat=rep, workers=(cached,), metrics=(Metric("lstat_us", 2.5, "us"),)))
            w = WorkerTiming(0, "client1", cached.end, cached.end + 5, 0, calls)
            steps.append(StepResult(index=2 * rep + 1, params={"mount": "target via second mount with "
                                                                         "attribute-timeout=0,entry-timeout=0",
                                                                "repeat": rep, **rtts},
                                    repeat=rep, workers=(w,), metrics=(Metric("lstat_us", ms * 1000, "us"),)))
            clock = w.end + 1
    return RunResult(run_id=uuid.UUID(int=random.Random(seed).getrandbits(128)).hex, workload=workload,
                     status=RunStatus.COMPLETE, started_at=started_at, ended_at=started_at + clock - 1000.0,
                     provenance=prov, steps=steps)
