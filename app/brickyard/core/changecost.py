"""What a change moves, and how long that takes: a prediction with its range.

Bytes. Each set holds what its data bricks' filesystems hold (glusterd's sizeTotal − sizeFree,
an upper bound: the filesystem's own metadata and anything else on it count too); a replica
set holds it once per brick, a disperse set one fragment per brick (the set holds
fragment × data bricks). DHT gives each set a share of the hash range in proportion to its
size (``cluster.weighted-rebalance``, on by default), and a rebalance keeps as much of each
set's old range as it can (``dht_selfheal_layout_maximize_overlap``). So a set whose share
shrinks from s to t sends ``used × (1 − t/s)`` away, a set that leaves sends all it holds,
and what moves lands on the sets whose share grows, in proportion to the growth. A replaced
brick, or a brick added to raise the replica count, receives what a healthy brick of its set
holds (an arbiter: no file data, only the entries).

Entries (files and directories) are estimated from the bricks' inode counts: every directory
also has a gfid link and ``.glusterfs`` holds up to 65,792 directories of its own, so about
half the inodes of a small brick and nearly all of a large one are entries.

Time. A rebalance or remove-brick runs on every node at once, each looking at every file of its
own bricks (a rebalance all of them, a remove-brick those of the retiring bricks) and migrating
those that move; a heal runs in the self-heal daemons of the set's nodes. Per node the time is
bytes ÷ byte rate + (entries looked at + entries moved) ÷ entry rate, the slowest node decides;
a measured rate is derived the same way (gluster's scanned + moved files, its bytes). The rates come from the
last change measured on this cluster (History keeps each change's measured rates), else from
an uncalibrated default: a share of the slowest NIC or disk speed the topology names, and an
entry rate from what the lab measured (20–200 per second per node). The source is named with
every prediction.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .changemodel import Range
from .planmodel import BrickSet
from .topology import BrickRef, Topology
from .units import format_rate

GLUSTERFS_DIRS = 256 + 256 * 256   # .glusterfs/xx and .glusterfs/xx/yy, made as gfids need them


def entries_from_inodes(used_inodes: int | None) -> int:
    if not used_inodes:
        return 0
    return max(used_inodes - min(GLUSTERFS_DIRS, used_inodes // 2), 0)


@dataclass(frozen=True)
class Rate:
    """Per node: bytes and entries a migration or heal gets through each second."""

    bytes_per_s: Range
    entries_per_s: Range
    source: str

    def seconds(self, nbytes: float, entries: float) -> Range:
        def t(b: float, e: float) -> float:
            return nbytes / max(b, 1.0) + entries / max(e, 1e-3)
        return Range(t(self.bytes_per_s.high, self.entries_per_s.high),
                     t(self.bytes_per_s.expected, self.entries_per_s.expected),
                     t(self.bytes_per_s.low, self.entries_per_s.low))

    def to_json(self) -> dict:
        return {"bytes_per_s": self.bytes_per_s.to_json(), "entries_per_s": self.entries_per_s.to_json(),
                "source": self.source}

    @classmethod
    def from_json(cls, d: dict) -> "Rate":
        return cls(Range(**d["bytes_per_s"]), Range(**d["entries_per_s"]), d["source"])


@dataclass(frozen=True)
class MoveRates:
    migrate: Rate       # rebalance and remove-brick
    heal: Rate          # self-heal after a replace or a replica count raised

    def to_json(self) -> dict:
        return {"migrate": self.migrate.to_json(), "heal": self.heal.to_json()}


def rates_from_json(doc: dict | None) -> MoveRates | None:
    """``MoveRates.to_json`` read back (a stored change's options["rates"]); None for none."""
    if not doc:
        return None
    return MoveRates(Rate.from_json(doc["migrate"]), Rate.from_json(doc["heal"]))


DEFAULT_ENTRIES = Range(20.0, 60.0, 200.0)
DEFAULT_BYTES = 100e6     # per node, when the topology names no NIC or disk speed


def default_rates(topo: Topology, nodes: Iterable[str]) -> MoveRates:
    """Uncalibrated: 15–60 % of the slowest NIC or brick disk the topology names for these
    nodes (100 MB/s when it names none), 20–200 entries per second per node."""
    speeds = []
    index = {n.name: n for n in topo.nodes}
    for name in set(nodes):
        node = index.get(name)
        if node is None:
            continue
        if node.nic_gbps:
            speeds.append(node.nic_gbps * 1e9 / 8)
        speeds += [b.speed_bps for b in node.bricks if b.speed_bps]
    base = min(speeds) if speeds else DEFAULT_BYTES
    named = f"{format_rate(base)} ({'the slowest NIC or disk drawn' if speeds else 'nothing drawn: assumed'})"
    rate = Rate(Range(0.15 * base, 0.35 * base, 0.6 * base), DEFAULT_ENTRIES,
                f"uncalibrated: no change measured on this cluster yet; 15–60 % of {named}, 20–200 entries/s per node")
    return MoveRates(rate, rate)


def measured_rate(nbytes: int, entries: int, seconds: float, nodes: int, what: str) -> Rate | None:
    """A rate from one measured migration or heal (``nodes`` worked at once), with a range of
    half to twice it: the next change moves other files at another time of day."""
    if seconds <= 0 or nodes <= 0 or (nbytes <= 0 and entries <= 0):
        return None
    b = max(nbytes / seconds / nodes, 1.0)
    e = max(entries / seconds / nodes, 0.01)
    # bytes and entries were moved in the same seconds: charge each half the time
    b, e = 2 * b, 2 * e
    return Rate(Range(b / 2, b, b * 2), Range(e / 2, e, e * 2),
                f"measured: {what} ({format_rate(nbytes / seconds)}, {entries / seconds:.0f} entries/s)")


@dataclass(frozen=True)
class SetLoad:
    """What one set holds now."""

    bytes: int              # logical bytes
    entries: int
    per_brick: int          # what each data brick holds (a disperse fragment, a replica's copy)


def set_load(s: BrickSet, used: Mapping[BrickRef, int | None], inodes: Mapping[BrickRef, int | None]) -> SetLoad:
    data = [b for b in s.bricks if b != s.arbiter]
    uses = [used.get(b) for b in data]
    known = [u for u in uses if u is not None]
    per_brick = max(known, default=0)
    logical = per_brick * (s.data_bricks if s.redundancy else 1)
    entries = max((entries_from_inodes(inodes.get(b)) for b in data), default=0)
    return SetLoad(logical, entries, per_brick)


def set_loads(sets: Sequence[BrickSet], bricks: Sequence) -> list[SetLoad]:
    """``set_load`` of each set, with ``bricks`` the live bricks (``LiveBrick``) in the volume's
    order: the sets are consecutive runs of them, so no brick is looked up by name."""
    out, at = [], 0
    for s in sets:
        n = len(s.bricks)
        members = bricks[at:at + n]
        at += n
        arbiter = s.arbiter
        per_brick = entries = 0     # both are never negative
        for b in members:
            if arbiter is not None and b.ref == arbiter:
                continue
            # LiveBrick.used_bytes and used_inodes, read in place (1,600 sets in a few ms)
            total, free = b.size_total, b.size_free
            if total is not None and free is not None and total - free > per_brick:
                per_brick = total - free
            total, free = b.inodes_total, b.inodes_free
            if total is not None and free is not None and total > free:
                found = entries_from_inodes(total - free)
                if found > entries:
                    entries = found
        out.append(SetLoad(per_brick * (s.data_bricks if s.redundancy else 1), entries, per_brick))
    return out


@dataclass
class Flow:
    """Bytes and entries per brick (out, in) and per node (the load each node's migration or
    heal process carries)."""

    out: dict[BrickRef, int]
    into: dict[BrickRef, int]
    node_bytes: dict[str, float]
    node_entries: dict[str, float]
    bytes: int = 0
    entries: int = 0

    @classmethod
    def empty(cls) -> "Flow":
        return cls(defaultdict(int), defaultdict(int), defaultdict(float), defaultdict(float))

    def seconds(self, rate: Rate) -> Range:
        nodes = set(self.node_bytes) | set(self.node_entries)
        times = [rate.seconds(self.node_bytes.get(n, 0.0), self.node_entries.get(n, 0.0)) for n in nodes]
        if not times:
            return Range(0.0, 0.0, 0.0)
        return Range(max(t.low for t in times), max(t.expected for t in times), max(t.high for t in times))


def shares(sets: Sequence[BrickSet]) -> list[float]:
    total = sum(s.usable_bytes for s in sets)
    if total <= 0:
        return [1.0 / len(sets)] * len(sets) if sets else []
    return [s.usable_bytes / total for s in sets]


def layout_flow(before: Sequence[BrickSet], after: Sequence[BrickSet], kept: Mapping[int, int],
                loads: Sequence[SetLoad], scan: bool = True, scan_kept: bool = True) -> Flow:
    """The migration from the ``before`` sets to the ``after`` sets. ``kept`` maps the index of
    a set before to its index after (sets that stay, their bricks perhaps replaced); a set
    before that is not in it leaves, a set after that is not a value is new. ``loads``: what
    each set before holds. The time counts the files scanned too: all of them in a rebalance
    (``scan_kept``), those of the leaving sets in a remove-brick."""
    flow = Flow.empty()
    s_before, s_after = shares(before), shares(after)
    share_after_of = {i: s_after[j] for i, j in kept.items()}
    gains: dict[int, float] = {}
    before_of = {j: i for i, j in kept.items()}
    for j, t in enumerate(s_after):
        was = s_before[before_of[j]] if j in before_of else 0.0
        if t > was:
            gains[j] = t - was
    moved_total, entries_total = 0.0, 0.0
    out, node_bytes, node_entries = flow.out, flow.node_bytes, flow.node_entries
    for i, s in enumerate(before):
        share, load = s_before[i], loads[i]
        keep = share_after_of.get(i, 0.0)
        fraction = 1.0 if i not in kept else (max(0.0, 1.0 - keep / share) if share > 0 else 0.0)
        arbiter = s.arbiter
        nodes = {b.node for b in s.bricks} if arbiter is None else {b.node for b in s.bricks if b != arbiter}
        n = len(nodes) or 1
        # every file of a set that migrates is looked at (a rebalance scans all of them, a
        # remove-brick those of the retiring sets): charged like the files moved
        if scan and load.entries and (i not in kept or scan_kept):
            for node in nodes:
                node_entries[node] += load.entries / n
        if fraction <= 0 or load.bytes <= 0 and load.entries <= 0:
            continue
        moved, ent = load.bytes * fraction, load.entries * fraction
        moved_total += moved
        entries_total += ent
        gone = int(load.per_brick * fraction)
        for b in s.bricks:
            out[b] += gone if arbiter is None or b != arbiter else 0
        # each node with a data brick of the set migrates its share (DHT picks one per set)
        for node in nodes:
            node_bytes[node] += moved / n
            node_entries[node] += ent / n
    gain_sum = sum(gains.values())
    if gain_sum > 0:
        for j, g in gains.items():
            s = after[j]
            arriving = moved_total * g / gain_sum
            per_brick = arriving / s.data_bricks if s.redundancy else arriving
            for b in s.bricks:
                flow.into[b] += 0 if b == s.arbiter else int(per_brick)
    flow.bytes, flow.entries = int(moved_total), int(entries_total)
    return flow


def heal_flow(target: BrickRef, s: BrickSet, load: SetLoad, arbiter: bool) -> Flow:
    """Healing a brick that starts empty (a replacement, or a brick added to raise the replica
    count): it receives what a healthy brick of its set holds; the set's other nodes' self-heal
    daemons do the work."""
    flow = Flow.empty()
    nbytes = 0 if arbiter else load.per_brick
    flow.into[target] += nbytes
    sources = {b.node for b in s.bricks if b != target and b != s.arbiter} or {target.node}
    for node in sources:
        flow.node_bytes[node] += nbytes / len(sources)
        flow.node_entries[node] += load.entries / len(sources)
    flow.bytes, flow.entries = nbytes, load.entries
    return flow
