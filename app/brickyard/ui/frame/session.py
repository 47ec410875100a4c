"""One open topology in the planner: the model, its undo stack, the chosen volume, the
simulated failures and the planner's latest verdict.

Views subscribe here in one place: ``sig_model_changed`` (the ``Change`` batch, for views that
mirror the model item by item) comes first, then ``sig_plan_changed`` with the new
``PlanResult``, so a view that colours by set always finds its items already there.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from ...core import calibration, edits
from ...core.estimate import Question
from ...core.events import Change
from ...core.plan import PlanResult, candidate_layouts, plan_volume
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


class Session(QObject):
    """The topology being planned, and everything the views show about it."""

    sig_model_changed = Signal(list)
    """list[Change]: one batch of model changes, already applied."""
    sig_plan_changed = Signal(object)
    """PlanResult | None: the planner's verdict on the current volume (None: no volume)."""
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
        self.plan: PlanResult | None = None
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
    def replan(self) -> None:
        volume = self.volume
        if volume is None:
            self.plan, self.plan_problem = None, "no volume yet: add one in the Layout panel"
            self.sig_plan_changed.emit(None)
            return
        try:
            self.plan = plan_volume(self.topo, volume, self.failures, model=self.model(),
                                    question=self.question)
        except ValueError:
            # a failure names something that was renamed or deleted since: drop those
            self.failures = [f for f in self.failures if self._names_something(f)]
            self.plan = plan_volume(self.topo, volume, self.failures, model=self.model(),
                                    question=self.question)
        self.plan_problem = ""
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
