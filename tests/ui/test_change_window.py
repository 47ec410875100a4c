"""The Change tab in the main window: Ctrl+Shift+G opens it on the imported volume and reads it
over the bridge; a change run there appears in View ▸ Change history; File ▸ Export PDF… on
either tab reports the change record; an unfinished change is offered again after the window
was closed; the tab fits 1600×900 and 1280×720."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from brickyard.remote import changesteps
from brickyard.ui.change import ChangeHistoryView, ChangeView
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow
from brickyard.ui.report.report_export import report_request, report_source

from ..remote.changefake import ChangeCluster
from .helpers import click, point_of, show_active
from .test_change_run import ChangeServices, acknowledge_and_apply, expand_two_servers
from .test_change_view import XDR, imported_topology


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch):
    monkeypatch.setattr(changesteps, "POLL_FIRST", 0.05)
    monkeypatch.setattr(changesteps, "POLL_MAX", 0.2)


def window_on(qtbot, tmp_path, cluster, size=(1600, 900)) -> MainWindow:
    services = ChangeServices(cluster)
    window = MainWindow(imported_topology(), settings_path=tmp_path / "settings.json",
                        autosave_dir=tmp_path / "autosave", remote=RemoteBridge(make_services=lambda options: services))
    window.resize(*size)
    show_active(qtbot, window)
    return window


def close(qtbot, window) -> None:
    view = window.change_view
    if view is not None and view.control.running:
        view.control.cancel()
        qtbot.waitUntil(lambda: not view.control.busy, timeout=20_000)
    window.close()


def window_after_an_expand(qtbot, tmp_path):
    """A window whose Change tab read xdr, expanded it by two servers and ran the change to the end."""
    window = window_on(qtbot, tmp_path, ChangeCluster("xdr", XDR, replica=2))
    view = window.open_change(read=True)
    qtbot.waitUntil(lambda: view.plan is not None, timeout=20_000)
    view.canvas.set_zoom(0.8)
    expand_two_servers(qtbot, view)
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    return window, view


def test_ctrl_shift_g_opens_the_change_tab_and_reads_the_volume(qtbot, tmp_path):
    window = window_on(qtbot, tmp_path, ChangeCluster("xdr", XDR, replica=2))
    qtbot.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    view = window.tabs.currentWidget()
    assert isinstance(view, ChangeView) and window.tabs.tabText(window.tabs.currentIndex()) == "Change"
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.nothing_to_do, timeout=20_000)
    assert "xdr" in view.live_label.text() and not window.docks["inspector"].isVisible()   # planner docks hidden
    qtbot.keyClick(window, Qt.Key.Key_F1)                         # the guide opens at Day two
    qtbot.waitUntil(lambda: window._user_guide.isVisible())
    assert window._user_guide.chapter.name == "16-day-two.md"
    window._user_guide.close()
    close(qtbot, window)


def test_a_change_run_in_the_tab_is_in_the_change_history_and_its_record_is_the_report(qtbot, tmp_path):
    window, view = window_after_an_expand(qtbot, tmp_path)
    kind, what, words = report_source(window)
    assert (kind, what) == ("change", view.change_id) and words.startswith("the record of change")
    assert report_request(window, kind, what)["kind"] == "change"
    qtbot.mouseClick(view.history_button, Qt.MouseButton.LeftButton)
    history = window.tabs.currentWidget()
    assert isinstance(history, ChangeHistoryView) and history.selected_id() == view.change_id
    assert history.table.item(0, 3).text() == "complete"
    assert report_source(window)[:2] == ("change", view.change_id)
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert any(a.objectName() == "change-history" for a in view_menu.actions())
    close(qtbot, window)


def test_an_interrupted_change_is_offered_again_after_the_window_was_closed(qtbot, tmp_path):
    cluster = ChangeCluster("xdr", XDR, replica=2)
    window = window_on(qtbot, tmp_path, cluster)
    view = window.open_change(read=True)
    qtbot.waitUntil(lambda: view.plan is not None, timeout=20_000)
    view.canvas.set_zoom(0.8)
    expand_two_servers(qtbot, view)
    cluster.hold()
    acknowledge_and_apply(qtbot, view)
    qtbot.waitUntil(lambda: view.plan_panel.status_of("rebalance-wait") == "running", timeout=30_000)
    change_id = view.change_id
    window.close()                              # closing stops it as Cancel does: the volume is left consistent
    assert cluster.commands("rebalance", "stop")
    cluster.release()
    again = window_on(qtbot, tmp_path, cluster)
    history = again.open_change_history()
    assert history.selected().status == "interrupted" and history.resume_button.isEnabled()
    qtbot.mouseClick(history.resume_button, Qt.MouseButton.LeftButton)
    view = again.tabs.currentWidget()
    assert isinstance(view, ChangeView)
    qtbot.waitUntil(lambda: "Change complete" in view.message.text(), timeout=60_000)
    assert {"node6", "node7"} <= {n.name for n in again.session.topo.nodes}     # drawn as the change drew them
    assert view.change_id == change_id
    close(qtbot, again)


@pytest.mark.parametrize("size", [(1600, 900), (1280, 720)])
def test_the_change_tab_in_the_window_fits(qtbot, tmp_path, size):
    window = window_on(qtbot, tmp_path, ChangeCluster("xdr", XDR, replica=2), size)
    view = window.open_change(read=True)
    qtbot.waitUntil(lambda: view.plan is not None, timeout=20_000)
    QApplication.processEvents()
    for widget in (view.apply_button, view.cancel_button, view.copy_button, view.history_button, view.read_button):
        corner = widget.mapTo(window, widget.rect().bottomRight())
        assert widget.isVisible() and corner.x() <= window.width() and corner.y() <= window.height(), widget
    assert view.canvas.width() >= 380 and view.plan_panel.tree.height() >= 100
    close(qtbot, window)


def test_the_change_canvas_keys_work_in_the_window_and_the_planner_keys_do_not_get_in_the_way(qtbot, tmp_path):
    window = window_on(qtbot, tmp_path, ChangeCluster("xdr", XDR, replica=2))
    view = window.open_change(read=True)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.nothing_to_do, timeout=20_000)
    view.canvas.set_zoom(0.8)
    before = len(window.session.topo.require_node("node5").bricks)
    click(view.canvas, point_of(view.canvas, view.canvas.board.nodes["node5"], QPointF(40, 10)))
    view.canvas.setFocus()
    qtbot.keyClick(view.canvas, Qt.Key.Key_B)                  # the planner's key, on the change canvas
    assert len(window.session.topo.require_node("node5").bricks) == before + 1
    qtbot.keyClick(view.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(window.session.topo.require_node("node5").bricks) == before
    assert not window.canvas.actions_by_name["add_brick"].isEnabled()   # the planner's own: off on this tab
    close(qtbot, window)


def test_history_leads_to_the_change_history(qtbot, tmp_path):
    window = window_on(qtbot, tmp_path, ChangeCluster("xdr", XDR, replica=2))
    history = window.open_optional_view("&History", "brickyard.ui.history", lambda module: module.HistoryView(
        window.history_store()))
    qtbot.mouseClick(history.changes_button, Qt.MouseButton.LeftButton)
    assert isinstance(window.tabs.currentWidget(), ChangeHistoryView)
    close(qtbot, window)


def test_export_pdf_on_the_change_history_writes_the_change_record(qtbot, tmp_path):
    from ..report import pdfcheck
    from .test_report_export import open_dialog, press_export

    window, view = window_after_an_expand(qtbot, tmp_path)
    window.open_change_history()
    dialog = open_dialog(qtbot, window)                  # the report writer process prepares the record
    assert dialog.title.text().startswith("Change record: xdr")
    dialog.path.setText(str(tmp_path / "record.pdf"))
    press_export(qtbot, dialog)
    assert dialog.result_info is not None, dialog.problem.text()
    words = " ".join(pdfcheck.text(tmp_path / "record.pdf", raw=True).split())
    assert "completed: every step done and read back" in words and "2 Steps" in words
    close(qtbot, window)
