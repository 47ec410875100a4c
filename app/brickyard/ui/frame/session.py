"""One open topology in the planner: the model, its undo stack, the chosen volume, the
simulated failures and the planner's latest verdict.

Views subscribe here in one place: ``sig_model_changed`` (the ``Change`` batch, for views that
mirror the model item by item) comes first, then ``sig_plan_checked`` with the new
``PlanResult`` (the canvas colours by it, so a view that colours by set always finds its items
already there), then ``sig_plan_changed`` with the whole plan for the panels.

On a large topology (``DEFER_FROM_BRICKS``) an edit is drawn first: ``sig_plan_checked`` comes
at once with a draft plan (rules, sets, capacity, findings and failure states), and the rest
(failure tolerance, throughput estimate, commands) and the panels that show it
(``sig_plan_changed``) follow when the GUI is next idle, once for any number of edits made
before then. ``session.plan`` is always whole: read before the idle turn, it finishes the draft
there and then.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from ...core import calibration, edits
from ...core.estimate import Question
from ...core.events import Change
from ...core.plan import PlanResult, candidate_layouts, finish_plan, plan_volume
from ...core.topology import BrickRef, Layout, Topology, TopologyError, Volume


class EditCommand(QUndoCommand):
    """The Qt undo stack's view of a core ``Edit``: redo applies it, undo reverts it."""

    def __init__(self, topo: Topology, edit: edits.Edit):
        super().__init__(edit.text)
        self.topo = topo
        self.edit = edit
        self._first = True

    def redo(self) -> None:
        if self._first:  # Session.push already applied it (to catch a refusal first)
            self._first = False
            return
        self.edit.apply(self.topo)

    def undo(self) -> None:
        self.edit.revert(self.topo)


# from this many bricks in the topology, an edit is redrawn before the estimate and the panels are
# worked out (benchmarks/canvas_perf.py: 200 servers × 24 bricks); below it everything is at once
DEFER_FROM_BRICKS = 1000


class Session(QObject):
    """The topology being planned, and everything the views show about it."""

    sig_model_changed = Signal(list)
    """list[Change]: one batch of model changes, already applied."""
    sig_plan_checked = Signal(object)
    """PlanResult | None: the new plan for the canvas, as soon as it is checked, sized and failed
    (on a large topology a draft: tolerance, estimate and commands come with ``sig_plan_changed``)."""
    sig_plan_changed = Signal(object)
    """PlanResult | None: the planner's whole verdict on the current volume (None: no volume)."""
    sig_topology_replaced = Signal()
    """A different topology was loaded: views rebuild from ``session.topo``."""
    sig_volume_selected = Signal(str)
    """str: the name of the volume the views now show ('' when there is none)."""
    sig_edit_refused = Signal(str)
    """str: why the model refused an edit (a duplicate name, …), for the status bar."""
    sig_calibration_changed = Signal()
    """The throughput model's calibration changed (``calibration`` holds it; empty: none)."""

    def __init__(self, topo: Topology | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.stack = QUndoStack(self)
        self.topo: Topology | None = None
        self.volume_name = ""
        self.failures: list[str] = []
        self._plan: PlanResult | None = None
        self._finish_due = False      # _plan is a draft (a large topology's edit)
        self._announce_due = False    # sig_plan_changed waits for the idle turn
        self._retired: list[PlanResult] = []   # plans an edit replaced, freed in the idle turn
        self._settle_timer = QTimer(self)
        self._settle_timer.setSingleShot(True)
        self._settle_timer.setInterval(0)
        self._settle_timer.timeout.connect(self.settle)
        self.plan_problem = ""
        self.last_refusal = ""
        self._candidates: tuple[tuple, list[Layout]] | None = None
        self.calibration = calibration.Inputs()
        self._model: tuple[tuple, calibration.Model] | None = None
        self.question = Question()   # files at once and block sizes the throughput figures answer
        self.replace(topo if topo is not None else Topology())

    # ---- the model ------------------------------------------------------------------
    def replace(self, topo: Topology) -> None:
        """Show another topology (File > Open/New); the undo history starts afresh."""
        if self.topo is not None:
            self.topo.events.disconnect(self._on_changes)
        self.topo = topo
        topo.events.connect(self._on_changes)
        self.stack.clear()
        self.failures = []
        self.volume_name = topo.volumes[0].name if topo.volumes else ""
        self.sig_topology_replaced.emit()
        self.sig_volume_selected.emit(self.volume_name)
        self.replan()

    def push(self, edit: edits.Edit) -> bool:
        """Apply ``edit`` and put it on the undo stack; False (and ``sig_edit_refused``)
        when the model refuses it, which leaves the model unchanged."""
        try:
            edit.apply(self.topo)
        except TopologyError as exc:
            self.last_refusal = str(exc)
            self.sig_edit_refused.emit(str(exc))
            return False
        self.stack.push(EditCommand(self.topo, edit))
        return True

    @property
    def volume(self) -> Volume | None:
        return self.topo.volume(self.volume_name) if self.volume_name else None

    def select_volume(self, name: str) -> None:
        if name != self.volume_name:
            self.volume_name = name
            self.sig_volume_selected.emit(name)
            self.replan()

    def _on_changes(self, changes: list[Change]) -> None:
        for change in changes:
            if change.kind == "volume-changed" and change.detail.get("old_name") == self.volume_name:
                self.volume_name = change.subject
            elif change.kind == "volume-added" and not self.volume_name:
                self.volume_name = change.subject
        if self.volume_name and not self.topo.volume(self.volume_name):
            self.volume_name = self.topo.volumes[0].name if self.topo.volumes else ""
            self.sig_volume_selected.emit(self.volume_name)
        self.sig_model_changed.emit(changes)
        self.replan()

    def candidates(self) -> list[Layout]:
        """``candidate_layouts`` for the current volume's bricks, computed once per brick list
        (the layout panel and the comparison table both ask after every edit)."""
        volume = self.volume
        if volume is None:
            return []
        key = (id(self.topo), tuple(volume.bricks))
        if self._candidates is None or self._candidates[0] != key:
            self._candidates = (key, candidate_layouts(self.topo, volume.bricks))
        return self._candidates[1]

    # ---- failure simulation ---------------------------------------------------------
    def toggle_failures(self, specs: list[str]) -> None:
        """Mark each spec failed, or restore it if every one of them is failed already."""
        if specs and all(s in self.failures for s in specs):
            self.failures = [f for f in self.failures if f not in specs]
        else:
            self.failures += [s for s in specs if s not in self.failures]
        self.replan()

    def clear_failures(self) -> None:
        if self.failures:
            self.failures = []
            self.replan()

    # ---- the throughput model -------------------------------------------------------
    def set_calibration(self, inputs: calibration.Inputs) -> None:
        """Calibrate the planner's throughput figures on ``inputs`` (empty: uncalibrated)."""
        self.calibration = inputs
        self._model = None
        self.sig_calibration_changed.emit()
        self.replan()

    def set_question(self, question: Question) -> None:
        """Answer the throughput figures for ``question`` (files at once, block sizes)."""
        if question == self.question:
            return
        self.question = question
        self.sig_calibration_changed.emit()
        self.replan()

    def model(self) -> calibration.Model | None:
        """The calibrated model for the topology as it is now (None: uncalibrated), fitted
        again only when what its priors read changes (brick speeds, NIC speeds)."""
        if self.calibration.empty or self.topo is None:
            return None
        key = (id(self.topo), tuple((n.name, n.nic_gbps, tuple((b.path, b.speed_bps) for b in n.bricks))
                                    for n in self.topo.nodes), tuple(c.nic_gbps for c in self.topo.clients))
        if self._model is None or self._model[0] != key:
            self._model = (key, calibration.fit(self.topo, self.calibration))
        return self._model[1]

    # ---- the planner ----------------------------------------------------------------
    @property
    def plan(self) -> PlanResult | None:
        """The planner's whole verdict on the current volume (a draft an edit left for the idle
        turn is finished now)."""
        if self._finish_due:
            self._finish_due = False
            self._plan = finish_plan(self._plan, self.model(), self.question)
        return self._plan

    @plan.setter
    def plan(self, plan: PlanResult | None) -> None:
        self._plan, self._finish_due = plan, False

    def defers(self) -> bool:
        """Whether an edit is drawn on a draft plan, before the panels (a large topology)."""
        return self.topo is not None and sum(len(n.bricks) for n in self.topo.nodes) >= DEFER_FROM_BRICKS

    def replan(self) -> None:
        volume = self.volume
        if volume is None:
            self.plan, self.plan_problem = None, "no volume yet: add one in the Layout panel"
            self._announce_due = False
            self._settle_timer.stop()
            self.sig_plan_checked.emit(None)
            self.sig_plan_changed.emit(None)
            return
        defer = self.defers()
        try:
            plan = plan_volume(self.topo, volume, self.failures, model=None if defer else self.model(),
                               question=self.question, draft=defer)
        except ValueError:
            # a failure names something that was renamed or deleted since: drop those
            self.failures = [f for f in self.failures if self._names_something(f)]
            plan = plan_volume(self.topo, volume, self.failures, model=None if defer else self.model(),
                               question=self.question, draft=defer)
        if defer and self._plan is not None:
            self._retired.append(self._plan)   # freeing 1,600 sets' objects waits for the idle turn too
        self.plan = plan
        self._finish_due = plan.draft
        self.plan_problem = ""
        self.sig_plan_checked.emit(plan)
        if defer:
            self._announce_due = True
            self._settle_timer.start()
        else:
            self._announce_due = False
            self._settle_timer.stop()
            self.sig_plan_changed.emit(plan)

    def settle(self) -> None:
        """Finish what an edit left for the idle turn (the draft, ``sig_plan_changed``) now;
        nothing when nothing waits."""
        self._settle_timer.stop()
        self._retired.clear()
        if self._announce_due:
            self._announce_due = False
            self.sig_plan_changed.emit(self.plan)

    def _names_something(self, spec: str) -> bool:
        kind, _, rest = spec.partition(":")
        if kind == "site" and rest:
            return self.topo.site(rest) is not None
        if kind == "brick" and rest:
            try:
                return self.topo.brick(BrickRef.parse(rest)) is not None
            except ValueError:
                return False
        return self.topo.node(spec) is not None
