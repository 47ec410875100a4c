"""The Run view's charts, fed while a run goes on.

- ``RunChart``: the headline metric vs block size on the log₂ axis, one curve per run of the
  batch, direction and concurrency (single solid, concurrent dashed), a point appearing as
  each step lands. A workload without a block-size sweep (metadata, pgbench, …) is drawn per
  sweep point instead, named on the axis.
- ``LiveRateChart``: the throughput the workers' I/O counters show *inside* the running step
  (``ProgressEvent.live_bps``) over the run's elapsed time.
"""

from __future__ import annotations

import math
import time
from collections import deque
from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QStackedWidget

from ...core.compare import describe_point, metric_unit, point_of
from ...core.results import Provenance, RunResult, RunStatus, StepResult
from ...core.series import directions, sweep_by_block_size
from ...core.stats import summarize
from ...core.units import format_block_label
from ..history.charts import ThroughputChart
from ..widgets.chart import PALETTE, BaseChart, CategoryAxis, exact, format_value, series_pen, value_scale

#: the metric a run is charted by: the first its steps report
HEADLINE_METRICS = ("throughput", "files_per_s", "objects_per_s", "ops_per_s", "tps", "lstat_us", "elapsed")


def headline_metric(steps: Sequence[StepResult]) -> str:
    names = {m.name for s in steps for m in s.metrics}
    return next((m for m in HEADLINE_METRICS if m in names), "throughput")


def _run(steps: list[StepResult]) -> RunResult:
    return RunResult(run_id="live", workload="", status=RunStatus.RUNNING, started_at=time.time(), ended_at=None,
                     provenance=Provenance(brickyard_version="", hosts={}, target="", target_kind=""), steps=steps)


class SweepChart(ThroughputChart):
    """Runs' steps vs block size: one curve per run, direction and concurrency.

    Redrawn as steps land: existing curves get new data in place (``setData``), a curve that
    appears is added, and only a change of unit or a curve that vanished rebuilds the plot,
    so the cost of a new point does not grow with the points already drawn."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._items: dict[str, tuple[pg.PlotDataItem, pg.ErrorBarItem]] = {}
        self._drawn: dict[str, tuple] = {}        # the points each curve shows now
        self._shown_unit = ""
        self._top = 0.0
        self._shown_divisor = 0.0
        self._x_range = (0.0, 0.0)
        self._legend_room = 0.0
        steady_axis(self)

    def draw(self, runs: list[tuple[str, RunResult]], metric: str) -> int:
        unit = self.raw_unit = metric_unit([r for _, r in runs], metric)
        curves = []
        for label, run in runs:
            for direction in directions(run):
                for conc, pts in sweep_by_block_size(run, metric, direction).items():
                    curves.append((label, direction, conc, pts))
        largest = max((p.high for *_, pts in curves for p in pts), default=0.0)
        self.divisor, self.unit_label = value_scale(unit, largest)
        label_text = f"{metric.replace('_', ' ')}" + (f" ({self.unit_label})" if self.unit_label else "")
        names = []
        colours: dict[tuple[str, str], int] = {}
        for label, direction, conc, _pts in curves:
            colours.setdefault((label, direction), len(colours))
            names.append(" · ".join(x for x in (label if len(runs) > 1 else "", direction,
                                                "single" if conc == 1 else f"{conc} concurrent") if x))
        if not set(self._items) <= set(names):            # a curve vanished (a new batch): start over
            self.clear_chart()
            self.curves.clear()
        if label_text != self._shown_unit:                  # MB/s → GB/s: the same curves, rescaled in place
            self.plot_item.setLabel("left", label_text)
            self._shown_unit = label_text
        self._hoverables.clear()
        drawn = 0
        new = [name for name in names if name not in self._items]
        for name, (label, direction, conc, pts) in zip(names, curves):
            self._curve(name, pts, colours[(label, direction)], conc)
            drawn += len(pts)
        if new:
            self._legend_rows()
        top = headroom(largest / self.divisor, self._top if self._shown_divisor == self.divisor else 0.0)
        self._shown_divisor = self.divisor
        sizes = {p.x for *_, pts in curves for p in pts}
        if sizes:
            # set here, never auto-ranged: pyqtgraph's x auto-range asks every curve, symbol and
            # error bar for its bounds before each repaint (~10 ms of a 20 ms repaint in a run)
            lo, hi = float(np.log2(min(sizes))), float(np.log2(max(sizes)))
            pad = 1.0 if lo == hi else 0.5     # one block size so far: a little room either side
            if (lo - pad, hi + pad) != self._x_range:
                self._x_range = (lo - pad, hi + pad)
                self.plot_item.setXRange(*self._x_range, padding=0)
        if top != self._top:
            self.plot_item.setYRange(0, top, padding=0)   # from zero: honest bars
            self._top = top
        return drawn

    def _legend_rows(self) -> None:
        """Entries in columns, and the legend's row under the plot never shrinking while the
        run goes and two rows tall from its first entry: a legend that grew a row with each new
        curve shrank the plot each time, and every axis, grid line and curve was drawn again —
        the longest events of a streaming run (16–21 ms)."""
        self.finish_legend()
        legend = self.legend
        # a row's height from the entries' own text (the layout's rows stretch to the room given)
        row = max(label.itemRect().height() for _sample, label in legend.items)
        rows = math.ceil(len(legend.items) / max(1, legend.columnCount))
        room = max(self._legend_room, max(rows, 2) * row + 6)
        legend.setMinimumHeight(room)
        legend.setMaximumHeight(room)
        self._legend_room = room

    def _curve(self, name: str, pts, colour_index: int, conc: int) -> None:
        xs = np.log2([p.x for p in pts])
        ys = np.array([p.median for p in pts]) / self.divisor
        lows = ys - np.array([p.low for p in pts]) / self.divisor
        highs = np.array([p.high for p in pts]) / self.divisor - ys
        colour = PALETTE[colour_index % len(PALETTE)]
        if name not in self._items:
            # dynamicRangeLimit off: otherwise every change of the y range re-renders each curve's
            # symbols (pyqtgraph guards against values 10^6 views tall, which a rate never is)
            curve = self.plot_item.plot(xs, ys, pen=series_pen(colour_index, dashed=conc > 1), name=name,
                                        symbol="o" if conc == 1 else "t", symbolSize=7, symbolBrush=colour,
                                        symbolPen=colour, dynamicRangeLimit=None)
            bars = pg.ErrorBarItem(x=xs, y=ys, top=highs, bottom=lows, beam=0.12, pen=pg.mkPen(colour, width=1))
            self.plot_item.addItem(bars)
            self._items[name] = (curve, bars)
            self.curves[name] = curve
        elif self._drawn.get(name) != (self.divisor, tuple(pts)):   # only a curve that gained a point (or
            curve, bars = self._items[name]                            # a new unit) is redrawn
            curve.setData(xs, ys)
            bars.setData(x=xs, y=ys, top=highs, bottom=lows)
        self._items[name][1].setVisible(any(p.n > 1 for p in pts))   # one repeat: no spread to show
        self._drawn[name] = (self.divisor, tuple(pts))
        unit, raw_unit, divisor = self.unit_label, self.raw_unit, self.divisor

        def describe(i: int, pts=pts) -> str:
            p = pts[i]
            spread = f"\nrepeats {p.n}: {p.low / divisor:,.4g} … {p.high / divisor:,.4g}" if p.n > 1 else ""
            return (f"{name}\nblock {format_block_label(p.x)}: {p.median / divisor:,.4g} {unit} (median){spread}"
                    f"\n= {exact(p.median, raw_unit)}")

        self.add_hoverable(xs, ys, describe)

    def clear_chart(self) -> None:
        super().clear_chart()
        if hasattr(self, "_items"):
            self._items.clear()
            self._drawn.clear()
            self._shown_unit = ""
            self._top = 0.0
            self._shown_divisor = 0.0
            self._x_range = (0.0, 0.0)
            self._legend_room = 0.0


class PointChart(BaseChart):
    """Runs' steps per sweep point, for workloads without block sizes (named on the axis)."""

    def __init__(self, parent=None) -> None:
        self.point_axis = CategoryAxis()
        super().__init__(parent, bottom=self.point_axis)
        self.plot_item.setLabel("bottom", "sweep point")

    def draw(self, runs: list[tuple[str, RunResult]], metric: str) -> int:
        self.clear_chart()
        unit = metric_unit([r for _, r in runs], metric)
        order: list = []
        for _, run in runs:
            for s in run.steps:
                if point_of(s) not in order:
                    order.append(point_of(s))
        names = self.point_axis.names = [describe_point(p) or "step" for p in order]
        values = []
        for _, run in runs:
            by_x: dict[int, list[float]] = {}
            for s in run.steps:
                m = s.metric(metric)
                if s.valid and m is not None and not math.isnan(m.value):
                    by_x.setdefault(order.index(point_of(s)), []).append(m.value)
            values.append(by_x)
        largest = max((v for by_x in values for vs in by_x.values() for v in vs), default=0.0)
        divisor, unit_label = value_scale(unit, largest)
        self.plot_item.setLabel("left", f"{metric.replace('_', ' ')} ({unit_label})")
        drawn = 0
        for i, ((label, _), by_x) in enumerate(zip(runs, values)):
            xs = np.array(sorted(by_x), float)
            raw = np.array([summarize(by_x[int(x)]).median for x in xs])
            ys = raw / divisor
            colour = PALETTE[i % len(PALETTE)]
            self.plot_item.plot(xs, ys, pen=None, symbol="o", symbolSize=9, symbolBrush=colour, symbolPen=colour,
                                name=label)
            drawn += len(xs)

            def describe(j: int, xs=xs, ys=ys, raw=raw, label=label) -> str:
                return f"{label}\n{names[int(xs[j])]}: {ys[j]:,.4g} {unit_label} (median)\n= {exact(raw[j], unit)}"

            self.add_hoverable(xs, ys, describe)
        self.plot_item.setXRange(-0.6, max(0, len(order) - 0.4))
        self.plot_item.setYRange(0, largest / divisor * 1.12 or 1.0, padding=0)
        return drawn


class RunChart(QStackedWidget):
    """Every run of the batch on one chart, points appearing as steps land; ``begin`` starts
    the next run's curves. Block-size sweeps on the log₂ axis, anything else per sweep point."""

    EMPTY = "points appear here as steps are measured"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.sweep_chart = SweepChart()
        self.point_chart = PointChart()
        self.addWidget(self.sweep_chart)
        self.addWidget(self.point_chart)
        self.runs: list[tuple[str, list[StepResult]]] = []
        self.metric = ""
        self.point_count = 0          # points drawn (tests, status line)
        for chart in (self.sweep_chart, self.point_chart):
            chart.set_empty(self.EMPTY)

    def begin(self, label: str) -> None:
        self.runs.append((label, []))

    def reset(self) -> None:
        self.runs.clear()
        self.redraw()

    def add_step(self, step: StepResult, redraw: bool = True) -> None:
        if not self.runs:
            self.runs.append(("this run", []))
        self.runs[-1][1].append(step)
        if redraw:
            self.redraw()

    def redraw(self) -> None:
        measured = [(label, [s for s in st if "stall" not in s.flags]) for label, st in self.runs]  # a stall measured nothing
        steps = [s for _, st in measured for s in st]
        self.metric = headline_metric(steps)
        runs = [(label, _run(st)) for label, st in measured if st]
        sweep = not steps or any(isinstance(s.params.get("block_size"), int) for s in steps)
        chart = self.sweep_chart if sweep else self.point_chart
        self.setCurrentWidget(chart)
        self.point_count = chart.draw(runs, self.metric)
        if steps:
            chart.show_axes()
            set_title(chart, " ", "#666")
        else:                      # draw() set its axis label, which shows the axis: hidden again
            chart.set_empty(self.EMPTY)
        settle_view(chart)


class LiveRateChart(BaseChart):
    """Live throughput inside the running step, from the workers' I/O counters.

    Fed four times a second while a run goes, so nothing here changes the chart's layout: the
    title stays, the figure of the moment is a text item inside the plot, and the axes move in
    steps (time in whole minutes, the rate when it leaves a band) rather than with every sample."""

    WINDOW_S = 300.0
    X_STEP_S = 60.0

    TITLE = "live throughput inside the running step"
    EMPTY = "live throughput inside the running step: drawn while a step runs"

    def __init__(self, parent=None) -> None:
        super().__init__(parent, title=self.TITLE)
        self.legend.hide()
        self.plot_item.setLabel("bottom", "elapsed (s)")
        self.samples: deque[tuple[float, float]] = deque(maxlen=2000)
        self.curve = self.plot_item.plot([], [], pen=pg.mkPen(PALETTE[0], width=2), dynamicRangeLimit=None)
        steady_axis(self)
        self.now_text = pg.TextItem("", color="#222", anchor=(1, 0))
        self.now_text.setParentItem(self.plot_item.vb)    # in the view box's own pixels: never moves with the data
        self.plot_item.vb.sigResized.connect(self._place_now)
        self.latest = math.nan
        self._unit = ""
        self._range: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
        self.set_empty(self.EMPTY)

    def _place_now(self, *_args) -> None:
        self.now_text.setPos(self.plot_item.vb.width() - 6, 2)

    def reset(self) -> None:
        self.samples.clear()
        self.latest = math.nan
        self.curve.setData([], [])
        self.now_text.setText("")
        if not self.empty:
            self.set_empty(self.EMPTY)

    def add(self, seconds: float, bps: float) -> None:
        if self.empty:                       # the first sample of a step: axes back, once
            self.show_axes()
            set_title(self, self.TITLE, "#222")
        self.samples.append((seconds, bps))
        self.latest = bps
        while self.samples and self.samples[0][0] < seconds - self.WINDOW_S:
            self.samples.popleft()
        xs = np.array([t for t, _ in self.samples], float)
        raw = np.array([v for _, v in self.samples], float)
        divisor, label = value_scale("B/s", float(raw.max()) if len(raw) else 0.0)
        if label != self._unit:
            self.plot_item.setLabel("left", label)
            self._unit = label
        self.curve.setData(xs, raw / divisor)
        top = float(raw.max()) / divisor if len(raw) else 0.0
        _, _, y_top, shown = self._range
        if not (shown == divisor and 0.5 * y_top <= top <= y_top):   # left its band: rescale, with room
            y_top = top * 1.25 or 1.0
        x0 = math.floor(float(xs[0]) / self.X_STEP_S) * self.X_STEP_S if len(xs) else 0.0
        x1 = (math.floor(float(xs[-1]) / self.X_STEP_S) + 1) * self.X_STEP_S if len(xs) else self.X_STEP_S
        if (x0, x1, y_top, divisor) != self._range:
            self.plot_item.setXRange(x0, x1, padding=0)
            self.plot_item.setYRange(0, y_top, padding=0)
            self._range = (x0, x1, y_top, divisor)
        self._place_now()
        self.now_text.setText(f"{format_value(bps, 'B/s')} now")
        settle_view(self)


def headroom(largest: float, shown: float) -> float:
    """The top of a live chart's y range: ``shown`` while ``largest`` stays within 45-100 % of it,
    else the next round figure 25 % above ``largest`` (1, 1.5, 2, 3, 4, 5, 6, 8 × 10^k). A
    range that moves with every new maximum re-lays the axis out and redraws every curve."""
    if largest <= 0:
        return shown or 1.0
    if shown and 0.45 * shown <= largest <= shown:
        return shown
    want = largest * 1.25
    power = 10.0 ** math.floor(math.log10(want))
    return next(m * power for m in (1, 1.5, 2, 3, 4, 5, 6, 8, 10) if m * power >= want * (1 - 1e-9))


def settle_view(chart: BaseChart) -> None:
    """Bring the chart's view up to date with the ranges and items just set, before it paints.

    pyqtgraph defers this to the paint itself (``sigPrepareForPaint``): a range set since the
    last paint then moves every curve *during* that paint, which marks them dirty and makes
    Qt paint the chart a second time straight after the first (issue 13: the second of the
    two chart repaints in a step's frame). Done here, one paint shows it all. The layouts go
    first (a new curve's legend row, a title), as the view's size feeds its matrix. A chart
    not on screen is left to its first paint, as it has no size to fit yet."""
    if not chart.isVisible():
        return
    legend = getattr(chart, "legend", None)
    if legend is not None:
        legend.layout.activate()
    chart.plot_item.layout.activate()
    chart.plot_item.vb.prepareForPaint()


def steady_axis(chart: BaseChart, width: int = 64) -> None:
    """A left axis of fixed width: a tick label that grows ("80" → "120") must not re-lay the
    whole plot out while a run streams."""
    axis = chart.plot_item.getAxis("left")
    axis.setStyle(autoExpandTextSpace=False)
    axis.setWidth(width)


def set_title(chart: BaseChart, text: str, colour: str) -> None:
    """Set a chart's title only when it changes: pyqtgraph re-lays the whole plot out on every call."""
    if getattr(chart, "_title", None) != (text, colour):
        chart.plot_item.setTitle(text, color=colour)
        chart._title = (text, colour)
