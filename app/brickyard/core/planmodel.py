"""The result types of the planner, shared by the planner modules and re-exported by ``plan``.

All frozen, so a ``PlanResult`` can be handed to the canvas, the CLI and the reports without
anyone changing it under another's feet.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class BrickSet:
    """One replica or disperse set (for plain distribute: one brick)."""

    index: int
    bricks: tuple[BrickRef, ...]
    arbiter: BrickRef | None
    data_bricks: int          # replica: 1; disperse: disperse - redundancy; distribute: 1
    usable_bytes: int
    redundancy: int = 0       # disperse: bricks it may lose; replica/distribute: 0

    @property
    def size(self) -> int:
        return len(self.bricks)


@dataclass(frozen=True)
class SharedFilesystem:
    """Bricks of one volume that live on one filesystem of one node."""

    node: str
    filesystem: str
    bricks: tuple[BrickRef, ...]
    size_bytes: int           # the filesystem's size (the largest of the bricks' sizes)
    counted_bytes: int        # what client ``df`` adds up: size × number of bricks
    message: str


@dataclass(frozen=True)
class Capacity:
    raw_bytes: int            # every brick, arbiters included
    usable_bytes: int         # what files can fill
    overhead_bytes: int       # raw - usable (replicas, parity, arbiters, unequal bricks)
    arbiter_bytes: int        # part of raw that sits in arbiter bricks (metadata only)
    shared_filesystems: tuple[SharedFilesystem, ...] = ()
    df_bytes: int = 0         # what ``df`` on a client will show as the volume's size

    @property
    def efficiency(self) -> float:
        return self.usable_bytes / self.raw_bytes if self.raw_bytes else 0.0


@dataclass(frozen=True)
class Tolerance:
    """How many failures the volume survives staying readable and writable.

    worst: the smallest number of failures that can stop it, minus one (any this many
    failures are survived); best: the largest number of failures that can be survived
    when the right ones fail. ``sites_*`` is None when the topology has fewer than two sites.
    """

    nodes_worst: int
    nodes_best: int
    sites_worst: int | None
    sites_best: int | None


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
    """O(1) look-ups of nodes and bricks by name, built once per plan (1,000-node topologies)."""

    __slots__ = ("nodes", "bricks")

    def __init__(self, topo: Topology):
        self.nodes: dict[str, Node] = {n.name: n for n in topo.nodes}
        self.bricks: dict[tuple[str, str], Brick] = {
            (n.name, b.path): b for n in topo.nodes for b in n.bricks}

    def brick(self, ref: BrickRef) -> Brick | None:
        return self.bricks.get((ref.node, ref.path))


def brick_index(topo: Topology) -> dict[BrickRef, tuple[Node, Brick]]:
    """Every brick of the topology by reference."""
    return {BrickRef(node.name, brick.path): (node, brick)
            for node in topo.nodes for brick in node.bricks}
