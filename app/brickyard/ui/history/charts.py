"""pyqtgraph charts of benchmark results. They read ``core.results`` objects (through
``core.series``), never database rows.

- ``ThroughputChart``: a metric vs block size on a log₂ axis labelled 4 KiB … 64 MiB, one
  curve per run and concurrency (single solid, concurrent dashed), error bars from repeats.
- ``LayoutBarChart``: runs (layouts) side by side at one block size and concurrency.
- ``TrendChart``: one metric at one sweep point over time, one line per volume or baseline.
- ``ScalingChart``: concurrent ÷ (N × single) per concurrency (N = 1 is the reference: no bar).
- ``PointChart``: every sweep point as a group of bars, one per run (pgbench, randread, …).
- ``LiveChart``: a ThroughputChart fed step by step while a run is going.

Every chart is a ``widgets.chart.BaseChart``: the exact value of the point under the mouse,
the legend under the plot, an empty chart that says why, value labels that thin out rather
than overlap, values in the one unit convention of ``core.units``.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from brickyard.core.compare import describe_point, describe_points, metric_unit, repeats_by_point
from brickyard.core.results import Provenance, RunResult, RunStatus, StepResult
from brickyard.core.series import SeriesPoint, scaling_efficiency, sweep_by_block_size, value_at
from brickyard.core.units import format_block_label, format_quantity, format_utc

from ..widgets.chart import (PALETTE, BaseChart, CategoryAxis, Log2SizeAxis, axis_label, exact, series_pen,
                             value_scale)


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
                self._add_curve(name, pts, series_pen(color, dashed=conc > 1, width=1 if self._light else 2), color, conc)
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
            self.plot_item.plot(xs, ys, pen=series_pen(i), symbol="o", symbolBrush=PALETTE[i % len(PALETTE)], name=label)
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
