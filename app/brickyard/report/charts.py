"""The report's charts, painted as vector paths and text with ``QPainter`` (into the PDF, or
into an SVG for the HTML variant): no bitmap, no widget, fonts at their size on paper.

- ``SweepChart``: throughput vs block size on a log₂ axis, one curve per layout (or run) and
  file count — one file solid, N files dashed — with the spread over repeats as error bars;
- ``BarChart``: the layouts side by side at one block size, one bar per file count, whiskers
  from the spread, the planner's estimates hatched and outlined dashed;
- ``TrendChart``: one figure of each volume over time.

Greyscale prints keep the series apart: each curve has its own marker shape, one file vs
N files differ by line style, and bars are light (one file) or dark (N files).
Values are scaled by ``core.units`` (MB/s, GB/s …), block sizes written as dd writes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen

from ..core.series import SeriesPoint
from ..core.units import format_block_size, format_quantity, format_utc, quantity_scale
from .typeset import INK, MUTED, Typeset, hatch, series_colour

AXIS = "#5f6368"
GRID = "#e0e3e7"
PLOT_MAX_H = 215.0


@dataclass(frozen=True)
class Curve:
    label: str
    series: int               # colour and marker
    dashed: bool              # N files at once (one file is solid)
    points: tuple[SeriesPoint, ...]


@dataclass(frozen=True)
class SweepChart:
    title: str
    curves: tuple[Curve, ...]
    unit: str = "B/s"
    metric: str = "throughput"


@dataclass(frozen=True)
class Bar:
    value: float
    low: float
    high: float
    estimated: bool = False
    text: str = ""            # written above the bar


@dataclass(frozen=True)
class BarGroup:
    label: str
    bars: tuple[Bar | None, ...]


@dataclass(frozen=True)
class BarChart:
    title: str
    series: tuple[str, ...]   # what each bar of a group is: '1 file', '8 files'
    groups: tuple[BarGroup, ...]
    unit: str = "B/s"


@dataclass(frozen=True)
class TrendLine:
    label: str
    points: tuple[tuple[float, float], ...]     # (time.time(), value)


@dataclass(frozen=True)
class TrendChart:
    title: str
    lines: tuple[TrendLine, ...]
    unit: str = "B/s"


# ------------------------------------------------------------------------- shared pieces


def nice_ticks(hi: float, count: int = 5) -> list[float]:
    """0 … ≥hi in steps of 1, 2 or 5 × 10ⁿ."""
    if hi <= 0 or not math.isfinite(hi):
        return [0.0, 1.0]
    raw = hi / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    ticks, v = [], 0.0
    while v < hi * (1 + 1e-9):
        ticks.append(v)
        v += step
    ticks.append(v)
    return ticks


def _tick_text(value: float, step: float) -> str:
    digits = 0 if step >= 1 else min(3, max(0, -math.floor(math.log10(step)) + (1 if step * 10 % 10 else 0)))
    return f"{value:.{digits}f}"


def draw_marker(painter: QPainter, kind: int, x: float, y: float, size: float, colour: QColor,
                filled: bool = True) -> None:
    """Circle, square, triangle, diamond, inverted triangle, cross, plus, star…"""
    r = size / 2
    painter.setPen(QPen(colour, 0.9))
    painter.setBrush(QBrush(colour) if filled else QBrush(QColor("white")))
    kind %= 8
    path = QPainterPath()
    if kind == 0:
        painter.drawEllipse(QPointF(x, y), r, r)
        return
    if kind == 1:
        side = 1.6 * r
        painter.drawRect(QRectF(x - side / 2, y - side / 2, side, side))
        return
    if kind in (2, 4):
        s = 1 if kind == 2 else -1
        path.moveTo(x, y - s * r * 1.1)
        path.lineTo(x + r, y + s * r * 0.8)
        path.lineTo(x - r, y + s * r * 0.8)
        path.closeSubpath()
    elif kind == 3:
        path.moveTo(x, y - r * 1.2)
        path.lineTo(x + r, y)
        path.lineTo(x, y + r * 1.2)
        path.lineTo(x - r, y)
        path.closeSubpath()
    elif kind in (5, 6):
        painter.setPen(QPen(colour, 1.3))
        if kind == 5:
            painter.drawLine(QPointF(x - r, y - r), QPointF(x + r, y + r))
            painter.drawLine(QPointF(x - r, y + r), QPointF(x + r, y - r))
        else:
            painter.drawLine(QPointF(x - r, y), QPointF(x + r, y))
            painter.drawLine(QPointF(x, y - r), QPointF(x, y + r))
        return
    else:
        for i in range(10):
            radius = r * 1.2 if i % 2 == 0 else r * 0.5
            angle = -math.pi / 2 + i * math.pi / 5
            point = QPointF(x + radius * math.cos(angle), y + radius * math.sin(angle))
            path.moveTo(point) if i == 0 else path.lineTo(point)
        path.closeSubpath()
    painter.drawPath(path)


def _pen(colour: QColor, width: float, dashed: bool) -> QPen:
    pen = QPen(colour, width)
    if dashed:
        pen.setStyle(Qt.PenStyle.CustomDashLine)
        pen.setDashPattern([4.0, 2.5])
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    return pen


@dataclass(frozen=True)
class _LegendItem:
    label: str
    series: int = 0
    dashed: bool = False
    kind: str = "curve"       # curve | bar | hatched | swatch
    fill: str = ""


def _legend_layout(ts: Typeset, items: Sequence[_LegendItem], width: float) -> tuple[int, float, float]:
    """(columns, column width, height): entries side by side, as many as fit."""
    if not items:
        return 1, width, 0.0
    entry = max(ts.advance(i.label, "small") for i in items) + 34.0
    cols = max(1, min(len(items), int(width // entry)))
    rows = math.ceil(len(items) / cols)
    return cols, min(entry + 12.0, width / cols), rows * 11.5 + 2.0


def _draw_legend(painter: QPainter, ts: Typeset, items: Sequence[_LegendItem], x: float, y: float,
                 width: float) -> None:
    cols, colw, _ = _legend_layout(ts, items, width)
    for n, item in enumerate(items):
        cx = x + (n % cols) * colw
        cy = y + (n // cols) * 11.5 + 6.0
        colour = series_colour(item.series)
        if item.kind == "curve":
            painter.setPen(_pen(colour, 1.3, item.dashed))
            painter.drawLine(QPointF(cx, cy), QPointF(cx + 22, cy))
            draw_marker(painter, item.series, cx + 11, cy, 4.6, colour, not item.dashed)
        else:
            box = QRectF(cx + 4, cy - 4, 14, 8)
            painter.setPen(QPen(QColor(AXIS), 0.6, Qt.PenStyle.DashLine if item.kind == "hatched" else
                                Qt.PenStyle.SolidLine))
            painter.setBrush(QBrush(QColor(item.fill or "#ffffff")))
            painter.drawRect(box)
            if item.kind == "hatched":
                hatch(painter, box, QColor(AXIS))
        ts.draw_text(painter, item.label, "small", cx + 26, cy + 2.6, INK)



class _Frame:
    """A plot area with a y axis from 0 and a title; x is up to the chart."""

    def __init__(self, ts: Typeset, rect: QRectF, title: str, unit: str, largest: float, metric: str,
                 legend_h: float, x_label_h: float):
        self.ts = ts
        self.divisor, self.unit_label = quantity_scale(unit, largest)
        self.ticks = nice_ticks(largest / self.divisor if largest > 0 else 1.0)
        labels = [_tick_text(t, self.ticks[1] - self.ticks[0]) for t in self.ticks]
        left = max(ts.advance(s, "tiny") for s in labels) + 18.0
        title_h = ts.line_height("small-bold") + 3.0
        self.plot = QRectF(rect.left() + left, rect.top() + title_h, rect.width() - left - 6.0,
                           rect.height() - title_h - x_label_h - legend_h)
        self.labels = labels
        self.title = title
        self.axis_title = f"{metric.replace('_', ' ')} ({self.unit_label})" if self.unit_label else metric
        self.rect = rect

    def y(self, value: float) -> float:
        top = self.ticks[-1] * self.divisor
        return self.plot.bottom() - (value / top) * self.plot.height() if top else self.plot.bottom()

    def draw(self, painter: QPainter) -> None:
        ts, p = self.ts, self.plot
        ts.draw_text(painter, self.title, "small-bold", self.rect.left(), self.rect.top() + ts.ascent("small-bold"))
        for t, text in zip(self.ticks, self.labels):
            y = self.y(t * self.divisor)
            painter.setPen(QPen(QColor(GRID), 0.5))
            painter.drawLine(QPointF(p.left(), y), QPointF(p.right(), y))
            ts.draw_text(painter, text, "tiny", p.left() - 3, y + 2.2, MUTED, "r")
        painter.save()
        painter.translate(self.rect.left() + ts.ascent("tiny"), p.center().y())
        painter.rotate(-90)
        ts.draw_text(painter, self.axis_title, "tiny", 0, 0, MUTED, "c")
        painter.restore()
        painter.setPen(QPen(QColor(AXIS), 0.7))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawLine(p.bottomLeft(), p.bottomRight())
        painter.drawLine(p.bottomLeft(), p.topLeft())


# ------------------------------------------------------------------------- sweep chart


def _sweep_legend(chart: SweepChart) -> list[_LegendItem]:
    return [_LegendItem(c.label, c.series, c.dashed) for c in chart.curves]


def sweep_height(ts: Typeset, width: float, chart: SweepChart) -> float:
    _, _, legend = _legend_layout(ts, _sweep_legend(chart), width)
    return min(PLOT_MAX_H, width * 0.42) + 40.0 + legend


def draw_sweep(painter: QPainter, ts: Typeset, rect: QRectF, chart: SweepChart) -> None:
    items = _sweep_legend(chart)
    _, _, legend_h = _legend_layout(ts, items, rect.width())
    points = [p for c in chart.curves for p in c.points]
    largest = max((p.high for p in points), default=0.0)
    frame = _Frame(ts, rect, chart.title, chart.unit, largest, chart.metric, legend_h + 6.0, 24.0)
    frame.draw(painter)
    p = frame.plot
    xs = sorted({pt.x for pt in points if pt.x > 0})
    if not xs:
        ts.draw_text(painter, "nothing measured", "small", p.center().x(), p.center().y(), MUTED, "c")
        return
    lo, hi = math.log2(xs[0]), math.log2(xs[-1])
    if hi - lo < 1:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.04

    def x_of(value: float) -> float:
        return p.left() + (math.log2(value) - lo + pad) / (hi - lo + 2 * pad) * p.width()

    # ticks on every power of two measured (every other one when crowded)
    powers = sorted({round(math.log2(v)) for v in xs if v > 0})
    step = 1
    while len(powers[::step]) * 26.0 > p.width():
        step += 1
    for e in powers[::step]:
        x = x_of(2 ** e)
        painter.setPen(QPen(QColor(GRID), 0.4))
        painter.drawLine(QPointF(x, p.top()), QPointF(x, p.bottom()))
        painter.setPen(QPen(QColor(AXIS), 0.7))
        painter.drawLine(QPointF(x, p.bottom()), QPointF(x, p.bottom() + 2.5))
        ts.draw_text(painter, format_block_size(2 ** e), "tiny", x, p.bottom() + 10.0, MUTED, "c")
    ts.draw_text(painter, "block size (log₂ scale)", "tiny", p.center().x(), p.bottom() + 20.0, MUTED, "c")
    painter.save()
    painter.setClipRect(p.adjusted(-6, -6, 6, 1))
    for c in chart.curves:
        colour = series_colour(c.series)
        pts = [(x_of(pt.x), frame.y(pt.median), pt) for pt in c.points if pt.x > 0]
        painter.setPen(QPen(colour, 0.6))
        for x, _, pt in pts:                              # error bars: min … max over repeats
            if pt.n > 1 and pt.high > pt.low:
                y1, y2 = frame.y(pt.low), frame.y(pt.high)
                painter.drawLine(QPointF(x, y1), QPointF(x, y2))
                painter.drawLine(QPointF(x - 2, y1), QPointF(x + 2, y1))
                painter.drawLine(QPointF(x - 2, y2), QPointF(x + 2, y2))
        path = QPainterPath()
        for i, (x, y, _) in enumerate(pts):
            path.moveTo(x, y) if i == 0 else path.lineTo(x, y)
        painter.setPen(_pen(colour, 1.3, c.dashed))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
        for x, y, _ in pts:
            draw_marker(painter, c.series, x, y, 4.2, colour, not c.dashed)
    painter.restore()
    _draw_legend(painter, ts, items, rect.left(), p.bottom() + 26.0, rect.width())


# ------------------------------------------------------------------------- bar chart

BAR_FILLS = ("#b3c7e6", "#1f4e99", "#6f8fc4", "#0b2a5b")   # light = one file, dark = many


def _bar_legend(chart: BarChart) -> list[_LegendItem]:
    items = [_LegendItem(s, kind="bar", fill=BAR_FILLS[i % len(BAR_FILLS)]) for i, s in enumerate(chart.series)]
    if any(b is not None and b.estimated for g in chart.groups for b in g.bars):
        items.append(_LegendItem("planner's estimate (not measured)", kind="hatched"))
    return items


def bar_height(ts: Typeset, width: float, chart: BarChart) -> float:
    _, _, legend = _legend_layout(ts, _bar_legend(chart), width)
    return min(190.0, width * 0.36) + 56.0 + legend


def draw_bars(painter: QPainter, ts: Typeset, rect: QRectF, chart: BarChart) -> None:
    items = _bar_legend(chart)
    _, _, legend_h = _legend_layout(ts, items, rect.width())
    bars = [b for g in chart.groups for b in g.bars if b is not None]
    largest = max((max(b.high, b.value) for b in bars), default=0.0) * 1.12
    frame = _Frame(ts, rect, chart.title, chart.unit, largest, "throughput", legend_h + 6.0, 40.0)
    frame.draw(painter)
    p = frame.plot
    n = max(1, len(chart.groups))
    group_w = p.width() / n
    per = max(1, len(chart.series))
    bar_w = min(34.0, group_w * 0.75 / per)
    # values written above the bars; upwards for all of them when one does not fit its bar
    upright = all(ts.advance(b.text, "tiny") <= bar_w - 1 for b in bars if b.text)
    for gi, group in enumerate(chart.groups):
        gx = p.left() + gi * group_w + (group_w - bar_w * per) / 2
        for bi, bar in enumerate(group.bars):
            if bar is None:
                continue
            x = gx + bi * bar_w
            top = frame.y(bar.value)
            box = QRectF(x + 1.0, top, bar_w - 2.0, p.bottom() - top)
            fill = QColor(BAR_FILLS[bi % len(BAR_FILLS)])
            if bar.estimated:
                painter.setPen(QPen(QColor(AXIS), 0.7, Qt.PenStyle.DashLine))
                painter.setBrush(QBrush(QColor("#ffffff")))
                painter.drawRect(box)
                hatch(painter, box, fill.darker(120))
            else:
                painter.setPen(QPen(fill.darker(140), 0.6))
                painter.setBrush(QBrush(fill))
                painter.drawRect(box)
            if bar.high > bar.low:
                cx = x + bar_w / 2
                y1, y2 = frame.y(bar.low), frame.y(bar.high)
                painter.setPen(QPen(QColor(INK), 0.7))
                painter.drawLine(QPointF(cx, y1), QPointF(cx, y2))
                painter.drawLine(QPointF(cx - 2.5, y1), QPointF(cx + 2.5, y1))
                painter.drawLine(QPointF(cx - 2.5, y2), QPointF(cx + 2.5, y2))
            if bar.text and upright:
                ts.draw_text(painter, bar.text, "tiny", x + bar_w / 2, min(top, frame.y(bar.high)) - 2.5, INK, "c")
            elif bar.text:                                 # narrow bars: the value written upwards
                painter.save()
                painter.translate(x + bar_w / 2 + 2.2, min(top, frame.y(bar.high)) - 3.0)
                painter.rotate(-90)
                ts.draw_text(painter, bar.text, "tiny", 0, 0, INK)
                painter.restore()
        label_lines = ts.wrap([(group.label, "tiny")], group_w - 4)[:3]
        ts.draw_lines(painter, label_lines, p.left() + gi * group_w + 2, p.bottom() + 4, group_w - 4, "c", INK)
    _draw_legend(painter, ts, items, rect.left(), p.bottom() + 42.0, rect.width())


# ------------------------------------------------------------------------- trend chart


def _trend_legend(chart: TrendChart) -> list[_LegendItem]:
    return [_LegendItem(line.label, i) for i, line in enumerate(chart.lines)]


def trend_height(ts: Typeset, width: float, chart: TrendChart) -> float:
    _, _, legend = _legend_layout(ts, _trend_legend(chart), width)
    return min(170.0, width * 0.32) + 40.0 + legend


def draw_trend(painter: QPainter, ts: Typeset, rect: QRectF, chart: TrendChart) -> None:
    items = _trend_legend(chart)
    _, _, legend_h = _legend_layout(ts, items, rect.width())
    values = [v for line in chart.lines for _, v in line.points]
    times = [t for line in chart.lines for t, _ in line.points]
    frame = _Frame(ts, rect, chart.title, chart.unit, max(values, default=0.0) * 1.05, "throughput",
                   legend_h + 6.0, 24.0)
    frame.draw(painter)
    p = frame.plot
    if not times:
        return
    t0, t1 = min(times), max(times)
    if t1 - t0 < 60:
        t0, t1 = t0 - 3600, t1 + 3600
    pad = (t1 - t0) * 0.05

    def x_of(t: float) -> float:
        return p.left() + (t - t0 + pad) / (t1 - t0 + 2 * pad) * p.width()

    span_days = (t1 - t0) / 86400
    fmt = "%Y-%m-%d" if span_days > 2 else "%m-%d %H:%M"
    ticks = 5 if p.width() > 300 else 3
    for i in range(ticks):
        t = t0 + (t1 - t0) * i / (ticks - 1)
        x = x_of(t)
        painter.setPen(QPen(QColor(AXIS), 0.7))
        painter.drawLine(QPointF(x, p.bottom()), QPointF(x, p.bottom() + 2.5))
        ts.draw_text(painter, format_utc(t, fmt), "tiny", x, p.bottom() + 10.0, MUTED, "c")
    ts.draw_text(painter, "run started (UTC)", "tiny", p.center().x(), p.bottom() + 20.0, MUTED, "c")
    for i, line in enumerate(chart.lines):
        colour = series_colour(i)
        pts = [(x_of(t), frame.y(v)) for t, v in sorted(line.points)]
        path = QPainterPath()
        for k, (x, y) in enumerate(pts):
            path.moveTo(x, y) if k == 0 else path.lineTo(x, y)
        painter.setPen(_pen(colour, 1.1, False))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
        for x, y in pts:
            draw_marker(painter, i, x, y, 4.2, colour)
    _draw_legend(painter, ts, items, rect.left(), p.bottom() + 26.0, rect.width())


def value_text(value: float, unit: str = "B/s") -> str:
    return format_quantity(value, unit)
