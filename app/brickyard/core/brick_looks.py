"""What a planned volume says about each brick a view draws: the set it belongs to, its place
in the volume's brick order, whether it is an arbiter or the thin-arbiter, and whether the
failure scenario took it down. The canvas and the report's topology drawing both ask here,
so a brick reads the same on screen and on paper; each view only chooses colours, hatching
and words (no Qt here).

    looks = volume_looks(plan, failures)       # plan: core.plan.PlanResult or None
    looks.look("node2", "/data/b1", site="DC1")  # -> BrickLook(set_index=1, position=3, …)
    looks.failed.node_failed("node2", "DC1")

Failure specs are ``core.failures``' words: ``site:NAME``, ``brick:node:/path``, else a node
(``node2`` or ``node:node2``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, NamedTuple

if TYPE_CHECKING:
    from .plan import PlanResult

BrickKey = tuple[str, str]      # (node, path): hashed in C, which a canvas of 5,000 bricks notices


class BrickLook(NamedTuple):
    """How the plan wants one brick shown."""

    set_index: int | None = None    # 0-based replica/disperse set; None: not in the volume, or the
                                    # volume is one gluster refuses (its bricks keep their place, no set)
    position: int | None = None     # 1-based place in the volume's brick order (the thin-arbiter has none)
    arbiter: bool = False           # holds metadata only: an arbiter brick, or the thin-arbiter
    failed: bool = False            # down in the failure scenario
    set_state: str = ""             # its set's state in the scenario: "UP" | "DEGRADED" | "DOWN"
    thin_arbiter: bool = False      # the volume's one thin-arbiter brick, a member of every pair

    @property
    def in_volume(self) -> bool:
        return self.set_index is not None or self.position is not None or self.thin_arbiter


@dataclass(frozen=True)
class FailedParts:
    """The sites, nodes and bricks a failure scenario names, as written (not checked against a
    topology: ``core.failures.resolve_failures`` does that when planning)."""

    sites: frozenset[str] = frozenset()
    nodes: frozenset[str] = frozenset()
    bricks: frozenset[BrickKey] = frozenset()

    @classmethod
    def from_specs(cls, specs: Iterable[str]) -> "FailedParts":
        sites, nodes, bricks = set(), set(), set()
        for raw in specs:
            spec = raw.strip()
            if not spec:
                continue
            if spec.startswith("site:"):
                sites.add(spec[5:])
            elif spec.startswith("brick:"):
                node, sep, path = spec[6:].partition(":")
                if sep:
                    bricks.add((node, path))
            else:
                nodes.add(spec.removeprefix("node:"))
        return cls(frozenset(sites), frozenset(nodes), frozenset(bricks))

    def __bool__(self) -> bool:
        return bool(self.sites or self.nodes or self.bricks)

    def node_failed(self, node: str, site: str | None = None) -> bool:
        """The node is down: named itself, or its site is."""
        return node in self.nodes or (site is not None and site in self.sites)

    def site_failed(self, site: str) -> bool:
        return site in self.sites


@dataclass(frozen=True)
class VolumeLooks:
    """Every brick's look under one plan and failure scenario. ``looks`` holds the bricks the
    plan places (keyed by (node, path)); any other brick is ``look(...)``'s default: not in the
    volume, failed when its node, site or itself is named."""

    looks: dict[BrickKey, BrickLook] = field(default_factory=dict)
    failed: FailedParts = FailedParts()
    set_count: int = 0

    def look(self, node: str, path: str, site: str | None = None) -> BrickLook:
        found = self.looks.get((node, path))
        if found is not None and not found.thin_arbiter:
            return found
        named = self.failed.node_failed(node, site) or (node, path) in self.failed.bricks
        if found is None:
            return BrickLook(failed=named)
        if named and not found.failed:       # a thin-arbiter left out of the pairs: no set state says so
            return found._replace(failed=True)
        return found

    @property
    def has_arbiter(self) -> bool:
        return any(look.arbiter for look in self.looks.values())

    @property
    def any_failed(self) -> bool:
        return bool(self.failed) or any(look.failed for look in self.looks.values())


def volume_looks(plan: "PlanResult | None", failures: Iterable[str] = ()) -> VolumeLooks:
    """The looks of ``plan``'s bricks (none without a plan) under ``failures``.

    A volume gluster refuses has no sets: its bricks keep their place in the order, no set.
    The thin-arbiter brick (``replica 2 thin-arbiter 1``) is a member of every pair: it keeps
    the first pair's set, has no place in the order, and is an arbiter; it is marked even when
    the planner left it out of the pairs (a host the clients cannot use as one)."""
    parts = FailedParts.from_specs(failures)
    looks: dict[BrickKey, BrickLook] = {}
    if plan is None:
        return VolumeLooks(looks, parts, 0)
    positions = {(ref.node, ref.path): i + 1 for i, ref in enumerate(plan.volume.bricks)}
    if plan.refused:
        looks = {key: BrickLook(None, pos) for key, pos in positions.items()}
    states = {s.index: s for s in plan.state.sets} if plan.state is not None else {}
    ta = plan.volume.thin_arbiter_brick
    ta_key = (ta.node, ta.path) if ta is not None else None
    ta_failed = False
    for bset in plan.sets:
        state = states.get(bset.index)
        failed = {(r.node, r.path) for r in state.failed} if state is not None and state.failed else ()
        word = state.state if state is not None else ""
        arbiter = (bset.arbiter.node, bset.arbiter.path) if bset.arbiter is not None else None
        for ref in bset.bricks:
            key = (ref.node, ref.path)
            if key == ta_key:
                ta_failed = ta_failed or key in failed
                if key in looks:        # an earlier pair has it already
                    continue
            looks[key] = BrickLook(bset.index, positions.get(key), key == arbiter, key in failed, word)
    if ta_key is not None:
        first = looks.get(ta_key)
        looks[ta_key] = BrickLook(first.set_index if first is not None else None, None, True, ta_failed,
                                  first.set_state if first is not None else "", True)
    return VolumeLooks(looks, parts, len(plan.sets))
