"""What a step may hold before it is recorded: finite numbers only.

A workload is a plugin: a parser bug can hand the engine ``nan`` (fio's ``"bw": "nan"``, a
0 ÷ 0) or ``inf``, a string, or an integer beyond 64 bits. None of those is a measurement, and
none may reach the history database (``samples.value`` is NOT NULL, JSON has no NaN). The
engine's ``RunContext.record`` passes every step through here: a figure that is not a finite
number is left out, the step is invalid with a problem naming the workload and the figure,
and the step is flagged ``workload-bug``. The measurement goes on; nothing crashes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..core.results import Metric, WorkerTiming

FLAG = "non-finite-figure"
MEANING = ("a figure was not a finite number (NaN, infinite, not a number at all): the note names it and "
           "whose bug it is; it is left out and the step is invalid")
INT64 = 2 ** 63 - 1


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None (NaN, ±inf, not a number, beyond a double)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        out = float(value)
    except OverflowError:
        return None
    return out if math.isfinite(out) else None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}… ({len(text)} characters)"


@dataclass
class Checked:
    """What survived the check, and a problem line for each figure that did not."""

    who: str          # who reported the figures: "workload dd", "Brickyard"
    culprit: str      # whose bug a bad one is: "the dd workload", "Brickyard (please report it)"
    problems: list[str] = field(default_factory=list)

    def _refuse(self, what: str, value: Any, why: str = "not a finite number") -> None:
        self.problems.append(f"{self.who} reported {what} = {_shown(value)}, {why}: a bug in {self.culprit}; "
                             "left out of the step")

    def metrics(self, metrics: Iterable[Metric]) -> list[Metric]:
        kept = []
        for m in metrics:
            value = _number(m.value)
            if value is None:
                self._refuse(str(m.name), m.value)
            else:
                kept.append(m if value == m.value and type(m.value) is float else Metric(m.name, value, m.unit, m.label))
        return kept

    def workers(self, workers: Iterable[WorkerTiming]) -> list[WorkerTiming]:
        kept = []
        for w in workers:
            where = f"worker {w.worker} on {w.host}"
            bad = [(name, getattr(w, name)) for name in ("start", "end") if _number(getattr(w, name)) is None]
            bad += [(name, getattr(w, name)) for name in ("bytes", "ops")
                    if isinstance(getattr(w, name), bool) or not isinstance(getattr(w, name), int)
                    or not 0 <= getattr(w, name) <= INT64]
            if not isinstance(w.worker, int) or isinstance(w.worker, bool) or not -INT64 <= w.worker <= INT64:
                bad.append(("worker", w.worker))
            for name, value in bad:
                why = ("not a whole number of 0 to 2^63-1" if name in ("bytes", "ops", "worker")
                       else "not a finite number")
                self._refuse(f"{where} {name}", value, why + " (its timing is left out)")
            if not bad:
                kept.append(w)
        return kept

    def values(self, what: str, data: Any) -> Any:
        """``data`` (step parameters, start skew) with each non-finite number as None."""
        if isinstance(data, dict):
            return {k: self.values(f"{what}[{k!r}]", v) for k, v in data.items()}
        if isinstance(data, (list, tuple)):
            return type(data)(self.values(f"{what}[{i}]", v) for i, v in enumerate(data))
        if isinstance(data, float) and not math.isfinite(data):
            self._refuse(what, data)
            return None
        if isinstance(data, int) and not isinstance(data, bool) and not -INT64 - 1 <= data <= INT64:
            self._refuse(what, data, "beyond 64 bits")
            return None
        return data

    def numbers(self, what: str, data: dict[str, Any]) -> dict[str, float]:
        """A name → number map (start skew) without the entries that are not finite numbers."""
        kept = {}
        for key, value in data.items():
            number = _number(value)
            if number is None:
                self._refuse(f"{what}[{key!r}]", value)
            else:
                kept[key] = number
        return kept

    def repeat(self, params: dict[str, Any]) -> int:
        """The step's repeat number from its parameters (0 when it has none)."""
        value = params.get("repeat", 0)
        if value is None:
            return 0
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= INT64:
            return value
        if isinstance(value, float) and value.is_integer() and 0 <= value <= INT64:
            return int(value)
        self._refuse("params['repeat']", value, "not a whole number of 0 or more")
        return 0
