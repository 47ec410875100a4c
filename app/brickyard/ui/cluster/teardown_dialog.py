"""The typed confirmation in front of a teardown: nothing is deleted until the user types the
volume's name (what ``brickyard teardown --confirm NAME`` asks on the command line).

The dialog lists what the teardown will do, host by host, with the exact commands (the text
``brickyard teardown --dry-run`` prints, Brickyard's scripts shown whole), and says what it keeps. The
destructive button stays disabled until the typed name matches exactly; Enter in the name
field confirms only then, and closing or Escape cancels.
"""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase, QFontMetrics
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QLabel, QLineEdit, QPlainTextEdit, QVBoxLayout,
                               QWidget)

from ...remote.commandline import dry_run_lines
from ...remote.steps import Step, dry_run


class TeardownDialog(QDialog):
    def __init__(self, volume: str, steps: list[Step], parent: QWidget | None = None):
        super().__init__(parent)
        self.volume = volume
        self.setObjectName("confirm-teardown")
        self.setWindowTitle(f"Tear down volume {volume}")
        self.setMinimumWidth(760)
        layout = QVBoxLayout(self)
        intro = QLabel(f"This unmounts <b>{_html(volume)}</b> on its clients, stops and deletes it, and removes "
                       "the brick directories Brickyard created for it, <b>with the data in them</b>. "
                       "Directories Brickyard did not create are kept; peers stay in the pool; "
                       "nothing is formatted.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        text = dry_run_lines(dry_run("teardown", volume, steps))
        plan = QPlainTextEdit("\n".join(text))
        plan.setObjectName("teardown-steps")
        plan.setReadOnly(True)
        plan.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        lines = QFontMetrics(plan.font()).lineSpacing()
        plan.setMinimumHeight(min(16, max(2, len(text))) * lines + 2 * plan.frameWidth() + 12)
        layout.addWidget(plan)
        ask = QLabel(f"Type the volume name <b>{_html(volume)}</b> to confirm:")
        layout.addWidget(ask)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("confirm-name")
        # not the name alone: greyed in the empty field it read as already typed (issue 21 walk)
        self.name_edit.setPlaceholderText(f"type {volume} here")
        ask.setBuddy(self.name_edit)
        layout.addWidget(self.name_edit)
        buttons = QDialogButtonBox()
        self.teardown_button = buttons.addButton(f"Tear down {volume}", QDialogButtonBox.ButtonRole.AcceptRole)
        self.teardown_button.setObjectName("confirm")
        self.teardown_button.setStyleSheet("QPushButton:enabled { color: #b00020; font-weight: bold; }")
        cancel = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        cancel.setObjectName("cancel")
        for button in (self.teardown_button, cancel):
            button.setAutoDefault(False)
            button.setDefault(False)
        buttons.accepted.connect(self._confirm)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.name_edit.textChanged.connect(self._typed)
        self.name_edit.returnPressed.connect(self._confirm)
        self._typed("")
        self.name_edit.setFocus()

    @property
    def confirmed(self) -> bool:
        return self.name_edit.text() == self.volume

    def _typed(self, _text: str) -> None:
        self.teardown_button.setEnabled(self.confirmed)

    def _confirm(self) -> None:
        if self.confirmed:
            self.accept()


def confirm_teardown(volume: str, steps: list[Step], parent: QWidget | None = None) -> bool:
    """True once the user typed ``volume`` and pressed the teardown button."""
    dialog = TeardownDialog(volume, steps, parent)
    try:
        return dialog.exec() == QDialog.DialogCode.Accepted and dialog.confirmed
    finally:
        dialog.deleteLater()


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
