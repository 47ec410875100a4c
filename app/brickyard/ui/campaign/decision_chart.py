"""The decision table's chart (``LayoutsChart``): at one block size and direction, each
layout's bars side by side (one per concurrency), whiskers from the spread over repeats,
estimates hatched, labels cut to their bar group's width. Shown by ``decision_view.py``."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics

from ...core.decisiontable import MEASURED, DecisionTable
from ..widgets.chart import PALETTE, BaseChart, CategoryAxis, value_scale
from .decision_model import SOURCE_WORDS

class ElidedCategoryAxis(CategoryAxis):
    """Bar labels cut to the width of their bar group ("disperse 4 redundancy 1 × 2 (8 b…"), so
    the labels of many layouts never run into each other; hovering a bar gives the whole name."""

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        names = super().tickStrings(values, scale, spacing)
        view = self.linkedView()
        if view is None or not names:
            return names
        (low, high), width = view.viewRange()[0], self.geometry().width()
        slot = width * 1.0 / max(high - low, 1e-9) - 8
        metrics = QFontMetrics(self.style.get("tickFont") or self.font())
        return [metrics.elidedText(name, Qt.TextElideMode.ElideRight, max(int(slot), 24)) for name in names]


class LayoutsChart(BaseChart):
    """Each layout's throughput at one block size and direction, bars side by side per
    concurrency, whiskers from the repeats' spread, estimates hatched and lighter."""

    def __init__(self, parent=None) -> None:
        self.category_axis = ElidedCategoryAxis()
        super().__init__(parent, bottom=self.category_axis)
        self.bars: list[pg.BarGraphItem] = []

    def draw(self, table: DecisionTable | None, direction: str, block_size: int) -> int:
        self.clear_chart()
        self.bars = []
        if table is None:
            return 0
        cols = [c for c in table.columns if c.group == "throughput" and c.params.get("direction") == direction
                and c.params.get("block_size") == block_size]
        rows = list(table.rows)
        self.category_axis.names = [r.label for r in rows]
        figures = [[r.figure(c.key) for c in cols] for r in rows]
        largest = max((f.high if f.high is not None else f.value or 0.0 for fs in figures for f in fs if f.known),
                      default=0.0)
        divisor, unit = value_scale("B/s", largest)
        # the unit alone: the bar above says what is charted, and a longer label ran past a
        # short chart's axis ("write throughput (G" at 1280x720)
        self.plot_item.setLabel("left", unit)
        # no title row: the view's "Layouts side by side: [write] [block size 16M]" bar above
        # names the chart, and at 1280x720 the row's 30 px were the legend's and the bars'
        self.plot_item.setTitle(None)
        width = 0.8 / max(1, len(cols))
        drawn = 0
        xs_all, ys_all, describe_all = [], [], []
        for j, c in enumerate(cols):
            colour = QColor(PALETTE[j % len(PALETTE)])
            for i, r in enumerate(rows):
                f = figures[i][j]
                if not f.known:
                    continue
                x = i - 0.4 + width * (j + 0.5)
                y = float(f.value) / divisor
                estimate = f.source != MEASURED
                fill = QColor(colour)
                if estimate:
                    fill.setAlpha(90)
                brush = QBrush(fill, Qt.BrushStyle.BDiagPattern if estimate else Qt.BrushStyle.SolidPattern)
                bar = pg.BarGraphItem(x=[x], height=[y], width=width * 0.9, brush=brush,
                                      pen=pg.mkPen(colour, width=1, style=Qt.PenStyle.DashLine if estimate
                                                   else Qt.PenStyle.SolidLine))
                self.plot_item.addItem(bar)
                self.bars.append(bar)
                if f.n > 1 and f.low is not None and f.high is not None:
                    self.plot_item.addItem(pg.ErrorBarItem(x=np.array([x]), y=np.array([y]),
                                                           top=np.array([f.high / divisor - y]),
                                                           bottom=np.array([y - f.low / divisor]),
                                                           beam=width * 0.4, pen=pg.mkPen("#000")))
                xs_all.append(x)
                ys_all.append(y)
                describe_all.append(f"{r.label}\n{c.title}: {table.text(r, c.key)}\n"
                                    f"{SOURCE_WORDS.get(f.source, f.source)}" + (f"\n{f.note}" if f.note else ""))
                drawn += 1
            self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=0, brush=colour), c.title)
        if drawn:
            self.add_hoverable(xs_all, ys_all, lambda k: describe_all[k])
        self.plot_item.setXRange(-0.6, max(0.6, len(rows) - 0.4))
        self.plot_item.setYRange(0, largest / divisor * 1.4 or 1.0, padding=0)
        # columns for the width it has now: a chart drawn without a resize after kept one
        # entry a row, and at 1280x720 the rows ran off its bottom
        self.finish_legend()
        return drawn

    def height_needed(self, plot_room: int = 50) -> int:
        """Title, axis and legend as laid out now, plus ``plot_room`` pixels for the bars."""
        item = self.plot_item
        parts = (item.titleLabel.height(), item.getAxis("bottom").height(), self.legend.maximumHeight())
        return int(sum(parts)) + plot_room + 12          # + the layout's margins and spacing
