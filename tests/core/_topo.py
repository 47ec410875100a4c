"""Small topologies for planner tests: ``build({"n1": 2, "n2": 2}, size=10**12)``."""

from __future__ import annotations

from brickyard.core.topology import Brick, BrickRef, Layout, Node, Site, Topology, Volume, VolumeType

TB = 10**12


def build(nodes: dict[str, int], size: int = TB, sites: dict[str, str] | None = None,
          mount: str = "/data", filesystem_per_brick: bool = True) -> Topology:
    """Nodes with ``count`` bricks each at /data/bN (N from 1), each on its own filesystem."""
    sites = sites or {}
    topo = Topology(name="t")
    for site in dict.fromkeys(sites.values()):
        topo.sites.append(Site(site))
    for name, count in nodes.items():
        node = Node(name, site=sites.get(name, ""), nic_gbps=10.0)
        for i in range(1, count + 1):
            fs = f"/dev/sd{chr(96 + i)}" if filesystem_per_brick else "/dev/sda"
            node.bricks.append(Brick(f"/data/b{i}/brick", size, filesystem=fs,
                                     mount=f"{mount}/b{i}" if mount else "", speed_bps=2e8))
        topo.nodes.append(node)
    return topo


def refs(topo: Topology, order: str = "round") -> list[BrickRef]:
    """All bricks: ``round`` takes brick 1 of every node, then brick 2, …; ``node`` node by node."""
    per_node = [[BrickRef(n.name, b.path) for b in n.bricks] for n in topo.nodes]
    if order == "node":
        return [r for bricks in per_node for r in bricks]
    out = []
    for i in range(max(map(len, per_node), default=0)):
        out.extend(bricks[i] for bricks in per_node if i < len(bricks))
    return out


def volume(topo: Topology, kind: VolumeType, bricks: list[BrickRef] | None = None, name: str = "gv0",
           **counts) -> Volume:
    vol = Volume(name, Layout(kind, **counts), list(bricks if bricks is not None else refs(topo)))
    topo.volumes.append(vol)
    return vol
