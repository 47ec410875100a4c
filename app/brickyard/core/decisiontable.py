"""The decision table's types: which layout to build, given capacity, failures survived and
speed, as rows of ``Figure``s under ``Column``s, and the one way a figure is written.

One row per layout (plus baselines: a local directory, NFS), one column per figure.
``decision.build_table`` makes a table from planner results and measured runs, and
``modelcheck`` adds the model's predictions to one; the Run/Campaign views, the PDF report
and the CLI all print what these types hold (STYLE habit 11), and format every number through
``core.units``.

Columns, by ``Column.group`` (keys are stable; consumers may rely on them):

- ``capacity``: ``usable`` and ``raw`` (bytes, from the planner: arbiters never usable, a
  shared filesystem counted once). Text shows TB and TiB side by side.
- ``failures``: ``nodes_worst`` (any this many nodes may fail and the volume still reads
  and writes), ``nodes_best`` (when the right ones fail), ``sites_worst``/``sites_best``
  (None when the bricks are in fewer than two named sites).
- ``throughput``: ``tput:<direction>:<concurrency>:<block size>``, bytes/s: the run's headline
  (total bytes ÷ (last end − first start)), the median over every valid repeat with min and
  max as the spread. A cell no run measured carries the planner's estimate instead, marked
  ESTIMATED (the estimate has no block size: it is the large-sequential figure). A table of
  planned layouts only has the estimate's own four columns: block size 0 ("large blocks")
  and concurrency ``MANY`` (0, "many files").
- ``scaling``: ``scaling:<direction>:<concurrency>:<block size>`` (N > 1), the ratio
  concurrent ÷ (N × single) at that block size, from each repeat's own pair where the
  workload recorded it (``scaling_efficiency`` metric), else from the two medians.

Every number is a ``Figure`` whose ``source`` says where it came from: MEASURED, ESTIMATED
(the planner's formula), PLANNED (exact from the topology: capacity, failures), PREDICTED (a
calibrated model; added through ``DecisionTable.with_column``), or NONE (not known).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from .results import RunResult
from .spreadsheet import csv_text
from .units import describe_size, format_block_size, format_rate

FORMAT_VERSION = 1

MEASURED = "measured"
ESTIMATED = "estimated"
PLANNED = "planned"
PREDICTED = "predicted"
NONE = ""
SOURCES = (MEASURED, ESTIMATED, PLANNED, PREDICTED, NONE)

LAYOUT = "layout"
BASELINE = "baseline"

MANY = 0        # concurrency of an estimate-only column: "many files", N not known


@dataclass(frozen=True)
class Figure:
    """One number of the table and where it came from.

    ``value`` in the column's unit (None: not known); ``low``/``high`` the spread over
    ``n`` repeats (min and max; equal to value for one repeat); ``note`` says how it was
    made ("median of 3 repeats", the estimate's formula, why it is missing);
    ``run_ids`` the runs it was measured in; ``block_size`` the block size it was measured at
    when that is not its column's (a baseline that did not measure the layouts' size)."""

    value: float | None
    source: str = NONE
    low: float | None = None
    high: float | None = None
    n: int = 0
    note: str = ""
    run_ids: tuple[str, ...] = ()
    block_size: int | None = None

    @property
    def known(self) -> bool:
        return self.value is not None and not (isinstance(self.value, float) and math.isnan(self.value))

    @property
    def spread(self) -> float | None:
        """(max − min) ÷ median over the repeats, or None with fewer than two."""
        if not self.known or self.n < 2 or self.low is None or self.high is None or not self.value:
            return None
        return (self.high - self.low) / self.value

    def to_json(self) -> dict[str, Any]:
        doc = {"value": self.value, "source": self.source, "low": self.low, "high": self.high,
               "n": self.n, "spread": self.spread, "note": self.note, "run_ids": list(self.run_ids)}
        if self.block_size is not None:
            doc["block_size"] = self.block_size
        return doc


UNKNOWN = Figure(None)


@dataclass(frozen=True)
class Column:
    """``key`` is stable (see the module doc); ``unit`` is "bytes", "count", "B/s" or "ratio";
    ``params`` holds direction / concurrency / block_size for throughput and scaling columns;
    ``primary`` columns are the ones a compact view shows."""

    key: str
    title: str
    unit: str
    group: str
    higher_is_better: bool = True
    params: Mapping[str, Any] = field(default_factory=dict)
    primary: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "title": self.title, "unit": self.unit, "group": self.group,
                "higher_is_better": self.higher_is_better, "params": dict(self.params),
                "primary": self.primary}


@dataclass(frozen=True)
class Row:
    """One layout (or baseline). ``key`` is unique in the table (the volume name, or the
    baseline target); ``label`` reads like "disperse 8 redundancy 2 (8 bricks)"."""

    key: str
    label: str
    kind: str = LAYOUT                 # LAYOUT | BASELINE
    volume: str = ""
    gluster_type: str = ""
    figures: Mapping[str, Figure] = field(default_factory=dict)
    run_ids: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def figure(self, key: str) -> Figure:
        return self.figures.get(key, UNKNOWN)

    @property
    def extra_label(self) -> str:
        """The label where it says more than the key: "" when it is the key, or when the key
        already carries it (a volume name re-created with other layouts is keyed
        "gv0 (replica 3 (3 bricks))", and "gv0 (replica 3 (3 bricks)) replica 3 (3 bricks)"
        said it twice)."""
        if self.label in ("", self.key) or self.key.endswith(f"({self.label})"):
            return ""
        return self.label

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "kind": self.kind, "volume": self.volume,
                "gluster_type": self.gluster_type, "run_ids": list(self.run_ids),
                "notes": list(self.notes),
                "figures": {k: f.to_json() for k, f in self.figures.items()}}


@dataclass(frozen=True)
class LayoutEntry:
    """What a row is built from: a plan (None for a baseline, or a layout that could not be
    planned) and the runs measured on it."""

    key: str
    plan: Any = None                   # core.plan.PlanResult (typed loosely: no import cycle)
    runs: Sequence[RunResult] = ()
    label: str = ""
    kind: str = LAYOUT
    notes: tuple[str, ...] = ()
    topology: Any = None               # core.topology.Topology the plan was made on (a report draws it)


@dataclass(frozen=True)
class DecisionTable:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    workload: str = ""
    metric: str = "throughput"
    block_sizes: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()

    def column(self, key: str) -> Column:
        for c in self.columns:
            if c.key == key:
                return c
        raise KeyError(f"no column {key!r} (columns: {', '.join(c.key for c in self.columns)})")

    def row(self, key: str) -> Row:
        for r in self.rows:
            if r.key == key:
                return r
        raise KeyError(f"no row {key!r}")

    def sorted_by(self, key: str, descending: bool | None = None) -> "DecisionTable":
        """Rows ordered by one column, best first unless ``descending`` says otherwise;
        unknown figures always last, ties keep their order."""
        col = self.column(key)
        desc = col.higher_is_better if descending is None else descending
        known = [r for r in self.rows if r.figure(key).known]
        unknown = [r for r in self.rows if not r.figure(key).known]
        known.sort(key=lambda r: float(r.figure(key).value), reverse=desc)  # type: ignore[arg-type]
        return replace(self, rows=tuple(known + unknown))

    def with_column(self, column: Column, figures: Mapping[str, Figure],
                    after: str | None = None) -> "DecisionTable":
        """A copy with one more column (e.g. the model's PREDICTED figures and their error),
        ``figures`` by row key, placed after column ``after`` (default: at the end)."""
        if any(c.key == column.key for c in self.columns):
            raise ValueError(f"the table already has a column {column.key!r}")
        cols = list(self.columns)
        pos = len(cols) if after is None else [c.key for c in cols].index(after) + 1
        cols.insert(pos, column)
        rows = tuple(replace(r, figures={**r.figures, column.key: figures.get(r.key, UNKNOWN)})
                     for r in self.rows)
        return replace(self, columns=tuple(cols), rows=rows)

    def text(self, row: Row, key: str) -> str:
        return format_figure(self.column(key), row.figure(key))

    def to_json(self) -> dict[str, Any]:
        return {"format_version": FORMAT_VERSION, "workload": self.workload, "metric": self.metric,
                "block_sizes": list(self.block_sizes), "notes": list(self.notes),
                "columns": [c.to_json() for c in self.columns],
                "rows": [r.to_json() for r in self.rows]}

    def to_csv(self) -> str:
        """One line per row; numbers in plain units (bytes, bytes/s, ratio) so a spreadsheet
        can compute with them, capacity also in TB and TiB, and for every figure its source
        and, where repeats exist, its min, max and n."""
        header = ["layout", "kind", "volume", "gluster_type"]
        for c in self.columns:
            header += _csv_header(c)
        lines: list[list[Any]] = [header]
        for r in self.rows:
            line: list[Any] = [r.label, r.kind, r.volume, r.gluster_type]
            for c in self.columns:
                line += _csv_cells(c, r.figure(c.key))
            lines.append(line)
        return csv_text(lines)


def _num(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e18:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _csv_header(c: Column) -> list[str]:
    base = f"{c.title} [{c.unit}]"
    if c.group == "capacity":
        return [base, f"{c.title} [TB]", f"{c.title} [TiB]", f"{c.title} source"]
    if c.unit in ("B/s", "ratio") or c.group in ("throughput", "scaling"):
        return [base, f"{c.title} min", f"{c.title} max", f"{c.title} n", f"{c.title} source"]
    return [base, f"{c.title} source"]


def _csv_cells(c: Column, f: Figure) -> list[str]:
    if c.group == "capacity":
        tb = "" if not f.known else f"{f.value / 1e12:.3f}"   # type: ignore[operator]
        tib = "" if not f.known else f"{f.value / 2**40:.3f}"  # type: ignore[operator]
        return [_num(f.value), tb, tib, f.source]
    if c.unit in ("B/s", "ratio") or c.group in ("throughput", "scaling"):
        source = f.source if f.block_size is None else f"{f.source} at {format_block_size(f.block_size)}"
        return [_num(f.value), _num(f.low), _num(f.high), str(f.n) if f.n else "", source]
    return [_num(f.value), f.source]


def format_figure(column: Column, f: Figure) -> str:
    """The one way a figure is written for people: units from ``core.units``, the spread
    over repeats as ±half-range % (a ratio's as its min–max range), estimates prefixed with
    "≈" and suffixed "(est.)", predictions "(pred.)"."""
    if not f.known:
        return "n/a" if column.group == "failures" and f.note else "—"
    v = float(f.value)  # type: ignore[arg-type]
    if column.unit == "bytes":
        text = describe_size(v)
    elif column.unit == "error":
        return f"{v * 100:+.0f} %"
    elif column.unit == "B/s":
        text = format_rate(v)
    elif column.unit == "ratio":
        text = f"{v * 100:.0f} %"
    else:
        text = str(int(v)) if v.is_integer() else f"{v:g}"
    spread = f.spread
    if spread is not None and column.unit == "ratio":   # a ratio's spread as its range, not ±% of a %
        text += f" ({f.low * 100:.0f}–{f.high * 100:.0f} %)"  # type: ignore[operator]
    elif spread is not None:
        text += f" ±{spread * 50:.0f} %"
    if f.block_size is not None:
        text += f" at {format_block_size(f.block_size)}"
    if f.source == ESTIMATED:
        text = f"≈{text} (est.)"
    elif f.source == PREDICTED:
        text = f"{text} (pred.)"
    return text
