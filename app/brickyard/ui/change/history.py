"""The change history: every change to a live volume the history database keeps.

The list (newest first): when, which volume, what (expand, shrink, replace…), its status and
its predicted and measured time. The change picked below it: what was done (before → after,
the bricks added, retired, replaced), each step with its prediction and how long it took
(measured ÷ predicted), what gluster counted while data moved, and every command the change
ran with gluster's whole answer. File ▸ Export PDF… (or the button here) writes its change
record; Resume sends an unfinished change back to the Change tab.

It reads ``store.changes`` (``store/changes.py``) and words everything as
``core.changewords`` does, like the Change tab and the PDF.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QLabel, QListWidget, QListWidgetItem, QPlainTextEdit,
                               QPushButton, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from ...core import changewords as cw
from ...core.units import format_utc
from ..widgets.make import button, hbox, splitter, vstack, wrapped_label

LIST_COLUMNS = ("started (UTC)", "volume", "what", "status", "predicted", "took", "change")
STEP_COLUMNS = ("#", "step", "host", "status", "predicted", "took", "÷", "started (UTC)", "what it read back")
STATUS_COLOURS = {"complete": "#1b5e20", "failed": "#b42318", "interrupted": "#b42318", "running": "#1f6feb",
                  "cancelled": "#9a6700", "rolled-back": "#9a6700", "done": "#1b5e20", "skipped": "#00695c"}
UNFINISHED = ("new", "running", "interrupted", "failed")


class ChangeHistoryView(QWidget):
    sig_status = Signal(str)
    sig_resume = Signal(str)
    """A change id to go on with in the Change tab."""
    sig_export = Signal()
    """Export the selected change's record (the window's File ▸ Export PDF…)."""

    def __init__(self, store: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.records: list[Any] = []
        self.table = QTableWidget(0, len(LIST_COLUMNS))
        self.table.setObjectName("changes")
        self.table.setHorizontalHeaderLabels(list(LIST_COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.count = QLabel()
        self.export_button = button("Export change record…", "change-export",
                                    "The PDF (or HTML) record of the selected change, for the change log")
        self.resume_button = button("Resume in the Change tab", "change-history-resume")
        self.reload_button = QPushButton("Reload")
        buttons = hbox((self.count, 1), self.reload_button, self.resume_button, self.export_button)

        self.head = wrapped_label("", "change-record", selectable=True)
        self.head.setTextFormat(Qt.TextFormat.RichText)
        self.head.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.steps = QTableWidget(0, len(STEP_COLUMNS))
        self.steps.setObjectName("change-record-steps")
        self.steps.setHorizontalHeaderLabels(list(STEP_COLUMNS))
        self.steps.verticalHeader().setVisible(False)
        self.steps.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.steps.setWordWrap(True)
        header = self.steps.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.steps.setColumnWidth(1, 240)
        self.commands = QListWidget()
        self.commands.setObjectName("change-record-commands")
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.output.setPlaceholderText("Pick a command to see what gluster answered.")
        kept = splitter(Qt.Orientation.Vertical, self.commands, self.output)
        self.detail = QTabWidget()
        self.detail.addTab(self.steps, "Steps: predicted and measured")
        self.detail.addTab(kept, "Commands and gluster's answers")
        right = splitter(Qt.Orientation.Vertical, (self.head, 2), (self.detail, 3))
        # the list needs its first columns; the record needs the room
        split = splitter(Qt.Orientation.Horizontal, (vstack((self.table, 1), buttons), 1), (right, 3),
                         sizes=(400, 1200))
        box = QVBoxLayout(self)
        box.addWidget(split)

        self.table.itemSelectionChanged.connect(self._selected)
        self.commands.currentRowChanged.connect(self._show_output)
        self.reload_button.clicked.connect(lambda: self.reload())
        self.resume_button.clicked.connect(lambda: self.selected_id() and self.sig_resume.emit(self.selected_id()))
        self.export_button.clicked.connect(self.sig_export)
        key = QShortcut(QKeySequence(Qt.Key.Key_F5), self)
        key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        key.activated.connect(self.reload)
        self._outputs: list[Any] = []
        self.reload()

    # ---- the list --------------------------------------------------------------------------------
    def reload(self) -> None:
        chosen = self.selected_id()
        try:
            self.records = self.store.changes.list()
        except Exception as exc:  # noqa: BLE001 - a database that cannot be read: say so, keep the window
            self.records = []
            self.sig_status.emit(f"The change history cannot be read: {exc}")
        self.table.setRowCount(len(self.records))
        for r, rec in enumerate(self.records):
            took = cw.span(rec.measured_seconds) if rec.measured_seconds is not None else ""
            cells = (format_utc(rec.created_at, "%Y-%m-%d %H:%M"), rec.volume, cw.kinds_text(rec.kinds), rec.status,
                     f"~{cw.span(rec.predicted_seconds)}" if rec.predicted_seconds is not None else "", took,
                     rec.change_id[:12])
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 3 and rec.status in STATUS_COLOURS:
                    item.setForeground(QColor(STATUS_COLOURS[rec.status]))
                if c == 0:
                    item.setData(Qt.ItemDataRole.UserRole, rec.change_id)
                self.table.setItem(r, c, item)
        self.count.setText(f"{len(self.records)} change{'s' if len(self.records) != 1 else ''}")
        if self.records:
            self.select(chosen or self.records[0].change_id)
        else:
            self.head.setText("No change to a live volume yet. Changes are made in the Change tab "
                              "(Cluster ▸ Change live volume…) or with brickyard change.")
            self.steps.setRowCount(0)
            self.commands.clear()
        self._update_buttons()

    def select(self, change_id: str) -> bool:
        for r, rec in enumerate(self.records):
            if rec.change_id.startswith(change_id) and change_id:
                self.table.selectRow(r)
                return True
        return False

    def selected_id(self) -> str:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows:
            return ""
        item = self.table.item(rows[0].row(), 0)
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else ""

    def selected(self) -> Any:
        chosen = self.selected_id()
        return next((r for r in self.records if r.change_id == chosen), None)

    def _update_buttons(self) -> None:
        rec = self.selected()
        self.export_button.setEnabled(rec is not None)
        self.resume_button.setEnabled(rec is not None and rec.status in UNFINISHED)

    def report_source(self):
        """File ▸ Export PDF… on this tab: the selected change's record."""
        rec = self.selected()
        return ("change", rec.change_id) if rec is not None else None

    # ---- one change -----------------------------------------------------------------------------------
    def _selected(self) -> None:
        rec = self.selected()
        self._update_buttons()
        if rec is None:
            return
        self.head.setText(record_html(rec))
        rows = cw.step_rows(rec.plan, rec.state)
        self.steps.setRowCount(len(rows))
        for r, row in enumerate(rows):
            ratio = f"{row.ratio:.1f} ×" if row.ratio is not None and row.measured and row.measured >= 1 else ""
            cells = (str(row.number), row.title, row.host, row.status_words, row.predicted, row.measured_text, ratio,
                     row.started, row.message)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text if c in (1, 8) else "")
                if c == 3 and row.status in STATUS_COLOURS:
                    item.setForeground(QColor(STATUS_COLOURS[row.status]))
                if c == 3 and row.status == "failed":
                    item.setForeground(QColor("#b42318"))
                self.steps.setItem(r, c, item)
        self.steps.resizeRowsToContents()
        try:
            self._outputs = self.store.changes.outputs(rec.change_id)
        except Exception:  # noqa: BLE001 - kept outputs unreadable: the steps still show
            self._outputs = []
        self.commands.clear()
        for o in self._outputs:
            text = f"{format_utc(o.at, '%H:%M:%S')}  {o.host}  [{o.step_key or 'read'}]  {' '.join(o.argv)}"
            item = QListWidgetItem(text + (f"   (exit {o.exit_status})" if o.exit_status else ""))
            if o.exit_status:
                item.setForeground(QColor("#b42318"))
            self.commands.addItem(item)
        self.output.clear()
        self.detail.setTabText(1, f"Commands and gluster's answers ({len(self._outputs)})")

    def _show_output(self, row: int) -> None:
        if 0 <= row < len(self._outputs):
            o = self._outputs[row]
            self.output.setPlainText(o.stdout + (f"\n--- stderr ---\n{o.stderr}" if o.stderr.strip() else ""))


def record_html(rec: Any) -> str:
    """The head of a stored change: verdict, times, before → after, bricks."""
    plan, state = rec.plan, rec.state
    rows = cw.step_rows(plan, state)
    predicted, measured = cw.totals(rows)
    done = sum(1 for r in rows if r.status in ("done", "skipped"))
    message = state.get("message") or ""
    parts = [f"<p><b>{escape(rec.volume)}: {escape(cw.kinds_text(rec.kinds))}</b> — "
             f"<span style='color:{STATUS_COLOURS.get(rec.status, '#37474f')}'><b>{escape(rec.status)}</b></span>"
             + (f": {escape(message)}" if message else "") + "</p>",
             f"<p>change {escape(rec.change_id)} · started {format_utc(rec.created_at, '%Y-%m-%d %H:%M:%S')} UTC · "
             f"{done} of {len(rows)} steps done · "
             + (f"the steps that ran took {cw.span(measured)} against {cw.span(predicted)} predicted" if measured
                else "no step has run yet")
             + (f" · drawing {escape(rec.source)}" if rec.source else "") + "</p>"]
    figures = cw.figure_rows(plan)
    if figures:
        parts.append("<table cellspacing='0' cellpadding='2'><tr><th></th><th align='left'>before</th><th></th>"
                     "<th align='left'>after</th></tr>" + "".join(
                         f"<tr><td>{escape(w)}</td><td>{escape(a)}</td><td>→</td><td>{escape(b)}</td></tr>"
                         for w, a, b in figures) + "</table>")
    parts.append(f"<p><b>Data:</b> {escape(cw.movement_text(plan))}</p>")
    bricks = cw.brick_lines(plan)
    if bricks:
        parts.append("<p>" + "<br>".join(f"<b>{escape(w)}:</b> {escape(', '.join(items))}" for w, items in bricks)
                     + "</p>")
    return "".join(parts)
