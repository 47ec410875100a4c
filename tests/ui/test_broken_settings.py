"""A settings file Brickyard cannot read never stops the app: it starts with default settings,
says so, and keeps the broken file aside; values of the wrong type in a readable file are
ignored, not a crash."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QApplication, QMessageBox

from brickyard.ui.frame.mainwindow import MainWindow


def _start_app(monkeypatch, said: list[str]) -> MainWindow:
    """``brickyard-gui`` as a user starts it, up to the event loop; warnings are collected."""
    from brickyard.ui.frame import app as gui

    seen = {}

    def exec_and_capture(self):
        seen["window"] = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible())
        return 0
    monkeypatch.setattr(type(QApplication.instance()), "exec", exec_and_capture)
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: said.append(text)))
    assert gui.main([]) == 0
    return seen["window"]


def test_an_unreadable_settings_file_is_set_aside_and_the_app_starts_with_defaults(qtbot, monkeypatch, capsys,
                                                                                     _fresh_profile):
    folder = _fresh_profile / "config" / "brickyard"
    folder.mkdir(parents=True)
    broken = '{"recent": ["/x.brickyard.json"],\n "window/geometry": "AA==", "window/geometry": NaN}\n'
    (folder / "settings.json").write_text(broken)
    said: list[str] = []
    window = _start_app(monkeypatch, said)
    qtbot.addWidget(window)
    kept = [p for p in folder.iterdir() if p.name.startswith("settings.json.unreadable-")]
    assert len(kept) == 1 and kept[0].read_text() == broken                   # nothing lost
    assert len(said) == 1 and "started with default settings" in said[0] and str(kept[0]) in said[0]
    assert "window/geometry: appears twice" in said[0] and "NaN is not a number" in said[0]
    assert str(kept[0]) in capsys.readouterr().err
    assert window.files.recent() == [] and not window.files.settings.problem
    window.files.settings.setValue("recent", ["/y.brickyard.json"])            # settings are saved again
    assert json.loads((folder / "settings.json").read_text())["recent"] == ["/y.brickyard.json"]


def test_settings_of_the_wrong_type_are_ignored_not_a_crash(qtbot, monkeypatch, _fresh_profile):
    folder = _fresh_profile / "config" / "brickyard"
    folder.mkdir(parents=True)
    odd = {"recent": 5, "last_file": 7, "last_dir": ["x"], "window/geometry": 3, "window/state": {"a": 1},
           "run/baselines": 9, "run/workload": ["dd"], "run/params/dd": 4, "migrated": 2}
    (folder / "settings.json").write_text(json.dumps(odd))
    said: list[str] = []
    window = _start_app(monkeypatch, said)
    qtbot.addWidget(window)
    assert said == [] and window.files.recent() == []
    assert window.files.last_file() is None and window.files.start_dir().is_dir()
    run = window.open_run()                     # the Run tab reads its remembered choices
    assert run is not None and window.tabs.currentWidget() is run
    assert json.loads((folder / "settings.json").read_text())["recent"] == 5   # a readable file is not moved
