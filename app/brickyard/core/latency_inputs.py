"""Stored small-file runs as calibration points of the latency model (``core.latency``), as dd
and fio runs calibrate the throughput model (``core.modelinputs``).

- a ``smallfile`` run (the WordPress-shaped extract): each repeat's ms per object on the target
  → a point of the extract on the run's layout kind;
- a ``metadata`` run (the lstat loop): each repeat through the mount without attribute cache
  (an uncached lstat is a LOOKUP round trip; the cached figures are the kernel's) → a point of
  the lstat loop.

Each point sits at the RTT the layout's operations waited on (``latency.layout_rtt``): from
the RTTs the run measured to each server just before the step (``rtt_ms`` in its params, see
``bench.rtt``), else the topology's declared latencies (the snapshot stored with the run), else
a LAN figure, said so. Of a run's repeats the least disturbed is taken (other jobs only add
time). Two runs at different RTTs of one layout kind measure its round trips; one run, or
runs at one RTT, measure the local cost beside the round trips assumed (the write-up's).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from . import latency as lat
from .latency import EXTRACT, LSTAT, Point
from .results import RunResult, RunStatus
from .topology import Topology

SMALLFILE, METADATA = "smallfile", "metadata"
WORKLOADS = (SMALLFILE, METADATA)
#: the metadata workload's step through the mount with the attribute cache off
UNCACHED_PREFIX = "target via second mount"


class LatencyInputError(ValueError):
    """A run that cannot calibrate the latency model (says which and why)."""


def is_latency_run(run: RunResult) -> bool:
    return run.workload in WORKLOADS


def _sets(run: RunResult, topo: Topology | None) -> tuple[str, list[list[str]], str]:
    """(kind, each set's nodes, the volume's name) of the layout a run measured."""
    from dataclasses import replace

    from .decision_runs import _sized_topology, volume_of_run
    from .events import Emitter
    from .plan import plan_volume

    vol = volume_of_run(run)
    if vol is None:
        raise LatencyInputError(f"run {run.run_id[:12]} measured {run.provenance.target or 'no volume'} (a baseline, "
                                "not a gluster layout): nothing to calibrate the small-file model on")
    if topo is None or any(topo.brick(b) is None for b in vol.bricks):
        topo, _ = _sized_topology(vol, None)
    vol = replace(vol, force=True)
    plan = plan_volume(replace(topo, volumes=[vol], events=Emitter()), vol)
    if plan.refused or not plan.sets:
        raise LatencyInputError(f"run {run.run_id[:12]}: its layout {vol.name} is not one gluster creates")
    nodes = [[b.node for b in s.bricks if not (s.thin_arbiter and b == s.arbiter)] for s in plan.sets
             if s.data_bricks > 0]
    return lat.kind_of(plan.sets), nodes, vol.name


def _figure(run: RunResult, step: Any) -> tuple[str, float] | None:
    """(operation, ms per object) of one step, or None (a baseline, a cached lstat)."""
    p = step.params
    if run.workload == SMALLFILE:
        m = step.metric("per_object_ms")
        if p.get("where") == "target" and m is not None and m.value > 0:
            return EXTRACT, float(m.value)
    elif run.workload == METADATA:
        m = step.metric("lstat_us")
        if str(p.get("mount", "")).startswith(UNCACHED_PREFIX) and m is not None and m.value > 0:
            return LSTAT, float(m.value) / 1000.0
    return None


def _rtt(kind: str, nodes: list[list[str]], op: str, measured: Any, topo: Topology | None) -> tuple[float, str]:
    """The RTT the layout's ``op`` waited on, and where it comes from."""
    if isinstance(measured, dict) and measured:
        best: float | None = None
        for per_server in measured.values():     # one client host each: the farthest one
            if not isinstance(per_server, dict):
                continue
            rtts = {str(k): float(v) for k, v in per_server.items() if isinstance(v, (int, float)) and v >= 0}
            if all(n in rtts for ns in nodes for n in ns):
                value = lat.layout_rtt(kind, nodes, rtts, op)
                best = value if best is None else max(best, value)
        if best is not None:
            return best, "measured"
    rtts, sources = {}, set()
    for n in {n for ns in nodes for n in ns}:
        if topo is not None:
            rtts[n], src = lat.rtt_to(topo, None, n)
        else:
            rtts[n], src = lat.LAN_RTT_MS, lat.ASSUMED
        sources.add(src)
    return lat.layout_rtt(kind, nodes, rtts, op), ("declared" if sources == {lat.DECLARED} else
                                                   "assumed" if sources == {lat.ASSUMED} else "partly")


def points_from_run(run: RunResult, topo: Topology | None) -> tuple[list[Point], list[str]]:
    """The latency points of one stored smallfile or metadata run (the least disturbed repeat
    of each operation) and notes on where their RTTs came from. Refuses, saying why, a run
    that cannot calibrate the small-file model."""
    rid = run.run_id[:12]
    if not is_latency_run(run):
        raise LatencyInputError(f"run {rid} is a {run.workload} run: the small-file model is calibrated on "
                                f"{' and '.join(WORKLOADS)} runs")
    if run.status in (RunStatus.FAILED, RunStatus.RUNNING) or (run.status is RunStatus.CANCELLED and not run.steps):
        raise LatencyInputError(f"run {rid} is {run.status.value}: no figures to calibrate on")
    kind, nodes, name = _sets(run, topo)
    best: dict[str, tuple[float, float, str]] = {}     # op -> (ms, rtt, its source)
    repeats: dict[str, int] = {}
    for step in run.steps:
        if not step.valid:
            continue
        got = _figure(run, step)
        if got is None:
            continue
        op, ms = got
        repeats[op] = repeats.get(op, 0) + 1
        rtt, source = _rtt(kind, nodes, op, step.params.get("rtt_ms"), topo)
        if op not in best or ms < best[op][0]:
            best[op] = (ms, rtt, source)
    if not best:
        what = ("no valid extract into the target" if run.workload == SMALLFILE else
                "no valid lstat loop through a mount without attribute cache (run it as root or with sudo: "
                "uncached=true)")
        raise LatencyInputError(f"run {rid} ({run.workload}) has {what}: nothing to calibrate the small-file model on")
    points, notes = [], []
    for op, (ms, rtt, source) in sorted(best.items()):
        label = f"{name} {op} run {rid}"
        points.append(Point(kind, op, rtt, ms, label))
        how = {"measured": "measured by the run", "declared": "the topology's declared latencies",
               "partly": f"the topology's declared latencies, a LAN's {lat.LAN_RTT_MS:g} ms where it declares none",
               "assumed": f"not measured by the run nor declared: a LAN's {lat.LAN_RTT_MS:g} ms assumed"}[source]
        notes.append(f"{label}: {ms:.3g} ms per object (least of {repeats[op]} repeat(s)) at {rtt:.3g} ms RTT "
                     f"({how}), {kind}")
    return points, notes


def points_from_runs(runs: Iterable[RunResult], topology: Any) -> tuple[list[Point], list[str]]:
    """Every run's points; ``topology``: a function giving each run's topology."""
    points: list[Point] = []
    notes: list[str] = []
    for run in runs:
        p, n = points_from_run(run, topology(run))
        points += p
        notes += n
    return points, notes


def fit_points(points: Sequence[Point]) -> lat.LatencyModel | None:
    return lat.fit(points) if points else None
