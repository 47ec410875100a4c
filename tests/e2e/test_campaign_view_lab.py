"""A layout campaign in the real window against the lab: three layouts ticked in Compare
layouts, the dd sweep picked in the Campaign tab, every layout pre-flighted, provisioned,
measured and torn down for real, and the decision table showing the three side by side with
measured figures. Sized small: one block size, one file vs two, one repeat.

With ``BRICKYARD_SHOTS=DIR`` (and a real X display) the window is grabbed mid-campaign and
at the decision table.
"""

from __future__ import annotations


from PySide6.QtCore import Qt

from brickyard.campaign.state import C_COMPLETE, DONE
from brickyard.core.decisiontable import MEASURED
from brickyard.core.topology import Layout, VolumeType
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow

from .shots import shot
from .test_provision_lab import lab_volume_topology

NAME = "bycamp"
PICKS = ("distribute", "replica 2", "disperse 4 redundancy 1")
WAIT_MS = 900_000



def test_a_three_layout_campaign_runs_from_the_window_and_ends_in_a_side_by_side_decision_table(
        lab, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(tmp_path / "known_hosts"))
    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'history.sqlite3'}")
    monkeypatch.setenv("BRICKYARD_LOCK_DIR", str(tmp_path / "locks"))
    topo = lab_volume_topology(lab, NAME, Layout(VolumeType.DISTRIBUTE), [(1, 1), (2, 1), (3, 1), (4, 1)])
    window = MainWindow(topo, tmp_path / "settings.ini", tmp_path / "autosave",
                        remote=RemoteBridge(ssh_config=lab.ssh_config))
    qtbot.addWidget(window)
    window.resize(1600, 1000)
    window.show()
    try:
        window.docks["compare"].raise_()
        qtbot.waitUntil(window.compare.isVisible)
        window.compare.finish()
        table = window.compare.table
        for row in range(table.rowCount()):
            if table.item(row, 0).text() in PICKS:
                table.item(row, 0).setCheckState(Qt.CheckState.Checked)
        qtbot.mouseClick(window.compare.campaign, Qt.MouseButton.LeftButton)
        view = window.campaign_view
        assert view.setup.chosen_layouts() and len(view.setup.chosen_layouts()) == 3
        view.setup.select_workload("dd")
        view.setup.form.set_texts({"block_sizes": "1M", "concurrency": "1,2", "size": "4M", "direction": "write"})
        assert view.setup.add_workload()
        view.setup.repeats.setValue(1)
        if view.questions.isVisible():
            view.ack_box.setChecked(True)
        assert view.start_button.isEnabled(), view.message.text()
        shot_taken = []

        def midway() -> bool:
            if (not shot_taken and view.grid.status_of(f"cell:{NAME}-dt2rp2:dd") == "running"
                    and view.chart.point_count > 0):
                shot(window, "campaign-mid")
                shot_taken.append(True)
            return not view.running

        with qtbot.waitSignal(view.sig_finished, timeout=WAIT_MS) as finished:
            qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
            qtbot.waitUntil(midway, timeout=WAIT_MS)
        state = finished.args[0]
        assert state.status == C_COMPLETE, (state.message, view.log.toPlainText()[-3000:])
        assert {view.grid.status_of(k) for k in view.grid.cells} == {DONE}
        assert state.provisioned == []
        decision = view.decision.table
        assert [r.key for r in decision.rows] == [f"{NAME}-dt4", f"{NAME}-dt2rp2", f"{NAME}-dp4rd1"]
        key = "tput:write:2:1048576"
        assert all(r.figure(key).source == MEASURED and r.figure(key).value > 0 for r in decision.rows)
        assert view.decision.redraw_chart() == 6          # three layouts side by side, single and two files
        # a done cell puts its figure first ("done: 398.0 MB/s" over "write 1M ×2")
        texts = [view.grid.cells[f"cell:{NAME}-{code}:dd"].text() for code in ("dt4", "dt2rp2", "dp4rd1")]
        assert all(t.startswith("done: ") and "write 1M ×2" in t.partition("\n")[2] for t in texts), texts
        assert view.tabs.currentWidget() is view.decision
        shot(window, "campaign-decision")
    finally:
        window.remote.close()
    listed = lab.ssh("node1", ["gluster", "--mode=script", "volume", "list"], check=False).stdout
    assert not [v for v in listed.split() if v.startswith(NAME)], f"volumes left: {listed}"
