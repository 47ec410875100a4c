import json
import os
import subprocess
import sys

import pytest
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from brickyard.core import topofile
from brickyard.ui.frame.files import example_files
from brickyard.ui.frame.mainwindow import MainWindow

from ..conftest import EXAMPLES
from .helpers import open_window, small_topology

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.brickyard.json"))


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path)


def test_save_marks_clean_and_reopening_gives_back_the_edited_topology(qtbot, window, tmp_path):
    target = tmp_path / "mine"
    window.files.choose_save_path = lambda: str(target)
    qtbot.keyClick(window.canvas, Qt.Key.Key_S)  # add a site: the window is now dirty
    assert window.files.dirty and window.isWindowModified()
    assert window.windowTitle().startswith("small[*]")
    qtbot.keyClick(window.canvas, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    saved = tmp_path / "mine.brickyard.json"
    assert saved.is_file() and not window.files.dirty and not window.isWindowModified()
    assert window.windowTitle().startswith("mine.brickyard.json")
    other = MainWindow(None, tmp_path / "settings.ini", tmp_path / "autosave2")
    qtbot.addWidget(other)
    assert other.files.open(saved)
    assert [s.name for s in other.session.topo.sites] == ["A", "B", "site3"]
    assert "site3" in other.canvas.board.sites
    assert other.files.recent()[0] == str(saved) and other.files.last_file() == saved


def test_save_as_starts_in_the_folder_last_used_and_the_file_takes_its_name(qtbot, window, tmp_path):
    """The Save dialog always started in $HOME, and a new topology was saved as "untitled"."""
    from PySide6.QtWidgets import QFileDialog, QLineEdit

    from .helpers import on_next_dialog

    folder = tmp_path / "cluster-plans"
    folder.mkdir()
    topofile.save(small_topology(), folder / "rack1.brickyard.json")
    assert window.files.open(folder / "rack1.brickyard.json")
    qtbot.keyClick(window.canvas, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # File > New: untitled
    assert window.files.path is None and window.session.topo.name == "untitled"
    qtbot.keyClick(window.canvas, Qt.Key.Key_S)
    seen = {}

    def save(dialog):
        assert isinstance(dialog, QFileDialog)
        seen["dir"] = dialog.directory().absolutePath()
        name = dialog.findChild(QLineEdit, "fileNameEdit")
        name.selectAll()
        qtbot.keyClicks(name, "fresh")
        qtbot.keyClick(name, Qt.Key.Key_Return)
    done = on_next_dialog(save)
    qtbot.keyClick(window.canvas, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert done and seen["dir"] == str(folder)
    saved = folder / "fresh.brickyard.json"
    assert saved.is_file() and json.loads(saved.read_text())["name"] == "fresh"
    assert window.windowTitle().startswith("fresh.brickyard.json")


def test_new_asks_before_dropping_changes_and_cancel_keeps_them(qtbot, window):
    asked = []
    window.files.ask = lambda q: asked.append(q) or "cancel"
    qtbot.keyClick(window.canvas, Qt.Key.Key_S)
    assert not window.files.new()
    assert asked and "Save changes" in asked[0]
    assert window.session.topo.site("site3") is not None
    window.files.ask = lambda q: "discard"
    assert window.files.new()
    assert window.session.topo.nodes == [] and not window.files.dirty


def test_closing_with_unsaved_changes_can_be_cancelled(qtbot, window):
    qtbot.keyClick(window.canvas, Qt.Key.Key_S)
    window.files.ask = lambda q: "cancel"
    assert not window.close()
    window.files.ask = lambda q: "discard"
    assert window.close()


def test_autosave_of_a_crashed_session_is_offered_back_and_stays_dirty(qtbot, window, tmp_path):
    qtbot.keyClick(window.canvas, Qt.Key.Key_N)
    assert window.files.autosave()
    # pretend the writer crashed: give the autosave a process id that is surely gone
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    meta = window.files.autosave_path.with_suffix(".meta")
    note = json.loads(meta.read_text())
    note["pid"] = dead.pid
    crashed = window.files.autosave_dir / f"session-{dead.pid}.brickyard.json"
    window.files.autosave_path.rename(crashed)
    crashed.with_suffix(".meta").write_text(json.dumps(note))
    meta.unlink()
    fresh = MainWindow(None, tmp_path / "settings.ini", tmp_path / "autosave")
    qtbot.addWidget(fresh)
    questions = []
    fresh.files.ask_recover = lambda q: questions.append(q) or True
    assert fresh.files.offer_recovery()
    assert "not closed properly" in questions[0]
    assert fresh.session.topo.node("node4") is not None and fresh.files.dirty
    assert not crashed.exists()


def test_broken_autosave_notes_are_passed_over_and_never_block_start_up(qtbot, window, tmp_path):
    """An autosave note is read strictly: a FIFO (which would wait for a writer), a list, a pid
    that is text or a time that is not a number is not an autosave to offer; the good one is."""
    qtbot.keyClick(window.canvas, Qt.Key.Key_N)
    assert window.files.autosave()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    folder = window.files.autosave_dir
    note = json.loads(window.files.autosave_path.with_suffix(".meta").read_text())
    good = folder / f"session-{dead.pid}.brickyard.json"
    window.files.autosave_path.rename(good)
    window.files.autosave_path.with_suffix(".meta").unlink()
    good.with_suffix(".meta").write_text(json.dumps({**note, "pid": dead.pid}))
    for i, meta in enumerate(['["a list"]', '{"pid": "x", "saved_at": 1}', '{"pid": 5, "saved_at": "noon"}',
                              '{"pid": 5, "saved_at": NaN}', None]):
        data = folder / f"session-9{i}.brickyard.json"
        data.write_text(good.read_text())
        if meta is None:
            os.mkfifo(data.with_suffix(".meta"))
        else:
            data.with_suffix(".meta").write_text(meta)
    fresh = MainWindow(None, tmp_path / "settings.ini", folder)
    qtbot.addWidget(fresh)
    assert [data for data, _ in fresh.files.orphaned_autosaves()] == [good]


def test_a_broken_file_is_refused_with_the_reason_and_the_current_topology_stays(window, tmp_path):
    bad = tmp_path / "bad.brickyard.json"
    bad.write_text('{"format_version": 1, "nodes": [{"name": "x", "site": "nowhere"}]}')
    errors = []
    window.files.sig_error.connect(errors.append)
    window.files.ask = lambda q: "discard"
    window.files.window = None  # no message box in the test
    assert not window.files.open(bad)
    assert "nowhere" in errors[0] and window.session.topo.name == "small"


def test_dropping_a_topology_file_on_the_window_opens_it(qtbot, window):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(EXAMPLE_FILES[0]))])
    enter = QDragEnterEvent(QPoint(50, 50), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPoint(50, 50).toPointF(), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    assert window.files.path == EXAMPLE_FILES[0]
    assert window.session.topo.name == topofile.load(EXAMPLE_FILES[0]).name


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_every_example_loads_plans_and_renders(qtbot, tmp_path, path):
    win = MainWindow(None, tmp_path / "s.ini", tmp_path / "a")
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    assert path in example_files()
    assert win.files.open_example(path) and win.files.path is None  # a copy: Save never overwrites it
    topo = win.session.topo
    assert win.session.plan is not None and win.session.plan.volume.name == topo.volumes[0].name
    assert len(win.canvas.board.nodes) == len(topo.nodes)
    in_volume = [b for n in win.canvas.board.nodes.values() for b in n.bricks if b.look.set_index is not None]
    # a thin-arbiter brick is drawn as a member of every pair too
    assert len(in_volume) == len(topo.volumes[0].bricks) + (topo.volumes[0].thin_arbiter_brick is not None)
    assert win.commands.command_text().count("gluster volume create") == 1
    win.compare.finish()
    assert win.compare.table.rowCount() > 0
    win.canvas.fit()
    image = win.grab().toImage()
    assert image.width() >= 1000 and len({image.pixel(x, y) for x in range(0, image.width(), 7)
                                          for y in range(0, image.height(), 7)}) > 30


def test_brickyard_gui_without_a_display_says_so_and_exits_non_zero():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    run = subprocess.run([sys.executable, "-m", "brickyard.ui.frame.app"], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 3
    assert "no display" in run.stderr and "xvfb-run" in run.stderr
    assert "Aborted" not in run.stderr and "core dumped" not in run.stderr


def test_brickyard_gui_opens_the_file_it_is_given(qtbot, tmp_path, monkeypatch):
    from brickyard.ui.frame import app as gui
    from brickyard.ui.frame import files

    monkeypatch.setattr(files, "config_dir", lambda: tmp_path)
    monkeypatch.setattr(files, "data_dir", lambda: tmp_path)
    seen = {}

    def exec_and_capture(self):
        seen["window"] = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()
                              and w.files.path == EXAMPLE_FILES[-1])
        return 0
    monkeypatch.setattr(type(QApplication.instance()), "exec", exec_and_capture)
    assert gui.main([str(EXAMPLE_FILES[-1])]) == 0
    win = seen["window"]
    qtbot.addWidget(win)
    assert win.session.topo.name == topofile.load(EXAMPLE_FILES[-1]).name


def test_brickyard_gui_names_the_problem_of_a_file_it_cannot_open(qtbot, tmp_path, monkeypatch, capsys):
    from PySide6.QtWidgets import QMessageBox

    from brickyard.ui.frame import app as gui
    from brickyard.ui.frame import files

    monkeypatch.setattr(files, "config_dir", lambda: tmp_path)
    monkeypatch.setattr(files, "data_dir", lambda: tmp_path)
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    monkeypatch.setattr(type(QApplication.instance()), "exec", lambda self: 0)
    missing = tmp_path / "nope.brickyard.json"
    assert gui.main([str(missing)]) == 0
    assert "cannot read" in capsys.readouterr().err and "cannot read" in shown[0]
    for w in QApplication.topLevelWidgets():
        if isinstance(w, MainWindow):
            qtbot.addWidget(w)


def test_brickyard_gui_takes_an_ssh_config_and_refuses_bad_arguments(qtbot, tmp_path, monkeypatch, capsys):
    from brickyard.ui.frame import app as gui
    from brickyard.ui.frame import files

    monkeypatch.setattr(files, "config_dir", lambda: tmp_path)
    monkeypatch.setattr(files, "data_dir", lambda: tmp_path)
    assert gui.main(["--ssh-config", str(tmp_path / "missing")]) == 2
    assert f"--ssh-config {tmp_path / 'missing'}: cannot read: No such file or directory" in capsys.readouterr().err
    monkeypatch.setenv("BRICKYARD_SSH_CONFIG", "/dev/zero")        # read, it would never end
    assert gui.main([]) == 2 and "BRICKYARD_SSH_CONFIG=/dev/zero: is not a regular file" in capsys.readouterr().err
    monkeypatch.delenv("BRICKYARD_SSH_CONFIG")
    assert gui.main(["--frobnicate"]) == 2 and "unknown option --frobnicate" in capsys.readouterr().err
    assert gui.main(["a.json", "b.json"]) == 2
    config = tmp_path / "ssh_config"
    config.write_text("Host node1\n  HostName 127.0.0.1\n")
    seen = {}

    def exec_and_capture(self):
        seen["window"] = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible())
        return 0
    monkeypatch.setattr(type(QApplication.instance()), "exec", exec_and_capture)
    assert gui.main([f"--ssh-config={config}", str(EXAMPLE_FILES[-1])]) == 0
    win = seen["window"]
    qtbot.addWidget(win)
    assert win.remote.ssh_config == [str(config)] and win.remote.options().config_files == [str(config)]
