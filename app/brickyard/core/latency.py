"""Small-file latency from the round-trip time: what an extract (tar -xzf of many small files)
and an lstat loop cost per object on a layout, at any RTT between the client and the bricks.

The three-site write-up extracted a 2,028-object tree at 0.06–26 ms RTT, one copy against a
copy on every site: per object the time grows with the RTT times the round trips each create
waits for, and the round trips depend on the layout (a replicated create waits for every copy,
so for the slowest). The model, per operation:

    time per object = local + round trips × RTT

- ``local``: what an object costs when the network costs nothing — the client's and the
  bricks' own work (measured: the operation at the cluster's own, small RTT, minus its round
  trips at that RTT);
- ``round trips``: the RPC waits an object's operations add up to, one count per layout kind
  (distribute, replica, disperse) and operation (extract, lstat): measured once, where the RTT
  is large enough to show them (an extract at the cluster's own RTT on a multi-site cluster, or
  one run at an added delay on the sandbox: ``fit``); until then assumed from the write-up
  (``ASSUMED``);
- ``RTT``: for a layout, what its operations wait on (``layout_rtt``): a replicated or dispersed
  set waits for all of its bricks, so its slowest; a distributed file only for the brick it
  hashes to, so the mean over the bricks for files — and the slowest for directories, which
  DHT creates on every brick. The RTTs come from a probe or the topology's latencies (a
  client-to-node entry, else the two sites', else a LAN figure).

Transfer time (bytes ÷ rate) is left out: a 20 KiB object at 1 Gbit/s is 0.16 ms, under the
local cost it rides on. Pure arithmetic, no I/O.
"""

from __future__ import annotations

import math
from itertools import chain, repeat
from operator import attrgetter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from . import lazystats as statistics
from .topology import Topology

EXTRACT, LSTAT = "extract", "lstat"
OPERATIONS = (EXTRACT, LSTAT)
KINDS = ("distribute", "replica", "disperse")

#: a client and a server on one LAN when nothing says otherwise (ms), assumed
LAN_RTT_MS = 0.1
#: the write-up's extract: 193 directories of 2,028 objects
WRITE_UP_DIR_SHARE = 193 / 2028

MEASURED, FITTED, DECLARED, ASSUMED = "measured", "fitted", "declared", "assumed"


@dataclass(frozen=True)
class Cost:
    """What one operation costs per object on one layout kind: ``local_ms`` + ``round_trips`` ×
    RTT, with where each came from, and the relative spread of the fit (0: one point each)."""

    local_ms: float
    round_trips: float
    source: str
    note: str = ""
    spread: float = 0.0

    def at(self, rtt_ms: float) -> float:
        return self.local_ms + self.round_trips * rtt_ms


# The write-up (Hetzner, 1 vCPU nodes): Nuremberg alone 2.47 ms per object at 0.06 ms RTT; on
# Nuremberg + Falkenstein (3.635 ms) one copy — files spread over both sites, so they wait on
# 2.0 ms (layout_rtt) — 19.23 ms, a copy on each site 47.83 ms: (19.23 − 2.47) ÷ 1.96 ≈ 8.5 round
# trips per object distributed, (47.83 − 2.47) ÷ 3.635 ≈ 12.5 replicated.
_WRITE_UP = "assumed: the three-site write-up's WordPress extract (2.47 ms per object at 0.06 ms RTT; " \
            "{n:g} round trips per object from its {what} on two sites 3.6 ms apart); measure yours (issue 23: an extract at " \
            "the cluster's own RTT and one at a larger one)"
ASSUMED_COSTS: dict[tuple[str, str], Cost] = {
    ("distribute", EXTRACT): Cost(2.47, 8.5, ASSUMED, _WRITE_UP.format(n=8.5, what="one-copy volume")),
    ("replica", EXTRACT): Cost(2.47, 12.5, ASSUMED, _WRITE_UP.format(n=12.5, what="copy-per-site volume")),
    ("disperse", EXTRACT): Cost(2.47, 12.5, ASSUMED, _WRITE_UP.format(n=12.5, what="copy-per-site volume (a "
                                                                                   "dispersed create waits for "
                                                                                   "every fragment as a replica does)")),
    # an uncached lstat is one LOOKUP: one round trip (a replica's to every copy at once)
    ("distribute", LSTAT): Cost(0.02, 1.0, ASSUMED, "assumed: one LOOKUP round trip per lstat with the attribute "
                                                    "cache off, 20 µs of local work"),
    ("replica", LSTAT): Cost(0.02, 1.0, ASSUMED, "assumed: one LOOKUP round trip per lstat (to every copy at once)"),
    ("disperse", LSTAT): Cost(0.02, 1.0, ASSUMED, "assumed: one LOOKUP round trip per lstat (to every fragment)"),
}


@dataclass(frozen=True)
class Point:
    """One measured figure: ``per_object_ms`` of ``operation`` on a layout of ``kind`` whose
    operations waited on ``rtt_ms`` (``layout_rtt``)."""

    kind: str
    operation: str
    rtt_ms: float
    per_object_ms: float
    source: str = ""


@dataclass(frozen=True)
class LatencyModel:
    costs: Mapping[tuple[str, str], Cost] = field(default_factory=lambda: dict(ASSUMED_COSTS))

    def cost(self, kind: str, operation: str) -> Cost:
        return self.costs.get((kind, operation)) or ASSUMED_COSTS[(kind, operation)]

    def predict(self, kind: str, operation: str, rtt_ms: float) -> "Figure":
        c = self.cost(kind, operation)
        value = c.at(rtt_ms)
        # the range: a fitted cost its own scatter (at least ±10 %), an assumed one ÷/× 2
        if c.source == ASSUMED:
            low, high = value / 2, value * 2
        else:
            s = max(c.spread, 0.10) * 1.645
            low, high = value * math.exp(-s), value * math.exp(s)
        return Figure(kind, operation, rtt_ms, value, low, high, c)


@dataclass(frozen=True)
class Figure:
    kind: str
    operation: str
    rtt_ms: float
    per_object_ms: float
    low_ms: float
    high_ms: float
    cost: Cost

    def to_json(self) -> dict:
        return {"kind": self.kind, "operation": self.operation, "rtt_ms": self.rtt_ms,
                "per_object_ms": self.per_object_ms, "low_ms": self.low_ms, "high_ms": self.high_ms,
                "local_ms": self.cost.local_ms, "round_trips": self.cost.round_trips, "source": self.cost.source,
                "note": self.cost.note}


def fit(points: Iterable[Point], model: LatencyModel | None = None) -> LatencyModel:
    """The model calibrated on measured points: per (kind, operation), with points at two or more
    RTTs, the line through them (least squares: local cost and round trips, both FITTED); with
    points at one RTT only, the round trips stay as they were (assumed or fitted before) and the
    local cost is what that RTT leaves of the figure."""
    model = model or LatencyModel()
    costs = dict(model.costs)
    groups: dict[tuple[str, str], list[Point]] = {}
    for p in points:
        if p.kind not in KINDS or p.operation not in OPERATIONS or not p.per_object_ms > 0 or p.rtt_ms < 0:
            raise ValueError(f"not a latency point: {p}")
        groups.setdefault((p.kind, p.operation), []).append(p)
    for key, pts in groups.items():
        srcs = ", ".join(sorted({p.source for p in pts if p.source})) or "measured points"
        rtts = {round(p.rtt_ms, 6) for p in pts}
        if len(rtts) >= 2:
            xs, ys = [p.rtt_ms for p in pts], [p.per_object_ms for p in pts]
            mx, my = statistics.fmean(xs), statistics.fmean(ys)
            sxx = sum((x - mx) ** 2 for x in xs)
            n = max(0.0, sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx)
            local = max(0.0, my - n * mx)
            errors = [math.log(y / (local + n * x)) for x, y in zip(xs, ys) if local + n * x > 0]
            spread = math.sqrt(sum(e * e for e in errors) / max(1, len(errors) - 2)) if len(errors) > 2 else 0.0
            note = (f"fitted: {local:.3g} ms local + {n:.3g} round trips × RTT, from {len(pts)} figure(s) at "
                    f"{', '.join(f'{r:g}' for r in sorted(rtts))} ms RTT ({srcs})")
            costs[key] = Cost(local, n, FITTED, note, spread)
        else:
            before = costs.get(key) or ASSUMED_COSTS[key]
            rtt = pts[0].rtt_ms
            local = max(0.0, statistics.median(p.per_object_ms for p in pts) - before.round_trips * rtt)
            note = (f"local {local:.3g} ms: measured {statistics.median(p.per_object_ms for p in pts):.3g} ms at "
                    f"{rtt:.3g} ms RTT ({srcs}) less {before.round_trips:g} round trips ({before.source}); "
                    f"round trips: {before.note}")
            costs[key] = Cost(local, before.round_trips, before.source if before.source != ASSUMED else ASSUMED,
                              note, before.spread)
    return LatencyModel(costs)


# ------------------------------------------------------------------ RTTs of a layout


def rtt_to(topo: Topology, client: str | None, node: str,
           sites: Mapping[str, str] | None = None) -> tuple[float, str]:
    """(RTT in ms from the client to ``node``, where it comes from): a ``client:NAME``–node entry
    of the topology's latencies, else the RTT between the client's and the node's sites, else a
    LAN figure (same site, or nothing said). ``sites``: each node's site, for a caller asking
    about many nodes (``Topology.site_of`` looks through every node)."""
    if client:
        v = topo.rtt_ms(f"client:{client}", node)
        if v is not None:
            return v, DECLARED
    c = topo.client(client) if client else (topo.clients[0] if topo.clients else None)
    if c is not None:
        v = topo.rtt_ms(f"client:{c.name}", node)
        if v is not None:
            return v, DECLARED
    site_a = c.site if c is not None else ""
    if not site_a:
        return LAN_RTT_MS, ASSUMED
    site_b = sites.get(node, "") if sites is not None else topo.site_of(node)
    if site_b and site_a != site_b:
        v = topo.rtt_ms(f"site:{site_a}", f"site:{site_b}")
        if v is not None:
            return v, DECLARED
    return LAN_RTT_MS, ASSUMED


def layout_rtt(kind: str, sets: Sequence[Sequence[str]], rtt_of: Mapping[str, float], operation: str,
               dir_share: float = WRITE_UP_DIR_SHARE) -> float:
    """The RTT a layout's operations wait on, in ms, from each node's RTT (``rtt_of``) and its
    sets' nodes: a replicated or dispersed set waits for all its bricks (its slowest), files
    land on sets at random (the mean over sets); an extract's directories are made on every set
    (the slowest of all), ``dir_share`` of its objects."""
    return _rtt_of_sets(_set_rtts(sets, rtt_of), operation, dir_share)


def _node_sets(sets) -> list:
    """The nodes of each set holding data (a thin-arbiter's left out), at C speed when no set
    has a thin-arbiter: a tuple of node names per set, where the loop made a list."""
    sets = [s for s in sets if s.data_bricks > 0]
    if not any(getattr(s, "thin_arbiter", False) for s in sets):
        members = list(map(_BRICKS_OF, sets))
        sizes = set(map(len, members))
        if len(sizes) == 1 and 0 not in sizes:    # every set as large: one list of all nodes, cut
            nodes = iter(list(map(_NODE_OF, chain.from_iterable(members))))
            return list(zip(*repeat(nodes, sizes.pop())))
        return list(map(tuple, map(map, repeat(_NODE_OF), members)))
    return [[b.node for b in s.bricks if b != s.arbiter] if getattr(s, "thin_arbiter", False)
            else [b.node for b in s.bricks] for s in sets]


_NODE_OF = attrgetter("node")
_BRICKS_OF = attrgetter("bricks")


def _set_rtts(sets: Sequence[Sequence[str]], rtt_of: Mapping[str, float], complete: bool = False) -> list[float]:
    """Each non-empty set's RTT: its slowest node's (``complete``: ``rtt_of`` has every
    node of the sets)."""
    if complete and len(set(rtt_of.values())) == 1:   # one RTT for every node (one site, or none said)
        rtt = next(iter(rtt_of.values()))
        return [rtt] * sum(1 for nodes in sets if nodes)
    return [max(map(rtt_of.__getitem__, nodes)) for nodes in sets if nodes]


def _rtt_of_sets(per_set: list[float], operation: str, dir_share: float = WRITE_UP_DIR_SHARE) -> float:
    if not per_set:
        return 0.0
    mean, worst = statistics.fmean(per_set), max(per_set)
    if operation == EXTRACT:
        return (1 - dir_share) * mean + dir_share * worst
    return mean


def kind_of(sets) -> str:
    """The latency model's kind of a planned volume's sets (duck-typed ``BrickSet``)."""
    first = next(iter(sets), None)
    if first is None:
        return "distribute"
    if first.redundancy:
        return "disperse"
    data = [b for b in first.bricks if b != first.arbiter]
    return "replica" if len(data) > 1 else "distribute"


def predict_plan(topo: Topology, sets, model: LatencyModel | None = None, client: str | None = None,
                 objects: int = 2028) -> dict:
    """The extract and the lstat loop of a planned volume at the RTTs its topology gives
    (``brickyard plan --json``'s ``small_files``)."""
    model = model or LatencyModel()
    kind = kind_of(sets)
    node_sets = _node_sets(sets)
    nodes = sorted(set(chain.from_iterable(node_sets)))
    rtts, sources = {}, set()
    sites = {n.name: n.site for n in topo.nodes}
    for n in nodes:
        rtts[n], src = rtt_to(topo, client, n, sites)
        sources.add(src)
    out = {"kind": kind, "rtt_source": "assumed" if sources == {ASSUMED} else
           ("declared" if ASSUMED not in sources else "declared where the topology says, LAN elsewhere"),
           "rtt_ms": rtts}
    per_set = _set_rtts(node_sets, rtts, complete=True)   # the same for every operation
    for op in OPERATIONS:
        rtt = _rtt_of_sets(per_set, op)
        fig = model.predict(kind, op, rtt)
        doc = fig.to_json()
        if op == EXTRACT:
            doc["objects"] = objects
            doc["seconds"] = fig.per_object_ms * objects / 1000
        out[op] = doc
    return out
