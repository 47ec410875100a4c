"""The chart kit every tab's pyqtgraph charts are built on: ``BaseChart`` (a white plot with
its legend under it, an exact-value readout of the point under the mouse, an empty state that
says why, value labels over bars that thin out rather than overlap), the block-size and
category axes, the palette and the one way values are scaled and written.

pyqtgraph's automatic SI prefixes are off everywhere (they give "k" on log axes and mix with
our own units); values are scaled to a readable unit (``value_scale``, the one unit convention
of ``core.units``) and the axis label names it. The charts themselves live with their tab:
``history.charts``, ``run.charts``, ``campaign.decision_chart``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsItem
from shiboken6 import isValid

from brickyard.core.units import format_block_label, format_quantity, quantity_scale

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


def series_pen(i: int, dashed: bool = False, width: int = 2) -> pg.QtGui.QPen:
    return pg.mkPen(PALETTE[i % len(PALETTE)], width=width,
                    style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
