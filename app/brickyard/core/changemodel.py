"""What a change plan holds: the result types of ``core.change``, for the CLI, History and views.

A view draws a ``ChangePlan`` without asking anything else:

- ``current`` and ``result``: the volume as gluster has it now and as it will have it after
  the change (bricks in gluster's order; ``before.sets`` / ``after.sets`` group them);
- ``bricks``: one ``BrickChange`` per brick of either, with its role (kept, new, retiring,
  replaced, replacement), its set before and after, whether it is online now, its measured
  use and the bytes predicted to leave and to arrive;
- ``steps``: the ordered ``ChangeStep`` list, each with a reason, the host it runs on, the
  exact argument lists, the read-only command it watches (waits) and a predicted duration;
- ``before`` → ``after``: capacity and the failures survived (the planner's own figures);
- ``movement``: the bytes and entries that move and the time that takes, as a prediction
  with its range and the source of its rates;
- ``refusals``: why the change cannot run as drawn, each with the route that does work.
Every type is frozen and has ``to_json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .planmodel import Finding
from .topology import BrickRef, Volume
from .units import format_bytes

# brick roles
KEPT, NEW, RETIRING, REPLACED, REPLACEMENT = "kept", "new", "retiring", "replaced", "replacement"

# kinds of change (a plan may combine replace, expand and shrink, in that order)
EXPAND, REBALANCE, FIX_LAYOUT, SHRINK, REPLACE, RAISE, MIGRATE = (
    "expand", "rebalance", "fix-layout", "shrink", "replace", "raise-redundancy", "migrate")

# kinds of step
PROBE, PEERS_WAIT, MKDIR, HEAL_CHECK, REPLACE_BRICK, HEAL_WAIT, ADD_BRICK = (
    "peer-probe", "peers-wait", "mkdir", "heal-check", "replace-brick", "heal-wait", "add-brick")
REBALANCE_START, REBALANCE_WAIT, REMOVE_START, REMOVE_WAIT, REMOVE_COMMIT, REMOVE_STOP, READ_BACK = (
    "rebalance-start", "rebalance-wait", "remove-brick-start", "remove-brick-wait", "remove-brick-commit",
    "remove-brick-stop", "read-back")
OPTIONS_RAISE, OPTIONS_RESTORE = "options-raise", "options-restore"


def span(seconds: float | None) -> str:
    """A predicted or measured duration as an admin reads it, no more exact than a prediction
    is: '0 s', '4.2 s', '45 s', '4 min', '1 h 20 min', '3 days 4 h'; '–' for None."""
    if seconds is None:
        return "–"
    s = max(float(seconds), 0.0)
    if s < 10:
        return f"{s:.1f} s" if s >= 0.05 else "0 s"
    if s < 90:
        return f"{s:.0f} s"
    if s < 3570:                   # below what rounds to 60 min
        return f"{s / 60:.0f} min"
    if s < 86400 - 30:             # below what rounds to 24 h
        h, m = divmod(int(round(s / 60)), 60)
        return f"{h} h {m} min" if m else f"{h} h"
    d, h = divmod(int(round(s / 3600)), 24)
    days = f"{d} day{'s' if d != 1 else ''}"
    return f"{days} {h} h" if h else days


@dataclass(frozen=True)
class Range:
    """A predicted quantity: what is expected and the range it should fall in."""

    low: float
    expected: float
    high: float

    def __add__(self, other: "Range") -> "Range":
        return Range(self.low + other.low, self.expected + other.expected, self.high + other.high)

    def text(self) -> str:
        """A duration: '~4 min (2–9 min)', '~4 h (2 h 10 min–9 h)'."""
        return f"~{span(self.expected)} ({span(self.low)}–{span(self.high)})"

    def to_json(self) -> dict:
        return {"low": round(self.low, 3), "expected": round(self.expected, 3), "high": round(self.high, 3)}


ZERO = Range(0.0, 0.0, 0.0)


@dataclass(frozen=True, init=False)
class BrickChange:
    ref: BrickRef
    role: str                        # KEPT | NEW | RETIRING | REPLACED | REPLACEMENT
    set_before: int | None           # index among the current sets (None: not in the volume now)
    set_after: int | None            # index among the result's sets (None: leaves the volume)
    arbiter: bool = False
    online: bool | None = None       # None: not a brick of the volume yet
    used_bytes: int | None = None    # measured now (its filesystem's use)
    bytes_out: int = 0               # predicted to leave it
    bytes_in: int = 0                # predicted to arrive on it
    partner: BrickRef | None = None  # REPLACED: its replacement; REPLACEMENT: the brick it replaces

    def __init__(self, ref: BrickRef, role: str, set_before: int | None, set_after: int | None,
                 arbiter: bool = False, online: bool | None = None, used_bytes: int | None = None,
                 bytes_out: int = 0, bytes_in: int = 0, partner: BrickRef | None = None):
        # frozen, but set in one step (as planmodel.BrickSet): a 4,800-brick plan makes one per brick
        self.__dict__.update(ref=ref, role=role, set_before=set_before, set_after=set_after, arbiter=arbiter,
                             online=online, used_bytes=used_bytes, bytes_out=bytes_out, bytes_in=bytes_in,
                             partner=partner)

    def to_json(self) -> dict:
        return {"brick": str(self.ref), "role": self.role, "set_before": self.set_before,
                "set_after": self.set_after, "arbiter": self.arbiter, "online": self.online,
                "used_bytes": self.used_bytes, "bytes_out": self.bytes_out, "bytes_in": self.bytes_in,
                "partner": str(self.partner) if self.partner else None}


@dataclass(frozen=True)
class Figures:
    """A volume's figures before or after the change (``core.plan.plan_volume``'s own)."""

    layout: str                      # gluster's words: "3 x 2 = 6"
    type: str                        # "distributed-replicate"
    sets: tuple[tuple[BrickRef, ...], ...]
    usable_bytes: int
    raw_bytes: int
    df_bytes: int                    # what df on a client shows as the size
    nodes_worst: int                 # node failures survived whichever fail
    nodes_best: int
    sites_worst: int | None = None
    sites_best: int | None = None

    def to_json(self) -> dict:
        return {"layout": self.layout, "type": self.type, "sets": [[str(b) for b in s] for s in self.sets],
                "usable_bytes": self.usable_bytes, "raw_bytes": self.raw_bytes, "df_bytes": self.df_bytes,
                "node_failures_survived": {"worst": self.nodes_worst, "best": self.nodes_best},
                "site_failures_survived": None if self.sites_worst is None else
                {"worst": self.sites_worst, "best": self.sites_best}}


@dataclass(frozen=True)
class ChangeStep:
    key: str                                   # stable id: "add-brick", "replace-brick:node3:/b"
    kind: str
    title: str                                 # "add 1 replica set (2 bricks)"
    reason: str                                # why it is there, in the admin's words
    host: str                                  # topology name of the node it runs on
    commands: tuple[tuple[str, ...], ...] = ()  # what it runs, in order
    bricks: tuple[BrickRef, ...] = ()
    watch: tuple[str, ...] = ()                # a wait step: the read-only command it polls
    predicted: Range | None = None             # seconds
    undo: str = ""

    def to_json(self) -> dict:
        return {"key": self.key, "kind": self.kind, "title": self.title, "reason": self.reason,
                "host": self.host, "commands": [list(c) for c in self.commands],
                "bricks": [str(b) for b in self.bricks], "watch": list(self.watch) or None,
                "predicted_seconds": self.predicted.to_json() if self.predicted else None, "undo": self.undo}


@dataclass(frozen=True)
class Refusal:
    code: str                        # "cannot-hold-data", "set-on-one-server", "disperse-geometry", …
    message: str
    route: tuple[str, ...] = ()      # what does work, step by step

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "route": list(self.route)}


@dataclass(frozen=True)
class Movement:
    """What the change moves and how long that takes (a prediction)."""

    bytes: int = 0                   # logical bytes migrated or healed
    entries: int = 0                 # files and directories, estimated from inode counts
    seconds: Range = ZERO
    rates: str = ""                  # where the rates come from, in words

    def text(self) -> str:
        if not self.bytes and not self.entries:
            return "no data moves"
        return (f"{format_bytes(self.bytes)} in about {self.entries:,} entries; prediction "
                f"{self.seconds.text()} ({self.rates})")

    def to_json(self) -> dict:
        return {"bytes": self.bytes, "entries": self.entries, "predicted_seconds": self.seconds.to_json(),
                "rates": self.rates}


@dataclass(frozen=True)
class ChangePlan:
    volume: str
    kinds: tuple[str, ...]
    current: Volume
    result: Volume
    bricks: tuple[BrickChange, ...] = ()
    steps: tuple[ChangeStep, ...] = ()
    before: Figures | None = None
    after: Figures | None = None
    movement: Movement = field(default_factory=Movement)
    refusals: tuple[Refusal, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[Finding, ...] = ()
    origin: str = ""                 # the node gluster commands run on

    @property
    def ok(self) -> bool:
        """Nothing refuses it: the steps may run."""
        return not self.refusals

    @property
    def nothing_to_do(self) -> bool:
        return self.ok and not self.steps

    def role(self, role: str) -> list[BrickRef]:
        return [b.ref for b in self.bricks if b.role == role]

    def summary(self) -> list[str]:
        """The plan in a few lines (the CLI's header, a report's first paragraph)."""
        if not self.ok:
            return [f"REFUSED: {r.message}" for r in self.refusals]
        if self.nothing_to_do:
            return [f"{self.volume}: the live volume already matches the drawing; nothing to change"]
        lines = [f"{self.volume}: {', '.join(self.kinds)}"]
        if self.before and self.after:
            lines.append(f"layout {self.before.layout} -> {self.after.layout}; usable "
                         f"{format_bytes(self.before.usable_bytes)} -> {format_bytes(self.after.usable_bytes)}; "
                         f"node failures survived {self.before.nodes_worst} -> {self.after.nodes_worst}")
        lines.append(f"moves {self.movement.text()}")
        return lines

    def to_json(self) -> dict:
        return {"volume": self.volume, "ok": self.ok, "kinds": list(self.kinds),
                "nothing_to_do": self.nothing_to_do,
                "current": {"bricks": [str(b) for b in self.current.bricks]},
                "result": {"bricks": [str(b) for b in self.result.bricks]},
                "before": self.before.to_json() if self.before else None,
                "after": self.after.to_json() if self.after else None,
                "bricks": [b.to_json() for b in self.bricks],
                "movement": self.movement.to_json(),
                "steps": [s.to_json() for s in self.steps],
                "refusals": [r.to_json() for r in self.refusals], "notes": list(self.notes),
                "warnings": [w.to_json() for w in self.warnings], "origin": self.origin}
