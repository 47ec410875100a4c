"""Import a trusted pool that has peers but no volume yet, so the admin can plan the first one.

``gluster pool list --xml`` on the node asked names every server of the pool (itself as
``localhost``). Each server is then asked over SSH which filesystems could hold bricks
(``findmnt`` and ``stat -f``, read-only: ``core.brickfs``), and each becomes a node with one
brick per such filesystem (``MOUNT/brick``, its size and free space as measured now). The node
asked is named as the other servers know it (their ``pool list`` has it under its UUID); when
no other server answers, by the name it was reached under. Clients the admin names are
checked over SSH (reachable, ``mount.glusterfs`` installed) and drawn beside the servers.
Nothing on any host changes.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from dataclasses import replace
from typing import Callable, Sequence

from ..core import brickfs, gluster_xml
from ..core.topology import Brick, Client, Node, Topology
from ..core.units import format_bytes
from .executor import Executor, ExecutorError
from .glusterstate import gluster_xml_output
from .hostkeys import HostKeyError

FINDMNT = ["findmnt", "-J", "-b", "-l", "-o", "TARGET,SOURCE,FSTYPE,SIZE"]


async def server_filesystems(ex: Executor) -> list[brickfs.Filesystem]:
    """The filesystems on the host behind ``ex`` a brick belongs on, with size and free space."""
    listed = await ex.run(FINDMNT, timeout=30)
    if not listed.ok:
        raise ExecutorError(ex.host, f"findmnt failed: {listed.text.strip() or f'exit status {listed.exit_status}'}")
    try:
        found = brickfs.brick_filesystems(brickfs.parse_findmnt(listed.stdout))
    except brickfs.FindmntError as exc:
        raise ExecutorError(ex.host, str(exc)) from exc
    if not found:
        return []
    stat = await ex.run(["stat", "-f", "-c", "%b %f %S %n", "--", *(fs.mount for fs in found)], timeout=30)
    sizes = brickfs.parse_statfs(stat.stdout) if stat.ok else {}
    return [replace(fs, size_bytes=sizes[fs.mount][0], free_bytes=sizes[fs.mount][1]) if fs.mount in sizes else fs
            for fs in found]


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


async def _own_name(own: gluster_xml.Peer | None, peers: list[gluster_xml.Peer],
                    reach: Callable[[str], Executor] | None) -> str | None:
    """The name the other servers know the asked node by (a name before an address)."""
    if own is None or not own.uuid or reach is None:
        return None
    for peer in peers:
        if not peer.connected:
            continue
        try:
            theirs = gluster_xml.parse_peer_status(await gluster_xml_output(reach(peer.hostname), "pool", "list"))
        except (ExecutorError, gluster_xml.GlusterXMLError):
            continue
        for entry in theirs:
            if entry.uuid == own.uuid:
                names = [n for n in (*entry.hostnames, entry.hostname) if n and n != "localhost"]
                return next((n for n in names if not _is_address(n)), names[0] if names else None)
    return None


async def _server_node(name: str, address: str, ex: Executor, measured: str, notes: list[str]) -> Node:
    node = Node(name, address=address if address != name else "")
    try:
        found = await server_filesystems(ex)
    except HostKeyError:
        raise                                   # the user decides about the key, then imports again
    except ExecutorError as exc:
        notes.append(f"{name}: its filesystems could not be read ({str(exc).removeprefix(f'{exc.host}: ')}); "
                     "add its bricks by hand")
        return node
    if not found:
        notes.append(f"{name}: no filesystem for bricks found (only system filesystems such as /): gluster "
                     "wants bricks on a filesystem of their own; add them by hand once there is one")
    for fs in found:
        node.bricks.append(Brick(fs.brick_path, fs.size_bytes or 0, filesystem=fs.device, mount=fs.mount,
                                 fs_type=fs.fs_type, free_bytes=fs.free_bytes,
                                 free_measured=measured if fs.free_bytes is not None else ""))
    return node


async def check_client(name: str, ex: Executor, notes: list[str]) -> Client:
    """A client the admin named, checked: reachable over SSH, with gluster's FUSE client."""
    reached = getattr(ex, "alias", None) or ex.host
    client = Client(name, address=reached if reached != name else "")
    try:
        probe = await ex.run(["sh", "-c", "command -v mount.glusterfs"], timeout=30)
    except HostKeyError:
        raise
    except ExecutorError as exc:
        notes.append(f"client {name}: {str(exc).removeprefix(f'{exc.host}: ')}")
        return client
    if not probe.ok:
        notes.append(f"client {name}: mount.glusterfs is not installed there (Debian: glusterfs-client); "
                     "it cannot mount a volume until it is")
    return client


async def import_pool(ex: Executor, reach: Callable[[str], Executor] | None, clients: Sequence[str] = ()
                      ) -> tuple[Topology, list[str]]:
    """The pool behind ``ex`` with no volume: its servers and their brick filesystems, and the
    ``clients`` named (see the module doc). Raises ``ExecutorError`` when gluster cannot be asked."""
    notes: list[str] = []
    try:
        pool = gluster_xml.parse_peer_status(await gluster_xml_output(ex, "pool", "list"))
    except gluster_xml.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"gluster pool list: {exc}") from exc
    own = next((p for p in pool if p.hostname == "localhost"), None)
    peers = [p for p in pool if p.hostname != "localhost"]
    reached = getattr(ex, "alias", None) or ex.host
    name = await _own_name(own, peers, reach)
    if name is None:
        name = reached
        if peers:
            notes.append(f"{reached}: no other server told its name in the pool, so it is named as it was reached")
    measured = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    jobs = [_server_node(name, reached, ex, measured, notes)]
    for peer in peers:
        if not peer.connected:
            notes.append(f"{peer.hostname} is in the pool but not connected to it ({peer.state or 'disconnected'})")
        if reach is None:
            notes.append(f"{peer.hostname}: no way to reach it was given; add its bricks by hand")
            jobs.append(_nothing(peer.hostname))
        else:
            jobs.append(_server_node(peer.hostname, peer.hostname, reach(peer.hostname), measured, notes))
    nodes = await asyncio.gather(*jobs)
    topo = Topology(name="", nodes=list(nodes))
    for client in dict.fromkeys(clients):
        if topo.node(client) is not None:
            notes.append(f"{client} is a server of the pool; a server that mounts a volume is drawn as a server")
            continue
        if reach is None:
            topo.clients.append(Client(client))
            continue
        topo.clients.append(await check_client(client, reach(client), notes))
    found = sum(len(n.bricks) for n in topo.nodes)
    free = sum(b.free_bytes or 0 for n in topo.nodes for b in n.bricks)
    notes.insert(0, f"the pool has no volume yet: {len(topo.nodes)} server(s), {found} brick filesystem(s) "
                    f"({format_bytes(free)} free) to plan the first volume on")
    return topo, notes


async def _nothing(name: str) -> Node:
    return Node(name)
