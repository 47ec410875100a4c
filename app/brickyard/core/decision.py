"""Building the decision table (``decisiontable.DecisionTable``) from planner results
(``plan.PlanResult``) and measured runs (``results.RunResult``), never from ORM rows or
widgets; ``build_table`` with ``model_check`` also puts the model's prediction beside each
measured throughput (``modelcheck``).

Which block sizes "matter": by default ``key_block_sizes`` keeps those of 2 MiB and more (the
write-up found smaller dd steps dominated by process start-up and judged at ≥ 2 MB), at most
three spread over that range and always the largest; callers may pass their own. The sizes,
directions and file counts are those the layouts' runs measured (a table of baselines alone:
the baselines'): a baseline measured at other sizes (the first-start sweep's 16M beside a
volume measured at 4M) never adds a column where every layout would show an estimate; it is
compared at the layouts' sizes, or at its nearest measured size, said so in the cell
(``Figure.block_size``: "812 MB/s at 16M").
"""

from __future__ import annotations

import math
import statistics
from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

from .compare import describe_layout
from .decisiontable import (BASELINE, ESTIMATED, MANY, MEASURED, NONE, PLANNED, PREDICTED, UNKNOWN, Column,
                            DecisionTable, Figure, LayoutEntry, Row)
from .results import RunResult, RunStatus, StepResult
from .throughput import DIRECTIONS
from .units import format_block_size

KEY_BLOCK_MIN = 2 * 2**20     # the write-up judged dd at 2 MB and more
KEY_BLOCK_LIMIT = 3


def _sweep_steps(runs: Iterable[RunResult], workload: str) -> list[tuple[str, StepResult]]:
    """(run id, step) for every valid sweep step (int block size, a direction) of ``workload``
    in runs that measured something."""
    out = []
    for run in runs:
        if run.workload != workload or run.status in (RunStatus.FAILED, RunStatus.RUNNING):
            continue
        for s in run.steps:
            if s.valid and isinstance(s.params.get("block_size"), int) and s.params.get("direction") in DIRECTIONS:
                out.append((run.run_id, s))
    return out


def _point(s: StepResult) -> tuple[str, int, int]:
    conc = s.params.get("concurrency", 1)
    return str(s.params["direction"]), int(conc) if isinstance(conc, int) else 1, int(s.params["block_size"])


def choose_workload(runs: Iterable[RunResult]) -> str:
    """The workload a table is about: dd when any run is a dd sweep, else the first workload
    with block-size steps, else the first."""
    runs = list(runs)
    names = list(dict.fromkeys(r.workload for r in runs))
    if "dd" in names:
        return "dd"
    for name in names:
        if _sweep_steps([r for r in runs if r.workload == name], name):
            return name
    return names[0] if names else ""


def key_block_sizes(sizes: Iterable[int], minimum: int = KEY_BLOCK_MIN,
                    limit: int = KEY_BLOCK_LIMIT) -> tuple[int, ...]:
    """The block sizes the table shows: those ≥ ``minimum`` (or the largest when none is),
    thinned to at most ``limit`` spread evenly on a log scale, the largest always kept."""
    ordered = sorted(set(sizes))
    if not ordered:
        return ()
    big = [b for b in ordered if b >= minimum] or ordered[-1:]
    if len(big) <= limit:
        return tuple(big)
    if limit <= 1:
        return (big[-1],)
    picks = {big[round(i * (len(big) - 1) / (limit - 1))] for i in range(limit)}
    return tuple(sorted(picks))


def _measured(values: list[tuple[str, float]], what: str) -> Figure:
    nums = [v for _, v in values if not math.isnan(v)]
    if not nums:
        return UNKNOWN
    run_ids = tuple(dict.fromkeys(r for r, _ in values))
    return Figure(statistics.median(nums), MEASURED, min(nums), max(nums), len(nums),
                  f"median of {len(nums)} repeat{'s' if len(nums) != 1 else ''}{what}", run_ids)


def _estimate_figure(plan: Any, direction: str, concurrency: int, block_size: int = 0) -> Figure:
    est = getattr(plan, "estimate", None)
    if est is None:
        return UNKNOWN
    at = est.at(direction, concurrency, block_size or None) if concurrency != MANY and hasattr(est, "at") else None
    if at is not None:   # the model at exactly this point: the column's file count and block size
        source = PREDICTED if getattr(est, "calibrated", False) else ESTIMATED
        return Figure(at.bps, source, at.low, at.high, 0,
                      f"not measured; planner {est.label}: bound {at.bound} ({at.why})")
    single = concurrency == 1
    value = {("write", True): est.single_write_bps, ("read", True): est.single_read_bps,
             ("write", False): est.concurrent_write_bps,
             ("read", False): est.concurrent_read_bps}.get((direction, single))
    if value is None:
        missing = "; ".join(est.missing)
        return Figure(None, NONE, note=f"not measured; no estimate ({missing})" if missing else "not measured")
    return Figure(float(value), ESTIMATED, note=f"not measured; planner estimate: {est.formula}")


def _plan_figures(plan: Any) -> dict[str, Figure]:
    if plan is None:
        return {}
    cap, tol = plan.capacity, plan.tolerance
    if cap is None or tol is None:  # gluster refuses this layout: the planner withholds its figures
        refused = Figure(None, NONE, note="gluster would refuse this layout: "
                                          + (plan.errors[0].message if plan.errors else "see the plan"))
        return dict.fromkeys(("usable", "raw", "nodes_worst", "nodes_best", "sites_worst", "sites_best"), refused)
    sizes_known = cap.raw_bytes > 0
    why = "" if sizes_known else "brick sizes unknown (plan against a topology that has them)"
    out = {
        "usable": Figure(float(cap.usable_bytes), PLANNED, note="arbiters and parity/replicas excluded")
        if sizes_known else Figure(None, NONE, note=why),
        "raw": Figure(float(cap.raw_bytes), PLANNED) if sizes_known else Figure(None, NONE, note=why),
        "nodes_worst": Figure(float(tol.nodes_worst), PLANNED, note="any this many nodes may fail"),
        "nodes_best": Figure(float(tol.nodes_best), PLANNED,
                             note="when the right ones fail" + ("" if tol.best_exact else " (at least)")),
    }
    for key, value in (("sites_worst", tol.sites_worst), ("sites_best", tol.sites_best)):
        out[key] = (Figure(float(value), PLANNED) if value is not None
                    else Figure(None, NONE, note="bricks in fewer than two sites"))
    return out


def plan_label(plan: Any) -> str:
    """'disperse 8 redundancy 2 (8 bricks)', the same words the history view uses."""
    vol = plan.volume
    lay = vol.layout
    return describe_layout({"type": plan.gluster_type.value, "replica": lay.replica or 0,
                            "arbiter": lay.arbiter or 0, "disperse": lay.disperse or 0,
                            "redundancy": lay.redundancy or 0,
                            "bricks": [str(b) for b in vol.bricks]})


def _static_columns() -> list[Column]:
    return [
        Column("usable", "usable", "bytes", "capacity"),
        Column("raw", "raw", "bytes", "capacity", primary=False),
        Column("nodes_worst", "node failures survived", "count", "failures"),
        Column("nodes_best", "node failures survived (best case)", "count", "failures", primary=False),
        Column("sites_worst", "site failures survived", "count", "failures"),
        Column("sites_best", "site failures survived (best case)", "count", "failures", primary=False),
    ]


def _conc_words(n: int) -> str:
    return "1 file" if n == 1 else "many files" if n == MANY else f"{n} files"


def _size_words(bs: int) -> str:
    return "large blocks" if bs == 0 else format_block_size(bs)


def build_table(entries: Sequence[LayoutEntry], *, workload: str | None = None,
                block_sizes: Sequence[int] | None = None, metric: str = "throughput",
                estimates: bool = True, model_check: bool = False, model: Any = None,
                model_inputs: Any = None) -> DecisionTable:
    """The table for these layouts. ``workload`` defaults to ``choose_workload``; the
    throughput columns are every (direction, concurrency) measured × ``block_sizes``
    (default ``key_block_sizes`` of what was measured). With ``estimates`` a layout that was
    planned but not measured at a point shows the model's figure for exactly that point,
    ESTIMATED (uncalibrated) or PREDICTED (calibrated). With ``model_check`` every measured
    throughput column gets the model's prediction and its error beside it (``modelcheck``:
    each layout from the others' runs and ``model_inputs``, or all from ``model``)."""
    all_runs = [r for e in entries for r in e.runs]
    workload = workload if workload is not None else choose_workload(all_runs)
    steps_of = {e.key: _sweep_steps(e.runs, workload) for e in entries}
    # the points the layouts measured decide the columns; baselines alone only when no layout measured any
    basis = [_point(s) for e in entries if e.kind != BASELINE for _, s in steps_of[e.key]] \
        or [_point(s) for st in steps_of.values() for _, s in st]
    measured_sizes = {bs for _, _, bs in basis}
    sizes = tuple(sorted(set(block_sizes))) if block_sizes else key_block_sizes(measured_sizes)
    directions = sorted({d for d, _, _ in basis}, key=lambda d: (d != "write", d != "read", d))
    concs = sorted({n for _, n, _ in basis})
    if not concs and estimates and any(e.plan is not None for e in entries):
        # planned only: the estimate's four points (large sequential blocks, 1 vs many files)
        directions, concs, sizes = ["write", "read"], [1, MANY], (0,)
    columns = _static_columns()
    for d in directions:
        for n in concs:
            for bs in sizes:
                columns.append(Column(f"tput:{d}:{n}:{bs}", f"{d} {_size_words(bs)} × {_conc_words(n)}",
                                      "B/s", "throughput",
                                      params={"direction": d, "concurrency": n, "block_size": bs}))
    for d in directions:
        for n in concs:
            if n in (1, MANY):
                continue
            for bs in sizes:
                columns.append(Column(f"scaling:{d}:{n}:{bs}",
                                      f"scaling {d} {_size_words(bs)} × {_conc_words(n)}", "ratio", "scaling",
                                      params={"direction": d, "concurrency": n, "block_size": bs}))
    keys = [e.key for e in entries]
    if len(set(keys)) != len(keys):
        raise ValueError("two layouts of a decision table share a key: " +
                         ", ".join(sorted({k for k in keys if keys.count(k) > 1})))
    rows = [_row(e, steps_of[e.key], columns, metric, estimates) for e in entries]
    notes = []
    if measured_sizes and not block_sizes:
        small = sorted(b for b in measured_sizes if b < KEY_BLOCK_MIN)
        if small and any(b >= KEY_BLOCK_MIN for b in measured_sizes):
            notes.append("block sizes under 2M left out: short dd steps measure process start-up "
                         "more than storage (the full sweep is in each run)")
    table = DecisionTable(tuple(columns), tuple(rows), workload, metric, sizes, tuple(notes))
    if model_check and metric == "throughput":
        from .calibration import Inputs
        from .modelcheck import with_model_check

        table = with_model_check(table, entries, model, model_inputs or Inputs())
    return table


def _row(e: LayoutEntry, steps: list[tuple[str, StepResult]], columns: Sequence[Column],
         metric: str, estimates: bool) -> Row:
    figures = _plan_figures(e.plan)
    by_point: dict[tuple[str, int, int], list[tuple[str, StepResult]]] = {}
    for rid, s in steps:
        by_point.setdefault(_point(s), []).append((rid, s))
    for c in columns:
        if c.group not in ("throughput", "scaling"):
            continue
        d, n, bs = c.params["direction"], c.params["concurrency"], c.params["block_size"]
        other = _nearest_size(by_point, d, n, bs) if e.kind == BASELINE else None
        if c.group == "throughput":
            fig = _measured(_values(by_point.get((d, n, bs), []), metric), "")
            if not fig.known and other is not None:
                at_other = _measured(_values(by_point[(d, n, other)], metric), "")
                fig = replace(at_other, block_size=other,
                              note=f"{at_other.note}, at {format_block_size(other)} blocks: this baseline's runs "
                                   f"did not measure {format_block_size(bs)}")
            elif not fig.known and e.kind == BASELINE and by_point:
                counts = sorted({nn for (dd, nn, _) in by_point if dd == d})
                fig = Figure(None, NONE, note=f"not measured with {_conc_words(n)}" + (
                    f" (this baseline measured {d} with {', '.join(map(str, counts))} file(s))" if counts
                    else f" (this baseline did not measure {d}s)"))
            if not fig.known and estimates and e.plan is not None:
                fig = _estimate_figure(e.plan, d, n, bs)
            figures[c.key] = fig
        else:
            fig = _scaling(by_point, d, n, bs, metric)
            if not fig.known and other is not None:
                fig = replace(_scaling(by_point, d, n, other, metric), block_size=other)
            figures[c.key] = fig
    if e.plan is not None:
        label = e.label or plan_label(e.plan)
        gtype = e.plan.gluster_type.value
        volume = e.plan.volume.name
    else:
        label, gtype, volume = e.label or e.key, "", ""
    run_ids = tuple(dict.fromkeys(r.run_id for r in e.runs))
    return Row(e.key, label, e.kind, volume, gtype, figures, run_ids, tuple(e.notes))


def _values(steps: Sequence[tuple[str, StepResult]], metric: str) -> list[tuple[str, float]]:
    return [(rid, s.metric(metric).value) for rid, s in steps if s.metric(metric) is not None]


def _nearest_size(by_point: Mapping[tuple[str, int, int], list[tuple[str, StepResult]]],
                  d: str, n: int, bs: int) -> int | None:
    """The block size nearest ``bs`` (on a log scale; the larger on a tie) at which these runs
    measured direction ``d`` with ``n`` files, or None: at ``bs`` itself, or at no size."""
    sizes = [size for (dd, nn, size) in by_point if dd == d and nn == n and size > 0]
    if not sizes or bs in sizes or bs <= 0:
        return None
    return min(sizes, key=lambda size: (abs(math.log2(size / bs)), -size))


def _scaling(by_point: Mapping[tuple[str, int, int], list[tuple[str, StepResult]]],
             d: str, n: int, bs: int, metric: str) -> Figure:
    conc = by_point.get((d, n, bs), [])
    own = [(rid, s.metric("scaling_efficiency").value) for rid, s in conc
           if s.metric("scaling_efficiency") is not None]
    if own:
        return _measured(own, ", each repeat's N files ÷ (N × its single file)")
    single = _measured([(rid, s.metric(metric).value) for rid, s in by_point.get((d, 1, bs), [])
                        if s.metric(metric) is not None], "")
    many = _measured([(rid, s.metric(metric).value) for rid, s in conc if s.metric(metric) is not None], "")
    if not single.known or not many.known or not single.value:
        return UNKNOWN
    ratio = many.value / (n * single.value)  # type: ignore[operator]
    return Figure(ratio, MEASURED, ratio, ratio, 1,
                  f"median of {many.n} concurrent ÷ ({n} × median of {single.n} single)",
                  tuple(dict.fromkeys(single.run_ids + many.run_ids)))
