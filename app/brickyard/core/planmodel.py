"""The result types of the planner, shared by the planner modules and re-exported by ``plan``.

All frozen, so a ``PlanResult`` can be handed to the canvas, the CLI and the reports without
anyone changing it under another's feet.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from itertools import repeat
from typing import Iterable

try:
    from _collections import _tuplegetter
except ImportError:   # another Python: what namedtuple falls back to
    from operator import itemgetter as _itemgetter

    def _tuplegetter(index: int, doc: object) -> property:
        return property(_itemgetter(index), doc=doc)

from .topology import Brick, BrickRef, Node, Topology

ERROR = "error"
NEEDS_FORCE = "needs-force"
WARNING = "warning"
SEVERITIES = (ERROR, NEEDS_FORCE, WARNING)

UP = "UP"
DEGRADED = "DEGRADED"
DOWN = "DOWN"


@dataclass(frozen=True)
class Finding:
    """One thing gluster would say about a layout.

    ``severity``: "error" (gluster refuses), "needs-force" (refused unless ``force``),
    "warning" (gluster would ask "Do you want to continue?"; ``--mode=script`` answers yes).
    ``code`` is a stable id (e.g. "replica-2-split-brain"); ``message`` uses gluster's own
    words where it has them.
    """

    severity: str
    code: str
    message: str
    bricks: tuple[BrickRef, ...] = ()

    def to_json(self) -> dict:
        return {"severity": self.severity, "code": self.code, "message": self.message,
                "bricks": [str(b) for b in self.bricks]}


@dataclass(frozen=True, init=False, eq=False)
class BrickSet(tuple):
    """One replica or disperse set (for plain distribute: one brick).

    A frozen dataclass whose instance is the tuple of its fields: ``BrickSet(...)``,
    ``dataclasses.fields``/``replace``, the repr and ``FrozenInstanceError`` are a frozen
    dataclass's, equality and hashing those of the fields' tuple. A plan of 8,000 sets builds
    them all in one C-level ``map`` (``build_sets``) instead of a Python ``__init__`` per set,
    which was a fifth of the planning core steps on 24,000 bricks."""

    __slots__ = ()

    index: int
    bricks: tuple[BrickRef, ...]
    arbiter: BrickRef | None
    data_bricks: int          # replica: 1; disperse: disperse - redundancy; distribute: 1
    usable_bytes: int
    redundancy: int = 0       # disperse: bricks it may lose; replica/distribute: 0
    # replica 2 thin-arbiter 1: ``bricks`` ends with the volume's thin-arbiter brick, which is
    # also ``arbiter`` (it holds no file data). A thin-arbiter the clients cannot reach (on a
    # host running glusterd) is left out: then the pair needs both of its bricks.
    thin_arbiter: bool = False

    def __new__(cls, index: int, bricks: tuple[BrickRef, ...], arbiter: BrickRef | None,
                data_bricks: int, usable_bytes: int, redundancy: int = 0, thin_arbiter: bool = False):
        return tuple.__new__(cls, (index, bricks, arbiter, data_bricks, usable_bytes, redundancy, thin_arbiter))

    def __init__(self, index: int, bricks: tuple[BrickRef, ...], arbiter: BrickRef | None,
                 data_bricks: int, usable_bytes: int, redundancy: int = 0, thin_arbiter: bool = False):
        pass   # everything was set by __new__ (the signature is the dataclass's)

    def __getnewargs__(self) -> tuple:
        return tuple(self)   # pickle and copy: the fields, to __new__

    @property
    def size(self) -> int:
        return len(self.bricks)

    @property
    def gluster_bricks(self) -> tuple[BrickRef, ...]:
        """The set as gluster's ``volume info`` lists it: a thin-arbiter is not a member
        (``Replicate 1 x 2 = 2``; its brick is the volume's own ``Thin-arbiter-path``)."""
        if self.thin_arbiter and self.arbiter is not None and self.bricks and self.bricks[-1] == self.arbiter:
            return self.bricks[:-1]
        return self.bricks

    @property
    def gluster_arbiter(self) -> BrickRef | None:
        """The set's arbiter as gluster lists it (a thin-arbiter is none)."""
        return None if self.thin_arbiter else self.arbiter


def _field_getters(cls: type) -> None:
    """Each field of a tuple-backed dataclass read by its position (C-level, like a
    namedtuple's fields); the class attributes the dataclass left (defaults) are replaced."""
    for i, f in enumerate(fields(cls)):
        setattr(cls, f.name, _tuplegetter(i, None))


_field_getters(BrickSet)


def build_sets(indexes: Iterable[int], members: Iterable[tuple[BrickRef, ...]], arbiters: Iterable[BrickRef | None],
               data_bricks: Iterable[int], usable_bytes: Iterable[int], redundancy: Iterable[int],
               thin_arbiter: Iterable[bool]) -> list[BrickSet]:
    """``[BrickSet(*fields) for fields in zip(...)]``, built in C (no Python call per set):
    each argument gives one field of every set, in order (``itertools.repeat`` for a field
    all sets share)."""
    return list(map(_NEW, repeat(BrickSet), zip(indexes, members, arbiters, data_bricks, usable_bytes,
                                                  redundancy, thin_arbiter)))


_NEW = tuple.__new__


@dataclass(frozen=True)
class SharedFilesystem:
    """Bricks of one volume that live on one filesystem of one node."""

    node: str
    filesystem: str
    bricks: tuple[BrickRef, ...]
    size_bytes: int           # the filesystem's size (the largest of the bricks' sizes)
    share_bytes: int          # what each brick reports: size ÷ number of bricks (shared-brick-count)
    message: str


@dataclass(frozen=True)
class Capacity:
    raw_bytes: int            # every brick, arbiters included
    usable_bytes: int         # what files can fill
    overhead_bytes: int       # raw - usable (replicas, parity, arbiters, unequal bricks)
    arbiter_bytes: int        # part of raw that sits in arbiter bricks (metadata only)
    shared_filesystems: tuple[SharedFilesystem, ...] = ()
    df_bytes: int = 0         # what ``df`` on a client will show as the volume's size (= usable)
    # what ``df`` on a client shows as available now, from the bricks' measured free space
    # (None: some data brick's was never measured), and the oldest of those measurements
    free_now_bytes: int | None = None
    free_measured: str = ""

    @property
    def efficiency(self) -> float:
        return self.usable_bytes / self.raw_bytes if self.raw_bytes else 0.0


@dataclass(frozen=True)
class Tolerance:
    """How many failures the volume survives staying readable and writable.

    worst: the smallest number of failures that can stop it, minus one (any this many
    failures are survived); best: the largest number of failures that can be survived
    when the right ones fail. ``sites_*`` is None when the volume's bricks are in fewer than
    two named sites. ``best_exact`` is False when a best case is a greedy lower bound (many
    nodes, each holding bricks of several sets): at least that many can fail.
    """

    nodes_worst: int
    nodes_best: int
    sites_worst: int | None
    sites_best: int | None
    best_exact: bool = True


@dataclass(frozen=True)
class SetState:
    index: int
    state: str                # "UP" | "DEGRADED" | "DOWN"
    readable: bool
    writable: bool
    failed: tuple[BrickRef, ...]


@dataclass(frozen=True)
class VolumeState:
    sets: tuple[SetState, ...]
    readable: bool
    writable: bool
    state: str                # "UP" | "DEGRADED" | "DOWN"


class TopologyIndex:
    """O(1) look-ups of nodes and bricks by name, built once per plan (1,000-node topologies).

    ``shared_nodes``: the nodes on which two or more bricks name the same filesystem; a
    volume with no brick on them has no shared filesystem to account for.
    ``mount_nodes``: the nodes with a brick whose recorded mount is "/", ends in "/" or is
    one of the node's brick paths; elsewhere no brick can be in the root partition or be a
    mount point. (Read here, in topology order: the same reads in a volume's brick order
    miss the CPU caches on large topologies.)

    What one plan asks about its volume's brick list several times (the Brick of each
    reference, the node names, the distinct paths) is worked out once per list: the index
    remembers the last list it was asked about."""

    __slots__ = ("nodes", "per_node", "paths", "shared_nodes", "mount_nodes", "ambiguous", "_last", "_names",
                 "_paths")

    def __init__(self, topo: Topology):
        nodes = topo.nodes
        self.nodes: dict[str, Node] = {n.name: n for n in nodes}
        per_node: dict[str, dict[str, Brick]] = {}
        shared = []
        ambiguous = len(self.nodes) < len(nodes)
        for n in nodes:
            bricks = n.bricks
            mine = per_node[n.name] = {b.path: b for b in bricks}
            if len(mine) < len(bricks):
                ambiguous = True
            # two bricks naming one filesystem (a brick naming none has its own)
            if len(bricks) > 1 and len({b.filesystem for b in bricks}) < len(bricks):
                filesystems = [b.filesystem for b in bricks if b.filesystem]
                if len(set(filesystems)) < len(filesystems):
                    shared.append(n.name)
        self.per_node = per_node
        #: every brick path of the topology (a handful of distinct ones, even on 1,000 nodes):
        #: what holds for all of them holds for any volume's bricks that are all in the topology
        self.paths: frozenset[str] = frozenset().union(*per_node.values())
        #: a node name, or one node's brick path, given twice: a reference may name two bricks
        #: (the index finds the last), so a count of the bricks a volume names needs the topology
        self.ambiguous = ambiguous
        self.shared_nodes: frozenset[str] = frozenset(shared)
        self.mount_nodes: frozenset[str] = frozenset(self._mount_nodes(topo))
        self._last: tuple[list[BrickRef], int, list[Brick | None], int, bool] | None = None
        self._names: tuple[list[BrickRef], int, list[str]] | None = None
        self._paths: tuple[list[BrickRef], int, set[str]] | None = None

    def _mount_nodes(self, topo: Topology) -> list[str]:
        # the topology's distinct mounts and paths first (a handful), node by node only if
        # one of them could matter (comprehensions: in CPython 3.11 they read attributes
        # faster than map(attrgetter))
        mounts = {b.mount for n in topo.nodes for b in n.bricks}
        if not any(m[-1:] == "/" for m in mounts) and mounts.isdisjoint(self.paths):
            return []
        out = []
        for n in topo.nodes:
            mounts = {b.mount for b in n.bricks}
            if any(m[-1:] == "/" for m in mounts) or not mounts.isdisjoint(self.per_node[n.name]):
                out.append(n.name)
        return out

    def brick(self, ref: BrickRef) -> Brick | None:
        return self.per_node.get(ref.node, _EMPTY).get(ref.path)

    def lookup(self, refs: list[BrickRef]) -> list[Brick | None]:
        """The Brick of each reference, None where the topology has none."""
        return self.resolve(refs)[0]

    def resolve(self, refs: list[BrickRef]) -> tuple[list[Brick | None], int, bool]:
        """(the Brick of each reference or None, how many are None, whether no brick is
        listed twice). Remembers the last list asked about: one plan asks several times."""
        last = self._last
        if last is not None and last[0] is refs and last[1] == len(refs):
            return last[2], last[3], last[4]
        per_node = self.per_node
        try:
            found = [per_node[r.node][r.path] for r in refs]
            missing = 0
        except KeyError:        # a reference to nothing: None in its place
            empty = _EMPTY
            found = [per_node.get(r.node, empty).get(r.path) for r in refs]
            missing = len(found) - len(list(filter(None, found)))  # no Brick.__eq__ calls
        unique = len(set(map(id, found))) == len(found) - max(missing - 1, 0)
        self._last = (refs, len(refs), found, missing, unique)
        return found, missing, unique

    def node_names(self, refs: list[BrickRef]) -> list[str]:
        """The node of each reference (remembered for the last list asked about)."""
        last = self._names
        if last is not None and last[0] is refs and last[1] == len(refs):
            return last[2]
        names = [r.node for r in refs]
        self._names = (refs, len(refs), names)
        return names

    def distinct_paths(self, refs: list[BrickRef]) -> set[str]:
        """The distinct paths of the references: a handful, even for 24,000 bricks
        (remembered for the last list asked about)."""
        last = self._paths
        if last is not None and last[0] is refs and last[1] == len(refs):
            return last[2]
        paths = {r.path for r in refs}
        self._paths = (refs, len(refs), paths)
        return paths


_EMPTY: dict[str, Brick] = {}


def brick_index(topo: Topology) -> dict[BrickRef, tuple[Node, Brick]]:
    """Every brick of the topology by reference."""
    return {BrickRef(node.name, brick.path): (node, brick)
            for node in topo.nodes for brick in node.bricks}
