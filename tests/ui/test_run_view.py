"""The Run tab: the parameter form is generated from a plugin's declared Params (tooltips,
the plugin's own messages, values remembered per workload), broken plugins are greyed with
their error, and real runs on this machine stream points into the live chart, end in a named
state, land in history and can be cancelled with nothing left behind.

Runs here are real engine runs with real agents, on this workstation: the topology's client
and nodes are reached through ``LocalExecutor``s instead of SSH (real hosts: tests/e2e)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit

from brickyard.bench import registry
from brickyard.bench.api import Measurement, Param, Workload
from brickyard.bench.hostlock import HostLocks
from brickyard.core.results import RunStatus
from brickyard.core.topology import Brick, BrickRef, Client, Layout, Mount, Node, Topology, Volume, VolumeType
from brickyard.remote.executor import CommandResult
from brickyard.remote.local import LocalExecutor
from brickyard.remote.services import RemoteServices
from brickyard.store import HistoryStore
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.session import Session
from brickyard.ui.run import RunView


class Sleeper(Workload):
    """A third-party-style workload: every kind of Param, and steps that last as long as asked."""

    name = "sleeper"
    title = "Sleep steps"
    description = "Each step sleeps; nothing is written."
    params = (Param("seconds", "float", 0.05, "sleep per step", minimum=0, maximum=60),
              Param("steps", "int", 2, "how many steps", minimum=1, maximum=50),
              Param("sizes", "sizes", "4K,1M", "block sizes to pretend", minimum=1024, maximum=1 << 30),
              Param("mode", "choice", "a", "a mode", choices=("a", "b")),
              Param("loud", "bool", False, "say more"))

    def step_count(self, values):
        return values["steps"]

    def check(self, values):
        return ["seconds × steps must stay under 60 s"] if values["seconds"] * values["steps"] > 60 else []

    async def run(self, ctx):
        for i in range(ctx.values["steps"]):
            ctx.progress(f"sleeping step {i + 1}")
            runs = await ctx.run_workers([(t, ctx.exec_worker(["sleep", str(ctx.values["seconds"])]))
                                          for t in ctx.targets])
            ctx.record(Measurement({"i": i}, [r.timing for r in runs]))


def entries(*extra):
    found = [e for e in registry.discover(Path("/nonexistent")) if e.name == "dd"]
    return lambda: found + [registry.PluginEntry("sleeper", "test", Sleeper()),
                            registry.PluginEntry("broken", "/plugins/broken.py", error="ImportError: no module x (broken.py:1)"),
                            *extra]


class MountStandIn(LocalExecutor):
    """This workstation as a client whose volume mounts are local directories: findmnt -J (the
    run's start checks a volume's targets with it) says each mount point of the topology is a
    gluster mount of its volume; everything else sees the directory as it is."""

    mounted = True     # False: the volume is not mounted (torn down), findmnt says what is there

    def __init__(self, host: str, topo: Topology):
        super().__init__(host)
        self.mounts = {m.path: v.name for v in topo.volumes for m in v.mounts if m.client == host} \
            if self.mounted else {}

    async def run(self, argv, **kw):
        path = argv[-1] if list(argv[:2]) == ["findmnt", "-J"] else None
        point = next((m for m in self.mounts if path == m or (path or "").startswith(m + "/")), None)
        if point is None:
            return await super().run(argv, **kw)
        now = time.time()
        fs = {"source": f"n1:/{self.mounts[point]}", "fstype": "fuse.glusterfs", "target": point}
        return CommandResult(self.host, tuple(argv), 0, json.dumps({"filesystems": [fs]}).encode(), b"", now, now)


class LocalServices(RemoteServices):
    """The app's services on their own loop thread; every topology machine is this workstation."""

    def hosts(self, topo):
        return lambda name: MountStandIn(name, topo)


def topology(mount_dir: Path) -> Topology:
    topo = Topology(name="t", nodes=[Node("n1", nic_gbps=10.0, bricks=[Brick("/b", 10**12)])], clients=[Client("c1", nic_gbps=1.0)])
    topo.volumes.append(Volume("gv0", Layout(VolumeType.DISTRIBUTE), [BrickRef("n1", "/b")],
                               mounts=[Mount("c1", str(mount_dir))]))
    return topo


@pytest.fixture
def make_view(qtbot, tmp_path):
    made = []

    def make(topo=None, store=None, settings=None, found=None):
        bridge = RemoteBridge(make_services=lambda options: LocalServices())
        view = RunView(Session(topo or topology(tmp_path / "mnt")), bridge, store=(lambda: store) if store else None,
                       settings=settings, entries=found or entries(), locks=HostLocks(tmp_path / "locks"))
        qtbot.addWidget(view)
        view.resize(1500, 900)
        made.append(bridge)
        return view

    yield make
    for bridge in made:
        bridge.close()


def test_form_is_generated_from_the_plugins_params_with_help_limits_and_defaults(make_view):
    view = make_view()
    assert view.select_workload("sleeper")
    f = view.form.fields
    assert list(f) == ["seconds", "steps", "sizes", "mode", "loud", "repeats", "stall_seconds"]
    assert isinstance(f["loud"].widget, QCheckBox) and isinstance(f["mode"].widget, QComboBox)
    assert isinstance(f["sizes"].widget, QLineEdit) and f["sizes"].text() == "4K,1M"
    assert "block sizes to pretend" in f["sizes"].widget.toolTip() and "range 1K..1G" in f["sizes"].widget.toolTip()
    assert f["repeats"].text() == "3" and "median and spread" in f["repeats"].widget.toolTip()
    assert [f["mode"].widget.itemText(i) for i in range(2)] == ["a", "b"]


def test_a_bad_value_is_marked_at_the_field_with_the_plugins_own_message_and_start_says_why(make_view, tmp_path):
    view = make_view()
    view.select_workload("sleeper")
    field = view.form.fields["steps"]
    field.edit.setText("500")
    assert field.error.text() == "steps: 500 is above the maximum 50" and field.edit.property("invalid")
    assert not view.start_button.isEnabled() and "above the maximum 50" in view.start_button.toolTip()
    field.edit.setText("5")
    assert not field.error.isVisible() and not field.edit.property("invalid")
    view.form.fields["seconds"].edit.setText("20")           # 20 s × 5 steps: the workload's own cross-check
    assert view.form.problem_label.text() == "seconds × steps must stay under 60 s"
    assert not view.start_button.isEnabled()
    view.form.fields["sizes"].edit.setText("3K..1M")
    assert "power-of-two range" in view.form.fields["sizes"].error.text()


def test_broken_plugins_are_listed_greyed_with_their_error(make_view):
    view = make_view()
    index = view.workload_box.findData("broken")
    item = view.workload_box.model().item(index)
    assert not item.isEnabled() and "ImportError: no module x" in item.toolTip()
    assert "broken could not be loaded (/plugins/broken.py): ImportError" in view.broken.text()
    assert not view.select_workload("broken")


def test_parameters_are_remembered_per_workload_across_sessions(make_view, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    view = make_view(settings=settings)
    view.select_workload("sleeper")
    view.form.fields["steps"].edit.setText("7")
    view.form.fields["mode"].widget.setCurrentText("b")
    view.select_workload("dd")
    view.form.fields["block_sizes"].edit.setText("64K,1M")
    again = make_view(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert again.workload_name() == "dd" and again.form.fields["block_sizes"].text() == "64K,1M"
    again.select_workload("sleeper")
    assert again.form.fields["steps"].text() == "7" and again.form.fields["mode"].text() == "b"
    assert again.form.fields["seconds"].text() == "0.05"


def test_targets_are_the_volumes_client_mounts_and_the_link_is_detected_with_the_topology_nic_as_fallback(
        make_view, tmp_path):
    view = make_view()
    assert view.targets.volume() == "gv0"
    assert [t.text for t in view.targets.mount_targets()] == [f"c1:{tmp_path / 'mnt'}"]
    assert "read on the host" in view.link_hint.text() and "c1 1 Gbit/s" in view.link_hint.text()
    [request] = view.requests()
    assert request.servers == ("n1",) and request.volume == "gv0"
    assert request.link_bps is None and request.link_hints == {"c1": 1e9 / 8}
    view.link_edit.setText("fast")
    assert "write e.g. 1Gbit" in view.link_error.text() and not view.start_button.isEnabled()
    view.link_edit.setText("25Gbit")
    assert view.requests()[0].link_bps == 25e9 / 8 and "25 Gbit/s" in view.link_hint.text()


def test_the_run_says_which_link_bounded_each_host_a_typed_one_first(make_view, qtbot, tmp_path):
    (tmp_path / "mnt").mkdir()
    view = make_view()
    view.select_workload("sleeper")
    view.form.set_texts({"steps": "1", "seconds": "0", "repeats": "1"})
    assert view.start()
    qtbot.waitUntil(lambda: not view.running, timeout=60_000)
    log = view.live.log.toPlainText()
    # c1's "mount" is a local directory here: no network in the way, whatever the topology says
    assert "physics bound on c1: none, not applicable (c1:" in log and "local file system" in log
    view.link_edit.setText("25Gbit")
    assert view.start()
    qtbot.waitUntil(lambda: not view.running, timeout=60_000)
    assert ("physics bound: 25 Gbit/s for every client host, typed in the Link field (it overrides what the "
            "hosts report and the topology's NIC figures)") in view.live.log.toPlainText()


def test_baselines_are_checked_kept_and_each_becomes_a_run_of_its_own(make_view, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    view = make_view(settings=settings)
    panel = view.targets
    panel.baseline_edit.setText("local:relative/path")
    assert not panel.add_baseline_from_field() and "must be absolute" in panel.baseline_error.text()
    panel.baseline_edit.setText(f"local:{tmp_path}")
    assert panel.add_baseline_from_field()
    panel.kind_box.setCurrentText("tmpfs")
    assert panel.baseline_edit.placeholderText() == "c1:/dev/shm"
    assert panel.add_baseline_from_field()                  # the placeholder itself
    panel.baselines.item(1).setCheckState(Qt.CheckState.Unchecked)
    requests = view.requests()
    assert [r.label for r in requests] == [f"gv0 on c1", f"local directory: local:{tmp_path}"]
    assert requests[1].servers == () and requests[1].link_hints == {} and requests[1].volume == ""
    again = make_view(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert [b.label() for b in again.targets.all_baselines()] == [f"local directory: local:{tmp_path}",
                                                                  "tmpfs: c1:/dev/shm"]
    assert [b.spec.host for b in again.targets.baseline_targets()] == ["local"]


def test_a_run_streams_points_into_the_chart_ends_complete_and_opens_in_history(make_view, qtbot, tmp_path):
    (tmp_path / "mnt").mkdir()
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    view = make_view(store=store)
    view.show()
    view.form.set_texts({"block_sizes": "64K,256K", "concurrency": "1,2", "size": "512K", "direction": "write",
                         "repeats": "1", "min_step_seconds": "0"})
    with qtbot.waitSignal(view.sig_show_in_history, timeout=60_000) as shown:
        assert view.start()
        assert view.running and not view.start_button.isEnabled() and view.cancel_button.isEnabled()
        qtbot.waitUntil(lambda: 0 < view.live.chart.point_count < 4 or not view.running, timeout=60_000)
        partway = view.live.chart.point_count
    [run_id] = shown.args[0]
    assert 0 < partway < 4, "points appear while the run goes on"
    assert view.live.chart.point_count == 4 and view.live.table.rowCount() == 4
    assert view.live.state_kind == "complete" and "complete: 4 steps measured" in view.live.state.text()
    assert view.start_button.isEnabled() and view.history_button.isEnabled()
    run = store.load_run(run_id)
    assert run.status.value == "complete" and len(run.steps) == 4 and run.provenance.parameters["size"] == "512K"
    assert store.topology_snapshot(run_id) is not None
    assert "#0 r0 block_size=65536 concurrency=1 direction=write" in view.live.log.toPlainText()
    assert not [p for p in (tmp_path / "mnt").iterdir()], "the run's files are removed"
    store.close()


def test_cancel_stops_the_workers_keeps_what_was_measured_and_removes_the_runs_files(make_view, qtbot, tmp_path):
    (tmp_path / "mnt").mkdir()
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    view = make_view(store=store)
    view.select_workload("sleeper")
    view.form.set_texts({"seconds": "30", "steps": "2", "repeats": "1"})
    opened: list = []
    view.sig_show_in_history.connect(opened.append)
    with qtbot.waitSignal(view.sig_batch_finished, timeout=30_000) as done:
        assert view.start()
        qtbot.waitUntil(lambda: any(p.name.startswith("brickyard-") for p in (tmp_path / "mnt").iterdir()),
                        timeout=20_000)
        qtbot.wait(500)
        view.cancel()
    [run] = done.args[0]
    assert view.live.state_kind == "cancelled" and "cancelled" in view.live.state.text()
    assert run.error.startswith("cancelled by the user") and run.status is RunStatus.CANCELLED
    assert store.load_run(run.run_id).status is RunStatus.CANCELLED       # History says what the Run tab says
    assert not view.message.text().startswith("Cancelling")             # the workers have stopped: note gone
    assert not [p for p in (tmp_path / "mnt").iterdir()]
    assert not view.running and view.start_button.isEnabled()
    assert opened == [], "a cancelled run stays in view instead of jumping to History"
    store.close()


def test_a_host_that_cannot_be_reached_fails_the_run_before_anything_starts(make_view, qtbot, tmp_path):
    class Down(LocalServices):
        def hosts(self, topo):
            async def refuse(argv, **kw):
                from brickyard.remote.executor import ExecutorError
                raise ExecutorError("c1", "connection refused")

            def get(name):
                ex = LocalExecutor(name)
                if name == "c1":
                    ex.run = refuse
                return ex
            return get

    bridge = RemoteBridge(make_services=lambda options: Down())
    view = RunView(Session(topology(tmp_path / "mnt")), bridge, entries=entries(), locks=HostLocks(tmp_path / "l"))
    qtbot.addWidget(view)
    try:
        with qtbot.waitSignal(view.sig_batch_finished, timeout=30_000) as done:
            assert view.start()
        assert done.args[0] == [] and view.live.state_kind == "failed"
        assert "c1: connection refused" in view.live.state.text()
    finally:
        bridge.close()


def test_the_window_opens_the_run_tab_and_a_saved_run_in_history_over_earlier_runs(qtbot, tmp_path, monkeypatch):
    import random

    pytest.importorskip("brickyard.ui.history")
    from brickyard.store.synthetic import synthetic_run
    from brickyard.ui.frame.mainwindow import MainWindow

    db = tmp_path / "h.sqlite3"
    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{db}")
    monkeypatch.setenv("BRICKYARD_LOCK_DIR", str(tmp_path / "locks"))
    rng = random.Random(1)
    with HistoryStore(f"sqlite:///{db}") as store:
        old, new = (synthetic_run(rng, started_at=t) for t in (1_760_000_000.0, 1_760_100_000.0))
        other = synthetic_run(rng, started_at=1_760_050_000.0, workload="fio")
        for run in (old, other, new):
            store.add_run(run)
    win = MainWindow(topology(tmp_path / "mnt"), tmp_path / "settings.ini", tmp_path / "autosave")
    qtbot.addWidget(win)
    run_action = next(a for m in win.menuBar().actions() if m.text() == "&Cluster"
                      for a in m.menu().actions() if a.text() == "&Run benchmark…")
    run_action.trigger()
    assert win.tabs.tabText(win.tabs.currentIndex()) == "Run" and win.tabs.currentWidget() is win.run_view
    win.run_view.sig_show_in_history.emit([new.run_id])
    history = win.tabs.currentWidget()
    assert win.tabs.tabText(win.tabs.currentIndex()) == "History"
    assert set(history.selected_run_ids()) == {old.run_id, new.run_id}       # same volume and workload only
    assert [r.run_id for r in history.compare.runs] == [old.run_id, new.run_id]


def test_a_busy_host_makes_the_run_wait_its_turn_saying_who_holds_it_and_cancel_gives_up(make_view, qtbot, tmp_path):
    (tmp_path / "mnt").mkdir()
    view = make_view()
    view.select_workload("sleeper")
    view.form.set_texts({"seconds": "0.05", "steps": "1", "repeats": "1"})
    held = view.locks.try_acquire(["c1"], "campaign seed004 cell dist × dd")
    try:
        with qtbot.waitSignal(view.sig_batch_finished, timeout=30_000) as done:
            assert view.start()
            qtbot.waitUntil(lambda: "waiting its turn" in view.live.state.text(), timeout=20_000)
            assert "c1 is busy: campaign seed004 cell dist × dd (this process)" in view.live.state.text()
            view.cancel()
        assert done.args[0] == [] and view.live.state_kind == "cancelled"
        assert "cancelled while waiting its turn" in view.live.state.text()
        with qtbot.waitSignal(view.sig_batch_finished, timeout=30_000) as done:   # queued: runs once freed
            assert view.start()
            qtbot.waitUntil(lambda: "waiting its turn" in view.live.state.text(), timeout=20_000)
            held.release()
        assert [r.status.value for r in done.args[0]] == ["complete"]
    finally:
        held.release()


def test_a_history_database_that_fails_mid_run_is_said_and_the_run_still_measures_whole(make_view, qtbot, tmp_path):
    from sqlalchemy.exc import OperationalError

    (tmp_path / "mnt").mkdir()
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")

    def full(*args, **kw):
        raise OperationalError("INSERT …", {}, Exception("database or disk is full"))

    store.add_steps = full                      # the disk fills once the run is stored
    view = make_view(store=store)
    view.form.set_texts({"block_sizes": "64K", "concurrency": "1,2", "size": "256K", "direction": "write",
                         "repeats": "1", "min_step_seconds": "0"})
    assert view.start()
    qtbot.waitUntil(lambda: not view.running, timeout=60_000)
    assert view.live.state_kind == "complete" and view.live.table.rowCount() == 2
    assert "NOT saved to the history" in view.message.text() and "disk is full" in view.message.text()
    store.close()


def test_a_client_mount_added_from_the_run_tab_goes_through_the_mount_editor_and_undoes(make_view, qtbot, tmp_path):
    from PySide6.QtWidgets import QDialogButtonBox

    from .helpers import on_next_dialog, type_into

    view = make_view()
    view.show()
    session = view.session

    def fill_client(dialog):
        type_into(qtbot, dialog.name.edit, "c2")
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)

    def fill_mount(dialog):
        assert dialog.volume.currentText() == "gv0"
        on_next_dialog(fill_client)
        qtbot.mouseClick(dialog.new_client, Qt.MouseButton.LeftButton)
        type_into(qtbot, dialog.path.edit, "/mnt/bench")
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)

    done = on_next_dialog(fill_mount)
    qtbot.mouseClick(view.targets.add_mount_button, Qt.MouseButton.LeftButton)
    assert done
    assert [t.text for t in view.targets.mount_targets()] == [f"c1:{tmp_path / 'mnt'}", "c2:/mnt/bench"]
    assert [t.host for t in view.requests()[0].targets] == ["c1", "c2"]
    session.stack.undo()                   # one undo step: the new client and its mount
    assert session.topo.client("c2") is None
    assert [t.host for t in view.targets.mount_targets()] == ["c1"]


def test_benchmark_this_machine_leaves_the_dd_parameters_the_user_saved(make_view, qtbot, tmp_path):
    """issue 21 item 12: the first-start sweep overwrote the remembered dd parameters."""
    from brickyard.bench.engine import TargetSpec
    from brickyard.ui.run.targets import Baseline

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    view = make_view(settings=settings)
    view.select_workload("dd")
    view.form.fields["block_sizes"].edit.setText("64K,1M")           # the user's own sweep, remembered
    mine = settings.value("run/params/dd")
    assert "64K,1M" in mine
    (tmp_path / "bench").mkdir()
    with qtbot.waitSignal(view.sig_batch_finished, timeout=60_000):
        assert view.measure_baselines([Baseline("local directory", TargetSpec("local", str(tmp_path / "bench")))],
                                      "dd", {"block_sizes": "64K", "concurrency": "1", "size": "1M", "repeats": "1",
                                             "direction": "write"})
    assert settings.value("run/params/dd") == mine
    again = make_view(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    again.select_workload("dd")
    assert again.form.fields["block_sizes"].text() == "64K,1M"


def test_a_run_on_a_volume_that_is_not_mounted_says_so_and_stores_no_run(make_view, qtbot, tmp_path, monkeypatch):
    """Issue 21 point 10: one sentence, not [Errno 2], and no 0-step run in the history."""
    monkeypatch.setattr(MountStandIn, "mounted", False)        # torn down: the mount point is gone
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    view = make_view(store=store)
    view.select_workload("sleeper")
    view.form.set_texts({"steps": "1", "seconds": "0", "repeats": "1"})
    assert view.start()
    qtbot.waitUntil(lambda: not view.running, timeout=60_000)
    assert view.live.state_kind == "failed"
    assert view.live.state.text() == (f"gv0 on c1: not run — gv0 is not mounted on c1 — provision it first "
                                      f"({tmp_path / 'mnt'} does not exist)")
    assert "Errno" not in view.live.log.toPlainText()
    assert store.list_runs() == []


@pytest.mark.parametrize("size", [(1600, 900), (1280, 720)])
def test_start_and_cancel_stay_in_sight_under_the_run_form_at_small_screens(qtbot, tmp_path, monkeypatch, size):
    """The walk of issue 21: at 1600x900 the dd form (with its step seconds) pushed Start, Cancel
    and Show in History below the edge of the Run tab's scroll area."""
    from brickyard.ui.frame.mainwindow import MainWindow

    from .helpers import show_active

    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'h.sqlite3'}")
    window = MainWindow(topology(tmp_path), tmp_path / "settings.ini", tmp_path / "autosave")
    try:
        show_active(qtbot, window)
        window.resize(*size)
        run = window.open_run()
        assert run.select_workload("dd")
        qtbot.waitUntil(lambda: run.start_button.isVisible())
        for button in (run.start_button, run.cancel_button, run.history_button):
            assert button.visibleRegion().boundingRect() == button.rect(), (button.text(), size)
    finally:
        window.remote.close()


def test_a_size_that_does_not_fit_where_the_steps_write_is_flagged_at_the_field(make_view, tmp_path, monkeypatch):
    """Issue 21 (first-start sizes that do not fit): 4 files of 64 MiB at once on a volume or a
    directory with less room failed half-way with 'No space left on device'; the size field says
    so before Start, for the volume (its usable size, shared by its clients) and a local directory."""
    import collections
    import shutil

    MiB = 1 << 20
    topo = topology(tmp_path / "mnt")
    topo.nodes[0].bricks[0] = Brick("/b", 256 * MiB)
    view = make_view(topo=topo)
    assert view.select_workload("dd")
    view.form.set_texts({"block_sizes": "1M", "size": "64M", "concurrency": "1,4"})
    size = view.form.fields["size"]
    assert size.error.isHidden() and view.start_button.isEnabled()           # 4 × 64 MiB: the 256 MiB fit
    view.form.set_texts({"concurrency": "1,8"})
    said = ("size: a step keeps 536.87 MB at once, more than the 268.44 MB gv0 has free (its usable size when "
            "empty): lower size or concurrency")
    assert size.error.text() == said and not size.error.isHidden()
    assert not view.start_button.isEnabled() and view.hint.text() == said
    view.form.set_texts({"concurrency": "1,2"})
    assert size.error.isHidden() and view.start_button.isEnabled()
    # a local directory: its file system's free space, read as the targets change
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**12, 0, 100 * MiB))
    view.targets.baseline_edit.setText(f"local:{tmp_path}")
    assert view.targets.add_baseline_from_field()
    assert size.error.text() == (f"size: a step keeps 134.22 MB at once, more than the 104.86 MB {tmp_path} has "
                                 "free (its file system now): lower size or concurrency")
    assert not view.start_button.isEnabled()
    view.targets.baselines.item(0).setCheckState(Qt.CheckState.Unchecked)   # not measured: not in the way
    assert size.error.isHidden() and view.start_button.isEnabled()


def test_a_baseline_run_from_a_fresh_window_with_no_topology_file_starts(make_view, qtbot, tmp_path):
    """A window opened without a file holds a topology with no name: Start raised
    TopologyFileError ('name: must not be empty') out of the snapshot and nothing ran."""
    view = make_view(topo=Topology())
    assert view.session.topo.name == ""
    view.targets.baseline_edit.setText(f"local:{tmp_path}")
    assert view.targets.add_baseline_from_field()
    view.form.set_texts({"block_sizes": "64K", "concurrency": "1", "size": "256K", "direction": "write",
                         "repeats": "1", "min_step_seconds": "0"})
    with qtbot.waitSignal(view.runner.sig_batch_done, timeout=60_000) as done:
        assert view.start()
    [run] = done.args[0]
    assert run.status.value == "complete" and len(run.steps) == 1
    assert view.session.topo.name == "", "the user's topology is left as it was"
