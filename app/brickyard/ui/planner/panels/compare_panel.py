"""Every layout gluster would accept for the current bricks, side by side.

Rows are planned a few at a time on a zero-delay timer (a big volume has thousands of
candidate layouts), only while the table is visible, and restart when the model changes.
Double-clicking a row (or Apply) sets that layout on the volume, as one undoable edit.
Ticking rows and "Campaign with ticked layouts…" asks for a layout campaign over them
(``sig_campaign_requested``: the Campaign tab runs the same benchmarks on each).
"""

from __future__ import annotations

import time
from dataclasses import replace

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ....core import edits
from ....core.plan import PlanResult, plan_volume
from ....core.topology import Layout
from ....core.units import format_bytes, format_rate
from ...frame.session import Session

COLUMNS = ("Layout", "gluster creates", "Usable", "Usable %", "Nodes may fail (any / best)",
           "Sites may fail (any / best)", "Single write", "Single read", "Concurrent write",
           "Concurrent read", "gluster asks")
SLICE_SECONDS = 0.03


TIP_OF = {"Single write": ("write", 1), "Single read": ("read", 1), "Concurrent write": ("write", 0),
          "Concurrent read": ("read", 0)}


def _rate(v: float | None) -> str:
    return "?" if v is None else format_rate(v)


def _prediction_tip(est, direction: str, files: int) -> str:
    """What a throughput cell rests on: the label, the binding bound, the range."""
    p = est.prediction(direction, files or est.concurrency) if est is not None else None
    if p is None:
        return ""
    who = "one file" if p.concurrency == 1 else f"{p.concurrency} files at once"
    return (f"{est.label}: {direction}, {who}, large blocks\n{format_rate(p.bps)}, bound by {p.bound}: {p.why}\n"
            f"range {format_rate(p.low)} … {format_rate(p.high)} (wider where parameters are assumed)")


class _Sortable(QTableWidgetItem):
    def __init__(self, text: str, key: float | str):
        super().__init__(text)
        self.key = key
        self.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)

    def __lt__(self, other: QTableWidgetItem) -> bool:
        return self.key < getattr(other, "key", 0)


class ComparePanel(QWidget):
    sig_campaign_requested = Signal(list)
    """list[Layout]: the ticked layouts, to measure one after another on the volume's bricks."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        # the table scrolls sideways inside the dock: its columns never widen the window (at
        # 1200 px the dock was 1,414 px wide and pushed its buttons off the screen)
        self.table.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.apply = QPushButton("Apply selected layout")
        self.campaign = QPushButton("Campaign with ticked layouts…")
        self.campaign.setObjectName("compare-campaign")
        self.campaign.setToolTip("Tick layouts in the first column: a campaign provisions each on these bricks in "
                                 "turn, runs the same benchmarks and ends with a decision table")
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.campaign)
        row.addWidget(self.apply)
        box = QVBoxLayout(self)
        box.addWidget(self.table)
        box.addLayout(row)
        self.layouts: list[Layout] = []
        self._pending: list[Layout] = []
        self._total = 0
        self._stale = True
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._work)
        self.table.cellDoubleClicked.connect(lambda r, _c: self.apply_row(r))
        self.apply.clicked.connect(lambda: self.apply_row(self.table.currentRow()))
        self.campaign.clicked.connect(lambda: self.sig_campaign_requested.emit(self.ticked_layouts()))
        session.sig_model_changed.connect(self.restart)
        session.sig_topology_replaced.connect(self.restart)
        session.sig_volume_selected.connect(self.restart)
        session.sig_calibration_changed.connect(self.restart)
        self.restart()

    def restart(self, *_: object) -> None:
        """Recompute from scratch (rows appear as they are planned); while the table is
        hidden, only note that it is out of date."""
        if not self.isVisible():
            self._stale = True
            self._timer.stop()
            return
        self._stale = False
        self.table.setSortingEnabled(False)
        self.table.setRowCount(0)
        self.layouts = []
        volume = self.session.volume
        self._pending = list(self.session.candidates()) if volume else []
        self._total = len(self._pending)
        self.status.setText(f"planning {self._total} layout(s)…" if self._total else
                            ("no volume" if volume is None else "no layout is possible without bricks"))
        if self._pending and self.isVisible():
            self._timer.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.restart()
        elif self._pending:
            self._timer.start()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._timer.stop()

    def finish(self) -> None:
        """Plan every remaining row now (tests, and a window about to take a screenshot)."""
        if self._stale:
            self._stale = False
            self._timer.stop()
            self.table.setSortingEnabled(False)
            self.table.setRowCount(0)
            self.layouts = []
            self._pending = list(self.session.candidates())
            self._total = len(self._pending)
        while self._pending:
            self._work(budget=1e9)

    def _work(self, budget: float = SLICE_SECONDS) -> None:
        volume = self.session.volume
        if volume is None:
            self._pending = []
        start = time.perf_counter()
        while self._pending and time.perf_counter() - start < budget:
            layout = self._pending.pop(0)
            # a layout without thin-arbiter leaves the volume's thin-arbiter brick out
            ta = volume.thin_arbiter_brick if layout.thin_arbiter else None
            self._add_row(layout, plan_volume(self.session.topo, replace(volume, layout=layout, thin_arbiter_brick=ta),
                                              model=self.session.model(), question=self.session.question))
        if not self._pending:
            self._timer.stop()
            self.table.setSortingEnabled(True)
            self.table.sortItems(0, Qt.SortOrder.AscendingOrder)  # simplest layout first
            self.table.resizeColumnsToContents()
            self._select_current()
            model = self.session.model()
            what = (model.label if model is not None else "estimate (uncalibrated)")
            self.status.setText(f"{self.table.rowCount()} layout(s) gluster accepts for {len(volume.bricks) if volume else 0} "
                                f"bricks in this order. Throughput: {what}, not measured; hover a figure for its "
                                "bound and range. Double-click a row to use it.")
        else:
            self.status.setText(f"planned {self._total - len(self._pending)} of {self._total} layouts…")

    def _add_row(self, layout: Layout, plan: PlanResult) -> None:
        if plan.refused:  # gluster refuses it on these bricks: not a layout to offer
            return
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.layouts.append(layout)
        cap, tol, est = plan.capacity, plan.tolerance, plan.estimate
        tips = {d_n: _prediction_tip(est, *d_n) for d_n in (("write", 1), ("read", 1), ("write", 0), ("read", 0))}
        sites = "—" if tol.sites_worst is None else f"{tol.sites_worst} / {tol.sites_best}"
        asks = "; ".join(sorted({f.severity for f in plan.findings})) or "nothing"
        cells = [
            (edits.describe_layout(layout), row),
            (plan.gluster_type.value, plan.gluster_type.value),
            (format_bytes(cap.usable_bytes, digits=1), cap.usable_bytes),
            (f"{cap.efficiency:.0%}", cap.efficiency),
            (f"{tol.nodes_worst} / {tol.nodes_best}", (tol.nodes_worst, tol.nodes_best)),
            (sites, (tol.sites_worst or -1, tol.sites_best or -1)),
            (_rate(est.single_write_bps), est.single_write_bps or 0),
            (_rate(est.single_read_bps), est.single_read_bps or 0),
            (_rate(est.concurrent_write_bps), est.concurrent_write_bps or 0),
            (_rate(est.concurrent_read_bps), est.concurrent_read_bps or 0),
            (asks, asks),
        ]
        for col, (text, key) in enumerate(cells):
            item = _Sortable(text, key)
            item.setData(Qt.ItemDataRole.UserRole, len(self.layouts) - 1)
            if col == 0:
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Unchecked)
            if col == len(cells) - 1 and plan.findings:
                item.setToolTip("\n".join(f.message for f in plan.findings))
            elif COLUMNS[col] in TIP_OF:
                item.setToolTip(tips[TIP_OF[COLUMNS[col]]])
            self.table.setItem(row, col, item)

    def _select_current(self) -> None:
        """Select the row of the volume's own layout, so the table shows where it stands."""
        volume = self.session.volume
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if volume is not None and self.layouts[item.data(Qt.ItemDataRole.UserRole)] == volume.layout:
                self.table.selectRow(row)
                self.table.scrollToItem(item)
                return

    def ticked_layouts(self) -> list[Layout]:
        """The layouts ticked in the first column, in the table's order."""
        out = []
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None and item.checkState() == Qt.CheckState.Checked:
                out.append(self.layouts[item.data(Qt.ItemDataRole.UserRole)])
        return out

    def apply_row(self, row: int) -> None:
        volume = self.session.volume
        item = self.table.item(row, 0) if row >= 0 else None
        if volume is None or item is None:
            return
        layout = self.layouts[item.data(Qt.ItemDataRole.UserRole)]
        if layout != volume.layout:
            self.session.push(edits.SetVolumeLayout(volume.name, layout))
