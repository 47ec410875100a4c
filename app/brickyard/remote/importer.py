"""Import an existing cluster: read gluster's XML on one node and build a topology from it.

``volume info``, ``volume status ... detail`` (brick sizes, devices; only started volumes
answer it) and ``peer status`` are read over SSH, all with ``--xml``, and turned into a
topology by ``core.gluster_xml`` so the canvas can draw what is already there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core import gluster_xml
from ..core.topology import Node, Topology
from .executor import Executor, ExecutorError
from .glusterstate import gluster_xml_output


@dataclass
class ImportResult:
    topology: Topology
    notes: list[str] = field(default_factory=list)


async def import_cluster(ex: Executor, volume: str | None = None) -> ImportResult:
    """The topology of ``volume`` (or every volume) as seen from the node behind ``ex``."""
    target = volume or "all"
    info = await gluster_xml_output(ex, "volume", "info", target)
    try:
        infos = gluster_xml.parse_volume_info(info)
    except gluster_xml.GlusterCommandError as exc:
        raise ExecutorError(ex.host, f"gluster volume info {target}: {exc.op_errstr or exc}") from exc
    except gluster_xml.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"gluster volume info {target}: {exc}") from exc
    if not infos:
        raise ExecutorError(ex.host, "gluster knows no volume here" if volume is None else f"no volume {volume}")
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
    topo = gluster_xml.topology_from_xml(info, status, peers, name=volume or "")
    topo.description = f"imported from {ex.host} with gluster --xml"
    if peers is not None and topo.node(ex.host) is None:
        # peer status lists every node but the one it ran on; that one holds no brick here
        topo.nodes.append(Node(ex.host))
        notes.append(f"{ex.host} (where gluster was asked) holds no brick of the imported volume(s)")
    missing = [str(b) for n in topo.nodes for b in n.bricks if not b.size_bytes]
    if missing and status is not None:
        notes.append(f"offline bricks (size unknown): {', '.join(missing)}")
    return ImportResult(topo, notes)
