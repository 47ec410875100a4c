"""Cluster ▸ Connection settings… (issue 21 point 4): reaching a cluster from the window without
the terminal. Driven by keys and mouse against a real throwaway sshd: the page's fields are
checked as typed, Test logs in with what the page says before it is saved, Save keeps it in
settings.json (never a password) and the window's next connection uses it, and a refused
login in the import dialog names the config and keys and points to this page."""

from __future__ import annotations

import json
from concurrent.futures import Future

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit

from brickyard.remote.connection import ConnectionSettings
from brickyard.ui.cluster.connection_dialog import ConnectionDialog
from brickyard.ui.cluster.import_dialog import ImportDialog
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow

from ..remote.sshd import keygen, new_users_home, sshd_fixture
from .helpers import show_active
from .test_import_dialog import when_shown

WAIT_MS = 30_000


sshd = sshd_fixture("sshd-connection", trusted=True)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fresh HOME (no ~/.ssh) and no ssh-agent, no --ssh-config: a new user's machine."""
    return new_users_home(tmp_path, monkeypatch)


def keyless_config(sshd, tmp_path):
    """The server's config without its IdentityFile and User: the page supplies them."""
    config = tmp_path / "keyless_ssh_config"
    config.write_text(f"Host target\n  HostName 127.0.0.1\n  Port {sshd.port}\n"
                      f"  UserKnownHostsFile {sshd.user_known_hosts}\n")
    return config


def open_from_the_menu(qtbot, window) -> ConnectionDialog:
    """Cluster ▸ Connection settings… by its keys: Alt+C opens the menu, N the entry."""
    qtbot.keyClick(window, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Cluster")
    qtbot.waitUntil(menu.isVisible)
    qtbot.keyClick(menu, Qt.Key.Key_N)
    qtbot.waitUntil(lambda: any(w.objectName() == "connection-settings" and w.isVisible()
                                for w in QApplication.topLevelWidgets()))
    return next(w for w in QApplication.topLevelWidgets() if w.objectName() == "connection-settings" and w.isVisible())


def test_the_page_tests_a_login_with_what_it_says_then_saves_it_for_the_window(qtbot, sshd, home, tmp_path,
                                                                               monkeypatch):
    settings_file = tmp_path / "settings.json"
    window = MainWindow(None, settings_file, tmp_path / "autosave", remote=RemoteBridge())
    show_active(qtbot, window)
    try:
        dialog = open_from_the_menu(qtbot, window)
        assert "does not exist" in dialog.config_note.text()          # no ~/.ssh/config on this machine
        assert "none exists" in dialog.keys_note.text()               # and no default key
        qtbot.keyClicks(dialog.config_edit, str(keyless_config(sshd, tmp_path)))
        assert "1 host(s): target" in dialog.config_note.text()
        # a public key is refused at once, naming why
        monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(sshd.client_key) + ".pub", ""))
        qtbot.mouseClick(dialog.findChild(type(dialog.test_button), "add-key"), Qt.MouseButton.LeftButton)
        assert "holds no private key (that is the public half" in dialog.status.text()
        assert not dialog.save_button.isEnabled()
        dialog.keys.setCurrentRow(0)
        qtbot.mouseClick(dialog.findChild(type(dialog.test_button), "remove-key"), Qt.MouseButton.LeftButton)
        monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(sshd.client_key), ""))
        qtbot.mouseClick(dialog.findChild(type(dialog.test_button), "add-key"), Qt.MouseButton.LeftButton)
        assert dialog.keys.count() == 1 and dialog.save_button.isEnabled()
        qtbot.keyClicks(dialog.user_edit, sshd.user)
        dialog.test_edit.clear()
        qtbot.keyClicks(dialog.test_edit, "target")
        qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dialog.status.text().startswith(("OK:", "target:")), timeout=WAIT_MS)
        assert dialog.status.text().startswith(f"OK: logged in to target as {sshd.user}@"), dialog.status.text()
        assert not settings_file.exists() or "connection" not in settings_file.read_text()   # nothing saved yet
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        saved = json.loads(settings_file.read_text())["connection"]
        assert saved == {"ssh_config": str(tmp_path / "keyless_ssh_config"), "identity_files": [str(sshd.client_key)],
                         "default_user": sshd.user, "hosts": []}
        assert "password" not in settings_file.read_text().lower()
        assert window.remote.connection == ConnectionSettings.from_json(saved)[0]
        assert window.remote.ssh_config == [str(tmp_path / "keyless_ssh_config")]
        # a new window reads them back
        again = MainWindow(None, settings_file, tmp_path / "autosave2", remote=RemoteBridge())
        qtbot.addWidget(again)
        assert again.remote.connection == window.remote.connection
        again.remote.close()
    finally:
        window.remote.close()


def test_per_host_port_and_user_are_typed_into_the_table_and_checked(qtbot, sshd, home, tmp_path):
    bridge = RemoteBridge()
    dialog = ConnectionDialog(bridge, ConnectionSettings(), None)
    show_active(qtbot, dialog)
    try:
        qtbot.mouseClick(dialog.findChild(type(dialog.test_button), "add-host"), Qt.MouseButton.LeftButton)
        for text in ("127.0.0.1", sshd.user, "70000"):      # host, Tab, user, Tab, port, Return
            qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit)
                            and dialog.hosts.isAncestorOf(QApplication.focusWidget()))
            editor = QApplication.focusWidget()
            qtbot.keyClicks(editor, text)
            qtbot.keyClick(editor, Qt.Key.Key_Return if text == "70000" else Qt.Key.Key_Tab)
        qtbot.waitUntil(lambda: dialog.hosts.item(0, 2) is not None and dialog.hosts.item(0, 2).text() == "70000")
        assert "host 127.0.0.1: port 70000 is not between 1 and 65535" in dialog.status.text()
        assert not dialog.save_button.isEnabled()
        dialog.hosts.item(0, 2).setText(str(sshd.port))
        assert dialog.save_button.isEnabled()
        dialog.add_key(str(sshd.client_key))
        dialog.test_edit.setText("127.0.0.1")
        # the server's key is not in this fresh home's known_hosts: the question comes first
        shown = []
        when_shown("unknown-host-key", lambda box: box.trust_button.click(), shown)
        qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dialog.status.text().startswith("OK:"), timeout=WAIT_MS)
        assert shown and sshd.host_fingerprint in shown[0]
        assert f"({sshd.user}@127.0.0.1:{sshd.port})" in dialog.status.text()
    finally:
        bridge.close()


def test_a_refused_login_in_the_import_names_the_config_and_keys_and_the_page_is_one_click_away(
        qtbot, sshd, home, tmp_path):
    config = keyless_config(sshd, tmp_path)
    wrong = keygen(tmp_path / "wrong_key")
    window = MainWindow(None, tmp_path / "settings.json", tmp_path / "autosave",
                        remote=RemoteBridge(connection=ConnectionSettings(str(config), (str(wrong),), sshd.user)))
    show_active(qtbot, window)
    dialog = ImportDialog(window.remote, window, "target")
    qtbot.addWidget(dialog)
    try:
        dialog.show()
        assert dialog.reach_label.text().startswith(f"1. Reached as: SSH config {config}; keys: {wrong}; "
                                                    f"user: {sshd.user}.")
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
        text = dialog.status.text()
        assert text.startswith(f"Import failed: target: {sshd.user}@127.0.0.1:{sshd.port} accepted none of the "
                               "credentials offered"), text
        assert f"SSH config: {config}" in text and f"keys tried: {wrong}" in text
        assert "Cluster ▸ Connection settings…" in text and "--ask-password" not in text
        qtbot.mouseClick(dialog.connection_button, Qt.MouseButton.LeftButton)
        page = next(w for w in QApplication.topLevelWidgets() if w.objectName() == "connection-settings"
                    and w.isVisible())
        assert page.test_edit.text() == "target" and page.keys.item(0).text() == str(wrong)
        page.keys.clear()
        page.add_key(str(sshd.client_key))
        qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
        assert f"keys: {sshd.client_key}" in dialog.reach_label.text()      # the import dialog follows
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
        assert "accepted none of the credentials" not in dialog.status.text()   # past the login now
    finally:
        window.remote.close()


class HangingLogin:
    """A trial connection whose login test answers only when cancelled (a host that times out)."""

    def __init__(self):
        self.futures: list[Future] = []

    def check_login(self, host):
        self.futures.append(Future())
        return self.futures[-1]


@pytest.mark.parametrize("close", ["reject", "save"])
def test_a_page_closed_while_its_login_test_runs_stops_the_test_and_hears_nothing_after(qtbot, close):
    """Closing the page (Cancel, Esc or Save) while Test waits for a host: the test is cancelled
    and its trial connection closed at once, and its answer never reaches the page, which the
    window deletes when it closes (the answer used to call into the deleted page)."""
    bridge = RemoteBridge(make_services=lambda options: None)
    trial, trials_closed = HangingLogin(), []
    bridge.trial_services = lambda settings: trial
    bridge.close_trial = lambda: trials_closed.append(True)
    dialog = ConnectionDialog(bridge, ConnectionSettings(), None, test_host="node1")
    try:
        dialog.show()
        assert dialog.test_login() and bridge.busy
        getattr(dialog, close)()
        assert not dialog.isVisible() and trial.futures[0].cancelled() and trials_closed
    finally:
        shiboken6.delete(dialog)              # the window deletes the page once it is closed
    qtbot.waitUntil(lambda: not bridge.busy)   # the cancellation was delivered, to nobody
