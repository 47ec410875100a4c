"""How far a campaign has come and how long is left: a cell's work relative to the others
(``cell_work``: its workload's engine steps × its file size) and the time left from the plan's
steps and the times the finished ones took (``time_left``). ``CampaignRunner`` feeds them what
it has timed; nothing here runs anything."""

from __future__ import annotations

from typing import Mapping, Sequence

from ..bench import registry
from .spec import CampaignSpec
from .state import PENDING, RUNNING, CampaignState, CampaignStep


def cell_work(spec: CampaignSpec, step: CampaignStep) -> float:
    """How much a cell measures, relative to the other cells: its workload's engine steps
    (points × repeats) times its file size where it has one. 1.0 when the workload cannot say."""
    w = next((w for w in spec.workloads if w.id == step.workload), None)
    if w is None:
        return 1.0
    try:
        workload = registry.find(w.workload)
        values = workload.resolve(w.params)
        steps = max(1, int(workload.step_count(values)))
    except Exception:  # noqa: BLE001 - an estimate only: a plugin that cannot say counts as one unit
        return 1.0
    size = next((values[k] for k in ("size", "file_size", "total_size") if isinstance(values.get(k), int)), 0)
    return float(steps) * (size / 2**20 if size > 0 else 1.0)


def time_left(steps: Sequence[CampaignStep], state: CampaignState, done: Mapping[str, float],
              work: Mapping[str, float], running: CampaignStep | None, current: float,
              elapsed: float) -> float | None:
    """Seconds left, from the plan's steps and sizes: a cell's time is its work (the
    workload's engine steps × its file size, ``cell_work``) at the rate the cells measured so
    far took (or the running cell's pace, before one finished); a pre-flight, provision or
    teardown takes what the finished ones of its kind took. None before anything can be
    timed. (Counting every step alike said "00:11 left" 4 s into a 2 m 20 s campaign: a
    pre-flight is not a benchmark.)

    ``done``: the seconds each step finished this session took; ``work``: ``cell_work`` per
    cell; ``running``: the step under way, ``current`` the fraction of it done and ``elapsed``
    the seconds since it started."""
    by_key = {s.key: s for s in steps}
    cells = [(by_key[k], t) for k, t in done.items() if k in by_key and by_key[k].measures]
    rate = (sum(t for _, t in cells) / sum(work.get(s.key, 1.0) for s, _ in cells)) if cells else None
    if rate is None and running is not None and running.measures and current > 0.02:
        rate = elapsed / (current * work.get(running.key, 1.0))
    infra: dict[str, list[float]] = {}
    for k, t in done.items():
        if k in by_key and not by_key[k].measures:
            infra.setdefault(by_key[k].kind, []).append(t)
    every_infra = [t for ts in infra.values() for t in ts]
    if rate is None and not every_infra:
        return None
    fallback = sum(done.values()) / len(done) if done else None
    total = 0.0
    for s in steps:
        status = state.step(s.key).status
        if status not in (PENDING, RUNNING):
            continue
        if s.measures:
            guess = work.get(s.key, 1.0) * rate if rate is not None else fallback
        else:
            times = infra.get(s.kind) or every_infra
            guess = sum(times) / len(times) if times else fallback
        if guess is None:
            return None
        if status == RUNNING and s is running:
            guess = guess * (1 - current) if s.measures else max(0.0, guess - elapsed)
        total += guess
    return max(0.0, total)
