"""The model checks itself: wherever a layout was measured, the decision table shows what the
throughput model predicted for it beside the measurement, and the error.

Which model predicts a row:
- ``leave_one_out`` (the default): each layout is predicted by the model calibrated on every
  *other* layout of the table (their runs' steps), plus any probe inputs given — so a row is
  never predicted from its own measurements. With a single measured layout there is nothing
  to calibrate on and its prediction is the uncalibrated estimate.
- ``fixed``: one calibrated model for every row (``brickyard decision --calibrate …``); a row
  whose own runs are among the model's sources says so (its "error" is then the fit's, not a
  test of the model).

Columns added after each measured throughput column ``tput:D:N:BS``: ``pred:D:N:BS`` (the
prediction at exactly that direction, file count and block size, PREDICTED or ESTIMATED, its
interval as low/high and its binding bound in the note) and ``err:D:N:BS`` (predicted ÷
measured − 1, unit "error").
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from . import calibration as cal, throughput as tm
from .calibration import Inputs, Model
from .decisiontable import ESTIMATED, MEASURED, PREDICTED, Column, DecisionTable, Figure, LayoutEntry

PRED_GROUP = "prediction"
ERR_GROUP = "model error"


@dataclass(frozen=True)
class RowModel:
    """The model that predicts one row and what it was calibrated on."""

    model: Model
    shape: tm.LayoutShape
    includes_self: bool = False

    @property
    def label(self) -> str:
        return self.model.label


def _shape(entry: LayoutEntry) -> tm.LayoutShape | None:
    est = getattr(entry.plan, "estimate", None)
    return None if est is None or est.shape is None or not est.shape.sets else est.shape


def _prior(entry: LayoutEntry) -> tm.Params | None:
    est = getattr(entry.plan, "estimate", None)
    model = getattr(est, "model", None)
    if model is None:
        return None
    if model.calibrated:     # start from what the topology says, not someone's calibration
        return None
    return model.params


def entry_inputs(entry: LayoutEntry, shape: tm.LayoutShape) -> Inputs:
    """A layout's own measurements as calibration inputs (every run of the row)."""
    obs: list[cal.Observation] = []
    for run in entry.runs:
        obs.extend(cal.observations_from_steps(shape, run.steps, f"run {run.run_id[:12]}", entry.key))
    if not obs:
        return Inputs()
    return Inputs(tuple(obs), {}, (entry.key,))


def leave_one_out(entries: Sequence[LayoutEntry], extra: Inputs = Inputs()) -> dict[str, RowModel]:
    """Each layout row predicted from the others (and ``extra``, e.g. probe runs). A layout
    measured again under another name (a calibration layout repeated between the others: the
    same sets) is the same layout: neither row is predicted from the other's runs."""
    layouts = [e for e in entries if e.plan is not None and _shape(e) is not None]
    own = {e.key: entry_inputs(e, _shape(e)) for e in layouts}   # type: ignore[arg-type]
    sets = {e.key: _shape(e).sets for e in layouts}   # type: ignore[union-attr]
    out: dict[str, RowModel] = {}
    for e in layouts:
        shape = _shape(e)
        others = cal.merge([own[k] for k in own if k != e.key and sets[k] != sets[e.key]] + [extra])
        prior = _prior(e)
        if prior is None:
            continue
        model = cal.fit_params(prior, others) if not others.empty else Model(prior)
        out[e.key] = RowModel(model, shape)   # type: ignore[arg-type]
    return out


def fixed(entries: Sequence[LayoutEntry], model: Model) -> dict[str, RowModel]:
    """Every layout row predicted by one model."""
    out = {}
    sources = set(model.calibrated_on)
    for e in entries:
        shape = _shape(e)
        if e.plan is None or shape is None:
            continue
        mine = {f"{e.key}"} | {r.run_id[:12] for r in e.runs}
        includes = any(any(m in s for m in mine) for s in sources)
        out[e.key] = RowModel(model, shape, includes)
    return out


def _pred_figure(rm: RowModel, d: str, n: int, bs: int) -> Figure:
    p = tm.predict(rm.shape, rm.model.params, d, n, bs or None)
    source = PREDICTED if rm.model.calibrated else ESTIMATED
    note = (f"{rm.label}; bound: {p.bound} ({p.why}); interval {_rate(p.low)} … {_rate(p.high)}"
            + ("; this layout's own runs are in the calibration: a fit, not a test" if rm.includes_self else ""))
    return Figure(p.bps, source, p.low, p.high, 0, note)


def _rate(v: float) -> str:
    from .units import format_rate

    return format_rate(v)


@dataclass(frozen=True)
class TablePoint:
    """One measured throughput figure of a decision table beside what the row's model
    predicts at exactly that direction, file count and block size."""

    row: str                      # the table row's key
    column: Column                # the measured throughput column
    measured: Figure
    prediction: tm.Prediction
    model: RowModel

    @property
    def error(self) -> float:
        """predicted ÷ measured − 1."""
        return self.prediction.bps / float(self.measured.value) - 1.0   # type: ignore[arg-type]

    @property
    def tested(self) -> bool:
        """A test of the model: calibrated, and not on this layout's own runs."""
        return self.model.model.calibrated and not self.model.includes_self


def table_points(table: DecisionTable, models: Mapping[str, RowModel]) -> list[TablePoint]:
    """Every measured figure of ``table``'s throughput columns whose row has a model, in the
    table's column order then row order."""
    out = []
    for c in table.columns:
        if c.group != "throughput" or not c.params.get("concurrency"):
            continue
        d, n, bs = c.params["direction"], c.params["concurrency"], c.params["block_size"]
        for r in table.rows:
            rm, m = models.get(r.key), r.figure(c.key)
            if rm is None or m.source != MEASURED or not m.known or not m.value:
                continue
            out.append(TablePoint(r.key, c, m, tm.predict(rm.shape, rm.model.params, d, n, bs or None), rm))
    return out


def error_summary(points: Sequence[TablePoint], models: Mapping[str, RowModel]) -> str:
    """'off by 19% (median) and 38% (worst) over 8 measured figure(s), each layout predicted
    without its own runs'; "" when no point tests the model."""
    errors = [abs(p.error) for p in points if p.tested]
    if not errors:
        return ""
    how = ("each layout predicted without its own runs" if not any(m.includes_self for m in models.values())
           and len({id(m.model) for m in models.values()}) > 1 else
           f"{next(iter(models.values())).label}, leaving out the layouts it was fitted on")
    return (f"off by {statistics.median(errors):.0%} (median) and {max(errors):.0%} (worst) over {len(errors)} "
            f"measured figure(s), {how}")


def add_predictions(table: DecisionTable, models: Mapping[str, RowModel]) -> DecisionTable:
    """``table`` with a predicted and an error column after each measured throughput column."""
    out = table
    points = table_points(table, models)
    at = {(p.row, p.column.key): p for p in points}
    for c in list(table.columns):
        if c.group != "throughput":
            continue
        d, n, bs = c.params["direction"], c.params["concurrency"], c.params["block_size"]
        if not n:      # "many files" of a planned-only table: the estimate is already there
            continue
        if not any(r.figure(c.key).source == MEASURED for r in table.rows):
            continue
        preds: dict[str, Figure] = {}
        errs: dict[str, Figure] = {}
        for r in table.rows:
            rm = models.get(r.key)
            if rm is None:
                continue
            f = _pred_figure(rm, d, n, bs)
            preds[r.key] = f
            p = at.get((r.key, c.key))
            if p is not None:
                errs[r.key] = Figure(p.error, f.source, note=f"predicted {_rate(float(f.value))} ÷ measured "   # type: ignore[arg-type]
                                                             f"{_rate(float(p.measured.value))} − 1 ({rm.label})")  # type: ignore[arg-type]
        if not preds:
            continue
        key_tail = f"{d}:{n}:{bs}"
        pred_col = Column(f"pred:{key_tail}", f"predicted {c.title}", "B/s", PRED_GROUP, params=dict(c.params))
        err_col = Column(f"err:{key_tail}", f"model error {c.title}", "error", ERR_GROUP, higher_is_better=False,
                         params=dict(c.params))
        out = out.with_column(pred_col, preds, after=c.key)
        out = out.with_column(err_col, errs, after=pred_col.key)
    summary = error_summary(points, models)
    if summary:
        out = replace(out, notes=out.notes + (f"model check: the calibrated model's figures are {summary}",))
    elif models and any(not m.model.calibrated for m in models.values()):
        out = replace(out, notes=out.notes + (
            "model check: predictions are uncalibrated estimates (one measured layout: nothing else to "
            "calibrate on; give --calibrate or a probe run)",))
    return out


def with_model_check(table: DecisionTable, entries: Sequence[LayoutEntry], model: Model | None = None,
                     extra: Inputs = Inputs()) -> DecisionTable:
    """The table with predicted and error columns: from ``model`` for every row, else each
    layout from the others (leave one out)."""
    models = fixed(entries, model) if model is not None else leave_one_out(entries, extra)
    return add_predictions(table, models)


TOLERANCE = 0.25      # the model's goal on large blocks (issue 16): further off is flagged


@dataclass(frozen=True)
class ModelCheck:
    """A decision table's model check as a report prints it: every measured figure beside the
    prediction of the model calibrated on the *other* layouts' runs (and ``probes``), or, when
    no check is possible, ``why_not`` in one sentence."""

    points: tuple[TablePoint, ...] = ()
    layouts: tuple[str, ...] = ()       # the measured layouts, in table order
    probes: tuple[str, ...] = ()        # further calibration sources (probe runs)
    summary: str = ""                   # error_summary's words
    why_not: str = ""

    @property
    def tested(self) -> tuple[TablePoint, ...]:
        return tuple(p for p in self.points if p.tested)

    @property
    def median_error(self) -> float | None:
        errors = [abs(p.error) for p in self.tested]
        return statistics.median(errors) if errors else None

    @property
    def worst(self) -> TablePoint | None:
        return max(self.tested, key=lambda p: abs(p.error), default=None)

    @property
    def within(self) -> int:
        """How many tested figures the model got within ``TOLERANCE``."""
        return sum(abs(p.error) <= TOLERANCE for p in self.tested)


def check_table(table: DecisionTable, entries: Sequence[LayoutEntry], extra: Inputs = Inputs(),
                probes: Sequence[str] = ()) -> ModelCheck:
    """The model check of ``table`` (built from ``entries``): each layout predicted from the
    others' runs and ``extra`` (``probes`` names its sources) — possible when at least two
    layouts were measured or ``extra`` holds something."""
    layouts = [e.key for e in entries if e.plan is not None and _shape(e) is not None
               and not entry_inputs(e, _shape(e)).empty]   # type: ignore[arg-type]
    if len(layouts) < 2 and extra.empty:
        if not layouts:
            why = ("No gluster layout was measured, so the throughput model has nothing to be checked against: "
                   "its figures are uncalibrated estimates.")
        else:
            why = (f"Only {layouts[0]} was measured and no probe run is among the runs: the throughput model has "
                   f"no other layout's runs to be calibrated on, so its figures cannot be checked here.")
        return ModelCheck(layouts=tuple(layouts), why_not=why)
    models = leave_one_out(entries, extra)
    points = table_points(table, models)
    summary = error_summary(points, models)
    if not summary:
        return ModelCheck(tuple(points), tuple(layouts), tuple(probes), why_not=(
            "No figure of the table was measured on a layout the calibrated model predicts, so nothing here "
            "checks it."))
    return ModelCheck(tuple(points), tuple(layouts), tuple(probes), summary)


__all__ = ["ERR_GROUP", "PRED_GROUP", "TOLERANCE", "CheckRow", "ModelCheck", "RowModel", "TablePoint", "add_predictions",
           "check_rows", "check_table", "entry_inputs", "error_summary", "fixed", "leave_one_out", "table_points",
           "with_model_check"]



# ------------------------------------------------------------------ long form


@dataclass(frozen=True)
class CheckRow:
    """One measured point beside its prediction: what ``benchmarks/model_check.py`` prints
    and the History view's Model check tab lists."""

    layout: str
    direction: str
    concurrency: int
    block_size: int | None
    measured: float
    repeats: int
    predicted: float
    low: float
    high: float
    bound: str
    why: str
    model: str
    fitted_on_it: bool

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1.0

    def to_json(self) -> dict:
        return {"layout": self.layout, "direction": self.direction, "concurrency": self.concurrency,
                "block_size": self.block_size, "measured_bps": self.measured, "repeats": self.repeats,
                "predicted_bps": self.predicted, "low_bps": self.low, "high_bps": self.high, "error": self.error,
                "bound": self.bound, "why": self.why, "model": self.model, "fitted_on_it": self.fitted_on_it}


def check_rows(entries: Sequence[LayoutEntry], models: Mapping[str, RowModel],
               min_block: int = 0) -> list[CheckRow]:
    """Every measured point (median over repeats of headline steps) of every layout with a
    model, at blocks of ``min_block`` bytes and more, beside the model's prediction there."""
    out = []
    for e in entries:
        rm = models.get(e.key)
        if rm is None:
            continue
        for o in entry_inputs(e, rm.shape).observations:
            if o.block_size is not None and o.block_size < min_block:
                continue
            p = tm.predict(rm.shape, rm.model.params, o.direction, o.concurrency, o.block_size)
            out.append(CheckRow(e.key, o.direction, o.concurrency, o.block_size, o.bps, o.repeats, p.bps,
                                p.low, p.high, p.bound, p.why, rm.label, rm.includes_self))
    return out
