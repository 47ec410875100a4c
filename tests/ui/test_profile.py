"""Settings in ONE place (issue 10 item 9): what older Brickyards left in Qt's folders
(``~/.config/Brickyard/Brickyard/brickyard.ini``, ``~/.local/share/Brickyard/Brickyard/autosave``)
moves into ``~/.config/brickyard/settings.json`` and ``~/.local/share/brickyard`` once."""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from brickyard.store.settings import Settings
from brickyard.ui.frame import profile
from brickyard.ui.frame.mainwindow import MainWindow

from .helpers import small_topology


def _old_profile(root: Path) -> tuple[Path, Path]:
    ini = root / "config" / "Brickyard" / "Brickyard" / "brickyard.ini"
    ini.parent.mkdir(parents=True)
    old = QSettings(str(ini), QSettings.Format.IniFormat)
    old.setValue("recent", ["/srv/a.brickyard.json", "/srv/b.brickyard.json"])
    old.setValue("last_file", "/srv/a.brickyard.json")
    old.setValue("window/geometry", QByteArray(b"\x01\xd9\xd0\xcb\x00\x03geometry"))
    old.setValue("run/params/dd", json.dumps({"size": "16M"}))
    old.sync()
    auto = root / "data" / "Brickyard" / "Brickyard" / "autosave"
    auto.mkdir(parents=True)
    (auto / "session-4242.brickyard.json").write_text("{}")
    (auto / "session-4242.brickyard.meta").write_text("{}")
    return ini, auto


def test_old_qt_settings_and_autosaves_move_once_into_the_one_place(_fresh_profile):
    root = _fresh_profile
    ini, auto = _old_profile(root)
    settings = Settings()
    settings.setValue("last_file", "/srv/newer.brickyard.json")    # already in settings.json: it wins
    new_auto = root / "data" / "brickyard" / "autosave"
    moved = profile.migrate_old_locations(settings, new_auto)
    assert len(moved) == 2 and "brickyard.ini" in moved[0] and "autosave" in moved[1]
    data = json.loads((root / "config" / "brickyard" / "settings.json").read_text())
    assert data["recent"] == ["/srv/a.brickyard.json", "/srv/b.brickyard.json"]
    assert data["last_file"] == "/srv/newer.brickyard.json"
    assert QByteArray.fromBase64(data["window/geometry"].encode()).data() == b"\x01\xd9\xd0\xcb\x00\x03geometry"
    assert json.loads(data["run/params/dd"]) == {"size": "16M"}
    assert data["migrated"][0]["moved"] == moved
    assert sorted(p.name for p in new_auto.iterdir()) == ["session-4242.brickyard.json", "session-4242.brickyard.meta"]
    # the old files and their now empty Qt folders are gone; nothing else was touched
    assert not (root / "config" / "Brickyard").exists() and not (root / "data" / "Brickyard").exists()
    assert profile.migrate_old_locations(settings, new_auto) == []     # once


def test_migration_leaves_an_old_folder_that_holds_something_else(_fresh_profile):
    root = _fresh_profile
    ini, _auto = _old_profile(root)
    other = ini.parent / "notes.txt"
    other.write_text("mine")
    profile.migrate_old_locations(Settings(), root / "data" / "brickyard" / "autosave")
    assert not ini.exists() and other.read_text() == "mine"


def test_a_broken_settings_json_keeps_the_old_ini_in_place(_fresh_profile):
    root = _fresh_profile
    ini, _auto = _old_profile(root)
    target = root / "config" / "brickyard" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_text("{broken")
    moved = profile.migrate_old_locations(Settings(), root / "data" / "brickyard" / "autosave")
    assert ini.exists() and "left in place" in moved[0]
    assert target.read_text() == "{broken"


def test_the_window_keeps_recent_files_and_its_layout_in_settings_json(qtbot, _fresh_profile, tmp_path):
    from brickyard.core import topofile

    path = tmp_path / "x.brickyard.json"
    topofile.save(small_topology(), path)
    window = MainWindow(small_topology())
    qtbot.addWidget(window)
    window.files.open(path)
    window.close()
    data = json.loads((_fresh_profile / "config" / "brickyard" / "settings.json").read_text())
    assert data["recent"] == [str(path)] and data["last_file"] == str(path)
    assert data["window/geometry"] and data["window/state"]
    # no second settings folder appears anywhere
    assert not any(p.name in ("Brickyard", "brickyard.ini") for p in _fresh_profile.rglob("*"))
    assert os.listdir(_fresh_profile / "config") == ["brickyard"]
