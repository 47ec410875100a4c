"""The Provision tab: the dry run lists every command and runs nothing, gluster's questions gate
the run, steps fill in from the loop thread, a failure says what was done / left / how to undo,
cancel kills the running step, a re-run shows the skips, an unknown host key is trusted and the
run starts again, and teardown waits for the typed volume name.

The services are the real ``RemoteServices`` (its own asyncio loop thread) whose executors are a
fake cluster answering with recorded gluster XML (``tests/remote/fakes.py``)."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import Future

import asyncssh
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QPushButton

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.core.topology import BrickRef, Layout, Mount, Volume, VolumeType
from brickyard.remote.executor import ExecutorError
from brickyard.remote.hostkeys import UnknownHostKey
from brickyard.remote.provision import MKDIR_SCRIPT
from brickyard.remote.services import RemoteServices
from brickyard.ui.cluster.provision_view import ProvisionView
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.session import Session

from ..remote.fakes import FakeCluster, FakeExecutor
from ..remote.test_provision import vrep_topology


class ClusterServices(RemoteServices):
    """The app's services on their own loop thread, reaching a fake cluster instead of SSH."""

    def __init__(self, cluster: FakeCluster, wrap=None):
        super().__init__()
        self.cluster, self.wrap = cluster, wrap
        self.refuse_next: Exception | None = None  # the next call's future raises this
        self.runs: list[str] = []
        self._executors: dict[str, FakeExecutor] = {}

    def hosts(self, topo):
        def get(name: str):
            ex = self._executors.setdefault(name, self.cluster.executor(name))
            return self.wrap(ex) if self.wrap else ex

        return get

    def provision(self, topo, volume, progress, **kw):
        self.runs.append(f"provision {volume}")
        if self.refuse_next is not None:
            future, exc, self.refuse_next = Future(), self.refuse_next, None
            future.set_exception(exc)
            return future
        return super().provision(topo, volume, progress, **kw)

    def teardown(self, topo, volume, progress, **kw):
        self.runs.append(f"teardown {volume}")
        return super().teardown(topo, volume, progress, **kw)


def with_vdistrep(topo):
    """Add the lab's replica-2 volume: gluster would warn about split-brain before creating it."""
    topo.volumes.append(Volume("vdistrep", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2),
                               [BrickRef(f"node{i}", "/srv/brick1/vdistrep") for i in (1, 2, 3, 4)],
                               mounts=[Mount("client1", "/mnt/vdistrep")]))
    for node in topo.nodes:
        node.bricks[1].path = "/srv/brick1/vdistrep"
    return topo


@pytest.fixture
def make_view(qtbot):
    made = []

    def make(topo=None, cluster=None, wrap=None, path=None):
        services = ClusterServices(cluster or FakeCluster(), wrap)
        bridge = RemoteBridge(make_services=lambda options: services)
        view = ProvisionView(Session(topo or vrep_topology()), bridge, topology_path=lambda: path)
        qtbot.addWidget(view)
        view.resize(1200, 700)
        view.services, view.cluster = services, services.cluster
        made.append(bridge)
        return view

    yield make
    for bridge in made:
        bridge.close()


def _statuses(view) -> list[str]:
    return [row.data(2, Qt.ItemDataRole.UserRole) for row in view._rows]


def _run(view, qtbot, start) -> object:
    with qtbot.waitSignal(view.sig_finished, timeout=30_000) as blocker:
        assert start()
    return blocker.args[0]


def test_the_plan_shows_every_command_as_the_cli_does_and_runs_nothing(make_view, tmp_path, capsys):
    view = make_view()
    assert view.selected_volume() == "vrep" and not view.run_button.isEnabled()
    assert view.show_plan()
    assert view.cluster.calls == [] and view.services.runs == []
    rows = view._rows
    assert [r.text(0) for r in rows][:3] == ["node1", "node1", "node1"]
    assert rows[0].text(1) == "probe node2 into the trusted pool" and set(_statuses(view)) == {"planned"}
    create = next(r for r in rows if r.text(1) == "create volume vrep")
    assert create.child(0).text(0) == ("ssh node1 gluster --mode=script volume create vrep replica 3 transport tcp "
                                       "node1:/srv/brick1/vrep node2:/srv/brick1/vrep node3:/srv/brick1/vrep")
    assert rows[-1].child(0).text(0) == ("ssh client1 MOUNT_VOLUME src=node1:/vrep dst=/mnt/vrep "
                                         "opts=backup-volfile-servers=node2:node3")
    # the scripts come first, each named with its variables and its whole text, before any step runs one
    helpers = view.tree.topLevelItem(0)
    assert helpers not in rows and helpers.isExpanded()
    scripts = [helpers.child(i) for i in range(helpers.childCount())]
    # each named with its purpose, its text one click away: the steps stay in view (at 1600x900 the
    # scripts' text pushed every step below the fold)
    assert scripts[0].text(0).startswith("MKDIR_BRICK p v: create brick directory $p") and not scripts[0].isExpanded()
    assert scripts[0].child(0).text(0) == 'p="$1"; v="$2"'
    assert "\n".join(scripts[0].child(i).text(0) for i in range(scripts[0].childCount())) == MKDIR_SCRIPT.strip()
    assert [s.text(0).split(" ")[0] for s in scripts] == ["MKDIR_BRICK", "MOUNT_VOLUME"]
    assert not any('sh -c "$' in rows[i].child(0).text(0) for i in range(len(rows)))
    assert view.questions.isHidden() and view.run_button.isEnabled()
    # the copied plan is exactly the CLI's dry run
    path = tmp_path / "t.brickyard.json"
    topofile.save(view.session.topo, path)
    assert main(["provision", str(path), "--volume", "vrep", "--dry-run"]) == 0
    assert view.text() == capsys.readouterr().out.rstrip("\n")
    # fstab adds a step; changing the choice drops the shown plan
    view.fstab_box.setChecked(True)
    assert not view.run_button.isEnabled() and "Show the plan again" in view.summary_text
    before = len(rows)
    view.show_plan()
    assert len(view._rows) == before + 1 and view._rows[-1].text(1) == "add /mnt/vrep to /etc/fstab"


def test_gluster_questions_must_be_acknowledged_before_provision_is_enabled(make_view, qtbot):
    view = make_view(with_vdistrep(vrep_topology()))
    view.session.select_volume("vdistrep")
    assert view.selected_volume() == "vdistrep"  # follows the planner's volume
    view.show_plan()
    assert not view.questions.isHidden() and "split-brain" in view.question_text.text().lower()
    assert not view.run_button.isEnabled() and not view.provision()
    assert view.services.runs == []
    view.ack_box.setChecked(True)
    assert view.run_button.isEnabled()
    with qtbot.waitSignal(view.sig_finished, timeout=30_000) as blocker:
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert view.services.runs == ["provision vdistrep"] and blocker.args[0].ok
    assert view.cluster.volumes["vdistrep"]["status"] == "Started"


def test_a_volume_gluster_would_refuse_says_why_and_offers_nothing_to_run(make_view):
    topo = vrep_topology(layout=Layout(VolumeType.REPLICATE, replica=2))
    view = make_view(topo)
    assert not view.show_plan()
    assert view.summary_text.startswith("Volume vrep cannot be provisioned: gluster would refuse volume 'vrep'")
    assert view.tree.topLevelItemCount() == 0 and not view.run_button.isEnabled() and not view.provision()


def test_steps_and_log_fill_in_from_the_loop_thread_and_a_rerun_shows_skips(make_view, qtbot):
    view = make_view()
    view.show_plan()
    report = _run(view, qtbot, view.provision)  # on_step and the log arrive from the loop thread
    assert report.ok and set(_statuses(view)) == {"done"}
    assert view.progress.value() == view.progress.maximum() == len(view._rows)
    assert view.summary_text.startswith(f"vrep provisioned: {len(view._rows)} steps done, 0 already done")
    log = view.log.toPlainText()
    assert "create volume vrep: done" in log and log.count("--- provision vrep") == 2
    # a re-run finds everything in place: the table says so
    again = _run(view, qtbot, view.provision)
    statuses = dict(zip((r.text(1) for r in view._rows), _statuses(view)))
    assert again.ok and statuses["create volume vrep"] == "skipped"
    assert next(r for r in view._rows if r.text(1) == "create volume vrep").text(3).startswith("already done")
    # said once: not "already done: already in the trusted pool"
    assert next(r for r in view._rows if r.text(1) == "probe node2 into the trusted pool").text(3) == \
        "already in the trusted pool"
    assert "already done (skipped)" in view.summary_text


def first(before):
    """An executor wrapper that awaits ``before(host, argv)`` (which may wait or raise) before
    each command, which then runs as it would."""

    class Wrapped:
        def __init__(self, ex):
            self.ex, self.host = ex, ex.host

        async def run(self, argv, **kw):
            await before(self.host, argv)
            return await self.ex.run(argv, **kw)

    return Wrapped


def held_at(word: str, gate: asyncio.Event):
    """An executor wrapper whose command with ``word`` in it (`volume create`: "create") waits
    until ``gate`` is set."""

    async def hold(_host, argv):
        if word in argv:
            await gate.wait()

    return first(hold)


def test_rows_say_running_while_a_step_runs(make_view, qtbot):
    gate = asyncio.Event()
    view = make_view(wrap=held_at("create", gate))
    view.show_plan()
    assert view.provision()
    create = next(i for i, r in enumerate(view._rows) if r.text(1) == "create volume vrep")
    qtbot.waitUntil(lambda: _statuses(view)[create] == "running", timeout=30_000)
    assert _statuses(view)[:create] == ["done"] * create
    assert set(_statuses(view)[create + 1:]) == {"waiting"}
    assert not view.run_button.isEnabled() and not view.teardown_button.isEnabled() and view.cancel_button.isEnabled()
    with qtbot.waitSignal(view.sig_finished, timeout=30_000):
        view.services.loop.loop.call_soon_threadsafe(gate.set)
    assert set(_statuses(view)) == {"done"}


def test_a_failure_says_what_was_done_what_is_left_and_how_to_undo_then_a_rerun_finishes(make_view, qtbot):
    class DiesAtCreate(FakeCluster):
        dying = True

        def answer(self, host, argv):
            if "create" in argv and self.dying:
                self.glusterd_down.add(host)
            return super().answer(host, argv)

    cluster = DiesAtCreate()
    view = make_view(cluster=cluster)
    view.show_plan()
    report = _run(view, qtbot, view.provision)
    assert not report.ok
    statuses = _statuses(view)
    failed = statuses.index("failed")
    assert view._rows[failed].text(1) == "create volume vrep" and view._rows[failed].text(0) == "node1"
    assert statuses[:failed] == ["done"] * failed and set(statuses[failed + 1:]) == {"left"}
    text = view.summary_text
    assert "FAILED at step 'create volume vrep' on node1" in text
    assert f"done ({failed})" in text and f"left ({len(statuses) - failed})" in text
    assert "to undo what this run did:" in text and "gluster peer detach node2" in text
    assert "brickyard teardown FILE" not in text  # untitled: no placeholder pretending to be a command
    assert "Tear down… in the Provision tab" in text
    assert "FAILED" in view.log.toPlainText()
    assert view.run_button.isEnabled()
    cluster.dying = False
    cluster.glusterd_down.clear()
    again = _run(view, qtbot, view.provision)
    statuses = _statuses(view)
    assert again.ok and statuses[failed] == "done" and "skipped" in statuses[:failed]


def test_the_undo_hint_of_a_failed_run_names_the_open_topology_file(make_view, qtbot, tmp_path):
    class DiesAtStart(FakeCluster):
        def answer(self, host, argv):
            if "start" in argv:
                self.glusterd_down.add(host)
            return super().answer(host, argv)

    path = tmp_path / "my lab.brickyard.json"
    view = make_view(cluster=DiesAtStart(), path=path)
    view.show_plan()
    assert not _run(view, qtbot, view.provision).ok
    assert f"brickyard teardown '{path}' --volume vrep --confirm vrep" in view.summary_text


def test_cancel_kills_the_running_step_and_the_rest_is_left(make_view, qtbot):
    view = make_view(wrap=held_at("create", asyncio.Event()))      # never set: create hangs
    view.show_plan()
    view.provision()
    create = next(i for i, r in enumerate(view._rows) if r.text(1) == "create volume vrep")
    qtbot.waitUntil(lambda: _statuses(view)[create] == "running", timeout=30_000)
    with qtbot.waitSignal(view.sig_finished, timeout=15_000) as blocker:
        qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    report = blocker.args[0]
    assert report.failed.message == "cancelled by the user while it ran"
    assert _statuses(view)[create] == "failed" and set(_statuses(view)[create + 1:]) == {"left"}
    assert "create volume vrep" not in view.cluster.volumes and view.run_button.isEnabled()


def _answer(object_name: str, act) -> list:
    """Run ``act(modal)`` once the modal dialog ``object_name`` shows (it blocks in exec())."""
    seen: list = []

    def poll():
        modal = QApplication.activeModalWidget()
        if modal is not None and modal.objectName() == object_name:
            seen.append(modal)
            act(modal)
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(20, poll)
    return seen


def test_an_unknown_host_key_is_trusted_from_the_dialog_and_the_run_starts_again(make_view, qtbot, tmp_path):
    store = tmp_path / "known_hosts"
    key = asyncssh.generate_private_key("ssh-ed25519")

    async def new_key_on_node3(host, _argv):
        if host == "node3" and not store.exists():
            raise UnknownHostKey("node3", "10.77.0.13", key, store)

    view = make_view(wrap=first(new_key_on_node3))
    view.show_plan()
    seen: list[tuple[str, str]] = []

    def trust(modal):
        seen.append((modal.windowTitle(), modal.fingerprint.text()))
        qtbot.mouseClick(modal.trust_button, Qt.MouseButton.LeftButton)

    _answer("unknown-host-key", trust)
    with qtbot.waitSignal(view.sig_finished, timeout=30_000):
        view.provision()
    qtbot.waitUntil(lambda: bool(seen))
    assert seen[0][0] == "Unknown host key: node3" and key.get_fingerprint("sha256") in seen[0][1]
    qtbot.waitUntil(lambda: view.report is not None and view.report.ok, timeout=30_000)  # ran again by itself
    assert view.services.runs == ["provision vrep"] * 2
    assert store.read_text().startswith("10.77.0.13 ssh-ed25519 ")


def test_a_host_key_refusal_out_of_the_future_names_the_machine_and_a_refused_key_stops_there(make_view, qtbot,
                                                                                            tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    view = make_view()
    view.show_plan()
    view.services.refuse_next = UnknownHostKey("10.77.0.12", "10.77.0.12", key, tmp_path / "known_hosts")
    seen: list[str] = []

    def refuse(modal):
        seen.append(modal.windowTitle())
        qtbot.mouseClick(modal.refuse_button, Qt.MouseButton.LeftButton)

    _answer("unknown-host-key", refuse)
    with qtbot.waitSignal(view.sig_finished, timeout=30_000) as blocker:
        view.provision()
    qtbot.waitUntil(lambda: bool(seen))
    qtbot.wait(100)
    assert blocker.args[0] is None and seen == ["Unknown host key: node2"]  # named from node2's address
    assert view.services.runs == ["provision vrep"] and not (tmp_path / "known_hosts").exists()
    assert set(_statuses(view)) == {"left"} and "stopped at a host key" in view.summary_text
    assert view.run_button.isEnabled()


def test_all_unknown_keys_of_a_new_cluster_are_asked_in_one_dialog(make_view, qtbot, tmp_path):
    store = tmp_path / "known_hosts"
    first = UnknownHostKey("10.77.0.12", "10.77.0.12", asyncssh.generate_private_key("ssh-ed25519"), store)
    first.others = [UnknownHostKey("10.77.0.13", "10.77.0.13", asyncssh.generate_private_key("ssh-ed25519"), store)]
    view = make_view()
    view.show_plan()
    view.services.refuse_next = first
    seen: list[list[str]] = []

    def trust_all(modal):
        seen.append([modal.table.item(r, 0).text() for r in range(modal.table.rowCount())])
        for row in range(modal.table.rowCount()):
            modal.tick(row)
        qtbot.mouseClick(modal.trust_button, Qt.MouseButton.LeftButton)

    _answer("unknown-host-keys", trust_all)
    view.provision()
    qtbot.waitUntil(lambda: view.services.runs == ["provision vrep"] * 2, timeout=30_000)  # ran again by itself
    assert seen == [["node2  (10.77.0.12)", "node3  (10.77.0.13)"]]
    assert [line.split()[0] for line in store.read_text().splitlines()] == ["10.77.0.12", "10.77.0.13"]


def test_a_changed_host_key_is_explained_never_offered_and_nothing_runs_again(make_view, qtbot):
    from brickyard.remote.hostkeys import HostKeyChanged

    view = make_view()
    view.show_plan()
    key = asyncssh.generate_private_key("ssh-ed25519")
    stored = [("/root/.ssh/known_hosts", "SHA256:old")]
    view.services.refuse_next = HostKeyChanged("10.77.0.11", "10.77.0.11", key, stored)
    seen: list[str] = []

    def close(modal):
        seen.append(modal.text())
        assert modal.findChild(QPushButton, "trust") is None
        modal.findChildren(QPushButton)[0].click()

    _answer("host-key-changed", close)
    with qtbot.waitSignal(view.sig_finished, timeout=30_000):
        view.provision()
    qtbot.waitUntil(lambda: bool(seen))
    qtbot.wait(100)
    assert "HOST KEY CHANGED" in seen[0] and view.services.runs == ["provision vrep"]
    assert "the key of node1 has CHANGED (refused)" in view.summary_text


def test_teardown_runs_only_after_the_volume_name_is_typed(make_view, qtbot):
    view = make_view()
    view.show_plan()
    assert _run(view, qtbot, view.provision).ok

    def refuse(modal):
        assert modal.name_edit.placeholderText() == "type vrep here"     # the bare name read as typed
        modal.name_edit.setText("vre")
        assert not modal.teardown_button.isEnabled()
        qtbot.keyClick(modal.name_edit, Qt.Key.Key_Return)  # Enter does not confirm a wrong name
        assert modal.isVisible()
        qtbot.mouseClick(modal.findChild(QPushButton, "cancel"), Qt.MouseButton.LeftButton)

    seen = _answer("confirm-teardown", refuse)
    assert not view.ask_teardown()
    assert seen and view.services.runs == ["provision vrep"]

    def confirm(modal):
        shown = modal.findChild(QPlainTextEdit, "teardown-steps").toPlainText().splitlines()
        assert "# node1: stop volume vrep" in shown       # each step with its exact commands
        assert "ssh node1 gluster --mode=script volume stop vrep" in shown
        assert "ssh node2 REMOVE_IF_OURS p=/srv/brick1/vrep want=vrep" in shown
        assert any(line.startswith("# REMOVE_IF_OURS p want mode: remove $p only if") for line in shown)
        qtbot.keyClicks(modal.name_edit, "vrep")
        assert modal.teardown_button.isEnabled()
        qtbot.mouseClick(modal.teardown_button, Qt.MouseButton.LeftButton)

    seen = _answer("confirm-teardown", confirm)
    with qtbot.waitSignal(view.sig_finished, timeout=30_000) as blocker:
        assert view.ask_teardown()
    assert blocker.args[0].ok and view.services.runs[-1] == "teardown vrep"
    assert view.cluster.volumes == {} and view.cluster.mounts == {} and view.cluster.markers == {}
    titles = [r.text(1) for r in view._rows]
    assert titles.index("unmount /mnt/vrep") < titles.index("delete volume vrep") and set(_statuses(view)) <= {
        "done", "skipped"}
    assert view.summary_text.startswith("vrep torn down:")
    assert view.plan is None and not view.run_button.isEnabled() and view.questions.isHidden()


def test_an_edit_that_changes_the_steps_drops_the_shown_plan_and_one_that_does_not_keeps_it(make_view):
    view = make_view()
    view.show_plan()
    view.session.topo.rename_node("node4", "node9")  # not in the volume: same steps
    assert view.plan is not None and view.run_button.isEnabled()
    view.session.topo.rename_node("node3", "node7")
    assert view.plan is None and not view.run_button.isEnabled()
    assert "topology changed" in view.summary_text


def test_an_edit_during_a_run_leaves_the_run_alone_and_asks_for_the_plan_again_after(make_view, qtbot):
    gate = asyncio.Event()
    view = make_view(wrap=held_at("create", gate))
    view.show_plan()
    view.provision()
    qtbot.waitUntil(lambda: "running" in _statuses(view) and "create" in view.summary_text, timeout=30_000)
    view.session.topo.volumes[0].options["performance.write-behind"] = "on"
    view.session.topo.rename_node("node4", "node9")  # an edit event while the run goes on
    assert view.running and view.plan is not None
    with qtbot.waitSignal(view.sig_finished, timeout=30_000) as blocker:
        view.services.loop.loop.call_soon_threadsafe(gate.set)
    assert blocker.args[0].ok and view.cluster.volumes["vrep"]["options"] == {"performance.write-behind": "off"}
    assert view.plan is None and not view.run_button.isEnabled()
    assert view.summary_text.endswith("The topology changed during the run: show the plan again before provisioning.")


def test_quitting_during_a_teardown_asks_naming_the_teardown(qtbot, tmp_path):
    """The quit question names what runs (it once said 'pre-flight, provisioning or an import'
    during a teardown)."""
    from brickyard.ui.frame.mainwindow import MainWindow

    gate = asyncio.Event()

    services = ClusterServices(FakeCluster(), held_at("stop", gate))
    window = MainWindow(vrep_topology(), settings_path=tmp_path / "settings.ini", autosave_dir=tmp_path / "autosave",
                        remote=RemoteBridge(make_services=lambda options: services))
    qtbot.addWidget(window)
    view = window.open_provision()
    view.show_plan()
    with qtbot.waitSignal(view.sig_finished, timeout=30_000):
        assert view.provision()

    def confirm(modal):
        modal.name_edit.setText("vrep")
        qtbot.keyClick(modal.name_edit, Qt.Key.Key_Return)

    _answer("confirm-teardown", confirm)
    assert view.ask_teardown()
    qtbot.waitUntil(lambda: "running" in _statuses(view), timeout=30_000)
    assert window.remote.running() == ["teardown of vrep"]
    assert window.busy_question().startswith("Still running: teardown of vrep.")
    with qtbot.waitSignal(view.sig_finished, timeout=30_000):
        services.loop.loop.call_soon_threadsafe(gate.set)
    assert window.remote.running() == []
    window.remote.close()


def test_the_cluster_menu_opens_one_provision_tab(qtbot, tmp_path):
    from brickyard.ui.frame.mainwindow import MainWindow

    window = MainWindow(vrep_topology(), settings_path=tmp_path / "settings.json", autosave_dir=tmp_path / "autosave",
                        remote=RemoteBridge(make_services=lambda options: ClusterServices(FakeCluster())))
    qtbot.addWidget(window)
    cluster = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Cluster")
    entries = [a.text() for a in cluster.actions()]
    assert "&Pre-flight check" in entries and "&Import from cluster…" in entries
    next(a for a in cluster.actions() if a.text() == "P&rovision…").trigger()
    view = window.tabs.currentWidget()
    assert isinstance(view, ProvisionView) and window.tabs.tabText(window.tabs.currentIndex()) == "Provision"
    window.tabs.setCurrentIndex(0)
    assert window.open_provision() is view and window.tabs.count() == 2
    assert view.selected_volume() == "vrep"
    window.remote.close()


def check_deaf_to_cancel(seconds: float):
    """An executor wrapper whose "is the volume there?" check (volume info) does not listen to
    cancel for ``seconds``, then fails; every other command runs as it would."""

    async def deaf(host, argv):
        if "info" in argv:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                try:
                    await asyncio.sleep(0.05)
                except asyncio.CancelledError:
                    pass
            raise ExecutorError(host, "gave up")

    return first(deaf)


def test_a_check_that_ignores_cancel_is_abandoned_and_the_table_says_what_is_unknown(make_view, qtbot, monkeypatch):
    from brickyard.ui.cluster import provision_view

    monkeypatch.setattr(provision_view, "HARD_CANCEL_MS", 300)

    # "is the volume there?" (before create) does not listen to cancel for 3 s
    view = make_view(wrap=check_deaf_to_cancel(3.0))
    view.show_plan()
    view.provision()
    create = next(i for i, r in enumerate(view._rows) if r.text(1) == "create volume vrep")
    qtbot.waitUntil(lambda: _statuses(view)[create] == "running", timeout=30_000)
    with qtbot.waitSignal(view.sig_finished, timeout=15_000) as blocker:
        view.cancel()
    assert blocker.args[0] is None and not view.running
    assert _statuses(view)[create] == "stopped" and set(_statuses(view)[create + 1:]) == {"left"}
    assert "abandoned after Cancel" in view.summary_text and view.run_button.isEnabled()


def test_a_view_closed_while_its_cancel_is_pending_is_never_called_after(make_view, qtbot, monkeypatch):
    """The tab's view deleted (its window closed) after Cancel, before the run gave up: neither the
    hard-cancel timer nor the abandoned run's answer may reach it (they used to call into the
    deleted view from a timer and a lambda that outlived it)."""
    from brickyard.ui.cluster import provision_view

    monkeypatch.setattr(provision_view, "HARD_CANCEL_MS", 300)

    view = make_view(wrap=check_deaf_to_cancel(1.5))   # "is the volume there?" deaf to cancel a while
    bridge = view.bridge
    view.show_plan()
    view.provision()
    create = next(i for i, r in enumerate(view._rows) if r.text(1) == "create volume vrep")
    qtbot.waitUntil(lambda: _statuses(view)[create] == "running", timeout=30_000)
    view.cancel()
    view.deleteLater()
    qtbot.waitUntil(lambda: not bridge.busy, timeout=15_000)   # the run ended; nobody was called
    qtbot.wait(500)                                            # past the hard-cancel time too
