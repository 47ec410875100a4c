"""What the Change tab says about a plan: before → after, what moves and how long it should
take, refusals with the route that works, and the ordered steps with their reasons,
commands and predictions — then, while it runs, each step's status and measured time.

The words and figures come from ``core.changewords`` (the change history and the PDF
change record print the same ones); command lines from ``remote.commandline`` (as the CLI's
dry run prints them).
"""

from __future__ import annotations

import time
from html import escape

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontDatabase, QFontMetrics
from PySide6.QtWidgets import QHeaderView, QLabel, QScrollArea, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ...core import changewords as cw
from ...core.changemodel import ChangePlan
from ...remote import commandline
from ..cluster.runtable import WrapDelegate, set_status
from ..widgets.make import splitter

NUMBER, STEP, HOST, PREDICTED, STATUS, TOOK = range(6)
STATUS_COLOURS = {"planned": ("#455a64", "#eceff1"), "waiting": ("#607d8b", "#f5f5f5"),
                  "running": ("#1565c0", "#e3f2fd"), "done": ("#2e7d32", "#e8f5e9"),
                  "skipped": ("#00695c", "#e0f2f1"), "failed": ("#c62828", "#ffebee"),
                  "left": ("#ef6c00", "#fff3e0"), "pending": ("#455a64", "#eceff1")}
STATUS_WORDS = {"planned": "planned", "waiting": "waiting", "running": "running…", "done": "done",
                "skipped": "already done", "failed": "FAILED", "left": "left", "pending": "not run"}
ERROR, OK = "#b00020", "#1b5e20"
MAX_NOTES = 20


def _wraps(index: QModelIndex) -> bool:
    return index.parent().isValid() or index.column() == STEP


class PlanPanel(QWidget):
    """The plan of a change (``show_plan``), and each step's state as it runs (``set_step``)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.plan: ChangePlan | None = None
        self.rows: dict[str, QTreeWidgetItem] = {}
        self._started: dict[str, float] = {}
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._mono = mono
        self.summary = QLabel()
        self.summary.setObjectName("change-summary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setContentsMargins(4, 2, 4, 2)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.summary)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.summary_scroll = scroll
        self.tree = QTreeWidget()
        self.tree.setObjectName("change-steps")
        self.tree.setColumnCount(6)
        self.tree.setHeaderLabels(["#", "Step", "Host", "Prediction", "Status", "Took"])
        self.tree.setUniformRowHeights(False)
        header = self.tree.header()
        header.setStretchLastSection(False)
        # sized once per plan from the texts (_fit_columns): a column sized to its contents measures
        # every row again at each status change, which took a minute for a 250-step plan
        for col in (NUMBER, HOST, PREDICTED, STATUS, TOOK):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(STEP, QHeaderView.ResizeMode.Stretch)
        self.tree.setItemDelegate(WrapDelegate(self.tree, _wraps))
        header.sectionResized.connect(lambda *_: self.tree.doItemsLayout())
        split = splitter(Qt.Orientation.Vertical, (scroll, 2), (self.tree, 3), sizes=(260, 340), collapsible=False)
        self.split = split
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(split)
        self.say("Read the live volume to plan a change against it.")

    # ---- the plan ----------------------------------------------------------------------------
    def say(self, text: str, error: bool = False) -> None:
        """One message instead of a plan (nothing read yet, the volume cannot be read…)."""
        self.plan = None
        colour = ERROR if error else "#37474f"
        self.summary.setText(f"<p style='color:{colour}'>{escape(text).replace(chr(10), '<br>')}</p>")
        self.tree.clear()
        self.rows.clear()

    def show_plan(self, plan: ChangePlan, extra: list[str] = (), doc: dict | None = None) -> None:
        """``extra``: lines the view adds (what is not drawn, the pre-flight's verdict…);
        ``doc``: ``plan.to_json()`` when the caller has it already."""
        self.plan = plan
        self._started.clear()
        doc = plan.to_json() if doc is None else doc
        self.summary.setText(summary_html(plan, doc, list(extra)))
        word = cw.time_word(plan.movement.rates if plan.movement else "")
        self.tree.headerItem().setText(PREDICTED, "Prediction" if word == "a prediction" else "Estimate")
        self.tree.clear()
        self.rows.clear()
        scripts: dict[str, str] = {}
        rows: list[QTreeWidgetItem] = []
        spanned: list[QTreeWidgetItem] = []
        for i, step in enumerate(plan.steps, 1):        # built apart from the tree, added in one go
            predicted = cw.range_text(doc["steps"][i - 1]["predicted_seconds"])
            row = QTreeWidgetItem([str(i), step.title, step.host, predicted, "", ""])
            row.setToolTip(STEP, f"{step.title}\n\nwhy: {step.reason}")
            row.setData(NUMBER, Qt.ItemDataRole.UserRole, step.key)
            spanned.append(self._child(row, f"why: {step.reason}", colour="#37474f", span=False))
            for argv in step.commands:
                spanned.append(self._child(row, commandline.ssh_line(step.host, list(argv), scripts), mono=True,
                                           span=False))
            if step.watch:
                spanned.append(self._child(row, "watches until done: " + commandline.ssh_line(
                    step.host, list(step.watch), scripts), mono=True, span=False))
            if step.undo:
                spanned.append(self._child(row, f"to undo: {step.undo}", colour="#6d4c41", span=False))
            self._style(row, "planned")
            self.rows[step.key] = row
            rows.append(row)
        if scripts:
            helpers = QTreeWidgetItem(["", "Brickyard's helper scripts named above (fixed text; the arguments "
                                       "after them are quoted data)"])
            rows.append(helpers)
            for line in commandline.script_lines(scripts):
                spanned.append(self._child(helpers, line, mono=True, span=False))
        self.tree.addTopLevelItems(rows)
        for child in spanned:
            child.setFirstColumnSpanned(True)
        self._fit_columns(rows)

    def _fit_columns(self, rows: list[QTreeWidgetItem]) -> None:
        """Each narrow column as wide as its widest text (statuses included), measured once."""
        metrics = QFontMetrics(self.tree.font())
        bold = QFont(self.tree.font())
        bold.setBold(True)
        wide = QFontMetrics(bold)
        header = self.tree.header()
        for col in (NUMBER, HOST, PREDICTED, STATUS, TOOK):
            texts = [header.model().headerData(col, Qt.Orientation.Horizontal) or ""]
            texts += [r.text(col) for r in rows]
            if col == STATUS:
                texts += list(STATUS_WORDS.values())
            if col == TOOK:
                texts.append("59 min")
            fm = wide if col == STATUS else metrics
            width = max((fm.horizontalAdvance(t) for t in texts), default=20) + 18
            self.tree.setColumnWidth(col, width + (self.tree.indentation() if col == NUMBER else 0))

    def _child(self, parent: QTreeWidgetItem, text: str, mono: bool = False, colour: str = "#263238",
               span: bool = True) -> QTreeWidgetItem:
        child = QTreeWidgetItem([text])
        child.setToolTip(NUMBER, text)
        if mono:
            child.setFont(NUMBER, self._mono)
        child.setForeground(NUMBER, QBrush(QColor(colour)))
        parent.addChild(child)
        if span:                      # an item in the tree already (a step's last words, a failure)
            child.setFirstColumnSpanned(True)
        return child

    def _style(self, row: QTreeWidgetItem, status: str) -> None:
        colour, fill = STATUS_COLOURS.get(status, ("#455a64", "#eceff1"))
        set_status(row, STATUS, status, STATUS_WORDS.get(status, status), colour, fill)

    # ---- while it runs --------------------------------------------------------------------------
    def set_all(self, status: str) -> None:
        for row in self.rows.values():
            self._style(row, status)
            row.setText(TOOK, "")

    def set_step(self, key: str, status: str, message: str = "", seconds: float | None = None) -> None:
        row = self.rows.get(key)
        if row is None:
            return
        if status == "running":
            self._started[key] = time.monotonic()
            self.tree.scrollToItem(row)
        elif seconds is None and key in self._started and status in ("done", "failed"):
            seconds = time.monotonic() - self._started[key]
        self._style(row, status)
        if seconds is not None:
            row.setText(TOOK, cw.span(seconds))
        if message:
            row.setToolTip(STATUS, message)
            tip = row.toolTip(STEP).split("\n\nsaid:")[0]
            row.setToolTip(STEP, f"{tip}\n\nsaid: {message}")
            if status == "failed":
                self._child(row, f"FAILED: {message}", colour=ERROR)
                row.setExpanded(True)
                self.tree.scrollToItem(row)
            elif status in ("done", "skipped"):
                self._said(row, message)

    def _said(self, row: QTreeWidgetItem, message: str) -> None:
        """The step's last words, shown under it (replacing earlier ones)."""
        for i in range(row.childCount()):
            child = row.child(i)
            if child.text(NUMBER).startswith(("gluster said: ", "already done: ")):
                row.removeChild(child)
                break
        words = "already done: " if row.data(STATUS, Qt.ItemDataRole.UserRole) == "skipped" else "gluster said: "
        self._child(row, words + message, colour="#2e7d32")

    def status_of(self, key: str) -> str:
        row = self.rows.get(key)
        return row.data(STATUS, Qt.ItemDataRole.UserRole) if row is not None else ""

    def statuses(self) -> dict[str, str]:
        return {key: row.data(STATUS, Qt.ItemDataRole.UserRole) for key, row in self.rows.items()}

    # ---- as text ----------------------------------------------------------------------------
    def text(self) -> str:
        """The plan as plain text, every command as the CLI's dry run prints it."""
        plan = self.plan
        if plan is None:
            return self.summary.text()
        doc = plan.to_json()
        lines = [*plan.summary()]
        for r in plan.refusals:
            lines += ["  what works instead:"] * bool(r.route) + [f"    - {step}" for step in r.route]
        lines += [f"  {what}: {a} -> {b}" for what, a, b in cw.figure_rows(doc)]
        if plan.steps:
            lines.append(f"  {cw.movement_text(doc)}")
        lines += [f"  note: {n}" for n in plan.notes]
        lines += [f"  gluster would ask: {w.message}" for w in plan.warnings]
        scripts: dict[str, str] = {}
        for i, (s, d) in enumerate(zip(plan.steps, doc["steps"]), 1):
            status = self.status_of(s.key)
            lines.append(f"{i:2}. {s.host}: {s.title} [{cw.range_text(d['predicted_seconds'])}]"
                         + (f" — {STATUS_WORDS.get(status, status)}" if status not in ("", "planned") else ""))
            lines.append(f"      why: {s.reason}")
            lines += [f"      {commandline.ssh_line(s.host, list(c), scripts)}" for c in s.commands]
            if s.watch:
                lines.append(f"      watch: {commandline.ssh_line(s.host, list(s.watch), scripts)} (until done)")
        lines += commandline.script_lines(scripts)
        return "\n".join(lines)


def warning_lines(warnings) -> list[str]:
    """What gluster would ask, once per kind: a 1,600-set volume has 1,600 findings of one kind,
    and a label of 600 kB of them took the window five seconds to lay out."""
    first: dict[str, tuple[str, int]] = {}
    for w in warnings:
        key = w.code or w.message
        message, count = first.get(key, (w.message, 0))
        first[key] = (message, count + 1)
    return [f"gluster would ask: {message}" + (f" (and {count - 1} more like it)" if count > 1 else "")
            for message, count in first.values()]


def summary_html(plan: ChangePlan, doc: dict, extra: list[str]) -> str:
    """The plan's head as rich text: the verdict, before → after, what moves, notes."""
    parts: list[str] = []
    if not plan.ok:
        parts.append(f"<p style='color:{ERROR}'><b>Brickyard will not run this change.</b> Nothing has run.</p>")
        for r in plan.refusals:
            parts.append(f"<p style='color:{ERROR}'>{escape(r.message)}</p>")
            if r.route:
                parts.append("<p><b>What works instead:</b></p><ol style='margin-top:0'>"
                             + "".join(f"<li>{escape(step)}</li>" for step in r.route) + "</ol>")
    elif plan.nothing_to_do:
        parts.append(f"<p><b>{escape(plan.volume)} already is what the drawing shows: nothing to change.</b><br>"
                     "Edit the drawing: add a server (Shift+N), retire a brick or server (R), replace a brick "
                     "(Shift+R), add a copy (+) or arbiters (A).</p>")
    else:
        seconds = doc["movement"]["predicted_seconds"]
        parts.append(f"<p><b>{escape(plan.volume)}: {escape(cw.kinds_text(plan.kinds))}</b> — {len(plan.steps)} "
                     f"steps, {escape(cw.range_text(seconds))} in all "
                     f"({escape(cw.time_basis(doc['movement'].get('rates') or ''))}).</p>")
    rows = cw.figure_rows(doc)
    if rows:
        cells = "".join(
            f"<tr><td>{escape(what)}</td><td>{escape(a)}</td><td>→</td>"
            f"<td>{'<b>' if a != b else ''}{escape(b)}{'</b>' if a != b else ''}</td></tr>" for what, a, b in rows)
        parts.append("<table cellspacing='0' cellpadding='2'><tr><th align='left'></th><th align='left'>now</th>"
                     f"<th></th><th align='left'>after the change</th></tr>{cells}</table>")
    if plan.ok and plan.steps:
        parts.append(f"<p><b>Data:</b> {escape(cw.movement_text(doc))}</p>")
        bricks = cw.brick_lines(doc)
        if bricks:
            parts.append("<p>" + "<br>".join(f"<b>{escape(word)}:</b> {escape(', '.join(items))}"
                                             for word, items in bricks) + "</p>")
    notes = [*plan.notes, *warning_lines(plan.warnings), *extra]
    if len(notes) > MAX_NOTES:
        notes = [*notes[:MAX_NOTES], f"… and {len(notes) - MAX_NOTES} more (Copy as text has them all)"]
    if notes:
        parts.append("<ul style='margin-top:0'>" + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>")
    return "".join(parts)
