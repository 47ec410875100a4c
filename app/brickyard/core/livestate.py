"""A live volume as glusterd reports it: the starting point of a change plan (``core.change``).

``LiveState`` is built from gluster's own XML only (``from_outputs``), never from the
drawing: the volume's type, counts and brick order (``volume info``), each brick's state,
size, free space and inodes (``volume status VOL detail``; a brick whose node is down is
absent there), the peers and their UUIDs (``peer status`` and ``pool list`` on the node
asked), the volume's tasks (``volume status VOL tasks``), the rebalance and remove-brick
migrations gluster knows of, and the heal counts (``heal info summary``, replicated and
dispersed volumes). The texts it was read from stay in ``outputs``: History keeps them, so
a resumed change is planned again from exactly what the first run saw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from . import gluster_progress as gp
from . import gluster_xml as gx
from .topology import BrickRef

# the keys of LiveState.outputs: which command each text came from
INFO, DETAIL, PEERS, POOL, TASKS, REBALANCE, REMOVE_BRICK, HEAL = (
    "volume-info", "volume-status-detail", "peer-status", "pool-list", "volume-status-tasks",
    "rebalance-status", "remove-brick-status", "heal-info-summary")


@dataclass(frozen=True)
class LiveBrick:
    ref: BrickRef
    online: bool
    size_total: int | None = None
    size_free: int | None = None
    inodes_total: int | None = None
    inodes_free: int | None = None
    device: str = ""

    @property
    def used_bytes(self) -> int | None:
        """Used space on the brick's filesystem (glusterd's sizeTotal - sizeFree: everything on
        that filesystem, so an upper bound of what the brick holds)."""
        if self.size_total is None or self.size_free is None:
            return None
        return max(self.size_total - self.size_free, 0)

    @property
    def used_inodes(self) -> int | None:
        if self.inodes_total is None or self.inodes_free is None:
            return None
        return max(self.inodes_total - self.inodes_free, 0)


@dataclass(frozen=True)
class LiveState:
    info: gx.VolumeInfo
    bricks: Mapping[BrickRef, LiveBrick]       # every brick of the volume (offline ones too)
    peers: tuple[gx.Peer, ...]                 # as the node asked sees them (itself not included)
    asked: str                                 # the node asked, by its name in the pool ('' unknown)
    uuid_names: Mapping[str, str]              # peer UUID -> host name (the node asked included)
    tasks: tuple[gp.VolumeTask, ...] = ()
    rebalance: gp.MigrationStatus | None = None
    remove_brick: gp.MigrationStatus | None = None
    heal: tuple[gp.HealBrick, ...] | None = None   # None: not asked (distribute) or unanswered
    measured: str = ""                          # ISO 8601 UTC
    outputs: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def started(self) -> bool:
        return self.info.status == "Started"

    def brick(self, ref: BrickRef) -> LiveBrick:
        return self.bricks.get(ref) or LiveBrick(ref, False)

    @property
    def offline(self) -> list[BrickRef]:
        return [b.ref for b in self.info.bricks if not self.brick(b.ref).online]

    @property
    def pool_hosts(self) -> set[str]:
        """Every name the pool knows a member by (the node asked included)."""
        names = {h for p in self.peers for h in p.hostnames}
        return names | ({self.asked} if self.asked else set())

    @property
    def disconnected(self) -> list[str]:
        return [p.hostname for p in self.peers if not p.connected or p.state != "Peer in Cluster"]

    @property
    def heal_pending(self) -> int | None:
        """Entries waiting for heal over all bricks (None when unknown or not applicable)."""
        if self.heal is None:
            return None
        if any(h.total is None for h in self.heal):
            return None
        return sum(h.total or 0 for h in self.heal)

    def running_tasks(self) -> list[gp.VolumeTask]:
        return [t for t in self.tasks if t.running]

    def task(self, kind: str) -> gp.VolumeTask | None:
        """The volume's rebalance (kind "rebalance") or remove-brick task, if gluster lists one."""
        for t in self.tasks:
            if (kind == gp.REBALANCE and t.is_rebalance) or (kind == gp.REMOVE_BRICK and t.is_remove_brick):
                return t
        return None


def from_outputs(outputs: Mapping[str, bytes | str], name: str, measured: str = "") -> LiveState:
    """Build the state of volume ``name`` from the command outputs (keys above; only
    ``volume-info`` is required). Raises ``GlusterXMLError`` for output that is not gluster's,
    and for a volume that does not exist."""
    text = {k: (v.decode(errors="replace") if isinstance(v, bytes) else v) for k, v in outputs.items()}
    infos = [i for i in gx.parse_volume_info(text[INFO]) if i.name == name]
    if not infos:
        raise gx.GlusterXMLError(f"gluster knows no volume {name}")
    info = infos[0]
    status: dict[BrickRef, gx.BrickStatus] = {}
    if DETAIL in text:
        for bricks in gx.parse_volume_status(text[DETAIL]).values():
            status.update((b.ref, b) for b in bricks)
    bricks = {}
    for b in info.bricks:
        st = status.get(b.ref)
        bricks[b.ref] = LiveBrick(b.ref, bool(st and st.online), st.size_total if st else None,
                                  st.size_free if st else None, st.inodes_total if st else None,
                                  st.inodes_free if st else None, st.device if st else "")
    peers = tuple(gx.parse_peer_status(text[PEERS])) if PEERS in text else ()
    uuid_names = {p.uuid: p.hostname for p in peers if p.uuid}
    asked = ""
    if POOL in text:
        own = {p.uuid for p in gx.parse_peer_status(text[POOL]) if p.hostname == "localhost" and p.uuid}
        asked = next((b.ref.node for b in info.bricks if b.host_uuid in own), "")
        for uuid in own:
            uuid_names[uuid] = asked or "localhost"
    for b in info.bricks:    # a brick names its host by the name the volume was made with
        if b.host_uuid and b.host_uuid not in uuid_names:
            uuid_names[b.host_uuid] = b.ref.node
    tasks = tuple(gp.parse_volume_tasks(text[TASKS]).get(name, ())) if TASKS in text else ()
    rebalance = gp.parse_migration_status(text[REBALANCE], gp.REBALANCE) if REBALANCE in text else None
    removing = gp.parse_migration_status(text[REMOVE_BRICK], gp.REMOVE_BRICK) if REMOVE_BRICK in text else None
    heal = tuple(gp.parse_heal_summary(text[HEAL])) if HEAL in text else None
    return LiveState(info, bricks, peers, asked, uuid_names, tasks,
                     rebalance.named(uuid_names) if rebalance else None,
                     removing.named(uuid_names) if removing else None, heal, measured, dict(text))
