"""The words and figures of a change, for every place a person reads them: the Change tab, the
change history and the PDF change record.

They read the JSON forms (``ChangePlan.to_json()`` and a stored change's state, as
``store.changes`` keeps them), so a change shown while planned, while running, from the
history months later and on paper says the same thing in the same words.

- ``span(seconds)``: a duration as a person reads it ("45 s", "4 min", "1 h 20 min");
  ``range_text(doc)``: a predicted duration with its range ("~4 min (2–9 min)");
- ``figure_rows(plan)``: (what, before, after) for capacity, layout and failures survived;
- ``movement_text(plan)``: the data that moves and how long that should take;
- ``step_rows(plan, state)``: each step with its prediction and, once run, its status, its
  measured time and what it said.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .changemodel import span
from .units import format_bytes, format_utc

STATUS_WORDS = {"pending": "not run", "running": "running", "done": "done", "skipped": "already done",
                "failed": "FAILED"}
KIND_WORDS = {"expand": "expand", "rebalance": "rebalance", "fix-layout": "fix-layout", "shrink": "shrink",
              "replace": "replace", "raise-redundancy": "raise redundancy", "migrate": "migrate"}


def range_text(doc: Mapping[str, float] | None) -> str:
    """A predicted duration ``{"low", "expected", "high"}`` as '~4 min (2–9 min)'."""
    if not doc:
        return "–"
    low, expected, high = (float(doc.get(k) or 0.0) for k in ("low", "expected", "high"))
    return f"~{span(expected)} ({span(low)}–{span(high)})"


def kinds_text(kinds) -> str:
    if isinstance(kinds, str):
        kinds = [k.strip() for k in kinds.split(",") if k.strip()]
    return ", ".join(KIND_WORDS.get(k, k) for k in kinds) or "no change"


def _failures(doc: Mapping[str, Any] | None, key: str) -> str:
    if not doc or doc.get(key) is None:
        return "–"
    worst, best = doc[key].get("worst"), doc[key].get("best")
    return f"{worst}" if worst == best else f"{worst} (up to {best})"


def figure_rows(plan: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(what, now, after the change) as the planner figured them; empty for a refused plan."""
    before, after = plan.get("before"), plan.get("after")
    if not before or not after:
        return []
    rows = [("layout", f"{before['layout']} ({before['type']})", f"{after['layout']} ({after['type']})"),
            ("usable capacity", format_bytes(before["usable_bytes"]), format_bytes(after["usable_bytes"])),
            ("size df shows", format_bytes(before["df_bytes"]), format_bytes(after["df_bytes"])),
            ("raw capacity", format_bytes(before["raw_bytes"]), format_bytes(after["raw_bytes"])),
            ("server failures survived", _failures(before, "node_failures_survived"),
             _failures(after, "node_failures_survived"))]
    if before.get("site_failures_survived") is not None or after.get("site_failures_survived") is not None:
        rows.append(("site failures survived", _failures(before, "site_failures_survived"),
                     _failures(after, "site_failures_survived")))
    return rows


def measured(rates: str) -> bool:
    """The plan's times come from rates a change on this history measured (the movement's
    ``rates`` words: each source 'measured: …'), not from the uncalibrated default."""
    sources = [r.strip() for r in (rates or "").split(" / ") if r.strip()]
    return bool(sources) and all(r.startswith("measured") for r in sources)


def time_word(rates: str) -> str:
    """What a plan's times are: 'a prediction' from measured rates, else 'an estimate'."""
    return "a prediction" if measured(rates) else "an estimate"


def time_basis(rates: str) -> str:
    """The same in a few more words, for a plan's head line (its data line names the rates)."""
    return "a prediction from measured rates" if measured(rates) else "an estimate, uncalibrated"


def movement_text(plan: Mapping[str, Any]) -> str:
    """'2.1 GB in about 3,400 files and directories move; that should take ~4 min (2–9 min)
    (an estimate: uncalibrated: …)' — 'a prediction: measured: …' once a change was measured."""
    m = plan.get("movement") or {}
    nbytes, entries = int(m.get("bytes") or 0), int(m.get("entries") or 0)
    seconds = m.get("predicted_seconds")
    rates = m.get("rates") or ""
    word = time_word(rates)
    if not nbytes and not entries:
        return f"No file data moves; the steps should take {range_text(seconds)} ({word})."
    what = f"{format_bytes(nbytes)} in about {entries:,} files and directories" if nbytes else \
        f"about {entries:,} files and directories (metadata only)"
    return f"{what} move; that should take {range_text(seconds)} ({word}{': ' + rates if rates else ''})."


@dataclass(frozen=True)
class StepRow:
    number: int
    key: str
    title: str
    host: str
    reason: str
    predicted: str            # '~4 min (2–9 min)' or '–'
    predicted_expected: float | None
    status: str               # pending | running | done | skipped | failed
    status_words: str
    measured: float | None    # seconds the step took (None: not run, or running)
    started: str              # 'YYYY-MM-DD HH:MM:SS' UTC or ''
    message: str

    @property
    def measured_text(self) -> str:
        return span(self.measured) if self.measured is not None else ""

    @property
    def ratio(self) -> float | None:
        """Measured ÷ predicted (None when either is missing or the prediction is zero)."""
        if self.measured is None or not self.predicted_expected:
            return None
        return self.measured / self.predicted_expected


def step_rows(plan: Mapping[str, Any], state: Mapping[str, Any] | None = None) -> list[StepRow]:
    states = (state or {}).get("steps", {})
    rows = []
    for i, step in enumerate(plan.get("steps") or [], 1):
        st = states.get(step["key"], {})
        status = st.get("status") or "pending"
        predicted = step.get("predicted_seconds")
        seconds = st.get("seconds")
        started = st.get("started_at")
        rows.append(StepRow(i, step["key"], step["title"], step.get("host", ""), step.get("reason", ""),
                            range_text(predicted), float(predicted["expected"]) if predicted else None, status,
                            STATUS_WORDS.get(status, status),
                            float(seconds) if seconds is not None and status in ("done", "failed", "skipped") else None,
                            format_utc(float(started), "%Y-%m-%d %H:%M:%S") if started else "", st.get("message") or ""))
    return rows


def totals(rows: list[StepRow]) -> tuple[float, float]:
    """(predicted seconds of the steps that ran, their measured seconds): the comparison a
    change record makes (a step skipped as already done counts in neither)."""
    ran = [r for r in rows if r.status == "done" and r.measured is not None and r.predicted_expected is not None]
    return sum(r.predicted_expected for r in ran), sum(r.measured for r in ran)


def brick_lines(plan: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """What happens to which brick, grouped: ('added', [...]), ('retired', [...]), ('replaced', ['a by b'])."""
    bricks = plan.get("bricks") or []
    new = [b["brick"] for b in bricks if b["role"] == "new"]
    retiring = [b["brick"] for b in bricks if b["role"] == "retiring"]
    replaced = [f"{b['brick']} by {b['partner']}" for b in bricks if b["role"] == "replaced"]
    out = []
    for word, items in (("added", new), ("retired", retiring), ("replaced", replaced)):
        if items:
            out.append((word, items))
    return out
