"""The main window stays within the screen whatever tab shows, keeps the planner's docks to the
planner tab, and remembers its size and dock layout between sessions (issue 10 item 2)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel

from brickyard.ui.frame.mainwindow import OPTIONAL_VIEWS, MainWindow

from .helpers import show_active, small_topology

LEFT = Qt.MouseButton.LeftButton


def choose_menu(qtbot, window, menu_title: str, item_text: str) -> None:
    """Open ``menu_title`` in the menu bar with a click and click ``item_text`` in it."""
    bar = window.menuBar()
    top = next(a for a in bar.actions() if a.text().replace("&", "") == menu_title)
    qtbot.mouseClick(bar, LEFT, pos=bar.actionGeometry(top).center())
    menu = top.menu()
    qtbot.waitUntil(menu.isVisible)
    item = next(a for a in menu.actions() if a.text().replace("&", "").startswith(item_text))
    qtbot.mouseClick(menu, LEFT, pos=menu.actionGeometry(item).center())
    qtbot.waitUntil(lambda: not menu.isVisible())


def click_tab(qtbot, window, title: str) -> None:
    bar = window.tabs.tabBar()
    index = next(i for i in range(bar.count()) if bar.tabText(i) == title)
    qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(index).center())
    assert window.tabs.currentIndex() == index


def planner_docks(window) -> dict[str, tuple[bool, int, int]]:
    return {k: (d.isVisible(), d.width(), d.height()) for k, d in window.docks.items()}


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'history.db'}")
    win = MainWindow(small_topology(), tmp_path / "settings.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    return win


def test_view_history_and_wider_views_never_widen_the_window_past_the_screen(qtbot, window):
    pytest.importorskip("brickyard.ui.history")
    screen = window.screen().availableGeometry()
    assert window.width() <= screen.width()
    size = window.size()
    choose_menu(qtbot, window, "View", "History")
    assert window.tabs.tabText(window.tabs.currentIndex()) == "History"
    qtbot.wait(50)
    assert window.size() == size and window.width() <= screen.width()
    wide = QLabel("a view that asks for 2,500 px")
    wide.setMinimumWidth(2500)
    window.add_view("Wide", wide)
    qtbot.wait(50)
    assert window.size() == size


def test_the_planner_docks_show_only_on_the_planner_tab_and_come_back_as_they_were(qtbot, window):
    pytest.importorskip("brickyard.ui.history")
    window.docks["compare"].raise_()
    before = planner_docks(window)
    assert before["inspector"][0] and before["layout"][0]
    choose_menu(qtbot, window, "View", "History")
    qtbot.wait(50)
    assert not any(d.isVisible() for d in window.docks.values())
    assert not window.docks["inspector"].toggleViewAction().isEnabled()  # the View menu cannot bring one back
    history = window.tabs.currentWidget()
    assert history.width() >= window.width() - 20  # the history has the window to itself
    click_tab(qtbot, window, "Planner")
    qtbot.wait(50)
    assert planner_docks(window) == before  # same docks, same sizes: no sliver of an Inspector
    assert window.docks["inspector"].toggleViewAction().isEnabled()


def test_window_size_and_dock_layout_are_remembered_by_the_next_session(qtbot, tmp_path, monkeypatch):
    settings = tmp_path / "settings.ini"
    first = MainWindow(small_topology(), settings, tmp_path / "autosave")
    show_active(qtbot, first)
    first.resize(700, 600)
    qtbot.waitUntil(lambda: first.width() == 700)
    close = next(b for b in first.docks["inspector"].findChildren(QAbstractButton)
                 if b.objectName() == "qt_dockwidget_closebutton")
    qtbot.mouseClick(close, LEFT)  # the user closes the Inspector with its title-bar button
    assert not first.docks["inspector"].isVisible()
    first.docks["clients"].raise_()
    qtbot.wait(50)                  # a narrower window gives its docks way to the canvas (issue 21 item 11)
    layout_width = first.docks["layout"].width()
    qtbot.keyClick(first, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)  # File > Quit
    qtbot.waitUntil(lambda: not first.isVisible())

    second = MainWindow(small_topology(), settings, tmp_path / "autosave")
    show_active(qtbot, second)
    assert (second.width(), second.height()) == (700, 600)
    assert not second.docks["inspector"].isVisible()
    assert second.docks["layout"].isVisible() and second.docks["layout"].width() == layout_width
    assert not second.docks["clients"].visibleRegion().isEmpty()  # the tab that was in front
    assert second.docks["commands"].visibleRegion().isEmpty()


def test_closing_on_another_tab_still_remembers_the_planner_layout(qtbot, tmp_path, monkeypatch):
    pytest.importorskip("brickyard.ui.history")
    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'history.db'}")
    settings = tmp_path / "settings.ini"
    first = MainWindow(small_topology(), settings, tmp_path / "autosave")
    show_active(qtbot, first)
    choose_menu(qtbot, first, "View", "History")
    first.close()
    second = MainWindow(small_topology(), settings, tmp_path / "autosave")
    show_active(qtbot, second)
    assert all(second.docks[k].isVisible() for k in ("inspector", "layout", "commands"))
    assert QApplication.activeWindow() is second


def test_no_dock_tab_bar_is_left_on_another_tab_after_coming_back_to_the_planner(qtbot, tmp_path, monkeypatch):
    """Planner → History → Planner → Campaign left the bottom docks' tab bar (Commands, Compare
    layouts…) showing on the Campaign tab: Qt keeps the tab bar of a restored layout apart from
    the docks it holds."""
    from PySide6.QtWidgets import QTabBar

    def dock_tabs() -> list[list[str]]:
        bars = [b for b in window.findChildren(QTabBar) if b.isVisible() and not window.tabs.isAncestorOf(b)
                and b is not window.tabs.tabBar()]
        return [[b.tabText(i) for i in range(b.count())] for b in bars if b.count()]

    from brickyard.core import topofile

    from ..conftest import EXAMPLES

    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'history.db'}")
    window = MainWindow(topofile.load(EXAMPLES / "eight-node-raid5.brickyard.json"), tmp_path / "s.json",
                        tmp_path / "autosave")
    window.resize(1600, 900)
    show_active(qtbot, window)
    qtbot.wait(50)
    assert dock_tabs()                                      # on the planner: Commands, Compare layouts, …
    window.open_optional_view(*OPTIONAL_VIEWS[0])
    qtbot.wait(50)
    assert dock_tabs() == []
    window.tabs.setCurrentWidget(window.canvas)
    qtbot.wait(50)
    assert dock_tabs()
    window.docks["compare"].raise_()
    qtbot.wait(1200)
    window.open_campaign(window.compare.layouts[:2])
    qtbot.wait(50)
    assert dock_tabs() == []
