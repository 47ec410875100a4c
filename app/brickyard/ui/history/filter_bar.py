"""The History filter bar: volume, layout, workload, host, gluster version, volume option and
date range, read as a ``store.RunFilter``. The browser (``browser.HistoryView``) queries the
store with what it says."""

from __future__ import annotations

import calendar
from typing import Any, Callable

from PySide6.QtCore import QDate, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDateEdit, QGridLayout, QLabel, QWidget

from brickyard.store import RunFilter

ANY = "(any)"


class FilterBar(QWidget):
    """Volume, layout, workload, host, gluster version, volume option, date range."""

    sig_changed = Signal()
    TYPED = {"layout": "a layout type in any case (disperse, replicate, distributed-disperse) or part of a label "
                       "(replica 3, arbiter)",
             "gluster_version": "a version as you would say it: 10.3, or 10 for every 10.x",
             "option": "NAME or NAME=VALUE; the last part of a name is enough (write-behind=off)"}

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combos: dict[str, QComboBox] = {}
        self.before_use: Callable[[], None] | None = None   # fills the choices if still due
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self._typing = QTimer(self)          # typed filters apply 300 ms after the last key
        self._typing.setSingleShot(True)
        self._typing.setInterval(300)
        self._typing.timeout.connect(self.sig_changed)
        for i, (key, text) in enumerate((("volume", "volume"), ("layout", "layout"), ("workload", "workload"),
                                         ("host", "host"), ("gluster_version", "gluster"), ("option", "option"))):
            combo = QComboBox()
            combo.setMinimumContentsLength(10)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.addItem(ANY)
            if key in self.TYPED:        # match as typed: "10.3", "disperse", "write-behind=off"
                combo.setEditable(True)
                combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
                combo.lineEdit().setPlaceholderText(ANY)
                combo.lineEdit().textEdited.connect(lambda _t: self._typing.start())
                combo.setToolTip(self.TYPED[key])
            combo.currentIndexChanged.connect(self.sig_changed)
            self.combos[key] = combo
            row, col = divmod(i, 4)       # two rows of four: label, field
            grid.addWidget(QLabel(text), row, 2 * col)
            grid.addWidget(combo, row, 2 * col + 1)
        self.since_check, self.until_check = QCheckBox("since"), QCheckBox("before")
        self.since, self.until = QDateEdit(), QDateEdit()
        for check, edit, col in ((self.since_check, self.since, 4), (self.until_check, self.until, 6)):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setDate(QDate.currentDate())
            edit.setEnabled(False)
            check.toggled.connect(edit.setEnabled)
            check.toggled.connect(self.sig_changed)
            edit.dateChanged.connect(self.sig_changed)
            grid.addWidget(check, 1, col)
            grid.addWidget(edit, 1, col + 1)

    def set_choices(self, choices: Any) -> None:
        for key, values in (("volume", choices.volumes), ("layout", choices.layouts), ("workload", choices.workloads),
                            ("host", choices.hosts), ("gluster_version", choices.gluster_versions),
                            ("option", choices.options)):
            combo = self.combos[key]
            keep = combo.currentText()
            if [combo.itemText(i) for i in range(combo.count())] == [ANY, *values]:
                continue                 # unchanged: leave a half-typed filter alone
            combo.blockSignals(True)
            combo.clear()
            combo.addItems([ANY, *values])
            found = combo.findText(keep)
            combo.setCurrentIndex(max(0, found))
            if combo.isEditable() and found < 0:
                combo.setEditText(keep)          # a typed filter is not one of the values
            combo.blockSignals(False)

    def set_value(self, key: str, text: str) -> None:
        """Pick a stored value; a typed filter (layout, gluster, option) takes any text."""
        if self.before_use is not None:
            self.before_use()
        combo = self.combos[key]
        i = combo.findText(text)
        if i >= 0:
            combo.setCurrentIndex(i)
            if combo.isEditable():
                combo.setEditText(text)
                self.sig_changed.emit()
            return
        if not combo.isEditable():
            raise ValueError(f"{key} {text!r} is not among the stored values")
        combo.setEditText(text)
        self.sig_changed.emit()

    def filters(self) -> RunFilter:
        values = {k: ("" if c.currentText().strip() in (ANY, "") else c.currentText().strip())
                  for k, c in self.combos.items()}

        def epoch(edit: QDateEdit) -> float:
            d = edit.date()
            return float(calendar.timegm((d.year(), d.month(), d.day(), 0, 0, 0)))

        return RunFilter(**values, since=epoch(self.since) if self.since_check.isChecked() else None,
                         until=epoch(self.until) if self.until_check.isChecked() else None)
