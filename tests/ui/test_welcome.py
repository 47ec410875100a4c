"""The first run (issue 15): a fresh profile opens on the welcome view, and "Benchmark this
machine" measures a local directory and tmpfs through the Run tab into a charted history."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from brickyard.store.history import HistoryStore
from brickyard.ui.frame import welcome
from brickyard.ui.frame.mainwindow import MainWindow

from ..conftest import EXAMPLES

LEFT = Qt.MouseButton.LeftButton
#: the welcome's sweep, made small: the path and what it stores are what is tested here
TINY_SWEEP = {"block_sizes": "64K,1M", "concurrency": "1,4", "size": "2M", "direction": "write", "repeats": "2"}


def _start_app(monkeypatch, argv=()) -> MainWindow:
    """``brickyard-gui`` as a user starts it, up to the event loop."""
    from brickyard.ui.frame import app as gui

    seen = {}

    def exec_and_capture(self):
        seen["window"] = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible())
        return 0
    monkeypatch.setattr(type(QApplication.instance()), "exec", exec_and_capture)
    assert gui.main(list(argv)) == 0
    return seen["window"]


def test_first_run_on_a_fresh_profile_ends_in_a_charted_local_baseline_stored_in_history(qtbot, monkeypatch,
                                                                                          _fresh_profile):
    monkeypatch.delenv("BRICKYARD_DB", raising=False)
    monkeypatch.setattr(welcome, "LOCAL_SWEEP", TINY_SWEEP)
    window = _start_app(monkeypatch)
    qtbot.addWidget(window)
    view = window.welcome
    assert window.tabs.currentWidget() is view and window.tabs.tabText(0) == "Welcome"
    assert view.no_recent.isVisibleTo(view) and not view.recent.isVisibleTo(view)
    directory = _fresh_profile / "cache" / "brickyard" / "baseline"
    assert view.dir_edit.text() == str(directory)
    tmpfs, _why = welcome.find_tmpfs()

    qtbot.mouseClick(view.bench_button, LEFT)
    assert window.run_view is not None and window.run_view.running
    qtbot.waitUntil(lambda: window.tabs.tabText(window.tabs.currentIndex()) == "History", timeout=180_000)

    # stored in the history of the fresh profile: one complete run per place measured
    store = HistoryStore.open()
    runs = store.load_runs([r.run_id for r in store.list_runs()])
    store.close()
    targets = sorted(r.provenance.target for r in runs)
    assert targets == sorted([f"local:{directory}"] + ([f"local:{tmpfs}"] if tmpfs else [])), targets
    assert all(r.status.value == "complete" and len(r.steps) == 2 * 2 * 2 for r in runs)
    assert not list(directory.iterdir())         # the run removed its files

    # charted: History opened on the chart, one file vs 4 at once for each place
    history = window.tabs.currentWidget()
    chart = history.compare.throughput_chart
    assert history.compare.tabs.currentWidget() is chart
    curves = list(chart.curves)
    assert len(curves) == 2 * len(runs), curves
    assert sum("single" in c for c in curves) == len(runs) and sum("4 concurrent" in c for c in curves) == len(runs)
    for curve in chart.curves.values():
        xs, ys = curve.getData()
        assert len(xs) == 2 and all(y > 0 for y in ys)


def test_the_sweep_refuses_a_directory_it_cannot_use_and_says_what_to_do(qtbot, tmp_path):
    view = welcome.WelcomeView()
    qtbot.addWidget(view)
    started = []
    view.sig_benchmark.connect(lambda d, t: started.append(d))
    for text, words in ((str(tmp_path / "nope"), "does not exist: create it first"),
                        ("relative/dir", "give the full path"),
                        ("", "Choose a directory")):
        view.dir_edit.setText(text)
        assert not view.benchmark()
        assert words in view.problem.text() and view.problem.isVisibleTo(view)
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        view.dir_edit.setText(str(locked))
        assert not view.benchmark() and "cannot write" in view.problem.text()
    view.dir_edit.setText(str(tmp_path))
    assert view.benchmark() and started == [str(tmp_path)] and not view.problem.isVisibleTo(view)


def test_the_sweep_needs_room_for_its_largest_step(monkeypatch, tmp_path):
    import shutil

    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**9, 10**9 - 10**6, 10**6))
    problem = welcome.local_sweep_problem(str(tmp_path))
    assert "1.00 MB free" in problem and "Free some space" in problem


def test_a_tmpfs_is_the_ceiling_only_where_one_is_mounted_with_room(tmp_path, monkeypatch):
    import shutil

    table = tmp_path / "mounts"
    table.write_text("sysfs /sys sysfs rw 0 0\n/dev/sda1 /dev/shm ext4 rw 0 0\n")
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    assert welcome.find_tmpfs(str(table)) == ("", "no tmpfs mounted at /dev/shm or $XDG_RUNTIME_DIR")
    shm = tmp_path / "shm"
    shm.mkdir()
    table.write_text(f"tmpfs {shm} tmpfs rw 0 0\ntmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0\n")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shm))
    real = shutil.disk_usage
    # a container's 64 MB /dev/shm has no room: the runtime dir's tmpfs is taken instead
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(64 * 10**6, 0, 64 * 10**6)
                        if str(p) == "/dev/shm" else real(p))
    assert welcome.find_tmpfs(str(table)) == (str(shm), "")
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    path, why = welcome.find_tmpfs(str(table))
    assert path == "" and why.startswith("/dev/shm has 64.00 MB free")
    view = welcome.WelcomeView()
    assert view.tmpfs == "" and "no ceiling: /dev/shm has 64.00 MB free" in view.bench_button.description()
    view.deleteLater()


def test_examples_recent_files_new_and_import_start_from_the_welcome_view(qtbot, monkeypatch, tmp_path):
    window = MainWindow()
    qtbot.addWidget(window)
    view = window.open_welcome()
    assert [b.text() for b in view.example_buttons] == [p.name.removesuffix(".brickyard.json")
                                                        for p in sorted(EXAMPLES.glob("*.brickyard.json"))]
    qtbot.mouseClick(view.example_buttons[0], LEFT)
    assert window.tabs.currentWidget() is window.canvas and window.session.topo.nodes and window.files.path is None

    saved = tmp_path / "mine.brickyard.json"
    window.files.choose_save_path = lambda: str(saved)
    assert window.files.save_as()
    window.open_welcome()
    assert view.recent.count() == 1 and view.recent.item(0).data(Qt.ItemDataRole.UserRole) == str(saved)
    window.files.new()
    window.open_welcome()
    view.recent.itemActivated.emit(view.recent.item(0))
    assert window.files.path == saved and window.tabs.currentWidget() is window.canvas

    window.open_welcome()
    qtbot.mouseClick(view.new_button, LEFT)
    assert window.files.path is None and not window.session.topo.nodes

    asked = []
    monkeypatch.setattr(MainWindow, "import_from_cluster", lambda self: asked.append(True) or False)
    window2 = MainWindow()
    qtbot.addWidget(window2)
    qtbot.mouseClick(window2.open_welcome().import_button, LEFT)
    assert asked == [True]


def test_a_missing_recent_file_is_shown_greyed_not_offered(qtbot, tmp_path):
    view = welcome.WelcomeView()
    qtbot.addWidget(view)
    there = tmp_path / "there.brickyard.json"
    there.write_text("{}")
    view.set_recent([str(there), str(tmp_path / "gone.brickyard.json")])
    assert view.recent.item(0).flags() & Qt.ItemFlag.ItemIsEnabled
    assert not view.recent.item(1).flags() & Qt.ItemFlag.ItemIsEnabled and "(missing)" in view.recent.item(1).text()


@pytest.mark.parametrize("argv_file", [True, False])
def test_a_later_start_opens_the_file_not_the_welcome(qtbot, monkeypatch, tmp_path, argv_file):
    from brickyard.core import topofile

    path = tmp_path / "t.brickyard.json"
    topofile.save(topofile.load(EXAMPLES / "three-site.brickyard.json"), path)
    if not argv_file:
        from brickyard.store.settings import Settings

        Settings().setValue("last_file", str(path))
    window = _start_app(monkeypatch, [str(path)] if argv_file else [])
    qtbot.addWidget(window)
    assert window.files.path == Path(path) and window.welcome is None
    assert window.tabs.currentWidget() is window.canvas


@pytest.mark.parametrize("place, single, together", [
    ("a fast NVMe disk", 2.5e9, 3e9), ("tmpfs on a fast desktop", 5e9, 16e9), ("this machine's tmpfs", 7e8, 1.7e9),
    ("an HDD", 150e6, 150e6)])
def test_the_first_start_sweep_flags_none_of_its_own_steps_and_takes_about_half_a_minute_a_place(place, single,
                                                                                                 together):
    # the welcome's sweep through the real engine and dd plugin, on a disk played at a model
    # rate: with one 128 MiB file for every machine, a fast disk's and tmpfs's steps lasted
    # under dd's 0.2 s minimum and were flagged short (and an HDD would take minutes)
    import asyncio

    from brickyard.bench import registry
    from brickyard.bench.engine import TargetSpec, run_benchmark

    from ..bench.fakeagent import FakeDisk, model_disk

    host = FakeDisk(model_disk(single, together), free=400 << 30)
    values = {**welcome.LOCAL_SWEEP, "repeats": "3"}
    run = asyncio.run(run_benchmark(registry.find("dd", Path("/nonexistent")), values,
                                    [(TargetSpec(host.host, "/srv/x"), host)], link_bps=100e9))
    assert run.status.value == "complete" and len(run.steps) == 3 * 4 * 2, run.error
    flagged = [(s.label, s.flags) for s in run.steps if s.flags]
    assert not flagged, (place, flagged)
    io_seconds = sum(s.metric("elapsed").value for s in run.steps)
    print(place, f"{io_seconds:.1f} s of I/O")
    assert 5 < io_seconds < 40, (place, io_seconds)
