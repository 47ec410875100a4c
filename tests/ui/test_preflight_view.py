"""The Pre-flight tab: rows fill in host by host from the loop thread, cancel stops the run, and an
unknown host key is shown for the user to trust once (over a real throwaway sshd)."""

from __future__ import annotations

import threading
from concurrent.futures import Future

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QPushButton

from brickyard.core.topology import Brick, Client, Layout, Mount, Node, Site, Topology, Volume, VolumeType, BrickRef
from brickyard.remote.executor import ExecutorError
from brickyard.remote.preflight import FAIL, OK, WARN, HostChecks, PreflightReport
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow

from ..remote.sshd import keygen, sshd_fixture
from .helpers import show_active


def _topology() -> Topology:
    nodes = [Node(f"n{i}", site="s1", bricks=[Brick(f"/data/b{i}", 10**12)]) for i in (1, 2, 3)]
    vol = Volume("v1", Layout(VolumeType.DISTRIBUTE), bricks=[BrickRef("n1", "/data/b1"), BrickRef("n2", "/data/b2")],
                 mounts=[Mount("c1", "/mnt/v1")])
    return Topology(name="t", sites=[Site("s1")], nodes=nodes, clients=[Client("c1")], volumes=[vol])


class FakeServices:
    """Hands back futures the test completes from another thread, as the loop thread would."""

    def __init__(self):
        self.calls: list[tuple[Topology, str | None]] = []
        self.futures: list[Future] = []
        self.on_host = None

    def preflight(self, topo, volume=None, on_host=None):
        self.calls.append((topo, volume))
        self.on_host = on_host
        future: Future = Future()
        self.futures.append(future)
        return future

    def close(self):
        for f in self.futures:
            f.cancel()


def _checks(host: str, role: str, *statuses: str) -> HostChecks:
    hc = HostChecks(host, role)
    hc.add("reachable", OK, "the SSH server answers")
    for i, status in enumerate(statuses):
        hc.add(f"check{i}", status, f"{status} message {i}")
    return hc


def _in_thread(fn) -> None:
    t = threading.Thread(target=fn)
    t.start()
    t.join()


@pytest.fixture
def window(qtbot, tmp_path):
    fake = FakeServices()
    bridge = RemoteBridge(make_services=lambda options: fake)
    w = MainWindow(_topology(), settings_path=tmp_path / "settings.json", autosave_dir=tmp_path / "autosave",
                   remote=bridge)
    qtbot.addWidget(w)
    w.fake = fake
    yield w
    w.remote.close()


def _status(row) -> str:
    return row.data(1, Qt.ItemDataRole.UserRole)


def test_rows_fill_in_host_by_host_and_the_summary_says_what_to_fix(window, qtbot):
    view = window.open_preflight()
    assert view.scope.currentData() == "v1"  # follows the planner's volume
    view.scope.setCurrentIndex(view.scope.findData(""))
    assert view.run()
    topo, volume = window.fake.calls[-1]
    assert volume is None and topo is not window.session.topo  # the loop thread gets a snapshot
    assert [view.tree.topLevelItem(i).text(0) for i in range(4)] == [
        "n1  (server)", "n2  (server)", "n3  (server)", "c1  (client)"]
    assert all(_status(view.tree.topLevelItem(i)) == "checking" for i in range(4))
    assert not view.run_button.isEnabled() and view.cancel_button.isEnabled()

    _in_thread(lambda: window.fake.on_host(_checks("n2", "server", WARN)))
    qtbot.waitUntil(lambda: _status(view._rows["n2"]) == WARN)
    assert view.progress.value() == 1 and _status(view._rows["n1"]) == "checking"
    assert view._rows["n2"].isExpanded() and view._rows["n2"].childCount() == 2

    report = PreflightReport([_checks("n1", "server", OK), _checks("n2", "server", WARN),
                              _checks("n3", "server", FAIL), _checks("c1", "client")])
    _in_thread(lambda: window.fake.futures[-1].set_result(report))
    qtbot.waitUntil(lambda: not view.running)
    assert [_status(view._rows[h]) for h in ("n1", "n2", "n3", "c1")] == [OK, WARN, FAIL, OK]
    assert not view._rows["n1"].isExpanded() and view._rows["n3"].isExpanded()
    assert view._rows["n1"].text(2) == "all 2 checks passed"
    assert view._rows["n3"].text(2) == "1 failed: check0"
    assert view.summary.text().startswith("4 hosts: 2 ok, 1 with warnings, 1 failed. Fix n3 before provisioning.")
    assert view.run_button.isEnabled() and not view.cancel_button.isEnabled()
    view.copy_button.click()
    assert QApplication.clipboard().text() == report.text()


def test_volume_scope_checks_only_that_volume_and_an_edit_marks_results_stale(window, qtbot):
    view = window.open_preflight()
    view.run()
    assert window.fake.calls[-1][1] == "v1"
    assert [view.tree.topLevelItem(i).text(0).split()[0] for i in range(view.tree.topLevelItemCount())] == [
        "n1", "n2", "c1"]
    _in_thread(lambda: window.fake.futures[-1].set_result(PreflightReport([_checks("n1", "server")])))
    qtbot.waitUntil(lambda: not view.running)
    window.session.topo.rename_node("n3", "n9")
    assert "changed since: run again" in view.summary.text()


def test_the_free_space_pre_flight_measured_becomes_the_plans_free_now_and_undoes(window, qtbot):
    view = window.open_preflight()
    view.run()
    assert "free now: not measured" in window.verdict.capacity_text.text()
    n1, n2 = _checks("n1", "server"), _checks("n2", "server")
    n1.measured["/data/b1"] = (10**12, 4 * 10**11)     # other data already takes 60 % there
    n2.measured["/data/b2"] = (10**12, 10**12)
    _in_thread(lambda: window.fake.futures[-1].set_result(PreflightReport([n1, n2], finished="2026-11-23T14:00:00Z")))
    qtbot.waitUntil(lambda: not view.running)
    brick = window.session.topo.brick(BrickRef("n1", "/data/b1"))
    assert (brick.free_bytes, brick.free_measured) == (4 * 10**11, "2026-11-23T14:00:00Z")
    cap = window.session.plan.capacity
    assert cap.free_now_bytes == (4 * 10**11 - 10**10) + (10**12 - 10**10)   # less storage.reserve's 1 %
    assert "free now 1.38 TB" in window.verdict.capacity_text.text()
    assert "usable 2.00 TB (1.82 TiB) when empty" in window.verdict.capacity_text.text()
    assert "Free space measured on 2 brick(s)" in view.summary.text() and "changed since" not in view.summary.text()
    window.session.stack.undo()
    assert window.session.topo.brick(BrickRef("n1", "/data/b1")).free_bytes is None


def test_cancel_stops_the_run_and_late_rows_are_ignored(window, qtbot):
    view = window.open_preflight()
    view.run()
    on_host, future = window.fake.on_host, window.fake.futures[-1]
    qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.running)
    assert future.cancelled()
    assert {_status(r) for r in view._rows.values()} == {"cancelled"}
    assert view.summary.text() == "Pre-flight cancelled after 0 of 3 hosts."
    _in_thread(lambda: on_host(_checks("n1", "server")))
    qtbot.wait(50)
    assert _status(view._rows["n1"]) == "cancelled"
    assert view.run_button.isEnabled()


def test_a_failed_run_says_why_and_can_run_again(window, qtbot):
    view = window.open_preflight()
    view.run()
    _in_thread(lambda: window.fake.futures[-1].set_exception(ExecutorError("n1", "the SSH config cannot be read")))
    qtbot.waitUntil(lambda: not view.running)
    assert view.summary.text() == "Pre-flight stopped: n1: the SSH config cannot be read"
    assert view.run()


def test_a_note_from_the_ssh_layer_reaches_the_status_bar_once(window, qtbot):
    class Pool:
        notes: list[str] = []

    window.fake.pool = Pool()
    view = window.open_preflight()
    view.run()
    Pool.notes.append("node1: logged in, but the password for root@node1:22 could not be kept")
    _in_thread(lambda: window.fake.futures[-1].set_result(PreflightReport([_checks("n1", "server")])))
    qtbot.waitUntil(lambda: "could not be kept" in window.statusBar().currentMessage())
    window.statusBar().clearMessage()
    view.run()
    _in_thread(lambda: window.fake.futures[-1].set_result(PreflightReport([_checks("n1", "server")])))
    qtbot.waitUntil(lambda: not view.running)
    qtbot.wait(50)
    assert "could not be kept" not in window.statusBar().currentMessage()


def test_quitting_during_a_run_asks_first_and_stops_the_run(window, qtbot, monkeypatch):
    asked = []
    monkeypatch.setattr(type(window), "_confirm_quit_while_busy", lambda self: asked.append(1) or bool(len(asked) > 1))
    window.show()
    view = window.open_preflight()
    view.run()
    future = window.fake.futures[-1]
    assert not window.close() and window.isVisible() and not future.cancelled()  # "No": keep running
    assert window.close() and future.cancelled() and asked == [1, 1]  # "Yes": stopped, then closed
    assert not window.remote.busy


def test_nothing_to_check_in_an_empty_topology(window, qtbot):
    window.files.new()
    view = window.open_preflight()
    assert not view.run()
    assert view.summary.text() == "Nothing to check: the topology has no nodes or clients yet."
    assert window.fake.calls == []


def test_the_cluster_menu_opens_the_tab_and_runs(window, qtbot):
    show_active(qtbot, window)
    window.canvas.setFocus()
    qtbot.keyClick(window.canvas, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: len(window.fake.calls) == 1)
    assert window.tabs.currentWidget() is window.preflight


def test_several_unknown_keys_are_asked_in_one_dialog_and_only_ticked_ones_are_trusted(window, qtbot, tmp_path):
    import asyncssh

    from brickyard.remote.hostkeys import UnknownHostKey

    store = tmp_path / "known_hosts"
    keys = {h: asyncssh.generate_private_key("ssh-ed25519") for h in ("n1", "n2")}

    def report(unknown=("n1", "n2")) -> PreflightReport:
        hosts = []
        for h in unknown:
            hc = HostChecks(h, "server")
            hc.host_key_error = UnknownHostKey(h, h, keys[h], store)
            hc.add("reachable", FAIL, str(hc.host_key_error))
            hosts.append(hc)
        return PreflightReport(hosts + [_checks(h, "server") for h in ("n1", "n2", "n3") if h not in unknown])

    view = window.open_preflight()
    view.scope.setCurrentIndex(view.scope.findData(""))
    seen: list = []

    def answer():
        modal = QApplication.activeModalWidget()
        if modal is None or modal.objectName() != "unknown-host-keys":
            QTimer.singleShot(20, answer)
            return
        seen.append([modal.table.item(r, 2).text() for r in range(modal.table.rowCount())])
        assert [modal.table.item(r, 0).text() for r in range(2)] == ["n1", "n2"]
        assert not modal.trust_button.isEnabled()  # nothing is trusted until ticked
        modal.tick(1)
        qtbot.mouseClick(modal.trust_button, Qt.MouseButton.LeftButton)

    QTimer.singleShot(20, answer)
    view.run()
    _in_thread(lambda: window.fake.futures[-1].set_result(report()))
    qtbot.waitUntil(lambda: len(window.fake.calls) == 2)  # trusted one: checked again by itself
    assert seen == [[keys["n1"].get_fingerprint("sha256"), keys["n2"].get_fingerprint("sha256")]]
    lines = store.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("n2 ssh-ed25519 ")
    # the re-run still meets n1's refused key: it is not asked about again in this round
    _in_thread(lambda: window.fake.futures[-1].set_result(report(unknown=("n1",))))
    qtbot.waitUntil(lambda: not view.running)
    qtbot.wait(100)
    assert QApplication.activeModalWidget() is None and len(window.fake.calls) == 2


# ---- real SSH: host keys ---------------------------------------------------------------

sshd = sshd_fixture("sshd-preflight-view")


def _answer_modal(qtbot, object_name: str, button: str, seen: list) -> None:
    """Click ``button`` in the modal dialog ``object_name`` as soon as it shows (it blocks in exec())."""

    def poll():
        modal = QApplication.activeModalWidget()
        if modal is not None and modal.objectName() == object_name:
            seen.append(modal)
            target = modal.findChild(QPushButton, button) if button else None
            if target is None:  # a QMessageBox: its one button
                target = modal.findChildren(QPushButton)[0]
            qtbot.mouseClick(target, Qt.MouseButton.LeftButton)
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(20, poll)


@pytest.fixture
def real_window(qtbot, tmp_path, sshd, monkeypatch):
    own = tmp_path / "brickyard_known_hosts"
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(own))
    topo = Topology(name="real", nodes=[Node("target", bricks=[Brick(str(tmp_path / "brick"), 1000)])])
    w = MainWindow(topo, settings_path=tmp_path / "settings.json", autosave_dir=tmp_path / "autosave",
                   remote=RemoteBridge(ssh_config=sshd.ssh_config))
    qtbot.addWidget(w)
    w.own_known_hosts = own
    yield w
    w.remote.close()


def run_answering(qtbot, view, object_name: str, button: str) -> list:
    """Run the pre-flight, clicking ``button`` in the modal ``object_name`` it opens; the dialog
    seen, once the run has ended."""
    seen: list = []
    _answer_modal(qtbot, object_name, button, seen)
    with qtbot.waitSignal(view.sig_finished, timeout=60_000):
        view.run()
    qtbot.waitUntil(lambda: bool(seen))
    return seen


def test_unknown_host_key_is_shown_refused_then_trusted_and_checked_again(real_window, qtbot, sshd):
    sshd.user_known_hosts.write_text("")
    view = real_window.open_preflight()
    seen = run_answering(qtbot, view, "unknown-host-key", "refuse")
    assert sshd.host_fingerprint in seen[0].fingerprint.text()
    qtbot.wait(100)
    assert not real_window.own_known_hosts.exists()  # refused: nothing stored, no second run
    row = view._rows["target"]
    assert _status(row) == FAIL and sshd.host_fingerprint in row.child(0).text(2)

    seen = run_answering(qtbot, view, "unknown-host-key", "trust")
    assert real_window.own_known_hosts.read_text().startswith(f"[127.0.0.1]:{sshd.port} ssh-ed25519 ")

    # trusted: the checks run again by themselves and get past the host key
    def checks() -> dict[str, str]:
        row = view._rows["target"]
        return {row.child(i).text(0): _status(row.child(i)) for i in range(row.childCount())}

    qtbot.waitUntil(lambda: not view.running and checks().get("authenticated") == OK, timeout=60_000)
    checks = checks()
    assert checks["reachable"] == checks["authenticated"] == checks["root or sudo"] == OK, checks
    assert "clock" in checks


def test_a_changed_host_key_is_explained_and_never_offered(real_window, qtbot, sshd, tmp_path):
    other = keygen(tmp_path / "other_host_key")
    sshd.user_known_hosts.write_text(sshd.known_hosts_line(other.with_suffix(".pub")))
    view = real_window.open_preflight()
    seen = run_answering(qtbot, view, "host-key-changed", "")
    assert "HOST KEY CHANGED" in seen[0].text() and seen[0].findChild(QPushButton, "trust") is None
    row = view._rows["target"]
    assert _status(row) == FAIL and "HOST KEY CHANGED" in row.child(0).text(2)
    assert not real_window.own_known_hosts.exists()


def test_an_encrypted_key_is_unlocked_from_a_dialog_the_loop_thread_waits_for(real_window, qtbot, sshd, tmp_path):
    from PySide6.QtWidgets import QInputDialog

    sshd.trust()
    asked: list[str] = []

    def type_passphrase():
        modal = QApplication.activeModalWidget()
        if not isinstance(modal, QInputDialog):
            QTimer.singleShot(20, type_passphrase)
            return
        asked.append(modal.labelText())
        assert modal.textEchoMode() == modal.textEchoMode().Password
        modal.setTextValue("s3cret")
        modal.accept()

    with sshd.locked_key(tmp_path, "s3cret") as (key, config):
        bridge = RemoteBridge(ssh_config=config)
        bridge.adopt(real_window)
        view = real_window.open_preflight()
        view.bridge = bridge
        QTimer.singleShot(20, type_passphrase)
        try:
            with qtbot.waitSignal(view.sig_finished, timeout=60_000):
                view.run()
        finally:
            bridge.close()
    checks = {c.name: c.status for c in view.report.hosts[0].checks}
    assert asked and str(key) in asked[0]
    assert checks["authenticated"] == OK and checks["root or sudo"] == OK
    assert "s3cret" not in view.report.text()


def test_a_volume_ready_to_provision_is_one_click_from_its_plan(window, qtbot):
    """The issue 21 walk: the summary said 'Ready to provision.' and the way on was the Cluster
    menu; a pre-flight of a volume with nothing failed now offers Provision…, which shows that
    volume's plan on the Provision tab (nothing runs)."""
    view = window.open_preflight()
    assert view.provision_button.isHidden()
    view.run()
    assert view.provision_button.isHidden()                   # not while it runs
    _in_thread(lambda: window.fake.futures[-1].set_result(
        PreflightReport([_checks("n1", "server", FAIL), _checks("n2", "server"), _checks("c1", "client")])))
    qtbot.waitUntil(lambda: not view.running)
    assert view.provision_button.isHidden()                   # n1 failed: fix it first
    view.run()
    _in_thread(lambda: window.fake.futures[-1].set_result(
        PreflightReport([_checks("n1", "server", WARN), _checks("n2", "server"), _checks("c1", "client")])))
    qtbot.waitUntil(lambda: not view.running)
    assert not view.provision_button.isHidden()
    qtbot.mouseClick(view.provision_button, Qt.MouseButton.LeftButton)
    provision = window.provision_view
    assert window.tabs.currentWidget() is provision and provision.selected_volume() == "v1"
    assert provision.summary_text.startswith("Dry run of v1:")
    view.scope.setCurrentIndex(view.scope.findData(""))        # the whole topology: no one volume to provision
    view.run()
    _in_thread(lambda: window.fake.futures[-1].set_result(PreflightReport([_checks("n1", "server")])))
    qtbot.waitUntil(lambda: not view.running)
    assert view.provision_button.isHidden()
