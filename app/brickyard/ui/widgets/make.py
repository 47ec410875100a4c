"""The few lines every view repeats to make a control: a name (tests and the self-test find it
by that), a tooltip, word wrap; and a row of controls with a stretch where it should give."""

from __future__ import annotations

from typing import Callable, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QBoxLayout, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout,
                               QLabel, QLayout, QMenu, QPushButton, QSplitter, QVBoxLayout, QWidget)

W = TypeVar("W", bound=QWidget)

STRETCH = None
"""In ``hbox`` and ``vstack``: the room that is left goes here."""


def named(widget: W, name: str, tip: str = "") -> W:
    widget.setObjectName(name)
    if tip:
        widget.setToolTip(tip)
    return widget


def button(text: str, name: str, tip: str = "") -> QPushButton:
    return named(QPushButton(text), name, tip)


def check_box(text: str, name: str, tip: str = "", checked: bool = False) -> QCheckBox:
    box = named(QCheckBox(text), name, tip)
    box.setChecked(checked)
    return box


def combo_box(name: str, min_width: int = 0) -> QComboBox:
    box = named(QComboBox(), name)
    if min_width:
        box.setMinimumWidth(min_width)
    return box


def wrapped_label(text: str = "", name: str = "", *, selectable: bool = False, style: str = "") -> QLabel:
    """A label that wraps its words (a message, a summary); ``selectable``: the mouse can select
    its text to copy it."""
    label = QLabel(text)
    if name:
        label.setObjectName(name)
    label.setWordWrap(True)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if style:
        label.setStyleSheet(style)
    return label


Item = QWidget | QLayout | tuple[QWidget, int] | None


def hbox(*items: Item, layout: QHBoxLayout | None = None) -> QHBoxLayout:
    """A horizontal row of ``items`` left to right: a widget, a layout, (widget, stretch), or
    STRETCH where the room that is left goes. ``layout``: fill this one (a frame's) instead of
    a new one."""
    return _fill(layout if layout is not None else QHBoxLayout(), items)


def vstack(*items: Item) -> QWidget:
    """A widget holding ``items`` (as in ``hbox``) top to bottom, with no margin of its own: a
    part of a splitter or a scroll area."""
    widget = QWidget()
    box = QVBoxLayout(widget)
    box.setContentsMargins(0, 0, 0, 0)
    _fill(box, items)
    return widget


def splitter(orientation: Qt.Orientation, *parts: QWidget | tuple[QWidget, int], sizes: tuple[int, ...] = (),
             collapsible: bool = True) -> QSplitter:
    """A splitter of ``parts`` (a widget, or (widget, stretch factor)); ``sizes``: the first
    division in pixels; ``collapsible`` False: no part can be dragged away to nothing."""
    split = QSplitter(orientation)
    split.setChildrenCollapsible(collapsible)
    for i, part in enumerate(parts):
        widget, stretch = part if isinstance(part, tuple) else (part, None)
        split.addWidget(widget)
        if stretch is not None:
            split.setStretchFactor(i, stretch)
    if sizes:
        split.setSizes(list(sizes))
    return split


def form(*rows: tuple[str, QWidget | QLayout] | QWidget, layout: QFormLayout | None = None) -> QFormLayout:
    """A form of ``rows`` top to bottom: (label, field or layout), or a widget spanning the row.
    ``layout``: fill this one (a dialog's) instead of a new one."""
    box = layout if layout is not None else QFormLayout()
    for r in rows:
        if isinstance(r, tuple):
            box.addRow(*r)
        else:
            box.addRow(r)
    return box


def ok_cancel(dialog: QDialog, accept: Callable[[], object]) -> QDialogButtonBox:
    """OK and Cancel for ``dialog``: OK calls ``accept`` (which checks the fields and accepts
    the dialog when they hold), Cancel rejects it."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


def menu_action(menu: QMenu, text: str, slot: Callable, *, keys: str = "", name: str = "", tip: str = "") -> QAction:
    """An entry of ``menu`` that calls ``slot``; ``keys``: its shortcut ("Ctrl+Shift+P")."""
    action = menu.addAction(text)
    if name:
        action.setObjectName(name)
    if tip:
        action.setToolTip(tip)
    if keys:
        action.setShortcut(QKeySequence(keys))
    action.triggered.connect(slot)
    return action


def _fill(box: QBoxLayout, items) -> QBoxLayout:
    for item in items:
        if item is STRETCH:
            box.addStretch(1)
        elif isinstance(item, tuple):
            box.addWidget(*item)
        elif isinstance(item, QLayout):
            box.addLayout(item)
        else:
            box.addWidget(item)
    return box
