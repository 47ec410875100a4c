"""The Help menu: Welcome, the user guide (F1), keyboard shortcuts, the log folder, About.

- **User guide** (F1) shows the guide's chapters (``ui/frame/guide.py``) with contents and search,
  opened at the chapter about the tab in front.
- **Keyboard shortcuts** lists every action of the window that has keys, read from the
  actions themselves (menus first, in menu order), so the list cannot fall behind.
- **Open log folder** opens ``core.paths.user_log_dir()`` in the file manager, or shows its
  path when no file manager answers.
- **About** lists the versions of Brickyard, Python, Qt, asyncssh, SQLAlchemy and the other
  libraries, and each workload plugin with its version and origin; Copy puts it on the clipboard.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QLabel, QMainWindow, QMenu, QMessageBox,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from ...core import applog
from .about import component_versions, plugin_versions, report_text


def add_help_menu(window: QMainWindow) -> QMenu:
    """The Help menu of ``window`` (a MainWindow: ``open_welcome`` is used)."""
    menu = window.menuBar().addMenu("&Help")
    action = menu.addAction("&Welcome")
    action.setToolTip("Benchmark this machine, open an example, import a cluster, recent files")
    action.triggered.connect(lambda: window.open_welcome())
    action = menu.addAction("&User guide")
    action.setShortcut(QKeySequence("F1"))
    action.triggered.connect(lambda: _user_guide(window))
    action = menu.addAction("&Keyboard shortcuts")
    action.setShortcut(QKeySequence("Ctrl+F1"))
    action.triggered.connect(lambda: show_shortcuts(window))
    menu.addSeparator()
    action = menu.addAction("Open &log folder")
    action.setToolTip(str(applog.log_path().parent))
    action.triggered.connect(lambda: open_log_folder(window))
    menu.addSeparator()
    action = menu.addAction("&About Brickyard")
    action.triggered.connect(lambda: show_about(window))
    return menu


def _user_guide(window: QMainWindow):
    """Help ▸ User guide. The guide's window (and its chapter index) loads when first asked
    for, not on the way to the first window."""
    from .guide import show_user_guide

    return show_user_guide(window)


# ---- keyboard shortcuts -------------------------------------------------------------------
def _keys(action: QAction) -> str:
    return ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if not k.isEmpty())


def shortcut_rows(window: QMainWindow) -> list[tuple[str, str, str]]:
    """(where, action, keys) for every action of ``window`` with keys: menus in menu order, then the rest."""
    rows: list[tuple[str, str, str]] = []
    seen: set[int] = set()

    def walk(menu: QMenu, path: str) -> None:
        for action in menu.actions():
            if action.menu() is not None:
                walk(action.menu(), f"{path} ▸ {action.menu().title().replace('&', '')}")
            elif not action.isSeparator():
                seen.add(id(action))
                if _keys(action):
                    rows.append((path, action.text().replace("&", ""), _keys(action)))

    for top in window.menuBar().actions():
        if top.menu() is not None:
            walk(top.menu(), top.menu().title().replace("&", ""))
    for action in window.findChildren(QAction):
        if id(action) not in seen and _keys(action) and action.text():
            rows.append(("Window", action.text().replace("&", ""), _keys(action)))
    return rows


def show_shortcuts(window: QMainWindow) -> QDialog:
    dialog = QDialog(window)
    dialog.setWindowTitle("Keyboard shortcuts")
    dialog.setObjectName("shortcuts")
    rows = shortcut_rows(window)
    table = QTableWidget(len(rows), 3)
    table.setHorizontalHeaderLabels(["Menu", "Action", "Keys"])
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(text))
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    note = QLabel("On the canvas also: drag a node into another site, drag a brick onto another to change the "
                  "brick order, double-click a client to edit it, wheel to zoom, middle button to pan.")
    note.setWordWrap(True)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.close)
    layout = QVBoxLayout(dialog)
    layout.addWidget(table)
    layout.addWidget(note)
    layout.addWidget(buttons)
    dialog.resize(640, 640)
    dialog.table = table
    dialog.show()
    return dialog


# ---- log folder ---------------------------------------------------------------------------
def open_log_folder(window: QWidget) -> bool:
    """Open the log folder in the file manager; when none answers, show where it is."""
    folder = applog.log_path().parent
    folder.mkdir(parents=True, exist_ok=True)
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
        return True
    box = QMessageBox(QMessageBox.Icon.Information, "Brickyard",
                      f"No file manager answered. The log is in:\n\n{folder}\n\n(brickyard.log, with older parts "
                      "in brickyard.log.1 … .5)", QMessageBox.StandardButton.Ok, window)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.open()
    return False


# ---- about --------------------------------------------------------------------------------
class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("About Brickyard")
        self.setObjectName("about")
        intro = QLabel("<h2>Brickyard</h2>Plan, provision and benchmark GlusterFS volumes.")
        rows = [(name, ver, "") for name, ver in component_versions()]
        plugins = plugin_versions()
        rows += [(f"workload {name}", ver, where) for name, ver, where in plugins]
        self.table = QTableWidget(len(rows), 3)
        self.table.setObjectName("about-versions")
        self.table.setHorizontalHeaderLabels(["Component", "Version", "From"])
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if row[1] == "broken":
                    item.setForeground(Qt.GlobalColor.red)
                self.table.setItem(r, c, item)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        files = getattr(parent, "files", None)
        settings = files.settings.path if files is not None else _settings_file()
        where = QLabel(f"Settings: {settings}<br>Log: {applog.log_path()}")
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        copy.setToolTip("Copy every version to the clipboard (for a bug report)")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.text()))
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table)
        layout.addWidget(where)
        layout.addWidget(buttons)
        self.resize(720, 520)

    def text(self) -> str:
        return report_text()


def _settings_file() -> Path:
    from ...store.settings import settings_path

    return settings_path()


def show_about(window: QWidget) -> AboutDialog:
    dialog = AboutDialog(window)
    dialog.show()
    return dialog
