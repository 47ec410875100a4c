"""The physics check: what each client's network link allows, and which steps beat it.

A step faster than the link allows for its layout (a replica-2 write sends every byte twice)
was served from a cache. The check needs each client host's link speed; it is found by
itself so the check runs without ``--link``: on each client, the route to the volume's
servers names the device, and ``/sys/class/net/DEV/speed`` its negotiated speed. What that
says is recorded with where it came from, and "unknown" stays unknown:

- a physical NIC (or a bond or VLAN on one) with a speed: used as is;
- a virtual device that reports a speed (a veth says 10000 Mb/s): used, labelled as the
  driver's nominal figure, which is not a physical limit;
- no speed (virtio NICs often say -1), a tunnel, or a client that holds bricks itself
  (reached through the loopback device): no check on that host, said so.

Which figure bounds a host, in order: a link speed the user typed (``--link``, the Run tab's
Link field) for every client; else what was detected on the host, unless that is a virtual
device's nominal speed and the topology declares a NIC figure; else the topology's NIC
figure for it. ``LinkInfo.origin`` records which, and ``link_lines`` says it, the one text the
CLI and the Run tab print.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..core.units import format_link_speed
from ..remote.executor import Executor

# Run on a client with python3 (the agent needs it anyway): for each server name, the device
# the route to it leaves through, whether it is this host itself, the device's kind and speed.
LINK_SCRIPT = r"""
import json, os, re, socket, subprocess, sys

def addr_of(name):
    try:
        infos = socket.getaddrinfo(name, None, 0, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return None
    infos.sort(key=lambda i: i[0] != socket.AF_INET)
    return infos[0][4][0] if infos else None

def is_local(addr):
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    try:
        s.bind((addr, 0))
        return True
    except OSError:
        return False
    finally:
        s.close()

def route_dev(addr):
    try:
        out = subprocess.run(["ip", "-o", "route", "get", addr], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=10).stdout.decode()
        m = re.search(r"\bdev (\S+)", out)
        if m:
            return m.group(1)
    except (OSError, subprocess.SubprocessError):
        pass
    if ":" in addr:
        return None
    best = None                      # no `ip`: longest prefix in /proc/net/route (IPv4)
    target = int.from_bytes(socket.inet_aton(addr), "little")
    try:
        with open("/proc/net/route") as fh:
            for line in fh.readlines()[1:]:
                f = line.split()
                dest, mask = int(f[1], 16), int(f[7], 16)
                if target & mask == dest and (best is None or bin(mask).count("1") > best[0]):
                    best = (bin(mask).count("1"), f[0])
    except (OSError, ValueError, IndexError):
        return None
    return best[1] if best else None

def read(path):
    try:
        with open(path) as fh:
            return fh.read().strip()
    except OSError:
        return None

def kind(dev):
    base = "/sys/class/net/" + dev
    if dev == "lo":
        return "loopback"
    if os.path.exists(base + "/tun_flags"):
        return "tun"
    if os.path.isdir(base + "/bonding"):
        return "bond"
    if os.path.isdir(base + "/bridge"):
        return "bridge"
    if os.path.exists("/proc/net/vlan/" + dev):
        return "vlan"
    if os.path.exists(base + "/device"):
        return "physical"
    if read(base + "/iflink") != read(base + "/ifindex"):
        return "veth"
    return "virtual"

def mbps(dev):
    try:
        v = int(read("/sys/class/net/%s/speed" % dev))
    except (TypeError, ValueError):
        return None
    return v if v > 0 else None

out = {}
for name in sys.argv[1:]:
    addr = addr_of(name)
    if addr is None:
        out[name] = {"error": "cannot resolve " + name}
        continue
    if is_local(addr):
        out[name] = {"addr": addr, "dev": "lo", "local": True, "kind": "loopback", "mbps": None}
        continue
    dev = route_dev(addr)
    out[name] = {"addr": addr, "dev": dev, "local": False, "kind": kind(dev) if dev else None,
                 "mbps": mbps(dev) if dev else None}
print(json.dumps(out))
"""

AUTHORITATIVE = ("physical", "bond", "vlan")


@dataclass(frozen=True)
class LinkInfo:
    """One client's link: bytes/s (None: unknown, no check) and where that came from."""

    bps: float | None
    source: str
    nominal: bool = False
    network: bool = True        # False: a local file system, nothing to check
    origin: str = "detected"    # "override" (typed), "detected" (on the host), "topology" (NIC figure)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LinkInfo:
        """From ``as_dict`` (a stored run's provenance; older ones have no origin)."""
        return cls(d.get("bps"), str(d.get("source", "")), bool(d.get("nominal")), d.get("network") is not False,
                   str(d.get("origin") or "detected"))

    def describe(self) -> str:
        if self.bps is None:
            return f"unknown: {self.source}"
        return f"{format_link_speed(self.bps)} ({self.source})"

    def as_dict(self) -> dict[str, Any]:
        return {"bps": self.bps, "source": self.source, "nominal": self.nominal, "network": self.network,
                "origin": self.origin}


def choose_link(detected: LinkInfo, nic_bps: float | None) -> LinkInfo:
    """The figure that bounds a host when no speed was typed (a typed one, ``Physics.link_bps``,
    wins over both): ``detected`` (what the host reports), else ``nic_bps`` (the topology's NIC
    figure), else unknown (no check). A virtual device's nominal speed (a veth says 10 Gbit/s
    whatever carries it) says less than the NIC figure an admin declared: the declared one wins."""
    if not detected.network or not nic_bps:
        return detected
    if detected.bps is None:
        return LinkInfo(nic_bps, f"the host reports none: {detected.source}", origin="topology")
    if detected.nominal:
        return LinkInfo(nic_bps, f"the host reports only a nominal {format_link_speed(detected.bps)}: "
                                 f"{detected.source}", origin="topology")
    return detected


def link_lines(extra: dict[str, Any], typed_as: str) -> list[str]:
    """What the physics check compared each client host with, and which source that was (see
    the module's doc). ``extra`` is a run's ``provenance.extra``; ``typed_as`` names where a
    typed speed came from ("--link", "the Run tab's Link field")."""
    if extra.get("link_bps"):
        return [f"physics bound: {format_link_speed(extra['link_bps'])} for every client host, typed in "
                f"{typed_as} (it overrides what the hosts report and the topology's NIC figures)"]
    out = []
    for host, d in sorted((extra.get("links") or {}).items()):
        info = LinkInfo.from_dict(d)
        if not info.network:
            out.append(f"physics bound on {host}: none, not applicable ({info.source})")
        elif info.bps is None:
            out.append(f"physics bound on {host}: unknown, no check ({info.source}); type a link speed in "
                       f"{typed_as} to check against one")
        elif info.origin == "topology":
            out.append(f"physics bound on {host}: {format_link_speed(info.bps)} from the topology's NIC figure "
                       f"({info.source})")
        else:
            out.append(f"physics bound on {host}: {format_link_speed(info.bps)} detected on the host ({info.source})")
    return out


def link_from_routes(host: str, routes: dict[str, dict[str, Any]]) -> LinkInfo:
    """Read what LINK_SCRIPT found on ``host`` for the volume's servers."""
    if not routes:
        return LinkInfo(None, "no server of the volume is known to route to")
    bad = [f"{name}: {r['error']}" for name, r in routes.items() if r.get("error")]
    if bad:
        return LinkInfo(None, "; ".join(bad))
    if any(r.get("local") for r in routes.values()):
        return LinkInfo(None, f"{host} holds bricks of this volume itself (reached through the loopback "
                              "device): the network does not bound all its I/O")
    devs: dict[str, dict[str, Any]] = {}
    for r in routes.values():
        devs.setdefault(str(r.get("dev")), r)
    total = 0.0
    notes, nominal = [], False
    for dev, r in sorted(devs.items()):
        speed, kind = r.get("mbps"), r.get("kind") or "unknown"
        if kind in ("tun", "loopback") or not speed:
            why = "a tunnel's speed is not the path's" if kind == "tun" else "sysfs reports no speed for it"
            return LinkInfo(None, f"{host} reaches the servers through {dev} ({kind}): {why}")
        total += speed * 1e6 / 8
        if kind in AUTHORITATIVE:
            notes.append(f"sysfs speed of {dev} ({kind}) on {host}")
        else:
            nominal = True
            article = "an" if kind[:1] in "aeiou" else "a"
            notes.append(f"sysfs speed of {dev} on {host}: {article} {kind} device, so its driver's nominal "
                         "speed, not a physical limit")
    return LinkInfo(total, "; ".join(notes), nominal)


async def detect_link(executor: Executor, servers: Sequence[str], *, python: str = "python3") -> LinkInfo:
    """The link ``executor``'s host uses to reach ``servers`` (host names or addresses)."""
    host = executor.host
    if not servers:
        return LinkInfo(None, "no server of the volume is known to route to")
    try:
        res = await executor.run([python, "-c", LINK_SCRIPT, *servers], timeout=60)
        routes = json.loads(res.text) if res.ok else None
    except Exception as exc:  # noqa: BLE001 - an unknown link means no check, never a failed run
        return LinkInfo(None, f"could not look at {host}'s network devices: {exc}")
    if not isinstance(routes, dict):
        return LinkInfo(None, f"could not look at {host}'s network devices: {res.stderr.decode(errors='replace').strip()[-200:]}")
    return link_from_routes(host, routes)


def servers_of(layout: dict[str, Any], mount_source: str) -> list[str]:
    """The hosts a client talks to: every brick's host, else the host in the mount source."""
    hosts = [str(b).rsplit(":", 1)[0] for b in layout.get("bricks") or [] if ":" in str(b)]
    if not hosts and ":" in mount_source:
        hosts = [mount_source.split(":", 1)[0]]
    return list(dict.fromkeys(h for h in hosts if h))


@dataclass
class Physics:
    """What the network allows. ``link_bps`` (``--link``) applies to every client host;
    otherwise ``links`` holds what was found per host. None = unknown, no check."""

    link_bps: float | None = None
    layout: dict[str, Any] = field(default_factory=dict)   # {"type": "Replicate", "replica": 3, …}
    links: dict[str, LinkInfo] = field(default_factory=dict)

    def _per_link(self, bps: float, direction: str) -> float:
        replica = int(self.layout.get("replica") or 1)
        disperse = int(self.layout.get("disperse") or 0)
        redundancy = int(self.layout.get("redundancy") or 0)
        if direction == "write":
            if disperse > 1:
                return bps * (disperse - redundancy) / disperse
            if replica > 1:
                return bps / replica
        return bps

    def ceiling(self, direction: str) -> float | None:
        """The ceiling of one ``--link`` for this layout and direction."""
        if not self.link_bps:
            return None
        return self._per_link(self.link_bps, direction)

    def ceiling_for(self, direction: str, hosts: Sequence[str]) -> tuple[float | None, str]:
        """The ceiling of all ``hosts`` together (each fills its own link), or (None, why not)."""
        if self.link_bps:
            return self._per_link(self.link_bps, direction) * max(1, len(hosts)), ""
        total = 0.0
        for host in hosts:
            info = self.links.get(host)
            if info is None or info.bps is None:
                return None, (info.source if info else f"{host}: link speed not known")
            total += self._per_link(info.bps, direction)
        return (total, "") if hosts else (None, "no hosts")

    def nominal(self, hosts: Sequence[str]) -> bool:
        return not self.link_bps and any(self.links.get(h, LinkInfo(None, "")).nominal for h in hosts)
