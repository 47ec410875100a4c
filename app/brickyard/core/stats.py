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
    expand: bool = False,
) -> tuple[float, float, float]:
    """Bootstrap confidence interval: ``(estimate, low, high)``.

    With one sample set: the interval of its statistic (median or mean). With two: the
    interval of the ratio statistic(b) ÷ statistic(a), e.g. 1.12 = b is 12 % higher.
    ``expand``: widen the interval for few samples (``expanded_alpha``; the smaller set
    counts). Deterministic for a given ``seed`` so a report re-renders identically."""
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
    n = min(len(samples_a), len(samples_b)) if samples_b is not None else len(samples_a)
    alpha = (expanded_alpha(n, confidence) if expand else 1 - confidence) / 2
    low, high = percentile(draws, 100 * alpha), percentile(draws, 100 * (1 - alpha))
    if expand and samples_b is not None:
        # a bootstrap of three values never leaves their range: take in the t interval too
        t_low, t_high = log_ratio_t_interval(samples_a, samples_b, confidence)
        if not math.isnan(t_low):
            low, high = min(low, t_low), max(high, t_high)
    return estimate, low, high


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


# -- few repeats on a noisy machine --------------------------------------------------------
#
# A percentile bootstrap from three repeats is too narrow: it only ever resamples the three
# values seen, so its interval never leaves their range. ``bootstrap_ci(..., expand=True)``
# widens it twice over: the percentiles are taken where Hesterberg's "expanded percentile
# interval" puts them (Hesterberg 2015, "What teachers should know about the bootstrap",
# §4.2: the normal quantile matching sqrt(n/(n-1)) × Student's t with n-1 degrees of
# freedom), and the interval is joined with Welch's t interval of the ratio on log values
# (t = 4.3 with three repeats). With 30 repeats both are within a few % of the plain one.
# On top, ``core.compare`` never calls a change real when it is smaller than the spread
# between repeats measured in the same runs.


def student_t_cdf(t: float, df: int) -> float:
    """P(T ≤ t) for Student's t with an integer ``df`` ≥ 1 (Abramowitz & Stegun 26.7.3/4,
    exact for integer degrees of freedom)."""
    if df < 1:
        raise ValueError("degrees of freedom must be ≥ 1")
    theta = math.atan(abs(t) / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for k in range(2, df, 2):           # 1 + 1/2 c² + (1·3)/(2·4) c⁴ + …
            term *= c2 * (k - 1) / k
            total += term
        inside = s * total
    else:
        total = 0.0
        if df > 1:
            term = total = 1.0
            for k in range(3, df, 2):       # 1 + 2/3 c² + (2·4)/(3·5) c⁴ + …
                term *= c2 * (k - 1) / k
                total += term
        inside = 2 / math.pi * (theta + s * math.cos(theta) * total)
    return 0.5 + math.copysign(inside / 2, t)


def student_t_ppf(q: float, df: int) -> float:
    """The t value below which a fraction ``q`` lies (bisection on ``student_t_cdf``)."""
    if not 0 < q < 1:
        raise ValueError("q must be within (0, 1)")
    lo, hi = -1e6, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        if student_t_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-10 * max(1.0, abs(mid)):
            break
    return (lo + hi) / 2


def expanded_alpha(n: int, confidence: float = 0.95) -> float:
    """The two-sided tail probability a percentile bootstrap should use for ``n`` samples so
    that its interval is as wide as a t interval would be (the expanded percentile rule)."""
    if n < 2:
        return 1 - confidence
    t = student_t_ppf(1 - (1 - confidence) / 2, n - 1)
    z = math.sqrt(n / (n - 1)) * t
    return math.erfc(z / math.sqrt(2))


def log_ratio_t_interval(samples_a: Sequence[float], samples_b: Sequence[float],
                         confidence: float = 0.95) -> tuple[float, float]:
    """Welch's t interval of the ratio b/a on log values (rates and times are positive and
    scatter multiplicatively): with three repeats t is 4.3, so the interval is as wide as
    three values honestly allow. (nan, nan) when a side has fewer than two values or a
    value is not positive."""
    if len(samples_a) < 2 or len(samples_b) < 2 or min(*samples_a, *samples_b) <= 0:
        return math.nan, math.nan
    la, lb = [math.log(v) for v in samples_a], [math.log(v) for v in samples_b]
    va, vb = statistics.variance(la) / len(la), statistics.variance(lb) / len(lb)
    diff = statistics.fmean(lb) - statistics.fmean(la)
    se = math.sqrt(va + vb)
    if se == 0:
        return math.exp(diff), math.exp(diff)
    df = (va + vb) ** 2 / ((va ** 2 / (len(la) - 1) if va else 0) + (vb ** 2 / (len(lb) - 1) if vb else 0))
    t = student_t_ppf(1 - (1 - confidence) / 2, max(1, int(df)))     # whole df: the wider side
    return math.exp(diff - t * se), math.exp(diff + t * se)


def relative_spread(values: Sequence[float]) -> float:
    """(max − min) ÷ median of repeats: how far apart the same measurement landed; nan for
    fewer than two values or a zero median."""
    vals = [v for v in values if not math.isnan(v)]
    if len(vals) < 2:
        return math.nan
    mid = statistics.median(vals)
    return (max(vals) - min(vals)) / abs(mid) if mid else math.nan


def paired_ratio_ci(samples_a: Sequence[float], samples_b: Sequence[float], *, confidence: float = 0.95,
                    resamples: int = 2000, seed: int = 0, expand: bool = True) -> tuple[float, float, float]:
    """Interleaved A/B repeats: ``samples_a[i]`` and ``samples_b[i]`` were measured back to
    back, so the drift of a noisy machine hits both alike. Returns (median of the per-pair
    ratios b/a, low, high) with a bootstrap over pairs (expanded for few pairs)."""
    if len(samples_a) != len(samples_b) or not samples_a:
        raise ValueError("paired repeats need the same number (≥ 1) of A and B values")
    ratios = [b / a for a, b in zip(samples_a, samples_b) if a]
    if not ratios:
        return math.nan, math.nan, math.nan
    rng = random.Random(seed)
    draws = [statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(resamples)]
    alpha = expanded_alpha(len(ratios), confidence) if expand else 1 - confidence
    low, high = percentile(draws, 50 * alpha), percentile(draws, 100 - 50 * alpha)
    if expand and len(ratios) >= 2 and min(ratios) > 0:      # and the one-sample t interval on logs
        logs = [math.log(r) for r in ratios]
        se = statistics.stdev(logs) / math.sqrt(len(logs))
        t = student_t_ppf(1 - (1 - confidence) / 2, len(logs) - 1)
        low = min(low, math.exp(statistics.fmean(logs) - t * se))
        high = max(high, math.exp(statistics.fmean(logs) + t * se))
    return statistics.median(ratios), low, high


def signed_rank_test(samples_a: Sequence[float], samples_b: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value for paired repeats (exact: every sign pattern;
    zero differences dropped). With 3 pairs its smallest p is 0.25, with 6 it is 0.031."""
    diffs = [b - a for a, b in zip(samples_a, samples_b) if b != a]
    n = len(diffs)
    if n == 0:
        return 1.0
    order = sorted(range(n), key=lambda i: abs(diffs[i]))
    ranks = [0.0] * n
    i = 0
    while i < n:                              # average ranks over ties of |d|
        j = i
        while j < n and abs(diffs[order[j]]) == abs(diffs[order[i]]):
            j += 1
        for k in range(i, j):
            ranks[order[k]] = (i + j + 1) / 2
        i = j
    w_plus = sum(r for r, d in zip(ranks, diffs) if d > 0)
    mean = sum(ranks) / 2
    if n > 20:                                # normal approximation
        var = sum(r * r for r in ranks) / 4
        z = (abs(w_plus - mean) - 0.5) / math.sqrt(var) if var else 0.0
        return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))
    extreme = 0
    for mask in range(1 << n):
        w = sum(ranks[k] for k in range(n) if mask >> k & 1)
        if abs(w - mean) >= abs(w_plus - mean) - 1e-9:
            extreme += 1
    return extreme / (1 << n)


def interleaved_schedule(repeats: int, configs: Sequence[str] = ("A", "B")) -> list[tuple[int, str]]:
    """The order to measure ``repeats`` of each configuration so slow drift (a warming
    cache, a neighbour's backup, thermal throttling) hits them alike: ABBA blocks — A B, then
    B A, … — as (repeat, config) pairs. Pair repeat i of A with repeat i of B for
    ``paired_ratio_ci`` / ``signed_rank_test`` (``core.compare`` does so for runs that
    share ``provenance.extra["interleave_group"]``)."""
    if repeats < 1:
        raise ValueError("repeats must be ≥ 1")
    out: list[tuple[int, str]] = []
    for i in range(repeats):
        block = list(configs) if i % 2 == 0 else list(reversed(configs))
        out += [(i, c) for c in block]
    return out
