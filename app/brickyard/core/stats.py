"""Aggregate maths for benchmark results: pure functions over plain numbers and
``WorkerTiming`` objects, no I/O.

Which number is which (the reason this module exists):

- ``headline_bps``: total bytes ÷ (last end − first start). What the storage delivered over
  the wall-clock window in which any worker was busy. This is the number to quote.
- ``stonewall``: bytes done by all workers when the *first* one finished ÷ that time. It
  needs each worker's progress at that moment (sampled I/O counters); without them it is
  "not measured", never an estimate (an average-rate estimate is the sum of rates again).
- ``sum_of_rates_bps``: Σ (bytes_i ÷ seconds_i). What hand-made scripts add up from each
  dd's own "MB/s"; it overstates throughput whenever workers do not start and end together.
  Always labelled as such, never the headline.
- ``tail_seconds``: last end − first end: how long the slowest worker kept the run going.
- ``scaling_efficiency``: concurrent ÷ (N × single).

A rate is never divided by a runtime: rates are bytes ÷ seconds, and only bytes (or ops)
are summed.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .results import Metric, StepResult, WorkerTiming


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, ``q`` in [0, 100]; nan for no values."""
    if not values:
        return math.nan
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within 0..100, not {q}")
    ordered = sorted(values)
    if len(ordered) == 1:
        return float(ordered[0])
    pos = (len(ordered) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))


def start_skew(workers: Sequence[WorkerTiming]) -> dict[str, float]:
    """How far after the first worker each worker really started: p50, p99, max (seconds)."""
    if not workers:
        return {"p50": math.nan, "p99": math.nan, "max": math.nan}
    first = min(w.start for w in workers)
    lags = [w.start - first for w in workers]
    return {"p50": percentile(lags, 50), "p99": percentile(lags, 99), "max": max(lags)}


def window_seconds(workers: Sequence[WorkerTiming]) -> float:
    """Last end − first start."""
    if not workers:
        return 0.0
    return max(w.end for w in workers) - min(w.start for w in workers)


def total_bytes(workers: Iterable[WorkerTiming]) -> int:
    return sum(w.bytes for w in workers)


def total_ops(workers: Iterable[WorkerTiming]) -> int:
    return sum(w.ops for w in workers)


def headline_bps(workers: Sequence[WorkerTiming]) -> float:
    """Total bytes ÷ (last end − first start)."""
    seconds = window_seconds(workers)
    return total_bytes(workers) / seconds if seconds > 0 else 0.0


def headline_ops(workers: Sequence[WorkerTiming]) -> float:
    """Total ops ÷ (last end − first start)."""
    seconds = window_seconds(workers)
    return total_ops(workers) / seconds if seconds > 0 else 0.0


def sum_of_rates_bps(workers: Sequence[WorkerTiming]) -> float:
    """Σ per-worker (bytes ÷ own seconds): the hand-made scripts' figure, labelled as such."""
    return sum(w.rate_bps for w in workers)


#: one worker's progress: (time, bytes moved so far) samples, times ascending, on the same
#: clock as its WorkerTiming
Curve = Sequence[tuple[float, float]]


def progress_at(curve: Curve, t: float) -> float:
    """Bytes a progress curve had reached at ``t``: linear between the samples around it,
    the last value after the last sample, 0 before the first."""
    if not curve or t < curve[0][0]:
        return 0.0
    prev_t, prev_v = curve[0]
    for ti, vi in curve:
        if ti >= t:
            if ti == prev_t:
                return float(vi)
            return prev_v + (vi - prev_v) * (t - prev_t) / (ti - prev_t)
        prev_t, prev_v = ti, vi
    return float(prev_v)


@dataclass(frozen=True)
class Stonewall:
    """The first-finisher figure: ``bytes`` all workers had moved when the first one
    finished, ``seconds`` from the first start to that moment, and their ratio."""

    bps: float
    bytes: float
    seconds: float


def stonewall(workers: Sequence[WorkerTiming], curves: Mapping[int, Curve] | None = None) -> Stonewall | None:
    """Stonewall (as in IOzone, elbencho, smallfile): bytes moved by every worker up to the
    moment the first one finished ÷ (that moment − first start). A worker that had finished
    by then counts all its bytes; one still running counts its progress curve at that moment
    (``curves`` by position in ``workers``), capped at its own total. None — not measured —
    when a worker still running then has no curve: its bytes at that moment are unknown, and
    an estimate from its average rate would only repeat the sum of rates."""
    if not workers:
        return None
    first_start = min(w.start for w in workers)
    first_end = min(w.end for w in workers)
    span = first_end - first_start
    if span <= 0:
        return None
    moved = 0.0
    for i, w in enumerate(workers):
        if w.end <= first_end:
            moved += w.bytes
            continue
        curve = (curves or {}).get(i)
        if not curve:
            return None
        moved += min(float(w.bytes), progress_at(curve, first_end))
    return Stonewall(moved / span, moved, span)


def tail_seconds(workers: Sequence[WorkerTiming]) -> float:
    """Last end − first end."""
    if not workers:
        return 0.0
    return max(w.end for w in workers) - min(w.end for w in workers)


def scaling_efficiency(concurrent_bps: float, single_bps: float, n: int) -> float:
    """concurrent ÷ (N × single): 1.0 means N workers got N times one worker's throughput."""
    if n <= 0:
        raise ValueError("scaling efficiency needs N ≥ 1 workers")
    if single_bps <= 0:
        return math.nan
    return concurrent_bps / (n * single_bps)


STONEWALL_LABEL = ("bytes all workers had moved when the first finished ÷ (that moment − first start); "
                   "a running worker's bytes are what it had passed to read()/write() then (sampled I/O "
                   "counters; written bytes may still be flushing)")


def throughput_metrics(workers: Sequence[WorkerTiming], curves: Mapping[int, Curve] | None = None
                       ) -> tuple[Metric, ...]:
    """The standard set of throughput metrics for one step, each labelled with its formula.
    The stonewall figures are there only when measured (see ``stonewall``)."""
    if not workers:
        return ()
    rates = [w.rate_bps for w in workers]
    skew = start_skew(workers)
    wall = stonewall(workers, curves)
    first = (
        Metric("throughput", headline_bps(workers), "B/s", "total bytes ÷ (last end − first start)"),
    )
    if wall is not None:
        first += (
            Metric("stonewall_throughput", wall.bps, "B/s", STONEWALL_LABEL),
            Metric("stonewall_bytes", wall.bytes, "B", "bytes all workers had moved when the first finished"),
            Metric("stonewall_seconds", wall.seconds, "s", "first end − first start"),
        )
    return first + (
        Metric("sum_of_rates", sum_of_rates_bps(workers), "B/s",
               "sum of each worker's own bytes ÷ own seconds (not a wall-clock rate)"),
        Metric("worker_rate_min", min(rates), "B/s", "slowest worker's own rate"),
        Metric("worker_rate_max", max(rates), "B/s", "fastest worker's own rate"),
        Metric("tail", tail_seconds(workers), "s", "last end − first end"),
        Metric("elapsed", window_seconds(workers), "s", "last end − first start"),
        Metric("bytes", float(total_bytes(workers)), "B", "bytes moved by all workers"),
        Metric("start_skew_p99", skew["p99"], "s", "99th percentile of start lag after the first worker"),
    )


@dataclass(frozen=True)
class Summary:
    """Median and spread of one metric over repeats."""

    n: int
    median: float
    minimum: float
    maximum: float
    stdev: float

    @property
    def spread(self) -> float:
        """(max − min) ÷ median: relative range over the repeats."""
        return (self.maximum - self.minimum) / self.median if self.median else math.nan


def summarize(values: Sequence[float]) -> Summary:
    vals = [float(v) for v in values if not math.isnan(v)]
    if not vals:
        return Summary(0, math.nan, math.nan, math.nan, math.nan)
    return Summary(
        n=len(vals),
        median=statistics.median(vals),
        minimum=min(vals),
        maximum=max(vals),
        stdev=statistics.stdev(vals) if len(vals) > 1 else 0.0,
    )


def bootstrap_ci(
    samples_a: Sequence[float],
    samples_b: Sequence[float] | None = None,
    *,
    statistic: str = "median",
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Bootstrap confidence interval: ``(estimate, low, high)``.

    With one sample set: the interval of its statistic (median or mean). With two: the
    interval of the ratio statistic(b) ÷ statistic(a), e.g. 1.12 = b is 12 % higher.
    Deterministic for a given ``seed`` so a report re-renders identically."""
    if not samples_a or (samples_b is not None and not samples_b):
        raise ValueError("bootstrap_ci needs at least one sample in each set")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    stat = {"median": statistics.median, "mean": statistics.fmean}.get(statistic)
    if stat is None:
        raise ValueError(f"statistic must be 'median' or 'mean', not {statistic!r}")
    rng = random.Random(seed)

    def value(a: Sequence[float], b: Sequence[float] | None) -> float:
        if b is None:
            return stat(a)
        base = stat(a)
        return stat(b) / base if base else math.nan

    estimate = value(samples_a, samples_b)
    draws = []
    for _ in range(resamples):
        ra = rng.choices(samples_a, k=len(samples_a))
        rb = rng.choices(samples_b, k=len(samples_b)) if samples_b is not None else None
        v = value(ra, rb)
        if not math.isnan(v):
            draws.append(v)
    alpha = (1 - confidence) / 2
    return estimate, percentile(draws, 100 * alpha), percentile(draws, 100 * (1 - alpha))


def rank_test(samples_a: Sequence[float], samples_b: Sequence[float]) -> float:
    """Two-sided Mann–Whitney U test p-value (normal approximation with tie correction;
    exact enumeration for small samples without ties). Small p: the two differ."""
    a, b = list(samples_a), list(samples_b)
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        raise ValueError("rank_test needs at least one sample in each set")
    u_a = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    ties = len(set(a + b)) < n1 + n2
    if not ties and n1 * n2 <= 400 and math.comb(n1 + n2, n1) <= 200_000:
        return _exact_u_pvalue(a, b, u_a)
    mean = n1 * n2 / 2
    combined = sorted(a + b)
    tie_term = 0.0
    i = 0
    while i < len(combined):
        j = i
        while j < len(combined) and combined[j] == combined[i]:
            j += 1
        t = j - i
        tie_term += t**3 - t
        i = j
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u_a - mean) - 0.5) / math.sqrt(var)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def _exact_u_pvalue(a: list[float], b: list[float], u_obs: float) -> float:
    from itertools import combinations

    pooled = a + b
    n1 = len(a)
    mean = len(a) * len(b) / 2
    extreme = total = 0
    for idx in combinations(range(len(pooled)), n1):
        chosen = set(idx)
        xa = [pooled[i] for i in idx]
        xb = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        u = sum((x > y) for x in xa for y in xb)
        total += 1
        if abs(u - mean) >= abs(u_obs - mean) - 1e-9:
            extreme += 1
    return extreme / total


def summarize_repeats(steps: Sequence[StepResult], metric: str = "throughput") -> list[tuple[dict, Summary]]:
    """Group valid steps that differ only in ``repeat`` and summarize ``metric`` over them,
    in first-seen order: ``[(params without 'repeat', Summary), …]``."""
    groups: dict[tuple, tuple[dict, list[float]]] = {}
    for step in steps:
        if not step.valid:
            continue
        m = step.metric(metric)
        if m is None:
            continue
        params = {k: v for k, v in step.params.items() if k != "repeat"}
        key = tuple(sorted((k, repr(v)) for k, v in params.items()))
        groups.setdefault(key, (params, []))[1].append(m.value)
    return [(params, summarize(values)) for params, values in groups.values()]
