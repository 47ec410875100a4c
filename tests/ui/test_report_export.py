"""File ▸ Export PDF… reports what the tab in front shows: the planner's volume (with the
failure scenario on the canvas), the runs selected in History, a campaign, the decision
table's runs; the dialog edits title, author and paper and writes the file."""

from __future__ import annotations

import os
import random

import pytest

from brickyard.campaign.state import CampaignState
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run
from brickyard.ui.frame.mainwindow import MainWindow

from ..report import pdfcheck
from ..report.helpers import stored_campaign
from .helpers import small_topology


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'h.sqlite3'}")
    win = MainWindow(small_topology(), tmp_path / "settings.ini", tmp_path / "autosave")
    qtbot.addWidget(win)
    yield win
    win.remote.close()


def open_dialog(qtbot, win):
    """The export dialog of the tab in front, once its writer has prepared the content."""
    dialog = win.export_report(show=False)
    assert dialog is not None, win.statusBar().currentMessage()
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.prepared is not None or bool(dialog.problem.text()), timeout=120_000)
    assert dialog.prepared is not None, dialog.problem.text()
    return dialog


def press_export(qtbot, dialog, timeout=180_000):
    with qtbot.waitSignal(dialog.sig_finished, timeout=timeout):
        dialog.export_button.click()


def export(qtbot, win, path, title=None, author=None, paper="letter"):
    dialog = open_dialog(qtbot, win)
    if title is not None:
        dialog.title.setText(title)
    if author is not None:
        dialog.author.setText(author)
    dialog.paper.setCurrentIndex(dialog.paper.findData(paper))
    dialog.path.setText(str(path))
    press_export(qtbot, dialog)
    assert dialog.result_info is not None, dialog.problem.text()
    return dialog


def test_export_from_the_planner_reports_the_volume_with_the_failure_scenario(qtbot, window, tmp_path):
    window.session.toggle_failures(["n1"])
    menu_action = next(a for m in window.menuBar().actions() if m.text() == "&File"
                       for a in m.menu().actions() if a.objectName() == "export-report")
    assert menu_action.text() == "&Export PDF…"
    out = tmp_path / "plan.pdf"
    dialog = export(qtbot, window, out, title="gv0 for the render farm", author="Ana Admin")
    text = " ".join(pdfcheck.text(out, raw=True).split())
    assert "gv0 for the render farm small · volume gv0" in text and "Ana Admin" in text
    assert "failure scenario n1" in text and "n1 FAILED" in text
    assert pdfcheck.page_size(out) == (612.0, 792.0)
    assert "Report written" in window.statusBar().currentMessage()
    assert dialog.result_info.pages == pdfcheck.pages(out)


def stored_runs(tmp_path, seed: int, layouts: tuple[str, ...]) -> list:
    """One synthetic run a layout, a second apart, in the window fixture's history database."""
    rng = random.Random(seed)
    runs = [synthetic_run(rng, layout=kind, started_at=1_760_000_000.0 + i) for i, kind in enumerate(layouts)]
    with HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}") as store:
        for run in runs:
            store.add_run(run)
    return runs


def test_export_from_history_reports_the_selected_runs(qtbot, window, tmp_path):
    runs = stored_runs(tmp_path, 5, ("replica", "disperse"))
    history = window.open_optional_view("&History", "brickyard.ui.history",
                                        __import__("brickyard.ui.frame.mainwindow", fromlist=["x"])._history_view)
    assert window.export_report(show=False) is None
    assert "Select runs in History" in window.statusBar().currentMessage()
    history.select_runs([r.run_id for r in runs])
    out = tmp_path / "runs.html"
    export(qtbot, window, out)
    doc = out.read_text(encoding="utf-8")
    assert all(r.run_id[:12] in doc for r in runs)
    assert "History comparison" in doc and doc.count("<svg") >= 3


def test_export_from_a_campaign_tab_reports_its_campaign(qtbot, window, tmp_path):
    store = window.history_store()
    cid = stored_campaign(store, tmp_path)
    view = window.open_campaign()
    assert window.export_report(show=False) is None        # nothing started in this tab yet
    assert "has not started" in window.statusBar().currentMessage()
    view.state = CampaignState.fresh(cid, [])
    out = tmp_path / "campaign.pdf"
    export(qtbot, window, out, paper="a4")
    page1 = " ".join(pdfcheck.text(out, 1, 1, layout=False).split())
    assert "GlusterFS layout decision: seed004-sandbox" in page1 and "dt2dp4rd1" in page1


def test_a_bad_file_name_is_said_in_the_dialog_and_nothing_is_written(qtbot, window, tmp_path):
    dialog = open_dialog(qtbot, window)
    dialog.path.setText(str(tmp_path / "report.docx"))
    dialog.accept()
    assert dialog.result_info is None and ".pdf or .html" in dialog.problem.text() and not dialog.writing
    dialog.path.setText(str(tmp_path / "missing" / "report.pdf"))
    dialog.accept()
    assert dialog.result_info is None and "does not exist" in dialog.problem.text()
    assert list(tmp_path.glob("**/report.*")) == []


def test_export_from_the_decision_tab_reports_its_runs(qtbot, window, tmp_path):
    runs = stored_runs(tmp_path, 6, ("replica", "arbiter"))
    view = window.open_decision([r.run_id for r in runs])
    assert window.tabs.currentWidget() is view
    out = tmp_path / "decision.pdf"
    dialog = export(qtbot, window, out)
    assert dialog.prepared["kind"] == "runs" and set(dialog.prepared["runs"]) == {r.run_id for r in runs}
    assert pdfcheck.images(out) == []


# ---------------------------------------------------------------- a large export, off the GUI thread

LAYOUTS = ("replica", "arbiter", "disperse", "distribute")


@pytest.fixture(scope="module")
def many_runs(tmp_path_factory):
    """A history of 40 dd sweeps over four layouts (a report of ~80 pages): its URL and ids."""
    db = tmp_path_factory.mktemp("many") / "h.sqlite3"
    rng = random.Random(11)
    with HistoryStore(f"sqlite:///{db}") as store:
        runs = [synthetic_run(rng, layout=LAYOUTS[i % 4], started_at=1_760_000_000.0 + 3600 * i,
                              speedup=1 + (i % 4) / 3, directions=("write", "read")) for i in range(40)]
        for run in runs:
            store.add_run(run)
    return f"sqlite:///{db}", [r.run_id for r in runs]


@pytest.fixture
def history_of_many(qtbot, tmp_path, monkeypatch, many_runs):
    url, ids = many_runs
    monkeypatch.setenv("BRICKYARD_DB", url)
    win = MainWindow(small_topology(), tmp_path / "settings.ini", tmp_path / "autosave")
    qtbot.addWidget(win)
    history = win.open_optional_view("&History", "brickyard.ui.history",
                                     __import__("brickyard.ui.frame.mainwindow", fromlist=["x"])._history_view)
    history.select_runs(ids)
    yield win
    win.remote.close()


class StallProbe:
    """The GUI thread's longest stall: a 10 ms timer on it notes the gaps between its ticks."""

    def __init__(self):
        from PySide6.QtCore import QElapsedTimer, QTimer

        self.clock = QElapsedTimer()
        self.clock.start()
        self.last = 0
        self.longest = 0
        self.ticks = 0
        self.timer = QTimer()
        self.timer.timeout.connect(self._tick)
        self.timer.start(10)

    def _tick(self):
        now = self.clock.elapsed()
        self.longest = max(self.longest, now - self.last)
        self.last = now
        self.ticks += 1

    def stop(self) -> float:
        self.timer.stop()
        return self.longest / 1000


def test_a_large_export_leaves_the_window_responsive_with_progress(qtbot, history_of_many, tmp_path):
    import time

    window = history_of_many
    probe = StallProbe()
    began = time.monotonic()
    dialog = window.export_report(show=False)
    qtbot.addWidget(dialog)
    phases = []
    dialog.writer.sig_progress.connect(lambda phase, f, text: phases.append((phase, f, text)))
    dialog.path.setText(str(tmp_path / "forty.pdf"))
    press_export(qtbot, dialog)        # pressed at once: written as soon as it is prepared
    took = time.monotonic() - began
    longest = probe.stop()
    assert dialog.result_info is not None, dialog.problem.text()
    assert dialog.result_info.pages == pdfcheck.pages(tmp_path / "forty.pdf") >= 40
    assert "Report written" in window.statusBar().currentMessage()
    # the work took seconds; the GUI thread never stopped for more than a fraction of one
    assert took > 2.0 and longest < 0.4, (took, longest)
    assert {p for p, _, _ in phases} == {"prepare", "write"}
    assert any("comparing run" in t for _, _, t in phases) and any("painting page" in t for _, _, t in phases)
    fractions = [f for p, f, _ in phases if p == "write"]
    assert fractions == sorted(fractions)


def test_cancel_stops_the_writing_leaves_nothing_and_the_next_export_starts_at_once(qtbot, history_of_many,
                                                                                      tmp_path):
    dialog = open_dialog(qtbot, history_of_many)
    pid = dialog.writer.process.processId()
    out = tmp_path / "out" / "forty.pdf"
    out.parent.mkdir()
    out.write_bytes(b"the report from last week")
    dialog.path.setText(str(out))
    asked = []

    def stop_on_a_page(phase, fraction, text):
        if phase == "write" and text.startswith("painting page") and not asked:
            asked.append(text)
            dialog.cancel_button.click()
    dialog.writer.sig_progress.connect(stop_on_a_page)
    press_export(qtbot, dialog)
    assert asked and dialog.result_info is None and not dialog.writing
    assert "Stopped: nothing was written" in dialog.status.text()
    assert out.read_bytes() == b"the report from last week"
    assert sorted(p.name for p in out.parent.iterdir()) == ["forty.pdf"]        # no temporary file
    assert dialog.title.isEnabled() and dialog.export_button.isEnabled()
    dialog.writer.sig_progress.disconnect(stop_on_a_page)
    other = tmp_path / "out" / "forty.html"
    dialog.path.setText(str(other))
    press_export(qtbot, dialog)
    assert dialog.result_info is not None and other.stat().st_size > 10_000
    assert dialog.writer.process.processId() in (pid, 0)           # the same writer: prepared once


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs (a full disk, a read-only folder) needs root")
@pytest.mark.parametrize("full,words", [(True, "the disk is full (No space left on device)"),
                                        (False, "is on a read-only filesystem")])
def test_a_file_that_cannot_be_written_is_said_and_nothing_typed_is_lost(qtbot, window, tmp_path, full, words):
    from ..report.helpers import small_tmpfs

    window.session.toggle_failures(["n1"])
    dialog = open_dialog(qtbot, window)
    dialog.title.setText("gv0 for the render farm")
    dialog.author.setText("Ana Admin")
    with small_tmpfs(tmp_path / "mnt", full=full) as folder:
        before = sorted(p.name for p in folder.iterdir())
        dialog.path.setText(str(folder / "plan.pdf"))
        press_export(qtbot, dialog)
        assert dialog.result_info is None
        assert "Not written: cannot write" in dialog.problem.text() and words in dialog.problem.text()
        assert sorted(p.name for p in folder.iterdir()) == before
    assert (dialog.title.text(), dialog.author.text()) == ("gv0 for the render farm", "Ana Admin")
    assert dialog.title.isEnabled() and dialog.export_button.isEnabled()
    dialog.path.setText(str(tmp_path / "plan.pdf"))
    press_export(qtbot, dialog)
    assert dialog.result_info is not None and "gv0 for the render farm" in pdfcheck.text(tmp_path / "plan.pdf")


def test_a_writer_that_dies_mid_write_is_said_and_export_again_starts_a_new_one(qtbot, history_of_many, tmp_path):
    import signal

    dialog = open_dialog(qtbot, history_of_many)
    dialog.title.setText("forty runs for the board")
    out = tmp_path / "forty.pdf"
    dialog.path.setText(str(out))
    first = dialog.writer.process.processId()
    killed = []

    def kill_on_a_page(phase, fraction, text):
        if phase == "write" and text.startswith("painting page") and not killed:
            killed.append(text)
            os.kill(first, signal.SIGKILL)           # the writer this test's dialog started
    dialog.writer.sig_progress.connect(kill_on_a_page)
    press_export(qtbot, dialog)
    assert killed and dialog.result_info is None and not dialog.writing
    assert "the report writer crashed" in dialog.problem.text() and "Export tries again" in dialog.problem.text()
    assert not out.exists() and list(tmp_path.glob(".forty.pdf*")) == []
    assert dialog.title.text() == "forty runs for the board" and dialog.export_button.isEnabled()
    dialog.writer.sig_progress.disconnect(kill_on_a_page)
    writers = set()
    dialog.writer.sig_progress.connect(lambda *_: writers.add(dialog.writer.process.processId()))
    press_export(qtbot, dialog)
    assert dialog.result_info is not None, dialog.problem.text()
    assert writers and first not in writers                  # a new writer prepared and wrote it
    assert "forty runs for the board" in pdfcheck.text(out, 1, 1)
