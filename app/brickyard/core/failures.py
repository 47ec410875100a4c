"""What a volume does when bricks, nodes or sites fail, and how many failures it survives.

Rules (gluster 10):
- replica sets follow AFR client quorum. ``cluster.quorum-type`` "auto" (the default):
  writes need more than half of the set's bricks up, or exactly half including the set's
  first brick; "fixed" needs ``cluster.quorum-count`` bricks; "none" needs one. Without
  quorum the set turns read-only (EROFS) but still serves reads. The arbiter counts for
  quorum but holds no file data: a set whose only brick up is the arbiter reads nothing.
- disperse sets work with at most ``redundancy`` bricks lost, and not at all beyond that.
- a plain distribute "set" is one brick.
A set is UP (nothing failed), DEGRADED (something failed, still readable) or DOWN. The
volume reads (writes) when every set does; any DOWN set makes the volume DOWN (the files
hashed to it are gone).

Tolerance: "worst" is the most failures of the volume's nodes (sites) that are survived
whichever ones fail: the fewest that can stop some set, minus one; computed per set by a
greedy count (kill the units holding most of the set's bricks first), exact. "best" is the
most that can fail when the right ones do: exhaustive for up to ``EXACT_UNITS`` units, and
otherwise a greedy (fail the units holding fewest bricks first while every set survives),
which is exact when each unit holds bricks of one set only.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Callable, Iterable

from .planmodel import DEGRADED, DOWN, UP, BrickSet, SetState, Tolerance, VolumeState
from .topology import BrickRef, Topology, Volume

EXACT_UNITS = 12


class FailureSpecError(ValueError):
    """A failure spec that names nothing in the topology."""


def resolve_failures(topo: Topology, volume: Volume, specs: Iterable[str]) -> frozenset[BrickRef]:
    """``node2``, ``site:Helsinki``, ``brick:node2:/data/b1`` -> the volume's failed bricks."""
    in_volume = set(volume.bricks)
    failed: set[BrickRef] = set()
    nodes = {n.name: n for n in topo.nodes}
    for raw in specs:
        spec = raw.strip()
        if not spec:
            continue
        if spec.startswith("site:"):
            site = spec[5:]
            if topo.site(site) is None:
                known = ", ".join(s.name for s in topo.sites) or "none"
                raise FailureSpecError(f"--fail {spec}: no site named {site!r} (sites: {known})")
            members = {n.name for n in topo.nodes if n.site == site}
            failed.update(r for r in in_volume if r.node in members)
        elif spec.startswith("brick:"):
            try:
                ref = BrickRef.parse(spec[6:])
            except ValueError:
                raise FailureSpecError(f"--fail {spec}: write a brick as brick:node:/path") from None
            if ref not in in_volume:
                raise FailureSpecError(f"--fail {spec}: {ref} is not a brick of volume {volume.name}")
            failed.add(ref)
        else:
            name = spec.removeprefix("node:")
            if name not in nodes:
                raise FailureSpecError(f"--fail {spec}: no node named {name!r} "
                                       "(write node2, site:NAME or brick:node:/path)")
            failed.update(r for r in in_volume if r.node == name)
    return frozenset(failed)


def _quorum(volume_options: dict[str, str] | None) -> tuple[str, int]:
    opts = volume_options or {}
    kind = opts.get("cluster.quorum-type", "auto").strip().lower()
    try:
        count = int(opts.get("cluster.quorum-count", "0"))
    except ValueError:
        count = 0
    return (kind if kind in ("auto", "fixed", "none") else "auto"), count


def set_works(s: BrickSet, up: Callable[[BrickRef], bool], quorum: tuple[str, int] = ("auto", 0)) -> tuple[bool, bool]:
    """(readable, writable) of one set given which bricks are up."""
    n = len(s.bricks)
    up_count = sum(1 for b in s.bricks if up(b))
    if s.redundancy:  # disperse
        ok = n - up_count <= s.redundancy
        return ok, ok
    if n == 1:
        ok = up_count == 1
        return ok, ok
    readable = any(up(b) for b in s.bricks if b != s.arbiter)
    kind, count = quorum
    if kind == "none":
        has_quorum = up_count >= 1
    elif kind == "fixed" and count > 0:
        has_quorum = up_count >= count
    else:
        has_quorum = 2 * up_count > n or (2 * up_count == n and up(s.bricks[0]))
    return readable, readable and has_quorum


def volume_state(topo: Topology, sets: Iterable[BrickSet], failed: frozenset[BrickRef],
                 options: dict[str, str] | None = None) -> VolumeState:
    quorum = _quorum(options)
    states = []
    for s in sets:
        lost = tuple(b for b in s.bricks if b in failed)
        readable, writable = set_works(s, lambda b: b not in failed, quorum)
        state = UP if not lost else (DEGRADED if readable else DOWN)
        states.append(SetState(s.index, state, readable, writable, lost))
    readable = all(s.readable for s in states)
    writable = all(s.writable for s in states)
    if all(s.state == UP for s in states):
        overall = UP
    elif any(s.state == DOWN for s in states):
        overall = DOWN
    else:
        overall = DEGRADED
    return VolumeState(tuple(states), readable, writable, overall)


# ---- tolerance --------------------------------------------------------------------------

def _min_units_to_break(s: BrickSet, unit_of: Callable[[BrickRef], str], quorum: tuple[str, int]) -> int:
    """The fewest units whose failure stops ``s`` reading or writing (exact, greedy)."""
    counts = Counter(unit_of(b) for b in s.bricks)
    ranked = [c for _, c in counts.most_common()]
    n = len(s.bricks)

    def fewest(need: int, pool: list[int]) -> int | None:
        if need <= 0:
            return 0
        total = 0
        for k, c in enumerate(pool, 1):
            total += c
            if total >= need:
                return k
        return None

    if s.redundancy:
        return fewest(s.redundancy + 1, ranked) or len(ranked)
    if n == 1:
        return 1
    # Losing every data brick stops reads (and writes).
    data_counts = Counter(unit_of(b) for b in s.bricks if b != s.arbiter)
    options = [len(data_counts)]
    kind, count = quorum
    if kind == "fixed" and count > 0:
        k = fewest(n - count + 1, ranked)
        options.append(k if k is not None else len(ranked))
    elif kind != "none":
        k = fewest(n // 2 + 1, ranked)  # fewer than half up
        if k is not None:
            options.append(k)
        if n % 2 == 0:  # exactly half up, without the first brick
            first = unit_of(s.bricks[0])
            rest = [c for u, c in counts.most_common() if u != first]
            k = fewest(n // 2 - counts[first], rest)
            if k is not None:
                options.append(k + 1)
    return min(options)


def _worst(sets: list[BrickSet], unit_of: Callable[[BrickRef], str], quorum: tuple[str, int]) -> int:
    if not sets:
        return 0
    return min(_min_units_to_break(s, unit_of, quorum) for s in sets) - 1


def _survives(sets: list[BrickSet], dead: set[str], unit_of: Callable[[BrickRef], str],
              quorum: tuple[str, int]) -> bool:
    return all(all(set_works(s, lambda b: unit_of(b) not in dead, quorum)) for s in sets)


def _best(sets: list[BrickSet], units: list[str], unit_of: Callable[[BrickRef], str],
          quorum: tuple[str, int], worst: int) -> int:
    if len(units) <= EXACT_UNITS:
        for k in range(len(units), worst, -1):
            if any(_survives(sets, set(c), unit_of, quorum) for c in combinations(units, k)):
                return k
        return max(worst, 0)
    # Greedy: per set, fail its units holding fewest bricks first while the set survives;
    # a unit is failed only if every set it holds bricks of survives it.
    load = Counter(unit_of(b) for s in sets for b in s.bricks)
    sets_of: dict[str, list[BrickSet]] = {}
    for s in sets:
        for u in {unit_of(b) for b in s.bricks}:
            sets_of.setdefault(u, []).append(s)
    dead: set[str] = set()
    for u in sorted(units, key=lambda x: (load[x], x)):
        dead.add(u)
        if not _survives(sets_of.get(u, []), dead, unit_of, quorum):
            dead.discard(u)
    return max(len(dead), worst)


def tolerance(topo: Topology, sets: Iterable[BrickSet], options: dict[str, str] | None = None) -> Tolerance:
    sets = list(sets)
    quorum = _quorum(options)
    node_site = {n.name: n.site for n in topo.nodes}

    def node_of(b: BrickRef) -> str:
        return b.node

    def site_of(b: BrickRef) -> str:
        return node_site.get(b.node, "") or f"(no site: {b.node})"

    nodes = sorted({b.node for s in sets for b in s.bricks})
    sites = sorted({site_of(b) for s in sets for b in s.bricks})
    nodes_worst = _worst(sets, node_of, quorum)
    nodes_best = _best(sets, nodes, node_of, quorum, nodes_worst)
    if len({node_site.get(b.node, "") for s in sets for b in s.bricks} - {""}) < 2:
        return Tolerance(nodes_worst, nodes_best, None, None)
    sites_worst = _worst(sets, site_of, quorum)
    sites_best = _best(sets, sites, site_of, quorum, sites_worst)
    return Tolerance(nodes_worst, nodes_best, sites_worst, sites_best)
