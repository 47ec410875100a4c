"""History's Model check tab: the runs shown in Compare, each measured point beside what the
throughput model predicted for it and the error.

Each layout among the runs is predicted by the model calibrated on the *other* layouts' runs
(``core.modelcheck.leave_one_out``) plus any probe run among them, so no figure is checked
against itself; with runs of one layout only and no probe, the prediction is the uncalibrated
estimate and says so. The rows are
``core.modelcheck.check_rows`` — the same rows ``benchmarks/model_check.py`` prints.
"""

from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from brickyard.core.decision_runs import entries_from_runs
from brickyard.core.modelcheck import TOLERANCE, CheckRow, check_rows, leave_one_out
from brickyard.core.modelinputs import split_probe_runs
from brickyard.core.results import RunResult
from brickyard.core.units import format_block_label, format_block_size, format_rate

HEAD = ("layout", "direction", "files", "block", "measured (median)", "predicted", "error", "range", "bound",
        "model")
LARGE = 1 << 20       # small blocks measure call overheads more than the layout: from 1 MiB up


class ModelCheckPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel("Compare runs of several layouts: each is then predicted from the others.")
        self.summary.setWordWrap(True)
        self.summary.setObjectName("model-check-summary")
        self.table = QTableWidget(0, len(HEAD))
        self.table.setObjectName("model-check-table")
        self.table.setHorizontalHeaderLabels(HEAD)
        self.table.verticalHeader().hide()
        self.table.setSortingEnabled(False)
        self.table.setWordWrap(False)      # the model's label is long: one line, scrolled to
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        box = QVBoxLayout(self)
        box.addWidget(self.summary)
        box.addWidget(self.table, 1)
        self.rows: list[CheckRow] = []
        self.probe_problems: list[str] = []

    def show_runs(self, runs: Sequence[RunResult], topology_for: Callable) -> list[CheckRow]:
        others, probes, extra, self.probe_problems = split_probe_runs(runs, topology_for)
        entries = entries_from_runs(others, topology_for)   # a probe run among them calibrates every prediction
        models = leave_one_out(entries, extra)
        self.rows = check_rows(entries, models, min_block=LARGE)
        self.table.setRowCount(len(self.rows))
        for i, r in enumerate(self.rows):
            cells = [r.layout, r.direction, str(r.concurrency), format_block_size(r.block_size) if r.block_size else "large",
                     f"{format_rate(r.measured)} (n={r.repeats})", format_rate(r.predicted), f"{r.error * 100:+.0f} %",
                     f"{format_rate(r.low)} … {format_rate(r.high)}", r.bound, r.model]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
                if col in (4, 5, 6):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if col == 6 and abs(r.error) > TOLERANCE:
                    item.setForeground(QBrush(QColor("#b71c1c")))
                if col == 8:
                    item.setToolTip(r.why)
                self.table.setItem(i, col, item)
        layouts = {e.key for e in entries if e.plan is not None and e.runs}
        tested = [r for r in self.rows if "calibrated" in r.model and not r.fitted_on_it]
        if not self.rows:
            self.summary.setText("No measured point of a gluster layout among these runs (baselines and probe runs "
                                 "have nothing to predict).")
        elif len(layouts) < 2 and extra.empty:
            self.summary.setText("Runs of one layout only: its figures are the uncalibrated estimate. Compare runs "
                                 "of several layouts to predict each from the others.")
        else:
            within = sum(abs(r.error) <= TOLERANCE for r in tested)
            also = f" and probe run {', '.join(r.run_id[:12] for r in probes)}" if not extra.empty else ""
            self.summary.setText(f"Each of {len(layouts)} layout(s) predicted from the other layouts' runs{also}: "
                                 f"{within} of {len(tested)} figures ({format_block_label(LARGE)} blocks and more) within "
                                 f"{TOLERANCE:.0%}. Red: further off."
                                 + "".join(f" {p}." for p in self.probe_problems))
        return self.rows
