"""Cluster ▸ Calibrate throughput model…: choose what the planner's throughput figures are
calibrated on — stored runs (a ``probe`` run of the hardware, dd/fio runs of a layout) and
calibration files — and see what the fit made of them.

The sources are read by ``store.calibrate.load_inputs`` (the same reader as ``brickyard plan
--calibrate``); the session fits the model and every planner view shows "predicted (calibrated
on …)" instead of "estimate (uncalibrated)". A source that cannot calibrate is refused here
with the reason, and the calibration stays as it was.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QFileDialog, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QListWidget, QPushButton, QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout)

from ...core.calibration import describe_sources
from ...core.estimate import Question
from ...core.units import UnitError, format_block_size, format_rate, format_utc, parse_block_size
from ...store.calibrate import CalibrationSourceError, load_inputs
from ..frame.session import Session
from ..widgets.make import STRETCH, button, hbox, wrapped_label

#: workloads whose steps name direction, file count and block size (or probe the hardware), and
#: the small-file ones the latency model is calibrated on
USABLE_WORKLOADS = ("probe", "dd", "fio", "smallfile", "metadata")
HEAD = ("", "started (UTC)", "run", "workload", "volume", "layout", "steps")


class CalibrateDialog(QDialog):
    def __init__(self, session: Session, store, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Calibrate throughput model")
        self.setObjectName("calibrate-dialog")
        self.session, self.store = session, store
        intro = QLabel("Tick stored runs to calibrate the planner's throughput model on: a <b>probe</b> run "
                       "(<code>brickyard probe</code>: brick filesystems and TCP, before provisioning) and runs "
                       "of a layout (dd, fio). Add calibration files for figures from elsewhere. Each layout is "
                       "then <i>predicted</i> from them; what nothing measured stays a labelled assumption. "
                       "<b>smallfile</b> and <b>metadata</b> runs calibrate the small-file figures (extract, "
                       "uncached lstat): their local cost, and the round trips where runs at two RTTs show them.")
        intro.setWordWrap(True)
        self.runs = QTableWidget(0, len(HEAD))
        self.runs.setObjectName("calibrate-runs")
        self.runs.setHorizontalHeaderLabels(HEAD)
        self.runs.verticalHeader().hide()
        self.runs.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.runs.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.runs.horizontalHeader().setStretchLastSection(True)
        self.files = QListWidget()
        self.files.setObjectName("calibrate-files")
        self.files.setMaximumHeight(70)
        add = QPushButton("Add calibration file…")
        remove = QPushButton("Remove file")
        add.clicked.connect(self.add_file_dialog)
        remove.clicked.connect(lambda: [self.files.takeItem(self.files.row(i)) for i in self.files.selectedItems()])
        self.result = wrapped_label("", "calibrate-result", selectable=True)
        # the question the figures answer (as brickyard plan --concurrency N --block-size B)
        self.files_at_once = QSpinBox()
        self.files_at_once.setObjectName("calibrate-concurrency")
        self.files_at_once.setRange(1, 4096)
        self.files_at_once.setValue(session.question.concurrency)
        self.files_at_once.setToolTip("The 'concurrent' figures: this many files written or read at once "
                                      "(brickyard plan --concurrency)")
        self.block_sizes = QLineEdit(",".join(format_block_size(b) for b in session.question.block_sizes))
        self.block_sizes.setObjectName("calibrate-block-sizes")
        self.block_sizes.setToolTip("Block sizes to predict at, comma-separated: 4K, 64K, 1M, 4M … "
                                    "(brickyard plan --block-size)")
        self.ask = button("Predict at these", "calibrate-ask")
        self.ask.clicked.connect(self.apply_question)
        self.calibrate = QPushButton("Calibrate")
        self.calibrate.setDefault(True)
        self.clear = QPushButton("Clear calibration")
        # the remedy the calibration's warnings name: its layout again, between the others
        self.interleave = button("Repeat interleaved…", "calibrate-interleave", "Write the campaign the ticked runs "
                                 "came from again, with their layout run three times between the others (brickyard "
                                 "campaign FILE --interleave LAYOUT): what a calibration that spreads or misses its "
                                 "own figures asks for")
        self.interleave.clicked.connect(self.interleave_dialog)
        close = QPushButton("Close")
        self.calibrate.clicked.connect(self.apply)
        self.clear.clicked.connect(self.clear_calibration)
        close.clicked.connect(self.accept)
        files_row = QHBoxLayout()
        files_row.addWidget(self.files, 1)
        side = QVBoxLayout()
        side.addWidget(add)
        side.addWidget(remove)
        side.addStretch(1)
        files_row.addLayout(side)
        buttons = hbox(self.clear, self.interleave, STRETCH, self.calibrate, close)
        box = QVBoxLayout(self)
        box.addWidget(intro)
        box.addWidget(self.runs, 1)
        box.addWidget(QLabel("Calibration files:"))
        box.addLayout(files_row)
        question = QHBoxLayout()
        question.addWidget(QLabel("Files at once:"))
        question.addWidget(self.files_at_once)
        question.addWidget(QLabel("Block sizes:"))
        question.addWidget(self.block_sizes, 1)
        question.addWidget(self.ask)
        box.addLayout(question)
        box.addWidget(self.result)
        box.addLayout(buttons)
        self.resize(900, 560)
        self.fill_runs()
        self.show_model()

    def fill_runs(self) -> None:
        summaries = [s for s in self.store.list_runs() if s.workload in USABLE_WORKLOADS and s.step_count]
        ticked = {s for s in self.session.calibration.sources}
        self.runs.setRowCount(len(summaries))
        for row, s in enumerate(summaries):
            cells = ["", format_utc(s.started_at), s.run_id[:12], s.workload, s.volume or s.target, s.layout,
                     str(s.step_count)]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
                if col == 0:
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    was = any(s.run_id[:12] in src for src in ticked)
                    item.setCheckState(Qt.CheckState.Checked if was else Qt.CheckState.Unchecked)
                    item.setData(Qt.ItemDataRole.UserRole, s.run_id)
                self.runs.setItem(row, col, item)

    def add_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Calibration file", "", "Calibration files (*.json);;All files (*)")
        if path:
            self.add_file(path)

    def add_file(self, path: str) -> None:
        self.files.addItem(path)

    def ticked_runs(self) -> list[str]:
        out = []
        for row in range(self.runs.rowCount()):
            item = self.runs.item(row, 0)
            if item is not None and item.checkState() == Qt.CheckState.Checked:
                out.append(item.data(Qt.ItemDataRole.UserRole))
        return out

    def specs(self) -> list[str]:
        return self.ticked_runs() + [self.files.item(i).text() for i in range(self.files.count())]

    def apply(self) -> bool:
        """Calibrate on what is ticked and listed; False (and the reason shown) when a source
        cannot calibrate."""
        specs = self.specs()
        if not specs:
            self._error("Tick a run or add a calibration file first (or Clear calibration).")
            return False
        volume = self.session.volume
        bricks = volume.bricks if volume is not None else []
        try:
            inputs = load_inputs(specs, self.session.topo, bricks, store=self.store)
        except CalibrationSourceError as exc:
            self._error(str(exc))
            return False
        self.session.set_calibration(inputs)
        self.show_model()
        return True

    def apply_question(self) -> bool:
        """Predict at the files-at-once count and block sizes typed; False (and why) when
        they cannot be read."""
        try:
            blocks = tuple(parse_block_size(p.strip()) for p in self.block_sizes.text().split(",") if p.strip())
            question = Question(self.files_at_once.value(), blocks)
        except (UnitError, ValueError) as exc:
            self._error(f"Block sizes: {exc}")
            return False
        self.session.set_question(question)
        self.block_sizes.setText(",".join(format_block_size(b) for b in question.block_sizes))
        self.show_model()
        return True

    def clear_calibration(self) -> None:
        from ...core.calibration import Inputs

        self.session.set_calibration(Inputs())
        for row in range(self.runs.rowCount()):
            self.runs.item(row, 0).setCheckState(Qt.CheckState.Unchecked)
        self.files.clear()
        self.show_model()

    def calibration_campaign(self) -> tuple[Any, str] | None:
        """(the stored campaign, the layout) the ticked runs measured: the first ticked run a
        campaign measured, its layout without an interleaved copy's suffix (dt8-2: dt8)."""
        for run_id in self.ticked_runs():
            found = self.store.campaigns.of_run(run_id)
            if found is None:
                continue
            campaign_id, cell = found
            parts = cell.split(":")
            if len(parts) < 2 or parts[0] != "cell":
                continue
            layout = parts[1]
            record = self.store.campaigns.get(campaign_id)
            names = [lay.get("name") for lay in record.spec.get("layouts", []) if isinstance(lay, dict)]
            base, _, k = layout.rpartition("-")
            return record, base if k.isdigit() and base in names else layout
        return None

    def interleave_dialog(self) -> bool:
        """Write the ticked runs' campaign with their layout interleaved (a file chosen here);
        False (and why) when the ticked runs came from no campaign or nothing was written."""
        from ...campaign.specwrite import write_interleaved
        from ...core.atomicfile import write_error_words

        found = self.calibration_campaign()
        if found is None:
            self._error("Repeat interleaved: tick runs a campaign measured (brickyard campaign, or the Campaign tab): "
                        "the repeat is that campaign with the calibration layout again between its other layouts.")
            return False
        record, layout = found
        path, _ = QFileDialog.getSaveFileName(self, f"Campaign with {layout} interleaved",
                                              f"{layout}-interleaved.campaign.json", "Campaign files (*.campaign.json)")
        if not path:
            return False
        try:
            topo_path = write_interleaved(record.spec, record.topology, layout, path)
        except ValueError as exc:
            self._error(f"Repeat interleaved: {exc}")
            return False
        except OSError as exc:
            self._error(f"Repeat interleaved: {write_error_words(path, exc)}")
            return False
        self.result.setText("<span>" + html.escape(
            f"Wrote {path} (and its topology {topo_path.name}): campaign {record.name or record.campaign_id[:12]} with "
            f"{layout} three times, between its other layouts. Run it in the Campaign tab or with "
            f"brickyard campaign {path} --yes, then tick all of {layout}'s runs here and Calibrate.") + "</span>")
        return True

    def _error(self, text: str) -> None:
        self.result.setText(f"<span style='color:#b71c1c'>{html.escape(text)}</span>")

    def _figures(self) -> list[str]:
        """The current volume's figures at the asked block sizes."""
        plan = self.session.plan
        est = getattr(plan, "estimate", None)
        if est is None:
            return []
        out = []
        for block, preds in est.per_block_size():
            parts = [f"{p.direction} {'1 file' if p.concurrency == 1 else f'{p.concurrency} files'} "
                     f"{format_rate(p.bps)} ({format_rate(p.low)} … {format_rate(p.high)})" for p in preds]
            out.append(html.escape(f"{plan.volume.name} at {format_block_size(block)}: " + ", ".join(parts)))
        return out

    def show_model(self) -> None:
        model = self.session.model()
        if model is None:
            self.result.setText("<br>".join(["The planner's figures are <b>estimates (uncalibrated)</b>: topology "
                                             "speeds and labelled assumptions.", *self._figures()]))
            return
        lines = [f"<b>{html.escape(model.label)}</b>",
                 *(f"<span style='color:#b71c1c'>warning: {html.escape(w)}</span>" for w in model.warnings),
                 *self._figures(), html.escape(describe_sources(model))]
        for r in model.residuals[:8]:
            lines.append(html.escape(f"fit: {r.describe()}"))
        if len(model.residuals) > 8:
            lines.append(f"… and {len(model.residuals) - 8} more figures")
        lines += [html.escape(f"note: {n}") for n in model.notes]
        lines += self._small_files(model)
        self.result.setText("<br>".join(lines))

    @staticmethod
    def _small_files(model) -> list[str]:
        """What the small-file runs ticked made of the latency model, per layout kind."""
        if model.latency is None:
            return []
        lines = [f"<b>small files calibrated on {html.escape(', '.join(model.latency_sources))}</b>"]
        for (kind, op), cost in sorted(model.latency.costs.items()):
            if cost.source != "assumed" or "measured" in cost.note:
                lines.append(html.escape(f"{op} on {kind}: {cost.local_ms:.3g} ms + {cost.round_trips:.3g} round "
                                         f"trips × RTT ({cost.source}): {cost.note}"))
        return lines
