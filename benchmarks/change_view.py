"""The Change tab on a live 200-server × 24-brick volume: how long the window takes, on its GUI
thread, to show the live volume and to plan again after an edit, against ``plan_change`` alone.

The live state and the drawing are ``benchmarks/change_plan.py``'s (4,800 bricks, replica 3,
1,600 sets); the edit draws 10 more servers into the volume (240 bricks: 256 steps). Timed once
each, wall clock (offscreen): reading the live volume into the tab (plan, panel, canvas marks,
then the events that lays out and paints), an edit planned again, and ``plan_change`` of the
same in the same run, so the ratio says what the window adds to the planner.
Before this script the tab took a minute to show a 256-step plan (a step list sized to its
contents measured every row at each row added) and five seconds to lay out 1,600 warnings.
Run: QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/change_view.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent))

import change_plan as scale  # noqa: E402

from brickyard.core import livestate as ls  # noqa: E402
from brickyard.core.change import plan_change  # noqa: E402
from brickyard.core.edits import SetVolumeBricks  # noqa: E402
from brickyard.core.topology import BrickRef, Layout, Volume, VolumeType  # noqa: E402
from brickyard.ui.bridge import RemoteBridge  # noqa: E402
from brickyard.ui.change.view import ChangeView  # noqa: E402
from brickyard.ui.session import Session  # noqa: E402


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    app = QApplication.instance() or QApplication([])
    layout = Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=3)
    bricks = scale.live_bricks(3)
    live = ls.from_outputs(scale.outputs("big", layout, bricks), "big")
    topo = scale.topology()
    topo.volumes = [Volume("big", layout, list(bricks))]
    session = Session(topo)
    view = ChangeView(session, RemoteBridge(make_services=lambda options: None), lambda: None)
    view.control.rates = lambda: None             # no history database: the uncalibrated default
    view.resize(1600, 900)
    view.show()
    app.processEvents()
    shown = timed(lambda: (view.set_live(live, "big"), app.processEvents()))
    new = [BrickRef(f"gfs{n:03}", f"/bricks/d{b:02}/brick")
           for n in range(scale.SERVERS, scale.SERVERS + scale.EXTRA) for b in range(scale.BRICKS)]
    session.push(SetVolumeBricks("big", list(bricks) + new))
    view._replan_timer.stop()
    edited = timed(lambda: (view.replan(edited=True), app.processEvents()))
    planner = timed(lambda: plan_change(topo, "big", live))
    steps = len(view.plan.steps)
    print(f"{len(bricks)} bricks, {len(bricks) // 3} sets; the edit adds {len(new)} bricks ({steps} steps)")
    print(f"  read into the tab, nothing to change   {shown:7.0f} ms")
    print(f"  an edit planned again and shown        {edited:7.0f} ms  ({edited / planner:.1f}x plan_change)")
    print(f"  plan_change alone (same run)           {planner:7.0f} ms")


if __name__ == "__main__":
    main()
