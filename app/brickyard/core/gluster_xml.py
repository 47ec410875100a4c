"""Read gluster 10's ``--xml`` output (untrusted: parsed with defusedxml) into the topology.

- ``gluster volume info [VOL] --xml``: ``cliOutput/volInfo/volumes/volume`` with name, id,
  statusStr, type (0 Distribute, 2 Replicate, 4 Disperse, 7 Distributed-Replicate,
  9 Distributed-Disperse), replicaCount (3 for ``replica 3 arbiter 1``), arbiterCount,
  disperseCount, redundancyCount, ``bricks/brick`` in order (name ``host:/path``, hostUuid,
  isArbiter) and ``options/option`` (name, value).
- ``gluster volume status VOL detail --xml``: ``volStatus/volumes/volume/node`` per brick
  (hostname, path, status 1/0, sizeTotal, sizeFree, inodesTotal, inodesFree, device, fsName,
  mntOptions); the
  self-heal daemons are ``node`` entries too, told apart by a path that is not absolute. A
  brick whose node's glusterd is down is simply absent.
- ``gluster peer status --xml``: ``peerStatus/peer`` (uuid, hostname, hostnames, connected,
  stateStr); the node it ran on is not listed.
- ``gluster volume status VOL clients --xml``: ``node/clientsStatus/client/hostname`` is each
  connected client's ``ADDRESS:PORT`` (the servers' self-heal daemons among them).
- plain ``gluster volume info``: the only place gluster 10.3 names a volume's thin-arbiter
  brick (``Thin-arbiter-path: HOST:/PATH``); its XML says replica 2 and nothing more.
With ``--xml`` gluster exits 0 even when it refuses: ``opRet`` -1 with ``opErrstr`` says so,
and becomes a ``GlusterCommandError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeET

from .topology import Brick, BrickRef, Layout, Node, Topology, Volume, VolumeType

TYPE_NUMBERS = {
    0: VolumeType.DISTRIBUTE, 2: VolumeType.REPLICATE, 4: VolumeType.DISPERSE,
    7: VolumeType.DISTRIBUTED_REPLICATE, 9: VolumeType.DISTRIBUTED_DISPERSE,
}


class GlusterXMLError(ValueError):
    """Output that is not the XML gluster 10 prints."""


class GlusterCommandError(GlusterXMLError):
    """gluster refused: ``opRet`` was not 0."""

    def __init__(self, op_ret: int, op_errno: int, op_errstr: str):
        self.op_ret, self.op_errno, self.op_errstr = op_ret, op_errno, op_errstr
        super().__init__(f"gluster refused (opRet {op_ret}, opErrno {op_errno}): "
                         f"{op_errstr or 'no reason given'}")


# What glusterd 10 writes into every new volume by itself (glusterd-volume-ops.c
# ``glusterd_op_create_volume`` -> ``glusterd_enable_default_options``; seen on the lab for every
# layout), and into a replicated one besides (client-io-threads off: ``glusterd_op_create_volume``
# for GF_CLUSTER_TYPE_REPLICATE). On another layout those two are an admin's choice.
CREATE_DEFAULTS = {
    "storage.fips-mode-rchecksum": "on", "transport.address-family": "inet", "nfs.disable": "on",
}
REPLICATED_CREATE_DEFAULTS = {"cluster.granular-entry-heal": "on", "performance.client-io-threads": "off"}


@dataclass(frozen=True)
class BrickInfo:
    ref: BrickRef
    host_uuid: str
    is_arbiter: bool


@dataclass(frozen=True)
class VolumeInfo:
    name: str
    id: str
    status: str                 # Created | Started | Stopped
    type: VolumeType
    type_str: str
    replica_count: int
    arbiter_count: int
    disperse_count: int
    redundancy_count: int
    bricks: tuple[BrickInfo, ...]
    options: dict[str, str] = field(default_factory=dict)

    @property
    def layout(self) -> Layout:
        if self.type.is_replicated:
            return Layout(self.type, replica=self.replica_count, arbiter=self.arbiter_count)
        if self.type.is_dispersed:
            return Layout(self.type, disperse=self.disperse_count, redundancy=self.redundancy_count)
        return Layout(self.type)

    def to_volume(self) -> Volume:
        """The volume as a plan: options gluster 10 sets by itself at create time for this
        layout are left out (``volume create`` sets them again), so the plan shows only what an
        admin chose (client-io-threads off on a distributed volume was chosen: it stays)."""
        defaults = {**CREATE_DEFAULTS, **(REPLICATED_CREATE_DEFAULTS if self.type.is_replicated else {})}
        options = {k: v for k, v in self.options.items() if defaults.get(k) != v}
        return Volume(self.name, self.layout, [b.ref for b in self.bricks], options)


@dataclass(frozen=True)
class BrickStatus:
    ref: BrickRef
    online: bool
    peer_id: str = ""
    size_total: int | None = None
    size_free: int | None = None
    device: str = ""
    fs_name: str = ""
    mount_options: str = ""
    inodes_total: int | None = None
    inodes_free: int | None = None


@dataclass(frozen=True)
class Peer:
    uuid: str
    hostname: str
    hostnames: tuple[str, ...]
    connected: bool
    state: str


def parse(xml: bytes | str) -> Any:
    """The ``cliOutput`` root after checking ``opRet``; raises for anything else.

    Text before the XML declaration (seen in a real capture: a plain ``peer status`` printed
    ahead of it on the same stdout) is skipped; anything else must be the XML."""
    data = xml.encode() if isinstance(xml, str) else bytes(xml)
    start = data.find(b"<?xml")
    if start > 0 and not data[:start].lstrip().startswith(b"<"):
        data = data[start:]
    try:
        root = SafeET.fromstring(data)
    except DefusedXmlException as exc:
        raise GlusterXMLError(f"refused unsafe XML ({type(exc).__name__})") from None
    except SafeET.ParseError as exc:
        raise GlusterXMLError(f"not XML: {exc}") from None
    if root.tag != "cliOutput":
        raise GlusterXMLError(f"not gluster --xml output: the root element is <{root.tag}>, not <cliOutput>")
    op_ret = _int(root, "opRet", "cliOutput")
    if op_ret != 0:
        errno = _int(root, "opErrno", "cliOutput", default=0)
        raise GlusterCommandError(op_ret, errno, (root.findtext("opErrstr") or "").strip())
    return root


def _int(el: Any, tag: str, where: str, default: int | None = None) -> int:
    text = el.findtext(tag)
    if text is None or not text.strip():
        if default is not None:
            return default
        raise GlusterXMLError(f"<{where}> has no <{tag}>")
    try:
        return int(text.strip())
    except ValueError:
        raise GlusterXMLError(f"<{where}><{tag}> is not a number: {text.strip()!r}") from None


def _brick_ref(name: str, where: str) -> BrickRef:
    host, sep, path = name.strip().partition(":/")
    if not sep or not host:
        raise GlusterXMLError(f"{where}: not a brick 'host:/path': {name!r}")
    return BrickRef(host, "/" + path)


def parse_volume_info(xml: bytes | str) -> list[VolumeInfo]:
    root = parse(xml)
    out = []
    for vol in root.findall("volInfo/volumes/volume"):
        name = (vol.findtext("name") or "").strip()
        where = f"volume {name or '?'}"
        number = _int(vol, "type", where)
        if number not in TYPE_NUMBERS:
            raise GlusterXMLError(f"{where}: volume type {number} ({vol.findtext('typeStr')}) is not "
                                  "one Brickyard plans (distribute, replicate, disperse and their "
                                  "distributed forms)")
        bricks = []
        for i, b in enumerate(vol.findall("bricks/brick")):
            text = b.findtext("name") or b.text or ""
            bricks.append(BrickInfo(_brick_ref(text, f"{where} brick {i + 1}"),
                                    (b.findtext("hostUuid") or b.get("uuid") or "").strip(),
                                    (b.findtext("isArbiter") or "0").strip() == "1"))
        count = _int(vol, "brickCount", where, default=len(bricks))
        if count != len(bricks):
            raise GlusterXMLError(f"{where}: brickCount says {count} but {len(bricks)} bricks are listed")
        options = {(o.findtext("name") or "").strip(): (o.findtext("value") or "")
                   for o in vol.findall("options/option")}
        out.append(VolumeInfo(
            name=name, id=(vol.findtext("id") or "").strip(),
            status=(vol.findtext("statusStr") or "").strip(), type=TYPE_NUMBERS[number],
            type_str=(vol.findtext("typeStr") or "").strip(),
            replica_count=_int(vol, "replicaCount", where, default=1),
            arbiter_count=_int(vol, "arbiterCount", where, default=0),
            disperse_count=_int(vol, "disperseCount", where, default=0),
            redundancy_count=_int(vol, "redundancyCount", where, default=0),
            bricks=tuple(bricks), options=options))
    return out


def _status_volumes(root: Any) -> list[tuple[str, Any]]:
    """(name, element) of each volume of a ``volume status`` answer."""
    return [((vol.findtext("volName") or "").strip(), vol) for vol in root.findall("volStatus/volumes/volume")]


def parse_volume_status(xml: bytes | str) -> dict[str, list[BrickStatus]]:
    """Volume name -> its bricks' status (daemons left out)."""
    out: dict[str, list[BrickStatus]] = {}
    for name, vol in _status_volumes(parse(xml)):
        bricks = out.setdefault(name, [])
        for node in vol.findall("node"):
            path = (node.findtext("path") or "").strip()
            if not path.startswith("/"):
                continue  # Self-heal Daemon, NFS Server, …
            host = (node.findtext("hostname") or "").strip()
            where = f"volume {name} brick {host}:{path}"
            size = node.findtext("sizeTotal")
            free = node.findtext("sizeFree")
            inodes = node.findtext("inodesTotal")
            ifree = node.findtext("inodesFree")
            bricks.append(BrickStatus(
                ref=BrickRef(host, path), online=_int(node, "status", where, default=0) == 1,
                peer_id=(node.findtext("peerid") or "").strip(),
                size_total=_int(node, "sizeTotal", where) if size is not None else None,
                size_free=_int(node, "sizeFree", where) if free is not None else None,
                device=(node.findtext("device") or "").strip(),
                fs_name=(node.findtext("fsName") or "").strip(),
                mount_options=(node.findtext("mntOptions") or "").strip(),
                inodes_total=_int(node, "inodesTotal", where) if inodes is not None else None,
                inodes_free=_int(node, "inodesFree", where) if ifree is not None else None))
    return out


def parse_volume_clients(xml: bytes | str) -> dict[str, list[str]]:
    """``volume status VOL|all clients --xml``: volume name -> the addresses (without port) of
    the clients connected to any of its bricks, in first-seen order. The servers' own
    self-heal daemons connect as clients too: tell them apart by address."""
    out: dict[str, list[str]] = {}
    for name, vol in _status_volumes(parse(xml)):
        seen = out.setdefault(name, [])
        for client in vol.findall("node/clientsStatus/client"):
            host = (client.findtext("hostname") or "").strip()
            address = host.rsplit(":", 1)[0] if host.count(":") == 1 or host.startswith("[") else host
            address = address.strip("[]")
            if address and address not in seen:
                seen.append(address)
    return out


def parse_thin_arbiter_paths(text: bytes | str) -> dict[str, BrickRef]:
    """Plain ``gluster volume info`` (not ``--xml``: gluster 10.3's XML leaves the thin-arbiter
    out, seen on the lab): volume name -> its ``Thin-arbiter-path: HOST:/PATH``."""
    data = text.decode(errors="replace") if isinstance(text, bytes) else text
    out: dict[str, BrickRef] = {}
    name = ""
    for line in data.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "Volume Name":
            name = value
        elif key == "Thin-arbiter-path" and name:
            out[name] = _brick_ref(value, f"volume {name} thin-arbiter")
    return out


def parse_peer_status(xml: bytes | str) -> list[Peer]:
    root = parse(xml)
    peers = []
    for p in root.findall("peerStatus/peer"):
        hostname = (p.findtext("hostname") or "").strip()
        names = tuple(dict.fromkeys(
            [hostname] + [(h.text or "").strip() for h in p.findall("hostnames/hostname")]))
        peers.append(Peer((p.findtext("uuid") or "").strip(), hostname, tuple(n for n in names if n),
                          (p.findtext("connected") or "0").strip() == "1",
                          (p.findtext("stateStr") or "").strip()))
    return peers


def topology_from_xml(volume_info: bytes | str, status_detail: bytes | str | None = None,
                      peer_status: bytes | str | None = None, name: str = "",
                      thin_arbiters: dict[str, BrickRef] | None = None, measured: str = "") -> Topology:
    """A topology with every volume of ``volume_info``: one node per brick host (in brick
    order, then peers that hold no brick), each brick sized from ``status_detail``'s
    sizeTotal (0 when unknown: the brick was offline or no status was given), its free space
    from sizeFree (as measured at ``measured``, an ISO 8601 time), its device as the
    filesystem it lives on. ``thin_arbiters`` (``parse_thin_arbiter_paths``) makes those
    volumes ``replica 2 thin-arbiter 1`` with their thin-arbiter brick on a node of its own."""
    infos = parse_volume_info(volume_info)
    status: dict[BrickRef, BrickStatus] = {}
    if status_detail is not None:
        for bricks in parse_volume_status(status_detail).values():
            status.update((b.ref, b) for b in bricks)
    topo = Topology(name=name or ", ".join(i.name for i in infos),
                    description="imported from gluster --xml")
    nodes: dict[str, Node] = {}
    for info in infos:
        for b in info.bricks:
            node = nodes.get(b.ref.node)
            if node is None:
                node = nodes[b.ref.node] = Node(b.ref.node)
                topo.nodes.append(node)
            if node.brick(b.ref.path) is None:
                st = status.get(b.ref)
                node.bricks.append(Brick(
                    path=b.ref.path, size_bytes=(st.size_total if st and st.size_total else 0),
                    filesystem=st.device if st else "", fs_type=(st.fs_name if st and st.fs_name else "xfs"),
                    free_bytes=st.size_free if st and st.size_total else None,
                    free_measured=measured if st and st.size_total else ""))
        volume = info.to_volume()
        ta = (thin_arbiters or {}).get(info.name)
        if ta is not None and info.type.is_replicated and info.replica_count == 2:
            volume.layout.thin_arbiter = 1
            volume.thin_arbiter_brick = ta
            node = nodes.get(ta.node)
            if node is None:
                node = nodes[ta.node] = Node(ta.node)
                topo.nodes.append(node)
            if node.brick(ta.path) is None:
                node.bricks.append(Brick(ta.path, 0))  # outside the pool: gluster knows no size
        topo.volumes.append(volume)
    if peer_status is not None:
        for peer in parse_peer_status(peer_status):
            if not any(n in nodes for n in peer.hostnames):
                nodes[peer.hostname] = Node(peer.hostname)
                topo.nodes.append(nodes[peer.hostname])
    return topo
