"""Throughput ESTIMATE per layout, after the NFS-to-GlusterFS write-up (seeds/004).

Always an estimate, never a measurement: it assumes sequential streams, no caching, and
the slowest brick (``Brick.speed_bps``) and link (``Node.nic_gbps``, ``Client.nic_gbps``;
bytes/s = Gbit/s × 1e9 / 8) of each set. Names: B brick speed, Ls the slowest server link
of a set, Lc the client link (slowest client; the slowest server link when no client is
known), S the number of sets, k data copies of a replica set (replica − arbiter),
d disperse, r redundancy.

- distribute: single file = min(B, Ls, Lc); concurrent = min(S × min(B, Ls), Lc)
  (the write-up: "single-file I/O = brick I/O; concurrent = brick I/O × #bricks").
- replicate: the client writes each byte to all k data bricks, so writes are bounded by
  link ÷ replica: single write = min(B, Ls, Lc ÷ k); reads come from one brick:
  single read = min(B, Ls, Lc). Concurrent = S × single, bounded by Lc ÷ k (writes) or Lc.
- disperse: a file is cut into d − r fragments plus r parity: client traffic is
  × d ÷ (d − r) the file size. Single file = min(B × d ÷ (r + 1 + alpha),
  Lc × (d − r) ÷ d, Ls × (d − r)) (the write-up's "brick speed × #bricks ÷
  (redundancy + 1 + alpha)", alpha the split/encode overhead, 0 unless given);
  concurrent = min(S × single, Lc × (d − r) ÷ d).
A figure is None when a speed it needs is unknown; ``missing`` says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from .planmodel import BrickSet, TopologyIndex
from .topology import Topology, Volume

LABEL = "estimate"
_NODE = attrgetter("node")


@dataclass(frozen=True)
class Estimate:
    single_write_bps: float | None
    single_read_bps: float | None
    concurrent_write_bps: float | None
    concurrent_read_bps: float | None
    client_traffic_factor: float          # bytes on the client's wire per byte written
    formula: str
    missing: tuple[str, ...] = ()
    label: str = LABEL
    alpha: float = 0.0

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "single_write_bps": self.single_write_bps,
            "single_read_bps": self.single_read_bps,
            "concurrent_write_bps": self.concurrent_write_bps,
            "concurrent_read_bps": self.concurrent_read_bps,
            "client_traffic_factor": self.client_traffic_factor,
            "formula": self.formula,
            "missing": list(self.missing),
            "alpha": self.alpha,
        }


def _gbps(value: float | None) -> float | None:
    return value * 1e9 / 8 if value else None


def _min(*values: float | None) -> float | None:
    known = [v for v in values if v is not None]
    return min(known) if known and len(known) == len(values) else None


def _mul(a: float | None, b: float) -> float | None:
    return None if a is None else a * b


def estimate(topo: Topology, volume: Volume, sets: list[BrickSet], alpha: float = 0.0,
             index: TopologyIndex | None = None) -> Estimate:
    index = index or TopologyIndex(topo)
    missing: list[str] = []
    # The slowest data brick and the slowest link of a server holding one bound every set.
    data, bricks = volume.bricks, index.lookup(volume.bricks)  # looked up once per plan
    arbiters = [s.arbiter for s in sets if s.arbiter is not None]
    if arbiters:  # arbiters hold no file data: leave them out
        ids = {id(a) for a in arbiters}
        keep = [id(r) not in ids for r in data]
        if keep.count(False) != len(arbiters):  # sets not cut from this very list
            keep = [r not in arbiters for r in data]
        bricks = [b for b, k in zip(bricks, keep) if k]
        data = [r for r, k in zip(data, keep) if k]
    speeds = [b.speed_bps if b is not None else None for b in bricks]
    nodes = set(map(_NODE, data))
    links = [_gbps(index.nodes[n].nic_gbps) if n in index.nodes else None for n in nodes]
    brick = min(speeds) if speeds and None not in speeds else None
    server_link = min(links) if links and None not in links else None
    if brick is None:
        missing.append("brick speed (speed_bps) of some bricks")
    if server_link is None:
        missing.append("NIC speed (nic_gbps) of some nodes")
    clients = [_gbps(c.nic_gbps) for c in topo.clients]
    if clients and None not in clients:
        client = min(clients)
    else:
        client = server_link
        if clients:
            missing.append("NIC speed of some clients (using the server link)")
    n_sets = max(len(sets), 1)
    first = next((s for s in sets if s.data_bricks > 0), None)  # not a short, broken tail
    if first is not None and first.redundancy:
        r = first.redundancy
        d = first.data_bricks + r
        factor = d / (d - r)
        single = _min(_mul(brick, d / (r + 1 + alpha)), _mul(client, (d - r) / d),
                      _mul(server_link, d - r))
        conc = _min(_mul(single, n_sets), _mul(client, (d - r) / d))
        return Estimate(single, single, conc, conc, factor,
                        f"disperse {d} redundancy {r}: single = min(B×{d}/({r}+1+alpha), "
                        f"Lc×{d - r}/{d}, Ls×{d - r}); concurrent = min({n_sets}×single, Lc×{d - r}/{d})",
                        tuple(missing), alpha=alpha)
    if first is not None and len(first.bricks) > 1:
        k = len(first.bricks) - (1 if first.arbiter else 0)
        write = _min(brick, server_link, _mul(client, 1 / k))
        read = _min(brick, server_link, client)
        return Estimate(write, read, _min(_mul(write, n_sets), _mul(client, 1 / k)),
                        _min(_mul(read, n_sets), client), float(k),
                        f"replica ({k} data copies): write = min(B, Ls, Lc/{k}); read = min(B, Ls, Lc); "
                        f"concurrent = {n_sets} sets × single, bounded by Lc/{k} (write) or Lc (read)",
                        tuple(missing), alpha=alpha)
    single = _min(brick, server_link, client)
    conc = _min(_mul(_min(brick, server_link), n_sets), client)
    return Estimate(single, single, conc, conc, 1.0,
                    f"distribute: single = min(B, Ls, Lc); concurrent = min({n_sets}×min(B, Ls), Lc)",
                    tuple(missing), alpha=alpha)
