"""Import an existing cluster: read gluster's XML on one node and build a topology from it.
A pool with peers but no volume yet comes in as its servers and their brick filesystems
(``poolimport``), for the admin to plan the first volume on.

``volume info``, ``volume status ... detail`` (brick sizes, devices; only started volumes
answer it) and ``peer status`` are read over SSH, all with ``--xml``, and turned into a
topology by ``core.gluster_xml`` so the canvas can draw what is already there.

The node we asked is missing from its own ``peer status``, and the name we reached it by (an
IP address, an SSH alias) need not be the name gluster knows it by. ``pool list`` gives its
UUID (as ``localhost``); a brick carrying that UUID gives its gluster name. The node then
appears under that name, with the SSH name we used as its ``address``; a node whose gluster
name cannot be learned is left out rather than invented.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..core import gluster_xml
from ..core.topology import BrickRef, Client, Mount, Node, Topology
from .clients import connected_clients, mounts_of
from .executor import Executor, ExecutorError
from .glusterstate import gluster_xml_output
from .poolimport import check_client, import_pool


@dataclass
class ImportResult:
    topology: Topology
    notes: list[str] = field(default_factory=list)


async def import_cluster(ex: Executor, volume: str | None = None,
                         reach: Callable[[str], Executor] | None = None,
                         clients: Sequence[str] = ()) -> ImportResult:
    """The topology of ``volume`` (or every volume) as seen from the node behind ``ex``, with
    the clients that mount it. ``reach(host)`` gives an executor for a client, to learn where
    it mounts the volume (without it, or when a client cannot be reached, the client is
    drawn without that mount and a note says teardown cannot unmount it). A pool with no
    volume yet is imported as its servers with their brick filesystems (``poolimport``).
    ``clients`` the admin names are checked and drawn too, whether they mount anything or not."""
    target = volume or "all"
    info = await gluster_xml_output(ex, "volume", "info", target)
    try:
        infos = gluster_xml.parse_volume_info(info)
    except gluster_xml.GlusterCommandError as exc:
        raise ExecutorError(ex.host, f"gluster volume info {target}: {exc.op_errstr or exc}") from exc
    except gluster_xml.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"gluster volume info {target}: {exc}") from exc
    if not infos:
        if volume is not None:
            raise ExecutorError(ex.host, f"no volume {volume}")
        topo, notes = await import_pool(ex, reach, clients)
        topo.description = f"imported from {ex.host}: a pool with no volume yet"
        return ImportResult(topo, notes)
    notes = []
    status: bytes | None = None
    started = [i.name for i in infos if i.status == "Started"]
    stopped = [i.name for i in infos if i.status != "Started"]
    if started:
        detail = await gluster_xml_output(ex, "volume", "status", volume if volume else "all", "detail")
        try:
            gluster_xml.parse_volume_status(detail)
            status = detail
        except gluster_xml.GlusterXMLError as exc:
            notes.append(f"brick sizes unknown: gluster volume status detail failed ({exc})")
    if stopped:
        notes.append(f"not started, so brick sizes are unknown (0): {', '.join(stopped)}")
    peers = await gluster_xml_output(ex, "peer", "status")
    try:
        gluster_xml.parse_peer_status(peers)
    except gluster_xml.GlusterXMLError as exc:
        notes.append(f"peer list unknown: {exc}")
        peers = None
    thin = await _thin_arbiters(ex, infos, target, notes)
    measured = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    topo = gluster_xml.topology_from_xml(info, status, peers, name=volume or "", thin_arbiters=thin,
                                         measured=measured if status is not None else "")
    topo.description = f"imported from {ex.host} with gluster --xml"
    await _place_asked_node(ex, topo, infos, volume, notes)
    if started:
        await _add_clients(ex, topo, target, peers, reach, notes)
    for name in dict.fromkeys(clients):
        if topo.client(name) is None and topo.node(name) is None:
            topo.clients.append(await check_client(name, reach(name), notes) if reach is not None else Client(name))
    thin = {v.thin_arbiter_brick for v in topo.volumes if v.thin_arbiter_brick is not None}
    missing = [f"{n.name}:{b.path}" for n in topo.nodes for b in n.bricks
               if not b.size_bytes and BrickRef(n.name, b.path) not in thin]
    if missing and status is not None:
        notes.append(f"offline bricks (size unknown): {', '.join(missing)}")
    return ImportResult(topo, notes)


async def _thin_arbiters(ex: Executor, infos: list[gluster_xml.VolumeInfo], target: str,
                         notes: list[str]) -> dict:
    """The thin-arbiter bricks, from the plain ``volume info`` (its XML leaves them out)."""
    if not any(i.type.is_replicated and i.replica_count == 2 for i in infos):
        return {}
    result = await ex.run(["gluster", "--mode=script", "volume", "info", target], sudo=True, timeout=60)
    try:
        return gluster_xml.parse_thin_arbiter_paths(result.stdout) if result.ok else {}
    except gluster_xml.GlusterXMLError as exc:
        notes.append(f"thin-arbiter bricks unknown: {exc}")
        return {}


async def _add_clients(ex: Executor, topo: Topology, target: str, peers: bytes | None,
                       reach: Callable[[str], Executor] | None, notes: list[str]) -> None:
    """The client machines connected to each volume, and where they mount it."""
    servers = [n.name for n in topo.nodes if any(b for v in topo.volumes for b in v.bricks if b.node == n.name)]
    if peers is not None:
        servers += [h for p in gluster_xml.parse_peer_status(peers) for h in p.hostnames]
    try:
        seen = await connected_clients(ex, target, servers)
    except ExecutorError as exc:
        notes.append(f"clients unknown: {exc}")
        return
    mounts: dict[str, tuple[list, str]] = {}
    for vol_name, clients in seen.items():
        volume = topo.volume(vol_name)
        if volume is None:
            continue
        for client in clients:
            if topo.client(client.name) is None:
                topo.clients.append(Client(client.name, address=client.address if client.address != client.name else ""))
            if client.address not in mounts:
                mounts[client.address] = (await mounts_of(reach, client) if reach is not None
                                          else ([], "no way to reach it was given"))
            found, why = mounts[client.address]
            here = [m for m in found if m.volume == vol_name]
            for m in here:
                if not any(x.client == client.name and x.path == m.path for x in volume.mounts):
                    volume.mounts.append(Mount(client.name, m.path))
            if not here:
                reason = f"({why})" if why else "(it has no glusterfs mount of it now)"
                notes.append(f"client {client.name} is connected to {vol_name} but where it mounts it is unknown "
                             f"{reason}: teardown cannot unmount it")


async def _place_asked_node(ex: Executor, topo: Topology, infos: list[gluster_xml.VolumeInfo],
                            volume: str | None, notes: list[str]) -> None:
    """Put the node gluster was asked on into ``topo`` under its gluster name (see the module doc)."""
    # where SSH reached it: an SshExecutor's alias (its ``host`` may be a display name)
    reached = getattr(ex, "alias", None) or ex.host
    name = await _own_gluster_name(ex, infos, volume)
    if name is None:
        if topo.node(ex.host) is None:
            notes.append(f"{ex.host} (where gluster was asked) holds no brick of the imported volume(s) and its "
                         "name in the pool could not be learned, so it is not in the topology")
        return
    node = topo.node(name)
    if node is None:
        node = Node(name)
        topo.nodes.append(node)
        notes.append(f"{name} (where gluster was asked) holds no brick of the imported volume(s)")
    if reached != name and not node.address:
        node.address = reached


async def _own_gluster_name(ex: Executor, infos: list[gluster_xml.VolumeInfo], volume: str | None) -> str | None:
    """The asked node's name in the pool: the host of a brick carrying its UUID, else None."""
    try:
        pool = gluster_xml.parse_peer_status(await gluster_xml_output(ex, "pool", "list"))
    except (ExecutorError, gluster_xml.GlusterXMLError):
        return None
    own = {p.uuid for p in pool if p.hostname == "localhost" and p.uuid}
    if not own:
        return None
    name = _brick_host(infos, own)
    if name is None and volume is not None:  # it may hold bricks of other volumes
        try:
            name = _brick_host(gluster_xml.parse_volume_info(await gluster_xml_output(ex, "volume", "info", "all")), own)
        except (ExecutorError, gluster_xml.GlusterXMLError):
            return None
    return name


def _brick_host(infos: list[gluster_xml.VolumeInfo], uuids: set[str]) -> str | None:
    for info in infos:
        for brick in info.bricks:
            if brick.host_uuid in uuids:
                return brick.ref.node
    return None
