"""The app's answer to a host key it cannot vouch for.

An unknown key (``UnknownHostKey``) is shown with its SHA256 fingerprint and how to read the
real one on the host; only an explicit "Trust this key" stores it (``accept()`` appends it to
Brickyard's own known_hosts) and the caller then simply tries again. The safe answer is the
default button. A changed key (``HostKeyChanged``) is never offered for acceptance: the dialog
explains the refusal and how to remove the stale line if the change is expected.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QLabel, QMessageBox, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ...remote.hostkeys import HostKeyChanged, UnknownHostKey


class UnknownHostKeyDialog(QDialog):
    def __init__(self, exc: UnknownHostKey, parent: QWidget | None = None, name: str = ""):
        super().__init__(parent)
        self.exc = exc
        name = name or exc.host
        self.setObjectName("unknown-host-key")
        self.setWindowTitle(f"Unknown host key: {name}")
        layout = QVBoxLayout(self)
        where = f"<b>{_html(name)}</b>" + (f" ({_html(exc.lookup)})" if exc.lookup != name else "")
        intro = QLabel(f"Brickyard has never seen the SSH host key of {where}. "
                       "Before trusting it, compare it with the key on "
                       "the host itself, over a console or a connection you already trust:")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.fingerprint = QLabel(f"{exc.algorithm}  {exc.fingerprint}")
        self.fingerprint.setObjectName("fingerprint")
        self.fingerprint.setFont(mono)
        self.fingerprint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.fingerprint)
        layout.addWidget(_how_to_compare())
        where = QLabel(f"Trusting it adds it to {_html(str(exc.store))}. Brickyard will then refuse this host "
                       "if its key ever changes.")
        where.setWordWrap(True)
        layout.addWidget(where)
        buttons = QDialogButtonBox()
        self.trust_button = buttons.addButton("Trust this key", QDialogButtonBox.ButtonRole.AcceptRole)
        self.trust_button.setObjectName("trust")
        self.refuse_button = buttons.addButton("Don't trust", QDialogButtonBox.ButtonRole.RejectRole)
        self.refuse_button.setObjectName("refuse")
        self.refuse_button.setDefault(True)
        self.refuse_button.setFocus()
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


def ask_trust(exc: UnknownHostKey, parent: QWidget | None = None, name: str = "") -> bool:
    """Ask once; on "Trust this key" store it and return True. ``name``: the host as the user knows it."""
    dialog = UnknownHostKeyDialog(exc, parent, name)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
    finally:
        dialog.deleteLater()
    exc.accept()
    return True


class UnknownHostKeysDialog(QDialog):
    """Several unknown keys at once (a new cluster): each must be ticked to be trusted."""

    def __init__(self, errors: list[UnknownHostKey], parent: QWidget | None = None, names: list[str] | None = None):
        super().__init__(parent)
        self.errors = errors
        names = names or [exc.host for exc in errors]
        self.setObjectName("unknown-host-keys")
        self.setWindowTitle(f"{len(errors)} unknown host keys")
        self.resize(900, 200 + 30 * min(len(errors), 12))
        layout = QVBoxLayout(self)
        intro = QLabel("Brickyard has never seen the SSH host keys of these hosts. Compare each fingerprint with "
                       "the key on the host itself (over a console or a connection you already trust), "
                       "tick the ones that match, and trust only those:")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addWidget(_how_to_compare())
        self.table = QTableWidget(len(errors), 3)
        self.table.setObjectName("keys")
        self.table.setHorizontalHeaderLabels(["Host", "Key type", "SHA256 fingerprint"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for row, (exc, name) in enumerate(zip(errors, names)):
            host = QTableWidgetItem(name if exc.lookup == name else f"{name}  ({exc.lookup})")
            host.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            host.setCheckState(Qt.CheckState.Unchecked)
            self.table.setItem(row, 0, host)
            kind = QTableWidgetItem(exc.algorithm)
            kind.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.table.setItem(row, 1, kind)
            fp = QTableWidgetItem(exc.fingerprint)
            fp.setFont(mono)
            fp.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            self.table.setItem(row, 2, fp)
        layout.addWidget(self.table, 1)
        where = QLabel(f"Trusted keys are added to {_html(str(errors[0].store))}.")
        where.setWordWrap(True)
        layout.addWidget(where)
        buttons = QDialogButtonBox()
        self.trust_button = buttons.addButton("Trust the ticked keys", QDialogButtonBox.ButtonRole.AcceptRole)
        self.trust_button.setObjectName("trust")
        self.trust_button.setEnabled(False)
        self.refuse_button = buttons.addButton("Don't trust any", QDialogButtonBox.ButtonRole.RejectRole)
        self.refuse_button.setObjectName("refuse")
        self.refuse_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.table.itemChanged.connect(lambda _item: self.trust_button.setEnabled(bool(self.ticked())))

    def tick(self, row: int, on: bool = True) -> None:
        self.table.item(row, 0).setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def ticked(self) -> list[UnknownHostKey]:
        return [exc for row, exc in enumerate(self.errors)
                if self.table.item(row, 0).checkState() == Qt.CheckState.Checked]


def ask_trust_many(errors: list[UnknownHostKey], parent: QWidget | None = None,
                   names: list[str] | None = None) -> list[UnknownHostKey]:
    """Ask about every key at once (one key: the single dialog); store and return the trusted ones.

    ``names``: each host as the user knows it (the topology's node name), beside its address."""
    if len(errors) == 1:
        return errors if ask_trust(errors[0], parent, names[0] if names else "") else []
    dialog = UnknownHostKeysDialog(errors, parent, names)
    try:
        chosen = dialog.ticked() if dialog.exec() == QDialog.DialogCode.Accepted else []
    finally:
        dialog.deleteLater()
    for exc in chosen:
        exc.accept()
    return chosen


def ask_unless_refused(errors: list[UnknownHostKey], names: list[str], refused: set[str],
                       parent: QWidget | None = None) -> tuple[list[UnknownHostKey], list[str]]:
    """One question about every key not already refused in this round of runs (``refused`` holds
    fingerprints and gains the ones refused now): (keys trusted and stored, names refused now)."""
    pairs = [(e, n) for e, n in zip(errors, names) if e.fingerprint not in refused]
    if not pairs:
        return [], []
    trusted = ask_trust_many([e for e, _ in pairs], parent, [n for _, n in pairs])
    refused_now = [(e, n) for e, n in pairs if e not in trusted]
    refused.update(e.fingerprint for e, _ in refused_now)
    return trusted, [n for _, n in refused_now]


def show_changed(exc: HostKeyChanged, parent: QWidget | None = None) -> None:
    box = QMessageBox(QMessageBox.Icon.Critical, f"Host key changed: {exc.host}", str(exc),
                      QMessageBox.StandardButton.Close, parent)
    box.setObjectName("host-key-changed")
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.exec()
    box.deleteLater()


def _how_to_compare() -> QLabel:
    """The command that shows the real fingerprint on the host, selectable to copy."""
    how = QLabel("ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub   (or the *_key.pub of the key type shown)")
    how.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    how.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return how


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
