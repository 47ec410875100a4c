"""What makes a step's figures honest, decided in one place for every workload: each running
worker's progress when the first one finished (the stonewall), whether the workers really
started together, and whether a read was a cold one.

Pure functions and one small bookkeeping class over the objects ``RunContext`` holds; the
context applies them to each step it records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from ..core import stats
from ..core.results import WorkerTiming
from ..core.units import format_bytes, format_rate

#: a worker's I/O counter may exceed the bytes it reports by its own small I/O (a dd's status
#: line, fio's JSON, loading a program) but not by more than this, nor fall short of them
COUNTER_SLACK_BYTES = 1 << 20
COUNTER_SLACK_SHARE = 0.05

#: the stonewall is "not measured" when the running workers' calls in flight at the first
#: finish (a counter moves only when a call returns) could hide more than this share of it;
#: below that it is reported with that margin (``stonewall_margin``)
COARSE_SHARE = 0.25

#: start skew (p99) above this share of the step's window is flagged "start-skew"
SKEW_SHARE = 0.01

#: a re-read this many times faster than the first read of the same point is a cache figure
FASTER_THAN_COLD = 1.5


@dataclass(frozen=True)
class StepProgress:
    """The progress curves of a step's workers (by position), why there are none, and how many
    bytes the running workers' calls in flight at the first finish could hold (a counter moves
    only when a read()/write() returns: a curve is a lower bound by up to one call)."""

    curves: dict[int, stats.Curve]
    why_not: str = ""
    in_flight: float = 0.0


def curves_for(workers: Sequence[WorkerTiming], runs: Sequence[Any]) -> StepProgress:
    """Progress curves for the recorded ``workers`` from the ``runs`` (``WorkerRun``) they came
    from; none, with the reason, when some running worker's progress is unknown, its counter
    does not track the bytes it reports (I/O that bypasses read()/write(): libaio, io_uring,
    mmap), or its calls are so large that a call in flight could hide much of the figure."""
    by_key = {(r.timing.worker, r.timing.host): r for r in runs}
    curves: dict[int, stats.Curve] = {}
    first_end = min((w.end for w in workers), default=0.0)
    in_flight, step = 0.0, 0
    for i, w in enumerate(workers):
        run = by_key.get((w.worker, w.host))
        running = w.end > first_end
        if run is None or abs(run.timing.start - w.start) > 1e-6:
            if running:
                return StepProgress({}, "the step's workers are not the ones Brickyard last ran")
            continue
        if run.counter is None or not run.curve:
            if running:
                return StepProgress({}, "the workload names no I/O counter that follows its workers' progress")
            continue
        counted = run.curve[-1][1]
        if w.bytes and not (w.bytes * (1 - COUNTER_SLACK_SHARE) <= counted
                            <= w.bytes * (1 + COUNTER_SLACK_SHARE) + COUNTER_SLACK_BYTES):
            return StepProgress({}, f"worker {w.worker} on {w.host} reports {format_bytes(w.bytes)} but its "
                                    f"{run.counter} counter says {format_bytes(counted)}: its I/O does not all pass "
                                    "through read()/write() (libaio, io_uring or mmap), so its progress is unknown")
        curves[i] = run.curve
        if running:
            in_flight += min(run.counter_step, max(0, w.bytes - stats.progress_at(run.curve, first_end)))
            step = max(step, run.counter_step)
    moved = sum(w.bytes if w.end <= first_end else min(w.bytes, stats.progress_at(curves.get(i, ()), first_end))
                for i, w in enumerate(workers))
    if in_flight > COARSE_SHARE * moved:
        return StepProgress({}, f"a counter moves only when a call returns, and these workers move "
                                f"{format_bytes(step, binary=True)} per call: at the first finish the running "
                                f"workers' calls in flight held up to {format_bytes(in_flight, binary=True)}, "
                                f"{100 * in_flight / max(moved, 1):.0f} % of what had been counted")
    return StepProgress(curves, "", in_flight)


def skew_note(skew: dict[str, float], window: float, workers: int) -> str:
    """A sentence when the workers' start spread is a noticeable share of the step, else ''."""
    p99 = skew.get("p99", 0.0)
    if workers < 2 or window <= 0 or not p99 or p99 <= SKEW_SHARE * window:
        return ""
    return (f"workers started up to {p99 * 1000:.1f} ms apart (p99), {100 * p99 / window:.1f} % of this "
            f"{window:.3g} s step (flagged above {SKEW_SHARE * 100:g} %): they did not all run the whole "
            "window together; the stonewall and the sum of rates are affected more than the headline")


@dataclass
class ColdReads:
    """The first-read figure of each sweep point in this run, and the check of later reads
    against it. A "first read" reads data this run had not read before (after a cache drop);
    a re-read of data read earlier that is much faster came from a cache no drop reached
    (a hypervisor's, a controller's), so it is flagged and never the headline."""

    first: dict[Any, float] = field(default_factory=dict)

    def judge(self, key: Any, first_read: bool | None, value: float, usable: bool) -> tuple[str, str]:
        """(flag, note) for a read step of sweep point ``key`` whose headline is ``value``."""
        if key is None or first_read is None or not value:
            return "", ""
        if first_read:
            if usable and key not in self.first:
                self.first[key] = value
            return "", ""
        cold = self.first.get(key)
        if cold is None:
            return "", "no first read of this point to compare this re-read with (a larger corpus gives one)"
        if value > FASTER_THAN_COLD * cold:
            return "faster-than-cold", (f"re-read at {value / cold:.1f}× the first read of the same point "
                                        f"({format_rate(value)} vs {format_rate(cold)}): probably served "
                                        "from a cache the drop did not reach")
        return "", ""
