"""A campaign as named steps with a state that is saved after every change (STYLE habit 12).

The steps, in order::

    baseline:<baseline id>:<workload id>     once per campaign, before the layouts
    preflight:<layout>                        for each layout, in the file's order:
    provision:<layout>
    cell:<layout>:<workload id>               one run per workload (its repeats inside)
    teardown:<layout>                         bricks left reusable for the next layout

A *cell* is a baseline or layout step that measures (one run, tagged in history with the
campaign and the cell key). Each step has a status: pending, running, done, failed or
skipped. ``CampaignState.provisioned`` lists the layouts whose volume may exist on the
cluster because this campaign started to create it and has not torn it down: the volumes
it knows about. It is saved *before* provisioning starts, so a campaign killed at any
instant knows which volume it may have left and tears it down on resume or cancel.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .spec import CampaignSpec

BASELINE, PREFLIGHT, PROVISION, CELL, TEARDOWN = "baseline", "preflight", "provision", "cell", "teardown"

PENDING, RUNNING, DONE, FAILED, SKIPPED = "pending", "running", "done", "failed", "skipped"
STEP_STATUSES = (PENDING, RUNNING, DONE, FAILED, SKIPPED)

# campaign statuses
C_NEW, C_RUNNING, C_PAUSED, C_INTERRUPTED = "new", "running", "paused", "interrupted"
C_CANCELLED, C_FAILED, C_COMPLETE, C_ABANDONED = "cancelled", "failed", "complete", "abandoned"
STATE_VERSION = 1


@dataclass(frozen=True)
class CampaignStep:
    key: str
    kind: str          # BASELINE | PREFLIGHT | PROVISION | CELL | TEARDOWN
    layout: str = ""   # the layout (volume) name; the baseline id for BASELINE
    workload: str = ""  # the workload id of a cell or baseline
    title: str = ""

    @property
    def measures(self) -> bool:
        """A cell: one benchmark run (layout × workload, or baseline × workload)."""
        return self.kind in (BASELINE, CELL)


def campaign_steps(spec: CampaignSpec) -> list[CampaignStep]:
    steps: list[CampaignStep] = []
    for b in spec.baselines:
        for w in spec.workloads:
            steps.append(CampaignStep(f"baseline:{b.id}:{w.id}", BASELINE, b.id, w.id,
                                      f"{w.id} on {b.label}"))
    for vol in spec.layouts:
        name = vol.name
        steps.append(CampaignStep(f"preflight:{name}", PREFLIGHT, name, title=f"pre-flight for {name}"))
        steps.append(CampaignStep(f"provision:{name}", PROVISION, name, title=f"provision {name}"))
        for w in spec.workloads:
            steps.append(CampaignStep(f"cell:{name}:{w.id}", CELL, name, w.id, f"{w.id} on {name}"))
        steps.append(CampaignStep(f"teardown:{name}", TEARDOWN, name, title=f"tear down {name}"))
    return steps


@dataclass
class StepState:
    status: str = PENDING
    message: str = ""
    failures: int = 0                # failed attempts (a cancelled or interrupted one is not a failure)
    run_ids: list[str] = field(default_factory=list)   # every run started for this cell, oldest first
    run_id: str = ""                 # the run that counts: the one that completed the cell
    started_at: float | None = None
    ended_at: float | None = None

    @property
    def seconds(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "message": self.message, "failures": self.failures,
                "run_ids": list(self.run_ids), "run_id": self.run_id, "started_at": self.started_at,
                "ended_at": self.ended_at}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "StepState":
        return cls(status=str(d.get("status", PENDING)), message=str(d.get("message", "")),
                   failures=int(d.get("failures", 0)), run_ids=[str(x) for x in d.get("run_ids", [])],
                   run_id=str(d.get("run_id", "")), started_at=d.get("started_at"), ended_at=d.get("ended_at"))


@dataclass
class CampaignState:
    campaign_id: str
    steps: dict[str, StepState]
    status: str = C_NEW
    message: str = ""
    provisioned: list[str] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)   # each start/resume: when, pid, how it ended

    @classmethod
    def fresh(cls, campaign_id: str, steps: list[CampaignStep]) -> "CampaignState":
        return cls(campaign_id, {s.key: StepState() for s in steps})

    def step(self, key: str) -> StepState:
        return self.steps[key]

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in STEP_STATUSES}
        for st in self.steps.values():
            out[st.status] = out.get(st.status, 0) + 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "campaign_id": self.campaign_id, "status": self.status,
                "message": self.message, "provisioned": list(self.provisioned),
                "sessions": list(self.sessions),
                "steps": {k: v.to_json() for k, v in self.steps.items()}}

    @classmethod
    def from_json(cls, d: dict[str, Any], steps: list[CampaignStep]) -> "CampaignState":
        """The saved state, fitted to ``steps`` (a step the state lacks is pending)."""
        saved = d.get("steps", {})
        return cls(campaign_id=str(d["campaign_id"]),
                   steps={s.key: StepState.from_json(saved[s.key]) if s.key in saved else StepState() for s in steps},
                   status=str(d.get("status", C_NEW)), message=str(d.get("message", "")),
                   provisioned=[str(x) for x in d.get("provisioned", [])],
                   sessions=list(d.get("sessions", [])))

    def begin_session(self, resumed: bool) -> None:
        import os

        self.sessions.append({"started_at": time.time(), "pid": os.getpid(), "resumed": resumed})

    def where(self, steps: list[CampaignStep]) -> str:
        """Where the campaign stands, in words: the step it stopped at, or what is left."""
        for s in steps:
            st = self.steps[s.key]
            if st.status in (RUNNING, FAILED) or (st.status == PENDING and st.message.startswith("cancelled")):
                return f"{s.title} ({st.message or st.status})"
        left = [s for s in steps if self.steps[s.key].status == PENDING]
        return f"next: {left[0].title}" if left else "every step finished"
