"""What a volume does when bricks, nodes or sites fail, and how many failures it survives.

Rules (gluster 10):
- replica sets follow AFR client quorum (xlators/cluster/afr/src/afr.c
  ``fix_quorum_options``; docs "arbiter-volumes-and-quorum"). ``cluster.quorum-type``
  "auto" needs more than half of the set's bricks up, or exactly half including the set's
  first brick; "fixed" needs ``cluster.quorum-count``; "none" needs one. When the volume does
  not set it, AFR uses "auto" for sets of more than two bricks (replica 3, arbiter) and
  "none" for replica 2. Since glusterfs 3.13 a set without quorum is unavailable (ENOTCONN)
  for reads and writes alike, no longer read-only. The arbiter counts for quorum but holds
  no file data: a set whose only brick up is the arbiter serves nothing.
- disperse sets work with at most ``redundancy`` bricks lost, and not at all beyond that.
- a plain distribute "set" is one brick.
- ``replica 2 thin-arbiter 1`` (seen on the lab): a pair serves while both bricks are up, or one
  brick and the thin-arbiter; one brick with the thin-arbiter down stops it, whatever
  ``cluster.quorum-type`` says. The one thin-arbiter brick is a member of every pair.
A set is UP (nothing failed), DEGRADED (something failed, still readable) or DOWN. The
volume reads (writes) when every set does; any DOWN set makes the volume DOWN (the files
hashed to it are gone).

Tolerance: "worst" is the most failures of the volume's nodes (sites) that are survived
whichever ones fail: the fewest that can stop some set, minus one; computed per set by a
greedy count (kill the units holding most of the set's bricks first), exact. "best" is the
most that can fail when the right ones do: exhaustive for up to ``EXACT_UNITS`` units, and
otherwise a greedy (fail the units holding fewest bricks first while every set survives),
which is exact when each unit holds bricks of one set only and a lower bound otherwise
(``Tolerance.best_exact`` says which).
"""

from __future__ import annotations

from collections import Counter
from itertools import chain, combinations, repeat
from operator import attrgetter, is_
from typing import Callable, Iterable, Sequence

from .planmodel import DEGRADED, DOWN, UP, BrickSet, SetState, Tolerance, VolumeState
from .topology import BrickRef, Topology, Volume

EXACT_UNITS = 12

_NODE, _BRICKS, _INDEX = attrgetter("node"), attrgetter("bricks"), attrgetter("index")
_REDUNDANCY, _ARBITER, _THIN = attrgetter("redundancy"), attrgetter("arbiter"), attrgetter("thin_arbiter")


class FailureSpecError(ValueError):
    """A failure spec that names nothing in the topology."""


def resolve_failures(topo: Topology, volume: Volume, specs: Iterable[str]) -> frozenset[BrickRef]:
    """``node2``, ``site:Helsinki``, ``brick:node2:/data/b1`` -> the volume's failed bricks."""
    failed: set[BrickRef] = set()
    specs = [spec for spec in (raw.strip() for raw in specs) if spec]
    if not specs:  # the usual case: no need to hash every brick of the volume
        return frozenset()
    in_volume = set(volume.bricks)
    if volume.thin_arbiter_brick is not None:
        in_volume.add(volume.thin_arbiter_brick)
    nodes = {n.name: n for n in topo.nodes}
    for spec in specs:
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
    """("auto" | "fixed" | "none" | "" for AFR's default, quorum-count)."""
    opts = volume_options or {}
    kind = opts.get("cluster.quorum-type", "").strip().lower()
    try:
        count = int(opts.get("cluster.quorum-count", "0"))
    except ValueError:
        count = 0
    return (kind if kind in ("auto", "fixed", "none") else ""), count


def _works(s: BrickSet, lost: int, data_lost: int, first_lost: bool,
           quorum: tuple[str, int]) -> tuple[bool, bool]:
    """(readable, writable) of a set that lost ``lost`` bricks (``data_lost`` of them not
    the arbiter; ``first_lost``: the set's first brick among them)."""
    n = len(s.bricks)
    if s.redundancy:  # disperse
        ok = lost <= s.redundancy
        return ok, ok
    if n == 1 or (s.thin_arbiter and s.arbiter is None):  # a pair without a reachable thin-arbiter
        ok = lost == 0
        return ok, ok
    if data_lost >= n - (s.arbiter is not None):
        return False, False  # no brick with file data left
    up = n - lost
    kind, count = ("auto", 0) if s.thin_arbiter else quorum  # two of the pair and thin-arbiter
    if not kind:
        kind = "auto" if n > 2 else "none"
    if kind == "none":
        ok = True
    elif kind == "fixed" and count > 0:
        ok = up >= count
    else:
        ok = 2 * up > n or (2 * up == n and not first_lost)
    return ok, ok


def set_works(s: BrickSet, up: Callable[[BrickRef], bool], quorum: tuple[str, int] = ("", 0)) -> tuple[bool, bool]:
    """(readable, writable) of one set given which bricks are up."""
    down = [b for b in s.bricks if not up(b)]
    return _works(s, len(down), sum(1 for b in down if b != s.arbiter), bool(s.bricks) and s.bricks[0] in down, quorum)


_UP_STATES: dict[int, SetState] = {}


def _up_state(index: int) -> SetState:
    """``SetState(index, UP, True, True, ())``, shared: it is frozen, and a plan of 8,000
    sets with nothing failed would otherwise build 8,000 equal ones each time."""
    state = _UP_STATES.get(index)
    if state is None:
        state = _UP_STATES[index] = SetState(index, UP, True, True, ())
    return state


def volume_state(topo: Topology, sets: Iterable[BrickSet], failed: frozenset[BrickRef],
                 options: dict[str, str] | None = None) -> VolumeState:
    if not failed:
        shared = _UP_STATES
        return VolumeState(tuple([shared.get(i) or _up_state(i) for i in map(_INDEX, sets)]),
                           True, True, UP)
    quorum = _quorum(options)
    states = []
    for s in sets:
        lost = tuple(b for b in s.bricks if b in failed)
        if not lost:
            states.append(_up_state(s.index))
            continue
        data_lost = sum(1 for b in lost if b != s.arbiter)
        readable, writable = _works(s, len(lost), data_lost, s.bricks[0] in lost, quorum)
        states.append(SetState(s.index, DEGRADED if readable else DOWN, readable, writable, lost))
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

def _fewest(need: int, ranked: list[int]) -> int | None:
    """How many of the largest counts (``ranked``, descending) reach ``need``."""
    if need <= 0:
        return 0
    total = 0
    for k, c in enumerate(ranked, 1):
        total += c
        if total >= need:
            return k
    return None


def _min_units_to_break(s: BrickSet, units: Sequence[str], quorum: tuple[str, int]) -> int:
    """The fewest units whose failure stops ``s`` reading or writing (exact)."""
    n = len(units)
    if s.thin_arbiter and s.arbiter is None:
        return 1  # a pair without a reachable thin-arbiter stops when either brick fails
    kind, count = ("auto", 0) if s.thin_arbiter else quorum
    if not kind:
        kind = "auto" if n > 2 else "none"
    has_arbiter = s.arbiter is not None
    if len(set(units)) == n:  # one brick per unit: the common case, in closed form
        if s.redundancy:
            return min(s.redundancy + 1, n)
        if n == 1:
            return 1
        data = n - has_arbiter
        if kind == "none":
            return data
        if kind == "fixed" and count > 0:
            return min(data, n - count + 1)
        return min(data, n // 2 + 1, n // 2 if n % 2 == 0 else n)
    counts = Counter(units)
    ranked = sorted(counts.values(), reverse=True)
    if s.redundancy:
        return _fewest(s.redundancy + 1, ranked) or len(ranked)
    if n == 1:
        return 1
    data_units = set(units[:-1] if has_arbiter else units)
    options = [len(data_units)]  # every data brick lost: no reads
    if kind == "fixed" and count > 0:
        options.append(_fewest(n - count + 1, ranked) or len(ranked))
    elif kind != "none":
        k = _fewest(n // 2 + 1, ranked)  # fewer than half up
        if k is not None:
            options.append(k)
        if n % 2 == 0:  # exactly half up, without the first brick
            first = units[0]
            rest = sorted((c for u, c in counts.items() if u != first), reverse=True)
            k = _fewest(n // 2 - counts[first], rest)
            if k is not None:
                options.append(k + 1)
    return min(options)


class _Classes:
    """The sets grouped into classes that no failure of units can tell apart: the same units
    in the same order (so the same first brick and arbiter), the same size and redundancy.
    Every set of a class is up, degraded or down together, so the tolerance is worked out on
    one set per class; ``weight`` counts its sets. Auto-placed volumes have few classes
    (24,000 bricks on 1,000 nodes: 1,000 node classes, 3 site classes)."""

    __slots__ = ("sets", "units", "weight")

    def __init__(self, sets: Iterable[BrickSet], units_of: Iterable[tuple[str, ...]],
                 weights: Iterable[int] | None = None):
        self.sets: list[BrickSet] = []
        self.units: list[tuple[str, ...]] = []
        self.weight: list[int] = []
        if weights is None:
            sets = sets if isinstance(sets, list) else list(sets)
            if _one_kind(sets):
                # one kind of set (the usual case): the classes are the distinct unit tuples,
                # counted and found in C
                units_of = list(units_of)
                weight = Counter(units_of)
                first = dict(zip(reversed(units_of), range(len(units_of) - 1, -1, -1)))
                self.units = list(weight)
                self.weight = list(weight.values())
                self.sets = [sets[first[u]] for u in self.units]
                return
        seen: dict[tuple, int] = {}
        for s, units, w in zip(sets, units_of, repeat(1) if weights is None else weights):
            key = (units, s.redundancy, s.arbiter is None, s.thin_arbiter)
            i = seen.get(key)
            if i is None:
                seen[key] = len(self.sets)
                self.sets.append(s)
                self.units.append(units)
                self.weight.append(w)
            else:
                self.weight[i] += w

    def mapped(self, unit_of: Callable[[str], str]) -> "_Classes":
        """The same sets with each unit replaced by ``unit_of(unit)`` (nodes -> sites)."""
        memo = {u: unit_of(u) for u in {u for units in self.units for u in units}}
        return _Classes(self.sets, (tuple(map(memo.__getitem__, units)) for units in self.units),
                        self.weight)

    def worst(self, quorum: tuple[str, int]) -> int:
        """The fewest units whose failure stops some set, minus one. A class with one brick
        per unit breaks at a count that depends only on its shape (size, redundancy, arbiter,
        thin-arbiter): worked out once per shape, not once per class (1,000 node classes of
        an auto-placed volume are one shape)."""
        sets, units = self.sets, self.units
        shapes = list(zip(map(len, units), map(len, map(set, units)), map(_REDUNDANCY, sets),
                          map(is_, map(_ARBITER, sets), repeat(None)), map(_THIN, sets)))
        # one representative per shape of distinct units, and every class with a unit twice
        picked = {shape: i for i, shape in enumerate(shapes) if shape[0] == shape[1]}
        picked = sorted(picked.values()) + [i for i, shape in enumerate(shapes) if shape[0] != shape[1]]
        return min([_min_units_to_break(sets[i], units[i], quorum) for i in picked], default=1) - 1


class _Tracker:
    """Per-class loss counts while units fail one by one (for the best case)."""

    def __init__(self, classes: _Classes, quorum: tuple[str, int]):
        self.sets, self.quorum = classes.sets, quorum
        self.reset()
        self.hits: dict[str, list[tuple[int, int, int, bool]]] = {}
        hits = self.hits
        for i, (s, units) in enumerate(zip(classes.sets, classes.units)):
            last = len(units) - 1 if s.arbiter is not None else -1
            if len(set(units)) == len(units):  # one brick per unit: no merging needed
                for j, u in enumerate(units):
                    entry = (i, 1, j != last, j == 0)
                    if u in hits:
                        hits[u].append(entry)
                    else:
                        hits[u] = [entry]
                continue
            per: dict[str, list[int]] = {}
            for j, u in enumerate(units):
                c = per.setdefault(u, [0, 0, 0])
                c[0] += 1
                c[1] += j != last
                c[2] |= j == 0
            for u, (c, d, f) in per.items():
                hits.setdefault(u, []).append((i, c, d, bool(f)))

    def reset(self) -> None:
        self.lost = [0] * len(self.sets)
        self.data_lost = [0] * len(self.sets)
        self.first_lost = [False] * len(self.sets)

    def fail(self, unit: str) -> bool:
        """Fail ``unit`` if every set keeps reading and writing; says whether it did."""
        hits = self.hits.get(unit, ())
        for i, c, d, f in hits:
            if not all(_works(self.sets[i], self.lost[i] + c, self.data_lost[i] + d,
                              self.first_lost[i] or f, self.quorum)):
                return False
        for i, c, d, f in hits:
            self.lost[i] += c
            self.data_lost[i] += d
            self.first_lost[i] = self.first_lost[i] or f
        return True


def _best(classes: _Classes, quorum: tuple[str, int], worst: int) -> tuple[int, bool]:
    """(the most units that can fail with every set still working, whether that is exact)."""
    units = sorted({u for us in classes.units for u in us})
    tracker = _Tracker(classes, quorum)
    if len(units) <= EXACT_UNITS:
        for k in range(len(units), worst, -1):
            for dead in combinations(units, k):
                tracker.reset()
                if all(tracker.fail(u) for u in dead):
                    return k, True
        return max(worst, 0), True
    # Greedy: fail the units holding the fewest bricks first, those holding a set's first
    # brick last (quorum "auto" tolerates losing half of an even set only without it),
    # skipping any whose failure would stop a set. Exact when no unit holds bricks of two
    # sets (each set is then its own budget); otherwise a lower bound.
    weight = classes.weight
    load = {u: sum(c * weight[i] for i, c, _, _ in hits) for u, hits in tracker.hits.items()}
    firsts = {u: sum(weight[i] for i, _, _, f in hits if f) for u, hits in tracker.hits.items()}
    order = sorted(units, key=lambda x: (load[x], firsts[x], x))
    failed = sum(1 for u in order if tracker.fail(u))
    disjoint = all(len(hits) == 1 and weight[hits[0][0]] == 1 for hits in tracker.hits.values())
    return max(failed, worst), disjoint


def _one_kind(sets: list[BrickSet]) -> bool:
    """Whether every set has the same redundancy, arbiter-or-not and thin-arbiter (each field
    read in C: 8,000 sets)."""
    if len(sets) < 2:
        return True
    if len(set(map(_REDUNDANCY, sets))) > 1 or len(set(map(_THIN, sets))) > 1:
        return False
    return list(map(_ARBITER, sets)).count(None) in (0, len(sets))


def _node_classes(sets: list[BrickSet]) -> _Classes:
    members = [s.bricks for s in sets]
    size = len(members[0]) if members else 0
    if size and set(map(len, members)) == {size}:  # whole sets: tuples built in C
        names = [r.node for m in members for r in m]
        return _Classes(sets, zip(*[iter(names)] * size))
    return _Classes(sets, (tuple([r.node for r in m]) for m in members))


def worst_node_failures(sets: Iterable[BrickSet], options: dict[str, str] | None = None) -> int:
    """How many node failures the volume survives whichever nodes fail."""
    sets = list(sets)
    return _node_classes(sets).worst(_quorum(options))


def tolerance(topo: Topology, sets: Iterable[BrickSet], options: dict[str, str] | None = None) -> Tolerance:
    sets = list(sets)
    quorum = _quorum(options)
    nodes = _node_classes(sets)
    nodes_worst = nodes.worst(quorum)
    nodes_best, exact = _best(nodes, quorum, nodes_worst)
    node_site = {n.name: n.site for n in topo.nodes}
    if len({node_site.get(u, "") for us in nodes.units for u in us} - {""}) < 2:
        return Tolerance(nodes_worst, nodes_best, None, None, exact)
    sites = nodes.mapped(lambda u: node_site.get(u) or f"(no site: {u})")
    sites_worst = sites.worst(quorum)
    sites_best, sites_exact = _best(sites, quorum, sites_worst)
    return Tolerance(nodes_worst, nodes_best, sites_worst, sites_best, exact and sites_exact)
