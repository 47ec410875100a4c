"""``statistics.median`` and ``statistics.fmean`` without importing ``statistics`` at start:
it brings ``fractions``, ``decimal`` and ``random`` with it (6 ms of CPU at every start), and
the modules ``brickyard plan`` imports use it only when they fit or summarise measurements."""

from __future__ import annotations

import math
from typing import Any, Iterable


def median(data: Iterable[Any]) -> Any:
    import statistics

    return statistics.median(data)


def fmean(data: Iterable[Any], weights: Any = None) -> float:
    """``statistics.fmean``: for a list or tuple without weights its own arithmetic,
    ``fsum(data) / len(data)``, here (a plan's small-file figures ask for one)."""
    if weights is None and type(data) in (list, tuple) and data:
        return math.fsum(data) / len(data)
    import statistics

    return statistics.fmean(data) if weights is None else statistics.fmean(data, weights)
