"""The Provision tab against the lab: dry run, gluster's question acknowledged, a real volume
provisioned over SSH step by step (the new cluster's host keys trusted in one dialog before
the first change, then the run starts again), a re-run that skips, and teardown through the typed
confirmation leaving the bricks reusable.

With ``BRICKYARD_SHOTS=DIR`` (and a real X display) the tab is grabbed at each stage into DIR.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.core.topology import Layout, VolumeType
from brickyard.remote.hostkeys import UnknownHostKey
from brickyard.remote.steps import DONE, SKIPPED
from brickyard.ui.cluster.provision_view import ProvisionView
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.session import Session

from .test_provision_lab import lab_volume_topology, ssh_config_knowing_no_keys

NAME = "byprovui"
WAIT_MS = 180_000


def _shot(view, name: str) -> None:
    folder = os.environ.get("BRICKYARD_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        QApplication.processEvents()
        view.window().grab().save(str(Path(folder) / f"{name}.png"))


def _statuses(view) -> dict[str, str]:
    return {row.text(1): row.data(2, Qt.ItemDataRole.UserRole) for row in view._rows}


def _volume_info(lab) -> tuple[int, str]:
    result = lab.ssh("node1", ["gluster", "volume", "info", NAME], check=False)
    return result.returncode, result.stdout + result.stderr


def test_provision_tab_creates_reruns_and_tears_down_a_real_volume(lab, qtbot, tmp_path, monkeypatch, capsys):
    own = tmp_path / "brickyard_known_hosts"
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(own))
    config = ssh_config_knowing_no_keys(lab, tmp_path)  # a cluster seen for the first time
    topo = lab_volume_topology(lab, NAME, Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2),
                               [(1, 1), (2, 1), (3, 1), (4, 1)], {"performance.write-behind": "off"})
    path = tmp_path / "provui.brickyard.json"
    topofile.save(topo, path)
    bridge = RemoteBridge(ssh_config=config)
    view = ProvisionView(Session(topo), bridge)
    qtbot.addWidget(view)
    view.resize(1400, 860)
    view.show()
    torn_down = False
    try:
        # dry run: every command, nothing remote; replica 2 makes gluster ask about split-brain
        assert view.show_plan()
        assert _volume_info(lab)[0] != 0, "the dry run must not create anything"
        assert "split-brain" in view.question_text.text().lower() and not view.run_button.isEnabled()
        _shot(view, "1-dry-run")
        view.ack_box.setChecked(True)

        asked: list[list[str]] = []

        def trust():
            modal = QApplication.activeModalWidget()
            if modal is not None and modal.objectName() == "unknown-host-key":
                asked.append([modal.windowTitle().rpartition(": ")[2]])
                qtbot.mouseClick(modal.trust_button, Qt.MouseButton.LeftButton)
            elif modal is not None and modal.objectName() == "unknown-host-keys":
                asked.append([modal.table.item(r, 0).text().split()[0] for r in range(modal.table.rowCount())])
                for row in range(modal.table.rowCount()):
                    modal.tick(row)
                qtbot.mouseClick(modal.trust_button, Qt.MouseButton.LeftButton)

        poller = QTimer()
        poller.timeout.connect(trust)
        poller.start(50)
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "running" in _statuses(view).values() or not view.running, timeout=WAIT_MS)
        _shot(view, "2-running")
        qtbot.waitUntil(lambda: not view.running and view.report is not None
                        and not isinstance(getattr(view.report.failed, "error", None), UnknownHostKey),
                        timeout=WAIT_MS)
        poller.stop()
        report = view.report
        assert report.ok, view.summary_text
        # every host is reached before the first change: all five keys in one question, then
        # the run went on by itself
        assert asked == [["node1", "node2", "node3", "node4", lab.clients[0]]]
        assert len(own.read_text().splitlines()) == 5
        _shot(view, "3-provisioned")
        statuses = _statuses(view)
        assert statuses[f"create volume {NAME}"] == statuses[f"start volume {NAME}"] == DONE
        assert statuses[f"mount node1:/{NAME} on /mnt/{NAME}"] == DONE
        code, info = _volume_info(lab)
        assert code == 0 and "Status: Started" in info and "Number of Bricks: 2 x 2 = 4" in info, info
        mounted = lab.ssh(lab.clients[0], ["findmnt", "-n", "-o", "SOURCE", f"/mnt/{NAME}"], check=False)
        assert mounted.stdout.strip() == f"node1:/{NAME}"

        # a re-run finds everything done: the table says skipped
        with qtbot.waitSignal(view.sig_finished, timeout=WAIT_MS) as again:
            assert view.provision()
        assert again.args[0].ok
        statuses = _statuses(view)
        assert {s for step, s in statuses.items() if not step.startswith("wait until")} == {SKIPPED}, statuses
        _shot(view, "4-rerun-skipped")

        # teardown through the typed confirmation
        def confirm():
            modal = QApplication.activeModalWidget()
            if modal is None or modal.objectName() != "confirm-teardown":
                QTimer.singleShot(50, confirm)
                return
            assert not modal.teardown_button.isEnabled()
            qtbot.keyClicks(modal.name_edit, NAME)
            assert modal.teardown_button.isEnabled()
            if os.environ.get("BRICKYARD_SHOTS"):
                QApplication.processEvents()
                modal.grab().save(str(Path(os.environ["BRICKYARD_SHOTS"]) / "5-teardown-confirm.png"))
            qtbot.mouseClick(modal.teardown_button, Qt.MouseButton.LeftButton)

        QTimer.singleShot(50, confirm)
        with qtbot.waitSignal(view.sig_finished, timeout=WAIT_MS) as down:
            assert view.ask_teardown()
        assert down.args[0].ok, view.summary_text
        torn_down = True
        _shot(view, "6-torn-down")
        assert _volume_info(lab)[0] != 0
    finally:
        bridge.close()
        if not torn_down:  # the UI path failed: clean the lab up through the CLI
            monkeypatch.setenv("BRICKYARD_QUIET", "1")
            capsys.readouterr()
            code = main(["teardown", str(path), "--volume", NAME, "--confirm", NAME, "--json",
                         "--ssh-config", str(lab.ssh_config)])
            doc = json.loads(capsys.readouterr().out or "{}")
            assert code == 0, doc
    # the bricks are reusable: the directories Brickyard made and their markers are gone
    for ref in topo.require_volume(NAME).bricks:
        parent, _, base = ref.path.rpartition("/")
        either = lab.ssh(ref.node, ["sh", "-c", 'test -e "$1" || test -e "$2"', "sh", ref.path,
                                    f"{parent}/.{base}.brickyard-created"], check=False)
        assert either.returncode == 1, f"{ref} or its marker is still there"
