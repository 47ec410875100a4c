"""Figures older Brickyard versions saved under a name that now means something else.

Before the agent sampled each worker's progress, ``stonewall_throughput`` was an estimate
(each worker's average rate × the first finisher's time: the sum of rates again when the
workers start together). Revision 0005 renamed the stored ones ``stonewall_estimate``; an old
export being imported is renamed the same way as it is stored.

Before there was a ``cancelled`` status a run the user cancelled ended ``partial`` (steps
kept) or ``failed`` (none), its error "cancelled by the user": revision 0006 gives the stored
ones their own status, and an old export being imported gets it as it is stored."""

from __future__ import annotations

from brickyard.core.results import Metric, RunResult, RunStatus

OLD_STONEWALL_LABEL = "bytes moved until the first worker finished ÷ that time (first-finisher)"
ESTIMATE_LABEL = ("an estimate saved before Brickyard measured the stonewall: each worker's average rate × the "
                  "first finisher's time (the sum of rates again when the workers start together)")


def stored_name(m: Metric) -> tuple[str, str]:
    """(name, label) a metric is stored under."""
    if m.name == "stonewall_throughput" and m.label == OLD_STONEWALL_LABEL:
        return "stonewall_estimate", ESTIMATE_LABEL
    return m.name, m.label


CANCELLED_ERROR = "cancelled by the user"


def stored_status(run: RunResult) -> RunStatus:
    """The status a run is stored under: a cancelled run of an older Brickyard is cancelled."""
    if run.status in (RunStatus.PARTIAL, RunStatus.FAILED) and run.error.startswith(CANCELLED_ERROR):
        return RunStatus.CANCELLED
    return run.status
