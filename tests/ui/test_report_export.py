"""File ▸ Export PDF… reports what the tab in front shows: the planner's volume (with the
failure scenario on the canvas), the runs selected in History, a campaign, the decision
table's runs; the dialog edits title, author and paper and writes the file."""

from __future__ import annotations

import random

import pytest

from brickyard.campaign.state import CampaignState
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run
from brickyard.ui.mainwindow import MainWindow

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


def export(win, path, title=None, author=None, paper="letter"):
    dialog = win.export_report(exec_dialog=False)
    assert dialog is not None, win.statusBar().currentMessage()
    if title is not None:
        dialog.title.setText(title)
    if author is not None:
        dialog.author.setText(author)
    dialog.paper.setCurrentIndex(dialog.paper.findData(paper))
    dialog.path.setText(str(path))
    dialog.accept()
    assert dialog.result_info is not None, dialog.problem.text()
    return dialog


def test_export_from_the_planner_reports_the_volume_with_the_failure_scenario(window, tmp_path):
    window.session.toggle_failures(["n1"])
    menu_action = next(a for m in window.menuBar().actions() if m.text() == "&File"
                       for a in m.menu().actions() if a.objectName() == "export-report")
    assert menu_action.text() == "&Export PDF…"
    out = tmp_path / "plan.pdf"
    dialog = export(window, out, title="gv0 for the render farm", author="Ana Admin")
    text = " ".join(pdfcheck.text(out, raw=True).split())
    assert "gv0 for the render farm small · volume gv0" in text and "Ana Admin" in text
    assert "failure scenario n1" in text and "n1 FAILED" in text
    assert pdfcheck.page_size(out) == (612.0, 792.0)
    assert "Report written" in window.statusBar().currentMessage()
    assert dialog.result_info.pages == pdfcheck.pages(out)


def test_export_from_history_reports_the_selected_runs(window, tmp_path):
    rng = random.Random(5)
    runs = [synthetic_run(rng, layout=kind, started_at=1_760_000_000.0 + i) for i, kind in
            enumerate(("replica", "disperse"))]
    with HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}") as store:
        for run in runs:
            store.add_run(run)
    history = window.open_optional_view("&History", "brickyard.ui.history",
                                        __import__("brickyard.ui.mainwindow", fromlist=["x"])._history_view)
    assert window.export_report(exec_dialog=False) is None
    assert "Select runs in History" in window.statusBar().currentMessage()
    history.select_runs([r.run_id for r in runs])
    out = tmp_path / "runs.html"
    export(window, out)
    doc = out.read_text(encoding="utf-8")
    assert all(r.run_id[:12] in doc for r in runs)
    assert "History comparison" in doc and doc.count("<svg") >= 3


def test_export_from_a_campaign_tab_reports_its_campaign(window, tmp_path):
    store = window.history_store()
    cid = stored_campaign(store, tmp_path)
    view = window.open_campaign()
    assert window.export_report(exec_dialog=False) is None        # nothing started in this tab yet
    assert "has not started" in window.statusBar().currentMessage()
    view.state = CampaignState.fresh(cid, [])
    out = tmp_path / "campaign.pdf"
    export(window, out, paper="a4")
    page1 = " ".join(pdfcheck.text(out, 1, 1, layout=False).split())
    assert "GlusterFS layout decision: seed004-sandbox" in page1 and "dt2dp4rd1" in page1


def test_a_bad_file_name_is_said_in_the_dialog_and_nothing_is_written(window, tmp_path):
    dialog = window.export_report(exec_dialog=False)
    dialog.path.setText(str(tmp_path / "report.docx"))
    dialog.accept()
    assert dialog.result_info is None and ".pdf or .html" in dialog.problem.text()
    dialog.path.setText(str(tmp_path / "missing" / "report.pdf"))
    dialog.accept()
    assert dialog.result_info is None and "does not exist" in dialog.problem.text()
    assert list(tmp_path.glob("**/report.*")) == []


def test_export_from_the_decision_tab_reports_its_runs(window, tmp_path):
    rng = random.Random(6)
    runs = [synthetic_run(rng, layout=kind, started_at=1_760_000_000.0 + i) for i, kind in
            enumerate(("replica", "arbiter"))]
    with HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}") as store:
        for run in runs:
            store.add_run(run)
    view = window.open_decision([r.run_id for r in runs])
    assert window.tabs.currentWidget() is view
    out = tmp_path / "decision.pdf"
    dialog = export(window, out)
    assert dialog.content.kind == "runs" and set(dialog.content.run_ids) == {r.run_id for r in runs}
    assert pdfcheck.images(out) == []
