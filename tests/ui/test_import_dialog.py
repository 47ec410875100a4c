"""Import from cluster…: the dialog over a fake services object, then over a real throwaway sshd."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future

import asyncssh
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QLabel, QMessageBox

from brickyard.remote.executor import ExecutorError
from brickyard.remote.hostkeys import HostKeyChanged, UnknownHostKey
from brickyard.remote.importer import ImportResult
from brickyard.remote.ssh import Unreachable
from brickyard.ui.cluster.import_dialog import ImportDialog, input_problem, run_import_dialog, ssh_aliases
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow

from .helpers import show_active, small_topology
from ..remote.sshd import sshd_fixture

WAIT_MS = 10_000


class FakeServices:
    """``import_cluster`` hands out plain futures; ``answer`` (if set) completes each one from
    another thread, as the loop thread would."""

    def __init__(self, answer=None):
        self.answer = answer
        self.calls: list[tuple[str, str | None]] = []
        self.clients: list[list[str]] = []
        self.futures: list[Future] = []

    def import_cluster(self, host, volume=None, clients=()):
        future: Future = Future()
        self.calls.append((host, volume))
        self.clients.append(list(clients))
        self.futures.append(future)
        if self.answer is not None:
            threading.Thread(target=self._complete, args=(future, host, volume)).start()
        return future

    def _complete(self, future, host, volume):
        time.sleep(0.02)
        try:
            outcome = self.answer(host, volume)
        except BaseException as exc:  # noqa: BLE001 - handed to the future like the loop does
            future.set_exception(exc)
        else:
            future.set_result(outcome)

    def close(self):
        pass


def when_shown(object_name: str, act, seen: list | None = None) -> None:
    """Once a visible top-level widget named ``object_name`` appears (a modal dialog's own
    event loop is running), call ``act(widget)``; ``seen`` gets the widget's text (label
    texts for a dialog, the message for a box) first. Gives up after WAIT_MS."""
    deadline = time.monotonic() + WAIT_MS / 1000

    def poll():
        for widget in QApplication.topLevelWidgets():
            if widget.objectName() == object_name and widget.isVisible():
                if seen is not None:
                    seen.append(widget.text() if isinstance(widget, QMessageBox)
                                else "\n".join(label.text() for label in widget.findChildren(QLabel)))
                act(widget)
                return
        if time.monotonic() < deadline:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)


def key():
    return asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture
def window(qtbot, tmp_path):
    win = MainWindow(None, tmp_path / "settings.ini", tmp_path / "autosave")
    qtbot.addWidget(win)
    return win


def make_dialog(qtbot, services, host=""):
    bridge = RemoteBridge(make_services=lambda options: services)
    dialog = ImportDialog(bridge, None, host)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def imported(host, volume):
    return ImportResult(small_topology(), [f"{host} (where gluster was asked) holds no brick"])


# ---- success ---------------------------------------------------------------------------
def test_return_starts_the_import_even_while_the_alias_list_is_open(qtbot, tmp_path):
    """Typing 'node1' opens the list of SSH aliases (node1, node1-admin); Return then used to
    close the list and do nothing."""
    config = tmp_path / "ssh_config"
    config.write_text("Host node1\n  HostName 10.0.0.1\nHost node1-admin\n  HostName 10.0.0.1\nHost node2\n")
    services = FakeServices(imported)
    dialog = ImportDialog(RemoteBridge(ssh_config=config, make_services=lambda options: services), None)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.host_edit.setFocus()
    qtbot.keyClicks(dialog.host_edit, "node1")
    popup = dialog.host_edit.completer().popup()
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(services.calls), timeout=WAIT_MS)
    assert services.calls == [("node1", None)]
    qtbot.waitUntil(lambda: dialog.imported is not None, timeout=WAIT_MS)  # the import ran to its end



def test_a_successful_import_is_loaded_as_an_untitled_topology_and_drawn(qtbot, window):
    services = FakeServices(imported)
    bridge = RemoteBridge(window, make_services=lambda options: services)
    window.files.path = None
    window.open_preflight()  # the import is started from another tab; it ends on the planner
    statuses = []

    def fill_and_import(dialog):
        dialog.sig_status.connect(statuses.append)
        dialog.host_edit.setText(" node1 ")
        dialog.volume_edit.setText("gv0")
        dialog.import_button.click()

    when_shown("import-dialog", fill_and_import)
    assert run_import_dialog(window, bridge)
    assert services.calls == [("node1", "gv0")]
    assert statuses[0] == "Connecting to node1 and reading volume gv0…"
    assert "Note: node1 (where gluster was asked) holds no brick" in statuses[-1]
    topo = window.session.topo
    assert [n.name for n in topo.nodes] == ["n1", "n2", "n3"] and topo.volume("gv0") is not None
    assert set(window.canvas.board.nodes) == {"n1", "n2", "n3"}
    assert window.tabs.currentWidget() is window.canvas
    assert window.files.path is None and not window.files.dirty
    assert window.windowTitle().startswith("small[*]")
    message = window.statusBar().currentMessage()
    assert message.startswith("Imported 1 volume(s) on 3 node(s) from node1") and "holds no brick" in message


def test_an_import_without_a_name_is_named_after_its_host_and_all_volumes_are_asked_for(qtbot, window):
    def nameless(host, volume):
        result = imported(host, volume)
        result.topology.name = ""
        return result

    services = FakeServices(nameless)
    bridge = RemoteBridge(window, make_services=lambda options: services)

    def fill_and_import(dialog):
        dialog.host_edit.setText("node1")
        dialog.import_button.click()

    when_shown("import-dialog", fill_and_import)
    assert run_import_dialog(window, bridge)
    assert services.calls == [("node1", None)]
    assert window.session.topo.name == "node1"


def test_a_second_import_offers_the_node_and_clients_of_the_last_one(qtbot, window):
    """The issue 21 walk: after the pool had grown, Cluster > Import from cluster… opened with
    empty fields; the node and clients of the last import that loaded are offered again."""
    services = FakeServices(imported)
    bridge = RemoteBridge(window, make_services=lambda options: services)

    def fill_and_import(dialog):
        assert dialog.host_edit.text() == "" and dialog.clients_edit.text() == ""
        dialog.host_edit.setText("node1")
        dialog.clients_edit.setText("client1 client2")
        dialog.import_button.click()

    when_shown("import-dialog", fill_and_import)
    assert run_import_dialog(window, bridge)
    seen = []

    def look_and_close(dialog):
        seen.append((dialog.host_edit.text(), dialog.clients_edit.text()))
        dialog.reject()

    when_shown("import-dialog", look_and_close)
    assert not run_import_dialog(window, bridge)
    assert seen == [("node1", "client1 client2")]


def test_unsaved_changes_kept_when_the_save_question_is_cancelled(qtbot, window):
    services = FakeServices(imported)
    bridge = RemoteBridge(window, make_services=lambda options: services)
    show_active(qtbot, window)
    qtbot.keyClick(window.canvas, Qt.Key.Key_S)  # add a site: now dirty
    assert window.files.dirty
    before = [s.name for s in window.session.topo.sites]
    window.files.ask = lambda question: "cancel"

    def fill_and_import(dialog):
        dialog.host_edit.setText("node1")
        dialog.import_button.click()

    when_shown("import-dialog", fill_and_import)
    assert not run_import_dialog(window, bridge)
    assert [s.name for s in window.session.topo.sites] == before and window.files.dirty
    assert "was not loaded" in window.statusBar().currentMessage()


def test_closing_the_dialog_imports_nothing(qtbot, window):
    services = FakeServices(imported)
    bridge = RemoteBridge(window, make_services=lambda options: services)
    topo = window.session.topo
    when_shown("import-dialog", lambda dialog: dialog.close_button.click())
    assert not run_import_dialog(window, bridge)
    assert window.session.topo is topo and services.calls == []


# ---- bad input and failures ------------------------------------------------------------
@pytest.mark.parametrize("host, volume, says", [
    ("", "", "Name a gluster node"),
    ("node1 node2", "", "contains whitespace"),
    ("node1;touch${IFS}/tmp/x", "", "not a valid host name"),
    ("node1", "gv/0", "contains '/'"),
    ("node1", "all", "cannot be the name of a volume"),
])
def test_bad_host_or_volume_is_refused_before_anything_runs(qtbot, host, volume, says):
    assert says in input_problem(host, volume)
    services = FakeServices(imported)
    dialog = make_dialog(qtbot, services, host)
    dialog.volume_edit.setText(volume)
    assert not dialog.start()
    assert services.calls == [] and says in dialog.status.text()
    assert dialog.host_edit.isEnabled() and not dialog.busy.isVisible()


def test_the_import_button_waits_for_a_host(qtbot):
    dialog = make_dialog(qtbot, FakeServices(imported))
    assert not dialog.import_button.isEnabled()
    dialog.host_edit.setText("node1")
    assert dialog.import_button.isEnabled()


@pytest.mark.parametrize("error", [
    Unreachable("node9", "cannot connect to 127.0.0.1 port 2222: Connection refused"),
    ExecutorError("node1", "gluster volume info gv9: Volume gv9 does not exist"),
])
def test_a_failure_is_shown_naming_the_host_and_the_inputs_come_back(qtbot, error):
    def fail(host, volume):
        raise error

    services = FakeServices(fail)
    dialog = make_dialog(qtbot, services, error.host)
    dialog.volume_edit.setText("gv9")
    assert dialog.start()
    assert not dialog.host_edit.isEnabled() and not dialog.volume_edit.isEnabled()
    assert not dialog.import_button.isEnabled() and dialog.busy.isVisible()
    assert dialog.close_button.text() == "Cancel"
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    assert dialog.status.text() == f"Import failed: {error}" and error.host in dialog.status.text()
    assert dialog.host_edit.isEnabled() and dialog.import_button.isEnabled() and not dialog.busy.isVisible()
    assert dialog.host_edit.text() == error.host and dialog.volume_edit.text() == "gv9"
    assert dialog.isVisible() and dialog.imported is None and dialog.close_button.text() == "Close"


def test_an_unexpected_error_is_named_too(qtbot):
    def fail(host, volume):
        raise RuntimeError("the loop thread has stopped")

    dialog = make_dialog(qtbot, FakeServices(fail), "node1")
    dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    assert dialog.status.text() == "Import from node1 failed: RuntimeError: the loop thread has stopped"


def test_a_services_object_that_cannot_be_built_is_reported(qtbot):
    def broken(options):
        raise ValueError("~/.ssh/config line 3: unknown option Hots")

    dialog = ImportDialog(RemoteBridge(make_services=broken), None, "node1")
    qtbot.addWidget(dialog)
    assert not dialog.start()
    assert "Cannot start the import from node1" in dialog.status.text() and "Hots" in dialog.status.text()
    assert dialog.host_edit.isEnabled() and not dialog.running


# ---- cancel ----------------------------------------------------------------------------
def test_cancel_stops_the_import_and_keeps_the_dialog_open(qtbot):
    services = FakeServices()  # never answers
    dialog = make_dialog(qtbot, services, "node1")
    dialog.start()
    dialog.close_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    assert services.futures[0].cancelled()
    assert "cancelled; nothing was loaded" in dialog.status.text()
    assert dialog.isVisible() and dialog.host_edit.isEnabled() and dialog.imported is None
    dialog.close_button.click()
    assert not dialog.isVisible() and dialog.result() == QDialog.DialogCode.Rejected


def test_a_result_arriving_after_cancel_is_dropped(qtbot):
    services = FakeServices()
    dialog = make_dialog(qtbot, services, "node1")
    dialog.start()
    future = services.futures[0]
    assert future.set_running_or_notify_cancel()  # too far along to be cancelled
    dialog.close_button.click()
    assert not future.cancelled() and "Cancelling" in dialog.status.text()
    threading.Thread(target=future.set_result, args=(imported("node1", None),)).start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    assert dialog.imported is None and dialog.isVisible() and "cancelled" in dialog.status.text()


def test_escape_while_running_cancels_and_closes(qtbot):
    services = FakeServices()
    dialog = make_dialog(qtbot, services, "node1")
    dialog.start()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible() and dialog.result() == QDialog.DialogCode.Rejected
    assert services.futures[0].cancelled()
    qtbot.wait(50)  # the cancellation's delivery reaches no slot of the closed dialog
    assert dialog.imported is None and not dialog.running


# ---- host keys (fake services, real dialogs) -------------------------------------------
def test_an_unknown_key_trusted_in_the_dialog_is_stored_and_the_import_runs_again(qtbot, tmp_path):
    store = tmp_path / "own_known_hosts"
    host_key = key()
    answers = iter([UnknownHostKey("node1", "node1", host_key, store)])

    def answer(host, volume):
        failure = next(answers, None)
        if failure is not None:
            raise failure
        return imported(host, volume)

    services = FakeServices(answer)
    dialog = make_dialog(qtbot, services, "node1")
    shown, enabled_while_asking = [], []

    def trust(box):
        enabled_while_asking.extend([dialog.host_edit.isEnabled(), dialog.import_button.isEnabled()])
        box.trust_button.click()

    when_shown("unknown-host-key", trust, shown)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.result() == QDialog.DialogCode.Accepted, timeout=WAIT_MS)
    assert enabled_while_asking == [False, False]
    assert shown and f"ssh-ed25519  {host_key.get_fingerprint('sha256')}" in shown[0]
    assert services.calls == [("node1", None), ("node1", None)]
    assert store.read_text().startswith("node1 ssh-ed25519 ")
    assert dialog.imported is not None


def test_a_changed_key_is_explained_and_never_offered_for_trust(qtbot):
    def changed(host, volume):
        raise HostKeyChanged(host, host, key(), [("/home/u/.ssh/known_hosts", "SHA256:old")])

    services = FakeServices(changed)
    dialog = make_dialog(qtbot, services, "node1")
    shown = []
    when_shown("host-key-changed", lambda box: box.button(QMessageBox.StandardButton.Close).click(), shown)
    dialog.start()
    qtbot.waitUntil(lambda: bool(shown) and not dialog.running, timeout=WAIT_MS)
    assert "node1: HOST KEY CHANGED: " in shown[0]
    assert "host key has CHANGED" in dialog.status.text() and "node1" in dialog.status.text()
    assert services.calls == [("node1", None)] and dialog.imported is None and dialog.isVisible()


def test_host_aliases_come_from_the_ssh_config(tmp_path):
    config = tmp_path / "config"
    config.write_text("Host node1 node2  # lab\n  HostName 10.0.0.1\nHost *.lab !x\nhost=gw\nMatch all\n")
    assert ssh_aliases([str(config)]) == ["node1", "node2", "gw"]
    assert ssh_aliases([str(tmp_path / "missing")]) == []


# ---- a real SSH server -----------------------------------------------------------------
sshd = sshd_fixture("sshd-import-dialog")


def test_real_sshd_unknown_key_refused_then_trusted_and_the_import_gets_past_it(qtbot, sshd, tmp_path, monkeypatch):
    own = tmp_path / "brickyard_known_hosts"
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(own))
    sshd.user_known_hosts.write_text("")
    bridge = RemoteBridge(ssh_config=sshd.ssh_config)
    try:
        dialog = ImportDialog(bridge, None, "target")
        qtbot.addWidget(dialog)
        dialog.show()
        assert dialog.host_edit.completer().model().data(dialog.host_edit.completer().model().index(0, 0)) == "target"
        statuses: list[str] = []
        dialog.sig_status.connect(statuses.append)
        shown = []
        when_shown("unknown-host-key", lambda d: d.refuse_button.click(), shown)
        assert dialog.start()
        qtbot.waitUntil(lambda: not dialog.running and "not trusted" in dialog.status.text(), timeout=30_000)
        assert f"ssh-ed25519  {sshd.host_fingerprint}" in shown[0]
        assert dialog.status.text().startswith("Not connected to target: host key not trusted")
        assert not own.exists() and dialog.host_edit.isEnabled() and dialog.imported is None

        statuses.clear()
        when_shown("unknown-host-key", lambda d: d.trust_button.click())
        assert dialog.start()
        qtbot.waitUntil(lambda: not dialog.running and len(statuses) >= 3, timeout=30_000)
        assert own.read_text().startswith(f"[127.0.0.1]:{sshd.port} ssh-ed25519 ")
        assert statuses[0] == statuses[2] == "Connecting to target and reading all volumes…"
        assert "never seen" in statuses[1]
        # past the host key: whatever gluster says on this machine comes next
        final = dialog.status.text()
        assert "host key" not in final
        if dialog.imported is None:
            assert final.startswith("Import failed: target: "), final
    finally:
        bridge.close()
