"""Topology files: versioned JSON, read strictly, written atomically and byte-stably.

Format (``format_version`` 2; the JSON Schema is ``schema/topology-v2.schema.json``)::

    {
      "format_version": 2,
      "name": "...", "description": "...",
      "sites": [{"name": "Nuremberg", "description": ""}],
      "nodes": [{"name": "gfs1", "site": "Nuremberg", "address": "10.0.0.1",
                 "ssh_user": "root", "ssh_port": 22, "nic_gbps": 1.0,
                 "bricks": [{"path": "/data/b1", "size_bytes": 20000000000,
                             "filesystem": "/dev/sdb1", "mount": "/data", "fs_type": "xfs",
                             "disk_kind": "NVMe", "speed_bps": 300000000,
                             "free_bytes": 19000000000, "free_measured": "2026-11-23T14:00:00Z"}]}],
      "clients": [{"name": "web1", "site": "Nuremberg", ...}],
      "latencies": [{"a": "site:Nuremberg", "b": "site:Helsinki", "rtt_ms": 25.4, "measured": true}],
      "volumes": [{"name": "gv0", "type": "replicate", "replica": 3, "arbiter": 0,
                   "thin_arbiter": 0, "thin_arbiter_brick": null,
                   "disperse": null, "disperse_data": null, "redundancy": null,
                   "bricks": ["gfs1:/data/b1", ...],
                   "options": {"performance.write-behind": "off"}, "transport": "tcp",
                   "force": false, "mounts": [{"client": "web1", "path": "/mnt/gv0", "options": "",
                               "fstab": false}]}]
    }

Version 2 added a brick's measured free space (``free_bytes``, ``free_measured``), thin-arbiter
volumes (``thin_arbiter`` 1 with a ``thin_arbiter_brick``) and ``disperse_data``. A version 1
file is read as it was written (those fields may not appear in it) and migrates on reading:
nothing in it changes meaning, and saving writes version 2.

Loading collects every problem with its field path (``nodes[2].bricks[0].size_bytes``) and
the line where the JSON parser gives one; nothing is coerced or guessed. Saving writes the
canonical form (keys in this order, two-space indent, a final newline) through a temp file,
fsync and rename, so ``save(load(f))`` reproduces a canonical file byte for byte.
"""

from __future__ import annotations

import gc
import json
import os
from itertools import chain, repeat
from pathlib import Path
from typing import Any

from . import strictjson
from .atomicfile import write_atomic
from .mounts import mount_field_problems
from .strictjson import INVALID, JsonFileError, Problem, Reader, join, kind
from .topology import (
    BrickRef,
    refs,
    Brick,
    Client,
    Latency,
    Layout,
    Mount,
    Node,
    Site,
    Topology,
    Volume,
    VolumeType,
)

FORMAT_VERSION = 2
READS = (1, 2)   # format versions this Brickyard reads; older ones migrate on reading
SUFFIX = ".brickyard.json"
SCHEMA_DIR = Path(__file__).with_name("schema")
SCHEMA_PATH = SCHEMA_DIR / f"topology-v{FORMAT_VERSION}.schema.json"
SCHEMAS = {v: SCHEMA_DIR / f"topology-v{v}.schema.json" for v in READS}


MAX_FILE_BYTES = 64 * 2**20   # 1,000 nodes x 24 bricks is about 6 MiB
# the largest values a field may hold (the schema says the same)
MAX_PORT = 65535
MAX_GBPS = 1e6                  # a petabit per second NIC
MAX_RATE_BPS = 1e15             # a petabyte per second disk
MAX_RTT_MS = 1e7                # about three hours


class TopologyFileError(JsonFileError):
    """A file that cannot be loaded; ``problems`` lists every one found (``str()`` too)."""


class TopologySaveError(TopologyFileError):
    """A topology the writer would not read back (an infinite NIC speed, a size beyond 64 bits):
    nothing was written, and ``problems`` names each field as the reader does."""

    def report(self) -> str:
        return (f"{self.source} was not saved: Brickyard could not open it again. Fix these and save again:\n"
                + "\n".join(f"  {p}" for p in self.problems))


# ---- reading --------------------------------------------------------------------------

_Reader = Reader
_join = join
_kind = kind


_TOP = {"format_version", "name", "description", "sites", "nodes", "clients", "latencies", "volumes"}
_SITE = {"name", "description"}
_NODE = {"name", "site", "address", "ssh_user", "ssh_port", "nic_gbps", "bricks"}
_BRICK = {"path", "size_bytes", "filesystem", "mount", "fs_type", "disk_kind", "speed_bps"}
_BRICK_V2 = _BRICK | {"free_bytes", "free_measured"}
_CLIENT = {"name", "site", "address", "ssh_user", "ssh_port", "nic_gbps"}
_LATENCY = {"a", "b", "rtt_ms", "measured"}
_VOLUME = {"name", "type", "replica", "arbiter", "disperse", "redundancy", "bricks", "options",
           "transport", "force", "mounts"}
_VOLUME_V2 = _VOLUME | {"thin_arbiter", "thin_arbiter_brick", "disperse_data"}
_MOUNT = {"client", "path", "options", "fstab"}

# each object's fields as the Reader reads them, in that order (its problems come in it)
F = strictjson.Field
_SITE_RECORD = strictjson.Record({"name": F(str, ""), "description": F(str, "")}, {"name"})
_HOST_FIELDS = {"name": F(str, ""), "site": F(str, ""), "address": F(str, ""), "ssh_user": F(str, "root"),
                "ssh_port": F(int, 22, minimum=1, maximum=MAX_PORT),
                "nic_gbps": F(float, None, nullable=True, minimum=0, maximum=MAX_GBPS)}
_NODE_RECORD = strictjson.Record(_HOST_FIELDS, {"name"}, _NODE)      # its "bricks" are read one by one
_CLIENT_RECORD = strictjson.Record(_HOST_FIELDS, {"name"}, _CLIENT)
_BRICK_FIELDS = {"path": F(str, ""), "size_bytes": F(int, 0, minimum=0), "filesystem": F(str, ""),
                 "mount": F(str, ""), "fs_type": F(str, "xfs"), "disk_kind": F(str, ""),
                 "speed_bps": F(float, None, nullable=True, minimum=0, maximum=MAX_RATE_BPS),
                 "free_bytes": F(int, None, nullable=True, minimum=0), "free_measured": F(str, "")}
_BRICK_RECORDS = {1: strictjson.Record(_BRICK_FIELDS, {"path", "size_bytes"}, _BRICK),
                  2: strictjson.Record(_BRICK_FIELDS, {"path", "size_bytes"}, _BRICK_V2)}
_LATENCY_RECORD = strictjson.Record({"a": F(str, ""), "b": F(str, ""),
                                     "rtt_ms": F(float, 0.0, minimum=0, maximum=MAX_RTT_MS),
                                     "measured": F(bool, False)}, {"a", "b", "rtt_ms"})
_MOUNT_RECORD = strictjson.Record({"client": F(str, ""), "path": F(str, ""), "options": F(str, ""),
                                   "fstab": F(bool, False)}, {"client", "path"})


def from_dict(data: Any, source: str = "<topology>", problems: list[Problem] | None = None) -> Topology:
    """Build a Topology from parsed JSON, or raise TopologyFileError listing every problem
    (``problems``: those the parser already found, reported with the rest)."""
    if problems is None:   # data built by hand, not by strictjson.parse: the same checks
        data, problems = strictjson.scan(data)
    return _from_parsed(data, source, _Reader(problems))


def _from_parsed(data: Any, source: str, r: _Reader) -> Topology:
    """``from_dict``'s reading, every problem on ``r``'s list (TopologyFileError with them all)."""
    top = r.obj(data, "", _TOP, {"format_version"})
    if top is None:
        raise TopologyFileError(source, r.problems)
    version = r.integer_version(top, "format_version", READS) if "format_version" in top else None
    if version is None:
        raise TopologyFileError(source, r.problems)   # another version: the rest means something else
    brick_record = _BRICK_RECORDS[2 if version >= 2 else 1]
    volume_fields = _VOLUME_V2 if version >= 2 else _VOLUME

    topo = Topology(
        name=r.field(top, "name", "", str, ""),
        description=r.field(top, "description", "", str, ""),
    )
    for i, raw in enumerate(r.array(top, "sites", "")):
        d = r.record(raw, f"sites[{i}]", _SITE_RECORD)
        if d is not None:
            topo.sites.append(Site(d["name"], d["description"]))
    nodes_raw = r.array(top, "nodes", "")
    if not _nodes_at_once(r, nodes_raw, brick_record, topo):
        _nodes_one_by_one(r, nodes_raw, brick_record, topo)
    for i, raw in enumerate(r.array(top, "clients", "")):
        d = r.record(raw, f"clients[{i}]", _CLIENT_RECORD)
        if d is not None:
            topo.clients.append(Client(d["name"], d["site"], d["address"], d["ssh_user"], d["ssh_port"],
                                       d["nic_gbps"]))
    for i, raw in enumerate(r.array(top, "latencies", "")):
        d = r.record(raw, f"latencies[{i}]", _LATENCY_RECORD)
        if d is not None:
            topo.latencies.append(Latency(d["a"], d["b"], d["rtt_ms"], d["measured"]))
    for i, raw in enumerate(r.array(top, "volumes", "")):
        path = f"volumes[{i}]"
        d = r.obj(raw, path, volume_fields, {"name", "type"})
        if d is not None:
            topo.volumes.append(_read_volume(r, d, path))
    _check_references(r, topo)
    if r.problems:
        raise TopologyFileError(source, r.problems)
    return topo


def _nodes_one_by_one(r: _Reader, nodes_raw: list, brick_record: strictjson.Record, topo: Topology) -> None:
    """Each node and each of its bricks read on its own, every problem named in file order."""
    fast = brick_record.fast
    for i, raw in enumerate(nodes_raw):
        path = f"nodes[{i}]"
        d = r.record(raw, path, _NODE_RECORD)
        if d is None:
            continue
        node = Node(d["name"], d["site"], d["address"], d["ssh_user"], d["ssh_port"], d["nic_gbps"])
        mine = node.bricks
        for j, braw in enumerate(r.array(raw, "bricks", path)):
            b = fast(braw)   # Reader.record's first step, inline: 24,000 calls fewer
            if b is None:
                b = r.record(braw, f"{path}.bricks[{j}]", brick_record)
                if b is None:
                    continue
            # (Brick's own __init__: filling its __dict__ in one step was faster here, but made
            # each brick a dict object of its own, slower to read in every step of a plan)
            mine.append(Brick(b["path"], b["size_bytes"], b["filesystem"], b["mount"], b["fs_type"],
                              b["disk_kind"], b["speed_bps"], b["free_bytes"], b["free_measured"]))
        topo.nodes.append(node)


_BRICK_ORDER = ("path", "size_bytes", "filesystem", "mount", "fs_type", "disk_kind", "speed_bps", "free_bytes",
                "free_measured")   # Brick's fields, in its constructor's order


def _nodes_at_once(r: _Reader, nodes_raw: list, brick_record: strictjson.Record, topo: Topology) -> bool:
    """The nodes, with every brick of every node checked column by column and built in one
    ``map`` (``Record.fast_columns``), when no node and no brick has a problem; False (nothing
    added, no problem kept) otherwise, and they are read one by one."""
    before = len(r.problems)
    nodes: list[Node] = []
    lists: list[list] = []
    for i, raw in enumerate(nodes_raw):
        d = r.record(raw, f"nodes[{i}]", _NODE_RECORD)
        bricks = r.array(raw, "bricks", f"nodes[{i}]") if d is not None else None
        if d is None or len(r.problems) != before:
            del r.problems[before:]
            return False
        nodes.append(Node(d["name"], d["site"], d["address"], d["ssh_user"], d["ssh_port"], d["nic_gbps"]))
        lists.append(bricks)
    every = list(chain.from_iterable(lists))
    if every:
        columns = brick_record.fast_columns(every, _BRICK_ORDER)
        if columns is None:
            return False
        made = list(map(Brick, *columns))
        start = 0
        for node, bricks in zip(nodes, lists):
            node.bricks = made[start:start + len(bricks)]
            start += len(bricks)
    topo.nodes.extend(nodes)
    return True


def _read_volume(r: _Reader, d: dict, path: str) -> Volume:
    type_text = r.field(d, "type", path, str, "distribute")
    try:
        vtype = VolumeType(type_text)
    except ValueError:
        r.problem(_join(path, "type"), f"unknown volume type {type_text!r} (one of: {', '.join(t.value for t in VolumeType)})")
        vtype = VolumeType.DISTRIBUTE
    layout = Layout(
        type=vtype,
        replica=r.field(d, "replica", path, int, None, nullable=True),
        arbiter=r.field(d, "arbiter", path, int, 0, minimum=0),
        disperse=r.field(d, "disperse", path, int, None, nullable=True),
        redundancy=r.field(d, "redundancy", path, int, None, nullable=True),
        thin_arbiter=r.field(d, "thin_arbiter", path, int, 0, minimum=0),
        disperse_data=r.field(d, "disperse_data", path, int, None, nullable=True),
    )
    thin_arbiter_brick = None
    text = r.field(d, "thin_arbiter_brick", path, str, None, nullable=True)
    if isinstance(text, str):
        try:
            thin_arbiter_brick = BrickRef.parse(text)
        except ValueError as exc:
            r.problem(_join(path, "thin_arbiter_brick"), str(exc))
    texts = r.array(d, "bricks", path)
    bricks = _good_refs(texts)
    if bricks is None:
        bricks = []
        for k, text in enumerate(texts):
            if type(text) is str:      # BrickRef.parse, without its exception for a good one
                node, sep, brick_path = text.partition(":")
                if sep and node and brick_path:
                    bricks.append(BrickRef(node, brick_path))
                    continue
            here = f"{path}.bricks[{k}]"
            if text is INVALID:
                continue
            if not isinstance(text, str):
                r.problem(here, f"must be a string 'node:/path', not {_kind(text)}")
                continue
            try:
                bricks.append(BrickRef.parse(text))
            except ValueError as exc:
                r.problem(here, str(exc))
    options = r.field(d, "options", path, dict, {})
    for key, value in (options or {}).items():
        if not isinstance(value, str) and value is not INVALID:
            r.problem(_join(_join(path, "options"), key), f"must be a string (gluster option values are text), not {_kind(value)}")
    mounts = []
    for k, raw in enumerate(r.array(d, "mounts", path)):
        m = r.record(raw, f"{path}.mounts[{k}]", _MOUNT_RECORD)
        if m is not None:
            mount = Mount(m["client"], m["path"], m["options"], m["fstab"])
            for key, problem in mount_field_problems(mount.path, mount.options):
                r.problem(f"{path}.mounts[{k}].{key}", problem)
            mounts.append(mount)
    return Volume(
        name=r.field(d, "name", path, str, ""),
        layout=layout,
        bricks=bricks,
        options={k: v for k, v in (options or {}).items() if isinstance(v, str)},
        transport=r.field(d, "transport", path, str, "tcp"),
        force=r.field(d, "force", path, bool, False),
        mounts=mounts,
        thin_arbiter_brick=thin_arbiter_brick,
    )


def _good_refs(texts: list) -> list[BrickRef] | None:
    """The references of a volume's ``bricks`` when every one is a string ``node:path`` with
    a node and a path (what ``BrickRef.parse`` takes), split and built in C; else None, and
    each is read on its own (for its problem)."""
    if not texts:
        return None
    if len(set(map(type, texts))) != 1 or type(texts[0]) is not str:
        return None
    parts = list(map(str.partition, texts, _COLON))
    nodes, seps, paths = map(list, zip(*parts))
    if seps.count(":") != len(seps) or "" in nodes or "" in paths:
        return None
    return refs(nodes, paths)


_COLON = repeat(":")


def _check_references(r: _Reader, topo: Topology) -> None:
    """Names must be unique and every reference must point at something that exists."""
    def unique(items: list, what: str) -> None:
        seen: set[str] = set()
        for i, item in enumerate(items):
            if item.name in seen:
                r.problem(f"{what}[{i}].name", f"duplicate name {item.name!r}")
            seen.add(item.name)

    unique(topo.sites, "sites")
    unique(topo.nodes, "nodes")
    unique(topo.clients, "clients")
    unique(topo.volumes, "volumes")
    sites = {s.name for s in topo.sites}
    for what, items in (("nodes", topo.nodes), ("clients", topo.clients)):
        for i, item in enumerate(items):
            if item.site and item.site not in sites:
                r.problem(f"{what}[{i}].site", f"names site {item.site!r}, which is not in 'sites'")
    # each node's brick paths: a (node, path) tuple per brick, built and hashed, cost 15 ms
    # of reading a 24,000-brick file; a set per node is looked up by the two strings as they are
    paths_of: dict[str, set[str]] = {}
    for i, node in enumerate(topo.nodes):
        paths = [brick.path for brick in node.bricks]
        mine = paths_of.get(node.name)
        if mine is None:
            mine = paths_of[node.name] = set()
        if len(set(paths)) == len(paths) and all(p.startswith("/") for p in paths):
            mine.update(paths)
            continue
        seen_paths: set[str] = set()
        for j, brick in enumerate(node.bricks):
            here = f"nodes[{i}].bricks[{j}].path"
            if not brick.path.startswith("/"):
                r.problem(here, f"must be an absolute path, not {brick.path!r}")
            if brick.path in seen_paths:
                r.problem(here, f"node {node.name!r} lists {brick.path!r} twice")
            seen_paths.add(brick.path)
            mine.add(brick.path)
    clients = {c.name for c in topo.clients}
    nowhere: set[str] = set()
    for i, volume in enumerate(topo.volumes):
        refs = volume.bricks
        if not all([ref.path in paths_of.get(ref.node, nowhere) for ref in refs]):
            for k, ref in enumerate(refs):
                if ref.path not in paths_of.get(ref.node, nowhere):
                    r.problem(f"volumes[{i}].bricks[{k}]", f"{ref} is not a brick of any node")
        ta = volume.thin_arbiter_brick
        if ta is not None and ta.path not in paths_of.get(ta.node, nowhere):
            r.problem(f"volumes[{i}].thin_arbiter_brick", f"{ta} is not a brick of any node")
        for k, mount in enumerate(volume.mounts):
            if mount.client not in clients:
                r.problem(f"volumes[{i}].mounts[{k}].client", f"names client {mount.client!r}, which is not in 'clients'")
    nodes = {n.name for n in topo.nodes}
    for i, lat in enumerate(topo.latencies):
        for key in ("a", "b"):
            end = getattr(lat, key)
            if not _endpoint_exists(end, sites, nodes, clients):
                r.problem(f"latencies[{i}].{key}", f"{end!r} is not a node, 'site:NAME' or 'client:NAME' of this topology")


def _endpoint_exists(end: str, sites: set[str], nodes: set[str], clients: set[str]) -> bool:
    if end.startswith("site:"):
        return end[5:] in sites
    if end.startswith("client:"):
        return end[7:] in clients
    return end in nodes


def loads(text: str, source: str = "<topology>") -> Topology:
    """The topology in ``text``, or TopologyFileError naming every problem.

    A file with no problem is parsed by ``strictjson.parse_quick`` (``json.loads`` and a
    duplicate-key hook) and read with every number checked by the schema reader, in the
    columns it reads anyway; the strict parser's own checks of every value (number hooks,
    the nesting walk) were ~30 % of reading a 24,000-brick file. Any problem at all and the
    text is read again by the strict parser and reader (``_loads_strict``), so each problem
    is named exactly as it always was, with its path and line."""
    # Reading makes a few hundred thousand objects and frees none of them in cycles: the
    # collector's passes meanwhile (a full one walks all that was read so far) find nothing,
    # and were a quarter of reading a 24,000-brick file. Paused while reading.
    collecting = gc.isenabled()
    gc.disable()
    try:
        data = strictjson.parse_quick(text)
        if data is not None:
            try:
                # the schema refuses every field it does not know and types every one it
                # reads, so nothing deeper than itself is read (what parse's depth check is
                # for), and each number it keeps passes Record's or Reader's 64-bit/double bounds
                return _from_parsed(data, source, _Reader(numbers_unchecked=True))
            except TopologyFileError:
                pass
        return _loads_strict(text, source)
    finally:
        if collecting:
            gc.enable()


def _loads_strict(text: str, source: str) -> Topology:
    """The strict parser and reader alone: every value checked while parsing (``loads`` falls
    back to this whenever its quick read finds any problem; tests compare the two)."""
    data, problems = strictjson.parse(text)
    if data is None:
        raise TopologyFileError(source, problems)
    return from_dict(data, source, problems)


def load(path: str | os.PathLike) -> Topology:
    """Read a topology file: a regular file of at most MAX_FILE_BYTES, strict JSON."""
    try:
        text = strictjson.read_text(path, limit=MAX_FILE_BYTES, what="topology file")
    except JsonFileError as exc:
        raise TopologyFileError(str(path), exc.problems) from None
    return loads(text, str(path))


# ---- writing --------------------------------------------------------------------------

def to_dict(topo: Topology) -> dict[str, Any]:
    return {
        "format_version": FORMAT_VERSION,
        "name": topo.name,
        "description": topo.description,
        "sites": [{"name": s.name, "description": s.description} for s in topo.sites],
        "nodes": [
            {
                "name": n.name, "site": n.site, "address": n.address, "ssh_user": n.ssh_user,
                "ssh_port": n.ssh_port, "nic_gbps": n.nic_gbps,
                "bricks": [
                    {"path": b.path, "size_bytes": b.size_bytes, "filesystem": b.filesystem,
                     "mount": b.mount, "fs_type": b.fs_type, "disk_kind": b.disk_kind,
                     "speed_bps": b.speed_bps, "free_bytes": b.free_bytes, "free_measured": b.free_measured}
                    for b in n.bricks
                ],
            }
            for n in topo.nodes
        ],
        "clients": [
            {"name": c.name, "site": c.site, "address": c.address, "ssh_user": c.ssh_user,
             "ssh_port": c.ssh_port, "nic_gbps": c.nic_gbps}
            for c in topo.clients
        ],
        "latencies": [{"a": l.a, "b": l.b, "rtt_ms": l.rtt_ms, "measured": l.measured} for l in topo.latencies],
        "volumes": [
            {
                "name": v.name, "type": v.layout.type.value, "replica": v.layout.replica,
                "arbiter": v.layout.arbiter, "thin_arbiter": v.layout.thin_arbiter,
                "thin_arbiter_brick": None if v.thin_arbiter_brick is None else str(v.thin_arbiter_brick),
                "disperse": v.layout.disperse, "disperse_data": v.layout.disperse_data,
                "redundancy": v.layout.redundancy, "bricks": [str(r) for r in v.bricks],
                "options": dict(v.options), "transport": v.transport, "force": v.force,
                "mounts": [{"client": m.client, "path": m.path, "options": m.options, "fstab": m.fstab}
                           for m in v.mounts],
            }
            for v in topo.volumes
        ],
    }


def dumps(topo: Topology) -> str:
    return json.dumps(to_dict(topo), indent=2, ensure_ascii=False) + "\n"


def checked_dumps(topo: Topology, source: str = "<topology>") -> str:
    """``dumps(topo)``, read back by ``loads`` first: a text this Brickyard would refuse to open
    (raises TopologySaveError naming every field) is never handed to a writer."""
    text = dumps(topo)
    try:
        loads(text, source)
    except TopologyFileError as exc:
        raise TopologySaveError(source, exc.problems) from None
    return text


def save(topo: Topology, path: str | os.PathLike) -> None:
    """Write atomically (``core.atomicfile.write_atomic``: a temp file in the same folder, fsync,
    rename, fsync the folder). The text is read back first (``checked_dumps``): a file the app
    would refuse is never written, and the file already there stays as it was."""
    write_atomic(Path(path), checked_dumps(topo, str(path)).encode("utf-8"))
