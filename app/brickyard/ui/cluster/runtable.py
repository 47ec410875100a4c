"""What the cluster tabs (Pre-flight, Provision, Change) share: a coloured status cell, tree rows
that wrap to their column instead of being cut off, the volume chooser, and the snapshot a run
works on."""

from __future__ import annotations

import json
from typing import Callable

from PySide6.QtCore import QModelIndex, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QTextLayout, QTextOption
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate, QStyleOptionViewItem, QTreeWidget, QTreeWidgetItem

from ...core import topofile
from ...core.topology import UNTITLED, Topology


def snapshot(topo: Topology) -> Topology:
    """A copy for the loop thread: the user may keep editing while a run goes on. A window
    opened without a file holds a topology with no name yet (the file reader refuses an empty
    one): its copy is named as File > New names one, so a first baseline run from a fresh
    window starts instead of raising."""
    doc = topofile.to_dict(topo)
    if not doc.get("name"):
        doc["name"] = UNTITLED
    return topofile.loads(json.dumps(doc, ensure_ascii=False), "<snapshot for a run>")


def fill_volumes(box: QComboBox, topo: Topology, wanted: str) -> None:
    """The topology's volumes in ``box`` (each name its data), ``wanted`` chosen when it is one of
    them; no signal: filling is not choosing."""
    box.blockSignals(True)
    box.clear()
    for volume in topo.volumes:
        box.addItem(volume.name, volume.name)
    box.setCurrentIndex(max(0, box.findData(wanted)))
    box.blockSignals(False)


def set_status(row: QTreeWidgetItem, column: int, status: str, word: str, colour: str, fill: str) -> None:
    """Show ``word`` in bold ``colour`` on ``fill``; ``status`` is kept in the cell's UserRole."""
    row.setText(column, word)
    row.setData(column, Qt.ItemDataRole.UserRole, status)
    row.setForeground(column, QBrush(QColor(colour)))
    row.setBackground(column, QBrush(QColor(fill)))
    font = QFont(row.font(column))
    font.setBold(True)
    row.setFont(column, font)


def wrapped_height(text: str, font: QFont, width: int) -> int:
    """Height of ``text`` wrapped to ``width`` the way an item view paints it (at word
    boundaries, or anywhere inside a word longer than the line)."""
    layout = QTextLayout(text.replace("\n", "\u2028"), font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    height = 0.0
    layout.beginLayout()
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        height += line.height()
    layout.endLayout()
    return int(height + 0.999) or QFontMetrics(font).height()


class WrapDelegate(QStyledItemDelegate):
    """Wraps the cells ``wraps(index)`` picks to their column's width (a row whose first column
    spans the tree wraps to the tree's width): QTreeView alone sizes rows as if unbounded."""

    def __init__(self, tree: QTreeWidget, wraps: Callable[[QModelIndex], bool]):
        super().__init__(tree)
        self.tree = tree
        self.wraps = wraps

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().initStyleOption(option, index)
        if self.wraps(index):
            option.features |= QStyleOptionViewItem.ViewItemFeature.WrapText

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        if not self.wraps(index):
            return size
        if self.tree.isFirstColumnSpanned(index.row(), index.parent()):
            depth, parent = 1, index.parent()
            while parent.isValid():
                depth, parent = depth + 1, parent.parent()
            width = max(200, self.tree.viewport().width() - depth * self.tree.indentation() - 12)
        else:
            width = max(80, self.tree.header().sectionSize(index.column()) - 10)
        font = index.data(Qt.ItemDataRole.FontRole) or option.font
        return QSize(size.width(), max(size.height(), wrapped_height(str(index.data() or ""), font, width) + 4))
