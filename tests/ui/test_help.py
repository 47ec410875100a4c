"""Help (issue 10 item 9, issue 15): About with every version, F1 on the user guide (test_guide.py),
the keyboard shortcuts read from the actions, the log folder, and an unexpected error shown as
a dialog with the log's path and a report to copy — never a bare traceback."""

from __future__ import annotations

import logging
import subprocess
import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from brickyard import __version__
from brickyard.core import applog
from brickyard.ui.frame import help as helpmenu
from brickyard.ui.frame.crash import CrashReporter
from brickyard.ui.frame.mainwindow import OPTIONAL_VIEWS, MainWindow

from .helpers import show_active, small_topology


def _help_actions(window) -> dict[str, object]:
    menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Help")
    return {a.text().replace("&", ""): a for a in menu.actions() if not a.isSeparator()}


def test_the_help_menu_offers_welcome_guide_shortcuts_log_folder_and_about(qtbot):
    window = MainWindow(small_topology())
    qtbot.addWidget(window)
    actions = _help_actions(window)
    assert list(actions) == ["Welcome", "User guide", "Keyboard shortcuts", "Open log folder", "About Brickyard"]
    assert actions["User guide"].shortcut().toString() == "F1"


def test_the_shortcuts_list_is_read_from_the_actions_themselves(qtbot):
    window = MainWindow(small_topology())
    qtbot.addWidget(window)
    rows = helpmenu.shortcut_rows(window)
    keys = {(action, keys) for _where, action, keys in rows}
    for expected in (("Quit", "Ctrl+Q"), ("User guide", "F1"), ("Add node", "N"), ("Toggle failure", "F"),
                     ("Pre-flight check", "Ctrl+Shift+P"), ("Undo", "Ctrl+Z")):
        assert expected in keys, expected
    # a new action with keys appears without anyone editing a list
    window.menuBar().actions()[0].menu().addAction("Frobnicate").setShortcut("Ctrl+Alt+J")
    assert ("File", "Frobnicate", "Ctrl+Alt+J") in helpmenu.shortcut_rows(window)
    dialog = helpmenu.show_shortcuts(window)
    qtbot.addWidget(dialog)
    assert dialog.table.rowCount() == len(helpmenu.shortcut_rows(window))


def test_about_lists_brickyard_qt_python_libraries_and_each_plugin_with_versions(qtbot):
    window = MainWindow(small_topology())
    qtbot.addWidget(window)
    dialog = helpmenu.show_about(window)
    qtbot.addWidget(dialog)
    table = dialog.table
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows["Brickyard"].startswith(__version__)
    assert rows["Python"].startswith(f"{sys.version_info.major}.{sys.version_info.minor}")
    for name in ("Qt", "asyncssh", "SQLAlchemy"):
        assert rows[name] and rows[name] != "not installed", name
    for workload in ("dd", "fio", "smallfile", "metadata", "randread", "pgbench"):
        assert rows[f"workload {workload}"] == "0.1.0"
    text = dialog.text()
    assert "asyncssh:" in text and "brickyard-workload-dd 0.1.0" in text


def test_open_log_folder_opens_the_user_log_dir_or_says_where_it_is(qtbot, monkeypatch, _fresh_profile):
    from PySide6.QtGui import QDesktopServices

    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    window = MainWindow(small_topology())
    qtbot.addWidget(window)
    _help_actions(window)["Open log folder"].trigger()
    assert opened == [str(_fresh_profile / "state" / "brickyard" / "log")]
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)
    assert not helpmenu.open_log_folder(window)
    box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
    assert str(_fresh_profile / "state" / "brickyard" / "log") in box.text()
    box.close()


def test_an_unexpected_error_is_logged_and_shown_with_the_log_path_and_a_report(qtbot, caplog):
    reporter = CrashReporter()
    try:
        raise RuntimeError("the flux capacitor failed; password=hunter2")
    except RuntimeError as exc:
        error = (type(exc), exc, exc.__traceback__)
    with caplog.at_level(logging.ERROR, logger="brickyard.crash"):
        reporter.handle(*error)
    box = reporter.dialog
    qtbot.addWidget(box)
    assert box.isVisible() and box.objectName() == "crash-dialog"
    assert "RuntimeError: the flux capacitor failed; password=***" in box.text()
    assert str(applog.log_path()) in box.informativeText() and "Save your topology" in box.informativeText()
    assert "Traceback" not in box.text() + box.informativeText()          # the traceback is in the details
    assert "Traceback" in box.detailedText() and "Brickyard:" in box.detailedText()
    assert "hunter2" not in box.detailedText()                            # never a secret, even here
    assert "unexpected error" in caplog.text and "flux capacitor" in caplog.text
    # a second error while the dialog is open is logged and counted, not stacked
    reporter.handle(*error)
    assert len(reporter.shown) == 1
    assert "1 more error" in box.informativeText()
    copy = next(b for b in box.findChildren(QPushButton) if b.objectName() == "crash-copy")
    copy.click()
    assert "flux capacitor" in QGuiApplication.clipboard().text()


def test_an_exception_in_a_slot_reaches_the_dialog_through_sys_excepthook(qtbot):
    reporter = CrashReporter()
    reporter.install()
    try:
        assert sys.excepthook == reporter.handle
    finally:
        reporter.uninstall()
    assert sys.excepthook != reporter.handle


def test_the_normal_app_self_test_passes_offscreen(tmp_path):
    run = subprocess.run([sys.executable, "-m", "brickyard.ui.frame.app", "--self-test"], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    for step in ("window", "examples", "plugins", "history", "benchmark"):
        assert any(line.startswith(f"ok   {step}:") for line in lines), (step, run.stdout)
    assert any(line.startswith(("ok   report:", "skip report: not built")) for line in lines), run.stdout
    assert lines[-1] == "self-test passed"
    assert not list(tmp_path.iterdir())


def test_a_view_that_cannot_open_says_what_to_do_and_logs_why(qtbot, monkeypatch, _fresh_profile, caplog):
    settings = _fresh_profile / "config" / "brickyard" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"history_db": 5}')
    monkeypatch.delenv("BRICKYARD_DB", raising=False)
    window = MainWindow(small_topology())
    qtbot.addWidget(window)
    with caplog.at_level(logging.ERROR, logger="brickyard"):
        assert window.open_optional_view(*OPTIONAL_VIEWS[0]) is None
    text = window.statusBar().currentMessage()
    assert "History cannot open:" in text and "'history_db' must be a database URL" in text
    assert "Fix what it names" in text and str(applog.log_path()) in text
    assert "History cannot open" in caplog.text and "Traceback" in caplog.text
