"""The planner's keys belong to the planner (issue 21 item 1): every canvas shortcut, and Del,
Backspace, Ctrl+A and Ctrl+C, pressed on every tab of the window, change only that tab. On
History a run selected, Del deleted node1 from the topology behind it, N added a node and
Ctrl+A selected every canvas node instead of the table's rows."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication

from brickyard.core import topofile
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run
from brickyard.ui.frame.mainwindow import OPTIONAL_VIEWS, MainWindow
from brickyard.ui.planner.canvas.items import HEADER_H

from .helpers import point_of, show_active, small_topology
from .test_window_state import click_tab

EXTRA_KEYS = ("Del", "Backspace", "Ctrl+A", "Ctrl+C")


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'history.db'}"
    monkeypatch.setenv("BRICKYARD_DB", db)
    store = HistoryStore(db)
    rng = random.Random(21)
    for i in range(3):
        store.add_run(synthetic_run(rng, gluster="10.3", started_at=1.76e9 + i * 86400, repeats=2))
    store.close()
    win = MainWindow(small_topology(), tmp_path / "settings.json", tmp_path / "autosave")
    win.resize(1400, 900)
    show_active(qtbot, win)
    return win


def click_node(qtbot, canvas, name: str) -> None:
    """Click a node's header as the mouse does (the click gives the canvas the keyboard)."""
    pos = point_of(canvas, canvas.board.nodes[name], QPointF(60, HEADER_H / 2))
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def canvas_keys(window) -> list[QKeySequence]:
    """Every key sequence the canvas's actions answer to, and the keys every widget knows."""
    keys = [k for a in window.canvas.actions_by_name.values() for k in a.shortcuts() if not k.isEmpty()]
    keys += [QKeySequence(text) for text in EXTRA_KEYS]
    return list({k.toString(): k for k in keys}.values())


def planner_state(window) -> tuple:
    canvas = window.canvas
    names = canvas.board.selected_names()
    return (topofile.dumps(window.session.topo), tuple(tuple(map(str, n)) for n in names),
            window.session.stack.index(), canvas.transform().m11(), tuple(window.session.failures))


def press(qtbot, sequence: QKeySequence) -> list:
    """Press ``sequence`` where the keyboard focus is; a dialog it opens is closed and returned."""
    combo = sequence[0]
    target = QApplication.focusWidget() or QApplication.activeWindow()
    opened: list = []

    def close_modal() -> None:
        modal = QApplication.activeModalWidget()
        if modal is not None:
            opened.append(modal.windowTitle() or type(modal).__name__)
            modal.reject()
    QTimer.singleShot(40, close_modal)
    qtbot.keyClick(target, combo.key(), combo.keyboardModifiers())
    qtbot.wait(60)
    return opened


def open_every_tab(window) -> dict:
    history = window.open_optional_view(*OPTIONAL_VIEWS[0])
    history.select_runs([r.run_id for r in history.model.rows[:2]])
    decision = window.open_decision(history.selected_run_ids())
    return {"Welcome": window.open_welcome(), "Pre-flight": window.open_preflight(), "Provision": window.open_provision(),
            "Run": window.open_run(), "History": history, "Campaign": window.open_campaign(), "Decision": decision}


def test_planner_keys_pressed_on_every_other_tab_change_nothing_behind_it(qtbot, window):
    click_node(qtbot, window.canvas, "n1")
    assert window.canvas.board.selected_names()[1] == ["n1"]   # a node selected, as on the screen
    tabs = open_every_tab(window)
    history = tabs["History"]
    before = planner_state(window)
    for title, page in tabs.items():
        click_tab(qtbot, window, title)
        qtbot.wait(20)
        if title == "History":
            rect = history.table.visualRect(history.model.index(0, 1))
            qtbot.mouseClick(history.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        for keys in canvas_keys(window):
            selected = history.selected_run_ids()
            opened = press(qtbot, keys)
            assert not opened, f"{keys.toString()} on {title} opened {opened}"
            assert window.tabs.currentWidget() is page, f"{keys.toString()} on {title} changed the tab"
            assert planner_state(window) == before, f"{keys.toString()} on {title} changed the planner"
            if title != "History":
                assert history.selected_run_ids() == selected, f"{keys.toString()} on {title} changed History"
    # back on the planner the same keys work again, on the canvas
    click_tab(qtbot, window, "Planner")
    assert QApplication.focusWidget() is window.canvas
    qtbot.keyClick(window.canvas, Qt.Key.Key_N)
    assert window.session.topo.node("node4") is not None


def test_ctrl_a_del_and_ctrl_c_on_history_act_on_its_table(qtbot, window):
    tabs = open_every_tab(window)
    history = tabs["History"]
    click_tab(qtbot, window, "History")
    rect = history.table.visualRect(history.model.index(0, 1))
    qtbot.mouseClick(history.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.keyClick(history.table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert len(history.selected_run_ids()) == 3                 # the table's rows, not the canvas's nodes
    assert window.canvas.board.selected_names()[1] == []
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(history.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QGuiApplication.clipboard().text().splitlines()
    assert copied[0].split("\t")[:3] == ["started (UTC)", "run", "status"]
    assert len(copied) == 4 and all(r[:12] in QGuiApplication.clipboard().text() for r in history.selected_run_ids())
    before = topofile.dumps(window.session.topo)
    qtbot.keyClick(history.table, Qt.Key.Key_Delete)
    assert topofile.dumps(window.session.topo) == before and history.model.rowCount() == 3


def test_on_the_planner_del_and_ctrl_a_act_on_the_panel_with_the_focus_not_the_canvas(qtbot, window):
    canvas = window.canvas
    click_node(qtbot, canvas, "n3")
    before = planner_state(window)
    window.docks["compare"].raise_()
    table = window.compare.table
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(table.model().index(0, 1)).center())
    assert QApplication.focusWidget() is table
    for keys in ("Ctrl+A", "Del", "Backspace"):
        press(qtbot, QKeySequence(keys))
        assert planner_state(window) == before, keys          # n3 still there, nothing else selected
    click_node(qtbot, canvas, "n3")
    qtbot.keyClick(canvas, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert sorted(canvas.board.selected_names()[1]) == ["n1", "n2", "n3"]
    qtbot.keyClick(canvas, Qt.Key.Key_Delete)
    assert window.session.topo.nodes == []


def test_edit_menu_items_on_the_selection_are_off_while_nothing_is_selected(qtbot, window):
    """Edit ▸ Duplicate node, Delete and Rename… were enabled with nothing selected (and did
    nothing); they follow the canvas's selection: Duplicate needs a node, Rename one item."""
    edit_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    items = {a.text(): a for a in edit_menu.actions()}
    names = ("D&uplicate node", "&Delete", "&Rename…")
    canvas = window.canvas
    canvas.board.clearSelection()
    edit_menu.aboutToShow.emit()
    assert [items[n].isEnabled() for n in names] == [False, False, False]
    click_node(qtbot, canvas, "n1")
    assert [items[n].isEnabled() for n in names] == [True, True, True]
    brick = canvas.board.nodes["n2"].bricks[0]
    brick.setSelected(True)                                # a node and a brick: two items
    assert [items[n].isEnabled() for n in names] == [True, True, False]
    canvas.board.nodes["n1"].setSelected(False)         # a brick alone: nothing to duplicate
    assert [items[n].isEnabled() for n in names] == [False, True, True]
    canvas.board.clearSelection()
    assert [items[n].isEnabled() for n in names] == [False, False, False]
