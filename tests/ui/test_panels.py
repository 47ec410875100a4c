import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication

from brickyard.core.layout import resolve
from brickyard.core.topology import BrickRef, Layout, VolumeType
from brickyard.ui.frame.mainwindow import MainWindow
from brickyard.ui.planner.canvas.items import HEADER_H

from .helpers import choose_in_combo, click, open_window, point_of, show_active, small_topology


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path)


def _header(view, name: str):
    return point_of(view, view.board.nodes[name], QPointF(60, HEADER_H / 2))


_choose = choose_in_combo


def test_changing_the_replica_count_changes_warnings_and_capacity(qtbot, window):
    session, panel, verdict = window.session, window.layout_panel, window.verdict
    assert "split-brain" in verdict.findings.text()
    usable_r2 = session.plan.capacity.usable_bytes
    _choose(qtbot, panel.replica, "4")
    assert session.volume.layout.replica == 4
    assert session.plan.capacity.usable_bytes == usable_r2 // 2
    assert "split-brain" not in verdict.findings.text()
    assert verdict.capacity_bar.fractions()[0] == pytest.approx(0.25)
    qtbot.keyClick(window.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert session.volume.layout.replica == 2


def test_counts_gluster_refuses_are_listed_disabled_with_its_reason(window):
    combo = window.layout_panel.replica
    texts = [combo.itemText(i) for i in range(combo.count())]
    _, findings = resolve(Layout(VolumeType.REPLICATE, replica=3), 4)
    reason = next(f.message for f in findings if f.severity == "error")
    assert f"3 — {reason}" in texts
    index = texts.index(f"3 — {reason}")
    assert not combo.model().item(index).isEnabled()
    assert combo.model().item(texts.index("4")).isEnabled()


def test_choosing_disperse_type_offers_a_valid_disperse_layout(qtbot, window):
    _choose(qtbot, window.layout_panel.type, "disperse")
    layout = window.session.volume.layout
    assert layout.type is VolumeType.DISPERSE and layout.disperse == 4 and layout.redundancy == 1
    assert window.session.plan.capacity.usable_bytes == 3 * 10**12


def test_auto_place_fixes_sets_that_sit_on_one_server(qtbot, window):
    assert window.session.plan.needs_force
    qtbot.mouseClick(window.layout_panel.auto_place, Qt.MouseButton.LeftButton)
    assert not window.session.plan.needs_force
    assert "no set has two bricks on one node" in window.layout_panel.placement_note.text()
    for s in window.session.plan.sets:
        assert len({b.node for b in s.bricks}) == 2


def test_a_failed_node_shows_in_words_and_colour_in_the_verdict(qtbot, window):
    qtbot.mouseClick(window.layout_panel.auto_place, Qt.MouseButton.LeftButton)
    view = window.canvas
    click(view, _header(view, "n1"))
    qtbot.keyClick(view, Qt.Key.Key_F)
    assert "Volume DEGRADED" in window.verdict.state.text()
    assert "#ef6c00" in window.verdict.state.text()
    qtbot.mouseClick(window.verdict.clear_failures, Qt.MouseButton.LeftButton)
    assert "Volume UP" in window.verdict.state.text()


def test_the_inspector_takes_sizes_as_admins_write_them_and_marks_bad_input(qtbot, window):
    view = window.canvas
    click(view, point_of(view, view.board.brick_item(BrickRef("n1", "/b1"))))
    field = window.inspector.field("brick", "size_bytes")
    field.edit.setFocus()
    field.edit.selectAll()
    qtbot.keyClicks(field.edit, "12.7 TiB")
    qtbot.keyClick(field.edit, Qt.Key.Key_Return)
    assert window.session.topo.brick(BrickRef("n1", "/b1")).size_bytes == round(12.7 * 2**40)
    field.edit.selectAll()
    qtbot.keyClicks(field.edit, "12 parsecs")
    qtbot.keyClick(field.edit, Qt.Key.Key_Return)
    assert field.invalid and "unknown unit" in field.error.text()
    assert field.edit.text() == "12 parsecs"  # never coerced
    assert window.session.topo.brick(BrickRef("n1", "/b1")).size_bytes == round(12.7 * 2**40)


def test_renaming_a_node_to_a_taken_name_is_marked_with_the_models_reason(qtbot, window):
    view = window.canvas
    click(view, _header(view, "n3"))
    qtbot.keyClick(view, Qt.Key.Key_F2)
    field = window.inspector.field("node", "name")
    assert field.edit.hasFocus()
    qtbot.keyClicks(field.edit, "n1")
    qtbot.keyClick(field.edit, Qt.Key.Key_Return)
    assert field.invalid and "exists already" in field.error.text()
    field.edit.selectAll()
    qtbot.keyClicks(field.edit, "gfs9")
    qtbot.keyClick(field.edit, Qt.Key.Key_Return)
    assert window.session.topo.node("gfs9") is not None and "gfs9" in view.board.nodes
    assert window.inspector.selection == ("node", "gfs9")


def test_the_command_preview_follows_the_layout_and_copies_to_the_clipboard(qtbot, window):
    text = window.commands.command_text()
    assert "gluster volume create gv0 replica 2 transport tcp n1:/b1 n1:/b2 n2:/b1 n2:/b2" in text
    qtbot.mouseClick(window.commands.copy, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == text


def test_the_command_preview_is_the_planners_command_list_with_the_node_it_runs_on(tmp_path, qtbot):
    from brickyard.core.gluster_cli import command_lines

    from tests.cli.test_commands_agree import scrambled

    win = MainWindow(scrambled(), tmp_path / "settings.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    text = win.commands.command_text()
    assert text == "\n".join(command_lines(win.session.plan.commands)) + "\n"
    assert text.startswith("# run on node1") and "gluster peer probe node3\n" in text
    assert "all run on node1" in win.commands.note.text()


def test_the_command_preview_ends_with_each_clients_mount(tmp_path, qtbot):
    from brickyard.core.topology import Client, Mount

    from tests.cli.test_commands_agree import scrambled

    topo = scrambled()
    topo.clients.append(Client("client1"))
    topo.volumes[0].mounts.append(Mount("client1", "/mnt/gv0"))
    win = MainWindow(topo, tmp_path / "settings.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    lines = win.commands.command_text().splitlines()
    assert lines[-3:] == ["# run on client1 (a client: mount the started volume)", "mkdir -p /mnt/gv0",
                          "mount -t glusterfs -o backup-volfile-servers=node4:node1:node2 node3:/gv0 /mnt/gv0"]
    assert "then 1 mount(s) on the clients" in win.commands.note.text()


def test_a_layout_gluster_refuses_shows_its_words_and_no_figures_state_or_commands(tmp_path, qtbot):
    # "replica": 0 in a file used to plan as "6 x 2", show capacity, a green UP and replica 2 commands
    topo = small_topology()
    topo.volumes[0].layout = Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=0)
    win = MainWindow(topo, tmp_path / "settings.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    verdict, commands = win.verdict, win.commands
    assert "replica count should be greater than 1" in verdict.findings.text()
    assert "No volume" in verdict.state.text() and "UP" not in verdict.state.text()
    assert verdict.capacity_bar.capacity is None and "usable" not in verdict.capacity_text.text().split("—")[1]
    assert "refuses" in verdict.tolerance.text() and verdict.sets.count() == 0
    assert commands.command_text().startswith("# No commands: gluster refuses this volume.")
    assert "replica 2" not in commands.command_text() and not commands.copy.isEnabled()
    assert "refuses" in win.layout_panel.summary.text() and "set(s)" not in win.layout_panel.summary.text()


def test_choosing_a_row_of_the_comparison_table_applies_that_layout(qtbot, window):
    compare = window.compare
    compare.finish()
    rows = {compare.table.item(r, 0).text(): r for r in range(compare.table.rowCount())}
    assert {"distribute", "replica 2", "replica 4", "disperse 4 redundancy 1"} <= set(rows)
    row = rows["replica 4"]
    assert compare.table.item(row, 2).text() == "1.0 TB"
    window.docks["compare"].raise_()
    compare.table.scrollToItem(compare.table.item(row, 0))
    rect = compare.table.visualItemRect(compare.table.item(row, 0))
    qtbot.mouseClick(compare.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(compare.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.session.volume.layout.replica == 4


def test_quick_fill_adds_nodes_with_bricks_to_a_new_site_in_one_undo_step(qtbot, window, monkeypatch):
    from brickyard.ui.planner.panels import quickfill

    def fill(dialog):
        dialog.count.setValue(4)
        dialog.bricks.setValue(3)
        dialog.size.edit.setText("14 TB")
        dialog.site.setEditText("Helsinki")
        return True
    monkeypatch.setattr(quickfill.QuickFillDialog, "exec", fill)
    qtbot.keyClick(window.canvas, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    topo = window.session.topo
    added = [n for n in topo.nodes if n.site == "Helsinki"]
    assert len(added) == 4 and all(len(n.bricks) == 3 and n.bricks[0].size_bytes == 14 * 10**12 for n in added)
    assert len(topo.volume("gv0").bricks) == 16
    assert len(window.canvas.board.nodes) == 7
    window.session.stack.undo()
    assert topo.site("Helsinki") is None and len(window.canvas.board.nodes) == 3


def test_optional_views_open_as_tabs_next_to_the_planner_when_their_module_exists(window, monkeypatch):
    import sys
    import types

    from PySide6.QtWidgets import QLabel

    make = lambda module: module.HistoryView()  # noqa: E731
    assert window.open_optional_view("&Nothing", "brickyard.ui.no_such_view", make) is None
    assert "not part of this installation" in window.statusBar().currentMessage()
    fake = types.ModuleType("brickyard.ui.fake_history")
    fake.HistoryView = lambda: QLabel("runs")
    monkeypatch.setitem(sys.modules, "brickyard.ui.fake_history", fake)
    widget = window.open_optional_view("&History", "brickyard.ui.fake_history", make)
    assert window.tabs.count() == 2 and window.tabs.currentWidget() is widget
    assert window.open_optional_view("&History", "brickyard.ui.fake_history", make) is widget
    assert window.tabs.count() == 2


def test_the_history_tab_opens_the_history_browser_over_the_users_database(window, tmp_path, monkeypatch):
    history = pytest.importorskip("brickyard.ui.history")  # the history engineer's module
    from brickyard.ui.frame.mainwindow import OPTIONAL_VIEWS

    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'history.db'}")
    title, module, make = OPTIONAL_VIEWS[0]
    widget = window.open_optional_view(title, module, make)
    assert isinstance(widget, history.HistoryView), window.statusBar().currentMessage()
    assert window.tabs.tabText(window.tabs.currentIndex()) == "History"


def test_arbiter_checkbox_marks_the_third_brick_and_a_failed_site_degrades_the_set(qtbot, tmp_path):
    from brickyard.core import topofile

    from ..conftest import EXAMPLES

    win = MainWindow(topofile.load(EXAMPLES / "three-site.brickyard.json"), tmp_path / "s.ini", tmp_path / "a")
    show_active(qtbot, win)
    board = win.canvas.board
    third = win.session.volume.bricks[2]
    assert not board.brick_item(third).look.arbiter
    box = win.layout_panel.arbiter
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))  # on the tick box
    assert win.session.volume.layout.arbiter == 1
    assert board.brick_item(third).look.arbiter
    assert win.session.plan.capacity.arbiter_bytes > 0
    site = board.sites["Helsinki"].rect
    win.canvas.ensureVisible(site)
    click(win.canvas, win.canvas.mapFromScene(site.topLeft() + QPointF(30, 12)))
    qtbot.keyClick(win.canvas, Qt.Key.Key_F)
    assert win.session.failures == ["site:Helsinki"]
    assert board.sites["Helsinki"].failed and board.nodes["gfs6"].failed
    assert win.session.plan.state.state == "DEGRADED"


def test_types_without_any_accepted_layout_are_disabled_and_say_why(window):
    combo = window.layout_panel.type
    texts = [combo.itemText(i) for i in range(combo.count())]
    assert "distributed-disperse — no distributed-disperse layout is possible with 4 brick(s)" in texts
    assert not combo.model().item(texts.index(
        "distributed-disperse — no distributed-disperse layout is possible with 4 brick(s)")).isEnabled()
    assert combo.model().item(texts.index("disperse")).isEnabled()


def test_renaming_a_client_in_the_inspector_follows_into_mounts_and_undoes(qtbot, tmp_path):
    from brickyard.core import topofile

    from ..conftest import EXAMPLES

    win = MainWindow(topofile.load(EXAMPLES / "three-site.brickyard.json"), tmp_path / "s.ini", tmp_path / "auto")
    show_active(qtbot, win)
    view = win.canvas
    click(view, point_of(view, view.board.clients["web1"]))
    field = win.inspector.field("client", "name")
    field.edit.selectAll()
    qtbot.keyClicks(field.edit, "web2")
    qtbot.keyClick(field.edit, Qt.Key.Key_Return)
    topo = win.session.topo
    assert topo.client("web2") is not None and "web2" in view.board.clients and "web1" not in view.board.clients
    assert topo.volume("gv3").mounts[0].client == "web2"
    assert topo.rtt_ms("client:web2", "gfs1") == pytest.approx(0.159)
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert topo.client("web1") is not None and topo.volume("gv3").mounts[0].client == "web1"
    assert "web1" in view.board.clients


def test_a_thin_arbiter_is_chosen_in_the_layout_panel_and_undone_in_one_step(tmp_path, qtbot):
    from brickyard.core.topology import Brick, Node

    topo = small_topology()
    topo.volumes[0].bricks = [BrickRef("n1", "/b1"), BrickRef("n2", "/b1")]
    topo.volumes[0].layout = Layout(VolumeType.REPLICATE, replica=2)
    topo.sites[1].name = "B"
    topo.nodes.append(Node("witness", site="B", bricks=[Brick("/ta", 10**9)]))
    win = MainWindow(topo, tmp_path / "settings.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    panel, session = win.layout_panel, win.session
    assert "split-brain" in win.verdict.findings.text()
    choices = [panel.thin_arbiter.itemText(i) for i in range(panel.thin_arbiter.count())]
    assert choices[0] == "none" and "witness:/ta" in choices and "n1:/b1" not in choices  # not its own bricks
    panel.thin_arbiter.setCurrentIndex(choices.index("witness:/ta"))    # as a click on the entry does
    panel.thin_arbiter.activated.emit(panel.thin_arbiter.currentIndex())
    vol = session.volume
    assert (vol.layout.replica, vol.layout.thin_arbiter, str(vol.thin_arbiter_brick)) == (2, 1, "witness:/ta")
    assert session.plan.valid and "split-brain" not in win.verdict.findings.text()
    assert "replica 2 thin-arbiter 1" in win.commands.command_text() and "n2:/b1 witness:/ta" in win.commands.command_text()
    assert [str(b) for b in session.plan.sets[0].bricks] == ["n1:/b1", "n2:/b1", "witness:/ta"]
    qtbot.keyClick(win.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert session.volume.thin_arbiter_brick is None and session.volume.layout.thin_arbiter == 0


def test_thin_arbiter_choices_come_back_with_a_volume_deleted_and_restored(tmp_path, qtbot):
    from brickyard.core import edits
    from brickyard.core.topology import Brick, Node

    topo = small_topology()
    topo.volumes[0].bricks = [BrickRef("n1", "/b1"), BrickRef("n2", "/b1")]
    topo.volumes[0].layout = Layout(VolumeType.REPLICATE, replica=2)
    topo.nodes.append(Node("witness", site=topo.sites[0].name, bricks=[Brick("/ta", 10**9)]))
    win = MainWindow(topo, tmp_path / "settings.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    panel, session = win.layout_panel, win.session
    choices = lambda: [panel.thin_arbiter.itemText(i) for i in range(panel.thin_arbiter.count())]  # noqa: E731
    before = choices()
    assert "witness:/ta" in before and "n1:/b1" not in before
    for volume in list(topo.volumes):
        session.push(edits.RemoveVolume(volume.name))
    assert choices() == []                         # no volume: nothing to choose
    while session.stack.canUndo():
        session.stack.undo()
    assert choices() == before                     # the same list again, not an empty box
