"""The throughput model in the window: the layout panel and Compare layouts say whether a
figure is an estimate or a prediction (and what bounds it); Calibrate throughput model…
calibrates on stored runs or files and refuses a bad source with the reason; History's
Model check tab lists each measured point beside its prediction."""

from __future__ import annotations

import json
import random

from PySide6.QtCore import Qt

from brickyard.core import calibration, calibration_file
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run
from brickyard.ui.frame.mainwindow import MainWindow
from brickyard.ui.history import HistoryWindow
from brickyard.ui.planner.calibrate_dialog import CalibrateDialog
from brickyard.ui.planner.panels.verdict_panel import VerdictPanel

from .helpers import open_window, show_active

CAL = {"format_version": 1, "name": "bench dt", "layout": {"type": "distribute"},
       "measurements": [{"direction": "write", "concurrency": 1, "block_size": "16M", "throughput": "150MB/s"},
                        {"direction": "write", "concurrency": 8, "block_size": "16M", "throughput": "600MB/s"}]}


def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path)


def test_uncalibrated_figures_say_estimate_and_calibrated_ones_predicted(qtbot, tmp_path):
    win = window(qtbot, tmp_path)
    session = win.session
    panel = win.findChildren(VerdictPanel)[0]
    assert panel.estimate_group.title() == "Throughput estimate (uncalibrated)"
    assert "client" in panel.estimate.text() or "brick" in panel.estimate.text()
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(CAL))
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    dialog = CalibrateDialog(session, store, win)
    qtbot.addWidget(dialog)
    dialog.add_file(str(path))
    assert dialog.apply()
    assert panel.estimate_group.title() == "Throughput predicted"
    assert "predicted (calibrated on bench dt)" in panel.estimate.text()
    assert "predicted (calibrated on bench dt)" in dialog.result.text()
    # Compare layouts: every row planned with the calibrated model, each figure explained
    compare = win.compare
    win.docks["compare"].raise_()
    compare.finish()
    assert "predicted (calibrated on bench dt)" in compare.status.text()
    tip = compare.table.item(0, 6).toolTip()
    assert tip.startswith("predicted (calibrated on bench dt)") and "bound by" in tip and "range" in tip
    dialog.clear_calibration()
    assert session.model() is None and panel.estimate_group.title() == "Throughput estimate (uncalibrated)"
    store.close()


def test_a_bad_calibration_source_is_refused_with_its_reason_and_changes_nothing(qtbot, tmp_path):
    win = window(qtbot, tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format_version": 1, "layout": {"type": "stripe"}, "measurements": []}')
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    dialog = CalibrateDialog(win.session, store, win)
    qtbot.addWidget(dialog)
    dialog.add_file(str(bad))
    assert not dialog.apply()
    assert "layout.type" in dialog.result.text() and win.session.model() is None
    store.close()


def test_stored_runs_are_offered_and_calibrate_when_ticked(qtbot, tmp_path):
    win = window(qtbot, tmp_path)
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    run = synthetic_run(random.Random(3), layout="distribute")
    store.add_run(run)
    dialog = CalibrateDialog(win.session, store, win)
    qtbot.addWidget(dialog)
    assert dialog.runs.rowCount() == 1 and dialog.runs.item(0, 2).text() == run.run_id[:12]
    dialog.runs.item(0, 0).setCheckState(Qt.CheckState.Checked)
    assert dialog.apply()
    assert win.session.model().calibrated_on == (f"gv0 run {run.run_id[:12]}",)
    store.close()


def model_check_of(qtbot, tmp_path, runs):
    """History's Model check tab over ``runs``, stored in a fresh history: (the tab, the store)."""
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    for r in runs:
        store.add_run(r)
    window = HistoryWindow(store)
    qtbot.addWidget(window)
    view = window.view
    view.show_runs([r.run_id for r in runs])
    view.right.setCurrentWidget(view.model_check)
    return view.model_check, store


def test_history_model_check_predicts_each_layout_from_the_others(qtbot, tmp_path):
    runs = [synthetic_run(random.Random(1), layout="distribute"), synthetic_run(random.Random(2), layout="replica")]
    check, store = model_check_of(qtbot, tmp_path, runs)
    rows = check.rows
    assert rows and len({r.layout for r in rows}) == 2
    assert all("calibrated on" in r.model and not r.fitted_on_it for r in rows)
    assert check.table.rowCount() == len(rows)
    assert "predicted from the other layouts' runs" in check.summary.text()
    store.close()


def test_calibration_inputs_are_what_the_session_fits(qtbot, tmp_path):
    win = window(qtbot, tmp_path)
    assert win.session.model() is None
    win.session.set_calibration(calibration.Inputs())
    assert win.session.model() is None


def probe_run(hosts):
    """A stored probe run: TCP from the client to each server (on the client's kernel)."""
    from dataclasses import replace as dc_replace

    from brickyard.core.results import Metric, RunResult, RunStatus, StepResult

    base = synthetic_run(random.Random(9), layout="distribute")
    steps = [StepResult(i, {"probe": "tcp", "scope": "alone", "direction": "write", "host": "client1", "to": h,
                            "servers": [h], "concurrency": 1, "repeat": 0, "bytes": 1 << 20, "same_kernel": [h]},
                        0, (), (Metric("throughput", 500e6, "B/s"),)) for i, h in enumerate(hosts)]
    prov = dc_replace(base.provenance, target="client1:/tmp", target_kind="local", volume_name="", layout={})
    return RunResult("probe" + base.run_id[5:], "probe", RunStatus.COMPLETE, base.started_at - 60,
                     base.started_at - 30, prov, steps)


def test_history_model_check_uses_a_probe_run_among_the_compared_ones(qtbot, tmp_path):
    runs = [synthetic_run(random.Random(1), layout="distribute"), synthetic_run(random.Random(2), layout="replica")]
    hosts = sorted({b.partition(":")[0] for b in runs[0].provenance.layout.get("bricks", [])}) or ["gfs1", "gfs2"]
    runs.append(probe_run(hosts))
    check, store = model_check_of(qtbot, tmp_path, runs)
    rows = check.rows
    assert rows and all(f"probe {runs[2].run_id[:12]}" in r.model for r in rows)
    assert f"and probe run {runs[2].run_id[:12]}" in check.summary.text()
    store.close()


def test_the_layout_panel_says_how_the_shared_cpus_rpc_cost_was_found(qtbot, tmp_path):
    # it used to say "one calibrated layout cannot say what each brick RPC costs there" even
    # after the fit derived that cost from the calibration layout
    from brickyard.core import modelinputs

    win = window(qtbot, tmp_path)
    panel = win.findChildren(VerdictPanel)[0]
    gv0 = win.session.topo.volumes[0]
    cf = calibration_file.parse_file(json.dumps(CAL), "bench dt")
    inputs = modelinputs.inputs_from_file(cf, win.session.topo, gv0.bricks)
    shared = calibration.Inputs((), modelinputs.shared_cpu_costs("p1", ["n1", "n2"], 1.5e9, 2e9), ("probe p1",),
                                ("probe p1: n1, n2 run on the client's own kernel, so on its CPUs",))
    win.session.set_calibration(inputs + shared)
    assert "derived from the calibration layout (an assumed split)" in panel.estimate.text()
    win.session.set_calibration(inputs + calibration.Inputs((), modelinputs.shared_cpu_costs("p1", ["n1"]),
                                                            ("probe p1",), shared.notes))
    assert "is not known; the range allows for it" in panel.estimate.text()


def test_the_calibrate_dialog_asks_for_the_admins_file_count_and_block_sizes(qtbot, tmp_path):
    """As brickyard plan --concurrency N --block-size B: every planner view answers for them."""
    win = window(qtbot, tmp_path)
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    dialog = CalibrateDialog(win.session, store, win)
    qtbot.addWidget(dialog)
    assert dialog.files_at_once.value() == 8 and dialog.block_sizes.text() == "4K,64K,1M"
    dialog.files_at_once.setValue(3)
    dialog.block_sizes.setText("4M, 16K")
    assert dialog.apply_question()
    est = win.session.plan.estimate
    assert est.concurrency == 3 and est.block_sizes == (16384, 4 << 20)
    assert {p.concurrency for p in est.predictions} == {1, 3}
    assert "at 4M:" in dialog.result.text() and "3 files" in dialog.result.text()
    panel = win.findChildren(VerdictPanel)[0]
    assert "3 files" in panel.estimate.text()
    compare = win.compare
    win.docks["compare"].raise_()
    compare.finish()
    assert "3 files at once" in compare.table.item(0, 8).toolTip()
    dialog.block_sizes.setText("4Q")
    assert not dialog.apply_question()
    assert "4Q" in dialog.result.text() and win.session.question.block_sizes == (16384, 4 << 20)
    store.close()


def test_a_noisy_calibration_warns_in_the_dialog_and_the_layout_panel(qtbot, tmp_path):
    win = window(qtbot, tmp_path)
    noisy = {**CAL, "measurements": [
        {"direction": "write", "concurrency": 1, "block_size": "1M", "throughput": "150MB/s"},
        {"direction": "write", "concurrency": 1, "block_size": "4M", "throughput": "60MB/s"},
        {"direction": "write", "concurrency": 1, "block_size": "16M", "throughput": "160MB/s"},
        {"direction": "write", "concurrency": 8, "block_size": "16M", "throughput": "600MB/s"}]}
    path = tmp_path / "noisy.json"
    path.write_text(json.dumps(noisy))
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    dialog = CalibrateDialog(win.session, store, win)
    qtbot.addWidget(dialog)
    dialog.add_file(str(path))
    assert dialog.apply()
    assert "does not fit its own inputs" in dialog.result.text() and "4M blocks: measured 60.0 MB/s" in dialog.result.text()
    panel = win.findChildren(VerdictPanel)[0]
    assert "noisy or misses its own figures" in panel.estimate.text()
    assert "warning: the calibration does not fit" in panel.estimate.toolTip()
    store.close()


def test_the_layout_panel_predicts_the_small_file_extract_at_the_topologys_rtts(qtbot, tmp_path):
    from brickyard.core import topofile
    from brickyard.ui.frame.mainwindow import MainWindow as Window

    from tests.conftest import EXAMPLES

    win = Window(topofile.load(EXAMPLES / "three-site.brickyard.json"), tmp_path / "s.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    text = win.findChildren(VerdictPanel)[0].estimate.text()
    assert "small files (replica)" in text and "round trips × 25.4 ms RTT" in text and "uncached lstat" in text


def test_small_file_runs_are_offered_and_calibrate_the_small_file_figures(qtbot, tmp_path):
    """Issue 23 part 2 in the window: a smallfile run at the cluster's own RTT and one at 8 ms,
    ticked in Calibrate, measure the extract's local cost and round trips; the layout panel's
    small-file line says what it is calibrated on (the throughput stays an estimate)."""
    from brickyard.core import topofile
    from brickyard.store.synthetic import synthetic_small_file_run
    from tests.conftest import EXAMPLES

    win = MainWindow(topofile.load(EXAMPLES / "three-site.brickyard.json"), tmp_path / "s.ini", tmp_path / "autosave")
    show_active(qtbot, win)
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    near = synthetic_small_file_run([3.0 + 10 * 0.2], rtt_ms={"gfs1": 0.2, "gfs2": 0.2, "gfs3": 0.2}, seed=1)
    far = synthetic_small_file_run([3.0 + 10 * 8.0], rtt_ms={"gfs1": 0.2, "gfs2": 0.2, "gfs3": 8.0}, seed=2)
    for r in (near, far):
        store.add_run(r)
    dialog = CalibrateDialog(win.session, store, win)
    qtbot.addWidget(dialog)
    assert {dialog.runs.item(i, 3).text() for i in range(dialog.runs.rowCount())} == {"smallfile"}
    for i in range(dialog.runs.rowCount()):
        dialog.runs.item(i, 0).setCheckState(Qt.CheckState.Checked)
    assert dialog.apply()
    assert "small files calibrated on smallfile run" in dialog.result.text()
    assert "extract on replica: 3 ms + 10 round trips × RTT (fitted)" in dialog.result.text()
    text = win.findChildren(VerdictPanel)[0].estimate.text()
    assert "3.00 ms + 10 round trips × 25.4 ms RTT" in text and "calibrated on smallfile run" in text
    assert win.findChildren(VerdictPanel)[0].estimate_group.title() == "Throughput estimate (uncalibrated)"
    store.close()


def test_repeat_interleaved_writes_the_ticked_runs_campaign_with_their_layout_between_the_others(qtbot, tmp_path,
                                                                                                 monkeypatch):
    """The remedy the calibration's warnings name, as a button: the campaign the ticked runs came
    from, written again with their layout three times (a copy's run names its base layout)."""
    from PySide6.QtWidgets import QFileDialog

    from brickyard.campaign import load
    from brickyard.core import topofile

    from ..campaign.test_spec import good, lab_topology

    win = window(qtbot, tmp_path)
    store = HistoryStore(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    run = synthetic_run(random.Random(3), layout="distribute")
    store.add_run(run)
    spec = good(layouts=[{"name": "dt8", "type": "distribute"}, {"name": "dt8-2", "type": "distribute"},
                         {"name": "dt4rp2", "type": "distributed-replicate", "replica": 2}])
    store.campaigns.create("c" * 32, "t", str(tmp_path / "c.campaign.json"), "0" * 64, spec,
                           topofile.to_dict(lab_topology()), {}, "done")
    dialog = CalibrateDialog(win.session, store, win)
    qtbot.addWidget(dialog)
    dialog.runs.item(0, 0).setCheckState(Qt.CheckState.Checked)
    # a run no campaign measured: said so, nothing asked
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (asked.append(a), (str(out), ""))[1])
    out = tmp_path / "again" / "dt8-interleaved.campaign.json"
    out.parent.mkdir()
    assert not dialog.interleave_dialog() and not asked
    assert "tick runs a campaign measured" in dialog.result.text()
    store.campaigns.tag_run(run.run_id, "c" * 32, "cell:dt8-2:dd")
    qtbot.mouseClick(dialog.interleave, Qt.MouseButton.LeftButton)
    assert asked and "Wrote" in dialog.result.text() and "dt8 three times" in dialog.result.text()
    again = load(out)       # ready to run: its topology written beside it; the old copy spread again
    assert [v.name for v in again.layouts] == ["dt8", "dt4rp2", "dt8-2", "dt8-3"]
    assert (out.parent / "dt8-interleaved.topology.brickyard.json").exists()
    store.close()
