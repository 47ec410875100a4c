"""pyqtgraph charts of benchmark results. They read ``core.results`` objects (through
``core.series``), never database rows.

- ``ThroughputChart``: a metric vs block size on a log₂ axis labelled 4 KiB … 64 MiB, one
  curve per run and concurrency (single solid, concurrent dashed), error bars from repeats.
- ``LayoutBarChart``: runs (layouts) side by side at one block size and concurrency.
- ``TrendChart``: one metric at one sweep point over time, one line per volume or baseline.
- ``ScalingChart``: concurrent ÷ (N × single) per concurrency (N = 1 is the reference: no bar).
- ``PointChart``: every sweep point as a group of bars, one per run (pgbench, randread, …).
- ``LiveChart``: a ThroughputChart fed step by step while a run is going.

Every chart shows the exact value of the point under the mouse; legends sit under the plot,
never over the data; a chart with nothing to draw says why, without axes (an empty 0–1 scale
read as a measurement of nothing); value labels over bars thin out rather than overlap; values are written in the one unit convention of ``core.units``. pyqtgraph's automatic SI
prefixes are off everywhere (they give "k" on log axes and mix with our own units); values
are scaled to a readable unit here and the axis label names it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsItem
from shiboken6 import isValid

from brickyard.core.compare import describe_point, describe_points, metric_unit, repeats_by_point
from brickyard.core.results import Provenance, RunResult, RunStatus, StepResult
from brickyard.core.series import SeriesPoint, scaling_efficiency, sweep_by_block_size, value_at
from brickyard.core.units import format_block_label, format_quantity, format_utc, quantity_scale

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22")
HOVER_RADIUS_PX = 14


def value_scale(unit: str, largest: float) -> tuple[float, str]:
    """(divisor, unit label) to show values of ``unit`` whose largest is ``largest``: the
    one unit convention of ``core.units`` (MB/s and GB/s, or MiB/s with the binary
    preference)."""
    return quantity_scale(unit, largest)


def axis_label(metric: str, unit_label: str) -> str:
    """'throughput (MB/s)'; 'tps' rather than 'tps (tps)'."""
    name = metric.replace("_", " ")
    return name if not unit_label or unit_label == metric else f"{name} ({unit_label})"


def exact(value: float, unit: str) -> str:
    """The stored number itself, for the hover readout: '37,770,001 B/s'."""
    return f"{value:,.0f} {unit}" if abs(value) >= 1000 else f"{value:.6g} {unit}"


def format_value(value: float, unit: str) -> str:
    """A measured value with its unit, as everywhere else (``core.units.format_quantity``)."""
    return format_quantity(value, unit)


class Log2SizeAxis(pg.AxisItem):
    """x = log₂(bytes); ticks on whole powers of two, labelled in KiB/MiB/GiB."""

    def __init__(self, orientation: str = "bottom") -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)

    def tickValues(self, minVal: float, maxVal: float, size: float):  # noqa: N802 (pyqtgraph API)
        lo, hi = math.floor(minVal), math.ceil(maxVal)
        span = max(1, hi - lo)
        fits = max(2, int(size // 58))            # a label like "512 KiB" needs ~58 px
        step = next((k for k in (1, 2, 4, 8) if span / k <= fits), 16)
        major = [float(v) for v in range(lo - lo % step, hi + 1, step) if minVal <= v <= maxVal]
        minor = [float(v) for v in range(lo, hi + 1) if minVal <= v <= maxVal and v not in major]
        return [(float(step), major), (1.0, minor)]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [format_block_label(2.0 ** v) for v in values]


class CategoryAxis(pg.AxisItem):
    """Bar labels under a bar chart, wrapped onto up to four lines to fit under their bars;
    where even that would run names into each other only every k-th is written (the hover
    readout names every point)."""

    MAX_LINES = 4

    def __init__(self, orientation: str = "bottom") -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)
        self.names: list[str] = []
        self._room = 0.0                 # pixels each written name may take

    def _metrics(self) -> pg.QtGui.QFontMetricsF:
        return pg.QtGui.QFontMetricsF(self.style.get("tickFont") or pg.QtWidgets.QApplication.font())

    def wrap(self, name: str, room: float) -> list[str] | None:
        """``name`` in lines no wider than ``room`` pixels, or None when it does not fit."""
        metrics, lines = self._metrics(), [""]
        for word in name.split():
            line = f"{lines[-1]} {word}".strip()
            if metrics.horizontalAdvance(line) <= room:
                lines[-1] = line
            elif metrics.horizontalAdvance(word) <= room and lines[-1]:
                lines.append(word)
            else:
                return None
        return lines if len(lines) <= self.MAX_LINES else None

    def label_step(self, minVal: float, maxVal: float, size: float) -> int:
        """Write every k-th name: the smallest k whose room fits each name in MAX_LINES lines."""
        shown = [n for i, n in enumerate(self.names) if minVal - 0.5 <= i <= maxVal + 0.5]
        per_name = size / (maxVal - minVal) if maxVal > minVal else 0.0
        if not shown or per_name <= 0:
            self._room = size
            return 1
        for step in range(1, len(self.names) + 1):
            self._room = step * per_name - 10
            if all(self.wrap(n, self._room) is not None for n in shown):
                return step
        return max(1, len(self.names))

    def tickValues(self, minVal, maxVal, size):  # noqa: N802
        step = self.label_step(minVal, maxVal, size)
        return [(float(step), [float(i) for i in range(0, len(self.names), step)
                               if minVal - 0.5 <= i <= maxVal + 0.5])]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        out = []
        for v in values:
            name = self.names[int(v)] if 0 <= int(v) < len(self.names) else ""
            lines = self.wrap(name, self._room) if self._room > 0 else None
            # pyqtgraph reserves 0.8 of a text's height under the axis: one blank line more keeps
            # the last line of a wrapped name from being cut
            out.append("\n".join(lines) + ("\n" if len(lines) > 1 else "") if lines else name)
        return out


@dataclass
class _Hoverable:
    xs: np.ndarray
    ys: np.ndarray
    describe: Callable[[int], str]


class BelowLegend(pg.LegendItem):
    """A legend laid out as a row of the plot (under the x axis) instead of floating over the
    data; entries flow into as many columns as the width allows."""

    def __init__(self, **kwargs) -> None:
        super().__init__(offset=None, horSpacing=14, verSpacing=-4, **kwargs)
        self.setSizePolicy(pg.QtWidgets.QSizePolicy.Policy.Preferred, pg.QtWidgets.QSizePolicy.Policy.Fixed)

    def updateSize(self) -> None:  # noqa: N802 (pyqtgraph API)
        height = 0.0
        for row in range(self.layout.rowCount()):
            row_height = 0.0
            for col in range(self.layout.columnCount()):
                item = self.layout.itemAt(row, col)
                if item:
                    row_height = max(row_height, item.height() if hasattr(item, "height") else 20)
            height += row_height
        height = height + 6 if self.items else 0.0
        self.setMinimumHeight(height)
        self.setMaximumHeight(height)
        self.setVisible(bool(self.items))

    def fit_columns(self, width: float) -> None:
        """As many columns as the longest entry allows in ``width`` pixels."""
        if not self.items:
            self.updateSize()
            return
        longest = max(label.itemRect().width() if hasattr(label, "itemRect") else 120
                      for _sample, label in self.items)
        columns = max(1, min(len(self.items), int(width // (longest + 40))))
        if columns != self.columnCount:
            self.setColumnCount(columns)
        self.updateSize()


class BaseChart(pg.PlotWidget):
    """A white plot with a legend under it, no SI prefixes, and an exact-value readout on hover."""

    def __init__(self, parent=None, bottom: pg.AxisItem | None = None, title: str = "") -> None:
        left = pg.AxisItem("left")
        axes = {"left": left}
        if bottom is not None:
            axes["bottom"] = bottom
        super().__init__(parent=parent, background="w", axisItems=axes)
        self.plot_item: pg.PlotItem = self.getPlotItem()
        for name in ("left", "bottom"):
            axis = self.plot_item.getAxis(name)
            axis.enableAutoSIPrefix(False)
            # grid and ticks on labelled values only: minor grid lines cost ~4x the frame time
            axis.setStyle(maxTickLevel=0, maxTextLevel=0)
            axis.setPen(pg.mkPen("#444"))
            axis.setTextPen(pg.mkPen("#222"))
            # drawn once into a pixmap and reused until the axis changes: its text and grid were a
            # third of every repaint of a live chart whose range stood still
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.plot_item.showGrid(x=True, y=True, alpha=0.25)
        # the legend sits in its own row under the plot, never over the data
        self.legend = BelowLegend(labelTextColor="#222")
        self.plot_item.legend = self.legend
        self.plot_item.layout.addItem(self.legend, 4, 1)
        self.legend.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)   # its text: redrawn only on a change
        # reserve the title row now: a title first set on a shown chart is drawn clipped
        self.plot_item.setTitle(title or " ", color="#222")
        self._hoverables: list[_Hoverable] = []
        self.readout = pg.TextItem("", color="#111", fill=pg.mkBrush(255, 255, 224, 235),
                                   border=pg.mkPen("#888"), anchor=(0, 1))
        self.readout.setZValue(100)
        self.readout.hide()
        self.marker = pg.ScatterPlotItem(size=12, pen=pg.mkPen("#000", width=2), brush=None)
        self.marker.setZValue(99)
        self.plot_item.addItem(self.readout, ignoreBounds=True)
        self.plot_item.addItem(self.marker, ignoreBounds=True)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.value_labels: list[pg.TextItem] = []
        self.empty = False
        self.plot_item.vb.sigRangeChanged.connect(self._range_changed)

    def _range_changed(self, *_args) -> None:
        if isValid(self) and isValid(self.plot_item.vb):     # not while the chart is being taken apart
            self.thin_labels()

    def set_empty(self, text: str) -> None:
        """Nothing to draw: ``text`` says why, in place of the plot; no axes or grid, which
        would read as a scale (0.2 … 0.8) of a measurement that does not exist."""
        self.empty = True
        self.plot_item.setTitle(text or " ", color="#555")
        self._title = (text or " ", "#555")       # what run.charts.set_title compares against
        for name in ("left", "bottom"):
            self.plot_item.hideAxis(name)

    def show_axes(self) -> None:
        """Something to draw: the axes (and their grid) are back."""
        if self.empty:
            self.empty = False
            for name in ("left", "bottom"):
                self.plot_item.showAxis(name)
            self.plot_item.layout.activate()     # the plot's geometry is right at once, not at the next paint

    def thin_labels(self) -> int:
        """Hide value labels that would overlap one shown already (the taller bar's label is
        kept first); the hover readout still gives every value. Returns how many show."""
        labels = [t for t in self.value_labels if isValid(t) and t.scene() is not None]
        if not labels:
            return 0
        vb = self.plot_item.vb
        boxes = []
        for t in labels:
            anchor = vb.mapViewToScene(t.pos())
            size = t.textItem.boundingRect()
            left = anchor.x() - size.width() * t.anchor.x()
            top = anchor.y() - size.height() * t.anchor.y()
            boxes.append(pg.QtCore.QRectF(left, top, size.width(), size.height()).adjusted(-2, 0, 2, 0))
        shown: list = []
        for i in sorted(range(len(labels)), key=lambda k: (-labels[k].pos().y(), labels[k].pos().x())):
            fits = not any(boxes[i].intersects(b) for b in shown)
            labels[i].setVisible(fits)
            if fits:
                shown.append(boxes[i])
        return len(shown)

    def clear_chart(self) -> None:
        for item in list(self.plot_item.items):
            if item not in (self.readout, self.marker):
                self.plot_item.removeItem(item)
        self.value_labels = []
        self.legend.clear()
        self.legend.updateSize()
        self._hoverables.clear()
        self.readout.hide()
        self.marker.clear()

    def close(self) -> bool:
        """Take the legend out of the plot's layout before pyqtgraph clears the scene:
        PySide crashes when scene.clear() deletes widgets still held by a layout."""
        self.value_labels = []             # items the scene is about to delete: never touched again
        if self.plotItem is not None:
            try:
                self.plot_item.vb.sigRangeChanged.disconnect(self._range_changed)
            except (RuntimeError, TypeError):
                pass
        legend = self.__dict__.get("legend")
        if legend is not None and self.plotItem is not None:
            legend.clear()
            self.plot_item.layout.removeItem(legend)
            if legend.scene() is not None:
                legend.scene().removeItem(legend)
        return super().close()

    def finish_legend(self) -> None:
        """Lay the legend out for the current width (call after adding the curves)."""
        self.legend.fit_columns(max(200.0, self.width() - 80.0))
        self.plot_item.layout.activate()         # its row under the plot has its height now
    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(ev)
        legend = self.__dict__.get("legend")          # resize events come before __init__ ends
        if legend is not None and legend.items:
            self.finish_legend()
        if self.__dict__.get("value_labels"):
            self.thin_labels()

    def add_hoverable(self, xs: Sequence[float], ys: Sequence[float], describe: Callable[[int], str]) -> None:
        self._hoverables.append(_Hoverable(np.asarray(xs, float), np.asarray(ys, float), describe))

    def readout_at(self, view_x: float, view_y: float) -> str:
        """The text shown for the data point nearest (in pixels) to a view position, or ''
        when none is within reach; also moves the on-chart readout there."""
        vb = self.plot_item.vb
        best: tuple[float, _Hoverable, int] | None = None
        for h in self._hoverables:
            if not len(h.xs):
                continue
            (x0, x1), (y0, y1) = vb.viewRange()
            rect = vb.sceneBoundingRect()
            sx = rect.width() / (x1 - x0) if x1 != x0 else 1.0
            sy = rect.height() / (y1 - y0) if y1 != y0 else 1.0
            d2 = ((h.xs - view_x) * sx) ** 2 + ((h.ys - view_y) * sy) ** 2
            i = int(np.nanargmin(d2))
            if best is None or d2[i] < best[0]:
                best = (float(d2[i]), h, i)
        if best is None or best[0] > HOVER_RADIUS_PX ** 2:
            self.readout.hide()
            self.marker.clear()
            return ""
        _, h, i = best
        text = h.describe(i)
        self.readout.setText(text)
        self.readout.setPos(h.xs[i], h.ys[i])
        self.readout.show()
        self.marker.setData([h.xs[i]], [h.ys[i]])
        return text

    def _on_mouse_moved(self, scene_pos) -> None:
        if not self.plot_item.vb.sceneBoundingRect().contains(scene_pos):
            self.readout.hide()
            return
        p = self.plot_item.vb.mapSceneToView(scene_pos)
        self.readout_at(p.x(), p.y())


def _pen(i: int, dashed: bool = False, width: int = 2) -> pg.QtGui.QPen:
    return pg.mkPen(PALETTE[i % len(PALETTE)], width=width,
                    style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)


class ThroughputChart(BaseChart):
    """A metric (throughput by default) vs block size, one curve per run and concurrency."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent, bottom=Log2SizeAxis(), title="")
        self.plot_item.setLabel("bottom", "block size")
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.divisor, self.unit_label, self.raw_unit = 1.0, "", ""
        self._light = False
        self.set_empty("pick runs to chart them against block size")

    def set_runs(self, runs: Sequence[RunResult], labels: Sequence[str], metric: str = "throughput",
                 direction: str | None = None) -> None:
        self.clear_chart()
        self.curves.clear()
        unit = self.raw_unit = metric_unit(runs, metric)
        sweeps = [sweep_by_block_size(r, metric, direction) for r in runs]
        largest = max((p.high for sw in sweeps for pts in sw.values() for p in pts), default=0.0)
        self.divisor, self.unit_label = value_scale(unit, largest)
        self.plot_item.setLabel("left", axis_label(metric, self.unit_label))
        n_curves = sum(len(sw) for sw in sweeps)
        self._light = n_curves > 8       # many curves: thin lines, no symbols (keeps panning fluid)
        alone = len(runs) == 1           # one run: single vs each concurrency, a colour each
        for i, (sweep, label) in enumerate(zip(sweeps, labels)):
            for k, (conc, pts) in enumerate(sweep.items()):
                name = f"{label} · {'single' if conc == 1 else f'{conc} concurrent'}"
                color = k if alone else i
                self._add_curve(name, pts, _pen(color, dashed=conc > 1, width=1 if self._light else 2), color, conc)
        if not n_curves:
            has_sweep = any(isinstance(s.params.get("block_size"), int) for r in runs for s in r.steps)
            self.set_empty("pick runs to chart them against block size" if not runs else
                           f"no {metric.replace('_', ' ')} was measured at any block size" if has_sweep else
                           f"{'this run has' if len(runs) == 1 else 'these runs have'} no block-size sweep: "
                           "its figures are under By point")
            return
        self.show_axes()
        self.plot_item.setTitle(" ", color="#222")
        self.plot_item.enableAutoRange()
        self.finish_legend()

    def _add_curve(self, name: str, pts: Sequence[SeriesPoint], pen, color_index: int, conc: int) -> None:
        xs = np.log2([p.x for p in pts])
        ys = np.array([p.median for p in pts]) / self.divisor
        color = PALETTE[color_index % len(PALETTE)]
        symbol = None if self._light else "o" if conc == 1 else "t"
        curve = self.plot_item.plot(xs, ys, pen=pen, name=name, symbol=symbol, symbolSize=7,
                                    symbolBrush=color, symbolPen=color)
        self.curves[name] = curve
        lows = ys - np.array([p.low for p in pts]) / self.divisor
        highs = np.array([p.high for p in pts]) / self.divisor - ys
        if any(p.n > 1 for p in pts):
            bars = pg.ErrorBarItem(x=xs, y=ys, top=highs, bottom=lows, beam=0.12, pen=pg.mkPen(color, width=1))
            self.plot_item.addItem(bars)
        unit, raw_unit = self.unit_label, self.raw_unit

        def describe(i: int, pts=pts, name=name) -> str:
            p = pts[i]
            spread = f"\nrepeats {p.n}: {p.low / self.divisor:,.4g} … {p.high / self.divisor:,.4g}" if p.n > 1 else ""
            return (f"{name}\nblock {format_block_label(p.x)}: {p.median / self.divisor:,.4g} {unit} (median){spread}"
                    f"\n= {exact(p.median, raw_unit)}")

        self.add_hoverable(xs, ys, describe)


class LiveChart(ThroughputChart):
    """Fed one step at a time while a run is going; redraws only the changed curve."""

    def __init__(self, parent=None, metric: str = "throughput") -> None:
        super().__init__(parent)
        self.live_metric = metric   # not `metric`: that would hide QWidget.metric() and crash painting
        self._steps: list[StepResult] = []
        self._label = "this run"

    def begin(self, label: str) -> None:
        self._steps.clear()
        self._label = label
        self.clear_chart()
        self.curves.clear()

    def add_step(self, step: StepResult) -> None:
        self._steps.append(step)
        run = RunResult(run_id="live", workload="", status=RunStatus.RUNNING, started_at=time.time(), ended_at=None,
                        provenance=Provenance(brickyard_version="", hosts={}, target="", target_kind=""),
                        steps=self._steps)
        self.set_runs([run], [self._label], self.live_metric)


class LayoutBarChart(BaseChart):
    """Runs side by side at one block size and concurrency: median bars, repeat range whiskers."""

    def __init__(self, parent=None) -> None:
        self.category_axis = CategoryAxis()
        super().__init__(parent, bottom=self.category_axis)
        self.legend.hide()            # the bars are named on the axis
        self.bars: pg.BarGraphItem | None = None
        self.set_empty("pick runs to set them side by side")

    def set_runs(self, runs: Sequence[RunResult], labels: Sequence[str], block_size: int, concurrency: int = 1,
                 metric: str = "throughput", direction: str | None = None) -> None:
        self.clear_chart()
        points = [value_at(r, metric, block_size, concurrency, direction) for r in runs]
        kept = [(label, p) for label, p in zip(labels, points) if p is not None]
        self.category_axis.names = [label for label, _ in kept]
        unit = metric_unit(runs, metric)
        divisor, unit_label = value_scale(unit, max((p.high for _, p in kept), default=0.0))
        self.plot_item.setLabel("left", axis_label(metric, unit_label))
        where = f"at block size {format_block_label(block_size)}, " \
                f"{'single' if concurrency == 1 else f'{concurrency} concurrent'}"
        if not kept:
            self.set_empty(f"no run measured {where}" if runs else "pick runs to set them side by side")
            return
        self.show_axes()
        self.plot_item.setTitle(where, color="#222")
        xs = np.arange(len(kept), dtype=float)
        ys = np.array([p.median for _, p in kept]) / divisor
        brushes = [pg.mkBrush(PALETTE[i % len(PALETTE)]) for i in range(len(kept))]
        self.bars = pg.BarGraphItem(x=xs, height=ys, width=0.6, brushes=brushes, pen=pg.mkPen("#333"))
        self.plot_item.addItem(self.bars)
        lows = ys - np.array([p.low for _, p in kept]) / divisor
        highs = np.array([p.high for _, p in kept]) / divisor - ys
        self.plot_item.addItem(pg.ErrorBarItem(x=xs, y=ys, top=highs, bottom=lows, beam=0.2, pen=pg.mkPen("#000")))

        def describe(i: int) -> str:
            label, p = kept[i]
            return f"{label}\n{p.median / divisor:,.4g} {unit_label} (median of {p.n})" + \
                (f"\nrange {p.low / divisor:,.4g} … {p.high / divisor:,.4g}" if p.n > 1 else "") + \
                f"\n= {exact(p.median, unit)}"

        self.add_hoverable(xs, ys, describe)
        self.value_labels = []
        for x, y, top, (_label, p) in zip(xs, ys, highs, kept):    # each bar says its value, with its unit
            text = pg.TextItem(format_quantity(p.median, unit), color="#111", anchor=(0.5, 1))
            text.setZValue(20)                   # over the bars drawn after it, never under them
            text.setPos(float(x), float(y + top))
            self.plot_item.addItem(text)
            self.value_labels.append(text)
        self.plot_item.setXRange(-0.6, len(kept) - 0.4)
        self.plot_item.setYRange(0, float(max(ys + highs)) * 1.18 or 1.0)
        self.thin_labels()


class PointChart(BaseChart):
    """Every sweep point of the runs, one group of bars per point (one bar per run, repeat
    range whiskers), each point named with its values and each bar with its value and unit:
    the chart of workloads without a block-size sweep (pgbench, randread, smallfile, fio
    presets), and of a single run of any workload."""

    def __init__(self, parent=None) -> None:
        self.category_axis = CategoryAxis()
        super().__init__(parent, bottom=self.category_axis)
        self.bars: list[pg.BarGraphItem] = []
        self.set_empty("pick runs to chart every point they measured")

    def set_runs(self, runs: Sequence[RunResult], labels: Sequence[str], metric: str,
                 direction: str | None = None) -> None:
        self.clear_chart()
        self.bars.clear()
        per_run = [repeats_by_point(r, metric) for r in runs]
        if direction:
            per_run = [{pt: v for pt, v in d.items() if dict(pt).get("direction", f'"{direction}"')
                        == f'"{direction}"'} for d in per_run]
        points = list(dict.fromkeys(pt for d in per_run for pt in d))
        unit = metric_unit(runs, metric)
        largest = max((max(v) for d in per_run for v in d.values() if v), default=0.0)
        divisor, unit_label = value_scale(unit, largest)
        self.plot_item.setLabel("left", axis_label(metric, unit_label))
        self.category_axis.names, shared = describe_points(points)
        if not points:
            self.set_empty(f"no {metric.replace('_', ' ')} was measured" if runs else
                           "pick runs to chart every point they measured")
            return
        self.show_axes()
        self.plot_item.setTitle(f"all at {shared}" if shared else " ", color="#222")
        width = 0.8 / max(1, len(runs))
        top = 0.0
        for i, (values, label) in enumerate(zip(per_run, labels)):
            xs, meds, lows, highs, kept = [], [], [], [], []
            for j, pt in enumerate(points):
                vals = values.get(pt)
                if not vals:
                    continue
                med = float(np.median(vals))
                xs.append(j - 0.4 + width * (i + 0.5))
                meds.append(med / divisor)
                lows.append(min(vals) / divisor)
                highs.append(max(vals) / divisor)
                kept.append((pt, vals, med))
            if not xs:
                continue
            color = PALETTE[i % len(PALETTE)]
            bars = pg.BarGraphItem(x=np.array(xs), height=np.array(meds), width=width * 0.9,
                                   brush=pg.mkBrush(color), pen=pg.mkPen("#333"), name=label)
            self.plot_item.addItem(bars)          # named: the plot puts it in the legend
            self.bars.append(bars)
            ys = np.array(meds)
            spread = [k for k, (_pt, vals, _m) in enumerate(kept) if len(vals) > 1]
            if spread:
                self.plot_item.addItem(pg.ErrorBarItem(
                    x=np.array(xs)[spread], y=ys[spread], top=np.array(highs)[spread] - ys[spread],
                    bottom=ys[spread] - np.array(lows)[spread], beam=width * 0.3, pen=pg.mkPen("#000")))
            for x, y, hi, (_pt, _vals, med) in zip(xs, meds, highs, kept):
                text = pg.TextItem(format_quantity(med, unit), color="#111", anchor=(0.5, 1))
                text.setZValue(20)               # over the next run's bars, never under them
                text.setPos(x, hi)
                self.plot_item.addItem(text)
                self.value_labels.append(text)
            top = max(top, max(highs))

            def describe(k: int, kept=kept, label=label) -> str:
                pt, vals, med = kept[k]
                spread_text = (f"\nrepeats {len(vals)}: {format_quantity(min(vals), unit)} … "
                               f"{format_quantity(max(vals), unit)}" if len(vals) > 1 else "")
                return (f"{label}\n{describe_point(pt)}\n{format_quantity(med, unit)} (median){spread_text}"
                        f"\n= {exact(med, unit)}")

            self.add_hoverable(xs, meds, describe)
        self.plot_item.setXRange(-0.6, len(points) - 0.4)
        self.plot_item.setYRange(0, top * 1.18 or 1.0)
        self.finish_legend()
        self.thin_labels()


class TrendChart(BaseChart):
    """One metric at one sweep point over time: one line per thing measured (a volume, a
    baseline path), one dot per run, so a local baseline never joins a volume's line."""

    def __init__(self, parent=None) -> None:
        axis = pg.DateAxisItem(orientation="bottom", utcOffset=0)
        axis.enableAutoSIPrefix(False)
        super().__init__(parent, bottom=axis)
        self.plot_item.setLabel("bottom", "run start (UTC)")
        self.curve: pg.PlotDataItem | None = None          # the first (largest) series
        self.series: dict[str, pg.PlotDataItem] = {}
        self.set_empty("runs the filters let through, over time, at the chosen point")

    def set_points(self, points: Sequence[Sequence], unit: str, title: str, metric: str = "throughput") -> None:
        """``points``: (started_at, run_id, value, series) as ``HistoryStore.metric_trend``
        gives them (a point without a series joins one line named after the metric)."""
        self.clear_chart()
        self.series.clear()
        raw_all = np.array([p[2] for p in points], float)
        divisor, unit_label = value_scale(unit, float(np.nanmax(raw_all)) if len(raw_all) else 0.0)
        self.plot_item.setLabel("left", axis_label(metric, unit_label))
        self.plot_item.setTitle(title, color="#222")
        groups: dict[str, list[Sequence]] = {}
        for p in points:
            groups.setdefault(str(p[3]) if len(p) > 3 and p[3] else metric.replace("_", " "), []).append(p)
        if not groups:
            groups[metric.replace("_", " ")] = []
        # most runs first: its colour stays put when a rare series comes and goes
        for i, (name, pts) in enumerate(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))):
            xs = np.array([p[0] for p in pts], float)
            raw = np.array([p[2] for p in pts], float)
            ys = raw / divisor
            ids = [p[1] for p in pts]
            color = PALETTE[i % len(PALETTE)]
            curve = self.plot_item.plot(xs, ys, pen=pg.mkPen(color, width=1), symbol="o", symbolSize=5,
                                        symbolBrush=color, symbolPen=None, name=name)
            curve.setClipToView(True)
            curve.setDownsampling(auto=True, method="peak")
            if len(xs) > 2000:
                curve.setSymbol(None)
            self.series[name] = curve
            if self.curve is None or i == 0:
                self.curve = curve

            def describe(j: int, xs=xs, ys=ys, raw=raw, ids=ids, name=name) -> str:
                when = format_utc(xs[j])
                return (f"{name}\nrun {ids[j][:12]}\n{when} UTC\n{format_quantity(raw[j], unit)}"
                        f"\n= {exact(raw[j], unit)}")

            self.add_hoverable(xs, ys, describe)
        if points:
            self.show_axes()
        else:
            self.set_empty(f"{title} — nothing to draw")
        self.plot_item.enableAutoRange()
        self.finish_legend()


class ScalingChart(BaseChart):
    """Scaling efficiency (concurrent ÷ N × single) vs concurrency, one curve per run."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plot_item.setLabel("bottom", "concurrent workers (N)")
        self.plot_item.setLabel("left", "scaling efficiency (1 = N × single)")
        self.set_empty("pick runs with concurrent steps to see how they scale")

    def set_runs(self, runs: Sequence[RunResult], labels: Sequence[str], block_size: int,
                 metric: str = "throughput", direction: str | None = None) -> None:
        self.clear_chart()
        self.plot_item.setTitle(f"at block size {format_block_label(block_size)}", color="#222")
        ideal = self.plot_item.plot([1, 1], [1, 1], pen=pg.mkPen("#999", style=Qt.PenStyle.DotLine))
        top = 1
        for i, (run, label) in enumerate(zip(runs, labels)):
            pts = scaling_efficiency(run, block_size, metric, direction)
            if not pts:
                continue
            xs = np.array([p.x for p in pts], float)
            ys = np.array([p.median for p in pts])
            top = max(top, int(xs.max()))
            self.plot_item.plot(xs, ys, pen=_pen(i), symbol="o", symbolBrush=PALETTE[i % len(PALETTE)], name=label)
            # N = 1 is 1.0 by definition: no spread to show there
            spread = [j for j, p in enumerate(pts) if p.n > 1 and p.x > 1 and p.high > p.low]
            if spread:
                sx, sy = xs[spread], ys[spread]
                self.plot_item.addItem(pg.ErrorBarItem(
                    x=sx, y=sy, top=np.array([pts[j].high for j in spread]) - sy,
                    bottom=sy - np.array([pts[j].low for j in spread]), beam=0.1,
                    pen=pg.mkPen(PALETTE[i % len(PALETTE)])))

            def describe(j: int, pts=pts, label=label) -> str:
                p = pts[j]
                if p.x == 1:
                    return f"{label}\n1 worker: efficiency 1 by definition (the reference)"
                spread_text = f" (repeats {p.low:.3f} … {p.high:.3f})" if p.n > 1 and p.high > p.low else ""
                return f"{label}\n{int(p.x)} workers: efficiency {p.median:.3f}{spread_text}"

            self.add_hoverable(xs, ys, describe)
        if not self._hoverables:
            self.set_empty(f"no concurrent steps at block size {format_block_label(block_size)}: nothing scales"
                           if runs else "pick runs with concurrent steps to see how they scale")
            return
        self.show_axes()
        ideal.setData([1, top], [1, 1])
        self.plot_item.enableAutoRange()
        self.finish_legend()
