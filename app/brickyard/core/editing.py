"""Edits built from a selection or a request: quick-fill, duplicate, reorder, delete.

Each function looks at the topology and returns one ``Edit`` (often a ``Compound``) that
``apply`` carries out in a single event batch and ``revert`` undoes whole.
"""

from __future__ import annotations

import copy
from typing import Sequence

from .edits import (AddNode, Compound, Edit, RemoveBrick, RemoveClient, RemoveNode, RemoveSite,
                    SetVolumeBricks)
from .topology import Brick, BrickRef, Node, Topology, TopologyError


def unique_name(taken: set[str], stem: str) -> str:
    """``stem`` itself if free, else stem2, stem3, … (stem1 is skipped: 'node' then 'node2')."""
    if stem not in taken:
        return stem
    base = stem.rstrip("0123456789") or stem
    i = 2
    while f"{base}{i}" in taken:
        i += 1
    return f"{base}{i}"


def quick_fill(topo: Topology, count: int, bricks_per_node: int, size_bytes: int, site: str = "",
               volume: str = "", stem: str = "node", path_stem: str = "/data/brick",
               disk_kind: str = "") -> Compound:
    """"Add N nodes with M bricks of size S in site X" (and to ``volume`` when given),
    bricks added node-major so consecutive bricks are on different nodes only when the
    user reorders them or asks for auto-placement."""
    if count < 1 or bricks_per_node < 0:
        raise TopologyError("quick-fill needs at least one node and no negative brick count")
    taken = {n.name for n in topo.nodes}
    parts: list[Edit] = []
    names = []
    for _ in range(count):
        name = unique_name(taken, f"{stem}{len(topo.nodes) + len(names) + 1}")
        taken.add(name)
        names.append(name)
        bricks = [Brick(f"{path_stem}{j + 1}", size_bytes, disk_kind=disk_kind) for j in range(bricks_per_node)]
        parts.append(AddNode(Node(name, site=site, bricks=bricks)))
    if volume:
        refs = list(topo.require_volume(volume).bricks)
        # round-robin over the new nodes: brick 1 of every node, then brick 2, …
        refs += [BrickRef(n, f"{path_stem}{j + 1}") for j in range(bricks_per_node) for n in names]
        parts.append(SetVolumeBricks(volume, refs, text="add bricks to volume"))
    return Compound(f"add {count} node(s) with {bricks_per_node} brick(s) each", parts)


def duplicate_node(topo: Topology, name: str) -> AddNode:
    """A copy of a node (same site, same bricks) under the next free name, placed after it."""
    node = topo.require_node(name)
    clone = copy.deepcopy(node)
    clone.name = unique_name({n.name for n in topo.nodes}, name)
    clone.address = ""
    return AddNode(clone, topo.nodes.index(node) + 1)


def move_brick_in_volume(topo: Topology, volume: str, ref: BrickRef, onto: BrickRef | None) -> SetVolumeBricks:
    """Give ``ref`` the place ``onto`` has in the volume's order (the end when None), as a
    drop onto a brick does; the bricks between shift by one. A brick not yet in the volume
    is inserted there."""
    old = list(topo.require_volume(volume).bricks)
    at = old.index(onto) if onto is not None and onto in old else len(old)
    bricks = [r for r in old if r != ref]
    bricks.insert(min(at, len(bricks)), ref)
    return SetVolumeBricks(volume, bricks, text=f"move {ref} in {volume}")


def delete_items(topo: Topology, sites: Sequence[str] = (), nodes: Sequence[str] = (),
                 bricks: Sequence[BrickRef] = (), clients: Sequence[str] = ()) -> Compound:
    """Delete a selection: clients and bricks first, then nodes, then (now empty) sites."""
    node_set = set(nodes)
    parts: list[Edit] = [RemoveClient(c) for c in clients]
    parts += [RemoveBrick(r) for r in bricks if r.node not in node_set]
    parts += [RemoveNode(n) for n in nodes]
    for s in sites:
        parts += [RemoveNode(n.name) for n in topo.nodes_in_site(s) if n.name not in node_set]
        parts.append(RemoveSite(s))
    count = len(parts)
    return Compound(f"delete {count} item(s)", parts)
