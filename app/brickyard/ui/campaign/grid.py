"""The campaign's grid: one row per layout (and per baseline), one column per step kind and
workload — pre-flight, provision, each workload's cell, teardown — each cell coloured by its
step's state (pending, running, done, failed with its reason, skipped) as events arrive."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from ...campaign.spec import CampaignSpec
from ...campaign.state import (BASELINE, CELL, DONE, FAILED, PENDING, PREFLIGHT, PROVISION, RUNNING, SKIPPED,
                               TEARDOWN, CampaignState, CampaignStep, campaign_steps)
from ...core.decision import plan_label
from ...core.plan import plan_volume
from ...core.results import StepResult
from ...core.series import directions, sweep_by_block_size
from ...core.units import format_block_size, format_rate

WORDS = {PENDING: "pending", RUNNING: "running…", DONE: "done", FAILED: "FAILED", SKIPPED: "skipped"}
COLOURS = {PENDING: ("#607d8b", "#f5f5f5"), RUNNING: ("#1565c0", "#e3f2fd"), DONE: ("#2e7d32", "#e8f5e9"),
           FAILED: ("#c62828", "#ffebee"), SKIPPED: ("#8a6d00", "#fff8e1")}
STEP_COLUMNS = {PREFLIGHT: "pre-flight", PROVISION: "provision", TEARDOWN: "teardown"}


def cell_headline(steps: list[StepResult]) -> str:
    """What a finished cell measured, in a few words: its headline at the largest block size and
    concurrency of the first direction ('write 4M ×8: 412.0 MB/s'), or ''."""
    from ..run.charts import _run, headline_metric

    if not steps:
        return ""
    metric = headline_metric(steps)
    run = _run(list(steps))
    direction = (directions(run) or [""])[0]
    sweep = sweep_by_block_size(run, metric, direction)
    if not sweep:
        return ""
    conc = max(sweep)
    point = sweep[conc][-1]
    unit = next((m.unit for s in steps for m in s.metrics if m.name == metric), "")
    value = format_rate(point.median) if unit == "B/s" else f"{point.median:,.4g} {unit}"
    return f"{direction} {format_block_size(int(point.x))} ×{conc}: {value}".strip()


class CampaignGrid(QTableWidget):
    """Rows: baselines then layouts; columns: pre-flight, provision, workloads…, teardown."""

    def __init__(self, parent=None):
        super().__init__(0, 0, parent)
        self.setObjectName("campaign-grid")
        self.verticalHeader().setDefaultSectionSize(40)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        # two lines a cell at most (what it is, then its figure or reason), cut with "…" where the
        # column is narrow and whole in the tooltip: a failure's reason wrapped over four lines
        # made rows too tall for the grid to show them all beside the decision table at 1280×720
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.cells: dict[str, QTableWidgetItem] = {}     # step key → its cell
        self.steps: list[CampaignStep] = []

    def set_campaign(self, spec: CampaignSpec, state: CampaignState | None = None) -> None:
        self.clear()
        self.cells.clear()
        self.steps = campaign_steps(spec)
        rows = [b.id for b in spec.baselines] + [v.name for v in spec.layouts]
        labels = {b.id: b.label or b.target for b in spec.baselines}
        for vol in spec.layouts:
            try:
                labels[vol.name] = f"{vol.name}\n{plan_label(plan_volume(spec.topology_for(vol.name), vol))}"
            except ValueError:
                labels[vol.name] = vol.name
        columns = [STEP_COLUMNS[PREFLIGHT], STEP_COLUMNS[PROVISION], *[w.id for w in spec.workloads],
                   STEP_COLUMNS[TEARDOWN]]
        self.setRowCount(len(rows))
        self.setColumnCount(len(columns))
        self.setHorizontalHeaderLabels(columns)
        self.setVerticalHeaderLabels([labels[r] for r in rows])
        for s in self.steps:
            col = columns.index(s.workload if s.kind in (CELL, BASELINE) else STEP_COLUMNS[s.kind])
            item = QTableWidgetItem()
            item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            self.setItem(rows.index(s.layout), col, item)
            self.cells[s.key] = item
        for r, row in enumerate(rows):          # a baseline has no volume: nothing to provision
            for c in range(len(columns)):
                if self.item(r, c) is None:
                    blank = QTableWidgetItem("—")
                    blank.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    blank.setForeground(QBrush(QColor("#bdbdbd")))
                    blank.setToolTip("a baseline is measured once, on its own path: no volume to set up")
                    self.setItem(r, c, blank)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for s in self.steps:
            st = state.step(s.key) if state is not None else None
            self.show_step(s.key, st.status if st else PENDING, st.message if st else "", st.run_id if st else "")

    def show_step(self, key: str, status: str, message: str = "", run_id: str = "", headline: str = "") -> None:
        item = self.cells.get(key)
        if item is None:
            return
        step = next(s for s in self.steps if s.key == key)
        text = WORDS.get(status, status)
        if status == DONE and headline:
            what, _, value = headline.rpartition(": ")   # the figure first: a narrow column cuts the end
            text = f"done: {value}\n{what}" if what else f"done\n{headline}"
        elif status in (FAILED, SKIPPED) and message:
            text = f"{text}\n{message.splitlines()[0]}"
        item.setText(text)
        item.setData(Qt.ItemDataRole.UserRole, status)
        fg, bg = COLOURS.get(status, ("#222", "#fff"))
        item.setForeground(QBrush(QColor(fg)))
        item.setBackground(QBrush(QColor(bg)))
        tip = [step.title, f"status: {status}" + (f" — {headline}" if status == DONE and headline else "")]
        if message:
            tip.append(message)
        if run_id:
            tip.append(f"run {run_id[:12]} (in History)")
        item.setToolTip("\n".join(tip))

    def rows_height(self) -> int:
        """The height that shows the header and every row whole, as the rows are now (a failed
        cell's reason wraps over lines and makes its row taller than a pending one)."""
        self.resizeRowsToContents()
        height = 2 * self.frameWidth() + self.horizontalHeader().height()
        height += sum(self.rowHeight(r) for r in range(self.rowCount()))
        if self.horizontalScrollBar().isVisible():
            height += self.horizontalScrollBar().height()
        return height

    def status_of(self, key: str) -> str:
        item = self.cells.get(key)
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else ""
