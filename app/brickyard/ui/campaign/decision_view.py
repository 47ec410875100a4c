"""The decision table on screen: one row per layout (and baseline), the figures that decide
which one to build, and a chart of the layouts side by side.

It shows a ``core.decisiontable.DecisionTable`` and nothing else: every cell is the text
``DecisionTable.text`` gives (the same words the CSV, the CLI and the PDF report use), and
where each figure came from is visible at a glance — measured figures plain, the planner's
estimates in grey italics with "≈ … (est.)", exact figures from the topology (capacity,
failures survived) in dark blue — with how it was made (median of N repeats, the estimate's
formula, the runs) in the cell's tooltip.

- Room: every layout is visible without scrolling (the table is as tall as its rows, the
  chart takes what is left), and the layout column stays in place when the figures scroll
  sideways.
- Columns: what was measured first (throughput, then scaling), then what the topology says
  (capacity, failures survived); the model's predictions and their error, raw capacity and the
  best-case failures under "All columns".
- The verdict above the table is the report's "Reading the table" (``report.sentences``):
  ranked on measurements wherever a layout was measured, never on an estimate.
- Sort: click a column header (best first; a figure that is not known goes last).
- Copy: Ctrl+C copies the selected cells, "Copy table" the whole table, as tab-separated text
  that pastes into a spreadsheet or a mail as columns.
- Export CSV: ``DecisionTable.to_csv`` (plain units, TB and TiB beside bytes, spread, source).
- Chart: at one block size and direction, each layout's bars side by side (one per
  concurrency), whiskers from the spread over repeats, estimates hatched.

The table's model is ``decision_model.py`` and its chart ``decision_chart.py``; here the
view that puts them side by side (the frozen layout column, the verdict, the controls).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QHeaderView, QLabel, QPushButton,
                               QTableView, QVBoxLayout, QWidget)

from ...core.atomicfile import write_atomic
from ...core.decisiontable import DecisionTable
from ...core.units import format_block_size
from ...report.sentences import reading
from ..widgets.make import STRETCH, combo_box, hbox, splitter, vstack, wrapped_label
from .decision_chart import LayoutsChart
from .decision_model import DecisionModel, legend_text, rows_in_words, shown_by_default

class FrozenLayoutTable(QTableView):
    """A table whose first column (the layout) stays in place while the figures scroll
    sideways: a second view over the same model and selection shows only that column, laid
    over the first (Qt's frozen-column pattern). Its header sorts like the table's own."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.frozen = QTableView(self)
        self.frozen.setObjectName("decision-layout-column")
        self.frozen.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.frozen.verticalHeader().hide()
        self.frozen.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.frozen.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.frozen.setWordWrap(False)
        self.frozen.setStyleSheet("QTableView { border: none; border-right: 1px solid #9e9e9e; }")
        self.frozen.horizontalHeader().setSectionsClickable(True)
        self.frozen.horizontalHeader().setSortIndicatorShown(True)
        self.frozen.horizontalHeader().sortIndicatorChanged.connect(
            lambda column, order: self.horizontalHeader().setSortIndicator(column, order) if column == 0 else None)
        self.horizontalHeader().sortIndicatorChanged.connect(self._mirror_sort_indicator)
        self.viewport().stackUnder(self.frozen)
        self.horizontalHeader().sectionResized.connect(self._section_resized)
        self.verticalHeader().sectionResized.connect(lambda row, _old, size: self.frozen.setRowHeight(row, size))
        self.frozen.verticalScrollBar().valueChanged.connect(self.verticalScrollBar().setValue)
        self.verticalScrollBar().valueChanged.connect(self.frozen.verticalScrollBar().setValue)

    def setModel(self, model) -> None:  # noqa: N802 - Qt's name
        super().setModel(model)
        self.frozen.setModel(model)
        self.frozen.setSelectionModel(self.selectionModel())
        model.modelReset.connect(self._only_the_first_column)
        model.layoutChanged.connect(self._only_the_first_column)
        self._only_the_first_column()

    def _mirror_sort_indicator(self, column: int, order: Qt.SortOrder) -> None:
        header = self.frozen.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(column if column == 0 else -1, order)
        header.blockSignals(False)
        header.viewport().update()

    def _only_the_first_column(self) -> None:
        main = self.horizontalHeader()
        self._mirror_sort_indicator(main.sortIndicatorSection(), main.sortIndicatorOrder())
        model = self.model()
        for column in range(1, model.columnCount() if model is not None else 0):
            self.frozen.setColumnHidden(column, True)
        self.frozen.setColumnWidth(0, self.columnWidth(0))
        for row in range(model.rowCount() if model is not None else 0):
            self.frozen.setRowHeight(row, self.rowHeight(row))
        self._place()

    def _section_resized(self, column: int, _old: int, size: int) -> None:
        if column == 0:
            self.frozen.setColumnWidth(0, size)
            self._place()

    def _place(self) -> None:
        self.frozen.horizontalHeader().setFixedHeight(self.horizontalHeader().height())
        self.frozen.setGeometry(self.verticalHeader().width() + self.frameWidth(), self.frameWidth(),
                                self.columnWidth(0), self.viewport().height() + self.horizontalHeader().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._place()

    def updateGeometries(self) -> None:  # noqa: N802 - Qt's name: the header's height is known here
        super().updateGeometries()
        if hasattr(self, "frozen"):
            self._place()

    def moveCursor(self, action, modifiers):  # noqa: N802 - Qt's name
        """Moving left with the keys scrolls a cell out from under the frozen column."""
        current = super().moveCursor(action, modifiers)
        if (action == QAbstractItemView.CursorAction.MoveLeft and current.column() > 0
                and self.visualRect(current).topLeft().x() < self.frozen.columnWidth(0)):
            bar = self.horizontalScrollBar()
            bar.setValue(bar.value() + self.visualRect(current).topLeft().x() - self.frozen.columnWidth(0))
        return current

    def scrollTo(self, index, hint=QAbstractItemView.ScrollHint.EnsureVisible) -> None:  # noqa: N802
        if index.column() > 0:
            super().scrollTo(index, hint)

    def rows_height(self) -> int:
        """The height that shows every row and the header without a vertical scroll bar (and
        the horizontal one, when the columns are wider than the view)."""
        model = self.model()
        rows = sum(self.rowHeight(r) for r in range(model.rowCount())) if model is not None else 0
        bar = self.horizontalScrollBar()
        scrolls = bar.maximum() > 0 or bar.isVisible()
        return (self.horizontalHeader().height() + rows + 2 * self.frameWidth()
                + (bar.sizeHint().height() if scrolls else 0) + 2)


class DecisionView(QWidget):
    """A decision table with its chart; ``set_table`` shows another one."""

    sig_status = Signal(str)
    CHART_MIN_HEIGHT = 120

    def __init__(self, table: DecisionTable | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = FrozenLayoutTable()
        self.model = DecisionModel(parent=self.view)   # owned by the view it feeds: freed after it
        self.view.setObjectName("decision-table")
        self.view.setModel(self.model)
        header = self.view.horizontalHeader()   # sorts on a click only: the table's own order first
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.sortIndicatorChanged.connect(self._sort)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setWordWrap(False)
        self.view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.heading = wrapped_label("", "decision-heading")
        self.verdict = wrapped_label("", "decision-verdict", selectable=True)
        self.legend = wrapped_label("", "decision-legend")
        self.all_columns = QCheckBox("All columns")
        self.all_columns.setToolTip("Also the model's prediction and its error beside each measured figure, raw "
                                    "capacity and the best-case failures (the CSV always has them)")
        self.copy_button = QPushButton("Copy table")
        self.copy_button.setToolTip("Copy the whole table as tab-separated text (Ctrl+C copies the selection)")
        self.csv_button = QPushButton("Export CSV…")
        self.direction_box = combo_box("decision-direction")
        self.block_box = combo_box("decision-block")
        for box in (self.direction_box, self.block_box):   # sized to the entries set_table puts in, not
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)   # to the empty box ("block siz")
        self.chart = LayoutsChart()

        top = hbox((self.heading, 1), self.all_columns, self.copy_button, self.csv_button)
        chart_bar = hbox(QLabel("Layouts side by side:"), self.direction_box, self.block_box, STRETCH)
        upper = vstack(top, self.verdict, (self.view, 1), self.legend)
        self.upper = upper
        lower = vstack(chart_bar, (self.chart, 1))
        split = splitter(Qt.Orientation.Vertical, (upper, 0), (lower, 1))
        split.setCollapsible(0, False)
        split.splitterMoved.connect(lambda *_: setattr(self, "_user_split", True))
        self.split = split
        self._user_split = False
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(split)

        self.all_columns.toggled.connect(lambda _b: self._show_columns())
        self.copy_button.clicked.connect(self.copy_all)
        self.csv_button.clicked.connect(self._export_dialog)
        QShortcut(QKeySequence.StandardKey.Copy, self.view, activated=self.copy_selection)
        self.direction_box.currentIndexChanged.connect(lambda _i: self.redraw_chart())
        self.block_box.currentIndexChanged.connect(lambda _i: self.redraw_chart())
        self.set_table(table)

    @property
    def table(self) -> DecisionTable | None:
        return self.model.table

    def set_table(self, table: DecisionTable | None) -> None:
        self.model.set_table(table)
        header = self.view.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        header.blockSignals(False)
        self._show_columns()
        self.copy_button.setEnabled(table is not None and bool(table.rows))
        self.csv_button.setEnabled(table is not None and bool(table.rows))
        if table is None:
            self.heading.setText("No decision table yet.")
        else:
            what = f"{table.workload} sweep" if table.workload else "no measured workload"
            notes = "".join(f" {escape(note[:1].upper() + note[1:])}." for note in table.notes)
            self.heading.setText(f"<b>Decision table</b>: {rows_in_words(table)}, {what}.{notes}")
        lines = reading(table) if table is not None else []
        self.verdict.setText("<br>".join(escape(line) for line in lines))
        self.verdict.setVisible(bool(lines))
        self._user_split = False
        tput = [c for c in (table.columns if table else ()) if c.group == "throughput"]
        for box, values, show in ((self.direction_box, [c.params["direction"] for c in tput], str),
                                  (self.block_box, [c.params["block_size"] for c in tput],
                                   lambda b: "large blocks" if b == 0 else f"block size {format_block_size(b)}")):
            box.blockSignals(True)
            current = box.currentData()
            box.clear()
            for v in dict.fromkeys(values):
                box.addItem(show(v), v)
            index = box.findData(current)
            box.setCurrentIndex(index if index >= 0 else box.count() - 1 if box is self.block_box else 0)
            box.blockSignals(False)
        self.redraw_chart()
        self.fit_rows()                   # again, with the chart's legend laid out

    def _show_columns(self) -> None:
        """The primary columns (what was measured, capacity, failures), or all of them."""
        for section in range(1, self.model.columnCount()):
            column = self.model.column_at(section)
            self.view.setColumnHidden(section, not (shown_by_default(column) or self.all_columns.isChecked()))
        shown = [self.model.column_at(s) for s in range(1, self.model.columnCount()) if not self.view.isColumnHidden(s)]
        self.legend.setText(legend_text(self.table, shown))
        self.fit_rows()

    def fit_rows(self) -> None:
        """Give the table the height its rows need (the chart takes the rest, at least
        ``CHART_MIN_HEIGHT``), unless the user moved the divider."""
        total = self.split.height()
        if self._user_split or total <= 0:
            return
        self.view.doItemsLayout()
        self.upper.layout().activate()
        # what the heading, verdict and legend take at the width they have (their size hints
        # assume a narrow word-wrapped width), plus every row of the table
        overhead = (self.upper.height() - self.view.height() if self.upper.height() > self.view.height() > 0
                    else self.upper.sizeHint().height() - self.view.sizeHint().height())
        need = overhead + self.view.rows_height()
        lower = self.split.widget(1)
        chart_bar = lower.height() - self.chart.height() if lower.height() > self.chart.height() > 0 else 30
        chart = max(self.CHART_MIN_HEIGHT, self.chart.height_needed())   # its legend whole, room for bars
        upper = max(min(need, total - chart - chart_bar - self.split.handleWidth()), 0)
        self.split.setSizes([upper, total - upper])

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit_rows()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.fit_rows()

    def _sort(self, column: int, order: Qt.SortOrder) -> None:
        """A header click: best first on the first click (the column's own sense of better)."""
        if self.table is None or column < 0:
            return
        if column > 0:
            best_first = self.model.column_at(column).higher_is_better
            descending = best_first if order == Qt.SortOrder.AscendingOrder else not best_first
        else:
            descending = order == Qt.SortOrder.DescendingOrder
        self.model.sort(column, Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder)
        self.redraw_chart()

    def redraw_chart(self) -> int:
        direction, block = self.direction_box.currentData(), self.block_box.currentData()
        if direction is None or block is None:
            self.chart.clear_chart()
            return 0
        return self.chart.draw(self.table, direction, block)

    # ---- copy and export ------------------------------------------------------------------
    def copy_all(self) -> str:
        shown = [c for c in range(self.model.columnCount()) if not self.view.isColumnHidden(c)]
        text = self.model.tsv([(r, c) for r in range(self.model.rowCount()) for c in shown])
        QGuiApplication.clipboard().setText(text)
        self.sig_status.emit("Decision table copied as tab-separated text")
        return text

    def copy_selection(self) -> str:
        cells = [(i.row(), i.column()) for i in self.view.selectionModel().selectedIndexes()
                 if not self.view.isColumnHidden(i.column())]
        if not cells:
            return self.copy_all()
        text = self.model.tsv(cells)
        QGuiApplication.clipboard().setText(text)
        return text

    def export_csv(self, path: str | Path) -> None:
        write_atomic(path, self.table.to_csv())
        self.sig_status.emit(f"Decision table written to {path}")

    def _export_dialog(self) -> None:
        if self.table is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export the decision table", "decision-table.csv", "CSV (*.csv)")
        if path:
            try:
                self.export_csv(path)
            except OSError as exc:
                self.sig_status.emit(f"Cannot write {path}: {exc.strerror or exc}")
