"""The Change tab walked on the lab with keys and mouse, as an admin walks it: a distribute volume
imported from the cluster and expanded onto a third server, and a replica-3 volume opened from
its topology file with one brick replaced by a brick on a server outside the pool. A corpus is
written through the client mount before each change and checked byte for byte after it; the
rebalance or heal is read back from gluster, the client's df is the size the plan said, the
change is in the change history, and its PDF record says what ran.

With ``BRICKYARD_SHOTS=DIR`` (and a real X display) the window is grabbed at each stage into DIR.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.core.topology import BrickRef, Layout, VolumeType
from brickyard.ui.change import ChangeView
from brickyard.ui.cluster.import_dialog import load_imported
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.frame.mainwindow import MainWindow

from ..ui.helpers import click, point_of, show_active
from .labvolume import drop_test_volume
from .shots import shot
from .test_provision_lab import lab_volume_topology

WAIT_MS = 600_000
DIST, REP = "byuid", "byuir"
CORPUS = r'''
set -e
m="$1"; n="$2"
mkdir -p "$m/a/b/c" "$m/d/e"
i=0
while [ $i -lt $n ]; do
  case $((i % 4)) in 0) d="$m";; 1) d="$m/a";; 2) d="$m/a/b/c";; 3) d="$m/d/e";; esac
  head -c $(( ((i * 7919) % 300 + 1) * 1024 )) /dev/urandom > "$d/f$i"
  i=$((i+1))
done
head -c 12000000 /dev/urandom > "$m/big"
ln "$m/f0" "$m/hard0"; ln -s a/f1 "$m/sym1"
cd "$m" && find . \( -type f -o -type l \) -print0 | sort -z | xargs -0 sha256sum > "/tmp/$(basename "$m").sha256"
'''


def _shot(window, name: str) -> None:
    shot(window, f"change-{name}")


def _provision(lab, tmp_path: Path, name: str, layout: Layout, bricks, capsys, monkeypatch) -> Path:
    topo = lab_volume_topology(lab, name, layout, bricks)
    path = tmp_path / f"{name}.brickyard.json"
    topofile.save(topo, path)
    monkeypatch.setenv("BRICKYARD_QUIET", "1")
    capsys.readouterr()
    code = main(["provision", str(path), "--yes", "--json", "--ssh-config", str(lab.ssh_config)])
    doc = json.loads(capsys.readouterr().out or "{}")
    assert code == 0, doc
    client = lab.clients[0]
    lab.ssh(client, ["sh", "-c", CORPUS, "sh", f"/mnt/{name}", "300"])
    return path


def _unchanged(lab, name: str) -> None:
    """Every file and link of the corpus is there and byte-identical."""
    check = lab.ssh(lab.clients[0], ["sh", "-c", f'cd /mnt/{name} && sha256sum --quiet -c /tmp/{name}.sha256'],
                    check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    count = lab.ssh(lab.clients[0], ["sh", "-c", f"wc -l < /tmp/{name}.sha256"]).stdout.strip()
    assert int(count) >= 300


def _df(lab, name: str) -> int:
    return int(lab.ssh(lab.clients[0], ["df", "-B1", "--output=size", f"/mnt/{name}"]).stdout.split()[-1])


@pytest.fixture(autouse=True)
def _says_its_duration(request):
    """Each walk prints its own wall time (CI's budget: a few minutes for both)."""
    t0 = time.monotonic()
    yield
    print(f"\n{request.node.name}: {time.monotonic() - t0:.0f} s wall", file=sys.stderr)


@pytest.fixture
def window(lab, qtbot, tmp_path, monkeypatch):
    for env, sub in (("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config"), ("XDG_STATE_HOME", "state")):
        monkeypatch.setenv(env, str(tmp_path / sub))
    made = MainWindow(None, tmp_path / "settings.json", tmp_path / "autosave",
                      remote=RemoteBridge(ssh_config=lab.ssh_config))
    made.resize(1600, 900)
    show_active(qtbot, made)
    yield made
    view = made.change_view
    if view is not None and view.control.busy:
        view.stop_for_close()
    made.close()


def _card(view, name):
    return point_of(view.canvas, view.canvas.board.nodes[name], QPointF(40, 10))


def _key(qtbot, view, key, modifier=Qt.KeyboardModifier.NoModifier):
    view.canvas.setFocus()
    qtbot.keyClick(view.canvas, key, modifier)


def _apply(qtbot, view) -> None:
    qtbot.waitUntil(view.ack_box.isEnabled, timeout=10_000)
    view.ack_box.setFocus()
    qtbot.keyClick(view.ack_box, Qt.Key.Key_Space)
    qtbot.waitUntil(view.apply_button.isEnabled)
    qtbot.mouseClick(view.apply_button, Qt.MouseButton.LeftButton)


def test_an_imported_distribute_volume_expands_onto_a_third_server_from_the_change_tab(
        lab, qtbot, tmp_path, capsys, monkeypatch, window):
    _provision(lab, tmp_path, DIST, Layout(VolumeType.DISTRIBUTE), [(1, 1), (2, 1)], capsys, monkeypatch)
    added = f"node3:/srv/brick1/{DIST}"
    try:
        imported = window.remote.services.import_cluster("node1", DIST).result(120)
        assert load_imported(window, imported, "node1")
        qtbot.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        view = window.tabs.currentWidget()
        assert isinstance(view, ChangeView)
        qtbot.waitUntil(lambda: view.plan is not None and view.plan.nothing_to_do, timeout=WAIT_MS)
        view.canvas.set_zoom(0.8)
        _shot(window, "1-read")
        if "node3" in view.canvas.board.nodes:     # in the pool (imported), not in the volume: it joins
            click(view.canvas, _card(view, "node3"))
        else:                                       # not in the pool yet: a new server like node2, named node3
            click(view.canvas, _card(view, "node2"))
        _key(qtbot, view, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
        qtbot.waitUntil(lambda: view.plan is not None and view.plan.ok and bool(view.plan.steps), timeout=10_000)
        plan = view.plan
        assert plan.kinds == ("expand", "rebalance") and [str(b) for b in plan.role("new")] == [added]
        _shot(window, "2-expand-plan")
        _apply(qtbot, view)
        qtbot.waitUntil(lambda: view.plan_panel.status_of("rebalance-wait") in ("running", "done"), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: bool(view.run_panel.node_rows()), timeout=WAIT_MS)
        _shot(window, "3-rebalancing")
        qtbot.waitUntil(lambda: "Change complete" in view.message.text() or not view.control.busy, timeout=WAIT_MS)
        assert "Change complete" in view.message.text(), view.message.text()
        qtbot.waitUntil(lambda: not view.control.busy, timeout=WAIT_MS)
        _shot(window, "4-expanded")
        assert "Read back" in view.message.text() and view.plan.nothing_to_do
        rows = view.run_panel.node_rows()
        assert rows[-1][:2] == ["all nodes", "completed"] and rows[-1][6] == "0"      # no failures
        # on the cluster: the brick is in, the rebalance completed, every file is as it was
        info = lab.ssh("node1", ["gluster", "volume", "info", DIST]).stdout
        assert added in info and "Number of Bricks: 3" in info, info
        _unchanged(lab, DIST)
        assert _df(lab, DIST) == plan.after.df_bytes
        record = window.history_store().changes.get(view.change_id)
        assert record.status == "complete" and record.measured_seconds > 0
    finally:
        drop_test_volume(lab, DIST, [f"node1:/srv/brick1/{DIST}", f"node2:/srv/brick1/{DIST}", added],
                         {lab.clients[0]: f"/mnt/{DIST}"})


def test_a_replica_3_volume_opened_from_its_file_gets_a_brick_replaced_and_healed(
        lab, qtbot, tmp_path, capsys, monkeypatch, window):
    path = _provision(lab, tmp_path, REP, Layout(VolumeType.REPLICATE, replica=3), [(1, 2), (2, 2), (3, 2)],
                      capsys, monkeypatch)
    old, new = f"node3:/srv/brick2/{REP}", f"node4:/srv/brick2/{REP}"
    try:
        assert window.files.open(str(path))
        view = window.open_change(read=True)
        qtbot.waitUntil(lambda: view.plan is not None and view.plan.nothing_to_do, timeout=WAIT_MS)
        view.canvas.set_zoom(0.8)
        click(view.canvas, point_of(view.canvas, view.canvas.board.brick_item(BrickRef.parse(old))))
        _key(qtbot, view, Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
        click(view.canvas, _card(view, "node4"))
        qtbot.waitUntil(lambda: view.plan is not None and view.plan.kinds == ("replace",), timeout=10_000)
        plan = view.plan
        assert [str(b) for b in plan.role("replacement")] == [new]
        assert len(view.canvas.board.arrows) == 1
        _shot(window, "5-replace-plan")
        _apply(qtbot, view)
        qtbot.waitUntil(lambda: view.plan_panel.status_of(f"heal:{new}") in ("running", "done"), timeout=WAIT_MS)
        _shot(window, "6-healing")
        qtbot.waitUntil(lambda: "Change complete" in view.message.text() or not view.control.busy, timeout=WAIT_MS)
        assert "Change complete" in view.message.text(), view.message.text()
        qtbot.waitUntil(lambda: not view.control.busy, timeout=WAIT_MS)
        _shot(window, "7-replaced")
        info = lab.ssh("node1", ["gluster", "volume", "info", REP]).stdout
        assert new in info and old not in info, info
        heal = lab.ssh("node1", ["gluster", "volume", "heal", REP, "info", "summary"]).stdout
        assert heal.count("Total Number of entries: 0") == 3, heal
        _unchanged(lab, REP)
        assert _df(lab, REP) == plan.after.df_bytes
        # the change history and the record a manager files
        history = window.open_change_history()
        assert history.selected_id() == view.change_id and history.selected().status == "complete"
        _shot(window, "8-history")
        from brickyard.report import export_report
        from brickyard.report.changerecord import content_from_change

        export_report(content_from_change(window.history_store(), view.change_id), tmp_path / "record.pdf")
        from ..report import pdfcheck

        words = " ".join(pdfcheck.text(tmp_path / "record.pdf", raw=True).split())
        assert f"Change record: {REP}, replace" in words and f"Bricks replaced: {old} by {new}" in words
        assert "completed: every step done and read back" in words and "replace-brick" in words
    finally:
        drop_test_volume(lab, REP, [f"node1:/srv/brick2/{REP}", f"node2:/srv/brick2/{REP}", old, new],
                         {lab.clients[0]: f"/mnt/{REP}"})
