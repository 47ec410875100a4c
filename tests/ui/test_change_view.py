"""The Change tab's drawing and plan, driven by keys and mouse: the live volume recorded on the
sandbox (xdr, 2 x 2 on node1-3) is drawn with the drawing; each edit (a server added, a set
retired, a brick replaced, arbiters added) plans as that change, marks the bricks it touches,
and undoes; a change Brickyard will not run says why with the route that works, and Apply
waits for the plan to be acknowledged. Running a change: test_change_run.py."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from brickyard.core import changemodel as cm
from brickyard.core.topology import Brick, BrickRef, Node, Topology
from brickyard.ui.change.view import ChangeView
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.session import Session

from ..core._changefix import FS, REP2, live, with_volume
from .helpers import click, point_of, show_active

XDR = ["node1:/srv/brick2/xdr", "node2:/srv/brick2/xdr", "node3:/srv/brick2/xdr", "node1:/srv/brick2/xdr2"]


def imported_topology() -> Topology:
    """What an import of the lab draws for xdr: node1-3 with their bricks, node4 (in the pool,
    a spare disk /srv/brick1/spare) and node5 (not in the pool yet)."""
    topo = Topology("lab")
    for name, paths in (("node1", ["/srv/brick2/xdr", "/srv/brick2/xdr2"]), ("node2", ["/srv/brick2/xdr"]),
                        ("node3", ["/srv/brick2/xdr"]), ("node4", ["/srv/brick1/spare"]), ("node5", [])):
        topo.nodes.append(Node(name, bricks=[Brick(p, FS, filesystem=p.rsplit("/", 1)[0]) for p in paths]))
    return with_volume(topo, "xdr", replace(REP2), XDR)      # its own layout: an edit must not reach the next test


@pytest.fixture
def view(qtbot, monkeypatch):
    monkeypatch.setattr("brickyard.ui.change.control.ChangeControl.rates", lambda self: None)
    session = Session(imported_topology())
    made = ChangeView(session, RemoteBridge(make_services=lambda options: None), lambda: None)
    made.resize(1600, 900)
    show_active(qtbot, made)
    made.set_live(live("xdr"), "xdr")
    made.canvas.setFocus()
    made.canvas.set_zoom(0.8)
    return made


def card(view, name: str):
    """Where a click selects the server itself: its card's header."""
    return point_of(view.canvas, view.canvas.board.nodes[name], QPointF(40, 10))


def chip(view, ref: str):
    return view.canvas.board.brick_item(BrickRef.parse(ref))


def press(qtbot, view, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    view.canvas.setFocus()
    qtbot.keyClick(view.canvas, key, modifier)


def test_the_live_volume_as_drawn_has_nothing_to_change_and_apply_stays_off(view):
    plan = view.plan
    assert plan is not None and plan.nothing_to_do
    assert "nothing to change" in view.plan_panel.summary.text()
    assert not view.apply_button.isEnabled() and not view.ack_box.isEnabled()
    assert "read 2026-11-27 11:00:00 UTC from node1" in view.live_label.text()
    assert "every brick online" in view.live_label.text()


def test_two_servers_added_with_shift_n_plan_an_expand_marked_on_the_canvas(qtbot, view):
    click(view.canvas, card(view, "node3"))
    press(qtbot, view, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: view.plan is not None and not view.plan.ok)
    assert [r.code for r in view.plan.refusals] == ["target-layout"]   # one new brick cannot be a set alone
    assert "is not divisible" in view.plan_panel.summary.text()
    click(view.canvas, card(view, "node3"))
    press(qtbot, view, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.ok and bool(view.plan.steps))
    plan = view.plan
    assert plan.kinds == ("expand", "rebalance") and plan.after.layout == "3 x 2 = 6"
    new = [str(b) for b in plan.role(cm.NEW)]
    marks = view.canvas.board.marks()
    assert all(marks[b].tag.startswith("NEW") for b in new)
    kept = [m for ref, m in marks.items() if ref in XDR]
    assert kept and all(m.tag.startswith("−") for m in kept)       # each old brick gives up a share
    assert set(view.canvas.board.node_tags().values()) == {"NEW SERVER"}
    summary = view.plan_panel.summary.text()
    assert "2 x 2 = 4 (distributed-replicate)" in summary and "3 x 2 = 6" in summary
    assert "usable capacity" in summary and "server failures survived" in summary and "an estimate" in summary
    titles = [view.plan_panel.tree.topLevelItem(i).text(1) for i in range(len(plan.steps))]
    assert titles[0].startswith("probe ") and titles[-1] == "read xdr back"
    assert "(an estimate, uncalibrated)" in summary and "(an estimate: uncalibrated: no change measured" in summary        # no history: the uncalibrated default
    assert view.plan_panel.tree.headerItem().text(3) == "Estimate"
    assert all(view.plan_panel.tree.topLevelItem(i).text(3).startswith("~") for i in range(len(plan.steps)))


def test_a_set_on_one_server_is_refused_in_words_with_the_route_and_apply_stays_off(qtbot, view):
    view.session.topo.require_node("node4").bricks.append(Brick("/srv/brick2/more", FS))
    view.session.push(__import__("brickyard.core.edits", fromlist=["SetVolumeBricks"]).SetVolumeBricks(
        "xdr", [*view.session.topo.volume("xdr").bricks, BrickRef("node4", "/srv/brick1/spare"),
                BrickRef("node4", "/srv/brick2/more")]))
    qtbot.waitUntil(lambda: view.plan is not None and not view.plan.ok)
    text = view.plan_panel.summary.text()
    assert "Brickyard will not run this change" in text and "What works instead" in text
    assert "node4" in text and "distinct servers" in text
    assert view.plan_panel.tree.topLevelItemCount() == 0
    assert not view.ack_box.isEnabled() and not view.apply_button.isEnabled()


def test_r_on_a_clicked_brick_retires_its_set_struck_through_and_ctrl_z_takes_it_back(qtbot, view):
    click(view.canvas, point_of(view.canvas, chip(view, "node3:/srv/brick2/xdr")))
    press(qtbot, view, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.kinds == ("shrink",))
    marks = view.canvas.board.marks()
    assert {ref for ref, m in marks.items() if m.role == cm.RETIRING} == {XDR[2], XDR[3]}
    assert all(marks[r].tag.startswith("RETIRES") for r in (XDR[2], XDR[3]))
    assert view.canvas.board.node_tags() == {"node3": "LEAVES THE VOLUME"}
    steps = [s.kind for s in view.plan.steps]
    assert steps.index("remove-brick-start") < steps.index("remove-brick-wait") < steps.index("remove-brick-commit")
    assert steps[-1] == "read-back"
    press(qtbot, view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.nothing_to_do)
    assert view.canvas.board.marks() == {}


def test_shift_r_then_a_click_on_a_server_replaces_the_brick_with_an_arrow_to_it(qtbot, view):
    click(view.canvas, point_of(view.canvas, chip(view, "node3:/srv/brick2/xdr")))
    press(qtbot, view, Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    assert view.canvas.replacing == BrickRef.parse("node3:/srv/brick2/xdr")
    click(view.canvas, card(view, "node5"))
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.kinds == ("replace",))
    marks = view.canvas.board.marks()
    assert marks["node3:/srv/brick2/xdr"].tag == "REPLACED"
    assert marks["node5:/srv/brick2/xdr"].tag == "REPLACES node3:/srv/brick2/xdr"
    assert len(view.canvas.board.arrows) == 1
    kinds = [s.kind for s in view.plan.steps]
    assert kinds.index("replace-brick") < kinds.index("heal-wait")
    assert "peer-probe" in kinds                                   # node5 is not in the pool yet


def test_escape_stops_picking_a_replacement_and_nothing_changes(qtbot, view):
    click(view.canvas, point_of(view.canvas, chip(view, "node2:/srv/brick2/xdr")))
    press(qtbot, view, Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    press(qtbot, view, Qt.Key.Key_Escape)
    assert view.canvas.replacing is None and view.plan.nothing_to_do
    assert view.session.stack.count() == 0


def test_a_click_on_a_spare_brick_replaces_with_it(qtbot, view):
    click(view.canvas, point_of(view.canvas, chip(view, "node1:/srv/brick2/xdr2")))
    press(qtbot, view, Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    click(view.canvas, point_of(view.canvas, chip(view, "node4:/srv/brick1/spare")))
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.kinds == ("replace",))
    assert [str(b) for b in view.plan.role(cm.REPLACEMENT)] == ["node4:/srv/brick1/spare"]


def test_a_on_selected_servers_adds_arbiters_to_every_set(qtbot, view):
    click(view.canvas, card(view, "node4"))
    click(view.canvas, card(view, "node5"), Qt.KeyboardModifier.ControlModifier)
    press(qtbot, view, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.kinds == ("raise-redundancy",))
    assert view.plan.after.layout == "2 x (2 + 1) = 6"
    arbiters = [b for b in view.plan.bricks if b.role == cm.NEW]
    assert {b.ref.node for b in arbiters} == {"node4", "node5"} and all(b.arbiter for b in arbiters)
    assert "heal-wait" in [s.kind for s in view.plan.steps]


def test_apply_is_enabled_only_once_the_plan_is_acknowledged(qtbot, view):
    click(view.canvas, point_of(view.canvas, chip(view, "node3:/srv/brick2/xdr")))
    press(qtbot, view, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.ok and bool(view.plan.steps))
    assert view.ack_box.isEnabled() and not view.apply_button.isEnabled()
    qtbot.mouseClick(view.ack_box, Qt.MouseButton.LeftButton, pos=view.ack_box.rect().bottomLeft() + view.ack_box.rect().topLeft() / 2)
    qtbot.waitUntil(view.apply_button.isEnabled)
    press(qtbot, view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)   # the plan changes: asked again
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.nothing_to_do)
    assert not view.ack_box.isChecked() and not view.apply_button.isEnabled()


def test_copy_as_text_holds_every_command_as_the_dry_run_prints_it(qtbot, view):
    click(view.canvas, point_of(view.canvas, chip(view, "node3:/srv/brick2/xdr")))
    press(qtbot, view, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.ok and bool(view.plan.steps))
    qtbot.mouseClick(view.copy_button, Qt.MouseButton.LeftButton)
    text = QApplication.clipboard().text()
    assert ("ssh node1 gluster --mode=script --xml volume remove-brick xdr node3:/srv/brick2/xdr "
            "node1:/srv/brick2/xdr2 start") in text
    assert "why:" in text and "usable capacity" in text


def test_retiring_every_set_is_refused_in_the_status_line(qtbot, view):
    said = []
    view.sig_status.connect(said.append)
    click(view.canvas, card(view, "node1"))
    press(qtbot, view, Qt.Key.Key_R)
    assert any("every set of xdr" in s for s in said)
    assert view.session.stack.count() == 0


@pytest.mark.parametrize("size", [(1600, 900), (1280, 720)])
def test_the_tab_fits_both_window_sizes(qtbot, view, size):
    view.resize(*size)
    click(view.canvas, point_of(view.canvas, chip(view, "node3:/srv/brick2/xdr")))
    press(qtbot, view, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.ok and bool(view.plan.steps))
    QApplication.processEvents()
    for widget in (view.apply_button, view.cancel_button, view.ack_box, view.read_button, view.history_button):
        geo = widget.geometry()
        top_left = widget.mapTo(view, geo.topLeft() - geo.topLeft())
        assert widget.isVisible() and top_left.x() >= 0 and top_left.x() + widget.width() <= view.width() + 1, widget
        assert top_left.y() + widget.height() <= view.height() + 1
    assert view.plan_panel.tree.height() >= 120 and view.canvas.width() >= 400
    assert view.plan_panel.summary_scroll.height() >= 100



def test_shift_n_on_a_server_outside_the_volume_draws_the_volumes_bricks_on_it(qtbot, view):
    click(view.canvas, card(view, "node4"))
    press(qtbot, view, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    click(view.canvas, card(view, "node5"))
    press(qtbot, view, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.ok and bool(view.plan.steps))
    assert [n.name for n in view.session.topo.nodes] == ["node1", "node2", "node3", "node4", "node5"]
    assert {str(b) for b in view.plan.role(cm.NEW)} == {"node4:/srv/brick2/xdr", "node5:/srv/brick2/xdr"}
    assert view.canvas.board.node_tags() == {"node4": "JOINS THE VOLUME", "node5": "NEW SERVER"}


def test_many_warnings_of_one_kind_read_once_with_their_count():
    from brickyard.core.planmodel import Finding
    from brickyard.ui.change.plan_panel import warning_lines

    same = [Finding("warning", "same-server-replica", f"Multiple bricks on one server: set {i}") for i in range(1600)]
    lines = warning_lines([*same, Finding("warning", "other", "something else")])
    assert lines == ["gluster would ask: Multiple bricks on one server: set 0 (and 1599 more like it)",
                     "gluster would ask: something else"]


class HeldPlanner:
    """``plan_change`` as the tab's planner thread calls it, held until released, recording the
    thread it ran on and the drawing it was asked for."""

    def __init__(self, monkeypatch):
        import threading

        from brickyard.core import change

        self.real = change.plan_change
        self.threads: list[str] = []
        self.asked: list[list[str]] = []
        self.release = threading.Event()
        monkeypatch.setattr(change, "plan_change", self)

    def __call__(self, topo, volume, live, **options):
        import threading

        self.threads.append(threading.current_thread().name)
        self.asked.append([str(b) for b in topo.require_volume(volume).bricks])
        self.release.wait(20)
        return self.real(topo, volume, live, **options)


def test_an_edit_is_planned_off_the_gui_thread_and_apply_waits_for_its_plan(qtbot, view, monkeypatch):
    """Planning a 4,800-brick volume on the GUI thread froze the canvas for a second or two at
    every edit (benchmarks/change_view.py); the plan is made on the planner's thread now."""
    import threading

    held = HeldPlanner(monkeypatch)
    click(view.canvas, point_of(view.canvas, chip(view, "node3:/srv/brick2/xdr")))
    press(qtbot, view, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: held.threads != [])
    assert held.threads[0] != threading.current_thread().name      # not the GUI thread
    assert view.plan.nothing_to_do and view.planner.pending         # the plan of before, until the new one comes
    assert "Planning" in view.planning_label.text() and not view.apply_button.isEnabled()
    click(view.canvas, card(view, "node5"))                          # the canvas takes clicks meanwhile
    assert view.canvas.board.selected_names()[1] == ["node5"]
    held.release.set()
    qtbot.waitUntil(lambda: view.plan.kinds == ("shrink",) and not view.planner.pending)
    assert view.planning_label.text() == ""
    assert {r for r, m in view.canvas.board.marks().items() if m.role == cm.RETIRING} == {XDR[2], XDR[3]}


def test_the_plan_of_a_drawing_edited_since_is_never_shown(qtbot, view, monkeypatch):
    held = HeldPlanner(monkeypatch)
    shown = []
    monkeypatch.setattr(view, "_show_plan", lambda plan, *a, **k: shown.append(plan.plan.kinds) or
                        type(view)._show_plan(view, plan, *a, **k))
    click(view.canvas, point_of(view.canvas, chip(view, "node3:/srv/brick2/xdr")))
    press(qtbot, view, Qt.Key.Key_R)                      # retire: planned while held
    qtbot.waitUntil(lambda: len(held.asked) == 1)
    press(qtbot, view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)     # undone before that plan came
    qtbot.wait(3 * 60)
    assert len(held.asked) == 1 and view.planner.pending  # one plan at a time; the newest waits its turn
    held.release.set()
    qtbot.waitUntil(lambda: not view.planner.pending and len(held.asked) == 2)
    qtbot.waitUntil(lambda: shown != [])
    assert held.asked[1] == XDR and shown == [()]           # only the plan of the drawing as it is
    assert view.plan.nothing_to_do and view.canvas.board.marks() == {}


def test_a_live_read_keeps_what_it_read_out_of_the_collectors_full_passes(view):
    """A full collection walked the 250,000 objects a 4,800-brick read leaves, every few
    edits, stopping every thread for 150-250 ms; what a read leaves is frozen after it."""
    import gc

    gc.unfreeze()
    view.set_live(view.live, "xdr")
    assert gc.get_freeze_count() > 10_000                  # the tab, its canvas, the live state among them


def test_a_server_added_to_a_drawing_shown_whole_keeps_it_whole(qtbot, view):
    """On the lab the third server made the drawing wider than the view, which scrolled to it
    and cut the volume's first server off; the canvas zooms out instead (never in)."""
    canvas = view.canvas
    view.resize(1280, 720)
    QApplication.processEvents()
    view._fit_canvas()
    whole = lambda: canvas.mapToScene(canvas.viewport().rect()).boundingRect().contains(  # noqa: E731
        canvas.board.itemsBoundingRect())
    assert whole()
    zoom = canvas.transform().m11()
    for _ in range(3):
        click(view.canvas, card(view, "node3"))
        press(qtbot, view, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
        QApplication.processEvents()
        assert whole()
    assert canvas.transform().m11() < zoom
    canvas.set_zoom(2.0)                                   # zoomed into: stays so
    click(view.canvas, card(view, "node3"))
    press(qtbot, view, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    assert canvas.transform().m11() == 2.0
