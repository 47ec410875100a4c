"""Take screenshots of the planner's main states on a real X display (run by test_xvfb.py).

    python tests/ui/screenshot_states.py OUTDIR      (DISPLAY must name a running X server)

Each state is captured from the X server (``QScreen.grabWindow``), not rendered offscreen.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"


def settle(app: QApplication, rounds: int = 20) -> None:
    """Process what is pending, then 150 ms of timers. On a busy machine Xvfb may map the
    window late: until it is exposed Qt paints nothing and a grab would be blank, so wait
    for that first (event-driven, up to 60 s), not for a fixed time."""
    import time

    deadline = time.monotonic() + 60
    for window in app.topLevelWindows():
        while window.isVisible() and not window.isExposed():
            if time.monotonic() > deadline:
                raise SystemExit(f"the window {window.title()!r} was not exposed within 60 s")
            app.processEvents()
            time.sleep(0.01)
    for _ in range(rounds):
        app.processEvents()
    loop_done = []
    QTimer.singleShot(150, lambda: loop_done.append(True))
    while not loop_done:
        app.processEvents()


def main(out: Path) -> int:
    import tempfile

    import os

    from brickyard.core import edits
    from brickyard.core.topology import Brick, BrickRef, Client, Layout, Mount, Node, Topology, VolumeType
    from brickyard.ui.frame.mainwindow import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0], "-platform", "xcb"])
    if app.platformName() != "xcb":
        print(f"expected the xcb platform, got {app.platformName()}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="brickyard-shots-"))
    window = MainWindow(None, scratch / "settings.ini", scratch / "autosave")
    window.files.ask = lambda question: "discard"
    window.resize(1600, 1000)
    window.show()
    window.move(0, 0)

    def shoot(name: str) -> None:
        window.canvas.fit()
        settle(app)
        pixmap = window.screen().grabWindow(window.winId())
        path = out / f"{name}.png"
        if not pixmap.save(str(path)):
            raise SystemExit(f"could not write {path}")
        print(path)

    window.files.open_example(EXAMPLES / "two-server-12-disk.brickyard.json")
    shoot("01-planner")
    session = window.session
    window.canvas.board.nodes["srv2"].setSelected(True)
    window.canvas.toggle_failure()
    shoot("02-node-failed")
    window.files.open_example(EXAMPLES / "three-site.brickyard.json")
    session.toggle_failures(["site:Helsinki", "gfs5"])
    shoot("03-three-site-two-failures")
    window.files.open_example(EXAMPLES / "eight-node-raid5.brickyard.json")
    window.docks["compare"].raise_()
    window.compare.finish()
    shoot("04-compare-layouts")
    volume = session.volume
    session.push(edits.SetVolumeLayout(volume.name, Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=3)))
    window.canvas.board.brick_item(BrickRef(volume.bricks[0].node, volume.bricks[0].path)).setSelected(True)
    shoot("05-refused-layout")
    # clients, mounts and volume options, shown on the canvas and in the Volume options tab
    window.files.open_example(EXAMPLES / "three-site.brickyard.json")
    name = session.volume_name
    session.push(edits.AddClient(Client("bench1", site="Helsinki", address="10.0.3.20")))
    session.push(edits.AddMount(name, Mount("bench1", "/mnt/bench", "noatime", fstab=True)))
    session.push(edits.SetVolumeOption(name, "performance.cache-size", "256MB"))
    session.push(edits.SetVolumeOption(name, "network.ping-timeout", "2000"))
    window.docks["options"].raise_()
    shoot("06-clients-mounts-options")
    # a lab-like topology without sites, edited live: N next to node1, New volume, Auto-place, S
    lab = Topology(name="brickyard-lab", clients=[Client("client1", address="10.77.0.101")])
    for i in (1, 2, 3):
        lab.nodes.append(Node(f"node{i}", address=f"10.77.0.{10 + i}",
                              bricks=[Brick("/srv/brick1/brick", 2**30), Brick("/srv/brick2/brick", 2**30)]))
    window.files.load_untitled(lab)
    window.canvas.board.nodes["node1"].setSelected(True)
    window.canvas.add_node()
    window.layout_panel.add_volume()
    window.layout_panel.place_automatically()
    window.canvas.add_site()
    window.docks["commands"].raise_()
    shoot("07-lab-topology-edited-live")
    # the History tab has the window to itself: no planner docks, no wider than the screen
    os.environ["BRICKYARD_DB"] = f"sqlite:///{scratch / 'history.sqlite3'}"
    from brickyard.ui.frame.mainwindow import OPTIONAL_VIEWS

    if window.open_optional_view(*OPTIONAL_VIEWS[0]) is not None:
        shoot("08-history-tab")
        if window.width() > window.screen().availableGeometry().width():
            raise SystemExit(f"the History tab widened the window to {window.width()} px")
    window.close()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(Path(sys.argv[1])))
