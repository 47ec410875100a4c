"""What the Run view shows while a run goes on and after it ends: the state line (step N of
M, elapsed, time remaining, then the end state in words and colour), the live charts, one row
per measured step (its result, start skew and flags, each flag explained in its tooltip) and
the live log."""

from __future__ import annotations

import math
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFontDatabase
from PySide6.QtWidgets import (QHeaderView, QLabel, QPlainTextEdit, QProgressBar, QSizePolicy, QSplitter,
                               QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from ...bench.context import FLAG_MEANINGS
from ...bench.request import RunOutcome
from ...core.compare import describe_point, point_of
from ...core.results import StepResult, host_starts_text
from ...core.units import format_rate
from .charts import LiveRateChart, RunChart

STATE_COLOURS = {"idle": "#455a64", "running": "#1565c0", "complete": "#1b5e20", "partial": "#e65100",
                 "stalled": "#b71c1c", "cancelled": "#616161", "failed": "#b00020"}
COLUMNS = ("run", "#", "step", "repeat", "result", "start skew p99", "flags", "note")
INVALID_FILL = "#fff3e0"
FLUSH_MS = 150       # steps landing within this are drawn in one go (the chart redraw is the cost)


def clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60:02d}:{rest % 60:02d}"


def show_metric(step: StepResult, metric: str) -> str:
    m = step.metric(metric)
    if m is None or math.isnan(m.value):
        return ""
    if m.unit == "B/s":
        return format_rate(m.value)
    return f"{m.value:,.4g} {m.unit}"


def show_skew(step: StepResult) -> str:
    if len(step.workers) < 2 or "p99" not in step.start_skew:
        return "—"
    sure = step.start_skew.get("uncertainty")
    return f"{step.start_skew['p99'] * 1000:.2f} ms" + (f" ±{sure * 1000:.2f}" if sure is not None else "")


class ElidedLabel(QLabel):
    """One line that never changes the layout: its height is fixed, a text too long for it
    ends in "…" (the whole text in the tooltip), and ``text()`` gives the whole text."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(self.fontMetrics().height() + 2)
        self.setText(text)

    def text(self) -> str:  # noqa: D102 - the whole text, not the elided one shown
        return self._full

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        if text == self._full:
            return
        self._full = text
        self.setToolTip(text if text else "")
        self._elide()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(0, self.width() - 2))
        if shown != super().text():
            super().setText(shown)


class LivePanel(QWidget):
    """The right side of the Run view."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = QLabel("Pick targets and a workload, then Start.")
        self.state.setObjectName("run-state")
        self.state.setWordWrap(True)
        self.state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.where = ElidedLabel()
        self.where.setObjectName("run-where")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        keep = self.bar.sizePolicy()
        keep.setRetainSizeWhenHidden(True)      # showing it at Start must not shrink the charts (a relayout)
        self.bar.setSizePolicy(keep)
        self.bar.hide()
        self.chart = RunChart()
        self.rate = LiveRateChart()
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("run-steps")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)  # fixed widths: a row costs the same at 10 or 1,000
        for col, width in enumerate((170, 40, 190, 56, 150, 110, 170)):
            self.table.setColumnWidth(col, width)
        self._pending: list[tuple[str, StepResult]] = []
        self._rows_pending: list[tuple[str, StepResult]] = []     # drawn, their table rows next
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_MS)
        self._flush_timer.timeout.connect(self._flush_streaming)
        self.log = QPlainTextEdit()
        self.log.setObjectName("run-log")
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(5000)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log.setPlaceholderText("The log of a run appears here.")

        self.lower = QTabWidget()
        self.lower.setDocumentMode(True)
        self.lower.addTab(self.table, "Steps")
        self.lower.addTab(self.log, "Log")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.chart)
        split.addWidget(self.rate)
        split.addWidget(self.lower)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 2)
        split.setStretchFactor(2, 3)
        split.setSizes([500, 170, 280])
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.state)
        box.addWidget(self.where)
        box.addWidget(self.bar)
        box.addWidget(split, 1)
        self.set_state("idle", self.state.text())

    # ---- state ------------------------------------------------------------------------
    def set_state(self, kind: str, text: str) -> None:
        if text != self.state.text():
            self.state.setText(text)
        if kind != getattr(self, "state_kind", None):    # a style sheet change re-polishes: only on a change
            colour = STATE_COLOURS.get(kind, "#222")
            self.state.setStyleSheet(f"font-size: 13pt; font-weight: bold; color: {colour};")
        self.state_kind = kind

    def show_outcome(self, outcome: RunOutcome, label: str) -> None:
        self.set_state(outcome.kind, f"{label}: {outcome.text}")

    def show_progress(self, run_no: int, runs: int, step: int, steps: int, fraction: float, elapsed: float,
                      doing: str) -> None:
        """'run 1 of 2 · step 3 of 12 · 00:14 elapsed · about 00:40 left' and what it does now."""
        remaining = elapsed / fraction * (1 - fraction) if fraction > 0.02 else math.nan
        left = f"about {clock(remaining)} left" if not math.isnan(remaining) else "time left: after the first step"
        head = f"run {run_no} of {runs} · " if runs > 1 else ""
        self.set_state("running", f"{head}step {min(step + 1, steps)} of {steps} · {clock(elapsed)} elapsed · {left}")
        if doing != self.where.text():
            self.where.setText(doing)
        self.bar.show()
        if int(fraction * 1000) != self.bar.value():
            self.bar.setValue(int(fraction * 1000))

    def idle(self) -> None:
        self.bar.hide()
        self.where.setText("")

    # ---- steps ------------------------------------------------------------------------
    def clear(self) -> None:
        self._pending.clear()
        self._rows_pending.clear()
        self.table.setRowCount(0)
        self.chart.reset()
        self.rate.reset()

    def begin_run(self, label: str) -> None:
        self.flush()
        self.chart.begin(label)
        self.rate.reset()

    def add_step(self, run_label: str, step: StepResult) -> None:
        """Show a measured step; steps that land close together are drawn together (``flush``)."""
        self._pending.append((run_label, step))
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def flush(self) -> None:
        """Draw the steps that arrived since the last flush: one chart redraw, then their rows."""
        self._draw_pending()
        self._add_rows()

    def _flush_streaming(self) -> None:
        """``flush`` while steps stream in: the rows in an event of their own, so the window
        answers between the chart's redraw and the table's."""
        if self._draw_pending():
            QTimer.singleShot(0, self, self._add_rows)

    def _draw_pending(self) -> bool:
        self._flush_timer.stop()
        pending, self._pending = self._pending, []
        if not pending:
            return False
        for _, step in pending:
            self.chart.add_step(step, redraw=False)
        self.chart.redraw()
        self._rows_pending += pending
        return True

    def _add_rows(self) -> None:
        pending, self._rows_pending = self._rows_pending, []
        if not pending:
            return
        self.table.setUpdatesEnabled(False)
        for run_label, step in pending:
            self._add_row(run_label, step)
        self.table.setUpdatesEnabled(True)
        self.table.scrollToBottom()

    def _add_row(self, run_label: str, step: StepResult) -> None:
        metric = self.chart.metric
        flags = ", ".join(step.flags)
        row = self.table.rowCount()
        self.table.insertRow(row)
        cells = (run_label, str(step.index + 1), describe_point(point_of(step)), str(step.repeat + 1),
                 show_metric(step, metric), show_skew(step), flags, step.note)
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if col == 6 and step.flags:
                item.setToolTip("\n".join(f"{f}: {FLAG_MEANINGS.get(f, 'see the note')}" for f in step.flags))
                item.setForeground(QBrush(QColor("#b00020")))
            elif col == 5 and step.start_skew:
                hosts = host_starts_text(step.start_skew)
                item.setToolTip(f"start skew of {len(step.workers)} workers: p50 {step.start_skew.get('p50', 0) * 1000:.3f} ms, "
                                f"p99 {step.start_skew.get('p99', 0) * 1000:.3f} ms, max {step.start_skew.get('max', 0) * 1000:.3f} ms"
                                + (f"\nby host (start after the first ± clock uncertainty): {hosts}" if hosts else ""))
            elif col == 7 and step.note:
                item.setToolTip(step.note)
            if not step.valid:
                item.setBackground(QBrush(QColor(INVALID_FILL)))
            self.table.setItem(row, col, item)
        if not step.valid:
            self.table.item(row, 4).setText((self.table.item(row, 4).text() + " (invalid)").strip())

    def add_log(self, line: str) -> None:
        self.log.appendPlainText(f"{time.strftime('%H:%M:%S')}  {line}")
        bar = self.log.verticalScrollBar()
        bar.setValue(bar.maximum())
