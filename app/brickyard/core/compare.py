"""What changed between runs, and does it matter: the provenance diff (shown before any
number) and each metric's difference with its significance from the repeats.

Pure functions over ``RunResult``; the history browser, the CLI and reports call them.
Significance uses ``core.stats``: a bootstrap interval of the ratio of medians (the main
verdict; it works with three repeats) and a Mann–Whitney rank test p-value alongside
(with 3 vs 3 repeats its smallest possible p is 0.1, so it is shown, not decisive).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from .results import RunResult, StepResult
from .stats import Summary, bootstrap_ci, rank_test, summarize
from .units import format_utc

HIGHER_IS_BETTER_UNITS = {"B/s", "ops/s", "tps", "files/s", "iops", "ratio"}
LOWER_IS_BETTER_UNITS = {"s", "ms", "us", "ns"}
POINT_KEYS_FIRST = ("direction", "block_size", "concurrency")


def describe_layout(layout: dict[str, Any]) -> str:
    """'replica 3 × 2 (6 bricks)', 'disperse 6 redundancy 2', 'distribute 4', or '' when unknown."""
    if not layout:
        return ""
    bricks = layout.get("bricks") or []
    n = len(bricks) if isinstance(bricks, list) else 0
    replica, disperse = layout.get("replica"), layout.get("disperse")
    if disperse:
        text = f"disperse {disperse}"
        if layout.get("redundancy"):
            text += f" redundancy {layout['redundancy']}"
        sets = n // disperse if n else 0
    elif replica and replica > 1:
        text = f"replica {replica}"
        if layout.get("arbiter"):
            text += f" arbiter {layout['arbiter']}"
        sets = n // replica if n else 0
    else:
        text, sets = f"distribute {n}" if n else str(layout.get("type", "")), 0
    if sets > 1:
        text += f" × {sets}"
    if n and not text.startswith("distribute"):
        text += f" ({n} bricks)"
    return text


@dataclass(frozen=True)
class Difference:
    """One provenance field that is not the same in every run; ``values`` has one per run."""

    field: str
    values: tuple[str, ...]


NOT_SET = "(not set)"


def provenance_fields(run: RunResult) -> dict[str, str]:
    """A run's provenance as flat, readable fields ('gluster on gfs1', 'option …', 'parameter …')."""
    p = run.provenance
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
            out[f"{key} on {host}"] = value
    for name, value in p.volume_options.items():
        out[f"option {name}"] = value
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
    what was measured, the layout, versions, hosts, options, then parameters."""
    per_run = [provenance_fields(r) for r in runs]
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
    diffs = []
    for name in dict.fromkeys(ordered):
        if name not in names:
            continue
        values = tuple(f.get(name, "") or NOT_SET for f in per_run)
        if len(set(values)) > 1:
            diffs.append(Difference(name, values))
    return diffs


def run_labels(runs: Sequence[RunResult]) -> list[str]:
    """Short names that tell the runs apart by what differs: 'gluster 6.0' vs 'gluster 3.12.15',
    else the layout, else the target ('target local:/dev/shm' vs a local disk's directory, as
    "Benchmark this machine" measures), else the start time and id."""
    diffs = provenance_diff(runs)
    for prefer in ("gluster on", "layout", "option ", "volume", "target", "kernel on", "parameter "):
        for d in diffs:
            if d.field.startswith(prefer) and len(set(d.values)) == len(runs):
                head = "gluster" if d.field.startswith("gluster on") else \
                    "kernel" if d.field.startswith("kernel on") else d.field
                if head == "layout":
                    return list(d.values)
                return [f"{head} {v}" for v in d.values]
    return [f"{format_utc(r.started_at)} {r.run_id[:6]}" for r in runs]


# -- metric differences --------------------------------------------------------------------

Point = tuple[tuple[str, str], ...]


def point_of(step: StepResult) -> Point:
    """The sweep point of a step: its parameters without the repeat, as sortable text pairs."""
    keys = [k for k in POINT_KEYS_FIRST if k in step.params] + \
        sorted(k for k in step.params if k not in POINT_KEYS_FIRST and k != "repeat")
    return tuple((k, json.dumps(step.params[k], sort_keys=True)) for k in keys)


def describe_point(point: Point) -> str:
    from .units import format_block_size

    parts = []
    for key, raw in point:
        value = json.loads(raw)
        if key == "block_size" and isinstance(value, int):
            parts.append(f"bs {format_block_size(value)}")
        elif key == "concurrency":
            parts.append(f"×{value}")
        else:
            parts.append(str(value))
    return " ".join(parts)


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
    ratio: float               # median(B) ÷ median(A)
    low: float                 # bootstrap interval of the ratio
    high: float
    p_value: float             # Mann–Whitney, two-sided; nan with one value on a side
    higher_is_better: bool | None

    @property
    def change(self) -> float:
        return self.ratio - 1.0

    @property
    def significant(self) -> bool:
        """The interval excludes "no change" and both sides have repeats to judge by."""
        return self.baseline.n >= 2 and self.other.n >= 2 and not (self.low <= 1.0 <= self.high)

    def certainty(self) -> str:
        if self.baseline.n < 2 or self.other.n < 2:
            return "not judged: needs at least two repeats on each side"
        p = "" if math.isnan(self.p_value) else f", rank test p = {self.p_value:.3g}"
        interval = f"95 % interval {self.low - 1:+.1%} … {self.high - 1:+.1%}"
        if not self.significant:
            return f"no clear difference ({interval}{p})"
        sure = "very likely real" if self.p_value < 0.05 else "likely real"
        return f"{sure} ({interval}{p})"

    def sentence(self, a: str, b: str) -> str:
        """'gluster 6.0 is 23.1 % faster than gluster 3.12.15' (B relative to A)."""
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


def compare_runs(a: RunResult, b: RunResult, metrics: Sequence[str] = ("throughput",),
                 seed: int = 0) -> list[MetricComparison]:
    """Each metric at each sweep point both runs measured: B relative to A."""
    out = []
    for name in metrics:
        unit = metric_unit([a, b], name)
        better = True if unit in HIGHER_IS_BETTER_UNITS else False if unit in LOWER_IS_BETTER_UNITS else None
        va, vb = repeats_by_point(a, name), repeats_by_point(b, name)
        for point in sorted(set(va) & set(vb), key=_point_sort_key):
            xs, ys = va[point], vb[point]
            ratio, low, high = bootstrap_ci(xs, ys, statistic="median", seed=seed)
            p = rank_test(xs, ys) if len(xs) >= 2 and len(ys) >= 2 else math.nan
            out.append(MetricComparison(name, unit, point, summarize(xs), summarize(ys),
                                        ratio, low, high, p, better))
    return out


def _point_sort_key(point: Point) -> tuple:
    """Numbers in numeric order (4K before 64K), anything else as text after them."""
    key = []
    for name, raw in point:
        value = json.loads(raw)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        key.append((name, 0 if number else 1, value if number else 0, "" if number else raw))
    return tuple(key)
