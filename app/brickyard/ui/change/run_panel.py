"""The Change tab while a change runs: the overall progress and the time left, gluster's own
figures per node (a rebalance or remove-brick) or per brick (a heal), and the log.

The progress is weighted by each step's predicted time, so the bar moves as the time goes,
not as the step count does (a rebalance is one step of nine and most of the hours). The time
left is a prediction and says so; past its prediction a step says how far past it is.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase
from PySide6.QtWidgets import (QHeaderView, QLabel, QPlainTextEdit, QProgressBar, QTableWidget, QTableWidgetItem,
                               QTabWidget, QVBoxLayout, QWidget)

from ...core import changewords as cw
from ...core import gluster_progress as gp
from ...core.changemodel import ChangePlan
from ...core.units import format_bytes

MIGRATION_COLUMNS = ("node", "status", "scanned", "files moved", "data moved", "skipped", "failures", "run time")
HEAL_COLUMNS = ("brick", "status", "entries to heal", "heal pending", "split-brain", "possibly healing")
COUNT_COLUMNS = ("brick", "entries to heal")
BAD = "#c62828"


class RunPanel(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._word = "an estimate"        # what the times are: cw.time_word of the plan's rates
        self.bar = QProgressBar()
        self.bar.setObjectName("change-progress")
        self.bar.setRange(0, 1000)
        self.bar.setFormat("%p %")
        self.left = QLabel()
        self.left.setObjectName("change-time-left")
        self.left.setWordWrap(True)
        self.table_title = QLabel("gluster's figures appear here while a rebalance, a migration or a heal runs.")
        self.table_title.setWordWrap(True)
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("change-nodes")
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.log = QPlainTextEdit()
        self.log.setObjectName("change-log")
        self.log.setReadOnly(True)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log.setMaximumBlockCount(5000)
        self.log.setPlaceholderText("The log of a change appears here.")
        nodes = QWidget()
        nbox = QVBoxLayout(nodes)
        nbox.setContentsMargins(0, 0, 0, 0)
        nbox.addWidget(self.table_title)
        nbox.addWidget(self.table, 1)
        self.tabs = QTabWidget()
        self.tabs.addTab(nodes, "Per node")
        self.tabs.addTab(self.log, "Log")
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.bar)
        box.addWidget(self.left)
        box.addWidget(self.tabs, 1)
        self._expected: dict[str, float] = {}
        self._titles: dict[str, str] = {}
        self._finished: set[str] = set()
        self._current = ""
        self._since = 0.0
        self._fraction = 0.0

    # ---- a run ----------------------------------------------------------------------------------
    def start(self, plan: ChangePlan, done: set[str] = frozenset()) -> None:
        self._expected = {s.key: (s.predicted.expected if s.predicted else 1.0) for s in plan.steps}
        self._titles = {s.key: s.title for s in plan.steps}
        self._word = cw.time_word(plan.movement.rates)      # 'a prediction' once a change was measured
        self._finished = set(done)
        self._current, self._fraction = "", 0.0
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.table_title.setText("gluster's figures appear here while a rebalance, a migration or a heal runs.")
        self._update()

    def step(self, key: str, status: str) -> None:
        if status == "running":
            self._current, self._since, self._fraction = key, time.monotonic(), 0.0
        elif status in ("done", "skipped"):
            self._finished.add(key)
            if key == self._current:
                self._current = ""
        self._update()

    def progress(self, key: str, fraction: float, text: str, detail: object) -> None:
        if key != self._current:
            self._current, self._since = key, time.monotonic()
        self._fraction = max(0.0, min(fraction, 1.0))
        when = time.strftime("%H:%M:%S")
        title = self._titles.get(key, key)
        if isinstance(detail, gp.MigrationStatus):
            self._migration(detail)
            self.table_title.setText(f"{title}: gluster's {detail.kind} status on every node (read {when})")
        elif isinstance(detail, (list, tuple)) and all(isinstance(h, gp.HealBrick) for h in detail):
            self._heal(list(detail))
            self.table_title.setText(f"{title}: heal info summary per brick (read {when})")
        elif isinstance(detail, dict) and "pending" in detail:
            self._indices(detail)
            self.table_title.setText(f"{title}: entries waiting in the bricks' self-heal indices (read {when})")
        elif isinstance(detail, dict):
            self._counts(detail)
            self.table_title.setText(f"{title}: entries to heal per brick, from the heal index (read {when})")
        self._update()

    def finish(self, ok: bool) -> None:
        if ok:
            self._finished = set(self._expected)
        self._current = ""
        self._update(final=True)

    def fraction(self) -> float:
        total = sum(self._expected.values()) or 1.0
        done = sum(v for k, v in self._expected.items() if k in self._finished)
        if self._current and self._current not in self._finished:
            done += self._expected.get(self._current, 0.0) * self._fraction
        return min(done / total, 1.0)

    def _update(self, final: bool = False) -> None:
        self.bar.setValue(int(self.fraction() * 1000))
        if final:
            self.left.setText("")
            return
        remaining = sum(v for k, v in self._expected.items() if k not in self._finished and k != self._current)
        now = ""
        if self._current:
            expected = self._expected.get(self._current, 0.0)
            elapsed = time.monotonic() - self._since
            title = self._titles.get(self._current, self._current)
            if elapsed > expected * 1.05 and expected > 0:
                now = (f"“{title}” has run {cw.span(elapsed)}, past {self._word} of ~{cw.span(expected)}; "
                       "it is done when gluster says so. ")
            else:
                remaining += max(expected - elapsed, 0.0)
        self.left.setText(f"{now}About {cw.span(remaining)} left after it ({self._word})." if now else
                          f"About {cw.span(remaining)} left ({self._word}).")

    # ---- gluster's figures ---------------------------------------------------------------------
    def _fill(self, columns, rows: list[tuple[list[str], bool]]) -> None:
        self.table.setColumnCount(len(columns))
        self.table.setHorizontalHeaderLabels(list(columns))
        self.table.setRowCount(len(rows))
        for r, (cells, bad) in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c > 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if bad:
                    item.setForeground(QColor(BAD))
                self.table.setItem(r, c, item)

    def _migration(self, st: gp.MigrationStatus) -> None:
        rows = [([n.name, n.status_str, f"{n.lookups:,}", f"{n.files:,}", format_bytes(n.size), f"{n.skipped:,}",
                  f"{n.failures:,}", cw.span(n.runtime)], bool(n.failures or n.failed)) for n in st.nodes]
        rows.append((["all nodes", "completed" if st.completed else "running" if st.running else "stopped",
                      f"{st.lookups:,}", f"{st.files:,}", format_bytes(st.size), f"{st.skipped:,}", f"{st.failures:,}",
                      cw.span(st.runtime)], bool(st.failures)))
        self._fill(MIGRATION_COLUMNS, rows)

    def _heal(self, bricks: list[gp.HealBrick]) -> None:
        def n(v):
            return "–" if v is None else f"{v:,}"
        self._fill(HEAL_COLUMNS, [([str(h.ref), h.status, n(h.total), n(h.pending), n(h.split_brain),
                                    n(h.possibly_healing)], not h.connected or bool(h.split_brain)) for h in bricks])

    def _indices(self, detail: dict) -> None:
        """The heal wait's count: every brick's heal index summed, and the bricks it could not count."""
        rows = [(["every brick's heal index", f"{int(detail.get('pending') or 0):,}"], False)]
        rows += [([f"not counted: {what}", "?"], True) for what in detail.get("unknown") or []]
        self._fill(("bricks", "entries waiting"), rows)

    def _counts(self, counts: dict) -> None:
        self._fill(COUNT_COLUMNS, [([str(ref), "?" if v is None else f"{v:,}"], v is None)
                                   for ref, v in counts.items()])

    def node_rows(self) -> list[list[str]]:
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]

    def add_log(self, line: str) -> None:
        self.log.appendPlainText(f"{time.strftime('%H:%M:%S')}  {line}")
        bar = self.log.verticalScrollBar()
        bar.setValue(bar.maximum())
