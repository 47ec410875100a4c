"""Chart-ready series from result objects (pure Python; charts and reports both use it).

A run's sweep collapses to one point per (direction, concurrency, block size): the median
of the valid repeats, with min and max as the error bar.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Iterable, Sequence

from .results import RunResult, StepResult


@dataclass(frozen=True)
class SeriesPoint:
    x: float            # block size in bytes, or concurrency, …
    median: float
    low: float
    high: float
    n: int


def _valid_values(steps: Iterable[StepResult], metric: str) -> list[float]:
    out = []
    for s in steps:
        m = s.metric(metric)
        if s.valid and m is not None and not math.isnan(m.value):
            out.append(m.value)
    return out


def _point(x: float, values: Sequence[float]) -> SeriesPoint:
    return SeriesPoint(x, statistics.median(values), min(values), max(values), len(values))


def directions(run: RunResult) -> list[str]:
    return list(dict.fromkeys(str(s.params.get("direction", "")) for s in run.steps))


def concurrencies(runs: Iterable[RunResult]) -> list[int]:
    return sorted({int(s.params["concurrency"]) for r in runs for s in r.steps
                   if isinstance(s.params.get("concurrency"), int)})


def block_sizes(runs: Iterable[RunResult]) -> list[int]:
    return sorted({int(s.params["block_size"]) for r in runs for s in r.steps
                   if isinstance(s.params.get("block_size"), int)})


def sweep_by_block_size(run: RunResult, metric: str = "throughput",
                        direction: str | None = None) -> dict[int, list[SeriesPoint]]:
    """{concurrency: points along block size}, for one direction (the run's first by default)."""
    direction = direction if direction is not None else (directions(run) or [""])[0]
    groups: dict[int, dict[int, list[StepResult]]] = {}
    for s in run.steps:
        bs, conc = s.params.get("block_size"), s.params.get("concurrency", 1)
        if not isinstance(bs, int) or str(s.params.get("direction", "")) != direction:
            continue
        groups.setdefault(int(conc), {}).setdefault(bs, []).append(s)
    out: dict[int, list[SeriesPoint]] = {}
    for conc in sorted(groups):
        pts = []
        for bs in sorted(groups[conc]):
            values = _valid_values(groups[conc][bs], metric)
            if values:
                pts.append(_point(bs, values))
        if pts:
            out[conc] = pts
    return out


def value_at(run: RunResult, metric: str, block_size: int, concurrency: int,
             direction: str | None = None) -> SeriesPoint | None:
    """The metric at one sweep point (median over repeats), or None when not measured."""
    for p in sweep_by_block_size(run, metric, direction).get(concurrency, []):
        if p.x == block_size:
            return p
    return None


def scaling_efficiency(run: RunResult, block_size: int, metric: str = "throughput",
                       direction: str | None = None) -> list[SeriesPoint]:
    """Concurrent ÷ (N × single) at one block size, per concurrency N (N = 1 gives 1.0)."""
    sweep = sweep_by_block_size(run, metric, direction)
    single = next((p for p in sweep.get(1, []) if p.x == block_size), None)
    if single is None or single.median <= 0:
        return []
    out = []
    for conc, pts in sweep.items():
        p = next((q for q in pts if q.x == block_size), None)
        if p is not None:
            out.append(SeriesPoint(conc, p.median / (conc * single.median), p.low / (conc * single.median),
                                   p.high / (conc * single.median), p.n))
    return out
