"""Reaching the lab from the window alone and importing a pool with no volume yet (issue 21
point 4): a fresh HOME (no ~/.ssh, no ssh-agent) and no --ssh-config; the Connection settings
page names an SSH config without keys or users, the lab's key as identity file and root as the
default user; Test logs in; then Import from cluster brings in the probed pool as four servers
with their brick filesystems and free space, and the client named, ready to plan the first
volume on. Before the page is set, the import fails saying how it tried."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from brickyard.core.plan import plan_volume
from brickyard.core.topology import BrickRef, Layout, Volume, VolumeType
from brickyard.ui.cluster.import_dialog import run_import_dialog
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow

from ..remote.sshd import new_users_home

WAIT_MS = 120_000


def keyless_config(lab, folder):
    """The lab's ssh_config with its IdentityFile, IdentitiesOnly and User lines taken out: what
    only maps names to addresses and host keys, as many admins' configs do."""
    text = lab.ssh_config.read_text()
    kept = [line for line in text.splitlines()
            if not re.match(r"\s*(IdentityFile|IdentitiesOnly|User)\b", line)]
    config = folder / "ssh_config"
    config.write_text("\n".join(kept) + "\n")
    return config


def find(name: str):
    return next((w for w in QApplication.topLevelWidgets() if w.objectName() == name and w.isVisible()), None)


def test_a_pool_with_no_volume_is_reached_from_the_window_alone_and_imported(lab, qtbot, tmp_path, monkeypatch):
    listed = lab.ssh("node1", ["gluster", "--mode=script", "volume", "list"], check=False)
    volumes = listed.stdout + listed.stderr
    assert "No volumes present" in volumes, f"the lab holds volumes another test left: {volumes}"
    lab.form_pool(lab.servers[:4])                       # peers, no volume
    new_users_home(tmp_path, monkeypatch)
    config = keyless_config(lab, tmp_path)
    key = lab.directory / "id_ed25519"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(key), ""))
    window = MainWindow(None, tmp_path / "settings.json", tmp_path / "autosave", remote=RemoteBridge())
    qtbot.addWidget(window)
    window.resize(1600, 900)
    window.show()
    window.open_welcome()
    steps: list[str] = []

    def walk() -> None:
        """The dialog's way through: a first try, the Connection settings, Test, Save, Import."""
        dialog = find("import-dialog")
        if dialog is None:
            QTimer.singleShot(50, walk)
            return
        if not steps:
            steps.append("first try")
            dialog.host_edit.setText("node1")
            qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
        elif steps[-1] == "first try" and not dialog.running:
            steps.append(dialog.status.text())                 # how it failed, without the page
            qtbot.mouseClick(dialog.connection_button, Qt.MouseButton.LeftButton)
        elif steps[-1].startswith("Import failed") and find("connection-settings") is not None:
            page = find("connection-settings")
            page.config_edit.setText(str(config))
            qtbot.mouseClick(page.findChild(type(page.test_button), "add-key"), Qt.MouseButton.LeftButton)
            page.user_edit.setText("root")
            page.test_edit.setText("node1")
            qtbot.mouseClick(page.test_button, Qt.MouseButton.LeftButton)
            steps.append("testing")
        elif steps[-1] == "testing":
            page = find("connection-settings")
            if page.status.text().startswith(("OK:", "node1:", "Not connected", "Cannot")):
                steps.append(page.status.text())
                qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
                dialog.clients_edit.setText("client1")
                qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
                steps.append("importing")
                return
        QTimer.singleShot(50, walk)

    QTimer.singleShot(0, walk)
    qtbot.mouseClick(window.welcome.import_button, Qt.MouseButton.LeftButton)
    # the welcome view's button ran the dialog to its end (run_import_dialog: exec)
    assert len(steps) >= 4, steps
    assert steps[1].startswith("Import failed: node1: "), steps[1]     # node1 means nothing without the config
    assert steps[3].startswith("OK: logged in to node1 as root@node1"), steps[3]
    topo = window.session.topo
    assert topo.volumes == []
    assert [n.name for n in topo.nodes] == ["node1", "node2", "node3", "node4"]
    for node in topo.nodes:
        assert [b.path for b in node.bricks] == ["/srv/brick1/brick", "/srv/brick2/brick"], node
        assert all(b.size_bytes > 900 * 2**20 and 0 < b.free_bytes <= b.size_bytes and b.fs_type == "xfs"
                   for b in node.bricks)
    assert [c.name for c in topo.clients] == ["client1"]
    assert window.statusBar().currentMessage().startswith("Imported a pool with no volume yet from node1: "
                                                          "4 server(s) with 8 brick filesystem(s) (")
    assert {f"node{i}" for i in range(1, 5)} <= set(window.canvas.board.nodes)
    # the first volume plans on it at once, its free space known
    plan = plan_volume(topo, Volume("gv0", Layout(VolumeType.DISPERSE, disperse=4, redundancy=1),
                                    [BrickRef(f"node{i}", "/srv/brick1/brick") for i in range(1, 5)]))
    assert not plan.errors and plan.capacity.usable_bytes > 0
    saved = (tmp_path / "settings.json").read_text()
    assert str(config) in saved and str(key) in saved and "password" not in saved.lower()
    window.remote.close()


def test_the_import_dialog_is_the_welcome_views_way_in(qtbot, tmp_path):
    """run_import_dialog is what the welcome button and Cluster ▸ Import from cluster… open."""
    window = MainWindow(None, tmp_path / "settings.json", tmp_path / "autosave", remote=RemoteBridge())
    qtbot.addWidget(window)
    window.open_welcome()
    seen = []

    def close():
        dialog = find("import-dialog")
        if dialog is None:
            QTimer.singleShot(50, close)
            return
        seen.append(dialog.reach_label.text())
        dialog.reject()

    QTimer.singleShot(0, close)
    assert not run_import_dialog(window)
    assert seen and seen[0].startswith("1. Reached as: SSH config")
    window.remote.close()
