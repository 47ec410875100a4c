"""First start fits the screen's free area, frame included, and a small screen keeps the planner
usable (issue 21 item 11); opening a file brings the Planner forward with its drawing fitted
(item 12)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QRectF
from PySide6.QtWidgets import QPushButton

from brickyard.core import topofile
from brickyard.ui.frame.mainwindow import OPTIONAL_VIEWS
from brickyard.ui.frame.window_state import fitted_frame

from ..conftest import EXAMPLES
from .helpers import eight_node_window, open_window


def test_a_frame_taller_than_the_free_area_is_shrunk_and_moved_into_it():
    room = QRect(0, 0, 1600, 900)
    assert fitted_frame(QRect(0, 0, 1600, 920), room) == QRect(0, 0, 1600, 900)      # a 20 px title bar
    assert fitted_frame(QRect(100, 50, 800, 600), room) == QRect(100, 50, 800, 600)  # fits: unchanged
    assert fitted_frame(QRect(1200, 700, 800, 600), room) == QRect(800, 300, 800, 600)
    assert fitted_frame(QRect(-30, -10, 900, 700), QRect(0, 24, 1280, 696)) == QRect(0, 24, 900, 696)


def test_the_window_is_fitted_so_that_its_frame_lies_in_the_free_area(qtbot, tmp_path):
    win = open_window(qtbot, tmp_path)
    room = win.screen().availableGeometry()
    win.setGeometry(room.x(), room.y() + 40, room.width(), room.height())   # as tall as the screen, 40 px down
    win.window_layout.fit_into_screen()
    assert room.contains(win.frameGeometry())


@pytest.fixture
def small_window(qtbot, tmp_path, monkeypatch):
    return eight_node_window(qtbot, tmp_path, monkeypatch, (1200, 720))


def _inside(win, widget) -> bool:
    top_left = widget.mapTo(win, widget.rect().topLeft())
    return widget.isVisible() and win.rect().contains(QRect(top_left, widget.size()))


def test_at_1200_by_720_the_canvas_and_every_docks_buttons_stay_usable(qtbot, small_window):
    win = small_window
    assert win.canvas.width() >= 0.45 * 1200 and win.canvas.height() >= 350, win.canvas.size()
    win.open_optional_view(*OPTIONAL_VIEWS[0])
    win.open_run()
    win.tabs.setCurrentWidget(win.canvas)
    qtbot.wait(50)
    assert win.canvas.width() >= 0.45 * 1200 and win.canvas.height() >= 350, win.canvas.size()
    win.resize(800, 600)                                       # a smaller screen still: docks give way
    qtbot.wait(50)
    assert win.canvas.width() >= 300, win.canvas.size()
    win.resize(1200, 720)
    qtbot.wait(50)
    for key in ("commands", "compare", "options", "clients"):
        win.docks[key].raise_()
        qtbot.wait(30)
        assert win.docks[key].width() <= win.width(), key
        for button in win.docks[key].findChildren(QPushButton):
            if button.isVisibleTo(win.docks[key]):
                assert _inside(win, button), (key, button.text())


def test_opening_a_file_brings_the_planner_forward_with_its_drawing_fitted(qtbot, small_window, tmp_path):
    win = small_window
    path = tmp_path / "three.brickyard.json"
    topofile.save(topofile.load(EXAMPLES / "three-site.brickyard.json"), path)
    win.open_optional_view(*OPTIONAL_VIEWS[0])
    win.canvas.set_zoom(3.0)
    assert win.files.open(path)
    assert win.tabs.currentWidget() is win.canvas
    view = win.canvas
    qtbot.waitUntil(lambda: QRectF(view.viewport().rect()).contains(
        view.mapFromScene(view.board.itemsBoundingRect()).boundingRect().toRectF()))
