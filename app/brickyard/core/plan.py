"""The planner's one entry point: everything (canvas, CLI, provisioning, reports) calls here.

``plan_volume(topo, volume, failures, auto_place)`` runs, in order: gluster's layout rules
(``layout``), optional auto-placement (``placement``), capacity (``capacity``), failure
states and tolerance (``failures``), the exact gluster commands (``gluster_cli``) and the
throughput estimate (``estimate``: the model of ``throughput``, calibrated when a ``model`` is
given), and returns one frozen ``PlanResult``.
``candidate_layouts`` lists every layout gluster would accept for a set of bricks, for the
comparison table of the layout panel.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

from . import capacity as _capacity
from . import estimate as _estimate
from . import failures as _failures
from . import gluster_cli, gluster_options, layout as _layout, placement as _placement
from .calibration import Model
from .estimate import Estimate
from .planmodel import (
    ERROR,
    NEEDS_FORCE,
    WARNING,
    BrickSet,
    Capacity,
    Finding,
    SetState,
    SharedFilesystem,
    Tolerance,
    TopologyIndex,
    VolumeState,
)
from .topology import BrickRef, Layout, Topology, Volume, VolumeType
from .units import format_bytes

__all__ = [
    "BrickSet", "Capacity", "Estimate", "Finding", "PlanResult", "SetState", "SharedFilesystem",
    "Tolerance", "VolumeState", "candidate_layouts", "plan_volume",
]


@dataclass(frozen=True)
class PlanResult:
    """One volume, planned. When gluster would refuse ``volume create`` (an error among the
    findings that concerns the create itself), there is no volume to size or fail: ``sets`` is
    empty and ``capacity``, ``tolerance``, ``state`` and ``estimate`` are None (``refused``).
    ``commands`` is empty whenever there is any error (one that stops provisioning half-way,
    such as a refused volume option, included): nothing runnable is offered."""

    volume: Volume                  # the volume as planned (after auto-place)
    gluster_type: VolumeType        # what gluster will create for this brick count (if it accepts it)
    findings: tuple[Finding, ...]
    sets: tuple[BrickSet, ...]
    capacity: Capacity | None
    tolerance: Tolerance | None
    state: VolumeState | None
    commands: tuple[gluster_cli.HostCommand, ...]  # each with the node it runs on
    estimate: Estimate | None
    placement_note: str = ""        # with auto_place: what was done, or why it was impossible
    mount_commands: tuple[gluster_cli.HostCommand, ...] = ()   # each client's mount, after the start
    topology: Topology | None = field(default=None, compare=False, repr=False)   # what it was planned on
    draft: bool = field(default=False, compare=False, repr=False)   # plan_volume(draft=True): see finish_plan

    def small_files(self) -> dict | None:
        """The small-file latency model (``core.latency``, calibrated on stored small-file runs
        when the throughput model's calibration holds some) for this volume at its topology's
        RTTs: the write-up's extract and an uncached lstat loop; worked out when asked (a
        24,000-brick plan does not pay for it on every edit)."""
        if self.refused or not self.sets or self.topology is None:
            return None
        from . import latency

        calibration = getattr(self.estimate, "model", None)
        doc = latency.predict_plan(self.topology, self.sets, getattr(calibration, "latency", None))
        doc["calibrated_on"] = list(getattr(calibration, "latency_sources", ()) or ())   # smallfile/metadata runs
        return doc

    @property
    def shown_commands(self) -> tuple[gluster_cli.HostCommand, ...]:
        """What an admin pastes: the gluster commands, then each client's mount."""
        return self.commands + self.mount_commands if self.commands else ()

    @property
    def refused(self) -> bool:
        """gluster refuses ``volume create``: sets, figures and state are withheld."""
        return self.capacity is None

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == ERROR)

    @property
    def forced(self) -> tuple[Finding, ...]:
        """Findings gluster refuses unless ``force`` is given."""
        return tuple(f for f in self.findings if f.severity == NEEDS_FORCE)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == WARNING)

    @property
    def needs_force(self) -> bool:
        return bool(self.forced)

    @property
    def valid(self) -> bool:
        """gluster would create this volume (with ``force`` where the volume asks for it)."""
        return not self.errors and (not self.needs_force or self.volume.force)

    @property
    def number_of_bricks(self) -> str:
        """gluster's ``Number of Bricks`` line for this volume (``1 x 2 = 2`` for replica 2
        thin-arbiter 1: the thin-arbiter is not counted); "" when gluster refuses it."""
        if self.refused:
            return ""
        from .layout import resolve

        return resolve(self.volume.layout, len(self.volume.bricks))[0].describe()

    @property
    def thin_arbiter_reachable(self) -> bool:
        """Whether the pairs can use the volume's thin-arbiter (the planner put it in them)."""
        return any(s.thin_arbiter and s.arbiter is not None for s in self.sets)

    def thin_arbiter_json(self) -> dict | None:
        ta = self.volume.thin_arbiter_brick
        if ta is None or not self.volume.layout.thin_arbiter or self.refused:
            return None
        reachable = self.thin_arbiter_reachable
        return {"brick": str(ta), "serves": "every replica pair", "reachable": reachable,
                "note": "" if reachable else ("on a server of the pool (it runs glusterd on port 24007): the "
                                              "thin-arbiter process cannot run there, so each pair needs both "
                                              "of its bricks")}

    def to_json(self) -> dict:
        """The ``brickyard plan --json`` document. A refused volume has ``"refused": true``,
        no sets and null capacity, tolerance, state and estimate."""
        doc = {
            "volume": self.volume.name,
            "requested_type": self.volume.layout.type.value,
            "gluster_type": None if self.refused else self.gluster_type.value,
            "valid": self.valid,
            "refused": self.refused,
            "needs_force": self.needs_force,
            "force": self.volume.force,
            "errors": [f.to_json() for f in self.errors],
            "needs_force_findings": [f.to_json() for f in self.forced],
            "warnings": [f.to_json() for f in self.warnings],
            "placement": self.placement_note,
            # the sets as gluster's volume info lists them (a thin-arbiter is its own field)
            "number_of_bricks": self.number_of_bricks,
            "sets": [
                {"index": s.index, "bricks": [str(b) for b in s.gluster_bricks],
                 "arbiter": str(s.gluster_arbiter) if s.gluster_arbiter else None, "thin_arbiter": s.thin_arbiter,
                 "data_bricks": s.data_bricks, "redundancy": s.redundancy,
                 "usable_bytes": s.usable_bytes}
                for s in self.sets
            ],
            "thin_arbiter": self.thin_arbiter_json(),
        }
        doc.update(_capacity_json(self.capacity))
        tol, state = self.tolerance, self.state
        doc["tolerated_node_failures"] = None if tol is None else {
            "worst": tol.nodes_worst, "best": tol.nodes_best, "best_exact": tol.best_exact}
        doc["tolerated_site_failures"] = None if tol is None or tol.sites_worst is None else {
            "worst": tol.sites_worst, "best": tol.sites_best, "best_exact": tol.best_exact}
        doc["state"] = None if state is None else {
            "state": state.state, "readable": state.readable, "writable": state.writable,
            "sets": [{"index": s.index, "state": s.state, "readable": s.readable,
                      "writable": s.writable, "failed": [str(b) for b in s.failed]}
                     for s in state.sets],
        }
        doc["commands"] = [list(c.argv) for c in self.commands]
        doc["commands_hosts"] = [c.host for c in self.commands]
        doc["mount_commands"] = [list(c.argv) for c in self.mount_commands]
        doc["mount_commands_hosts"] = [c.host for c in self.mount_commands]
        doc["commands_text"] = gluster_cli.command_lines(self.shown_commands)
        doc["estimate"] = None if self.estimate is None else self.estimate.to_json()
        doc["small_files"] = self.small_files()
        return doc


def _capacity_json(cap: Capacity | None) -> dict:
    keys = ("raw_bytes", "usable_bytes", "overhead_bytes", "arbiter_bytes", "df_bytes", "free_now_bytes",
            "free_measured", "raw", "usable")
    if cap is None:
        return {**dict.fromkeys(keys), "shared_filesystems": []}
    return {
        "raw_bytes": cap.raw_bytes,
        "usable_bytes": cap.usable_bytes,
        "overhead_bytes": cap.overhead_bytes,
        "arbiter_bytes": cap.arbiter_bytes,
        "df_bytes": cap.df_bytes,
        "free_now_bytes": cap.free_now_bytes,
        "free_measured": cap.free_measured or None,
        "raw": _both(cap.raw_bytes),
        "usable": _both(cap.usable_bytes),
        "shared_filesystems": [
            {"node": s.node, "filesystem": s.filesystem, "bricks": [str(b) for b in s.bricks],
             "size_bytes": s.size_bytes, "share_bytes": s.share_bytes, "message": s.message}
            for s in cap.shared_filesystems
        ],
    }


def _both(n: int) -> dict:
    """A size for people (``text``) and programs (``bytes``: TB and TiB round to 0.0 on a
    volume of a few GB)."""
    return {"bytes": n, "TB": round(n / 1e12, 1), "TiB": round(n / 2**40, 1),
            "text": f"{format_bytes(n, digits=1)} ({format_bytes(n, binary=True, digits=1)})"}


def plan_volume(topo: Topology, volume: Volume, failures: Iterable[str] = (),
                auto_place: bool = False, model: Model | None = None,
                question: _estimate.Question | None = None, draft: bool = False) -> PlanResult:
    """Check, place, size, fail and spell out one volume. Never raises for a bad layout:
    every problem is a ``Finding``. Raises ``ValueError`` only for a failure spec that names
    nothing in the topology (``failures.FailureSpecError``). ``model``: a calibrated
    throughput model (``calibration.fit``); without one the estimate is uncalibrated.
    ``question``: the files at once and block sizes the estimate answers for.
    ``draft=True``: rules, sets, capacity, findings and failure state only; ``tolerance``,
    ``estimate`` and the commands wait for ``finish_plan`` (the canvas redraws an edit on a
    draft and finishes it when the GUI is idle)."""
    failed_bricks = _failures.resolve_failures(topo, volume, failures)
    note = ""
    if auto_place:
        placed = _placement.place(topo, volume.bricks, volume.layout)
        note = placed.note
        if placed.bricks is not None:
            volume = replace(volume, bricks=list(placed.bricks))
    index = TopologyIndex(topo)
    check = _layout.check_volume(topo, volume, index)
    findings = list(check.findings)
    if check.accepted:
        sets, cap = _capacity.analyse(topo, volume, check.sets, check.resolved, index)
        findings.extend(_capacity.shared_filesystem_findings(cap))
        state = _failures.volume_state(topo, sets, failed_bricks, volume.options)
        if draft:
            tolerance = est = None
        else:
            tolerance = _failures.tolerance(topo, sets, volume.options)
            est = _estimate.estimate(topo, volume, sets, model, index=index, question=question)
    else:  # gluster refuses it: no sets, capacity, failures or state to show
        sets, cap, tolerance, state, est = [], None, None, None, None
    findings.extend(option_findings(volume, check.resolved.replica))
    commands = () if draft else _commands(topo, volume, findings, check.resolved)
    return PlanResult(
        volume=volume,
        gluster_type=check.resolved.gluster_type,
        findings=tuple(findings),
        sets=tuple(sets),
        capacity=cap,
        tolerance=tolerance,
        state=state,
        commands=commands,
        estimate=est,
        placement_note=note,
        mount_commands=gluster_cli.mount_commands(topo, volume) if commands else (),
        topology=topo,
        draft=draft,
    )


def _commands(topo: Topology, volume: Volume, findings: Sequence[Finding],
              resolved=None) -> tuple[gluster_cli.HostCommand, ...]:
    """The volume's gluster commands, none while any finding is an error."""
    if any(f.severity == ERROR for f in findings):
        return ()
    try:
        return gluster_cli.volume_commands(topo, volume, resolved=resolved)
    except ValueError:  # a name no gluster command can carry; the findings say why
        return ()


def finish_plan(plan: PlanResult, model: Model | None = None,
                question: _estimate.Question | None = None) -> PlanResult:
    """A ``plan_volume(..., draft=True)`` plan with what the draft left out (tolerance,
    estimate, commands): the very plan ``plan_volume`` gives without ``draft``. Any other
    plan is returned as it is."""
    if not plan.draft or plan.topology is None:
        return plan
    topo, volume = plan.topology, plan.volume
    if plan.refused:
        tolerance = est = None
    else:
        sets = list(plan.sets)
        tolerance = _failures.tolerance(topo, sets, volume.options)
        est = _estimate.estimate(topo, volume, sets, model, question=question)
    commands = _commands(topo, volume, plan.findings)
    return replace(plan, tolerance=tolerance, estimate=est, commands=commands,
                   mount_commands=gluster_cli.mount_commands(topo, volume) if commands else (), draft=False)


def option_findings(volume: Volume, replica_count: int | None = None) -> list[Finding]:
    """Each volume option gluster would refuse in ``volume set`` (after creating the volume,
    so provisioning would stop half-way): an error in gluster's words."""
    out = []
    for check in gluster_options.check_volume_options(volume.options, volume.layout, replica_count,
                                                              volume.name):
        if check.problem:
            out.append(Finding(ERROR, "volume-option", f"volume set {volume.name} {check.name} {check.value}: "
                                                        f"{check.problem}"))
    return out


def candidate_layouts(topo: Topology, bricks: Sequence[BrickRef]) -> list[Layout]:
    """Every layout gluster would accept (without errors; ``force`` or a confirmation may
    still be needed) for these bricks in this order, simplest first."""
    return _layout.candidate_layouts(len(bricks))
