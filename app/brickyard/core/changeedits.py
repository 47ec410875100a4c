"""The edits of the window's Change mode: what an admin does to the drawing of a live volume.

Each function looks at the drawing and returns one undoable ``Edit`` (``core.edits``), or
raises ``TopologyError`` with a sentence saying why it cannot. They only change the
drawing; ``core.change.plan_change`` then compares it with the live volume and says what
that means on the cluster (add-brick, remove-brick, replace-brick, …).

- ``add_server``: a new server like one of the volume's (same bricks, sizes, filesystems),
  its bricks added to the volume: an expand. The planner groups new bricks into sets on
  distinct servers, so two servers added one after the other make new replica sets.
- ``retire``: take whole sets out of the volume, named by one of their bricks or by a
  server (every set with a brick on it): a shrink. Gluster removes bricks a whole set at a
  time; a brick alone leaves by being replaced.
- ``replace_brick``: put another brick (drawn, or made on a server) in a brick's place in
  its set: a replace (a remove-brick migration on plain distribute).
- ``raise_redundancy``: one more brick in every set, replica N -> N+1 or replica 2 ->
  replica 3 arbiter 1; the new bricks are made on the servers given (round robin, never on
  a server the set uses already), else taken from free drawn bricks.
- ``match_live``: the drawing's volume as gluster has it now (after a change completed, or
  to start over).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Sequence

from .editing import unique_name
from .edits import AddBrick, AddNode, Compound, Edit, SetVolumeBricks, SetVolumeLayout
from .layout import resolve, split_sets
from .topology import Brick, BrickRef, Layout, Node, Topology, TopologyError, Volume, VolumeType


def sets_of(volume: Volume) -> tuple[tuple[BrickRef, ...], ...]:
    """The volume's sets as gluster groups them (runs of the set size, in brick order)."""
    resolved, _ = resolve(volume.layout, len(volume.bricks))
    return split_sets(list(volume.bricks), resolved.set_size)


def _set_word(volume: Volume) -> str:
    return "brick" if len(sets_of(volume)[0] if volume.bricks else ()) <= 1 else "set"


def _brick_like(template: Brick) -> Brick:
    """A new brick as ``template`` was drawn: same size, filesystem and disk, nothing measured."""
    return Brick(template.path, template.size_bytes, template.filesystem, template.mount, template.fs_type,
                 template.disk_kind, template.speed_bps)


# ---- expand -------------------------------------------------------------------------------------
def add_server(topo: Topology, volume_name: str, like: str = "", name: str = "", site: str | None = None,
               onto: str = "") -> Edit:
    """A new server drawn like ``like`` (default: the volume's last server), with a copy of each
    of its bricks in the volume, those bricks added at the end of the volume. With ``onto`` (a
    drawn server that holds no brick of the volume yet) the copies are made on that server."""
    volume = topo.require_volume(volume_name)
    servers = list(dict.fromkeys(b.node for b in volume.bricks))
    if not servers:
        raise TopologyError(f"{volume_name} has no bricks: draw its first server with Add node")
    template = topo.require_node(like or servers[-1])
    mine = [b for b in template.bricks if BrickRef(template.name, b.path) in set(volume.bricks)]
    if not mine:
        raise TopologyError(f"{template.name} holds no brick of {volume_name}: pick one of {', '.join(servers)}")
    if onto:
        return _join(topo, volume, topo.require_node(onto), template, mine)
    taken = {n.name for n in topo.nodes} | {c.name for c in topo.clients}
    stem = template.name.rstrip("0123456789") or template.name
    new_name = name or unique_name(taken, f"{stem}{len(topo.nodes) + 1}")
    if new_name in taken:
        raise TopologyError(f"there is a server or client named {new_name} already")
    node = Node(new_name, site=template.site if site is None else site, ssh_user=template.ssh_user,
                ssh_port=template.ssh_port, nic_gbps=template.nic_gbps, bricks=[_brick_like(b) for b in mine])
    refs = [BrickRef(new_name, b.path) for b in mine]
    return Compound(f"add server {new_name} to {volume_name}", [
        AddNode(node), SetVolumeBricks(volume_name, [*volume.bricks, *refs], text="add its bricks to the volume")])


def _join(topo: Topology, volume: Volume, server: Node, template: Node, bricks: list[Brick]) -> Edit:
    if any(b.node == server.name for b in volume.bricks):
        raise TopologyError(f"{server.name} holds bricks of {volume.name} already: select a server outside it, or "
                            "none to draw a new one")
    parts: list[Edit] = []
    refs = []
    taken = Node(server.name, bricks=list(server.bricks))
    for b in bricks:
        path = free_path(taken, b.path)
        taken.bricks.append(Brick(path, 0))
        parts.append(AddBrick(server.name, replace(_brick_like(b), path=path)))
        refs.append(BrickRef(server.name, path))
    parts.append(SetVolumeBricks(volume.name, [*volume.bricks, *refs], text="add its bricks to the volume"))
    return Compound(f"add {server.name} to {volume.name} (bricks like {template.name}'s)", parts)


# ---- shrink ----------------------------------------------------------------------------------------
def retire(topo: Topology, volume_name: str, bricks: Sequence[BrickRef] = (), servers: Sequence[str] = ()) -> Edit:
    """Take out of the volume every set holding one of ``bricks`` or a brick on one of ``servers``."""
    volume = topo.require_volume(volume_name)
    sets = sets_of(volume)
    wanted = set(bricks)
    outside = [str(b) for b in bricks if b not in set(volume.bricks)]
    if outside:
        raise TopologyError(f"{', '.join(outside)} {'is' if len(outside) == 1 else 'are'} not in {volume_name}: "
                            "nothing to retire")
    on = set(servers)
    gone = [i for i, s in enumerate(sets) if wanted.intersection(s) or any(b.node in on for b in s)]
    if not gone:
        raise TopologyError(f"{', '.join(servers)} holds no brick of {volume_name}: nothing to retire")
    if len(gone) == len(sets):
        raise TopologyError(f"that retires every {_set_word(volume)} of {volume_name}: a volume keeps at least one; "
                            "to end it, tear it down (Cluster ▸ Provision… ▸ Tear down…)")
    kept = [b for i, s in enumerate(sets) if i not in gone for b in s]
    word = _set_word(volume)
    what = (f"{word} {', '.join(str(i + 1) for i in gone)}" if word == "set"
            else ", ".join(str(sets[i][0]) for i in gone))
    return SetVolumeBricks(volume_name, kept, text=f"retire {what} of {volume_name}")


# ---- replace ---------------------------------------------------------------------------------------
def free_path(node: Node, path: str) -> str:
    """``path`` when the node has no brick there, else path-2, path-3, …"""
    taken = {b.path for b in node.bricks}
    if path not in taken:
        return path
    i = 2
    while f"{path}-{i}" in taken:
        i += 1
    return f"{path}-{i}"


def replace_brick(topo: Topology, volume_name: str, old: BrickRef, new: BrickRef | None = None,
                  server: str = "") -> Edit:
    """Put ``new`` (a drawn brick outside the volume), or a new brick on ``server`` made like
    ``old``, in ``old``'s place in its set."""
    volume = topo.require_volume(volume_name)
    bricks = list(volume.bricks)
    if old not in bricks:
        raise TopologyError(f"{old} is not in {volume_name}: only a brick of the volume can be replaced")
    parts: list[Edit] = []
    if new is None:
        if not server:
            raise TopologyError("name the brick or the server that takes its place")
        node = topo.require_node(server)
        if _free(topo, BrickRef(server, old.path)):      # drawn there already, in no volume: that one
            new = BrickRef(server, old.path)
        else:
            template = topo.brick(old) or Brick(old.path, node.bricks[-1].size_bytes if node.bricks else 0)
            made = replace(_brick_like(template), path=free_path(node, old.path))
            new = BrickRef(server, made.path)
            parts.append(AddBrick(server, made))
    elif topo.brick(new) is None:
        raise TopologyError(f"{new} is not drawn: add it to {new.node} first (or pick its server)")
    if new in bricks:
        raise TopologyError(f"{new} is in {volume_name} already: a replacement must be a brick outside the volume")
    bricks[bricks.index(old)] = new
    parts.append(SetVolumeBricks(volume_name, bricks, text=f"put {new} in place of {old}"))
    return Compound(f"replace {old} with {new} in {volume_name}", parts)


def _free(topo: Topology, ref: BrickRef) -> bool:
    """The brick is drawn and no volume uses it."""
    return topo.brick(ref) is not None and not any(ref in v.bricks for v in topo.volumes)


def replacement_candidates(topo: Topology, volume_name: str, old: BrickRef) -> tuple[list[BrickRef], list[str]]:
    """(free drawn bricks, servers) that may take ``old``'s place: never on a server another
    brick of its set uses (gluster would refuse that set, or lose both copies with the server)."""
    volume = topo.require_volume(volume_name)
    home = next((s for s in sets_of(volume) if old in s), (old,))
    busy = {b.node for b in home if b != old}
    used = {b for v in topo.volumes for b in v.bricks}
    free = [ref for ref, _ in topo.all_bricks() if ref not in used and ref.node not in busy]
    servers = [n.name for n in topo.nodes if n.name not in busy]
    return free, servers


# ---- raise redundancy ----------------------------------------------------------------------------
def raise_redundancy(topo: Topology, volume_name: str, arbiter: bool = False, servers: Sequence[str] = ()) -> Edit:
    """One more brick in every set: replica N -> N+1 (distribute -> replica 2), or with
    ``arbiter`` replica 2 -> replica 3 arbiter 1. The new bricks are made on ``servers`` (each set's
    on a server it does not use yet, spread evenly), or without servers taken from free bricks."""
    volume = topo.require_volume(volume_name)
    resolved, _ = resolve(volume.layout, len(volume.bricks))
    layout = volume.layout
    if layout.type.is_dispersed:
        raise TopologyError(f"{volume_name} is dispersed: a disperse set gains redundancy only as a new volume "
                            "with a new geometry")
    if layout.arbiter or layout.thin_arbiter:
        raise TopologyError(f"{volume_name} has arbiters already: that is as far as Brickyard raises redundancy")
    replica = resolved.replica if layout.type.is_replicated else 1
    if arbiter and replica != 2:
        raise TopologyError(f"arbiters are added to replica 2 volumes (replica 2 -> replica 3 arbiter 1); "
                            f"{volume_name} has {replica} cop{'y' if replica == 1 else 'ies'} of each file")
    sets = sets_of(volume)
    parts: list[Edit] = []
    chosen: list[BrickRef] = []
    load: Counter[str] = Counter()
    made: dict[str, set[str]] = {}
    used = {b for v in topo.volumes for b in v.bricks}
    free = [ref for ref, _ in topo.all_bricks() if ref not in used]
    for i, s in enumerate(sets):
        busy = {b.node for b in s}
        if servers:
            options = [n for n in servers if n not in busy]
            if not options:
                raise TopologyError(f"set {i + 1} ({', '.join(map(str, s))}) uses every server given "
                                    f"({', '.join(servers)}): pick a server outside it too")
            host = min(options, key=lambda n: (load[n], list(servers).index(n)))
            node = topo.require_node(host)
            template = topo.brick(s[-1]) or Brick("/data/brick", 0)
            ready = BrickRef(host, template.path)
            if _free(topo, ready) and ready not in chosen:    # drawn there already, in no volume: that one
                ref = ready
            else:
                path = free_path(replace(node, bricks=[*node.bricks, *(Brick(p, 0) for p in made.get(host, ()))]),
                                 template.path)
                made.setdefault(host, set()).add(path)
                parts.append(AddBrick(host, replace(_brick_like(template), path=path)))
                ref = BrickRef(host, path)
        else:
            pick = [r for r in free if r.node not in busy and r not in chosen]
            if not pick:
                raise TopologyError(f"no free brick for set {i + 1} ({', '.join(map(str, s))}) on a server it does not "
                                    "use: select the server(s) to hold the new bricks (or add one), then try again")
            ref = min(pick, key=lambda r: (load[r.node], free.index(r)))
        load[ref.node] += 1
        chosen.append(ref)
    new_order = [b for s, extra in zip(sets, chosen) for b in (*s, extra)]
    if arbiter:
        new_layout = Layout(VolumeType.DISTRIBUTED_REPLICATE if len(sets) > 1 else VolumeType.REPLICATE,
                            replica=3, arbiter=1)
        words = "replica 3 arbiter 1"
    else:
        kind = layout.type if layout.type.is_replicated else (
            VolumeType.DISTRIBUTED_REPLICATE if len(sets) > 1 else VolumeType.REPLICATE)
        new_layout = Layout(kind, replica=replica + 1)
        words = f"replica {replica + 1}"
    parts += [SetVolumeLayout(volume_name, new_layout),
              SetVolumeBricks(volume_name, new_order, text="one new brick at the end of each set")]
    return Compound(f"raise {volume_name} to {words}", parts)


# ---- back to what gluster has ----------------------------------------------------------------------
def match_live(topo: Topology, volume_name: str, live_volume: Volume, like: Topology | None = None) -> Edit | None:
    """The drawing's volume with gluster's layout and brick order (None: it matches already).
    Bricks the drawing lacks are added to their servers, drawn as ``like`` (the drawing a change
    was planned on) draws them, else with no size known."""
    volume = topo.require_volume(volume_name)
    parts: list[Edit] = []
    added: set[str] = set()
    for ref in live_volume.bricks:
        if topo.brick(ref) is not None:
            continue
        drawn = like.brick(ref) if like is not None else None
        brick = _brick_like(drawn) if drawn is not None else Brick(ref.path, 0)
        if topo.node(ref.node) is None and ref.node not in added:
            model = like.node(ref.node) if like is not None else None
            node = Node(ref.node, site=model.site if model else "", address=model.address if model else "",
                        ssh_user=model.ssh_user if model else "root", ssh_port=model.ssh_port if model else 22,
                        nic_gbps=model.nic_gbps if model else None)
            parts.append(AddNode(node))
            added.add(ref.node)
        parts.append(AddBrick(ref.node, brick))
    same_layout = resolve(volume.layout, len(volume.bricks))[0] == resolve(live_volume.layout,
                                                                          len(live_volume.bricks))[0]
    if not same_layout:
        parts.append(SetVolumeLayout(volume_name, replace(live_volume.layout)))
    if list(volume.bricks) != list(live_volume.bricks):
        parts.append(SetVolumeBricks(volume_name, list(live_volume.bricks), text="gluster's brick order"))
    if not parts:
        return None
    return Compound(f"draw {volume_name} as gluster has it now", parts)
