"""The decision table on screen: one row per layout (and baseline), the figures that decide
which one to build, and a chart of the layouts side by side.

It shows a ``core.decision.DecisionTable`` and nothing else: every cell is the text
``DecisionTable.text`` gives (the same words the CSV, the CLI and the PDF report use), and
where each figure came from is visible at a glance — measured figures plain, the planner's
estimates in grey italics with "≈ … (est.)", exact figures from the topology (capacity,
failures survived) in dark blue — with how it was made (median of N repeats, the estimate's
formula, the runs) in the cell's tooltip.

- Sort: click a column header (best first; a figure that is not known goes last).
- Copy: Ctrl+C copies the selected cells, "Copy table" the whole table, as tab-separated text
  that pastes into a spreadsheet or a mail as columns.
- Export CSV: ``DecisionTable.to_csv`` (plain units, TB and TiB beside bytes, spread, source).
- Chart: at one block size and direction, each layout's bars side by side (one per
  concurrency), whiskers from the spread over repeats, estimates hatched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QSplitter, QTableView, QVBoxLayout, QWidget)

from ...core.decision import ESTIMATED, MEASURED, PLANNED, PREDICTED, DecisionTable, Row
from ...core.units import format_block_size
from ..history.charts import PALETTE, BaseChart, CategoryAxis, exact, value_scale

SOURCE_STYLE = {MEASURED: ("#111111", False), ESTIMATED: ("#757575", True), PLANNED: ("#0d47a1", False),
                PREDICTED: ("#6a1b9a", True)}
SOURCE_WORDS = {MEASURED: "measured", ESTIMATED: "estimate (planner's formula, not measured)",
                PLANNED: "exact from the topology (planner)", PREDICTED: "predicted by a calibrated model"}
LAYOUT_TITLE = "layout"


class DecisionModel(QAbstractTableModel):
    """A DecisionTable as rows × (layout, columns…); sorting replaces the table's row order."""

    def __init__(self, table: DecisionTable | None = None, parent=None):
        super().__init__(parent)
        self.table = table
        self.sorted_key = ""

    def set_table(self, table: DecisionTable | None) -> None:
        self.beginResetModel()
        self.table = table
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() or self.table is None else len(self.table.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() or self.table is None else 1 + len(self.table.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if self.table is None or orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return LAYOUT_TITLE if section == 0 else self.table.columns[section - 1].title
        if role == Qt.ItemDataRole.ToolTipRole and section > 0:
            c = self.table.columns[section - 1]
            better = "higher is better" if c.higher_is_better else "lower is better"
            return f"{c.title} ({c.unit}; {better}). Click to sort best first."
        return None

    def row(self, index: int) -> Row:
        return self.table.rows[index]

    def cell_text(self, r: int, c: int) -> str:
        row = self.table.rows[r]
        if c == 0:
            return row.label
        return self.table.text(row, self.table.columns[c - 1].key)

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
        column = self.table.columns[index.column() - 1]
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
            key = self.table.columns[column - 1].key
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
        return "\n".join("\t".join(line) for line in [head, *body])


class LayoutsChart(BaseChart):
    """Each layout's throughput at one block size and direction, bars side by side per
    concurrency, whiskers from the repeats' spread, estimates hatched and lighter."""

    def __init__(self, parent=None) -> None:
        self.category_axis = CategoryAxis()
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


class DecisionView(QWidget):
    """A decision table with its chart; ``set_table`` shows another one."""

    sig_status = Signal(str)

    def __init__(self, table: DecisionTable | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = QTableView()
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
        self.heading = QLabel()
        self.heading.setObjectName("decision-heading")
        self.heading.setWordWrap(True)
        self.legend = QLabel("<span style='color:#111'>measured</span> · "
                             "<span style='color:#0d47a1'>exact from the topology</span> · "
                             "<i style='color:#757575'>≈ estimate (est.), not measured</i> · "
                             "±: half the range over repeats · hover a cell for how it was made")
        self.all_columns = QCheckBox("All columns")
        self.all_columns.setToolTip("Also raw capacity and the best-case failures (the CSV always has them)")
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
        ub.addWidget(self.view, 1)
        ub.addWidget(self.legend)
        lower = QWidget()
        lb = QVBoxLayout(lower)
        lb.setContentsMargins(0, 0, 0, 0)
        lb.addLayout(chart_bar)
        lb.addWidget(self.chart, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(upper)
        split.addWidget(lower)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
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
            self.heading.setText(f"<b>Decision table</b>: {len(table.rows)} layouts and baselines, {what}. "
                                 + " ".join(table.notes))
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
        """The primary columns, or all of them."""
        for i, c in enumerate(self.table.columns if self.table else ()):
            self.view.setColumnHidden(i + 1, not (c.primary or self.all_columns.isChecked()))

    def _sort(self, column: int, order: Qt.SortOrder) -> None:
        """A header click: best first on the first click (the column's own sense of better)."""
        if self.table is None or column < 0:
            return
        if column > 0:
            best_first = self.table.columns[column - 1].higher_is_better
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
        Path(path).write_text(self.table.to_csv(), encoding="utf-8")
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
