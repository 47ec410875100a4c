"""Issue 22: on a large topology an edit is drawn first. The canvas gets the planner's draft at
once (sets, capacity, failure states), and the finished plan (tolerance, estimate, commands)
reaches the panels when the GUI is next idle, once for any number of edits before then. A small
topology is still planned whole in the edit itself."""

from __future__ import annotations

from brickyard.core import edits
from brickyard.core.topology import BrickRef
from brickyard.ui.frame import session as session_module
from brickyard.ui.frame.mainwindow import MainWindow

from .helpers import show_active, small_topology


def _window(qtbot, tmp_path) -> MainWindow:
    win = MainWindow(small_topology(), tmp_path / "settings.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    return win


def _signals(session) -> tuple[list, list]:
    checked, changed = [], []
    session.sig_plan_checked.connect(checked.append)
    session.sig_plan_changed.connect(changed.append)
    return checked, changed


def test_a_large_topologys_edit_is_drawn_at_once_and_the_panels_follow_once_when_idle(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(session_module, "DEFER_FROM_BRICKS", 1)    # the small topology counts as large
    win = _window(qtbot, tmp_path)
    session, verdict, board = win.session, win.verdict, win.canvas.board
    assert session.defers()
    checked, changed = _signals(session)
    raw_before = verdict.capacity_text.text()

    session.toggle_failures(["n1"])
    # the canvas already shows n1 failed and its chips degraded: drawn from the draft
    assert board.nodes["n1"].failed and board.brick_item(BrickRef("n1", "/b1")).look.failed
    assert len(checked) == 1 and checked[0].draft and checked[0].state.state == "DOWN"
    assert changed == [] and "Volume UP" in verdict.state.text()          # the panels wait for the idle turn
    session.push(edits.UpdateBrick(BrickRef("n1", "/b1"), {"size_bytes": 3 * 10**12}))
    assert len(checked) == 2 and changed == []
    assert "3.0 TB" in board.brick_item(BrickRef("n1", "/b1")).tail

    qtbot.waitUntil(lambda: bool(changed), timeout=5000)
    qtbot.wait(50)
    assert len(changed) == 1                     # two edits, one finished plan for the panels
    plan = changed[0]
    assert not plan.draft and plan.tolerance is not None and plan.estimate is not None and plan.commands
    assert plan is session.plan
    assert "Volume DOWN" in verdict.state.text() and verdict.capacity_text.text() != raw_before
    assert "volume create gv0" in win.commands.command_text()


def test_reading_the_plan_before_the_idle_turn_gives_the_whole_plan(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(session_module, "DEFER_FROM_BRICKS", 1)
    win = _window(qtbot, tmp_path)
    session = win.session
    checked, changed = _signals(session)
    session.push(edits.UpdateBrick(BrickRef("n2", "/b2"), {"size_bytes": 2 * 10**12}))
    assert checked[-1].draft and checked[-1].estimate is None
    plan = session.plan                          # e.g. Calibrate or a report asking now
    assert not plan.draft and plan.estimate is not None and plan.tolerance is not None and plan.commands
    assert changed == []
    session.settle()                             # what the idle timer does
    assert changed == [plan]
    session.settle()
    assert changed == [plan]                     # nothing waits any more


def test_a_small_topology_is_planned_whole_within_the_edit(qtbot, tmp_path):
    win = _window(qtbot, tmp_path)
    session = win.session
    assert not session.defers()
    checked, changed = _signals(session)
    session.toggle_failures(["n1"])
    assert len(checked) == len(changed) == 1 and checked[0] is changed[0] and not changed[0].draft
    assert "Volume DOWN" in win.verdict.state.text()
