"""The Pre-flight tab against the lab: real SSH, real glusterd, a real client, and the one-dialog
trust of a new cluster's unknown host keys."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from brickyard.core.topology import Layout, VolumeType
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow

from .test_provision_lab import lab_volume_topology, ssh_config_knowing_no_keys


def test_preflight_tab_trusts_new_keys_in_one_dialog_then_checks_every_lab_host(lab, qtbot, tmp_path, monkeypatch):
    own = tmp_path / "brickyard_known_hosts"
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(own))
    config = ssh_config_knowing_no_keys(lab, tmp_path)  # a cluster seen for the first time
    name = "bypfui"
    topo = lab_volume_topology(lab, name, Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2),
                               [(1, 1), (2, 1), (3, 1), (4, 1)])
    window = MainWindow(topo, tmp_path / "settings.json", tmp_path / "autosave",
                        remote=RemoteBridge(ssh_config=config))
    qtbot.addWidget(window)
    asked: list[list[str]] = []

    def trust_all():
        modal = QApplication.activeModalWidget()
        if modal is None or modal.objectName() != "unknown-host-keys":
            QTimer.singleShot(20, trust_all)
            return
        asked.append([modal.table.item(r, 0).text().split()[0] for r in range(modal.table.rowCount())])
        for row in range(modal.table.rowCount()):
            modal.tick(row)
        qtbot.mouseClick(modal.trust_button, Qt.MouseButton.LeftButton)

    try:
        QTimer.singleShot(0, trust_all)
        view = window.open_preflight(run=True)
        assert view.selected_volume() == name
        hosts = ["node1", "node2", "node3", "node4", lab.clients[0]]

        def settled() -> bool:
            return (not view.running and view.report is not None
                    and all(h.host_key_error is None for h in view.report.hosts))

        qtbot.waitUntil(settled, timeout=120_000)
    finally:
        window.remote.close()
    assert asked == [hosts]
    assert len(own.read_text().splitlines()) == len(hosts)  # one stored key per host, nothing else
    by_host = {h.host: {c.name: c for c in h.checks} for h in view.report.hosts}
    assert list(by_host) == hosts
    for node in hosts[:4]:
        checks = by_host[node]
        for item in ("reachable", "authenticated", "root or sudo", "gluster", "glusterd", "clock"):
            assert checks[item].status == "ok", (node, checks[item])
        assert checks["peers"].status != "fail"
        assert "glusterfs 10" in checks["gluster"].message
        assert f"brick /srv/brick1/{name}" in checks
    assert by_host[lab.clients[0]]["FUSE client"].status == "ok"
    assert view.report.ok and "Ready to provision" in view.summary.text()
    rows = [view.tree.topLevelItem(i) for i in range(view.tree.topLevelItemCount())]
    assert [r.text(0).split()[0] for r in rows] == hosts
