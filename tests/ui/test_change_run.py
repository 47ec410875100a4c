"""The Change tab running a change, driven by keys and mouse, against a live volume that changes
as gluster would (``tests/remote/changefake.py``) through the app's real ``RemoteServices`` and
its asyncio loop thread; the change is stored in a real history database.

Read the volume, edit, acknowledge, Apply: the volume is read again and checked, every step
fills in with its status and time, gluster's figures per node show while data moves, the
drawing takes gluster's order and the volume is read back at the end. Cancel mid-rebalance
stops the rebalance and leaves an interrupted change that Resume finishes. A pre-flight that
fails, or a volume that changed since it was read, runs nothing. The change history shows what
ran, predicted against measured, and its record is the PDF's source."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt

from brickyard.core import changemodel as cm
from brickyard.core.topology import BrickRef, Layout, Volume, VolumeType
from brickyard.remote import changesteps
from brickyard.remote.services import RemoteServices
from brickyard.store.history import HistoryStore
from brickyard.ui.change import ChangeHistoryView, ChangeView
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.session import Session

from ..remote.changefake import ChangeCluster
from .helpers import click, point_of, show_active
from .test_change_view import XDR, imported_topology

XR = ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr", "node3:/srv/brick2/xr"]


class ChangeServices(RemoteServices):
    """The app's services on their own loop thread, reaching the fake cluster instead of SSH."""

    def __init__(self, cluster: ChangeCluster):
        super().__init__()
        self.cluster = cluster
        self._executors: dict = {}

    def hosts(self, topo):
        return lambda name: self._executors.setdefault(name, self.cluster.executor(name))


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch):
    monkeypatch.setattr(changesteps, "POLL_FIRST", 0.05)
    monkeypatch.setattr(changesteps, "POLL_MAX", 0.2)


@pytest.fixture
def make(qtbot, tmp_path):
    made = []

    def build(cluster: ChangeCluster, topo=None):
        store = HistoryStore(f"sqlite:///{tmp_path / 'history.sqlite3'}")
        services = ChangeServices(cluster)
        bridge = RemoteBridge(make_services=lambda options: services)
        view = ChangeView(Session(topo or imported_topology()), bridge, lambda: store)
        view.resize(1600, 900)
        show_active(qtbot, view)
        made.append((view, bridge, store))
        view.store = store
        return view

    yield build
    for view, bridge, store in made:
        if view.control.running:
            view.control.cancel()
            qtbot.waitUntil(lambda v=view: not v.control.busy, timeout=20_000)
        bridge.close()
        store.close()


def read(qtbot, view) -> None:
    qtbot.mouseClick(view.read_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.live is not None and view.plan is not None, timeout=20_000)


def card(view, name):
    return point_of(view.canvas, view.canvas.board.nodes[name], QPointF(40, 10))


def chip(view, ref):
    return point_of(view.canvas, view.canvas.board.brick_item(BrickRef.parse(ref)))


def key(qtbot, view, k, mod=Qt.KeyboardModifier.NoModifier):
    view.canvas.setFocus()
    qtbot.keyClick(view.canvas, k, mod)


def acknowledge_and_apply(qtbot, view) -> None:
    qtbot.waitUntil(lambda: view.ack_box.isEnabled(), timeout=5_000)
    view.ack_box.setFocus()
    qtbot.keyClick(view.ack_box, Qt.Key.Key_Space)
    qtbot.waitUntil(view.apply_button.isEnabled)
    qtbot.mouseClick(view.apply_button, Qt.MouseButton.LeftButton)


def expand_two_servers(qtbot, view) -> None:
    for _ in range(2):
        click(view.canvas, card(view, "node3"))
        key(qtbot, view, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.ok and bool(view.plan.steps), timeout=15_000)


def expand_held_in_rebalance(qtbot, make):
    """xdr read, expanded by two servers and applied, its rebalance held running."""
    cluster = ChangeCluster("xdr", XDR, replica=2)
    view = make(cluster)
    read(qtbot, view)
    expand_two_servers(qtbot, view)
    cluster.hold()
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: view.plan_panel.status_of("rebalance-wait") == "running", timeout=30_000)
    return cluster, view


def test_read_then_expand_runs_every_step_shows_the_nodes_figures_and_reads_back(qtbot, make):
    cluster = ChangeCluster("xdr", XDR, replica=2)
    view = make(cluster)
    read(qtbot, view)
    assert view.plan.nothing_to_do and "Distributed-Replicate, 4 bricks" in view.live_label.text()
    expand_two_servers(qtbot, view)
    shown = view.plan
    figures = []
    view.control.sig_event.connect(lambda ev: ev.kind == "progress" and figures.append(view.run_panel.node_rows()))
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: view.control.running, timeout=20_000)
    assert view.cancel_button.isEnabled() and not view.apply_button.isEnabled()
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    # every step done, with its time
    statuses = view.plan_panel.statuses()
    assert set(statuses.values()) == {"done"} and len(statuses) == len(shown.steps)
    assert all(view.plan_panel.rows[k].text(5) for k in statuses)
    # the rebalance was shown node by node, with gluster's figures
    rebalance = [rows for rows in figures if rows and rows[-1][0] == "all nodes"]
    assert rebalance and {r[0] for r in rebalance[-1][:-1]} == {"node1", "node2", "node3", "node6", "node7"}
    assert view.run_panel.bar.value() == 1000
    # on the cluster: one add-brick of the whole new set, then the rebalance
    added = cluster.commands("add-brick")
    assert len(added) == 1 and added[0][-2:] == tuple(str(b) for b in shown.role(cm.NEW))
    assert cluster.bricks[-2:] == [str(b) for b in shown.role(cm.NEW)]
    # read back: the drawing lists gluster's bricks, and the live volume read again has nothing to change
    qtbot.waitUntil(lambda: not view.control.busy and view.plan is not None and view.plan.nothing_to_do,
                    timeout=20_000)
    assert [str(b) for b in view.session.topo.volume("xdr").bricks] == cluster.bricks
    record = view.store.changes.get(view.change_id)
    assert record.status == "complete" and record.measured_seconds is not None
    assert view.report_source() == ("change", view.change_id)
    # the next change is planned from the rates this one measured, and says so
    assert shown.movement.rates.startswith("uncalibrated")          # the first: nothing measured yet
    click(view.canvas, chip(view, "node6:/srv/brick2/xdr"))
    key(qtbot, view, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.kinds == ("shrink",), timeout=15_000)
    assert "measured: rebalance of xdr" in view.plan.movement.rates
    assert "(a prediction from measured rates)" in view.plan_panel.summary.text()
    assert view.plan_panel.tree.headerItem().text(3) == "Prediction"


def test_cancel_mid_rebalance_stops_it_and_resume_finishes_the_change(qtbot, make):
    cluster, view = expand_held_in_rebalance(qtbot, make)
    qtbot.waitUntil(lambda: view.run_panel.node_rows() != [], timeout=10_000)
    qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.control.busy, timeout=30_000)
    assert cluster.commands("rebalance", "stop"), "the rebalance this change started must be stopped"
    assert "Change interrupted" in view.message.text() and "consistent" in view.message.text()
    assert view.plan_panel.status_of("add-brick") == "done"
    record = view.store.changes.get(view.change_id)
    assert record.status == "interrupted"
    # the banner offers to go on
    assert view.banner.isVisible() and "interrupted" in view.banner_text.text()
    assert view.resume_button.isEnabled()
    cluster.release()
    qtbot.mouseClick(view.resume_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    statuses = view.plan_panel.statuses()
    assert statuses["add-brick"] in ("done", "skipped") and statuses["rebalance-wait"] == "done"
    assert len(cluster.commands("add-brick")) == 1                 # read back as done: not added twice
    assert len(cluster.commands("rebalance", "start")) == 2       # started again after the stop
    assert view.store.changes.get(view.change_id).status == "complete"
    qtbot.waitUntil(lambda: not view.banner.isVisible(), timeout=20_000)


def replica_3_xr():
    """The imported topology holding only xr (replica 3 on node1-3's second bricks), and its cluster."""
    topo = imported_topology()
    topo.volumes = [Volume("xr", Layout(VolumeType.REPLICATE, replica=3), [BrickRef.parse(b) for b in XR])]
    for n in topo.nodes[:3]:
        n.bricks = [type(n.bricks[0])("/srv/brick2/xr", n.bricks[0].size_bytes, filesystem="/srv/brick2")]
    return topo, ChangeCluster("xr", XR, replica=3)


def test_replace_a_brick_of_replica_3_heals_it_and_shows_what_waits_for_heal(qtbot, make):
    topo, cluster = replica_3_xr()
    view = make(cluster, topo)
    read(qtbot, view)
    click(view.canvas, chip(view, "node3:/srv/brick2/xr"))
    key(qtbot, view, Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    click(view.canvas, card(view, "node4"))
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.kinds == ("replace",))
    heal_tables = []
    view.control.sig_event.connect(lambda ev: ev.kind == "progress" and heal_tables.append(view.run_panel.node_rows()))
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    assert cluster.bricks == ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr", "node4:/srv/brick2/xr"]
    assert any(rows and rows[0][0] == "every brick's heal index" and rows[0][1] != "0" for rows in heal_tables)
    # the heal was read clean before the brick was replaced (glusterfs #895)
    order = [argv for _, argv in cluster.calls if argv[0] == "gluster"]
    replace_at = next(i for i, a in enumerate(order) if "replace-brick" in a)
    assert any("summary" in a for a in order[:replace_at])


def test_a_failing_pre_flight_runs_nothing_and_says_what_to_fix(qtbot, make):
    cluster = ChangeCluster("xdr", XDR, replica=2)
    view = make(cluster)
    read(qtbot, view)
    expand_two_servers(qtbot, view)
    cluster.offline.add("node2:/srv/brick2/xdr")           # a brick went down after the read
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: "nothing ran" in view.message.text().lower() or "Nothing ran" in view.message.text(),
                    timeout=30_000)
    assert not cluster.commands("add-brick") and not cluster.commands("peer", "probe")
    assert not view.control.busy and not view.change_id


def test_a_volume_changed_since_it_was_read_is_planned_again_and_nothing_runs(qtbot, make):
    cluster = ChangeCluster("xdr", XDR, replica=2)
    view = make(cluster)
    read(qtbot, view)
    expand_two_servers(qtbot, view)
    cluster.bricks += ["node4:/srv/brick1/spare", "node3:/srv/brick1/other"]   # someone else added a set
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: "changed since it was read" in view.message.text(), timeout=30_000)
    assert not cluster.commands("add-brick") and not view.ack_box.isChecked()


def test_the_change_history_lists_the_change_with_predicted_and_measured_times(qtbot, make):
    cluster = ChangeCluster("xdr", XDR, replica=2)
    view = make(cluster)
    read(qtbot, view)
    expand_two_servers(qtbot, view)
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    history = ChangeHistoryView(view.store)
    qtbot.addWidget(history)
    history.show()
    assert history.table.rowCount() == 1 and history.table.item(0, 3).text() == "complete"
    assert history.table.item(0, 2).text() == "expand, rebalance"
    assert history.report_source() == ("change", view.change_id)
    steps = [[history.steps.item(r, c).text() for c in range(history.steps.columnCount())]
             for r in range(history.steps.rowCount())]
    assert [s[3] for s in steps] == ["done"] * len(steps)
    assert all(s[4].startswith("~") and s[5] for s in steps)     # predicted and measured, side by side
    assert "took" in history.head.text() and "predicted" in history.head.text()
    history.detail.setCurrentIndex(1)
    kept = [history.commands.item(i).text() for i in range(history.commands.count())]
    assert any("volume add-brick" in k for k in kept) and any("rebalance xdr status" in k for k in kept)
    history.commands.setCurrentRow(next(i for i, k in enumerate(kept) if "volume add-brick" in k))
    assert "Add Brick successful" in history.output.toPlainText()


def test_roll_back_after_a_cancel_migrates_the_added_set_off_and_commits_only_when_clean(qtbot, make):
    cluster, view = expand_held_in_rebalance(qtbot, make)
    qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.control.busy, timeout=30_000)
    first = view.change_id
    assert len(cluster.bricks) == 6 and view.rollback_button.isEnabled()
    cluster.release()
    assert view.rollback()                  # (the button asks first; the question is the dialog's)
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    assert cluster.bricks == XDR                                   # the added set left again
    calls = [argv for _, argv in cluster.calls if argv[0] == "gluster"]
    starts = [i for i, a in enumerate(calls) if "remove-brick" in a and a[-1] == "start"]
    commits = [i for i, a in enumerate(calls) if "remove-brick" in a and a[-1] == "commit"]
    assert starts and commits and starts[0] < commits[0]
    status_before_commit = calls[commits[0] - 1]
    assert "remove-brick" in status_before_commit and status_before_commit[-1] == "status"
    assert view.store.changes.get(first).status == "rolled-back"
    assert view.store.changes.get(view.change_id).options["rollback_of"] == first


def test_a_failed_brick_is_marked_offline_and_replaced_from_the_copies_that_stay(qtbot, make):
    topo, cluster = replica_3_xr()
    cluster.offline.add("node3:/srv/brick2/xr")               # its disk died
    view = make(cluster, topo)
    read(qtbot, view)
    assert "OFFLINE: node3:/srv/brick2/xr" in view.live_label.text()
    assert view.canvas.board.marks()["node3:/srv/brick2/xr"].tag == "OFFLINE"
    click(view.canvas, chip(view, "node3:/srv/brick2/xr"))
    key(qtbot, view, Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    click(view.canvas, card(view, "node4"))
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.kinds == ("replace",))
    assert view.canvas.board.marks()["node3:/srv/brick2/xr"].tag == "REPLACED, OFFLINE"
    assert "is offline" in view.plan_panel.tree.topLevelItem(
        [s.kind for s in view.plan.steps].index("replace-brick")).toolTip(1)
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    assert cluster.bricks == ["node1:/srv/brick2/xr", "node2:/srv/brick2/xr", "node4:/srv/brick2/xr"]


def test_a_change_interrupted_outside_the_window_is_offered_and_resumed_there(qtbot, make):
    """As `brickyard change … --yes` killed mid-rebalance leaves it: stored, interrupted."""
    import asyncio

    from brickyard.core import changeedits as ce
    from brickyard.remote.change import ChangeRunner
    from brickyard.remote.changeread import read_live_state

    from ..remote.fakes import executors

    cluster = ChangeCluster("xdr", XDR, replica=2)
    view = make(cluster)
    topo = imported_topology()
    for _ in range(2):
        ce.add_server(topo, "xdr", like="node3").apply(topo)
    ex = executors(cluster)
    cluster.hold()

    async def elsewhere():
        live = await read_live_state(ex("node1"), "xdr")
        runner = ChangeRunner.start(topo, "xdr", live, view.store, ex)
        runner.on_event = lambda ev: ev.kind == "progress" and runner.cancel()
        await runner.run()
        return runner.change_id

    change_id = asyncio.run(elsewhere())
    cluster.release()
    read(qtbot, view)
    assert view.banner.isVisible() and change_id[:12] in view.banner_text.text()
    qtbot.mouseClick(view.resume_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    assert view.change_id == change_id and view.store.changes.get(change_id).status == "complete"


def test_arbiters_added_to_a_replica_2_volume_run_and_heal(qtbot, make):
    cluster = ChangeCluster("xdr", XDR, replica=2)
    view = make(cluster)
    read(qtbot, view)
    click(view.canvas, card(view, "node4"))
    click(view.canvas, card(view, "node5"), Qt.KeyboardModifier.ControlModifier)
    key(qtbot, view, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.kinds == ("raise-redundancy",), timeout=15_000)
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    added = cluster.commands("add-brick")
    assert len(added) == 1 and added[0][6:10] == ("replica", "3", "arbiter", "1")
    assert (cluster.replica, cluster.arbiter) == (3, 1) and len(cluster.bricks) == 6
    assert view.session.topo.volume("xdr").layout.arbiter == 1
