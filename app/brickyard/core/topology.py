"""The topology: sites, nodes with their bricks, clients, latencies and volume definitions.

Plain data plus a change emitter. Every mutation goes through a method here so views
(the canvas, the layout panel) can mirror the model; undoable edits in ``edits.py`` are
built from these methods. Nothing here knows gluster's rules: those live in ``layout.py``.

Names:
- a node's ``name`` is the host name gluster peers use (it appears in ``node:/path``);
  its ``address`` is where SSH connects (defaults to the name).
- a brick is identified by ``BrickRef(node, path)``, printed ``node:/path`` as gluster does.
- a failure or latency endpoint is written ``node2``, ``site:Helsinki``,
  ``brick:node2:/data/b1`` or ``client:web1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from collections import deque
from itertools import repeat
from typing import Any, Iterable, Iterator, Sequence

from .events import Change, Emitter


class VolumeType(str, Enum):
    DISTRIBUTE = "distribute"
    REPLICATE = "replicate"
    DISPERSE = "disperse"
    DISTRIBUTED_REPLICATE = "distributed-replicate"
    DISTRIBUTED_DISPERSE = "distributed-disperse"

    @property
    def is_replicated(self) -> bool:
        return self in (VolumeType.REPLICATE, VolumeType.DISTRIBUTED_REPLICATE)

    @property
    def is_dispersed(self) -> bool:
        return self in (VolumeType.DISPERSE, VolumeType.DISTRIBUTED_DISPERSE)


@dataclass(frozen=True, order=True)
class BrickRef:
    """A brick as gluster names it, ``node:/path``. Its hash is computed once: a change plan
    of a 4,800-brick volume hashes brick references over a million times (sets, matching,
    costs), and a dataclass's ``__hash__`` builds a tuple each time. Equality, order, repr,
    ``fields``/``asdict`` and pickling are a plain frozen dataclass's of (node, path)."""

    # Slots: reading node and path (every step of a plan does, per brick) is a third of the
    # time an instance dict took, and ``refs`` builds 24,000 of them without a Python call each.
    __slots__ = ("node", "path", "_hash")

    node: str
    path: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.node, self.path)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._hash == other._hash and self.node == other.node and self.path == other.path

    def __reduce__(self):
        # the hash of a str differs between processes: pickle the fields, hash again on load
        return self.__class__, (self.node, self.path)

    def __str__(self) -> str:
        return f"{self.node}:{self.path}"

    @classmethod
    def parse(cls, text: str) -> "BrickRef":
        node, sep, path = text.partition(":")
        if not sep or not node or not path:
            raise ValueError(f"not a brick 'node:/path': {text!r}")
        return cls(node, path)


_NEW_REF = object.__new__
_SET_NODE, _SET_PATH, _SET_HASH = BrickRef.node.__set__, BrickRef.path.__set__, BrickRef._hash.__set__


def refs(nodes: Sequence[str], paths: Sequence[str]) -> list[BrickRef]:
    """``[BrickRef(n, p) for n, p in zip(nodes, paths)]`` (equal lengths), built in C: the
    slots are filled by their descriptors, the hash is the one ``__post_init__`` computes. A
    24,000-brick file's references in a third of the time."""
    out = list(map(_NEW_REF, repeat(BrickRef, len(nodes))))
    drain = deque(maxlen=0).extend
    drain(map(_SET_NODE, out, nodes))
    drain(map(_SET_PATH, out, paths))
    drain(map(_SET_HASH, out, map(hash, zip(nodes, paths))))
    return out


@dataclass
class Site:
    name: str
    description: str = ""


@dataclass
class Brick:
    path: str
    size_bytes: int
    # The filesystem the brick lives on. Bricks of one node with the same ``filesystem``
    # share its space (and ``df`` shows that space once per brick). Empty: its own.
    filesystem: str = ""
    # Mount point of that filesystem on the node ("/" for the root filesystem).
    mount: str = ""
    fs_type: str = "xfs"
    disk_kind: str = ""
    # Sequential throughput of the brick's device in bytes/s, for the estimate only.
    speed_bps: float | None = None
    # Free space on the brick's filesystem when it was last measured (pre-flight or import:
    # free blocks x block size, as glusterd's "sizeFree"), and when (ISO 8601 UTC). None:
    # never measured. Space other data already takes shrinks what the volume can hold now.
    free_bytes: int | None = None
    free_measured: str = ""


@dataclass
class Node:
    name: str
    site: str = ""
    address: str = ""
    ssh_user: str = "root"
    ssh_port: int = 22
    nic_gbps: float | None = None
    bricks: list[Brick] = field(default_factory=list)

    @property
    def ssh_host(self) -> str:
        return self.address or self.name

    def brick(self, path: str) -> Brick | None:
        for brick in self.bricks:
            if brick.path == path:
                return brick
        return None

    def filesystem_of(self, brick: Brick) -> str:
        """The key bricks share when they share a filesystem."""
        return brick.filesystem or f"brick:{brick.path}"


@dataclass
class Client:
    name: str
    site: str = ""
    address: str = ""
    ssh_user: str = "root"
    ssh_port: int = 22
    nic_gbps: float | None = None

    @property
    def ssh_host(self) -> str:
        return self.address or self.name


@dataclass
class Latency:
    """Round-trip time between two endpoints (``site:X``, a node, or ``client:X``)."""

    a: str
    b: str
    rtt_ms: float
    measured: bool = False


@dataclass
class Mount:
    """A client mounting a volume at ``path`` with extra ``mount -o`` options; ``fstab``
    asks provisioning for an /etc/fstab line too (teardown removes it again)."""

    client: str
    path: str
    options: str = ""
    fstab: bool = False


@dataclass
class Layout:
    """What the user asks for. The brick count decides how many sets gluster makes."""

    type: VolumeType = VolumeType.DISTRIBUTE
    replica: int | None = None
    arbiter: int = 0
    disperse: int | None = None
    redundancy: int | None = None
    # ``replica 2 thin-arbiter 1``: the volume's thin-arbiter brick is ``Volume.thin_arbiter_brick``
    thin_arbiter: int = 0
    # ``disperse-data D``: data bricks per disperse set (gluster derives what is not given)
    disperse_data: int | None = None


@dataclass
class Volume:
    name: str
    layout: Layout = field(default_factory=Layout)
    bricks: list[BrickRef] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)
    transport: str = "tcp"
    force: bool = False
    mounts: list[Mount] = field(default_factory=list)
    # ``replica 2 thin-arbiter 1``: the one brick, on a host outside the pool (usually a small
    # machine in a third site running the thin-arbiter process), that every replica pair
    # consults when one of its two bricks is down. Not one of ``bricks``: it holds no data.
    thin_arbiter_brick: BrickRef | None = None


#: the name of a topology nobody has named yet (File > New, a run from a window opened without a file)
UNTITLED = "untitled"


class TopologyError(ValueError):
    """An edit the model cannot take (a duplicate name, a missing node, …)."""


@dataclass
class Topology:
    name: str = ""
    description: str = ""
    sites: list[Site] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    clients: list[Client] = field(default_factory=list)
    latencies: list[Latency] = field(default_factory=list)
    volumes: list[Volume] = field(default_factory=list)
    events: Emitter = field(default_factory=Emitter, compare=False, repr=False)

    # ---- look-ups -------------------------------------------------------------------
    def site(self, name: str) -> Site | None:
        return next((s for s in self.sites if s.name == name), None)

    def node(self, name: str) -> Node | None:
        return next((n for n in self.nodes if n.name == name), None)

    def client(self, name: str) -> Client | None:
        return next((c for c in self.clients if c.name == name), None)

    def volume(self, name: str) -> Volume | None:
        return next((v for v in self.volumes if v.name == name), None)

    def brick(self, ref: BrickRef) -> Brick | None:
        node = self.node(ref.node)
        return node.brick(ref.path) if node else None

    def _require(self, kind: str, name: str) -> Any:
        item = getattr(self, kind)(name)
        if item is None:
            raise TopologyError(f"no {kind} named {name!r}")
        return item

    def require_site(self, name: str) -> Site:
        return self._require("site", name)

    def require_node(self, name: str) -> Node:
        return self._require("node", name)

    def require_client(self, name: str) -> Client:
        return self._require("client", name)

    def require_volume(self, name: str) -> Volume:
        volume = self.volume(name)
        if volume is None:
            known = ", ".join(v.name for v in self.volumes) or "none"
            raise TopologyError(f"no volume named {name!r} (volumes: {known})")
        return volume

    def pool_origin(self, volume: Volume) -> str:
        """The node a volume's gluster commands run on: the topology's first node, so every
        volume of one topology lands in one trusted pool (the volume's first brick's node when
        the topology lists no nodes). Every node it probes runs glusterd."""
        if self.nodes:
            return self.nodes[0].name
        return volume.bricks[0].node if volume.bricks else ""

    def all_bricks(self) -> Iterator[tuple[BrickRef, Brick]]:
        for node in self.nodes:
            for brick in node.bricks:
                yield BrickRef(node.name, brick.path), brick

    def nodes_in_site(self, site: str) -> list[Node]:
        return [n for n in self.nodes if n.site == site]

    def site_of(self, node_name: str) -> str:
        node = self.node(node_name)
        return node.site if node else ""

    def rtt_ms(self, a: str, b: str) -> float | None:
        for lat in self.latencies:
            if {lat.a, lat.b} == {a, b}:
                return lat.rtt_ms
        return None

    # ---- mutations (each emits one Change) -------------------------------------------
    def _emit(self, kind: str, subject: str = "", **detail: object) -> None:
        self.events.emit(Change(kind, subject, dict(detail)))

    def _check_free(self, kind: str, name: str) -> None:
        """A new site, node, client or volume name must not be taken."""
        if getattr(self, kind)(name):
            raise TopologyError(f"a {kind} named {name!r} exists already")

    def _insert(self, kind: str, items: list, item: Any, index: int | None, subject: str) -> Any:
        items.insert(len(items) if index is None else index, item)
        self._emit(f"{kind}-added", subject)
        return item

    def _add_named(self, kind: str, items: list, item: Any, index: int | None) -> Any:
        self._check_free(kind, item.name)
        return self._insert(kind, items, item, index, item.name)

    def _take(self, kind: str, items: list, item: Any, subject: str) -> int:
        """Remove ``item`` from ``items``; returns where it was, for an undo."""
        index = items.index(item)
        items.remove(item)
        self._emit(f"{kind}-removed", subject)
        return index

    def _rename(self, kind: str, old: str, new: str) -> Any:
        """The site, node or client now called ``new``, or None when the name did not change."""
        item = self._require(kind, old)
        if old == new:
            return None
        self._check_free(kind, new)
        item.name = new
        return item

    def _rename_endpoint(self, old: str, new: str) -> None:
        for lat in self.latencies:
            lat.a = new if lat.a == old else lat.a
            lat.b = new if lat.b == old else lat.b

    @staticmethod
    def _set_fields(item: object, what: str, fields: dict[str, object], fixed: tuple[str, ...] = (),
                    refusal: str = "cannot be set this way") -> dict[str, object]:
        """Set plain fields of ``item``; returns their old values."""
        old = {}
        for key, value in fields.items():
            if key in fixed or not hasattr(item, key):
                raise TopologyError(f"{what} field {key!r} {refusal}")
            old[key] = getattr(item, key)
            setattr(item, key, value)
        return old

    def add_site(self, site: Site, index: int | None = None) -> Site:
        return self._add_named("site", self.sites, site, index)

    def remove_site(self, name: str) -> tuple[int, Site]:
        site = self.require_site(name)
        if self.nodes_in_site(name):
            raise TopologyError(f"site {name!r} still has nodes; move or delete them first")
        return self._take("site", self.sites, site, name), site

    def rename_site(self, old: str, new: str) -> None:
        if self._rename("site", old, new) is None:
            return
        for item in [*self.nodes, *self.clients]:
            if item.site == old:
                item.site = new
        self._rename_endpoint(f"site:{old}", f"site:{new}")
        self._emit("site-renamed", new, old=old)

    def update_site(self, name: str, description: str) -> str:
        """Set a site's description; returns the old one."""
        site = self.require_site(name)
        old, site.description = site.description, description
        self._emit("site-changed", name)
        return old

    def add_node(self, node: Node, index: int | None = None) -> Node:
        self._check_free("node", node.name)
        if node.site and not self.site(node.site):
            raise TopologyError(f"node {node.name!r} names site {node.site!r}, which does not exist")
        return self._insert("node", self.nodes, node, index, node.name)

    def remove_node(self, name: str) -> tuple[int, Node]:
        node = self.require_node(name)
        used = [v.name for v in self.volumes if any(r.node == name for r in v.bricks)
                or (v.thin_arbiter_brick is not None and v.thin_arbiter_brick.node == name)]
        if used:
            raise TopologyError(f"node {name!r} has bricks in volume(s) {', '.join(used)}; remove them from the volume first")
        return self._take("node", self.nodes, node, name), node

    def rename_node(self, old: str, new: str) -> None:
        if self._rename("node", old, new) is None:
            return
        for volume in self.volumes:
            volume.bricks = [BrickRef(new, r.path) if r.node == old else r for r in volume.bricks]
            ta = volume.thin_arbiter_brick
            if ta is not None and ta.node == old:
                volume.thin_arbiter_brick = BrickRef(new, ta.path)
        self._rename_endpoint(old, new)
        self._emit("node-renamed", new, old=old)

    def move_node(self, name: str, site: str) -> str:
        """Put a node in another site; returns the site it was in."""
        node = self.require_node(name)
        if site and not self.site(site):
            raise TopologyError(f"no site named {site!r}")
        old = node.site
        node.site = site
        self._emit("node-moved", name, old_site=old)
        return old

    def update_node(self, name: str, **fields: object) -> dict[str, object]:
        """Set plain fields (address, ssh_user, ssh_port, nic_gbps); returns old values."""
        old = self._set_fields(self.require_node(name), "node", fields, fixed=("name", "site", "bricks"))
        self._emit("node-changed", name)
        return old

    def add_brick(self, node_name: str, brick: Brick, index: int | None = None) -> Brick:
        node = self.require_node(node_name)
        if node.brick(brick.path):
            raise TopologyError(f"node {node_name!r} has a brick at {brick.path!r} already")
        return self._insert("brick", node.bricks, brick, index, str(BrickRef(node_name, brick.path)))

    def remove_brick(self, ref: BrickRef) -> tuple[int, Brick, dict[str, int]]:
        """Remove a brick from its node and from every volume; returns what undo needs:
        its index on the node and its position in each volume that used it."""
        node = self.require_node(ref.node)
        brick = node.brick(ref.path)
        if brick is None:
            raise TopologyError(f"no brick {ref}")
        arbitrated = [v.name for v in self.volumes if v.thin_arbiter_brick == ref]
        if arbitrated:
            raise TopologyError(f"brick {ref} is the thin-arbiter brick of volume(s) {', '.join(arbitrated)}; "
                                "give the volume another thin-arbiter brick first")
        positions = {}
        for volume in self.volumes:
            if ref in volume.bricks:
                positions[volume.name] = volume.bricks.index(ref)
                volume.bricks.remove(ref)
        index = node.bricks.index(brick)
        node.bricks.remove(brick)
        self._emit("brick-removed", str(ref), volumes=positions)
        return index, brick, positions

    def update_brick(self, ref: BrickRef, **fields: object) -> dict[str, object]:
        brick = self.brick(ref)
        if brick is None:
            raise TopologyError(f"no brick {ref}")
        new_path = fields.get("path")
        if new_path is not None and new_path != ref.path:
            if self.require_node(ref.node).brick(str(new_path)):
                raise TopologyError(f"node {ref.node!r} has a brick at {new_path!r} already")
        old = self._set_fields(brick, "brick", fields, refusal="does not exist")
        if new_path is not None and new_path != ref.path:
            new_ref = BrickRef(ref.node, str(new_path))
            for volume in self.volumes:
                volume.bricks = [new_ref if r == ref else r for r in volume.bricks]
                if volume.thin_arbiter_brick == ref:
                    volume.thin_arbiter_brick = new_ref
            self._emit("brick-renamed", str(new_ref), old=str(ref))
        else:
            self._emit("brick-changed", str(ref))
        return old

    def add_client(self, client: Client, index: int | None = None) -> Client:
        return self._add_named("client", self.clients, client, index)

    def remove_client(self, name: str) -> tuple[int, Client]:
        client = self.require_client(name)
        used = [v.name for v in self.volumes if any(m.client == name for m in v.mounts)]
        if used:
            raise TopologyError(f"client {name!r} mounts volume(s) {', '.join(used)}; remove those mounts first")
        return self._take("client", self.clients, client, name), client

    def rename_client(self, old: str, new: str) -> None:
        """Rename a client; its volume mounts and latencies follow."""
        if self._rename("client", old, new) is None:
            return
        for volume in self.volumes:
            for mount in volume.mounts:
                if mount.client == old:
                    mount.client = new
        self._rename_endpoint(f"client:{old}", f"client:{new}")
        self._emit("client-renamed", new, old=old)

    def update_client(self, name: str, /, **fields: object) -> dict[str, object]:
        """Set plain fields (site, address, ssh_user, ssh_port, nic_gbps); returns old values."""
        client = self.require_client(name)
        if "site" in fields and fields["site"] and not self.site(str(fields["site"])):
            raise TopologyError(f"no site named {fields['site']!r}")
        old = self._set_fields(client, "client", fields, fixed=("name",))
        self._emit("client-changed", name)
        return old

    def add_volume(self, volume: Volume, index: int | None = None) -> Volume:
        return self._add_named("volume", self.volumes, volume, index)

    def remove_volume(self, name: str) -> tuple[int, Volume]:
        volume = self.require_volume(name)
        return self._take("volume", self.volumes, volume, name), volume

    def set_volume_bricks(self, name: str, bricks: Iterable[BrickRef]) -> list[BrickRef]:
        volume = self.require_volume(name)
        old = list(volume.bricks)
        volume.bricks = list(bricks)
        self._emit("volume-changed", name)
        return old

    def set_volume_layout(self, name: str, layout: Layout) -> Layout:
        volume = self.require_volume(name)
        old = volume.layout
        volume.layout = layout
        self._emit("volume-changed", name)
        return old

    def update_volume(self, name: str, /, **fields: object) -> dict[str, object]:
        """Set name, options, transport, force or mounts; returns the old values."""
        volume = self.require_volume(name)
        new_name = fields.get("name")
        if new_name is not None and new_name != name:
            self._check_free("volume", str(new_name))
        old = self._set_fields(volume, "volume", fields, fixed=("bricks", "layout"))
        self._emit("volume-changed", volume.name, old_name=name)
        return old

    def mounts_of(self, client: str) -> list[tuple[str, Mount]]:
        """(volume name, mount) for every mount ``client`` has, in volume order."""
        return [(v.name, m) for v in self.volumes for m in v.mounts if m.client == client]

    def _check_mount(self, volume: Volume, mount: Mount, replacing: Mount | None = None) -> None:
        if self.client(mount.client) is None:
            raise TopologyError(f"no client named {mount.client!r}")
        for name, other in self.mounts_of(mount.client):
            if other is not replacing and other.path == mount.path:
                raise TopologyError(f"client {mount.client!r} mounts {name} at {mount.path} already")

    def _find_mount(self, volume: Volume, client: str, path: str) -> Mount:
        for mount in volume.mounts:
            if mount.client == client and mount.path == path:
                return mount
        raise TopologyError(f"volume {volume.name!r} has no mount {client}:{path}")

    def add_mount(self, volume_name: str, mount: Mount, index: int | None = None) -> Mount:
        """Mount ``volume_name`` on a client; one mount point per client path."""
        volume = self.require_volume(volume_name)
        self._check_mount(volume, mount)
        volume.mounts.insert(len(volume.mounts) if index is None else index, mount)
        self._emit("mount-added", mount.client, volume=volume.name, path=mount.path)
        return mount

    def remove_mount(self, volume_name: str, client: str, path: str) -> tuple[int, Mount]:
        volume = self.require_volume(volume_name)
        mount = self._find_mount(volume, client, path)
        index = volume.mounts.index(mount)
        volume.mounts.remove(mount)
        self._emit("mount-removed", client, volume=volume.name, path=path)
        return index, mount

    def update_mount(self, volume_name: str, client: str, path: str, /, **fields: object) -> dict[str, object]:
        """Set a mount's client, path, options or fstab; returns the old values."""
        volume = self.require_volume(volume_name)
        mount = self._find_mount(volume, client, path)
        for key in fields:
            if not hasattr(mount, key):
                raise TopologyError(f"mount field {key!r} does not exist")
        changed = Mount(**{**vars(mount), **fields})
        self._check_mount(volume, changed, replacing=mount)
        old = {key: getattr(mount, key) for key in fields}
        for key, value in fields.items():
            setattr(mount, key, value)
        self._emit("mount-changed", mount.client, volume=volume.name, path=mount.path, old_client=client,
                   old_path=path)
        return old

    def set_volume_option(self, volume_name: str, key: str, value: str | None,
                          index: int | None = None) -> tuple[str | None, int | None]:
        """Set (or with ``value`` None, reset) one gluster option; returns the old value and
        its place among the options, so an undo gives back the same order."""
        volume = self.require_volume(volume_name)
        items = list(volume.options.items())
        keys = [k for k, _ in items]
        old_index = keys.index(key) if key in keys else None
        old_value = volume.options.get(key)
        if old_index is not None:
            del items[old_index]
        if value is not None:
            at = index if index is not None else (old_index if old_index is not None else len(items))
            items.insert(min(at, len(items)), (key, value))
        volume.options = dict(items)
        self._emit("volume-changed", volume.name, option=key)
        return old_value, old_index

    def set_latency(self, a: str, b: str, rtt_ms: float | None, measured: bool = False) -> None:
        self.latencies = [lat for lat in self.latencies if {lat.a, lat.b} != {a, b}]
        if rtt_ms is not None:
            self.latencies.append(Latency(a, b, rtt_ms, measured))
        self._emit("latency-changed", f"{a}|{b}")
