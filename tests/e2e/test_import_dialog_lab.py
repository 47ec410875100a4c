"""Import from cluster… in the app, against the lab: a volume provisioned over SSH comes back
onto the canvas with its bricks, in order, and its layout."""

from __future__ import annotations

import json

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.core.topology import Layout, VolumeType
from brickyard.ui.cluster.import_dialog import run_import_dialog
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow

from .test_provision_lab import lab_volume_topology


def _cli(capsys, argv: list[str]) -> tuple[int, dict]:
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def test_the_import_dialog_draws_a_volume_provisioned_on_the_lab(lab, qtbot, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(tmp_path / "brickyard_known_hosts"))
    monkeypatch.setenv("BRICKYARD_QUIET", "1")
    name = "byimpui"
    layout = Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2)
    topo = lab_volume_topology(lab, name, layout, [(1, 1), (2, 1), (3, 1), (4, 1)])
    topo.require_volume(name).mounts = []  # no client mount: import reads the servers only
    path = tmp_path / "plan.brickyard.json"
    topofile.save(topo, path)
    ssh = ["--ssh-config", str(lab.ssh_config), "--json"]
    window = MainWindow(None, tmp_path / "settings.ini", tmp_path / "autosave")
    qtbot.addWidget(window)
    bridge = RemoteBridge(window, ssh_config=lab.ssh_config)
    statuses: list[str] = []

    def fill_and_import():
        for widget in QApplication.topLevelWidgets():
            if widget.objectName() == "import-dialog" and widget.isVisible():
                widget.sig_status.connect(statuses.append)
                widget.host_edit.setText("node1")
                widget.volume_edit.setText(name)
                widget.import_button.click()
                return
        QTimer.singleShot(20, fill_and_import)

    try:
        code, prov = _cli(capsys, ["provision", str(path), "--volume", name, "--yes", *ssh])
        assert code == 0 and prov["ok"], prov
        QTimer.singleShot(0, fill_and_import)
        assert run_import_dialog(window, bridge), statuses
        drawn = window.session.topo
        volume = drawn.require_volume(name)
        assert volume.bricks == topo.require_volume(name).bricks
        assert volume.layout.type is VolumeType.DISTRIBUTED_REPLICATE and volume.layout.replica == 2
        assert {f"node{i}" for i in range(1, 5)} <= set(window.canvas.board.nodes)
        assert all(b.size_bytes > 0 for n in drawn.nodes for b in n.bricks if b.path.endswith(name))
        assert window.statusBar().currentMessage().startswith("Imported 1 volume(s)")
        assert window.files.path is None and not window.files.dirty
    finally:
        bridge.close()
        code, down = _cli(capsys, ["teardown", str(path), "--volume", name, "--confirm", name, *ssh])
        assert code == 0 and down["ok"], down
