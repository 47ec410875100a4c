"""The "Change" tab: change a running volume on the canvas, see the plan, apply it, watch it.

1. Read the live volume (Brickyard asks its pool's first server over SSH: ``volume info``,
   ``status detail``, tasks, peers, heal) — the volume you imported, or the one your topology
   file draws.
2. Edit the drawing on the canvas (``canvas.ChangeCanvas``): add servers and bricks, retire
   bricks or servers, replace a brick, add a copy or arbiters. The canvas draws the live
   volume and the drawing together (``scene.ChangeScene``) and the plan beside it follows
   every edit (``core.change.plan_change``): before → after, what moves and how long that
   should take, the ordered steps with their reasons, commands and predictions — or, when
   Brickyard will not run it, why in plain words and the route that works.
3. Apply (after ticking that you read the plan) reads the live volume again, plans on what it
   reads and runs the change pre-flight; if the plan is still the one shown and the checks
   pass, the change is stored in the history and run step by step (``remote.change``), with
   gluster's own figures per node and the overall progress below the steps.
4. Cancel stops it leaving the volume consistent (a running rebalance or remove-brick is
   stopped; no half set is ever added). An interrupted change — cancelled, failed, or the
   window closed or killed mid-way — shows in the banner above the canvas: Resume goes on
   where it stopped (what is done is read back and skipped), Roll back undoes it.
5. A completed change is read back: the drawing takes gluster's brick order, the live volume
   is read again, and the change is in the change history with its PDF record.

This module lays the tab out, reads and plans; ``running.ChangeRunning`` (mixed in) applies,
cancels, resumes and rolls back.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolBar, QVBoxLayout, QWidget

from ...core.changemodel import ChangePlan
from ...core.topology import TopologyError
from ..cluster.runtable import fill_volumes
from ..frame.bridge import RemoteBridge
from ..frame.session import Session
from ..widgets.make import button, check_box, combo_box, hbox, named, splitter, vstack, wrapped_label
from .canvas import ChangeCanvas
from .control import ChangeControl
from .plan_panel import PlanPanel
from .planning import BackgroundPlanner, Planned, prepare, settle_heap
from .run_panel import RunPanel
from .running import ChangeRunning, plan_fingerprint

REPLAN_MS = 60
BANNER_STYLE = "QFrame#change-banner { background: #fff8e1; border: 1px solid #ffb300; border-radius: 4px; }"

class ChangeView(ChangeRunning, QWidget):
    sig_status = Signal(str)
    """One line for the main window's status bar."""
    sig_show_history = Signal(str)
    """A change id: open it in the change history."""

    def __init__(self, session: Session, bridge: RemoteBridge, store: Callable[[], Any],
                 topology_path: Callable[[], Any] | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.topology_path = topology_path or (lambda: None)
        self.control = ChangeControl(bridge, store, self)
        self.live = None                     # LiveState of ``live_volume``
        self.live_volume = ""
        self.plan: ChangePlan | None = None
        self._facts: tuple = (None, [], set())  # (live, its offline bricks, its pool): _live_facts
        self._fingerprint: tuple = (None, ())  # (a plan, its plan_fingerprint): ``plan``'s when it is that one
        self.preflight = None
        self.change_id = ""                  # the change shown (running or last run)
        self._resuming = None
        self._checking = ""                   # "apply" | "resume" while the check runs
        self._read_back = False               # the read that follows a completed change
        self._rolling_back = ""               # the change whose roll back waits for this read
        self._rates = None                    # measured migration and heal rates (None: uncalibrated)
        self._refused: set[str] = set()

        self.volume_box = combo_box("change-volume", 140)
        self.read_button = button("Read live volume", "change-read", "Read the volume over SSH from its pool's first "
                                  "server: bricks, sizes, free space, peers, tasks and heal (nothing changes on the "
                                  "cluster)")
        self.live_label = wrapped_label("Not read yet.", "change-live")
        self.fix_layout_box = check_box("fix-layout only", "change-fix-layout", "After an expand, only spread the "
                                        "hash ranges: new files go everywhere, files already there stay where they "
                                        "are (the old bricks stay as full as they are)")
        self.history_button = button("Change history", "change-history")
        top = hbox(QLabel("Volume:"), self.volume_box, self.read_button, (self.live_label, 1), self.fix_layout_box,
                  self.history_button)

        self.banner = named(QFrame(), "change-banner")
        self.banner.setStyleSheet(BANNER_STYLE)
        self.banner_text = wrapped_label()
        self.resume_button = button("Resume", "change-resume")
        self.rollback_button = button("Roll back…", "change-rollback")
        hbox((self.banner_text, 1), self.resume_button, self.rollback_button, layout=QHBoxLayout(self.banner))
        self.banner.hide()
        self._unfinished = ""

        self.canvas = ChangeCanvas(session)
        self.canvas.volume_name = self.selected_volume
        self.canvas.live_volume = lambda: self.live.info.to_volume() if self.live is not None else None
        tools = QToolBar()
        tools.setObjectName("change-tools")
        for name in ("add_server", "retire", "replace", "add_replica", "add_arbiters", None, "match_live", "undo",
                     "redo", None, "fit"):
            tools.addSeparator() if name is None else tools.addAction(self.canvas.actions_by_name[name])
        left = vstack(tools, (self.canvas, 1))

        self.plan_panel = PlanPanel()
        self.ack_box = check_box("I have read the plan: run it on the live volume", "change-ack")
        self.apply_button = button("Apply", "change-apply")
        self.cancel_button = button("Cancel", "change-cancel", "Stop now, leaving the volume consistent: a running "
                                    "rebalance or remove-brick is stopped (files moved so far stay moved); Resume "
                                    "goes on later")
        self.copy_button = button("Copy as text", "change-copy")
        self.planning_label = named(QLabel(), "change-planning")
        self.message = wrapped_label("", "change-message", selectable=True)
        controls = hbox((self.ack_box, 1), self.planning_label, self.apply_button, self.cancel_button,
                       self.copy_button)
        self.run_panel = RunPanel()
        self.run_panel.hide()
        right_top = vstack((self.plan_panel, 1), self.message, controls)
        right = splitter(Qt.Orientation.Vertical, (right_top, 3), (self.run_panel, 2), collapsible=False)
        self.right = right
        split = splitter(Qt.Orientation.Horizontal, (left, 1), (right, 1), sizes=(560, 640), collapsible=False)
        self.split = split
        box = QVBoxLayout(self)
        box.addLayout(top)
        box.addWidget(self.banner)
        box.addWidget(split, 1)

        self._replan_timer = QTimer(self)
        self._replan_timer.setSingleShot(True)
        self._replan_timer.setInterval(REPLAN_MS)
        self._replan_timer.timeout.connect(self._plan_in_background)
        self.planner = BackgroundPlanner(self)
        self.planner.sig_planned.connect(self._planned)
        self.read_button.clicked.connect(lambda: self.read_live())
        self.apply_button.clicked.connect(lambda: self.apply())
        self.cancel_button.clicked.connect(lambda: self.cancel())
        self.copy_button.clicked.connect(self.copy_text)
        self.resume_button.clicked.connect(lambda: self.resume())
        self.rollback_button.clicked.connect(lambda: self.ask_rollback())
        self.history_button.clicked.connect(lambda: self.sig_show_history.emit(self.change_id))
        self.ack_box.toggled.connect(lambda _: self._update_buttons())
        self.fix_layout_box.toggled.connect(lambda _: self._replan_soon())
        self.volume_box.currentIndexChanged.connect(lambda _: self._volume_changed())
        self.canvas.sig_status.connect(self.sig_status)
        session.sig_model_changed.connect(lambda _c: self._model_changed())
        session.sig_topology_replaced.connect(self._topology_replaced)
        c = self.control
        c.sig_live.connect(self._live_read)
        c.sig_checked.connect(self._checked)
        c.sig_event.connect(self._event)
        c.sig_done.connect(self._done)
        c.sig_failed.connect(self._failed)
        self._fill_volumes()
        self._update_buttons()

    # ---- volume and live state ---------------------------------------------------------------------
    def _fill_volumes(self) -> None:
        fill_volumes(self.volume_box, self.session.topo, self.volume_box.currentData() or self.session.volume_name)

    def selected_volume(self) -> str:
        return self.volume_box.currentData() or ""

    def _volume_changed(self) -> None:
        if self.selected_volume() != self.live_volume:
            self.set_live(None, "")
        self.refresh_unfinished()

    def _topology_replaced(self) -> None:
        self._fill_volumes()
        if not self.control.running:
            self.set_live(None, "")
            self.refresh_unfinished()

    def _model_changed(self) -> None:
        names = [self.volume_box.itemData(i) for i in range(self.volume_box.count())]
        if names != [v.name for v in self.session.topo.volumes]:
            self._fill_volumes()
        self._replan_soon()

    def read_live(self) -> bool:
        """Read the chosen volume over SSH (the plan follows when it arrives)."""
        volume = self.selected_volume()
        if not volume:
            self._say("The topology has no volume: import the cluster (Cluster ▸ Import from cluster…) or open "
                      "its topology file first.", error=True)
            return False
        if self.control.busy:
            return False
        origin = self.session.topo.pool_origin(self.session.topo.require_volume(volume))
        if not self.control.read_live(self.session.topo, volume):
            return False
        self.live_label.setText(f"Reading {volume} from {origin}…")
        self._update_buttons()
        return True

    def _live_read(self, live, volume: str) -> None:
        rolling, self._rolling_back = self._rolling_back, ""
        if rolling:
            self.live, self.live_volume = live, volume
            self._roll_back_from(rolling, live)
            return
        after_run, self._read_back = self._read_back, False
        self.set_live(live, volume, keep_steps=after_run)
        if after_run and self.plan is not None and self.plan.nothing_to_do:
            self._say(f"{self.message.text()}\nRead back: {volume} is {self.plan.before.layout if self.plan.before else ''}"
                      f" now, as planned; the drawing matches it.", ok=True)
        elif after_run:
            self._say("Read back: the live volume differs from what the change planned; the plan below says how.",
                      error=True)
        self.sig_status.emit(f"Change: read {volume} from the cluster")
        self._update_buttons()

    def set_live(self, live, volume: str, keep_steps: bool = False) -> None:
        """Plan against ``live`` (the LiveState of ``volume``; None: forget it). ``keep_steps``:
        a change just ran; its steps stay shown when the volume is what it planned."""
        first = live is not None and volume != self.live_volume
        self.live, self.live_volume = live, volume if live is not None else ""
        self._rates = self.control.rates() if live is not None else None   # once per read, not per edit
        if first:
            QTimer.singleShot(0, self._fit_canvas)
        if live is None:
            self.planner.drop()
            self._planning(False)
            self.live_label.setText("Not read yet.")
            self.plan = None
            self.canvas.board.set_change(None)
            self.plan_panel.say("Read the live volume to plan a change against it.")
            self._update_buttons()
            return
        info = live.info
        when = live.measured.replace("T", " ").replace("Z", " UTC")
        offline = live.offline
        running = [f"{t.type.lower()} {t.status_str}" for t in live.running_tasks()]
        heal = live.heal_pending
        facts = [f"{info.type_str}, {len(info.bricks)} bricks, {info.status.lower()}",
                 "every brick online" if not offline else f"OFFLINE: {', '.join(map(str, offline))}"]
        if heal:
            facts.append(f"{heal:,} entries wait for heal")
        if running:
            facts.append("running: " + ", ".join(running))
        self.live_label.setText(f"<b>{volume}</b> read {when} from {live.asked or 'its pool'}: " + "; ".join(facts))
        self.refresh_unfinished()
        self.replan(keep_steps=keep_steps)
        settle_heap()                       # the drawing and the live state stay while the admin edits

    def _fit_canvas(self) -> None:
        """The whole drawing in view, but never larger than life (a few servers would fill the tab)."""
        self.canvas.fit()
        if self.canvas.transform().m11() > 1.0:
            self.canvas.set_zoom(1.0)

    # ---- the plan ----------------------------------------------------------------------------------
    def _replan_soon(self) -> None:
        if not self.control.running:
            self._replan_timer.start()

    def replan(self, edited: bool = False, keep_steps: bool = False) -> ChangePlan | None:
        """Plan from the live volume to the drawing as it is now, here and now (nothing runs).
        ``edited``: the drawing changed, so what was said about the last plan (or run) no longer
        holds. Edits plan in the background instead (``_plan_in_background``)."""
        from ...core.change import plan_change

        if not self._can_plan():
            return self.plan if self.control.running or self._checking else None
        volume = self.live_volume
        self.planner.drop()                   # this plan is newer than any being made
        try:
            plan = plan_change(self.session.topo, volume, self.live, **self._plan_options())
        except (TopologyError, ValueError) as exc:
            plan = exc
        self._planning(False)
        return self._show_plan(plan, volume, edited, keep_steps)

    def _can_plan(self) -> bool:
        """A live volume is read and chosen, nothing runs or is checked, and the drawing still
        has the volume (else the plan panel says so)."""
        if self.control.running or self._checking:
            return False
        volume = self.selected_volume()
        if self.live is None or volume != self.live_volume:
            return False
        if self.session.topo.volume(volume) is None:
            self.planner.drop()
            self._planning(False)
            self.plan = None
            self.plan_panel.say(f"The drawing has no volume {volume} any more: undo, or pick another volume.",
                                error=True)
            self._update_buttons()
            return False
        return True

    def _plan_options(self) -> dict:
        return {"fix_layout": self.fix_layout_box.isChecked(), "rates": self._rates}

    def _plan_in_background(self) -> None:
        """An edit: plan the drawing on the planner's thread (the canvas stays live meanwhile;
        Apply waits for the plan)."""
        if self._can_plan():
            self.planner.request(self.session.topo, self.live_volume, self.live, **self._plan_options())
            self._planning(True)

    def _planned(self, job, plan) -> None:
        """The background plan of the drawing as it is now (older ones are never delivered)."""
        self._planning(False)
        if not self._can_plan() or job.volume != self.live_volume or job.live is not self.live:
            return
        self._show_plan(plan, job.volume, edited=True)

    def _planning(self, on: bool) -> None:
        self.planning_label.setText("Planning the change…" if on else "")
        self._update_buttons()

    def _show_plan(self, plan, volume: str, edited: bool = False, keep_steps: bool = False) -> ChangePlan | None:
        """Show ``plan`` (a ``Planned`` from the planner's thread, a ``ChangePlan`` planned here,
        or the exception planning raised)."""
        if isinstance(plan, (TopologyError, ValueError)):
            self.plan = None
            self.plan_panel.say(f"{volume} cannot be planned: {plan}", error=True)
            self.canvas.board.set_change(None)
            self._update_buttons()
            return None
        if isinstance(plan, BaseException):          # a fault of Brickyard's, said where the plan goes
            self.plan = None
            self.plan_panel.say(f"{volume} could not be planned ({type(plan).__name__}: {plan}); this is a fault "
                                "in Brickyard, please report it", error=True)
            self.canvas.board.set_change(None)
            self._update_buttons()
            return None
        live = self.live
        ready = plan if isinstance(plan, Planned) else prepare(plan, live, self._live_facts()[0])
        plan = ready.plan
        shown, known = self._fingerprint
        changed = self.plan is None or ready.fingerprint != (known if shown is self.plan else plan_fingerprint(self.plan))
        self.plan, self._fingerprint = plan, (plan, ready.fingerprint)
        self.preflight = None
        if not (keep_steps and plan.nothing_to_do):
            self.plan_panel.show_plan(plan, self._extra(plan), doc=ready.doc)
        offline, pool = self._live_facts()
        self.canvas.board.set_change(plan, pool, set(offline), looks=ready.looks)
        if changed:
            self.ack_box.setChecked(False)
        if changed and edited:
            self.run_panel.hide()
            self.message.clear()
        if changed and plan.ok and plan.steps and not self.message.text():
            self._say("Nothing has run yet: read the plan, tick that you have, then Apply.")
        self._update_buttons()
        return plan

    def _live_facts(self) -> tuple[list, set[str]]:
        """The live volume's offline bricks and pool members, worked out once per read (30 ms
        each time at 4,800 bricks)."""
        if self._facts[0] is not self.live:
            live = self.live
            self._facts = (live, list(live.offline), set(live.pool_hosts)) if live is not None else (None, [], set())
        return self._facts[1], self._facts[2]

    def _extra(self, plan: ChangePlan) -> list[str]:
        drawn = {(n.name, b.path) for n in self.session.topo.nodes for b in n.bricks}
        missing = [str(b.ref) for b in plan.bricks if (b.ref.node, b.ref.path) not in drawn]
        extra = []
        if missing:
            extra.append(f"not on the canvas (gluster has them): {', '.join(missing)}")
        offline = [b for b in self._live_facts()[0] if b not in set(plan.role("replaced"))] if self.live else []
        if offline and plan.ok:
            extra.append(f"{', '.join(map(str, offline))} {'is' if len(offline) == 1 else 'are'} offline: replace it "
                         "(select it, Shift+R, click its replacement) or bring it back before the change runs")
        return extra

    # ---- state of the buttons ------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.control.running

    def _update_buttons(self) -> None:
        busy, running = self.control.busy, self.control.running
        plan = self.plan
        runnable = plan is not None and plan.ok and bool(plan.steps)
        self.apply_button.setEnabled(runnable and self.ack_box.isChecked() and not busy and not self.planner.pending)
        self.apply_button.setToolTip(
            "Read the volume again, check every server and the volume, then run the steps" if runnable else
            "Read the live volume and edit the drawing first: Apply runs a plan Brickyard accepts")
        self.ack_box.setEnabled(runnable and not busy)
        self.cancel_button.setEnabled(running)
        self.read_button.setEnabled(not busy)
        self.volume_box.setEnabled(not busy)
        self.fix_layout_box.setEnabled(not busy)
        self.canvas.setInteractive(not running)
        self.canvas.set_editable(not running and self.live is not None)
        self.resume_button.setEnabled(not busy and bool(self._unfinished))
        self.rollback_button.setEnabled(not busy and bool(self._unfinished))
        self.copy_button.setEnabled(self.plan is not None)

    # ---- output ---------------------------------------------------------------------------------------
    def _say(self, text: str, error: bool = False, ok: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #b00020;" if error else "color: #1b5e20;" if ok else "")

    def text(self) -> str:
        head = self.live_label.text() if self.live is not None else ""
        return "\n".join(filter(None, [_plain(head), self.plan_panel.text(), self.message.text()]))

    def copy_text(self) -> None:
        QGuiApplication.clipboard().setText(self.text())
        self.sig_status.emit("Copied the plan to the clipboard")

    def report_source(self):
        """File ▸ Export PDF… on this tab: the record of the change shown (once one ran)."""
        return ("change", self.change_id) if self.change_id and not self.control.running else None


def _plain(html: str) -> str:
    import re

    return re.sub(r"<[^>]+>", "", html)
