"""The Campaign tab: started from layouts ticked in Compare layouts (workloads picked with their
generated forms, gluster's questions acknowledged), its grid fills in as the campaign's events
arrive, pause stops after the running step and Resume goes on without redoing a cell, Cancel
tears down what it provisioned, a bad campaign file is refused naming each field, and the
decision table opens at the end.

The campaign service is the real ``CampaignRunner`` on the app's loop thread, with its remote
work scripted (``tests/campaign/test_runner.FakeRunner``); the real cluster is in tests/e2e."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from brickyard.campaign.state import C_CANCELLED, C_COMPLETE, C_PAUSED, DONE, FAILED, PENDING
from brickyard.core.topology import BrickRef, Layout, Mount, Volume, VolumeType
from brickyard.ui.frame.mainwindow import MainWindow

from ..campaign.test_runner import FakeRunner
from ..campaign.test_spec import lab_topology
from .helpers import show_active

LEFT = Qt.MouseButton.LeftButton


class SlowRunner(FakeRunner):
    """Each step takes a moment (so the grid is seen running); ``gate`` holds a chosen step."""

    gate: dict[str, threading.Event] = {}
    ran: list[str] = []

    async def _act(self, step):
        SlowRunner.ran.append(step.key)
        await asyncio.sleep(0.05)
        ev = SlowRunner.gate.get(step.key)
        if ev is not None:
            while not ev.is_set() and not (self._progress and self._progress.is_cancelled()):
                await asyncio.sleep(0.02)
            if self._progress and self._progress.is_cancelled():
                return False, "cancelled"
        return True, ""


def topology():
    topo = lab_topology()
    refs = [BrickRef(f"node{i}", "/srv/brick1/brick") for i in (1, 2, 3, 4)]
    topo.volumes.append(Volume("gv0", Layout(VolumeType.DISTRIBUTE), refs, mounts=[Mount("client1", "/mnt/gv0")]))
    return topo


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'h.sqlite3'}")
    monkeypatch.setenv("BRICKYARD_LOCK_DIR", str(tmp_path / "locks"))
    SlowRunner.gate, SlowRunner.ran = {}, []
    win = MainWindow(topology(), tmp_path / "settings.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    yield win
    win.remote.close()


def campaign_from_compare(qtbot, win, picks=("distribute", "replica 2", "disperse 4 redundancy 1")):
    win.docks["compare"].raise_()
    panel = win.compare
    qtbot.waitUntil(panel.isVisible)
    panel.finish()
    for row in range(panel.table.rowCount()):
        item = panel.table.item(row, 0)
        if item.text() in picks:
            item.setCheckState(Qt.CheckState.Checked)
    assert [l for l in panel.ticked_layouts()], "the layouts are in the table"
    qtbot.mouseClick(panel.campaign, LEFT)
    view = win.campaign_view
    assert win.tabs.currentWidget() is view
    view.runner_class = SlowRunner
    return view


def test_ticked_layouts_become_a_campaign_whose_grid_fills_in_and_ends_with_the_decision_table(qtbot, window):
    view = campaign_from_compare(qtbot, window)
    setup = view.setup
    names = [setup.layouts.item(i).text() for i in range(setup.layouts.count())]
    assert names == ["gv0-dt4: distribute (4 bricks)", "gv0-dt2rp2: replica 2 (4 bricks)",
                     "gv0-dp4rd1: disperse 4 redundancy 1 (4 bricks)"]
    assert not view.start_button.isEnabled()                    # no workload yet
    assert setup.select_workload("dd")
    setup.form.set_texts({"block_sizes": "1M,4M", "concurrency": "1,8", "size": "8M"})
    qtbot.mouseClick(setup.add_workload_button, LEFT)
    assert setup.workloads.item(0).text().startswith("dd: block_sizes=1M,4M concurrency=1,8 size=8M")
    setup.baselines.setText("client1:/var/tmp")
    # replica 2 and disperse make gluster ask: acknowledged before Start
    assert view.questions.isVisible() and "split-brain" in view.question_text.text().lower()
    assert not view.start_button.isEnabled()
    view.ack_box.setChecked(True)
    grid = view.grid
    assert grid.rowCount() == 4 and [grid.horizontalHeaderItem(c).text() for c in range(grid.columnCount())] == [
        "pre-flight", "provision", "dd", "teardown"]
    with qtbot.waitSignal(view.sig_finished, timeout=30_000) as done:
        qtbot.mouseClick(view.start_button, LEFT)
        qtbot.waitUntil(lambda: "running" in [grid.status_of(k) for k in grid.cells], timeout=10_000)
        assert view.running and view.pause_button.isEnabled() and not view.start_button.isEnabled()
    state = done.args[0]
    assert state.status == C_COMPLETE
    assert {grid.status_of(k) for k in grid.cells} == {DONE}
    assert view.bar.value() == 1000 and "complete" in view.state_label.text()
    assert view.decision.table is not None and len(view.decision.table.rows) == 4     # 3 layouts + the baseline
    assert view.decision.table.rows[0].label.startswith("distribute")
    assert SlowRunner.ran.count("cell:gv0-dt4:dd") == 1


def test_pause_stops_after_the_step_and_resume_finishes_without_redoing_a_cell(qtbot, window):
    view = campaign_from_compare(qtbot, window, picks=("distribute", "disperse 4 redundancy 1"))
    view.setup.select_workload("dd")
    view.setup.add_workload()
    view.ack_box.setChecked(True)
    hold = SlowRunner.gate["cell:gv0-dt4:dd"] = threading.Event()
    with qtbot.waitSignal(view.sig_finished, timeout=30_000) as paused:
        assert view.start()
        qtbot.waitUntil(lambda: view.grid.status_of("cell:gv0-dt4:dd") == "running", timeout=10_000)
        qtbot.mouseClick(view.pause_button, LEFT)
        hold.set()
    assert paused.args[0].status == C_PAUSED
    assert view.grid.status_of("cell:gv0-dt4:dd") == DONE and view.grid.status_of("teardown:gv0-dt4") == PENDING
    assert view.resume_box.currentData() == paused.args[0].campaign_id and view.resume_button.isEnabled()
    before = list(SlowRunner.ran)
    with qtbot.waitSignal(view.sig_finished, timeout=30_000) as finished:
        qtbot.mouseClick(view.resume_button, LEFT)
    assert finished.args[0].status == C_COMPLETE
    after = SlowRunner.ran[len(before):]
    assert after[0] == "preflight:gv0-dp4rd1", after          # the paused layout's teardown, then the next
    assert "cell:gv0-dt4:dd" not in after and "provision:gv0-dt4" not in after
    assert after.count("cell:gv0-dp4rd1:dd") == 1


def test_cancel_stops_the_running_cell_and_tears_down_what_it_provisioned(qtbot, window):
    view = campaign_from_compare(qtbot, window, picks=("distribute", "replica 2"))
    view.setup.select_workload("dd")
    view.setup.add_workload()
    view.ack_box.setChecked(True)
    SlowRunner.gate["cell:gv0-dt4:dd"] = threading.Event()          # never opened: Cancel must stop it
    with qtbot.waitSignal(view.sig_finished, timeout=30_000) as done:
        assert view.start()
        qtbot.waitUntil(lambda: view.grid.status_of("cell:gv0-dt4:dd") == "running", timeout=10_000)
        view.cancel()
    state = done.args[0]
    assert state.status == C_CANCELLED and state.provisioned == []
    assert view.runner.cluster == set(), "the provisioned layout was torn down"
    assert view.grid.status_of("provision:gv0-dt2rp2") == PENDING and "cell:gv0-dt2rp2:dd" not in SlowRunner.ran


def test_a_bad_campaign_file_is_refused_naming_each_field(qtbot, window, tmp_path):
    view = window.open_campaign()
    bad = tmp_path / "bad.campaign.json"
    bad.write_text(json.dumps({"format_version": 1, "name": "x", "topology": "nowhere.json",
                               "layouts": [{"name": "a", "type": "distribute"}], "workloads": []}))
    assert not view.open_file(str(bad))
    assert "topology: nowhere.json" in view.message.text() or "nowhere.json" in view.message.text()
    from ..campaign.test_spec import write

    good = write(tmp_path, {"format_version": 1, "name": "file", "topology": "lab.brickyard.json",
                            "layouts": [{"name": "dt8", "type": "distribute"}, {"name": "wrong", "type": "mirror"}],
                            "workloads": [{"workload": "dd"}]})
    assert not view.open_file(str(good))
    assert "layouts[1].type" in view.message.text()
    ok = write(tmp_path, {"format_version": 1, "name": "file", "topology": "lab.brickyard.json",
                          "layouts": [{"name": "dt8", "type": "distribute"}], "workloads": [{"workload": "dd"}]},
               name="ok.campaign.json")
    assert view.open_file(str(ok)) and view.start_button.isEnabled()
    assert view.grid.rowCount() == 1 and "<b>file</b>" in view.file_label.text()


def test_a_finished_cell_shows_its_headline_at_the_largest_block_and_concurrency():
    from brickyard.ui.campaign.grid import cell_headline

    from ..core.test_decision import MIB, step

    steps = [step(0, "write", 1, MIB, 0, 1e8), step(1, "write", 8, MIB, 0, 3e8), step(2, "write", 8, 4 * MIB, 0, 4.2e8),
             step(3, "write", 8, 4 * MIB, 1, 4.0e8), step(4, "read", 8, 4 * MIB, 0, 9e8)]
    assert cell_headline(steps) == "write 4M ×8: 410.0 MB/s"
    assert cell_headline([]) == ""


def test_quitting_during_a_campaign_names_it_and_says_it_resumes(qtbot, window):
    view = campaign_from_compare(qtbot, window, picks=("distribute",))
    view.setup.select_workload("dd")
    view.setup.add_workload()
    hold = SlowRunner.gate["cell:gv0-dt4:dd"] = threading.Event()
    with qtbot.waitSignal(view.sig_finished, timeout=30_000):
        assert view.start()
        qtbot.waitUntil(lambda: view.grid.status_of("cell:gv0-dt4:dd") == "running", timeout=10_000)
        assert "the campaign gv0-layouts (Resume in the Campaign tab" in window.busy_question()
        hold.set()


def _clipped(view) -> list[str]:
    """Buttons of the Campaign tab not wholly in sight (cut by the window or by their scroll area)."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QPushButton, QScrollArea

    out = []
    win = view.window()
    for button in view.findChildren(QPushButton):
        if not button.isVisibleTo(view):
            continue
        rect = QRect(button.mapTo(win, button.rect().topLeft()), button.size())
        area = button.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        port = area.viewport() if area is not None else win
        shown = QRect(port.mapTo(win, port.rect().topLeft()), port.size()) if port is not win else win.rect()
        if not win.rect().contains(rect) or (area is not None and rect.top() < shown.bottom()
                                              and not shown.contains(rect)):
            out.append(button.text())
    return out


def test_the_menu_opens_a_campaign_over_the_planned_volumes_bricks_with_layouts_to_add(qtbot, window):
    """The issue 21 walk: Cluster > Layout campaign... opened an empty tab whose list of layouts
    to add was empty (it was filled only by ticking Compare layouts)."""
    window.resize(1600, 900)
    action = next(a for a in window.menuBar().findChildren(QAction) if a.text() == "Layout &campaign…")
    action.trigger()
    view = window.campaign_view
    setup = view.setup
    assert window.tabs.currentWidget() is view and setup.layouts.count() == 0
    choices = [setup.layout_box.itemText(i) for i in range(setup.layout_box.count())]
    assert {"distribute", "replica 2", "replica 4"} <= set(choices) and setup.add_layout_button.isEnabled()
    assert view.state_label.text() == "Campaign gv0-layouts: no layout yet — tick or add the layouts to compare."
    for pick in ("distribute", "replica 2"):
        setup.layout_box.setCurrentIndex([setup.layout_box.itemText(i) for i in range(setup.layout_box.count())]
                                         .index(pick))
        qtbot.mouseClick(setup.add_layout_button, LEFT)
    assert [setup.layouts.item(i).text().split(":")[0] for i in range(2)] == ["gv0-dt4", "gv0-dt2rp2"]
    assert view.state_label.text().startswith("Campaign gv0-layouts: 2 layouts — add the workloads")
    action.trigger()                                   # opened again: what was set up stays
    assert setup.layouts.count() == 2


def test_layouts_are_added_and_removed_in_the_campaign_tab_and_the_header_follows(qtbot, window):
    """issue 21 item 6: layouts only came from ticking Compare layouts; 'Add w…' and 'Cancel and
    tea…' were clipped at 1600×900; the header said 'No campaign yet' with layouts in."""
    window.resize(1600, 900)
    view = campaign_from_compare(qtbot, window, picks=("distribute", "replica 2"))
    setup = view.setup
    qtbot.wait(50)
    assert view.state_label.text().startswith("Campaign gv0-layouts: 2 layouts — add the workloads")
    assert _clipped(view) == [] and not view.findChild(type(view.grid)).isHidden()
    choices = [setup.layout_box.itemText(i) for i in range(setup.layout_box.count())]
    assert "distribute" not in choices and "replica 4" in choices      # what it holds is not offered again
    setup.layout_box.setCurrentIndex(choices.index("replica 4"))
    qtbot.mouseClick(setup.add_layout_button, LEFT)
    assert setup.layouts.count() == 3 and setup.layouts.item(2).text() == "gv0-rp4: replica 4 (4 bricks)"
    rect = setup.layouts.visualItemRect(setup.layouts.item(0))
    qtbot.mouseClick(setup.layouts.viewport(), LEFT, pos=rect.center())
    qtbot.mouseClick(setup.remove_layout_button, LEFT)
    assert [setup.layouts.item(i).text().split(":")[0] for i in range(setup.layouts.count())] == ["gv0-dt2rp2", "gv0-rp4"]
    assert "distribute" in [setup.layout_box.itemText(i) for i in range(setup.layout_box.count())]
    assert setup.select_workload("dd")
    qtbot.mouseClick(setup.add_workload_button, LEFT)
    assert view.grid.rowCount() == 2
    assert view.state_label.text().startswith("Campaign gv0-layouts: 2 layouts × 1 workload, 8 steps — ready to start")
    assert "acknowledged" in view.state_label.text()           # replica 2: gluster asks first
    view.ack_box.setChecked(True)
    assert view.state_label.text().endswith("ready to start.")
    assert _clipped(view) == []
    window.resize(1280, 720)
    qtbot.wait(50)
    assert _clipped(view) == []
    assert view.start_button.isVisible() and view.cancel_button.text() == "Cancel and tear down"


def test_layouts_to_add_are_placed_for_themselves_and_none_needs_force(qtbot, tmp_path, monkeypatch):
    """The issue 21 walk: over gv0 (replica 2 x 4, 8 bricks in Auto-place's order for replica 2)
    the tab offered 'disperse 4 redundancy 1', kept gv0's brick order for it (two bricks of each
    set on one server) and, once added, the campaign said 'layouts[2].force: gluster refuses this
    layout without force'; replica 8 and disperse 8 on 4 servers were offered too."""
    from dataclasses import replace

    from brickyard.core.plan import plan_volume

    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'h.sqlite3'}")
    monkeypatch.setenv("BRICKYARD_LOCK_DIR", str(tmp_path / "locks"))
    topo = lab_topology()
    order = [(1, 1), (3, 1), (1, 2), (3, 2), (2, 1), (4, 1), (2, 2), (4, 2)]   # placed for replica 2
    refs = [BrickRef(f"node{n}", f"/srv/brick{b}/brick") for n, b in order]
    topo.volumes.append(Volume("gv0", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2), refs,
                               mounts=[Mount("client1", "/mnt/gv0")]))
    window = MainWindow(topo, tmp_path / "settings.ini", tmp_path / "autosave")
    try:
        show_active(qtbot, window)
        view = window.open_campaign()
        setup = view.setup
        choices = [setup.layout_box.itemText(i) for i in range(setup.layout_box.count())]
        assert choices == ["distribute", "replica 2", "replica 4", "disperse 4 redundancy 1"]
        setup.layout_box.setCurrentIndex(choices.index("disperse 4 redundancy 1"))
        qtbot.mouseClick(setup.add_layout_button, LEFT)
        (added,) = setup.chosen_layouts()
        alone = replace(topo, volumes=[added])              # a campaign's layouts take turns on the bricks
        assert sorted(added.bricks) == sorted(refs) and plan_volume(alone, added).valid
        for start in (0, 4):                                # one brick per server in each set
            assert len({b.node for b in added.bricks[start:start + 4]}) == 4
        assert setup.select_workload("dd")
        qtbot.mouseClick(setup.add_workload_button, LEFT)
        assert setup.check() == ""
        assert view.state_label.text().startswith("Campaign gv0-layouts: 1 layout × 1 workload, 4 steps — ready")
    finally:
        window.remote.close()


def test_a_set_up_the_campaign_refuses_does_not_say_ready_nor_start(qtbot, window):
    """The issue 21 walk: under a red 'layouts[2].force: gluster refuses this layout without
    force' the header said '3 layouts × 1 workload, 0 steps — ready to start.' and Start was
    enabled."""
    view = campaign_from_compare(qtbot, window, picks=("distribute",))
    setup = view.setup
    assert setup.select_workload("dd")
    qtbot.mouseClick(setup.add_workload_button, LEFT)
    assert view.state_label.text().endswith("ready to start.") and view.start_button.isEnabled()
    qtbot.keyClicks(setup.baselines, "client1:relative/path")
    assert setup.check()
    assert view.state_label.text() == ("Campaign gv0-layouts: 1 layout × 1 workload, cannot start — see what is "
                                       "wrong under the form.")
    assert not view.start_button.isEnabled()
    setup.baselines.clear()
    assert view.state_label.text().endswith("ready to start.") and view.start_button.isEnabled()


class FailingRunner(SlowRunner):
    """Cells fail the way the sandbox made them fail (a long first line, as dd says); the one
    that passes stores a run, so the decision table has a measurement and comes to the front."""

    async def _act(self, step):
        await asyncio.sleep(0.01)
        if step.key.startswith("cell:") and "dt4" not in step.key:
            return False, (f"{step.key}: dd on client1 exited 1: dd: error writing '/mnt/gv0/bench/f0': "
                           "Transport endpoint is not connected")
        return True, ""

    async def _cell(self, step):
        ok, msg = await super()._cell(step)
        if ok:
            import dataclasses
            import random

            from brickyard.store.synthetic import synthetic_run

            run = synthetic_run(random.Random(3), layout="distribute")
            self.store.add_run(dataclasses.replace(run, run_id=self.state.step(step.key).run_id))
        return ok, msg


@pytest.mark.parametrize("size", [(1600, 900), (1280, 720)])
def test_after_cells_failed_every_row_of_the_grid_is_in_sight(qtbot, window, size):
    window.resize(*size)
    view = campaign_from_compare(qtbot, window)
    view.runner_class = FailingRunner
    assert view.setup.select_workload("dd")
    view.setup.form.set_texts({"block_sizes": "1M,4M", "concurrency": "1,8", "size": "8M"})
    qtbot.mouseClick(view.setup.add_workload_button, LEFT)
    view.setup.baselines.setText("client1:/var/tmp")
    view.ack_box.setChecked(True)
    with qtbot.waitSignal(view.sig_finished, timeout=30_000):
        qtbot.mouseClick(view.start_button, LEFT)
    grid = view.grid
    assert FAILED in {grid.status_of(k) for k in grid.cells}
    qtbot.wait(50)
    port = grid.viewport().height()
    for r in range(grid.rowCount()):
        top, height = grid.rowViewportPosition(r), grid.rowHeight(r)
        assert top >= 0 and top + height <= port, (
            f"row {r} ({grid.verticalHeaderItem(r).text()!r}) spans {top}..{top + height}, viewport {port} "
            f"at {size}; tab in front: {view.tabs.tabText(view.tabs.currentIndex())}")


def test_a_campaign_over_the_bricks_of_a_volume_still_provisioned_is_refused_at_start(qtbot, window):
    """Started while gv0 (provisioned from the Provision tab) still held its bricks, the campaign
    failed pre-flight on every layout ('already a brick of volume gv0'); Start now says to tear
    gv0 down first, and starts once the teardown is reported."""
    from brickyard.remote.steps import RunReport

    provision = window.open_provision()
    provision.show_plan()
    assert provision.plan is not None and provision.plan.volume.name == "gv0"
    provision.sig_finished.emit(RunReport("provision", "gv0"))        # what a provision run that went well sends
    window.tabs.setCurrentWidget(window.canvas)
    view = campaign_from_compare(qtbot, window, picks=("distribute",))
    assert view.setup.select_workload("dd")
    view.setup.form.set_texts({"block_sizes": "1M", "concurrency": "1", "size": "8M"})
    qtbot.mouseClick(view.setup.add_workload_button, LEFT)
    qtbot.mouseClick(view.start_button, LEFT)
    assert not view.running and SlowRunner.ran == []
    said = view.message.text()
    assert "Volume gv0 still holds the bricks this campaign uses (node1:/srv/brick1/brick" in said
    assert "tear gv0 down first" in said and "already a brick of volume gv0" in said
    assert "cannot start" in view.state_label.text() and "ready" not in view.state_label.text()
    provision.sig_finished.emit(RunReport("teardown", "gv0"))
    with qtbot.waitSignal(view.sig_finished, timeout=30_000):
        qtbot.mouseClick(view.start_button, LEFT)
    assert SlowRunner.ran and SlowRunner.ran[0].startswith("preflight:")


def test_a_done_cell_puts_its_figure_first_where_a_narrow_column_keeps_it(qtbot, window):
    """At 1280×720 a column is ~130 px: 'write 1M ×4: 398.…' lost the figure on the walk."""
    window.resize(1280, 720)
    view = campaign_from_compare(qtbot, window)
    assert view.setup.select_workload("dd")
    qtbot.mouseClick(view.setup.add_workload_button, LEFT)
    grid = view.grid
    key = next(k for k in grid.cells if k.startswith("cell:"))
    grid.show_step(key, DONE, headline="write 1M ×4: 398.0 MB/s")
    qtbot.wait(20)
    first, second = grid.cells[key].text().split("\n")
    assert (first, second) == ("done: 398.0 MB/s", "write 1M ×4")
    column = grid.column(grid.cells[key])
    assert grid.fontMetrics().horizontalAdvance(first) < grid.columnWidth(column)
