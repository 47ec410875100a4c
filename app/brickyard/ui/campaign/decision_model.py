"""The decision table's rows and columns as a Qt table model (``DecisionModel``): the cell
texts ``DecisionTable.text`` gives, each figure's source as its colour and italics, the
tooltip of how it was made, the sort (best first, unknown last) and the tab-separated copy;
plus which columns show by default, the row order and the legend under the table. The view
that shows it is ``decision_view.py``."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from ...core.decisiontable import BASELINE, ESTIMATED, MEASURED, PLANNED, PREDICTED, Column, DecisionTable, Row
from ...core.modelcheck import ERR_GROUP, PRED_GROUP
from ...core.spreadsheet import tsv_text
from ..widgets.chart import exact

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
