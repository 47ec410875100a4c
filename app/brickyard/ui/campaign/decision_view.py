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
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QSplitter, QTableView, QVBoxLayout, QWidget)

from ...core.atomicfile import write_atomic
from ...core.decisiontable import BASELINE, ESTIMATED, MEASURED, PLANNED, PREDICTED, Column, DecisionTable, Row
from ...core.modelcheck import ERR_GROUP, PRED_GROUP
from ...core.spreadsheet import tsv_text
from ...core.units import format_block_size
from ...report.sentences import reading
from ..widgets.chart import PALETTE, BaseChart, CategoryAxis, exact, value_scale

SOURCE_STYLE = {MEASURED: ("#111111", False), ESTIMATED: ("#757575", True), PLANNED: ("#0d47a1", False),
                PREDICTED: ("#6a1b9a", True)}
SOURCE_WORDS = {MEASURED: "measured", ESTIMATED: "estimate (planner's formula, not measured)",
                PLANNED: "exact from the topology (planner)", PREDICTED: "predicted by a calibrated model"}
LAYOUT_TITLE = "layout"
#: the order of the columns on screen, by group: what was measured first, then what the topology says
GROUP_ORDER = ("throughput", "scaling", "capacity", "failures")
#: shown only under "All columns" (the model's predictions beside each measurement, and its error)
SECONDARY_GROUPS = (PRED_GROUP, ERR_GROUP)


def display_order(table: DecisionTable | None) -> list[int]:
    """Indices of ``table.columns`` in the order the window shows them: throughput (each
    prediction and error right after the measurement it predicts), scaling, capacity,
    failures, then anything else."""
    if table is None:
        return []

    def rank(i: int) -> tuple[int, int]:
        group = table.columns[i].group
        group = "throughput" if group in SECONDARY_GROUPS else group
        return (GROUP_ORDER.index(group) if group in GROUP_ORDER else len(GROUP_ORDER), i)

    return sorted(range(len(table.columns)), key=rank)


def shown_by_default(column: Column) -> bool:
    return column.primary and column.group not in SECONDARY_GROUPS


def rows_in_words(table: DecisionTable) -> str:
    """"3 layouts and 2 baselines", "4 layouts", "1 baseline": only what the table holds."""
    layouts = sum(1 for r in table.rows if r.kind != BASELINE)
    baselines = len(table.rows) - layouts
    parts = [f"{n} {word}{'' if n == 1 else 's'}" for n, word in ((layouts, "layout"), (baselines, "baseline")) if n]
    return " and ".join(parts) or "no layout"


def legend_text(table: DecisionTable | None, shown: list[Column] | None = None) -> str:
    """What the colours and marks of the cells mean: only those the ``shown`` columns (default:
    all) hold, and always where to hover."""
    keys = {c.key for c in (shown if shown is not None else table.columns if table else ())}
    figures = [f for r in (table.rows if table else ()) for k, f in r.figures.items() if f.known and k in keys]
    sources = {f.source for f in figures}
    parts = ["<span style='color:#111'>measured</span>", "<span style='color:#0d47a1'>exact from the topology</span>"]
    if ESTIMATED in sources:
        parts.append("<i style='color:#757575'>≈ estimate (est.), not measured</i>")
    if PREDICTED in sources:
        parts.append("<i style='color:#6a1b9a'>(pred.) a calibrated model's prediction</i>")
    if any(f.block_size is not None for f in figures):
        parts.append("“at 16M”: a baseline measured at another block size than the column's")
    parts += ["±: half the range over repeats", "hover a cell for how it was made"]
    return " · ".join(parts)


class DecisionModel(QAbstractTableModel):
    """A DecisionTable as rows × (layout, columns…); sorting replaces the table's row order."""

    def __init__(self, table: DecisionTable | None = None, parent=None):
        super().__init__(parent)
        self.table = table
        self.order = display_order(table)
        self.sorted_key = ""

    def set_table(self, table: DecisionTable | None) -> None:
        self.beginResetModel()
        self.table = table
        self.order = display_order(table)
        self.endResetModel()

    def column_at(self, section: int) -> Column:
        """The table column shown at model column ``section`` (≥ 1; 0 is the layout)."""
        return self.table.columns[self.order[section - 1]]

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() or self.table is None else len(self.table.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() or self.table is None else 1 + len(self.table.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if self.table is None or orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return LAYOUT_TITLE if section == 0 else self.column_at(section).title
        if role == Qt.ItemDataRole.ToolTipRole and section > 0:
            c = self.column_at(section)
            better = "higher is better" if c.higher_is_better else "lower is better"
            return f"{c.title} ({c.unit}; {better}). Click to sort best first."
        return None

    def row(self, index: int) -> Row:
        return self.table.rows[index]

    def cell_text(self, r: int, c: int) -> str:
        row = self.table.rows[r]
        if c == 0:
            return row.label
        return self.table.text(row, self.column_at(c).key)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if self.table is None or not index.isValid():
            return None
        row = self.table.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell_text(index.row(), index.column())
        if index.column() == 0:
            if role == Qt.ItemDataRole.ToolTipRole:
                bits = [row.label, f"{row.kind}" + (f" · volume {row.volume}" if row.volume else ""),
                        *row.notes, f"runs: {', '.join(r[:12] for r in row.run_ids)}" if row.run_ids else "no run"]
                return "\n".join(b for b in bits if b)
            if role == Qt.ItemDataRole.FontRole:
                font = QFont()
                font.setBold(True)
                return font
            return None
        column = self.column_at(index.column())
        fig = row.figure(column.key)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and fig.source in SOURCE_STYLE:
            return QBrush(QColor(SOURCE_STYLE[fig.source][0]))
        if role == Qt.ItemDataRole.FontRole and fig.source in SOURCE_STYLE and SOURCE_STYLE[fig.source][1]:
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [f"{column.title}: {self.table.text(row, column.key)}"]
            if fig.source:
                lines.append(SOURCE_WORDS.get(fig.source, fig.source))
            if fig.note:
                lines.append(fig.note)
            if fig.n > 1 and fig.low is not None and fig.high is not None and column.unit == "B/s":
                lines.append(f"repeats: {exact(fig.low, 'B/s')} … {exact(fig.high, 'B/s')}")
            if fig.run_ids:
                lines.append("runs: " + ", ".join(r[:12] for r in fig.run_ids))
            return "\n".join(lines)
        if role == Qt.ItemDataRole.UserRole:
            return fig
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if self.table is None or not self.table.rows:
            return
        self.layoutAboutToBeChanged.emit()
        descending = order == Qt.SortOrder.DescendingOrder
        if column == 0:
            rows = sorted(self.table.rows, key=lambda r: r.label.lower(), reverse=descending)
            from dataclasses import replace

            self.table = replace(self.table, rows=tuple(rows))
            self.sorted_key = LAYOUT_TITLE
        else:
            key = self.column_at(column).key
            self.table = self.table.sorted_by(key, descending)
            self.sorted_key = key
        self.layoutChanged.emit()

    def tsv(self, cells: list[tuple[int, int]] | None = None) -> str:
        """The table (or the given cells' bounding rows × columns) as tab-separated text."""
        if self.table is None:
            return ""
        if cells:
            rows = sorted({r for r, _ in cells})
            cols = sorted({c for _, c in cells})
            picked = set(cells)
            head = [str(self.headerData(c, Qt.Orientation.Horizontal)) for c in cols]
            body = [[self.cell_text(r, c) if (r, c) in picked else "" for c in cols] for r in rows]
        else:
            head = [str(self.headerData(c, Qt.Orientation.Horizontal)) for c in range(self.columnCount())]
            body = [[self.cell_text(r, c) for c in range(self.columnCount())] for r in range(self.rowCount())]
        return tsv_text([head, *body])


class ElidedCategoryAxis(CategoryAxis):
    """Bar labels cut to the width of their bar group ("disperse 4 redundancy 1 × 2 (8 b…"), so
    the labels of many layouts never run into each other; hovering a bar gives the whole name."""

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        names = super().tickStrings(values, scale, spacing)
        view = self.linkedView()
        if view is None or not names:
            return names
        (low, high), width = view.viewRange()[0], self.geometry().width()
        slot = width * 1.0 / max(high - low, 1e-9) - 8
        metrics = QFontMetrics(self.style.get("tickFont") or self.font())
        return [metrics.elidedText(name, Qt.TextElideMode.ElideRight, max(int(slot), 24)) for name in names]


class LayoutsChart(BaseChart):
    """Each layout's throughput at one block size and direction, bars side by side per
    concurrency, whiskers from the repeats' spread, estimates hatched and lighter."""

    def __init__(self, parent=None) -> None:
        self.category_axis = ElidedCategoryAxis()
        super().__init__(parent, bottom=self.category_axis)
        self.bars: list[pg.BarGraphItem] = []

    def draw(self, table: DecisionTable | None, direction: str, block_size: int) -> int:
        self.clear_chart()
        self.bars = []
        if table is None:
            return 0
        cols = [c for c in table.columns if c.group == "throughput" and c.params.get("direction") == direction
                and c.params.get("block_size") == block_size]
        rows = list(table.rows)
        self.category_axis.names = [r.label for r in rows]
        figures = [[r.figure(c.key) for c in cols] for r in rows]
        largest = max((f.high if f.high is not None else f.value or 0.0 for fs in figures for f in fs if f.known),
                      default=0.0)
        divisor, unit = value_scale("B/s", largest)
        self.plot_item.setLabel("left", f"{direction} throughput ({unit})")
        where = "large blocks" if block_size == 0 else f"block size {format_block_size(block_size)}"
        self.plot_item.setTitle(f"{direction}, {where}: layouts side by side", color="#222")
        width = 0.8 / max(1, len(cols))
        drawn = 0
        xs_all, ys_all, describe_all = [], [], []
        for j, c in enumerate(cols):
            colour = QColor(PALETTE[j % len(PALETTE)])
            for i, r in enumerate(rows):
                f = figures[i][j]
                if not f.known:
                    continue
                x = i - 0.4 + width * (j + 0.5)
                y = float(f.value) / divisor
                estimate = f.source != MEASURED
                fill = QColor(colour)
                if estimate:
                    fill.setAlpha(90)
                brush = QBrush(fill, Qt.BrushStyle.BDiagPattern if estimate else Qt.BrushStyle.SolidPattern)
                bar = pg.BarGraphItem(x=[x], height=[y], width=width * 0.9, brush=brush,
                                      pen=pg.mkPen(colour, width=1, style=Qt.PenStyle.DashLine if estimate
                                                   else Qt.PenStyle.SolidLine))
                self.plot_item.addItem(bar)
                self.bars.append(bar)
                if f.n > 1 and f.low is not None and f.high is not None:
                    self.plot_item.addItem(pg.ErrorBarItem(x=np.array([x]), y=np.array([y]),
                                                           top=np.array([f.high / divisor - y]),
                                                           bottom=np.array([y - f.low / divisor]),
                                                           beam=width * 0.4, pen=pg.mkPen("#000")))
                xs_all.append(x)
                ys_all.append(y)
                describe_all.append(f"{r.label}\n{c.title}: {table.text(r, c.key)}\n"
                                    f"{SOURCE_WORDS.get(f.source, f.source)}" + (f"\n{f.note}" if f.note else ""))
                drawn += 1
            self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=0, brush=colour), c.title)
        if drawn:
            self.add_hoverable(xs_all, ys_all, lambda k: describe_all[k])
        self.plot_item.setXRange(-0.6, max(0.6, len(rows) - 0.4))
        self.plot_item.setYRange(0, largest / divisor * 1.4 or 1.0, padding=0)   # headroom: the legend sits above the bars
        return drawn


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
        self.heading = QLabel()
        self.heading.setObjectName("decision-heading")
        self.heading.setWordWrap(True)
        self.verdict = QLabel()
        self.verdict.setObjectName("decision-verdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.legend = QLabel()
        self.legend.setObjectName("decision-legend")
        self.legend.setWordWrap(True)
        self.all_columns = QCheckBox("All columns")
        self.all_columns.setToolTip("Also the model's prediction and its error beside each measured figure, raw "
                                    "capacity and the best-case failures (the CSV always has them)")
        self.copy_button = QPushButton("Copy table")
        self.copy_button.setToolTip("Copy the whole table as tab-separated text (Ctrl+C copies the selection)")
        self.csv_button = QPushButton("Export CSV…")
        self.direction_box = QComboBox()
        self.direction_box.setObjectName("decision-direction")
        self.block_box = QComboBox()
        self.block_box.setObjectName("decision-block")
        self.chart = LayoutsChart()

        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.all_columns)
        top.addWidget(self.copy_button)
        top.addWidget(self.csv_button)
        chart_bar = QHBoxLayout()
        chart_bar.addWidget(QLabel("Chart:"))
        chart_bar.addWidget(self.direction_box)
        chart_bar.addWidget(self.block_box)
        chart_bar.addStretch(1)
        upper = QWidget()
        ub = QVBoxLayout(upper)
        ub.setContentsMargins(0, 0, 0, 0)
        ub.addLayout(top)
        ub.addWidget(self.verdict)
        ub.addWidget(self.view, 1)
        ub.addWidget(self.legend)
        self.upper = upper
        lower = QWidget()
        lb = QVBoxLayout(lower)
        lb.setContentsMargins(0, 0, 0, 0)
        lb.addLayout(chart_bar)
        lb.addWidget(self.chart, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(upper)
        split.addWidget(lower)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
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
        upper = max(min(need, total - self.CHART_MIN_HEIGHT - chart_bar - self.split.handleWidth()), 0)
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
