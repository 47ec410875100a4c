"""The Change tab on a live 200-server × 24-brick volume: what an edit costs the GUI thread, and
how long the tab takes to show the live volume.

The live state and the drawing are ``benchmarks/change_plan.py``'s (4,800 bricks, replica 3,
1,600 sets). Timed (offscreen), for edits made as the canvas makes them (retire the sets on one
server, replace a brick onto a server outside the volume, add a server, which the plan refuses:
its bricks cannot make sets on distinct servers; each undone):

- the edit on the GUI thread: from the key until the canvas takes keys again, in CPU seconds of
  the GUI thread (the machine is shared: its wall clock also counts other processes' turns), and
  how much of that is the planner's verdict on the drawing (``Session.replan``, which every tab
  pays for on every edit: ``plan_volume`` and the planner's canvas);
- the change plan, made on the planner's thread (``ui.change.planning``), in that thread's CPU;
- showing it (panel, canvas marks), GUI-thread CPU;
- the longest the GUI thread did not turn its event loop while the plan was made (a 5 ms timer
  ticks: wall clock, so a busy machine adds to it).

Target: an edit under 100 ms of the GUI thread with the plan made elsewhere. Before this,
each edit planned on the GUI thread: 0.9–2 s there on the sandbox, the canvas frozen meanwhile.
Run: QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/change_view.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent))

import change_plan as scale  # noqa: E402
import figures  # noqa: E402

from brickyard.core import livestate as ls  # noqa: E402
from brickyard.core.topology import BrickRef, Layout, Volume, VolumeType  # noqa: E402
from brickyard.ui.frame.bridge import RemoteBridge  # noqa: E402
from brickyard.ui.change import planning  # noqa: E402
from brickyard.ui.change.view import ChangeView  # noqa: E402
from brickyard.ui.frame.session import Session  # noqa: E402

ROUNDS = 3
TARGET = 0.100          # an edit on the GUI thread, seconds
WIDTH = 44


class Clock:
    """CPU of the GUI thread spent in one function, and of the planner's thread planning."""

    def __init__(self):
        self.show = 0.0
        self.session = 0.0
        self.worker = 0.0

    def wrap(self, owner, name: str, field: str) -> None:
        fn = getattr(owner, name)

        def timed(*args, **kwargs):
            c0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                setattr(self, field, getattr(self, field) + time.thread_time() - c0)
        setattr(owner, name, timed)


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
    c0, t0 = time.thread_time(), time.perf_counter()
    view.set_live(live, "big")
    app.processEvents()
    read_cpu, read_wall = time.thread_time() - c0, time.perf_counter() - t0

    clock = Clock()
    clock.wrap(view, "_show_plan", "show")
    clock.wrap(session, "replan", "session")
    clock.wrap(planning, "_plan", "worker")
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    canvas = view.canvas

    def retire():
        canvas._select(canvas.board.nodes["gfs005"])
        canvas.retire()

    def replace():
        canvas._replace_now(BrickRef("gfs005", "/bricks/d00/brick"), server="gfs205")

    edits = [("retire the sets on gfs005", retire), ("undo", session.stack.undo),
             ("replace a brick onto gfs205", replace), ("undo", session.stack.undo),
             ("add a server (refused)", canvas.add_server), ("undo", session.stack.undo)]
    rows: dict[tuple[int, str], list[tuple]] = {}
    for _ in range(ROUNDS):
        for i, (name, edit) in enumerate(edits):
            app.processEvents()
            clock.show = clock.session = clock.worker = 0.0
            before = view.plan
            c0 = time.thread_time()
            edit()
            edit_cpu, session_cpu = time.thread_time() - c0, clock.session
            ticks.clear()
            ticks.append(time.perf_counter())
            while view.plan is before or view.planner.pending or view._replan_timer.isActive():
                app.processEvents()
                time.sleep(0.001)
            stall = max(b - a for a, b in zip(ticks, ticks[1:])) if len(ticks) > 1 else 0.0
            rows.setdefault((i, name), []).append((edit_cpu, session_cpu, clock.worker, clock.show, stall))
    print(figures.load_line())
    print(f"{len(bricks)} bricks, {len(bricks) // 3} sets; min / median / max of {ROUNDS} rounds, CPU of the thread "
          "named unless said")
    print(figures.line("read into the tab, nothing to change (GUI)", [read_cpu], width=WIDTH)
          + f"  (wall {read_wall * 1000:.0f} ms)")
    for (_, name), got in rows.items():
        edit_cpu, session_cpu, worker_cpu, show_cpu, stall = (list(col) for col in zip(*got))
        print(f"{name}:")
        print(figures.line("  the edit, GUI thread", edit_cpu, target=TARGET, width=WIDTH))
        print(figures.line("    of it the planner's verdict (every tab)", session_cpu, width=WIDTH))
        print(figures.line("  the change plan, planner's thread", worker_cpu, width=WIDTH))
        print(figures.line("  showing the plan, GUI thread", show_cpu, width=WIDTH))
        print(figures.line("  longest event-loop stall meanwhile (wall)", stall, width=WIDTH))
    print("(before: edit, plan and show all on the GUI thread, one after the other)")


if __name__ == "__main__":
    main()
