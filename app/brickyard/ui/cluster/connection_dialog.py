"""Cluster ▸ Connection settings…: how the window reaches hosts, without the terminal.

One page: the OpenSSH client config file (``~/.ssh/config`` unless another is chosen), identity
files (tried like ``ssh -i``), a default user, and per-host user and port, each checked as it
is typed (``remote.connection.ConnectionSettings.problems``); a Test button logs in to a host
with what the page says, before anything is saved, and says as whom and where, or the refusal
naming the config and keys it tried. Save keeps the settings in settings.json (never a
password: a host that offers password login asks, and the password goes only to the OS
keyring) and the window reconnects with them (``RemoteBridge.set_connection``).
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QListWidget, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ...remote.connection import DEFAULT_KEY_FILES, ConnectionSettings, HostSetting
from ...remote.executor import ExecutorError
from ...remote.hostkeys import HostKeyChanged, UnknownHostKey
from ..frame.bridge import RemoteBridge
from . import hostkey_dialog
from .import_dialog import ssh_aliases

ERROR_STYLE = "color: #b00020;"
OK_STYLE = "color: #1b5e20;"


def default_keys_present() -> list[str]:
    folder = Path("~/.ssh").expanduser()
    return [f"~/.ssh/{name}" for name in DEFAULT_KEY_FILES if (folder / name).is_file()]


def _heading(text: str) -> QLabel:
    label = QLabel(f"<b>{text}</b>")
    label.setWordWrap(True)
    return label


class ConnectionDialog(QDialog):
    """Edits ``bridge``'s connection settings; ``saved`` holds them after Save."""

    sig_saved = Signal(object)
    """ConnectionSettings: what was saved (the bridge already uses it)."""

    def __init__(self, bridge: RemoteBridge, settings: ConnectionSettings, parent: QWidget | None = None,
                 test_host: str = ""):
        super().__init__(parent)
        self.bridge = bridge
        self.saved: ConnectionSettings | None = None
        self._test = None            # the FutureWatcher of a running login test
        self._test_host = ""
        self.setObjectName("connection-settings")
        self.setWindowTitle("Connection settings")
        self.setMinimumWidth(720)
        layout = QVBoxLayout(self)
        intro = QLabel("How Brickyard reaches your servers and clients over SSH, as <tt>ssh</tt> would: the "
                       "OpenSSH config's hosts, users, ports, keys and ProxyJump, plus what you set here. "
                       "ssh-agent's keys are always offered first. Passwords are never kept here: a host that "
                       "offers password login asks, and the password is kept only in the OS keyring.")
        intro.setWordWrap(True)
        layout.addWidget(intro)

        form = QFormLayout()
        self.config_edit = QLineEdit(settings.ssh_config)
        self.config_edit.setObjectName("ssh-config")
        self.config_edit.setPlaceholderText("~/.ssh/config (as ssh reads it)")
        browse = QPushButton("Choose…")
        browse.setObjectName("choose-ssh-config")
        browse.clicked.connect(self._choose_config)
        row = QHBoxLayout()
        row.addWidget(self.config_edit, 1)
        row.addWidget(browse)
        config_label = QLabel("SSH &config file:")
        config_label.setBuddy(self.config_edit)
        form.addRow(config_label, row)
        self.config_note = QLabel()
        self.config_note.setObjectName("ssh-config-note")
        self.config_note.setWordWrap(True)
        form.addRow("", self.config_note)
        self.user_edit = QLineEdit(settings.default_user)
        self.user_edit.setObjectName("default-user")
        self.user_edit.setPlaceholderText(f"as the config says, else {getpass.getuser()} (your login name)")
        form.addRow("Default &user:", self.user_edit)
        layout.addLayout(form)

        layout.addWidget(_heading("Identity files (keys)"))
        self.keys = QListWidget()
        self.keys.setObjectName("identity-files")
        self.keys.addItems(list(settings.identity_files))
        self.keys.setFixedHeight(3 * self.keys.fontMetrics().lineSpacing() + 10)
        key_buttons = QHBoxLayout()
        add_key = QPushButton("Add key…")
        add_key.setObjectName("add-key")
        add_key.clicked.connect(self._add_key)
        remove_key = QPushButton("Remove")
        remove_key.setObjectName("remove-key")
        remove_key.clicked.connect(lambda: [self.keys.takeItem(self.keys.row(i)) for i in self.keys.selectedItems()]
                                   and self._changed())
        key_buttons.addWidget(add_key)
        key_buttons.addWidget(remove_key)
        key_buttons.addStretch(1)
        self.keys_note = QLabel()
        self.keys_note.setObjectName("identity-note")
        self.keys_note.setWordWrap(True)
        layout.addWidget(self.keys)
        layout.addLayout(key_buttons)
        layout.addWidget(self.keys_note)

        layout.addWidget(_heading("Per host: wins over the config, as ssh -l and -p do; a user the topology "
                                  "names for a machine wins over both"))
        self.hosts = QTableWidget(0, 3)
        self.hosts.setObjectName("host-settings")
        self.hosts.setHorizontalHeaderLabels(["host", "user", "port"])
        self.hosts.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.hosts.verticalHeader().hide()
        self.hosts.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.hosts.setFixedHeight(self.hosts.horizontalHeader().sizeHint().height()
                                  + 3 * self.hosts.verticalHeader().defaultSectionSize() + 6)
        for h in settings.hosts:
            self._add_host_row(h.host, h.user, str(h.port) if h.port else "")
        host_buttons = QHBoxLayout()
        add_host = QPushButton("Add host")
        add_host.setObjectName("add-host")
        add_host.clicked.connect(lambda: self._add_host_row("", "", "", edit=True))
        remove_host = QPushButton("Remove")
        remove_host.setObjectName("remove-host")
        remove_host.clicked.connect(self._remove_hosts)
        host_buttons.addWidget(add_host)
        host_buttons.addWidget(remove_host)
        host_buttons.addStretch(1)
        layout.addWidget(self.hosts)
        layout.addLayout(host_buttons)

        test_row = QHBoxLayout()
        test_row.addWidget(QLabel("&Test login to:"))
        self.test_edit = QLineEdit(test_host)
        self.test_edit.setObjectName("test-host")
        self.test_edit.setPlaceholderText("a node or client, e.g. node1")
        test_row.itemAt(0).widget().setBuddy(self.test_edit)
        self.test_button = QPushButton("Test")
        self.test_button.setObjectName("test-login")
        self.test_button.clicked.connect(self.test_login)
        test_row.addWidget(self.test_edit, 1)
        test_row.addWidget(self.test_button)
        layout.addLayout(test_row)
        self.status = QLabel()
        self.status.setObjectName("connection-status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.status)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setObjectName("save-connection")
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.test_button.setAutoDefault(False)

        self.config_edit.textChanged.connect(self._changed)
        self.user_edit.textChanged.connect(self._changed)
        self.hosts.itemChanged.connect(self._changed)
        self._changed()

    # ---- the page's state -----------------------------------------------------------
    def settings(self) -> ConnectionSettings:
        """What the page says now (saved or not)."""
        hosts = []
        for r in range(self.hosts.rowCount()):
            host, user, port = (self.hosts.item(r, c).text().strip() if self.hosts.item(r, c) else "" for c in range(3))
            if host or user or port:
                hosts.append(HostSetting(host, user, int(port) if port.isdigit() else -1 if port else 0))
        return ConnectionSettings(self.config_edit.text().strip(),
                                  tuple(self.keys.item(i).text() for i in range(self.keys.count())),
                                  self.user_edit.text().strip(), tuple(hosts))

    def problems(self) -> list[str]:
        problems = self.settings().problems()
        return [p.replace("port -1 is not", "the port is not a number") for p in problems]

    def _changed(self, *_: object) -> None:
        settings = self.settings()
        override = self.bridge.ssh_config_override
        config = os.path.expanduser(settings.ssh_config) if settings.ssh_config else str(Path("~/.ssh/config").expanduser())
        aliases = ssh_aliases([config]) if os.path.isfile(config) else []
        if override:
            note = (f"This window was started with --ssh-config {override[0]} (or $BRICKYARD_SSH_CONFIG): that "
                    "file is used until the window is started without it.")
        elif not os.path.isfile(config):
            note = f"{config} does not exist: only what you set here applies."
        else:
            note = f"{config}: {len(aliases)} host(s): {', '.join(aliases[:8])}{' …' if len(aliases) > 8 else ''}"
        self.config_note.setText(note)
        if settings.identity_files:
            self.keys_note.setText("Tried in this order, before the config's IdentityFile (like ssh -i); the default "
                                   "keys are then not tried. An encrypted key's passphrase is asked once a session.")
        else:
            found = default_keys_present()
            self.keys_note.setText("None here: the config's IdentityFile, or when it names none OpenSSH's default "
                                   "keys: " + (", ".join(found) if found else "none exists (~/.ssh/id_ed25519, "
                                                                              "id_ecdsa, id_rsa, …)") + ".")
        QTimer.singleShot(0, self, self.fit_height)
        problems = self.problems()
        self.save_button.setEnabled(not problems)
        if problems:
            self._say("\n".join(problems), error=True)
        elif self.status.styleSheet() == ERROR_STYLE and self._test is None:
            self._say("")

    def _say(self, text: str, error: bool = False, ok: bool = False) -> None:
        self.status.setStyleSheet(ERROR_STYLE if error else OK_STYLE if ok else "")
        self.status.setText(text)
        QTimer.singleShot(0, self, self.fit_height)

    def fit_height(self) -> None:
        """Grow to what the wrapped notes need at this width (Qt's layouts do not grow a
        window for a label that wraps onto more lines), never past the screen."""
        layout = self.layout()
        need = layout.totalHeightForWidth(self.width()) if layout.hasHeightForWidth() else layout.totalSizeHint().height()
        room = self.screen().availableGeometry().height() - 40 if self.screen() else need
        if need > self.height():
            self.resize(self.width(), min(need, room))

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        QTimer.singleShot(0, self, self.fit_height)

    def _choose_config(self) -> None:
        start = os.path.expanduser(self.config_edit.text().strip() or "~/.ssh")
        path, _ = QFileDialog.getOpenFileName(self, "SSH client config file", start, "All files (*)")
        if path:
            self.config_edit.setText(path)

    def _add_key(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "SSH identity file (the private key)",
                                              str(Path("~/.ssh").expanduser()), "All files (*)")
        if path:
            self.add_key(path)

    def add_key(self, path: str) -> None:
        if path not in [self.keys.item(i).text() for i in range(self.keys.count())]:
            self.keys.addItem(path)
        self._changed()

    def _add_host_row(self, host: str, user: str, port: str, edit: bool = False) -> None:
        self.hosts.blockSignals(True)
        row = self.hosts.rowCount()
        self.hosts.insertRow(row)
        for column, text in enumerate((host, user, port)):
            self.hosts.setItem(row, column, QTableWidgetItem(text))
        self.hosts.blockSignals(False)
        if edit:
            self.hosts.setCurrentCell(row, 0)
            self.hosts.editItem(self.hosts.item(row, 0))
        self._changed()

    def _remove_hosts(self) -> None:
        for row in sorted({i.row() for i in self.hosts.selectedIndexes()}, reverse=True):
            self.hosts.removeRow(row)
        self._changed()

    # ---- test and save ----------------------------------------------------------------
    def test_login(self) -> bool:
        """Log in to the test host with what the page says now (not saved yet)."""
        host = self.test_edit.text().strip()
        problems = self.problems()
        if problems or not host or self._test is not None:
            if not host:
                self._say("Name a host to test: a node or client as the topology or the config names it.", error=True)
            return False
        self._say(f"Logging in to {host}…")
        self.test_button.setEnabled(False)
        try:
            future = self.bridge.trial_services(self.settings()).check_login(host)
        except Exception as exc:  # noqa: BLE001 - an unreadable file: said, not raised
            self.test_button.setEnabled(True)
            self._say(f"Cannot test: {exc}", error=True)
            return False
        watcher = self.bridge.watch(future, f"the login test to {host}")
        self._test, self._test_host = watcher, host
        # bound methods, not lambdas: the answer may come after this page was closed and deleted
        for signal, slot in self._test_slots(watcher):
            signal.connect(slot)
        return True

    def _test_slots(self, watcher) -> tuple:
        return ((watcher.sig_done, self._test_done), (watcher.sig_failed, self._test_failed),
                (watcher.sig_cancelled, self._test_cancelled))

    def _test_done(self, text: str) -> None:
        self._tested(self._test_host, text, None)

    def _test_failed(self, exc: BaseException) -> None:
        self._tested(self._test_host, "", exc)

    def _test_cancelled(self) -> None:
        self._tested(self._test_host, "", None)

    def _tested(self, host: str, text: str, exc: BaseException | None) -> None:
        self._test = None
        self.test_button.setEnabled(True)
        self.bridge.close_trial()
        if isinstance(exc, UnknownHostKey):
            try:
                trusted = hostkey_dialog.ask_trust(exc, self)
            except OSError as err:
                self._say(f"Not connected to {host}: cannot store its host key: {err.strerror or err}", error=True)
                return
            if trusted:
                self.test_login()
            else:
                self._say(f"Not connected to {host}: host key not trusted.", error=True)
            return
        if isinstance(exc, HostKeyChanged):
            self._say(f"Not connected to {host}: its host key has CHANGED since it was stored.", error=True)
            hostkey_dialog.show_changed(exc, self)
        elif isinstance(exc, ExecutorError):
            self._say(str(exc), error=True)
        elif exc is not None:
            self._say(f"Test of {host} failed: {type(exc).__name__}: {exc}", error=True)
        elif text:
            self._say(f"OK: {text}.", ok=True)
        else:
            self._say(f"Test of {host} cancelled.")

    def save(self) -> None:
        problems = self.problems()
        if problems:
            self._say("\n".join(problems), error=True)
            return
        self.saved = self.settings()
        self.sig_saved.emit(self.saved)
        self.accept()

    def done(self, result: int) -> None:
        """Save, Cancel or Esc while a login test runs: the test is stopped and its connections
        closed now; its answer, if one still comes, has no page to be shown on."""
        if self._test is not None:
            test, self._test = self._test, None
            for signal, slot in self._test_slots(test):
                signal.disconnect(slot)
            test.cancel()
            self.test_button.setEnabled(True)
            self.bridge.close_trial()
        super().done(result)
