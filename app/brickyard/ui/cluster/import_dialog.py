"""Cluster > Import from cluster…: read an existing cluster over SSH and draw it.

``ImportDialog`` asks for one gluster node (an alias from the user's ssh config or a host
name) and optionally one volume, then runs ``RemoteServices.import_cluster`` on the bridge's
loop thread and waits for its future through ``RemoteBridge.watch``. An unknown host key is
shown with ``hostkey_dialog.ask_trust`` and, once trusted, the import simply runs again; a
changed key is refused (``hostkey_dialog.show_changed``). Any other failure stays in the
dialog, inputs unchanged, so the user can correct the host and try again.

It walks through what a first import needs: (1) how Brickyard reaches the cluster (the
Connection settings in use, one button away: SSH config, keys, user), (2) a node of the pool
and optionally a volume, (3) optionally the client machines to draw beside it. A pool with
peers but no volume yet comes in as its servers with their brick filesystems and free space,
for the admin to plan the first volume on. A refused login names the config and keys tried.

``run_import_dialog(window)`` is the menu entry: dialog, then the usual "save changes?"
question, then the imported topology as a new untitled document on the canvas.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (QCompleter, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QProgressBar, QPushButton, QVBoxLayout, QWidget)

from ...core.layout import volname_problem
from ...core.units import format_bytes
from ...remote.executor import ExecutorError
from ...remote.hostkeys import HostKeyChanged, UnknownHostKey
from ...remote.importer import ImportResult
from ...remote.ssh import check_host_name
from ..frame.bridge import FutureWatcher, RemoteBridge
from . import hostkey_dialog

ERROR_STYLE = "color: #b00020;"
STATUS_MS = 30_000


def ssh_aliases(config_files: list[str] | None) -> list[str]:
    """The concrete ``Host`` aliases (no patterns) of the given OpenSSH client config files,
    or of ``~/.ssh/config``; unreadable files give none."""
    paths = [Path(p) for p in config_files] if config_files else [Path.home() / ".ssh" / "config"]
    aliases: list[str] = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            words = line.replace("=", " ", 1).split()
            if len(words) < 2 or words[0].lower() != "host":
                continue
            for word in words[1:]:
                if word.startswith("#"):
                    break
                if not any(ch in word for ch in "*?!") and word not in aliases:
                    aliases.append(word)
    return aliases


def reach_summary(bridge: RemoteBridge) -> str:
    """How the bridge reaches hosts, in one line: config, keys, user, per-host entries."""
    settings = bridge.connection
    config = bridge.ssh_config
    if config:
        where = ", ".join(config) + (" (--ssh-config)" if bridge.ssh_config_override else "")
    else:
        default = Path.home() / ".ssh" / "config"
        where = str(default) if default.is_file() else f"none ({default} does not exist)"
    keys = (", ".join(settings.identity_files) if settings.identity_files
            else "ssh-agent, the config's IdentityFile or the default keys ~/.ssh/id_*")
    user = settings.default_user or "the config's User, else your login name"
    hosts = f"; {len(settings.hosts)} host(s) with their own user or port" if settings.hosts else ""
    return f"SSH config {where}; keys: {keys}; user: {user}{hosts}."


POOL_NOTE = "the pool has no volume yet"     # poolimport's first note: the summary says it for the window


def import_summary(result: ImportResult, host: str) -> str:
    topo = result.topology
    if not topo.volumes:
        bricks = [b for n in topo.nodes for b in n.bricks]
        free = sum(b.free_bytes or 0 for b in bricks)
        return (f"Imported a pool with no volume yet from {host}: {len(topo.nodes)} server(s) with {len(bricks)} "
                f"brick filesystem(s) ({format_bytes(free)} free) and {len(topo.clients)} client(s), ready to plan "
                "the first volume")
    return f"Imported {len(topo.volumes)} volume(s) on {len(topo.nodes)} node(s) from {host}"


def shown_notes(result: ImportResult) -> list[str]:
    return [n for n in result.notes if not n.startswith(POOL_NOTE)]


def clients_problem(clients: list[str]) -> str | None:
    for name in clients:
        try:
            check_host_name(name)
        except ExecutorError:
            return f"Client {name!r} is not a valid host name or address (letters, digits, '.', '-', '_', ':' only)."
    return None


def input_problem(host: str, volume: str) -> str | None:
    """Why the host or volume field cannot be used (None: both fine)."""
    if not host:
        return "Name a gluster node: an alias from your ssh config or a host name."
    if any(ch.isspace() for ch in host):
        return f"The host {host!r} contains whitespace; name one node only."
    try:
        check_host_name(host)
    except ExecutorError:
        return f"Host {host!r} is not a valid host name or address (letters, digits, '.', '-', '_', ':' only)."
    if volume:
        problem = volname_problem(volume)
        if problem:
            return problem
    return None


class _ReturnInList(QObject):
    """Calls ``then`` after Return in a completer's list (which keeps the key to itself).
    A small object owned by the list, so nothing runs once the list is gone."""

    def __init__(self, popup: QWidget, then):
        super().__init__(popup)
        self.then = then
        popup.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            QTimer.singleShot(0, self, self.then)
        return False


class ImportDialog(QDialog):
    """Asks for a host (and volume), imports, and accepts with ``imported`` set."""

    sig_status = Signal(str)
    """str: the status line's new text (also for tests and screenshots)."""

    def __init__(self, bridge: RemoteBridge, parent: QWidget | None = None, host: str = ""):
        super().__init__(parent)
        self.bridge = bridge
        self.imported: ImportResult | None = None
        self.imported_from = ""  # the host the import came from
        self._watcher: FutureWatcher | None = None
        self._running: tuple[str, str | None] | None = None  # (host, volume) of the import under way
        self._cancel_asked = False
        self.setObjectName("import-dialog")
        self.setWindowTitle("Import from cluster")
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        intro = QLabel("Brickyard reads <tt>gluster volume info</tt>, <tt>volume status detail</tt> and "
                       "<tt>peer status</tt> (all <tt>--xml</tt>) on one node over SSH and draws the cluster "
                       "as a new untitled topology. A pool with no volume yet comes in as its servers, their "
                       "brick filesystems and free space, to plan the first volume on. Nothing is changed on "
                       "the cluster.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        reach = QHBoxLayout()
        self.reach_label = QLabel()
        self.reach_label.setObjectName("reach")
        self.reach_label.setWordWrap(True)
        self.reach_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.connection_button = QPushButton("Connection settings…")
        self.connection_button.setObjectName("connection-settings")
        self.connection_button.setToolTip("SSH config file, keys, default user, per-host user and port")
        self.connection_button.setAutoDefault(False)
        self.connection_button.clicked.connect(self.open_connection_settings)
        reach.addWidget(self.reach_label, 1)
        reach.addWidget(self.connection_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(reach)
        form = QFormLayout()
        self.host_edit = QLineEdit(host)
        self.host_edit.setObjectName("host")
        self.host_edit.setPlaceholderText("ssh alias or host name, e.g. node1")
        # the aliases of the SSH config in use complete the field (show_reach); Return in their
        # list takes the alias and then imports, as Return in the field does (the list eats the
        # key, so the default button alone never saw it)
        form.addRow("2. &Node:", self.host_edit)
        self.volume_edit = QLineEdit()
        self.volume_edit.setObjectName("volume")
        self.volume_edit.setPlaceholderText("empty: all volumes (or the pool, when it has none yet)")
        form.addRow("&Volume:", self.volume_edit)
        self.clients_edit = QLineEdit()
        self.clients_edit.setObjectName("clients")
        self.clients_edit.setPlaceholderText("optional, e.g. client1 client2: the machines that will mount it")
        self.clients_edit.setToolTip("Client machines to draw beside the servers, checked over SSH (reachable, "
                                     "mount.glusterfs installed). Clients that mount a volume already are found "
                                     "without this.")
        form.addRow("3. &Clients:", self.clients_edit)
        layout.addLayout(form)
        self.busy = QProgressBar()
        self.busy.setObjectName("busy")
        self.busy.setRange(0, 0)  # indeterminate: the importer reports no fractions
        self.busy.setTextVisible(False)
        self.busy.setMaximumHeight(12)
        policy = self.busy.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # the status line does not jump when it shows
        self.busy.setSizePolicy(policy)
        self.busy.setVisible(False)
        layout.addWidget(self.busy)
        self.status = QLabel()
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setMinimumHeight(self.status.fontMetrics().lineSpacing() * 3)
        self.status.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox()
        self.import_button: QPushButton = buttons.addButton("&Import", QDialogButtonBox.ButtonRole.ActionRole)
        self.import_button.setObjectName("import")
        self.import_button.setDefault(True)
        self.close_button: QPushButton = buttons.addButton("Close", QDialogButtonBox.ButtonRole.RejectRole)
        self.close_button.setObjectName("cancel")
        self.close_button.setAutoDefault(False)
        self.import_button.clicked.connect(self.start)
        self.close_button.clicked.connect(self._close_clicked)
        layout.addWidget(buttons)
        self.host_edit.textChanged.connect(self._inputs_edited)
        self.volume_edit.textChanged.connect(self._inputs_edited)
        self.clients_edit.textChanged.connect(self._inputs_edited)
        self.show_reach()
        self._set_idle()

    # ---- step 1: how the cluster is reached ---------------------------------------------
    def show_reach(self) -> None:
        """Say how Brickyard will reach the cluster (the Connection settings in use)."""
        self.reach_label.setText("1. Reached as: " + reach_summary(self.bridge))
        aliases = ssh_aliases(self.bridge.ssh_config)
        completer = self.host_edit.completer()
        if aliases and completer is None:
            completer = QCompleter(aliases, self)
            completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            self.host_edit.setCompleter(completer)
            self._return_watch = _ReturnInList(completer.popup(), self._return_in_list)
        elif completer is not None:
            completer.model().setStringList(aliases)

    def open_connection_settings(self) -> None:
        """The Connection settings, on top of this dialog; saved, they are used for the import."""
        window = self.parent()
        opener = getattr(window, "open_connection_settings", None)
        if opener is None:
            return
        dialog = opener(test_host=self.host_edit.text().strip(), parent=self)
        # a bound method: a lambda holding this dialog on its own child (deleted when it closes)
        # could release this dialog's last reference inside that child's destructor
        dialog.sig_saved.connect(self._connection_saved)

    def _connection_saved(self, _settings: object) -> None:
        self.show_reach()

    def _return_in_list(self) -> None:
        if self.import_button.isEnabled() and not self.running:
            self.start()

    # ---- state ----------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._running is not None

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(ERROR_STYLE if error else "")
        self.status.setText(text)
        self.sig_status.emit(text)

    def _set_busy(self) -> None:
        for widget in (self.host_edit, self.volume_edit, self.clients_edit, self.import_button,
                       self.connection_button):
            widget.setEnabled(False)
        self.busy.setVisible(True)
        self.close_button.setText("Cancel")
        self.close_button.setEnabled(True)

    def _set_idle(self) -> None:
        self._running = None
        self._watcher = None
        self._cancel_asked = False
        for widget in (self.host_edit, self.volume_edit, self.clients_edit, self.connection_button):
            widget.setEnabled(True)
        self.busy.setVisible(False)
        self.close_button.setText("Close")
        self.close_button.setEnabled(True)
        self._inputs_edited()

    def _inputs_edited(self, *_: object) -> None:
        if not self.running:
            self.import_button.setEnabled(bool(self.host_edit.text().strip()))

    # ---- running the import ----------------------------------------------------------
    def start(self) -> bool:
        """Check the fields and start the import; False (and why, in the status line) if not started."""
        if self.running:
            return False
        host = self.host_edit.text().strip()
        volume = self.volume_edit.text().strip()
        problem = input_problem(host, volume) or clients_problem(self.clients())
        if problem:
            self._set_status(problem, error=True)
            return False
        return self._run(host, volume or None)

    def clients(self) -> list[str]:
        return list(dict.fromkeys(self.clients_edit.text().replace(",", " ").split()))

    def _run(self, host: str, volume: str | None) -> bool:
        what = f"volume {volume}" if volume else "all volumes"
        self._running = (host, volume)
        self._set_busy()
        self._set_status(f"Connecting to {host} and reading {what}…")
        try:
            future = self.bridge.services.import_cluster(host, volume, self.clients())
        except Exception as exc:  # noqa: BLE001 - e.g. an unreadable ssh config: shown, not raised
            self._set_idle()
            self._set_status(f"Cannot start the import from {host}: {exc}", error=True)
            return False
        watcher = self.bridge.watch(future, f"the import from {host}")
        self._watcher = watcher
        watcher.sig_done.connect(self._done)
        watcher.sig_failed.connect(self._failed)
        watcher.sig_cancelled.connect(self._cancelled)
        return True

    def cancel_import(self) -> None:
        """Stop the running import; the dialog stays open."""
        if self._watcher is None or self._cancel_asked:
            return
        self._cancel_asked = True
        self.close_button.setEnabled(False)
        self._set_status(f"Cancelling the import from {self._running[0]}…")
        self._watcher.cancel()
        # a future that cannot be cancelled any more still reports; _done drops that result

    def _done(self, result: ImportResult) -> None:
        host = self._running[0] if self._running else ""
        if self._cancel_asked:
            self._set_idle()
            self._set_status(f"Import from {host} cancelled; nothing was loaded.")
            return
        self._set_idle()
        self.imported = result
        self.imported_from = host
        summary = import_summary(result, host) + "."
        self._set_status("\n".join([summary, *(f"Note: {n}" for n in shown_notes(result))]))
        self.accept()

    def _cancelled(self) -> None:
        host = self._running[0] if self._running else ""
        self._set_idle()
        self._set_status(f"Import from {host} cancelled; nothing was loaded.")

    def _failed(self, exc: BaseException) -> None:
        host, volume = self._running or ("", None)
        if isinstance(exc, UnknownHostKey) and not self._cancel_asked:
            self._watcher = None  # this one has finished; the inputs stay locked while the user decides
            self._unknown_key(exc, host, volume)
            return
        cancelled = self._cancel_asked
        self._set_idle()
        if cancelled:
            self._set_status(f"Import from {host} cancelled; nothing was loaded.")
        elif isinstance(exc, HostKeyChanged):
            self._set_status(f"Not connected to {host}: its host key has CHANGED since it was stored. "
                             "Brickyard refuses to connect; see the message for how to check and fix it.",
                             error=True)
            hostkey_dialog.show_changed(exc, self)
        elif isinstance(exc, ExecutorError):
            self._set_status(f"Import failed: {exc}", error=True)
        else:
            self._set_status(f"Import from {host} failed: {type(exc).__name__}: {exc}", error=True)

    def _unknown_key(self, exc: UnknownHostKey, host: str, volume: str | None) -> None:
        self.busy.setVisible(False)
        self.close_button.setEnabled(False)
        self._set_status(f"{host} presents a host key Brickyard has never seen: compare its fingerprint, "
                         "then trust it or not.")
        try:
            trusted = hostkey_dialog.ask_trust(exc, self)
        except OSError as err:
            self._set_idle()
            self._set_status(f"Not connected to {host}: cannot store its host key in {exc.store}: "
                             f"{err.strerror or err}", error=True)
            return
        self._set_idle()
        if not trusted:
            self._set_status(f"Not connected to {host}: host key not trusted.", error=True)
            return
        self._run(host, volume)

    # ---- closing --------------------------------------------------------------------
    def _close_clicked(self) -> None:
        if self.running:
            self.cancel_import()
        else:
            self.reject()

    def reject(self) -> None:
        """Esc or the window's close button: stop a running import and close."""
        if self._watcher is not None:
            watcher = self._watcher
            for signal, slot in ((watcher.sig_done, self._done), (watcher.sig_failed, self._failed),
                                 (watcher.sig_cancelled, self._cancelled)):
                signal.disconnect(slot)
            watcher.cancel()
            self._set_idle()
        super().reject()


def load_imported(window, result: ImportResult, host: str) -> bool:
    """Show an import in ``window`` as a new untitled topology, after its "save changes?" question."""
    if not window.files.maybe_save():
        window.statusBar().showMessage(f"The import from {host} was not loaded: the current topology "
                                       "still has unsaved changes.", STATUS_MS)
        return False
    topo = result.topology
    if not topo.name:
        topo.name = host
    window.files.load_untitled(topo)
    live = getattr(window, "live_volumes", None)     # what the import read exists on the cluster
    if isinstance(live, dict):
        live.clear()
        live.update({v.name: list(v.bricks) for v in topo.volumes})
    window.tabs.setCurrentWidget(window.canvas)  # the drawing is what the user came for
    window.canvas.fit()
    summary = import_summary(result, host)
    window.statusBar().showMessage("; ".join([summary, *shown_notes(result)]), STATUS_MS)
    return True


LAST_IMPORT_KEY = "import/last"


def run_import_dialog(window, bridge: RemoteBridge | None = None) -> bool:
    """Cluster > Import from cluster…: True when an imported topology is now on the canvas.

    ``window`` is the ``MainWindow`` (its ``remote`` bridge, ``files``, ``canvas``, status bar).
    """
    dialog = ImportDialog(bridge or window.remote, window)
    # the node and clients of the last import are offered again (the walk of issue 21: a second
    # import, after the pool had grown, started from empty fields)
    settings = getattr(getattr(window, "files", None), "settings", None)
    last = settings.value(LAST_IMPORT_KEY, {}) if settings is not None else {}
    if isinstance(last, dict):
        if not dialog.host_edit.text() and isinstance(last.get("node"), str):
            dialog.host_edit.setText(last["node"])
        if isinstance(last.get("clients"), str):
            dialog.clients_edit.setText(last["clients"])
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted or dialog.imported is None:
            return False
        if settings is not None:
            settings.setValue(LAST_IMPORT_KEY, {"node": dialog.host_edit.text().strip(),
                                                "clients": dialog.clients_edit.text().strip()})
        return load_imported(window, dialog.imported, dialog.imported_from)
    finally:
        dialog.deleteLater()
