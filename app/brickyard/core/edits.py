"""Undoable edits: every change a user makes to a topology, as a command object.

Each edit has ``text`` (what an Undo menu says), ``apply(topo)`` and ``revert(topo)``,
built only from ``Topology``'s mutation methods so every view sees the same ``Change``
events whether an edit is done, undone or redone. ``apply`` raises ``TopologyError`` when
the model refuses (a duplicate name, …) and leaves the model unchanged. A ``Compound``
runs its parts in one event batch, so a quick-fill of hundreds of bricks repaints once.
The Qt undo stack in ``ui/`` is only an adapter over these objects; ``editing`` builds
edits from a selection or a request (quick-fill, duplicate, reorder, delete).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from .topology import Brick, BrickRef, Client, Layout, Mount, Node, Site, Topology, TopologyError, Volume


class Edit:
    """One undoable change. Subclasses fill in ``apply`` and ``revert``."""

    text = "edit"

    def apply(self, topo: Topology) -> None:
        raise NotImplementedError

    def revert(self, topo: Topology) -> None:
        raise NotImplementedError


@dataclass
class Compound(Edit):
    """Several edits as one step; if a part fails, the parts already done are reverted."""

    text: str
    parts: list[Edit] = field(default_factory=list)

    def apply(self, topo: Topology) -> None:
        done: list[Edit] = []
        with topo.events.batch():
            try:
                for part in self.parts:
                    part.apply(topo)
                    done.append(part)
            except Exception:
                for part in reversed(done):
                    part.revert(topo)
                raise

    def revert(self, topo: Topology) -> None:
        with topo.events.batch():
            for part in reversed(self.parts):
                part.revert(topo)


# ---- sites ----------------------------------------------------------------------------

@dataclass
class AddSite(Edit):
    site: Site
    index: int | None = None

    @property
    def text(self) -> str:
        return f"add site {self.site.name}"

    def apply(self, topo: Topology) -> None:
        topo.add_site(self.site, self.index)

    def revert(self, topo: Topology) -> None:
        topo.remove_site(self.site.name)


@dataclass
class RemoveSite(Edit):
    name: str
    _index: int = 0
    _site: Site | None = None

    @property
    def text(self) -> str:
        return f"delete site {self.name}"

    def apply(self, topo: Topology) -> None:
        self._index, self._site = topo.remove_site(self.name)

    def revert(self, topo: Topology) -> None:
        assert self._site is not None
        topo.add_site(self._site, self._index)


@dataclass
class RenameSite(Edit):
    old: str
    new: str

    @property
    def text(self) -> str:
        return f"rename site {self.old} to {self.new}"

    def apply(self, topo: Topology) -> None:
        topo.rename_site(self.old, self.new)

    def revert(self, topo: Topology) -> None:
        topo.rename_site(self.new, self.old)


@dataclass
class UpdateSite(Edit):
    name: str
    description: str
    _old: str = ""

    text = "edit site description"

    def apply(self, topo: Topology) -> None:
        self._old = topo.update_site(self.name, self.description)

    def revert(self, topo: Topology) -> None:
        topo.update_site(self.name, self._old)


# ---- nodes ----------------------------------------------------------------------------

@dataclass
class AddNode(Edit):
    node: Node
    index: int | None = None

    @property
    def text(self) -> str:
        return f"add node {self.node.name}"

    def apply(self, topo: Topology) -> None:
        topo.add_node(self.node, self.index)

    def revert(self, topo: Topology) -> None:
        topo.remove_node(self.node.name)


@dataclass
class RemoveNode(Edit):
    """Delete a node; its bricks leave every volume first (undo puts them back in place)."""

    name: str
    _index: int = 0
    _node: Node | None = None
    _positions: dict[str, list[tuple[int, BrickRef]]] = field(default_factory=dict)
    _thin_arbiters: dict[str, BrickRef] = field(default_factory=dict)  # volume -> its thin-arbiter brick here

    @property
    def text(self) -> str:
        return f"delete node {self.name}"

    def apply(self, topo: Topology) -> None:
        node = topo.require_node(self.name)
        self._positions = {}
        self._thin_arbiters = {}
        with topo.events.batch():
            for volume in topo.volumes:
                kept = [(i, r) for i, r in enumerate(volume.bricks) if r.node == node.name]
                if kept:
                    self._positions[volume.name] = kept
                    topo.set_volume_bricks(volume.name, [r for r in volume.bricks if r.node != node.name])
                ta = volume.thin_arbiter_brick
                if ta is not None and ta.node == node.name:
                    self._thin_arbiters[volume.name] = ta
                    topo.update_volume(volume.name, thin_arbiter_brick=None)
            self._index, self._node = topo.remove_node(self.name)

    def revert(self, topo: Topology) -> None:
        assert self._node is not None
        with topo.events.batch():
            topo.add_node(self._node, self._index)
            for name, ta in self._thin_arbiters.items():
                topo.update_volume(name, thin_arbiter_brick=ta)
            for name, kept in self._positions.items():
                bricks = list(topo.require_volume(name).bricks)
                for i, ref in kept:
                    bricks.insert(i, ref)
                topo.set_volume_bricks(name, bricks)


@dataclass
class RenameNode(Edit):
    old: str
    new: str

    @property
    def text(self) -> str:
        return f"rename node {self.old} to {self.new}"

    def apply(self, topo: Topology) -> None:
        topo.rename_node(self.old, self.new)

    def revert(self, topo: Topology) -> None:
        topo.rename_node(self.new, self.old)


@dataclass
class RenameClient(Edit):
    old: str
    new: str

    @property
    def text(self) -> str:
        return f"rename client {self.old} to {self.new}"

    def apply(self, topo: Topology) -> None:
        topo.rename_client(self.old, self.new)

    def revert(self, topo: Topology) -> None:
        topo.rename_client(self.new, self.old)


@dataclass
class MoveNode(Edit):
    name: str
    site: str
    _old: str = ""

    @property
    def text(self) -> str:
        return f"move {self.name} to {self.site or 'no site'}"

    def apply(self, topo: Topology) -> None:
        self._old = topo.move_node(self.name, self.site)

    def revert(self, topo: Topology) -> None:
        topo.move_node(self.name, self._old)


@dataclass
class UpdateNode(Edit):
    name: str
    fields: dict[str, object]
    _old: dict[str, object] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return f"edit {self.name} ({', '.join(self.fields)})"

    def apply(self, topo: Topology) -> None:
        self._old = topo.update_node(self.name, **self.fields)

    def revert(self, topo: Topology) -> None:
        topo.update_node(self.name, **self._old)


# ---- bricks ---------------------------------------------------------------------------

@dataclass
class AddBrick(Edit):
    """Add a brick to a node and, when ``volume`` is given, to that volume's brick list."""

    node: str
    brick: Brick
    index: int | None = None
    volume: str = ""
    volume_index: int | None = None

    @property
    def text(self) -> str:
        return f"add brick {self.node}:{self.brick.path}"

    def apply(self, topo: Topology) -> None:
        with topo.events.batch():
            topo.add_brick(self.node, self.brick, self.index)
            if self.volume:
                bricks = list(topo.require_volume(self.volume).bricks)
                at = len(bricks) if self.volume_index is None else self.volume_index
                bricks.insert(at, BrickRef(self.node, self.brick.path))
                topo.set_volume_bricks(self.volume, bricks)

    def revert(self, topo: Topology) -> None:
        topo.remove_brick(BrickRef(self.node, self.brick.path))


@dataclass
class RemoveBrick(Edit):
    ref: BrickRef
    _index: int = 0
    _brick: Brick | None = None
    _positions: dict[str, int] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return f"delete brick {self.ref}"

    def apply(self, topo: Topology) -> None:
        self._index, self._brick, self._positions = topo.remove_brick(self.ref)

    def revert(self, topo: Topology) -> None:
        assert self._brick is not None
        with topo.events.batch():
            topo.add_brick(self.ref.node, self._brick, self._index)
            for name, at in self._positions.items():
                bricks = list(topo.require_volume(name).bricks)
                bricks.insert(at, self.ref)
                topo.set_volume_bricks(name, bricks)


@dataclass
class UpdateBrick(Edit):
    ref: BrickRef
    fields: dict[str, object]
    _old: dict[str, object] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return f"edit brick {self.ref} ({', '.join(self.fields)})"

    def apply(self, topo: Topology) -> None:
        self._old = topo.update_brick(self.ref, **self.fields)

    def revert(self, topo: Topology) -> None:
        path = str(self.fields.get("path", self.ref.path))
        topo.update_brick(BrickRef(self.ref.node, path), **self._old)


# ---- volumes --------------------------------------------------------------------------

@dataclass
class AddVolume(Edit):
    volume: Volume
    index: int | None = None

    @property
    def text(self) -> str:
        return f"add volume {self.volume.name}"

    def apply(self, topo: Topology) -> None:
        topo.add_volume(self.volume, self.index)

    def revert(self, topo: Topology) -> None:
        topo.remove_volume(self.volume.name)


@dataclass
class RemoveVolume(Edit):
    name: str
    _index: int = 0
    _volume: Volume | None = None

    @property
    def text(self) -> str:
        return f"delete volume {self.name}"

    def apply(self, topo: Topology) -> None:
        self._index, self._volume = topo.remove_volume(self.name)

    def revert(self, topo: Topology) -> None:
        assert self._volume is not None
        topo.add_volume(self._volume, self._index)


@dataclass
class SetVolumeBricks(Edit):
    volume: str
    bricks: list[BrickRef]
    text: str = "change brick order"
    _old: list[BrickRef] = field(default_factory=list)

    def apply(self, topo: Topology) -> None:
        self._old = topo.set_volume_bricks(self.volume, self.bricks)

    def revert(self, topo: Topology) -> None:
        topo.set_volume_bricks(self.volume, self._old)


@dataclass
class SetVolumeLayout(Edit):
    volume: str
    layout: Layout
    _old: Layout | None = None

    @property
    def text(self) -> str:
        return f"set {self.volume} layout to {describe_layout(self.layout)}"

    def apply(self, topo: Topology) -> None:
        self._old = topo.set_volume_layout(self.volume, copy.copy(self.layout))

    def revert(self, topo: Topology) -> None:
        assert self._old is not None
        topo.set_volume_layout(self.volume, self._old)


@dataclass
class UpdateVolume(Edit):
    volume: str
    fields: dict[str, object]
    _old: dict[str, object] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return f"edit volume {self.volume} ({', '.join(self.fields)})"

    def apply(self, topo: Topology) -> None:
        self._old = topo.update_volume(self.volume, **self.fields)

    def revert(self, topo: Topology) -> None:
        name = str(self.fields.get("name", self.volume))
        topo.update_volume(name, **self._old)


# ---- clients --------------------------------------------------------------------------

@dataclass
class AddClient(Edit):
    client: Client

    @property
    def text(self) -> str:
        return f"add client {self.client.name}"

    def apply(self, topo: Topology) -> None:
        topo.add_client(self.client)

    def revert(self, topo: Topology) -> None:
        topo.remove_client(self.client.name)


@dataclass
class RemoveClient(Edit):
    """Delete a client; its mounts leave their volumes first (undo puts them back in place)."""

    name: str
    _index: int = 0
    _client: Client | None = None
    _mounts: list[tuple[str, int, Mount]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return f"delete client {self.name}"

    def apply(self, topo: Topology) -> None:
        if topo.client(self.name) is None:
            raise TopologyError(f"no client named {self.name!r}")
        with topo.events.batch():
            self._mounts = []
            for volume, mount in topo.mounts_of(self.name):
                index, _ = topo.remove_mount(volume, mount.client, mount.path)
                self._mounts.append((volume, index, mount))
            self._index, self._client = topo.remove_client(self.name)

    def revert(self, topo: Topology) -> None:
        assert self._client is not None
        with topo.events.batch():
            topo.add_client(self._client, self._index)
            for volume, index, mount in reversed(self._mounts):
                topo.add_mount(volume, mount, index)


@dataclass
class UpdateClient(Edit):
    name: str
    fields: dict[str, object]
    _old: dict[str, object] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return f"edit client {self.name} ({', '.join(self.fields)})"

    def apply(self, topo: Topology) -> None:
        self._old = topo.update_client(self.name, **self.fields)

    def revert(self, topo: Topology) -> None:
        topo.update_client(self.name, **self._old)


# ---- mounts and volume options -------------------------------------------------------

@dataclass
class AddMount(Edit):
    volume: str
    mount: Mount
    index: int | None = None

    @property
    def text(self) -> str:
        return f"mount {self.volume} on {self.mount.client}:{self.mount.path}"

    def apply(self, topo: Topology) -> None:
        topo.add_mount(self.volume, copy.copy(self.mount), self.index)

    def revert(self, topo: Topology) -> None:
        topo.remove_mount(self.volume, self.mount.client, self.mount.path)


@dataclass
class RemoveMount(Edit):
    volume: str
    client: str
    path: str
    _index: int = 0
    _mount: Mount | None = None

    @property
    def text(self) -> str:
        return f"remove the mount of {self.volume} on {self.client}:{self.path}"

    def apply(self, topo: Topology) -> None:
        self._index, self._mount = topo.remove_mount(self.volume, self.client, self.path)

    def revert(self, topo: Topology) -> None:
        assert self._mount is not None
        topo.add_mount(self.volume, self._mount, self._index)


@dataclass
class UpdateMount(Edit):
    """Change a mount's client, mount point, options or fstab flag."""

    volume: str
    client: str
    path: str
    fields: dict[str, object]
    _old: dict[str, object] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return f"edit the mount of {self.volume} on {self.client}:{self.path} ({', '.join(self.fields)})"

    def apply(self, topo: Topology) -> None:
        self._old = topo.update_mount(self.volume, self.client, self.path, **self.fields)

    def revert(self, topo: Topology) -> None:
        client = str(self.fields.get("client", self.client))
        path = str(self.fields.get("path", self.path))
        topo.update_mount(self.volume, client, path, **self._old)


@dataclass
class SetVolumeOption(Edit):
    """Set one gluster volume option (``value`` None resets it to gluster's default)."""

    volume: str
    key: str
    value: str | None
    _old: tuple[str | None, int | None] = (None, None)

    @property
    def text(self) -> str:
        if self.value is None:
            return f"reset {self.key} on {self.volume}"
        return f"set {self.key}={self.value} on {self.volume}"

    def apply(self, topo: Topology) -> None:
        self._old = topo.set_volume_option(self.volume, self.key, self.value)

    def revert(self, topo: Topology) -> None:
        value, index = self._old
        topo.set_volume_option(self.volume, self.key, value, index)


# ---- helpers that build edits ---------------------------------------------------------

def describe_layout(layout: Layout) -> str:
    """The counts as gluster's create command words them: 'replica 3 arbiter 1',
    'disperse 6 redundancy 2', 'replica all bricks', or 'distribute'."""
    if layout.type.is_replicated:
        words = [f"replica {layout.replica or 'all bricks'}"]
        if layout.arbiter:
            words.append(f"arbiter {layout.arbiter}")
        return " ".join(words)
    if layout.type.is_dispersed:
        words = [f"disperse {layout.disperse or 'all bricks'}"]
        if layout.redundancy:
            words.append(f"redundancy {layout.redundancy}")
        return " ".join(words)
    return "distribute"


def record_free_space(topo: Topology, measured: list[tuple[str, str, int]], when: str) -> Compound | None:
    """One undoable step writing what pre-flight measured (node, brick path, free bytes on its
    filesystem) into the topology's bricks; None when it measured none of them."""
    parts: list[Edit] = [UpdateBrick(BrickRef(node, path), {"free_bytes": free, "free_measured": when})
                         for node, path, free in measured if topo.brick(BrickRef(node, path)) is not None]
    if not parts:
        return None
    return Compound(f"record the free space pre-flight measured on {len(parts)} brick(s)", parts)
