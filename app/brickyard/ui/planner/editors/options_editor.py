"""Volume options: the current volume's ``gluster volume set`` options, editable.

The table lists each option with its value, gluster's default and what gluster would say
(``core.gluster_options``: the 10.3 catalog and glusterd's value checks). Below it, the
option field completes gluster's option names and shows each one's description; the value
field is checked as you type, and Set pushes one ``SetVolumeOption`` edit (Reset another
with no value), so every change is undoable and the Commands panel shows the new
``volume set`` line at once.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QCompleter, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ....core import edits
from ....core.gluster_options import GLUSTER_VERSION, check_option, lookup, option_names, resolve_name
from ...frame.session import Session
from ...widgets.make import button, wrapped_label
from ..panels.fields import mark_field
from .clients_panel import KeyClaim

ERROR_COLOUR = "#c62828"


class VolumeOptionsEditor(QWidget):
    sig_option_set = Signal(str, str)
    """str, str: an option name and its value, just set on the current volume ('' when reset)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("options.table")
        self.table.setHorizontalHeaderLabels(["Option", "Value", "gluster default", "gluster says"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        for col, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.ResizeToContents,
                                    QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch)):
            header.setSectionResizeMode(col, mode)
        self.name = QLineEdit()
        self.name.setObjectName("options.name")
        self.name.setPlaceholderText(f"a gluster {GLUSTER_VERSION} option, e.g. performance.cache-size")
        completer = QCompleter(option_names(), self.name)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setMaxVisibleItems(12)
        self.name.setCompleter(completer)
        self.name_error = QLabel()
        self.name_error.hide()
        self.value = QLineEdit()
        self.value.setObjectName("options.value")
        self.value_error = QLabel()
        self.value_error.hide()
        self.about = wrapped_label("", "options.about", style="color: #455a64;")
        self.set_button = button("Set", "options.set")
        self.reset_button = button("Reset to default", "options.reset",
                                   "Remove the option from the volume: gluster uses its default")
        # the fields first: a bottom dock is short, and the table scrolls while the fields must not
        row = QHBoxLayout()
        row.addWidget(QLabel("Option"))
        row.addLayout(self._with_error(self.name, self.name_error), 3)
        row.addWidget(QLabel("Value"))
        row.addLayout(self._with_error(self.value, self.value_error), 2)
        row.addWidget(self.set_button, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.reset_button, 0, Qt.AlignmentFlag.AlignTop)
        box = QVBoxLayout(self)
        box.addWidget(self.title)
        box.addLayout(row)
        box.addWidget(self.about)
        box.addWidget(self.table, 1)
        self.name.textChanged.connect(self._name_changed)
        self.value.textChanged.connect(self._value_changed)
        self.name.returnPressed.connect(self.value.setFocus)
        self.value.returnPressed.connect(self.apply)
        self.set_button.clicked.connect(self.apply)
        self.reset_button.clicked.connect(self.reset_selected)
        self.table.itemSelectionChanged.connect(self._row_chosen)
        self._keys = KeyClaim(self.table, {Qt.Key.Key_Delete: self.reset_selected,
                                           Qt.Key.Key_Backspace: self.reset_selected})
        session.sig_plan_changed.connect(lambda _plan: self.refresh())
        session.sig_volume_selected.connect(lambda _name: self.refresh())
        self.refresh()
        self._name_changed("")

    @staticmethod
    def _with_error(edit: QLineEdit, error: QLabel) -> QVBoxLayout:
        column = QVBoxLayout()
        column.setSpacing(1)
        column.addWidget(edit)
        column.addWidget(error)
        return column

    # ---- showing --------------------------------------------------------------------
    def refresh(self) -> None:
        volume = self.session.volume
        for w in (self.name, self.value, self.set_button, self.reset_button, self.table):
            w.setEnabled(volume is not None)
        if volume is None:
            self.title.setText("No volume: add one in the Layout panel to set its options.")
            self.table.setRowCount(0)
            self.name.clear()
            self.value.clear()
            return
        self.title.setText(f"<b>{volume.name}</b>: {len(volume.options)} option(s) set — "
                           f"provisioning runs <tt>gluster volume set</tt> for each, after create.")
        replica = self._replica()
        selected = self.selected_option()
        self.table.setRowCount(len(volume.options))
        for row, (key, value) in enumerate(volume.options.items()):
            check = check_option(key, value, volume.layout, replica, volume.name)
            spec = check.spec
            cells = [key, value, (spec.default or "") if spec else "",
                     check.problem or ("; ".join(check.notes) if check.notes else "accepted")]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(spec.description if spec and col < 3 else text)
                if check.problem:
                    item.setForeground(QColor(ERROR_COLOUR))
                self.table.setItem(row, col, item)
        if selected in volume.options:
            self.table.selectRow(list(volume.options).index(selected))

    def selected_option(self) -> str | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        return item.text() if item else None

    def _row_chosen(self) -> None:
        key = self.selected_option()
        volume = self.session.volume
        if key and volume is not None and key in volume.options:
            self.name.setText(key)
            self.value.setText(volume.options[key])

    def _name_changed(self, text: str) -> None:
        full = resolve_name(text) if text.strip() else None
        spec = lookup(full) if full else None
        if spec is None:
            self.about.setText("Type part of a name (cache, ping, quorum, write-behind…) and pick from the list."
                               if not text.strip() else "")
            self.value.setPlaceholderText("")
            mark_field(self.name, self.name_error, None)
            return
        mark_field(self.name, self.name_error, None)
        default = spec.default if spec.default not in (None, "") else "none"
        self.value.setPlaceholderText(f"{spec.kind_text}; default {default}")
        words = f"<b>{spec.name}</b> ({spec.kind_text}; default {default})"
        self.about.setText(f"{words}<br>{spec.description}" if spec.description else words)
        self._value_changed(self.value.text())

    def _value_changed(self, text: str) -> None:
        if not text.strip() or not self.name.text().strip():
            mark_field(self.value, self.value_error, None)
            return
        check = self._check()
        # the name's own problems show at the name once the user tries to set it
        problem = check.problem if check.spec is not None else None
        mark_field(self.value, self.value_error, problem)

    def _replica(self) -> int | None:
        """Bricks per replica set of the current volume (quorum-count's upper limit)."""
        volume, plan = self.session.volume, self.session.plan
        if volume is None or plan is None or not plan.sets or not volume.layout.type.is_replicated:
            return None
        return len(plan.sets[0].gluster_bricks)

    def _check(self):
        volume = self.session.volume
        return check_option(self.name.text(), self.value.text(), volume.layout if volume else None,
                            self._replica(), volume.name if volume else "VOL")

    # ---- editing --------------------------------------------------------------------
    def apply(self) -> bool:
        """Set the option in the fields on the current volume; False (fields marked) if
        gluster would refuse it."""
        volume = self.session.volume
        if volume is None:
            return False
        check = self._check()
        if check.spec is None:
            mark_field(self.name, self.name_error, check.problem)
            return False
        if check.problem:
            mark_field(self.value, self.value_error, check.problem)
            return False
        name, value = check.spec.name, self.value.text()
        if volume.options.get(name) == value:
            return True
        if self.session.push(edits.SetVolumeOption(volume.name, name, value)):
            self.sig_option_set.emit(name, value)
            self.name.clear()
            self.value.clear()
            return True
        return False

    def reset_selected(self) -> bool:
        """Remove the selected option (or the one named in the field) from the volume."""
        volume = self.session.volume
        key = self.selected_option() or resolve_name(self.name.text()) or self.name.text().strip()
        if volume is None or key not in volume.options:
            return False
        if self.session.push(edits.SetVolumeOption(volume.name, key, None)):
            self.sig_option_set.emit(key, "")
            self.name.clear()
            self.value.clear()
            return True
        return False
