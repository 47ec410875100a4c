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
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QMessageBox, QVBoxLayout, QWidget

from ..remote.hostkeys import HostKeyChanged, UnknownHostKey


class UnknownHostKeyDialog(QDialog):
    def __init__(self, exc: UnknownHostKey, parent: QWidget | None = None):
        super().__init__(parent)
        self.exc = exc
        self.setObjectName("unknown-host-key")
        self.setWindowTitle(f"Unknown host key: {exc.host}")
        layout = QVBoxLayout(self)
        intro = QLabel(f"Brickyard has never seen the SSH host key of <b>{_html(exc.lookup)}</b> "
                       f"(host <b>{_html(exc.host)}</b>). Before trusting it, compare it with the key on "
                       "the host itself, over a console or a connection you already trust:")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.fingerprint = QLabel(f"{exc.algorithm}  {exc.fingerprint}")
        self.fingerprint.setObjectName("fingerprint")
        self.fingerprint.setFont(mono)
        self.fingerprint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.fingerprint)
        how = QLabel("ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub   (or the *_key.pub of this key type)")
        how.setFont(mono)
        how.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(how)
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


def ask_trust(exc: UnknownHostKey, parent: QWidget | None = None) -> bool:
    """Ask once; on "Trust this key" store it and return True."""
    dialog = UnknownHostKeyDialog(exc, parent)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
    finally:
        dialog.deleteLater()
    exc.accept()
    return True


def show_changed(exc: HostKeyChanged, parent: QWidget | None = None) -> None:
    box = QMessageBox(QMessageBox.Icon.Critical, f"Host key changed: {exc.host}", str(exc),
                      QMessageBox.StandardButton.Close, parent)
    box.setObjectName("host-key-changed")
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.exec()
    box.deleteLater()


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
