"""Whose clock places each host's times in a multi-host step, and how far it can be trusted.

Clock exchanges bound each agent's offset from this workstation but cannot split a round
trip into its two directions: on a one-sided path (40 ms one way, nothing back) the usual
middle-of-the-round-trip offset is 20 ms wrong, a release scheduled through it runs 20 ms
late, and the same wrong offset places that host's starts back on time — the late start
hides itself. So the step is placed on the hosts' real-time clocks where they agree (NTP
keeps a cluster's within a millisecond, and the release is then one instant on every host's
own clock, whatever the paths), and each host's clock uncertainty — half the narrowest
interval the exchanges allow — is reported beside its start, because no exchange can check
those clocks more closely.

A host whose real-time clock provably differs from the others' (its interval leaves out the
time they agree on) is placed by its exchanges' middle instead, and said so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

from .agentclient import ClockSync

#: the real-time clock read back beside the monotonic one: how far apart two reads may be
WALL_READ_SLACK = 0.0002
#: a cross-host start this much after the step's first (or a clock this uncertain) is
#: flagged whatever the step's length
ABSOLUTE_SKEW = 0.005


@dataclass(frozen=True)
class HostClock:
    host: Any              # the key it was given by (a host name, a target)
    offset: float          # this host's monotonic clock − this workstation's, as used for the step
    uncertainty: float     # ± seconds: how far this host's times may be off the others'
    frame: str             # "real time" (its clock agrees with the others') or "exchanges"
    wall_gap: float = 0.0  # "exchanges": how far its real-time clock is off the others' (s)


def step_clocks(syncs: Mapping[Any, ClockSync], local_wall: float | None = None) -> dict[Any, HostClock]:
    """The clock each host's times are placed by (see the module's notes); ``syncs`` by any key."""
    local_wall = time.time() - time.monotonic() if local_wall is None else local_wall
    walls = {h: c for h, c in syncs.items() if c.wall_offset is not None}
    common = _agreed_wall_offset(walls)
    out: dict[Any, HostClock] = {}
    for host, c in syncs.items():
        r = c.wall_offset
        if common is not None and r is not None and abs(r - common) <= c.uncertainty + WALL_READ_SLACK:
            # host monotonic + its wall − the common real time = this workstation's real time
            out[host] = HostClock(host, common + local_wall - c.wall, c.uncertainty, "real time")  # type: ignore[operator]
        else:
            gap = (r - common) if common is not None and r is not None else 0.0
            out[host] = HostClock(host, c.offset, c.uncertainty, "exchanges", gap)
    return out


def _agreed_wall_offset(walls: Mapping[Any, ClockSync]) -> float | None:
    """The real-time offset (host − workstation) the hosts' clocks agree on: the middle of
    the interval all of them allow, or — when they do not all overlap — of the narrowest
    interval widened to the hosts that contain it."""
    if not walls:
        return None
    spans = {h: (c.wall_offset - c.uncertainty - WALL_READ_SLACK, c.wall_offset + c.uncertainty + WALL_READ_SLACK)
             for h, c in walls.items()}   # type: ignore[operator]
    low = max(a for a, _ in spans.values())
    high = min(b for _, b in spans.values())
    if low <= high:
        return (low + high) / 2
    tightest = min(walls, key=lambda h: walls[h].uncertainty)
    return walls[tightest].wall_offset


def uncertainty_note(clocks: Mapping[str, HostClock], window: float, share: float) -> tuple[list[str], str]:
    """(hosts whose clock uncertainty passes the threshold — ``share`` of the step or
    ``ABSOLUTE_SKEW`` — and a sentence naming them), or ([], '')."""
    limit = min(ABSOLUTE_SKEW, share * window) if window > 0 else ABSOLUTE_SKEW
    over = sorted((h for h, c in clocks.items() if c.uncertainty > limit), key=lambda h: -clocks[h].uncertainty)
    if not over:
        return [], ""
    parts = ", ".join(f"{h} ±{clocks[h].uncertainty * 1000:.1f} ms" for h in over)
    return over, (f"clock uncertainty {parts}: the clock exchanges with {'this host' if len(over) == 1 else 'these hosts'} "
                  f"cannot place {'its' if len(over) == 1 else 'their'} starts closer than that (a slow or one-sided "
                  f"path; flagged above {limit * 1000:.2g} ms), so a late start of up to that much would not show")
