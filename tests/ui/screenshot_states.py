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

    from brickyard.core.topology import BrickRef, Layout, VolumeType
    from brickyard.core import edits
    from brickyard.ui.mainwindow import MainWindow

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
    window.close()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(Path(sys.argv[1])))
