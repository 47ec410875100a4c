"""A campaign's decision table: each layout planned on the campaign's topology beside the runs
its cells completed, each baseline beside its own runs. Only the run that completed a cell
counts (an interrupted or failed attempt stays in history, tagged, but out of the table)."""

from __future__ import annotations

from typing import Any, Sequence

from ..core.decision import build_table
from ..core.decisiontable import BASELINE, DecisionTable, LayoutEntry
from ..core.plan import plan_volume
from ..core.results import RunResult
from .spec import CampaignSpec
from .state import CampaignState, campaign_steps


def stored_campaign(store: Any, campaign_id: str) -> tuple[Any, CampaignSpec, CampaignState]:
    """(record, spec, state) of a campaign in the history (a unique id prefix will do), as it
    was started and as far as it got: what a report or a view reads. Raises ``StoreError``
    for an unknown id and ``CampaignFileError`` if the stored file no longer loads (e.g. a
    workload plugin is gone)."""
    from .runner import _from_record

    record = store.campaigns.get(campaign_id)
    spec, state = _from_record(record)
    return record, spec, state


def counted_runs(spec: CampaignSpec, state: CampaignState) -> dict[str, list[str]]:
    """Run ids per row key (layout name or baseline id), in step order."""
    out: dict[str, list[str]] = {}
    for step in campaign_steps(spec):
        if step.measures:
            rid = state.step(step.key).run_id
            if rid:
                out.setdefault(step.layout, []).append(rid)
    return out


def campaign_entries(spec: CampaignSpec, state: CampaignState,
                     runs: Sequence[RunResult]) -> list[LayoutEntry]:
    by_id = {r.run_id: r for r in runs}
    counted = counted_runs(spec, state)
    entries = []
    for vol in spec.layouts:
        topology = spec.topology_for(vol.name)
        plan = plan_volume(topology, vol)
        mine = [by_id[r] for r in counted.get(vol.name, []) if r in by_id]
        entries.append(LayoutEntry(vol.name, plan, tuple(mine), topology=topology))
    for b in spec.baselines:
        mine = [by_id[r] for r in counted.get(b.id, []) if r in by_id]
        entries.append(LayoutEntry(b.target, None, tuple(mine), label=b.label, kind=BASELINE))
    return entries


def counted_stored_runs(spec: CampaignSpec, state: CampaignState, store: Any) -> list[RunResult]:
    """The runs that completed the campaign's cells, as stored in ``store`` (a ``HistoryStore``),
    in step order; a run deleted from history since is left out."""
    ids = [rid for rids in counted_runs(spec, state).values() for rid in rids]
    present = store.has_runs(ids) if ids else set()
    return store.load_runs([i for i in ids if i in present])


def campaign_table(spec: CampaignSpec, state: CampaignState, store: Any, **options: Any) -> DecisionTable:
    """The decision table of a campaign from the runs in ``store`` (a ``HistoryStore``)."""
    return build_table(campaign_entries(spec, state, counted_stored_runs(spec, state, store)), **options)


def session_spans(state: CampaignState, runs: Sequence[RunResult] = ()) -> list[tuple[float, float, bool]]:
    """Each session of the campaign as (start, end, ended by itself), epoch seconds. A session
    that was killed recorded no end: it is taken to have ended at the last thing it is known
    to have done — a step starting or ending, a run starting, or a run's last measured step
    (``runs``: every run its cells started, the killed ones too) — before the next session
    began. The time between the kill and the resume belongs to no session."""
    starts = [float(s["started_at"]) for s in state.sessions]
    marks = [t for st in state.steps.values() for t in (st.started_at, st.ended_at) if t is not None]
    for run in runs:
        marks.append(run.started_at)
        if run.ended_at is not None:
            marks.append(run.ended_at)
        else:          # killed mid-run: its steps' span on the agents' clocks, from its start
            times = [(w.start, w.end) for step in run.steps for w in step.workers]
            if times:
                marks.append(run.started_at + max(e for _, e in times) - min(b for b, _ in times))
    spans = []
    for i, session in enumerate(state.sessions):
        start = starts[i]
        if session.get("ended_at"):
            spans.append((start, float(session["ended_at"]), True))
            continue
        until = starts[i + 1] if i + 1 < len(starts) else float("inf")
        inside = [t for t in marks if start <= t < until]
        spans.append((start, max(inside, default=start), False))
    return spans
