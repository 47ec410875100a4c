"""Who mounts a volume: the clients gluster's servers see, and where each client mounts it.

``gluster volume status VOL clients --xml`` lists every connection to the volume's bricks as
``ADDRESS:PORT``; the servers' own self-heal daemons are among them, so addresses that belong
to a server of the pool are left out (``getent hosts`` on the node asked, for every server
name, plus that node's own addresses). What remains are the client machines. Where each one
mounts the volume only the client knows: ``findmnt -t fuse.glusterfs`` there, over SSH.
Import uses both to draw the clients and their mounts; teardown uses the first to refuse a
volume that a client outside the topology still mounts (it could not unmount it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from ..core import gluster_xml
from .executor import Executor, ExecutorError
from .glusterstate import gluster_xml_output


class ClientsUnreadable(ExecutorError):
    """gluster answered, but would not list the volume's clients (10.3's ``volume status VOL
    clients`` fails with "Commit failed on node2" when no client is connected)."""


@dataclass(frozen=True)
class SeenClient:
    address: str   # as the servers see it
    name: str      # its host name (getent on the node asked), or the address


@dataclass(frozen=True)
class ClientMount:
    volume: str
    source: str    # server:/volume[/subdir]
    path: str      # the mount point on the client


async def resolve_addresses(ex: Executor, names: Iterable[str]) -> dict[str, list[str]]:
    """``getent hosts`` on the node behind ``ex``: each name (or address) -> what it resolves
    to, addresses and names alike ({} for what it does not know)."""
    names = [n for n in dict.fromkeys(names) if n and not n.startswith("-")]
    if not names:
        return {}
    result = await ex.run(["getent", "hosts", *names], timeout=30)
    out: dict[str, list[str]] = {}
    for line in result.text.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            address, hostnames = fields[0], fields[1:]
            for key in (address, *hostnames):
                out.setdefault(key, []).extend(v for v in (address, *hostnames) if v != key)
    return out


async def server_addresses(ex: Executor, servers: Iterable[str]) -> set[str]:
    """Every address of the pool's servers as the node behind ``ex`` resolves them, with its
    own addresses (``hostname -I``)."""
    servers = list(servers)
    known = await resolve_addresses(ex, servers)
    out = set(servers)
    for name in servers:
        out.update(known.get(name, []))
    own = await ex.run(["hostname", "-I"], timeout=30)
    if own.ok:
        out.update(own.text.split())
    return out


async def connected_clients(ex: Executor, target: str, servers: Iterable[str]) -> dict[str, list[SeenClient]]:
    """Volume -> the client machines (not servers) connected to its bricks, as the node behind
    ``ex`` sees them. ``target`` is a volume name or "all"; a volume that is not started has
    no clients. Raises ``ClientsUnreadable`` when gluster answers without the list, and
    ``ExecutorError`` when it cannot be asked."""
    try:
        seen = gluster_xml.parse_volume_clients(
            await gluster_xml_output(ex, "volume", "status", target, "clients"))
    except gluster_xml.GlusterCommandError as exc:
        if "not started" in exc.op_errstr or "does not exist" in exc.op_errstr:
            return {}
        raise ClientsUnreadable(ex.host, f"gluster volume status {target} clients: {exc.op_errstr or exc}") from exc
    except gluster_xml.GlusterXMLError as exc:
        raise ClientsUnreadable(ex.host, f"gluster volume status {target} clients: {exc}") from exc
    seen = {v: addresses for v, addresses in seen.items() if target in ("all", v)}
    if not any(seen.values()):
        return {}
    pool = await server_addresses(ex, servers)
    others = {v: [a for a in addresses if a not in pool] for v, addresses in seen.items()}
    wanted = {a for addresses in others.values() for a in addresses}
    names = await resolve_addresses(ex, wanted) if wanted else {}

    def name_of(address: str) -> str:
        return next((n for n in names.get(address, []) if not _looks_like_address(n)), address)

    return {v: [SeenClient(a, name_of(a)) for a in addresses] for v, addresses in others.items() if addresses}


def _looks_like_address(text: str) -> bool:
    return ":" in text or text.replace(".", "").isdigit()


async def client_mounts(ex: Executor) -> list[ClientMount]:
    """The glusterfs mounts of the client behind ``ex`` (``findmnt``; no root needed)."""
    result = await ex.run(["findmnt", "-rn", "-t", "fuse.glusterfs", "-o", "SOURCE,TARGET"], timeout=30)
    if result.exit_status not in (0, 1):  # 1: no such mount
        raise ExecutorError(ex.host, f"findmnt exited {result.exit_status}")
    out = []
    for line in result.text.splitlines():
        fields = line.split(" ")
        if len(fields) != 2:
            continue
        source, target = (_unescape(f) for f in fields)
        _, sep, rest = source.partition(":/")
        volume = rest.split("/", 1)[0] if sep else ""
        if volume:
            out.append(ClientMount(volume, source, target))
    return out


def _unescape(text: str) -> str:
    r"""findmnt -r writes a space as \x20 (and other bytes likewise)."""
    if "\\x" not in text:
        return text
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode(
        "utf-8", "replace")


async def mounts_of(reach: Callable[[str], Executor], client: SeenClient) -> tuple[list[ClientMount], str]:
    """(the client's glusterfs mounts, "") or ([], why it could not be asked)."""
    target = client.name if client.name != client.address else client.address
    try:
        return await client_mounts(reach(target)), ""
    except ExecutorError as exc:
        return [], str(exc)
    except (OSError, ValueError) as exc:
        return [], f"{target}: {exc}"
