"""What changed between runs, and does it matter: the provenance diff (shown before any
number) and each metric's difference with its significance from the repeats.

Pure functions over ``RunResult``; the history browser, the CLI and reports call them.
Significance uses ``core.stats``: a bootstrap interval of the ratio of medians, widened
for few repeats (the main verdict), and a Mann–Whitney rank test p-value alongside (with
3 vs 3 repeats its smallest possible p is 0.1, so it is shown, not decisive). A change no
larger than the spread between repeats measured in the same runs is never called real;
interleaved A/B repeats (a campaign's) are compared pair by pair.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from .results import RunResult, StepResult
from .runlabels import describe_layout, describe_option_value, is_gluster, option_value, run_labels
from .stats import (
    Summary,
    bootstrap_ci,
    paired_ratio_ci,
    rank_test,
    relative_spread,
    signed_rank_test,
    summarize,
)

__all__ = ["Difference", "HEADLINE_METRICS", "MetricComparison", "compare_runs", "describe_layout", "describe_point",
           "describe_points", "headline_metrics", "interleaved", "metric_unit", "point_of", "provenance_diff", "provenance_fields",
           "repeats_by_point", "run_labels"]

HIGHER_IS_BETTER_UNITS = {"B/s", "ops/s", "tps", "files/s", "iops", "ratio"}
LOWER_IS_BETTER_UNITS = {"s", "ms", "us", "ns"}
POINT_KEYS_FIRST = ("direction", "phase", "block_size", "concurrency")


@dataclass(frozen=True)
class Difference:
    """One provenance field that is not the same in every run; ``values`` has one per run."""

    field: str
    values: tuple[str, ...]


NOT_SET = "(not set)"


def provenance_fields(run: RunResult, option_names: Iterable[str] = ()) -> dict[str, str]:
    """A run's provenance as flat, readable fields ('gluster on gfs1', 'option …', 'parameter …').

    A run that did not measure gluster has no 'gluster on HOST' field, whatever the host has
    installed. ``option_names`` (options set in other runs) are filled in from what gluster
    reported at run time: 'on (gluster default)'."""
    p = run.provenance
    gluster = is_gluster(p)
    out: dict[str, str] = {
        "workload": run.workload,
        "target": p.target,
        "target kind": p.target_kind,
        "volume": p.volume_name,
        "layout": describe_layout(p.layout),
        "bricks": ", ".join(str(b) for b in p.layout.get("bricks", [])) if p.layout else "",
        "mount options": p.mount_options,
        "brickyard version": p.brickyard_version,
        "hosts": ", ".join(sorted(p.hosts)),
    }
    for host, info in p.hosts.items():
        for key, value in info.items():
            if key == "gluster" and not gluster:
                continue
            out[f"{key} on {host}"] = value
    if gluster:
        for name in dict.fromkeys([*p.volume_options, *option_names]):
            out[f"option {name}"] = describe_option_value(p, name)
    for name, value in _flatten(p.parameters):
        out[f"parameter {name}"] = value
    return out


def _flatten(data: dict[str, Any], prefix: str = "") -> Iterable[tuple[str, str]]:
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _flatten(value, name + ".")
        else:
            yield name, value if isinstance(value, str) else json.dumps(value)


def provenance_diff(runs: Sequence[RunResult]) -> list[Difference]:
    """Every field whose value is not the same in all ``runs``, in a stable reading order:
    what was measured, the layout, versions, hosts, options, then parameters. An option set
    in one run and unset in another is no difference when the other run's recorded value
    (``gluster volume get``: gluster's default) is the same; runs that did not measure
    gluster show "—" for options."""
    option_names = sorted({n for r in runs if is_gluster(r.provenance) for n in r.provenance.volume_options})
    per_run = [provenance_fields(r, option_names) for r in runs]
    names: dict[str, None] = {}
    for fields in per_run:
        names.update(dict.fromkeys(fields))
    order = ["workload", "target", "target kind", "volume", "layout", "bricks", "mount options"]
    rest = sorted(n for n in names if n not in order)
    versions = [n for n in rest if n.startswith(("gluster on", "kernel on", "os on"))]
    ordered = order + versions + ["brickyard version", "hosts"] + \
        [n for n in rest if n.startswith("option ")] + [n for n in rest if n.startswith("parameter ")] + \
        [n for n in rest if n not in versions and not n.startswith(("option ", "parameter "))
         and n not in ("brickyard version", "hosts")]
    gl = [r.provenance for r in runs if is_gluster(r.provenance)]
    diffs = []
    for name in dict.fromkeys(ordered):
        if name not in names:
            continue
        values = tuple(f.get(name, "") or NOT_SET for f in per_run)
        if name.startswith("option "):
            option = name.removeprefix("option ")
            resolved = {option_value(p, option)[0] or f"?{i}" for i, p in enumerate(gl)}
            if len(resolved) <= 1:
                continue          # e.g. "on" set in one run, "on (gluster default)" in the other
            values = tuple(v if is_gluster(r.provenance) else "—" for v, r in zip(values, runs))
        if len(set(values)) > 1:
            diffs.append(Difference(name, values))
    return diffs


# -- metric differences --------------------------------------------------------------------

Point = tuple[tuple[str, str], ...]


def point_of(step: StepResult) -> Point:
    """The sweep point of a step: its parameters without the repeat, as sortable text pairs."""
    keys = [k for k in POINT_KEYS_FIRST if k in step.params] + \
        sorted(k for k in step.params if k not in POINT_KEYS_FIRST and k != "repeat")
    return tuple((k, json.dumps(step.params[k], sort_keys=True)) for k in keys)


BARE_POINT_KEYS = ("direction", "phase")      # their values read as words: "write", "init"


def describe_point(point: Point) -> str:
    """A sweep point as people read it, every value named: 'write bs 64K ×1 count=64
    file_size=4M'; 'run clients=2 transactions=50'."""
    from .units import format_block_size

    parts = []
    for key, raw in point:
        value = json.loads(raw)
        if key == "block_size" and isinstance(value, int):
            parts.append(f"bs {format_block_size(value)}")
        elif key == "concurrency":
            parts.append(f"×{value}")
        elif key in BARE_POINT_KEYS:
            parts.append(str(value))
        elif isinstance(value, int) and not isinstance(value, bool) and key.endswith(("size", "bytes")):
            parts.append(f"{key}={format_block_size(value)}")
        else:
            parts.append(f"{key}={value if isinstance(value, str) else json.dumps(value)}")
    return " ".join(parts)


def describe_points(points: Sequence[Point]) -> tuple[list[str], str]:
    """Short names for several points: only the values that differ between them, plus
    what they all share in words ('scale=1 pg_version=…') for a title."""
    keys = list(dict.fromkeys(k for pt in points for k, _ in pt))
    varying = [k for k in keys if len({dict(pt).get(k) for pt in points}) > 1]
    shared = [k for k in keys if k not in varying]
    names = [describe_point(tuple((k, v) for k, v in pt if k in varying)) or describe_point(pt) for pt in points]
    common = describe_point(tuple((k, v) for k, v in points[0] if k in shared)) if points and varying else ""
    return names, common


def repeats_by_point(run: RunResult, metric: str) -> dict[Point, list[float]]:
    """The metric's value in each valid repeat, per sweep point."""
    out: dict[Point, list[float]] = {}
    for step in run.steps:
        m = step.metric(metric)
        if step.valid and m is not None and not math.isnan(m.value):
            out.setdefault(point_of(step), []).append(m.value)
    return out


def metric_unit(runs: Sequence[RunResult], metric: str) -> str:
    for run in runs:
        for step in run.steps:
            m = step.metric(metric)
            if m is not None:
                return m.unit
    return ""


@dataclass(frozen=True)
class MetricComparison:
    metric: str
    unit: str
    point: Point
    baseline: Summary          # run A over its repeats
    other: Summary             # run B
    ratio: float               # median(B) ÷ median(A) (paired: median of the per-pair ratios)
    low: float                 # bootstrap interval of the ratio, widened for few repeats
    high: float
    p_value: float             # Mann–Whitney (paired: Wilcoxon signed-rank), two-sided; nan with one value
    higher_is_better: bool | None
    noise: float = math.nan    # run-to-run spread measured in these runs (relative), see ``significant``
    paired: bool = False       # interleaved A/B repeats, compared pair by pair

    @property
    def change(self) -> float:
        return self.ratio - 1.0

    @property
    def judged(self) -> bool:
        return self.baseline.n >= 2 and self.other.n >= 2

    @property
    def within_noise(self) -> bool:
        """The change is no larger than the spread between repeats in these same runs."""
        return not math.isnan(self.noise) and abs(self.change) <= self.noise

    @property
    def significant(self) -> bool:
        """Both sides have repeats, the (widened) interval excludes "no change", and the
        change is larger than the run-to-run spread measured in the same runs: on a machine
        whose repeats scatter by 30 %, a 9 % change is never called real."""
        return self.judged and not (self.low <= 1.0 <= self.high) and not self.within_noise

    def certainty(self) -> str:
        if not self.judged:
            return "not judged: needs at least two repeats on each side"
        test = "signed-rank test" if self.paired else "rank test"
        p = "" if math.isnan(self.p_value) else f", {test} p = {self.p_value:.3g}"
        interval = f"95 % interval {self.low - 1:+.1%} … {self.high - 1:+.1%}"
        how = ", interleaved pairs" if self.paired else ""
        if self.low <= 1.0 <= self.high:
            return f"no clear difference ({interval}{p}{how})"
        if self.within_noise:
            spread = "pair-to-pair" if self.paired else "repeat-to-repeat"
            return (f"no clear difference: {self.change:+.1%} is within the {self.noise:.0%} {spread} spread "
                    f"measured in these runs ({interval}{p}{how})")
        sure = "very likely real" if self.p_value < 0.05 else "likely real"
        return f"{sure} ({interval}{p}{how})"

    def sentence(self, a: str, b: str) -> str:
        """'glusterfs 6.0 is 23.1 % faster than glusterfs 3.12.15' (B relative to A)."""
        if math.isnan(self.ratio):
            return f"{b} vs {a}: not comparable (zero baseline)"
        change = abs(self.change)
        if self.higher_is_better is None:
            word = "higher" if self.change > 0 else "lower"
        else:
            better = (self.change > 0) == self.higher_is_better
            word = ("faster" if better else "slower") if self.unit in HIGHER_IS_BETTER_UNITS | \
                LOWER_IS_BETTER_UNITS else ("better" if better else "worse")
        return f"{b} is {change:.1%} {word} than {a}"


# What a workload's steps report first, most telling first: the default metric of a
# comparison is each step's first one of these (pgbench: tps for its run steps, the
# initialisation time for its init steps; randread: files/s; dd and fio: throughput). A
# workload may record its own list in ``provenance.extra["headline_metrics"]``.
HEADLINE_METRICS = ("throughput", "tps", "files_per_s", "objects_per_s", "lstat_us", "iops", "calls_per_s",
                    "ops_per_s", "per_object_ms", "latency_ms", "init_seconds", "seconds", "elapsed")


def headline_metrics(runs: Sequence[RunResult]) -> list[str]:
    """The metrics a comparison of ``runs`` shows by default: the headline of each kind of
    step they measured, in the workload's order (see ``HEADLINE_METRICS``)."""
    preferred: list[str] = []
    for r in runs:
        preferred += [m for m in r.provenance.extra.get("headline_metrics", []) if isinstance(m, str)]
    order = list(dict.fromkeys([*preferred, *HEADLINE_METRICS]))
    found: dict[str, None] = {}
    for r in runs:
        for step in r.steps:
            names = {m.name for m in step.metrics}
            first = next((m for m in order if m in names), None)
            if first is not None:
                found[first] = None
    return sorted(found, key=order.index) or ["throughput"]


def interleaved(a: RunResult, b: RunResult) -> bool:
    """Whether ``a`` and ``b`` were measured as interleaved A/B repeats: both carry the same
    ``provenance.extra["interleave_group"]`` (a campaign sets it and orders the repeats with
    ``core.stats.interleaved_schedule``)."""
    group = a.provenance.extra.get("interleave_group")
    return bool(group) and group == b.provenance.extra.get("interleave_group")


def _repeats(run: RunResult, metric: str) -> dict[Point, dict[int, float]]:
    out: dict[Point, dict[int, float]] = {}
    for step in run.steps:
        m = step.metric(metric)
        if step.valid and m is not None and not math.isnan(m.value):
            out.setdefault(point_of(step), {})[step.repeat] = m.value
    return out


def _run_noise(values: dict[Point, dict[int, float]]) -> float:
    """The typical repeat-to-repeat spread of a run (median over its points)."""
    spreads = [relative_spread(list(v.values())) for v in values.values() if len(v) >= 2]
    spreads = [x for x in spreads if not math.isnan(x)]
    return statistics.median(spreads) if spreads else math.nan


def compare_runs(a: RunResult, b: RunResult, metrics: Sequence[str] | None = None,
                 seed: int = 0, paired: bool | None = None) -> list[MetricComparison]:
    """Each metric (default: ``headline_metrics``) at each sweep point both runs measured,
    B relative to A.

    Intervals are widened for few repeats (``stats.bootstrap_ci(expand=True)``). The noise a
    change must exceed is the larger of the spread between repeats at that point and the
    typical spread across the whole of both runs. Interleaved runs (``interleaved``, or
    ``paired=True``) are compared pair by pair (repeat i of A with repeat i of B), so slow
    drift cancels and the noise is the spread of the per-pair ratios."""
    metrics = list(metrics) if metrics else headline_metrics([a, b])
    paired = interleaved(a, b) if paired is None else paired
    out = []
    for name in metrics:
        unit = metric_unit([a, b], name)
        better = True if unit in HIGHER_IS_BETTER_UNITS else False if unit in LOWER_IS_BETTER_UNITS else None
        va, vb = _repeats(a, name), _repeats(b, name)
        run_noise = max((x for x in (_run_noise(va), _run_noise(vb)) if not math.isnan(x)), default=math.nan)
        for point in sorted(set(va) & set(vb), key=_point_sort_key):
            xs, ys = list(va[point].values()), list(vb[point].values())
            pairs = sorted(set(va[point]) & set(vb[point]))
            if paired and len(pairs) >= 2:
                pa, pb = [va[point][i] for i in pairs], [vb[point][i] for i in pairs]
                ratio, low, high = paired_ratio_ci(pa, pb, seed=seed)
                p = signed_rank_test(pa, pb)
                noise = relative_spread([y / x for x, y in zip(pa, pb) if x])
                out.append(MetricComparison(name, unit, point, summarize(pa), summarize(pb), ratio, low, high,
                                            p, better, noise, True))
                continue
            ratio, low, high = bootstrap_ci(xs, ys, statistic="median", seed=seed, expand=True)
            p = rank_test(xs, ys) if len(xs) >= 2 and len(ys) >= 2 else math.nan
            here = [x for x in (relative_spread(xs), relative_spread(ys)) if not math.isnan(x)]
            noise = max([*here, run_noise] if not math.isnan(run_noise) else here, default=math.nan)
            out.append(MetricComparison(name, unit, point, summarize(xs), summarize(ys),
                                        ratio, low, high, p, better, noise))
    return out


def _point_sort_key(point: Point) -> tuple:
    """Numbers in numeric order (4K before 64K), anything else as text after them."""
    key = []
    for name, raw in point:
        value = json.loads(raw)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        key.append((name, 0 if number else 1, value if number else 0, "" if number else raw))
    return tuple(key)
