"""The loop the app exists for, in the real window against the lab: open the topology,
pre-flight, provision a volume, run dd from the Run tab and watch the live chart gain points,
find the run in History over an earlier run of the same volume, start a second run and cancel
it (no worker left on the client within 2 s, no file left), a third whose mount hangs for a
minute while the window keeps answering (it ends as stalled), tear the volume down.

With ``BRICKYARD_SHOTS=DIR`` (and a real X display) the window is grabbed mid-run and after.
"""

from __future__ import annotations

import json
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.core.topology import Layout, VolumeType
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow

from .shots import shot
from .test_bench_lab import _brick_pids
from .test_provision_lab import lab_volume_topology

NAME = "byrunui"
HANG_S = 60         # the mount hangs this long before the run ends as stalled
MOUNT = f"/mnt/{NAME}"
WAIT_MS = 180_000
SMALL = {"block_sizes": "64K,1M", "concurrency": "1,2", "size": "2M", "direction": "both", "repeats": "1",
         "min_step_seconds": "0"}



def _workers(lab) -> list[str]:
    """dd workers and Brickyard agents still running on the client."""
    out = lab.ssh(lab.clients[0], ["ps", "-eo", "pid,args"], check=False).stdout
    return [line.strip() for line in out.splitlines()
            if (f"of={MOUNT}/" in line or f"if={MOUNT}/" in line or "brickyard-agent" in line) and "ps -eo" not in line]


def _leftovers(lab) -> list[str]:
    return lab.ssh(lab.clients[0], ["ls", "-A", MOUNT], check=False).stdout.split()


def test_the_window_runs_dd_live_into_history_cancels_cleanly_and_tears_down(lab, qtbot, tmp_path, monkeypatch,
                                                                              capsys):
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(tmp_path / "known_hosts"))
    monkeypatch.setenv("BRICKYARD_DB", f"sqlite:///{tmp_path / 'history.sqlite3'}")
    monkeypatch.setenv("BRICKYARD_LOCK_DIR", str(tmp_path / "locks"))
    topo = lab_volume_topology(lab, NAME, Layout(VolumeType.DISTRIBUTE), [(1, 2), (2, 2)])
    path = tmp_path / "lab.brickyard.json"
    topofile.save(topo, path)
    window = MainWindow(None, tmp_path / "settings.ini", tmp_path / "autosave",
                        remote=RemoteBridge(ssh_config=lab.ssh_config))
    qtbot.addWidget(window)
    window.resize(1600, 1000)
    window.show()
    provisioned = torn_down = False
    try:
        window.files.open(path)
        assert window.session.volume_name == NAME

        # pre-flight, then provision through the Provision tab
        pre = window.open_preflight()
        with qtbot.waitSignal(pre.sig_finished, timeout=WAIT_MS) as checked:
            assert pre.run()
        assert checked.args[0] is not None and checked.args[0].ok, checked.args[0].text()
        prov = window.open_provision()
        assert prov.show_plan()
        if prov.plan.questions:
            prov.ack_box.setChecked(True)
        with qtbot.waitSignal(prov.sig_finished, timeout=WAIT_MS) as made:
            assert prov.provision()
        assert made.args[0] is not None and made.args[0].ok, prov.summary_text
        provisioned = True

        # an earlier run of the same volume and workload, saved from the terminal
        capsys.readouterr()
        code = main(["bench", "--target", f"{lab.clients[0]}:{MOUNT}", "--workload", "dd",
                     "--server", "node1", "--server", "node2",
                     *[f"--param={k}={v}" for k, v in SMALL.items()], "--save", "--json",
                     "--ssh-config", str(lab.ssh_config)])
        earlier = json.loads(capsys.readouterr().out)
        assert code == 0, earlier.get("error")

        # the Run tab: dd with small sizes, Start, points appear while it runs
        run_action = next(a for m in window.menuBar().actions() if m.text() == "&Cluster"
                          for a in m.menu().actions() if a.text() == "&Run benchmark…")
        run_action.trigger()
        view = window.run_view
        assert window.tabs.currentWidget() is view
        assert [t.text for t in view.targets.mount_targets()] == [f"{lab.clients[0]}:{MOUNT}"]
        assert view.select_workload("dd")
        view.form.set_texts(SMALL)
        assert view.start_button.isEnabled(), view.start_button.toolTip()
        with qtbot.waitSignal(view.sig_batch_finished, timeout=WAIT_MS) as finished:
            qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
            qtbot.waitUntil(lambda: view.live.chart.point_count > 0 or not view.running, timeout=WAIT_MS)
            seen_running = view.running
            points_mid = view.live.chart.point_count
            shot(window, "run-mid")
        assert seen_running and 0 < points_mid < 8, "the chart gains points while the run goes on"
        [run] = finished.args[0]
        assert run.status.value == "complete", run.error
        assert view.live.chart.point_count == 8 and view.live.state_kind == "complete"
        assert "complete: 8 steps measured" in view.live.state.text()

        # History opened over the earlier run of the same volume and workload, what differs first
        history = window.tabs.currentWidget()
        assert window.tabs.tabText(window.tabs.currentIndex()) == "History"
        assert [r.run_id for r in history.compare.runs] == [earlier["run_id"], run.run_id]
        shot(window, "run-history")

        # a second run, cancelled: no worker left within 2 s, no file left
        window.tabs.setCurrentWidget(view)
        view.form.set_texts({"block_sizes": "1M", "concurrency": "4", "size": "256M", "direction": "write",
                             "repeats": "3"})
        with qtbot.waitSignal(view.sig_batch_finished, timeout=WAIT_MS) as stopped:
            qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
            qtbot.waitUntil(lambda: any("of=" in w for w in _workers(lab)), timeout=WAIT_MS)
            qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
            cancelled_at = time.monotonic()
            left = _workers(lab)
            while left and time.monotonic() - cancelled_at < 2.0:
                qtbot.wait(100)
                left = _workers(lab)
            gone_after = time.monotonic() - cancelled_at
        assert not [w for w in left if "of=" in w], f"dd still running {gone_after:.1f} s after Cancel: {left}"
        [second] = stopped.args[0]
        assert view.live.state_kind == "cancelled" and second.error.startswith("cancelled by the user")
        qtbot.waitUntil(lambda: not _workers(lab), timeout=10_000)
        assert _leftovers(lab) == [], "only the run's files were there, and they are gone"

        # a third run whose mount hangs for a minute (its bricks frozen): the run ends as stalled
        # at its stall limit (30 s, under gluster's 42 s ping-timeout), naming the client, and the
        # window keeps answering the whole minute
        pids = _brick_pids(lab, NAME)
        assert set(pids) == {"node1", "node2"}, pids
        view.form.set_texts({"block_sizes": "64K", "concurrency": "2", "size": "300M", "direction": "write",
                             "repeats": "1", "stall_seconds": "30"})
        late: list[float] = []
        last = [time.monotonic()]

        def beat():
            now = time.monotonic()
            late.append(now - last[0] - 0.05)
            last[0] = now

        heart = QTimer()
        heart.timeout.connect(beat)
        frozen_at: list[float] = []
        try:
            with qtbot.waitSignal(view.sig_batch_finished, timeout=WAIT_MS) as hung:
                qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
                qtbot.waitUntil(lambda: bool(view.live.rate.samples) or not view.running, timeout=WAIT_MS)
                for node, pid in pids.items():
                    lab.exec(node, ["kill", "-STOP", pid])
                frozen_at.append(time.monotonic())
                last[0] = time.monotonic()
                heart.start(50)
                shown = view.live.state.text()
                qtbot.waitUntil(lambda: time.monotonic() - frozen_at[0] > 10, timeout=30_000)
                window.tabs.setCurrentIndex(0)              # the window answers clicks while the mount hangs
                assert window.tabs.currentIndex() == 0
                window.tabs.setCurrentWidget(view)
                assert view.live.state.text() != shown, "the elapsed time goes on while the mount hangs"
            stalled_after = time.monotonic() - frozen_at[0]
            assert view.start_button.isEnabled()           # the stalled run is over; the mount still hangs
            qtbot.waitUntil(lambda: time.monotonic() - frozen_at[0] >= HANG_S, timeout=HANG_S * 1000)
        finally:
            heart.stop()
            for node, pid in pids.items():
                lab.exec(node, ["kill", "-CONT", pid], check=False)
        hang = time.monotonic() - frozen_at[0]
        [stalled] = hung.args[0]
        assert view.live.state_kind == "stalled", view.live.state.text()
        assert window.tabs.currentWidget() is view, "a run that ended badly stays in view"
        assert f"stalled on {lab.clients[0]}" in view.live.state.text()
        assert 25 <= stalled_after < HANG_S and hang >= HANG_S, (stalled_after, hang)
        assert max(late) < 1.0, f"the GUI thread stood still for {max(late):.2f} s while the mount hung"
        shot(window, "run-stalled")
        lab.ssh(lab.clients[0], ["sh", "-c", f"rm -rf {MOUNT}/brickyard-*"], check=False, timeout=120)

        # tear down through the Provision tab's typed confirmation
        def confirm():
            modal = QApplication.activeModalWidget()
            if modal is None or modal.objectName() != "confirm-teardown":
                QTimer.singleShot(50, confirm)
                return
            qtbot.keyClicks(modal.name_edit, NAME)
            qtbot.mouseClick(modal.teardown_button, Qt.MouseButton.LeftButton)

        window.open_provision()
        QTimer.singleShot(50, confirm)
        with qtbot.waitSignal(prov.sig_finished, timeout=WAIT_MS) as down:
            assert prov.ask_teardown()
        assert down.args[0] is not None and down.args[0].ok, prov.summary_text
        torn_down = True
    finally:
        window.remote.close()
        if provisioned and not torn_down:
            monkeypatch.setenv("BRICKYARD_QUIET", "1")
            capsys.readouterr()
            main(["teardown", str(path), "--volume", NAME, "--confirm", NAME, "--json",
                  "--ssh-config", str(lab.ssh_config)])
    info = lab.ssh("node1", ["gluster", "volume", "info", NAME], check=False)
    assert info.returncode != 0, "the volume is gone"
