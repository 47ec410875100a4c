"""Figures older Brickyard versions saved under a name that now means something else.

Before the agent sampled each worker's progress, ``stonewall_throughput`` was an estimate
(each worker's average rate × the first finisher's time: the sum of rates again when the
workers start together). Revision 0005 renamed the stored ones ``stonewall_estimate``; an old
export being imported is renamed the same way as it is stored."""

from __future__ import annotations

from brickyard.core.results import Metric

OLD_STONEWALL_LABEL = "bytes moved until the first worker finished ÷ that time (first-finisher)"
ESTIMATE_LABEL = ("an estimate saved before Brickyard measured the stonewall: each worker's average rate × the "
                  "first finisher's time (the sum of rates again when the workers start together)")


def stored_name(m: Metric) -> tuple[str, str]:
    """(name, label) a metric is stored under."""
    if m.name == "stonewall_throughput" and m.label == OLD_STONEWALL_LABEL:
        return "stonewall_estimate", ESTIMATE_LABEL
    return m.name, m.label
