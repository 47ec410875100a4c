"""The comparison of picked runs: first what differs in their provenance, then each metric's
change with how sure it is, then the charts."""

from __future__ import annotations

import math
from typing import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from brickyard.core.compare import (
    Difference,
    MetricComparison,
    compare_runs,
    describe_point,
    headline_metrics,
    provenance_diff,
    provenance_fields,
    run_labels,
)
from brickyard.core.results import RunResult
from brickyard.core.series import block_sizes, concurrencies, directions
from brickyard.core.units import format_block_label

from ..widgets.chart import format_value
from .charts import LayoutBarChart, PointChart, ScalingChart, ThroughputChart

# offered before anything else a run measured, when the runs have them
METRICS = ("throughput", "stonewall_throughput", "sum_of_rates", "tail", "elapsed")


def _item(text: str, tip: str = "") -> QTableWidgetItem:
    it = QTableWidgetItem(text)
    it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if tip:
        it.setToolTip(tip)
    return it


class ComparePanel(QWidget):
    """Shows ``runs`` (the first is the baseline). ``sig_metric_changed(str)``: the user
    picked another metric."""

    sig_metric_changed = Signal(str)
    METRIC_COLUMNS = ("point", "baseline", "run", "its value", "change", "how sure", "repeats", "in words")
    COL_POINT, COL_BASE, COL_RUN, COL_VALUE, COL_CHANGE, COL_SURE, COL_REPEATS, COL_WORDS = range(8)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs: list[RunResult] = []
        self.labels: list[str] = []
        self.comparisons: list[tuple[int, MetricComparison]] = []

        self.diff_box = QGroupBox("What differs between the runs (read this before any number)")
        self.diff_table = QTableWidget(0, 0)
        self.diff_table.verticalHeader().setVisible(False)
        self.diff_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.diff_note = QLabel("")
        box = QVBoxLayout(self.diff_box)
        box.addWidget(self.diff_note)
        box.addWidget(self.diff_table)

        self.metric_combo = QComboBox()
        self.metric_combo.addItems(METRICS)
        self.block_combo = QComboBox()
        self.conc_combo = QComboBox()
        self.direction_combo = QComboBox()
        controls = QHBoxLayout()
        for text, w in (("metric", self.metric_combo), ("direction", self.direction_combo),
                        ("block size", self.block_combo), ("concurrency", self.conc_combo)):
            controls.addWidget(QLabel(text))
            controls.addWidget(w)
        controls.addStretch(1)

        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        font = QFont(self.verdict.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.verdict.setFont(font)
        self.verdict.setMinimumHeight(2 * self.verdict.fontMetrics().lineSpacing() + 8)
        self.metrics_table = QTableWidget(0, len(self.METRIC_COLUMNS))
        self.metrics_table.setHorizontalHeaderLabels(list(self.METRIC_COLUMNS))
        self.metrics_table.verticalHeader().setVisible(False)
        self.metrics_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # a point can be long (pgbench names the PostgreSQL build): cut, the tooltip has it all
        self.metrics_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.metrics_table.setColumnWidth(0, 300)
        self.metrics_table.setTextElideMode(Qt.TextElideMode.ElideRight)
        # wide cells scroll inside the table instead of widening the page past the window
        for w in (self.metrics_table, self.diff_table):
            w.setSizePolicy(QSizePolicy.Policy.Ignored, w.sizePolicy().verticalPolicy())
        metrics_page = QWidget()
        mp = QVBoxLayout(metrics_page)
        mp.addWidget(self.verdict)
        mp.addWidget(self.metrics_table)

        self.throughput_chart = ThroughputChart()
        self.layout_chart = LayoutBarChart()
        self.scaling_chart = ScalingChart()
        self.point_chart = PointChart()
        self.tabs = QTabWidget()
        self.tabs.addTab(metrics_page, "Differences")
        self.tabs.addTab(self.throughput_chart, "vs block size")
        self.tabs.addTab(self.layout_chart, "Side by side")
        self.tabs.addTab(self.scaling_chart, "Scaling")
        self.tabs.addTab(self.point_chart, "By point")

        lower = QWidget()
        lv = QVBoxLayout(lower)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addLayout(controls)
        lv.addWidget(self.tabs)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.diff_box)
        split.addWidget(lower)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

        self.metric_combo.currentTextChanged.connect(self._metric_changed)
        self.direction_combo.currentIndexChanged.connect(lambda _i: self._redraw())
        self.block_combo.currentIndexChanged.connect(self._redraw_point_charts)
        self.conc_combo.currentIndexChanged.connect(self._redraw_point_charts)

    @property
    def current_metric(self) -> str:
        return self.metric_combo.currentText()

    def show_runs(self, runs: Sequence[RunResult]) -> None:
        """Show ``runs`` (the first is the baseline). One run charts on its own: single vs
        each concurrency (or every point, for a workload without a block-size sweep)."""
        self.runs = list(runs)
        self.labels = run_labels(self.runs)
        self._fill_metric_choices()
        self._fill_diff()
        self.set_point_choices(block_sizes(self.runs), concurrencies(self.runs))
        keep = self.direction_combo.currentText()
        self.direction_combo.blockSignals(True)
        self.direction_combo.clear()
        self.direction_combo.addItems(list(dict.fromkeys(d for r in self.runs for d in directions(r))))
        self.direction_combo.setCurrentIndex(max(0, self.direction_combo.findText(keep)))
        self.direction_combo.blockSignals(False)
        self._redraw()
        self.show_a_view_with_figures()

    def show_a_view_with_figures(self) -> None:
        """Bring forward a view these runs have figures for: one run is charted rather than
        compared with nothing; runs without a block-size sweep (fio presets, pgbench) are charted
        by point, not on a block-size axis that would say nothing was measured."""
        current = self.tabs.currentWidget()
        sweep_views = (self.throughput_chart, self.layout_chart, self.scaling_chart)
        if not self.runs:
            return
        if len(self.runs) == 1 and self.tabs.currentIndex() == 0:      # nothing to compare: chart it
            self.tabs.setCurrentWidget(self.throughput_chart if self.has_sweep else self.point_chart)
        elif current in sweep_views and not self.has_sweep:
            self.tabs.setCurrentWidget(self.point_chart)
        elif current is self.point_chart and self.has_sweep and self.point_chart.empty:
            self.tabs.setCurrentWidget(self.throughput_chart)

    @property
    def has_sweep(self) -> bool:
        """Whether the runs measured a block-size sweep (dd, fio with sizes)."""
        return any(isinstance(s.params.get("block_size"), int) for r in self.runs for s in r.steps)

    def _fill_metric_choices(self) -> None:
        """The runs' headline metrics first, then the standard throughput set, then whatever
        else they measured; the current choice is kept when the runs have it."""
        present = list(dict.fromkeys(m.name for r in self.runs for st in r.steps for m in st.metrics))
        heads = headline_metrics(self.runs) if self.runs else ["throughput"]
        names = list(dict.fromkeys([*heads, *[m for m in METRICS if m in present], *present])) or list(METRICS)
        keep = self.metric_combo.currentText()
        self.metric_combo.blockSignals(True)
        self.metric_combo.clear()
        self.metric_combo.addItems(names)
        i = self.metric_combo.findText(keep)
        self.metric_combo.setCurrentIndex(i if i >= 0 and keep in heads + list(METRICS) else 0)
        self.metric_combo.blockSignals(False)

    @property
    def direction(self) -> str | None:
        """The direction the charts show ("write", "read"), None when runs have none."""
        return self.direction_combo.currentText() if self.direction_combo.count() else None

    def set_point_choices(self, sizes: Sequence[int], concs: Sequence[int]) -> None:
        """Fill the block size / concurrency pickers, keeping the current choice when it is
        still offered (else 1 MiB or the largest size, and single)."""
        for combo, values, fmt in ((self.block_combo, sizes, format_block_label),
                                   (self.conc_combo, concs, lambda c: f"×{c}")):
            keep = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            for v in values:
                combo.addItem(fmt(v), v)
            i = combo.findData(keep)
            if i < 0 and combo is self.block_combo:
                i = combo.findData(1 << 20) if combo.findData(1 << 20) >= 0 else combo.count() - 1
            combo.setCurrentIndex(max(i, 0))
            combo.blockSignals(False)

    def _fill_diff(self) -> None:
        t = self.diff_table
        if len(self.runs) == 1:     # one run: show its whole provenance
            diffs = [Difference(k, (v,)) for k, v in provenance_fields(self.runs[0]).items() if v]
        else:
            diffs = provenance_diff(self.runs)
        t.clear()
        t.setColumnCount(1 + len(self.runs))
        t.setHorizontalHeaderLabels(["field"] + self.labels)
        t.setRowCount(len(diffs))
        for row, d in enumerate(diffs):
            t.setItem(row, 0, _item(d.field))
            for col, value in enumerate(d.values, start=1):
                t.setItem(row, col, _item(value, value))
        if len(self.runs) < 2:
            self.diff_note.setText("One run: its provenance. Pick two or more runs to see what differs.")
        elif not diffs:
            self.diff_note.setText("Nothing recorded differs: same layout, options, versions, hosts and parameters.")
        else:
            self.diff_note.setText(f"{len(diffs)} recorded differences; the first run is the baseline.")

    def _metric_changed(self, metric: str) -> None:
        self._redraw()
        self.sig_metric_changed.emit(metric)

    def _redraw(self) -> None:
        self._fill_metrics()
        self.throughput_chart.set_runs(self.runs, self.labels, self.current_metric, self.direction)
        self.point_chart.set_runs(self.runs, self.labels, self.current_metric, self.direction)
        self._redraw_point_charts()

    def _redraw_point_charts(self) -> None:
        bs, conc = self.block_combo.currentData(), self.conc_combo.currentData()
        if bs is None:
            for chart, idle in ((self.layout_chart, "pick runs to set them side by side"),
                                (self.scaling_chart, "pick runs with concurrent steps to see how they scale")):
                chart.clear_chart()
                chart.set_empty("no block-size sweep in these runs: their figures are under By point"
                                if self.runs else idle)
            return
        self.layout_chart.set_runs(self.runs, self.labels, int(bs), int(conc or 1), self.current_metric,
                                   self.direction)
        self.scaling_chart.set_runs(self.runs, self.labels, int(bs), self.current_metric, self.direction)

    def _fill_metrics(self) -> None:
        self.comparisons = []
        if len(self.runs) >= 2:
            for k, other in enumerate(self.runs[1:], start=1):
                self.comparisons += [(k, c) for c in compare_runs(self.runs[0], other, [self.current_metric])]
        t = self.metrics_table
        base = self.labels[0] if self.labels else "baseline"
        t.setHorizontalHeaderLabels(["point", f"{base} (baseline)", "compared run", "its value", *self.METRIC_COLUMNS[4:]])
        t.setRowCount(len(self.comparisons))
        for row, (k, c) in enumerate(self.comparisons):
            change = "n/a" if math.isnan(c.ratio) else f"{c.change:+.1%}"
            cells = [describe_point(c.point), format_value(c.baseline.median, c.unit), self.labels[k],
                     format_value(c.other.median, c.unit), change, c.certainty(), f"{c.baseline.n} / {c.other.n}",
                     c.sentence(self.labels[0], self.labels[k])]
            for col, text in enumerate(cells):
                it = _item(text, text)
                if col == self.COL_CHANGE and c.significant:
                    better = (c.change > 0) == bool(c.higher_is_better)
                    it.setForeground(QColor("#1a7f37" if better else "#b42318"))
                t.setItem(row, col, it)
        self.verdict.setText(self._headline())

    def _headline(self) -> str:
        """One sentence over all sweep points: how many changed, and the typical change."""
        if len(self.runs) < 2:
            return ""
        if not self.comparisons:
            return "The runs share no measured sweep point for this metric."
        sig = [c for _, c in self.comparisons if c.significant]
        k, first = self.comparisons[0]
        ratios = sorted(c.ratio for _, c in self.comparisons if not math.isnan(c.ratio))
        typical = ratios[len(ratios) // 2] if ratios else math.nan
        if not sig:
            return (f"No clear {self.current_metric.replace('_', ' ')} difference at any of {len(self.comparisons)} points "
                    f"(typical change {typical - 1:+.1%}).")
        up = sum(1 for c in sig if c.change > 0)
        head = first.sentence(self.labels[0], self.labels[k]).split(" is ")[0]
        return (f"{head} vs {self.labels[0]}: {self.current_metric.replace('_', ' ')} changed at {len(sig)} of "
                f"{len(self.comparisons)} points\nwith confidence ({up} up, {len(sig) - up} down); "
                f"typical change {typical - 1:+.1%}.")
